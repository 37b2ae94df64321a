// SPDX-License-Identifier: MIT
/*
 * The FP part of a signal frame: what goes in, and how rt_sigreturn (and
 * swapcontext) take it back.
 *
 * At a syscall boundary the guest has made a function call, so by the
 * x86-64 ABI every vector register is dead and the x87 stack is empty;
 * the live FP state is MXCSR, the x87 control word and, where the CPU
 * has protection keys, PKRU.  A frame therefore carries a standard-format
 * XSAVE image whose XSTATE_BV covers x87, SSE and PKRU (the kernel always
 * marks PKRU in use in a frame, arch/x86/kernel/fpu/signal.c
 * update_pkru_in_sigframe), with the live values, the software-reserved
 * bytes and the magic words, so UC_FP_XSTATE stays truthful.  Layout:
 * the kernel's arch/x86/include/uapi/asm/sigcontext.h; sizes and offsets
 * from CPUID leaf 0xD (SDM vol. 1 ch. 13).
 *
 * Going back, the image is checked the way the kernel checks it: by
 * executing XRSTOR (or FXRSTOR) on it under an exception-table entry
 * (fpu_restore.S), so what the CPU refuses is a bad frame.
 */
#include <cpuid.h>
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "signal_internal.h"

#define XFEATURE_MASK_FPSSE 0x3ull
#define XFEATURE_PKRU 9
#define XFEATURE_MASK_PKRU (1ull << XFEATURE_PKRU)
#define XFEATURE_XTILEDATA 18 /* dynamic: not permitted without arch_prctl */
#define XCOMP_BV_COMPACTED (1ull << 63)
#define MXCSR_DEFAULT 0x1f80u
#define FCW_DEFAULT 0x037f

struct ua_fpu_layout ua__fpu;
/* Size of each user component, and whether the compacted format aligns
 * it to 64 bytes (CPUID leaf 0xD sub-leaf i: EAX, ECX bit 1). */
static uint32_t comp_size[64];
static bool comp_align64[64];


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
	ua__fpu.xfeatures = ua__xgetbv0() & ~(1ull << XFEATURE_XTILEDATA);
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
		comp_size[i] = a;
		comp_align64[i] = c & 2;
		if (i == XFEATURE_PKRU && ua__cpu_pkru_in_xstate())
			ua__fpu.pkru_off = b;
		if (a + b > ua__fpu.xstate_size)
			ua__fpu.xstate_size = a + b;
	}
}

UA_FAST void ua__fpu_save_ctl(struct ua_sigstate *s)
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
	ua__fpu_fresh_from(cur_mxcsr(), cur_fcw());
}

/*
 * ua__fpu_fresh() with the control words already read (frame setup has
 * just stored them for the frame).  Reading them costs more than the
 * writes they would avoid: STMXCSR about 10-30 cycles here, LDMXCSR of
 * the value already there about one.
 */
UA_FAST void ua__fpu_fresh_from(uint32_t mxcsr, uint16_t fcw)
{
	uint16_t fsw;

	asm volatile("fnstsw %0" : "=m"(fsw));
	if (fcw != FCW_DEFAULT || fsw)
		asm volatile("fninit");
	if (mxcsr != MXCSR_DEFAULT) {
		uint32_t v = MXCSR_DEFAULT;

		asm volatile("ldmxcsr %0" : : "m"(v));
	}
}

/*
 * The control words of a restore that left the x87 status word clear
 * (FNINIT, or ua__fpu_x87_clean()): FLDCW needs no FNCLEX before it, as no
 * exception flag can become an unmasked pending one.  Written without
 * reading them first: loading the value already there costs a cycle or
 * two, reading it back to compare costs more.
 */
UA_FAST void ua__fpu_set_ctl(uint32_t mxcsr, uint16_t fcw)
{
	asm volatile("fldcw %0" : : "m"(fcw));
	asm volatile("ldmxcsr %0" : : "m"(mxcsr));
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
	/* XSTATE_BV: PKRU is always marked in use, as the kernel does. */
	put64(img + 512, XFEATURE_MASK_FPSSE |
				 (ua__fpu.pkru_off ? XFEATURE_MASK_PKRU : 0));
}

void ua__fpu_init(void)
{
	detect();
	build_template();
}

UA_FAST const unsigned char *ua__fpu_template(void)
{
	return image_template;
}

void ua__fpu_build_image(const struct ua_sigstate *s, unsigned char img[576])
{
	memcpy(img, image_template, 576);
	memcpy(img, &s->fcw, 2); /* FSW 0, FTW 0: an empty x87 stack */
	put32(img + 24, s->mxcsr);
}

/*
 * Where PKRU sits in an image whose header is xstate_bv/xcomp_bv: its
 * CPUID offset in the standard format; in the compacted one, after the
 * components of XCOMP_BV below it, packed in order (SDM vol. 1 §13.4.3).
 */
static UA_FAST uint32_t pkru_offset(uint64_t xcomp_bv)
{
	uint32_t off = 576;

	if (!(xcomp_bv & XCOMP_BV_COMPACTED))
		return ua__fpu.pkru_off;
	for (int i = 2; i < XFEATURE_PKRU; i++) {
		if (!(xcomp_bv & (1ull << i)))
			continue;
		if (comp_align64[i])
			off = (off + 63) & ~63u;
		off += comp_size[i];
	}
	if (comp_align64[XFEATURE_PKRU])
		off = (off + 63) & ~63u;
	return off;
}

/*
 * PKRU after a successful restore, as the kernel leaves it: the image's
 * value when PKRU was requested and is in XSTATE_BV, else its init value
 * 0 (XRSTOR initialises a requested component absent from XSTATE_BV, and
 * the kernel initialises the user features not requested).  Read inside
 * the window the restore used: the header, then the value.
 */
static UA_FAST int read_pkru(uint64_t fp, uint64_t rfbm,
			     struct ua_fpu_restored *out)
{
	uint64_t xstate_bv, xcomp_bv;
	uint32_t v = 0;

	out->pkru_valid = ua__fpu.pkru_off != 0;
	out->pkru = 0;
	if (!out->pkru_valid || !(rfbm & XFEATURE_MASK_PKRU))
		return 0;
	ua_unsafe_get_user(xstate_bv, (const uint64_t *)(fp + 512), efault);
	ua_unsafe_get_user(xcomp_bv, (const uint64_t *)(fp + 520), efault);
	fp += pkru_offset(xcomp_bv);
	if (xstate_bv & XFEATURE_MASK_PKRU)
		ua_unsafe_get_user(v, (const uint32_t *)fp, efault);
	out->pkru = v;
	return 0;
efault:
	return -EFAULT;
}

/*
 * The control words a restore with rfbm produced: the kernel initialises
 * every user feature it did not ask XRSTOR for, so x87 outside rfbm means
 * the default FCW, and neither SSE nor AVX in it the default MXCSR.
 */
static void take_ctl(const struct ua_fpu_ctl *ctl, uint64_t rfbm,
		     struct ua_fpu_restored *out)
{
	out->fcw = rfbm & 1 ? ctl->fcw : FCW_DEFAULT;
	out->mxcsr = rfbm & 6 ? ctl->mxcsr : MXCSR_DEFAULT;
}

/*
 * The x87 unit as rt_sigreturn leaves it when no image was loaded into
 * it: an empty stack and a clear status word.  At a syscall boundary the
 * ABI already has the stack empty, so only a status word that is not
 * clean (sticky exception flags, condition codes, TOP off 0) pays for
 * FNINIT, which costs about a hundred cycles.
 */
UA_FAST void ua__fpu_x87_clean(void)
{
	uint16_t fsw;

	asm volatile("fnstsw %0" : "=m"(fsw));
	if (fsw)
		asm volatile("fninit");
}

/*
 * The common image, judged without executing XRSTOR (several hundred
 * cycles with AVX-512 in XCR0): 1 when the image is one XRSTOR certainly
 * accepts and whose only surviving effect is its FCW and MXCSR, 0 when
 * the instruction must judge it (a fault reading the image included: the
 * instruction's own fault decides the error), -EFAULT when reading PKRU
 * faults after that, as below.  Certainly accepted
 * (SDM vol. 1 §13.8, the XRSTOR #GP conditions of the standard form): a
 * 64-byte aligned image, XSTATE_BV within x87, SSE and PKRU (all in
 * XCR0), every other header byte zero (XCOMP_BV and the reserved bytes),
 * MXCSR within MXCSR_MASK; what it reads is the legacy area and the
 * header, read here too, so a page it could not read faults here as
 * well.  The effect: x87 and SSE are both requested and both in
 * XSTATE_BV, so FCW and MXCSR come from the image; everything else it
 * would load is either reset just after (the x87 stack, by FNINIT) or
 * dead at the syscall boundary the frame was built at (vector registers).
 * This is the image every engine frame of that kind carries.  It is
 * also all the rewrite fast path's rt_sigreturn takes (src/signal/
 * fast.c): UA_FAST, with the helpers it calls.
 */
UA_FAST int ua__fpu_restore_plain(uint64_t fp, uint64_t rfbm,
				  struct ua_fpu_restored *out)
{
	uint64_t allowed = XFEATURE_MASK_FPSSE |
			   (ua__fpu.xfeatures & XFEATURE_MASK_PKRU);
	uint64_t xstate_bv, rest = 0, w;
	uint32_t mxcsr;
	uint16_t fcw;

	if ((fp & 63) || (rfbm & XFEATURE_MASK_FPSSE) != XFEATURE_MASK_FPSSE)
		return 0;
	ua_unsafe_get_user(xstate_bv, (const uint64_t *)(fp + 512), efault);
	if ((xstate_bv & XFEATURE_MASK_FPSSE) != XFEATURE_MASK_FPSSE ||
	    (xstate_bv & ~allowed))
		return 0;
	for (unsigned int off = 520; off < 576; off += 8) {
		ua_unsafe_get_user(w, (const uint64_t *)(fp + off), efault);
		rest |= w;
	}
	ua_unsafe_get_user(mxcsr, (const uint32_t *)(fp + 24), efault);
	if (rest || (mxcsr & ~ua__fpu.mxcsr_mask))
		return 0;
	ua_unsafe_get_user(fcw, (const uint16_t *)fp, efault);
	ua__fpu_x87_clean();
	out->fcw = fcw;
	out->mxcsr = mxcsr;
	return read_pkru(fp, rfbm, out) ? -EFAULT : 1;
efault:
	return 0;
}

int ua__fpu_restore_xsave(bool block, uint64_t fp, uint64_t rfbm,
			  struct ua_fpu_restored *out)
{
	struct ua_fpu_ctl ctl;
	int ret = -EINVAL;

	rfbm &= ua__fpu.xfeatures;
	/* Per-access: the instruction and the PKRU value are one access. */
	if (!block && !ua_user_read_access_begin((const void *)fp,
						 ua__fpu.xstate_size))
		return -EFAULT;
	ret = ua__fpu_restore_plain(fp, rfbm, out);
	if (ret) {
		if (!block)
			ua_user_read_access_end();
		return ret < 0 ? ret : 0;
	}
	ret = -EINVAL;
	/*
	 * PKRU is never loaded here: it guards the monitor's own memory.
	 * Its value is read from the image and given to the guest on the
	 * way back to guest mode.  Nothing else in the header depends on
	 * rfbm, so the instruction still refuses what the kernel's would.
	 */
	if (!ua__fpu_xrstor((const void *)fp, rfbm & ~XFEATURE_MASK_PKRU,
			    &ctl)) {
		take_ctl(&ctl, rfbm, out);
		ret = read_pkru(fp, rfbm, out);
	}
	if (!block)
		ua_user_read_access_end();
	return ret;
}

/* Set by the probe below: -1 not asked yet, else 0 or 1. */
static atomic_int host_fx_any_align = -1;
static unsigned char probe_img[512 + 64] __attribute__((aligned(64)));

static void probe_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	unsigned char *img = probe_img + 8;

	(void)sig;
	(void)si;
	memcpy(img, uc->uc_mcontext.fpregs, 512);
	memset(img + 464, 0, 4); /* no MAGIC1: an FX-only image */
	uc->uc_mcontext.fpregs = (fpregset_t)img;
}

/*
 * Does the host kernel take an FX-only image that is not 16-byte aligned
 * in rt_sigreturn?  FXRSTOR in user mode refuses it (#GP), and so does
 * the kernel's restore on some CPUs, but not on all (an AMD EPYC with
 * AVX-512 under Linux 6.18 takes it at any alignment).  No rule computed
 * here can know, so the host is asked once, in a child process that
 * returns from a handler with such an image: it exits 0 if the kernel
 * took it and dies of SIGSEGV if not.  Only a guest that moves its FP
 * area off its alignment ever gets here.
 */
static bool host_takes_misaligned_fx(void)
{
	int v = atomic_load(&host_fx_any_align), status;
	pid_t pid;

	if (v >= 0)
		return v;
	pid = fork();
	if (pid == 0) {
		struct sigaction sa;
		sigset_t set;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = probe_handler;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGUSR1, &sa, NULL);
		signal(SIGSEGV, SIG_DFL);
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigaddset(&set, SIGSEGV);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		raise(SIGUSR1);
		_exit(0);
	}
	v = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0;
	atomic_store(&host_fx_any_align, v);
	return v;
}

int ua__fpu_restore_fx(bool block, uint64_t fp, bool hw_align,
		       struct ua_fpu_restored *out)
{
	unsigned char img[512] __attribute__((aligned(16)));
	struct ua_fpu_ctl ctl;

	if (block)
		ua_unsafe_copy_from_user(img, (const void *)fp, 512, efault);
	else if (ua_copy_from_user(img, (const void *)fp, 512))
		goto efault;
	/* The instruction runs on this aligned copy: the host's rule. */
	if (hw_align && (fp & 15) && !host_takes_misaligned_fx())
		return -EINVAL;
	if (ua__fpu_fxrstor(img, &ctl))
		return -EINVAL;
	take_ctl(&ctl, XFEATURE_MASK_FPSSE, out);
	/* Every other user feature, PKRU included, is initialised. */
	out->pkru_valid = ua__fpu.pkru_off != 0;
	out->pkru = 0;
	return 0;
efault:
	return -EFAULT;
}
