// SPDX-License-Identifier: MIT
/*
 * The complete FP/vector state of a guest interrupted at an arbitrary
 * instruction (a fault, an asynchronous signal).
 *
 * The host kernel has already saved it: the ucontext it hands to the
 * library's handler points (uc_mcontext.fpregs) at the XSAVE image of its
 * own signal frame, standard format, with the software-reserved bytes
 * saying how much is valid (arch/x86/kernel/fpu/signal.c,
 * copy_fpstate_to_sigframe()).  It is copied into the task in one block,
 * written into the guest's frame, and on the way back to guest code the
 * exit path (entry.S) loads an image with XRSTOR as its last step before
 * the general registers, so that no monitor code runs between the load
 * and guest code.  Layout facts: SDM vol. 1 ch. 13; CPUID leaf 0xD.
 */
#include <cpuid.h>
#include <stdlib.h>
#include <string.h>

#include "../../task/task_internal.h"

#define UC_FP_XSTATE_ 0x1
#define XSTATE_FPSSE 0x3ull

uint32_t ua__xstate_size = 512;
bool ua__xstate_xsave;

/* The init state: FCW and MXCSR at their defaults, XSTATE_BV 0. */
unsigned char ua__xstate_init_image[576] __attribute__((aligned(64)));

static size_t buf_size(void)
{
	return (ua__xstate_size + 63) & ~(size_t)63;
}

/*
 * The init image into a whole buffer: its legacy area and header, and
 * zeros in the components its XSTATE_BV of 0 leaves in their init state
 * (nothing stale from an earlier image may reach a frame).
 */
void ua__xstate_init_to(void *buf)
{
	size_t n = sizeof(ua__xstate_init_image);

	memcpy(buf, ua__xstate_init_image, n);
	if (ua__xstate_size > n)
		memset((unsigned char *)buf + n, 0, ua__xstate_size - n);
}

void *ua__xstate_alloc(void)
{
	void *p = aligned_alloc(64, buf_size());

	if (p)
		ua__xstate_init_to(p);
	return p;
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/*
 * Copy the interrupted state out of the host's frame.  Async-signal-safe
 * (called from the fault and interrupt handlers).  A host frame without
 * an XSAVE image (no UC_FP_XSTATE, a bad magic, a compacted header) gives
 * the legacy area alone, the rest in its init state.
 */
void ua__xstate_capture(void *buf, const ucontext_t *uc)
{
	const unsigned char *src = (const unsigned char *)uc->uc_mcontext.fpregs;
	unsigned char *dst = buf;
	uint32_t size;

	if (!src) {
		ua__xstate_init_to(dst);
		return;
	}
	size = get32(src + 480);
	if (ua__xstate_xsave && (uc->uc_flags & UC_FP_XSTATE_) &&
	    get32(src + 464) == UA_FP_XSTATE_MAGIC1 && size >= 576 &&
	    !(get64(src + 520) >> 63)) {
		memcpy(dst, src, size < ua__xstate_size ? size : ua__xstate_size);
		return;
	}
	memcpy(dst, src, 512);
	if (ua__xstate_xsave) {
		memset(dst + 512, 0, 64);
		memcpy(dst + 512, &(uint64_t){ XSTATE_FPSSE }, 8);
	}
}

__attribute__((constructor)) static void xstate_init(void)
{
	unsigned int a, b, c, d;
	uint16_t fcw = 0x037f;
	uint32_t mxcsr = 0x1f80;

	memcpy(ua__xstate_init_image, &fcw, 2);
	memcpy(ua__xstate_init_image + 24, &mxcsr, 4);
	__cpuid(1, a, b, c, d);
	if (!(c & (1u << 27))) /* OSXSAVE */
		return;
	/* Standard-format size of every feature XCR0 enables. */
	__cpuid_count(0xd, 0, a, b, c, d);
	if (b < 576)
		return;
	ua__xstate_xsave = true;
	ua__xstate_size = b;
}
