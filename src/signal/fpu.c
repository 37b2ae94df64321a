// SPDX-License-Identifier: MIT
/*
 * The FP part of a signal frame.
 *
 * At a syscall boundary the guest has made a function call, so by the
 * x86-64 ABI every vector register is dead and the x87 stack is empty;
 * only MXCSR and the x87 control word are live.  A frame therefore carries
 * a standard-format XSAVE image whose XSTATE_BV covers x87/SSE alone, with
 * the live control words and the kernel's software-reserved bytes and
 * magic words, so UC_FP_XSTATE stays truthful (DESIGN.md §4.9).  Layout
 * facts: the kernel's arch/x86/include/uapi/asm/sigcontext.h and
 * arch/x86/kernel/fpu/signal.c; sizes from CPUID leaf 0xD (SDM vol. 1
 * ch. 13).
 */
#include <cpuid.h>
#include <errno.h>
#include <string.h>

#include "signal_internal.h"

#define XFEATURE_MASK_FPSSE 0x3ull
#define XFEATURE_XTILEDATA 18 /* dynamic: not permitted without arch_prctl */
#define MXCSR_DEFAULT 0x1f80u
#define FCW_DEFAULT 0x037f

struct ua_fpu_layout ua__fpu;
/* End of each user component in the standard format (0: not present). */
static uint32_t comp_end[64];
/* Size of each component, and whether the compacted format aligns it to
 * 64 bytes (CPUID leaf 0xD sub-leaf i: EAX, ECX bit 1). */
static uint32_t comp_size[64];
static bool comp_align64[64];

static uint64_t xgetbv0(void)
{
	uint32_t lo, hi;

	asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

static void detect(void)
{
	unsigned int a, b, c, d;
	unsigned char fx[512] __attribute__((aligned(64)));
	uint32_t mask;

	memset(fx, 0, sizeof(fx));
	asm volatile("fxsave64 %0" : "=m"(fx));
	memcpy(&mask, fx + 28, 4);
	ua__fpu.mxcsr_mask = mask ? mask : 0xffbf;

	__cpuid(1, a, b, c, d);
	if (!(c & (1u << 27))) /* OSXSAVE */
		return;
	ua__fpu.xsave = true;
	ua__fpu.xfeatures = xgetbv0() & ~(1ull << XFEATURE_XTILEDATA);
	ua__fpu.xstate_size = 576;
	__cpuid_count(0xd, 1, a, b, c, d);
	ua__fpu.xcomp = a & 2; /* XSAVEC: XRSTOR knows the compacted form */
	/* Standard format: each component at its fixed offset. */
	for (int i = 2; i < 63; i++) {
		if (!(ua__fpu.xfeatures & (1ull << i)))
			continue;
		__cpuid_count(0xd, i, a, b, c, d);
		if (c & 1) /* supervisor state: never in a user frame */
			continue;
		comp_end[i] = a + b;
		comp_size[i] = a;
		comp_align64[i] = c & 2;
		if (a + b > ua__fpu.xstate_size)
			ua__fpu.xstate_size = a + b;
	}
}

uint32_t ua__fpu_read_extent(const unsigned char *hdr, uint64_t rfbm)
{
	uint64_t xstate_bv, xcomp_bv, load;
	uint32_t end = 576, off = 576;

	memcpy(&xstate_bv, hdr, 8);
	memcpy(&xcomp_bv, hdr + 8, 8);
	load = xstate_bv & rfbm;
	/* x87/SSE only, the frames this engine writes: the legacy area. */
	if (!(load & ~3ull) && !(xcomp_bv >> 63))
		return end;
	if (!(xcomp_bv >> 63)) {
		for (int i = 2; i < 63; i++)
			if ((load & (1ull << i)) && comp_end[i] > end)
				end = comp_end[i];
		return end;
	}
	/* Compacted: the components of XCOMP_BV packed in order. */
	for (int i = 2; i < 63; i++) {
		if (!(xcomp_bv & (1ull << i)))
			continue;
		if (comp_align64[i])
			off = (off + 63) & ~63u;
		off += comp_size[i];
		if (load & (1ull << i))
			end = off;
	}
	return end;
}

void ua__fpu_save_ctl(struct ua_sigstate *s)
{
	asm volatile("stmxcsr %0" : "=m"(s->mxcsr));
	asm volatile("fnstcw %0" : "=m"(s->fcw));
}

static inline uint32_t cur_mxcsr(void)
{
	uint32_t v;

	asm volatile("stmxcsr %0" : "=m"(v));
	return v;
}

static inline uint16_t cur_fcw(void)
{
	uint16_t v;

	asm volatile("fnstcw %0" : "=m"(v));
	return v;
}

/*
 * What a handler starts with: the init state of the x87 and SSE control
 * and status.  FNINIT and LDMXCSR cost tens of cycles each, a good part of
 * a signal round trip, and at a syscall boundary the state is nearly
 * always already the default: write only what differs.
 */
void ua__fpu_fresh(void)
{
	uint16_t fsw;

	asm volatile("fnstsw %0" : "=m"(fsw));
	if (cur_fcw() != FCW_DEFAULT || fsw)
		asm volatile("fninit");
	if (cur_mxcsr() != MXCSR_DEFAULT) {
		uint32_t v = MXCSR_DEFAULT;

		asm volatile("ldmxcsr %0" : : "m"(v));
	}
}

void ua__fpu_load_ctl(uint32_t mxcsr, uint16_t fcw)
{
	/* FNCLEX first: FLDCW would raise a pending unmasked exception. */
	if (cur_fcw() != fcw)
		asm volatile("fnclex\n\tfldcw %0" : : "m"(fcw));
	if (cur_mxcsr() != mxcsr)
		asm volatile("ldmxcsr %0" : : "m"(mxcsr));
}

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* Everything of a frame's image but the two control words, made once. */
static unsigned char image_template[576];

static void build_template(void)
{
	unsigned char *img = image_template;

	put32(img + 28, ua__fpu.mxcsr_mask);
	if (!ua__fpu.xsave)
		return;
	put32(img + 464, FP_XSTATE_MAGIC1);
	put32(img + 468, ua__fpu.xstate_size + 4); /* extended_size */
	put64(img + 472, ua__fpu.xfeatures);
	put32(img + 480, ua__fpu.xstate_size);
	put64(img + 512, XFEATURE_MASK_FPSSE); /* XSTATE_BV */
}

void ua__fpu_init(void)
{
	detect();
	build_template();
}

const unsigned char *ua__fpu_template(void)
{
	return image_template;
}

void ua__fpu_build_image(const struct ua_sigstate *s, unsigned char img[576])
{
	memcpy(img, image_template, 576);
	memcpy(img, &s->fcw, 2); /* FSW 0, FTW 0: an empty x87 stack */
	put32(img + 24, s->mxcsr);
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/*
 * What XRSTOR (or FXRSTOR) would refuse with #GP is a bad frame (SDM vol. 1
 * §13.8): reserved MXCSR bits; in the standard form (XCOMP_BV bit 63
 * clear) XSTATE_BV bits outside XCR0 or non-zero header bytes 8..23; in
 * the compacted form, which XRSTOR takes where XSAVEC exists, XCOMP_BV
 * bits outside XCR0, XSTATE_BV bits outside XCOMP_BV or non-zero header
 * bytes 16..63.  The standard form does not look at bytes 24..63.
 */
int ua__fpu_check(const unsigned char *legacy, const unsigned char *hdr,
		  uint64_t rfbm, uint32_t *mxcsr, uint16_t *fcw)
{
	uint64_t xstate_bv, xcomp_bv;
	int reserved_end = 24;

	memcpy(mxcsr, legacy + 24, 4);
	memcpy(fcw, legacy, 2);
	if (!hdr) /* FXRSTOR: MXCSR is always checked and loaded */
		return *mxcsr & ~ua__fpu.mxcsr_mask ? -EINVAL : 0;
	xstate_bv = get64(hdr);
	xcomp_bv = get64(hdr + 8);
	if (xcomp_bv >> 63) {
		if (!ua__fpu.xcomp ||
		    (xcomp_bv & ~(1ull << 63) & ~ua__fpu.xfeatures) ||
		    (xstate_bv & ~(xcomp_bv & ~(1ull << 63))))
			return -EINVAL;
		reserved_end = 64;
	} else if ((xstate_bv & ~ua__fpu.xfeatures) || xcomp_bv) {
		return -EINVAL;
	}
	for (int i = 16; i < reserved_end; i += 8)
		if (get64(hdr + i))
			return -EINVAL;
	/* XRSTOR loads MXCSR when RFBM has SSE or AVX, and checks it then. */
	if (rfbm & 0x6) {
		if (*mxcsr & ~ua__fpu.mxcsr_mask)
			return -EINVAL;
	} else {
		*mxcsr = MXCSR_DEFAULT;
	}
	/* A requested component absent from XSTATE_BV gets its init state. */
	if (!(rfbm & xstate_bv & 1))
		*fcw = FCW_DEFAULT;
	return 0;
}
