// SPDX-License-Identifier: MIT
/*
 * Portable fault-recoverable primitives.  Without an exception table the
 * fault handler cannot know where to resume, so each primitive publishes a
 * per-thread recovery point and the handler jumps back to it.  The handler
 * runs with SA_NODEFER in this configuration so the jump leaves no signal
 * blocked.  Byte at a time: slow, exact, correct on any architecture.
 */
#include <errno.h>
#include <setjmp.h>

#include "../../internal.h"

size_t ua__raw_copy(void *dst, const void *src, size_t n)
{
	volatile size_t done = 0;
	sigjmp_buf jb;

	if (sigsetjmp(jb, 0)) {
		ua_self.recover = NULL;
		ua_self.stats.fixups++;
		return n - done;
	}
	ua_self.recover = &jb;
	/*
	 * The handler reads recover: without the fences the compiler may
	 * drop the store above as dead (it did for the clear loop below).
	 */
	atomic_signal_fence(memory_order_seq_cst);
	for (; done < n; done++)
		((volatile char *)dst)[done] = ((const volatile char *)src)[done];
	atomic_signal_fence(memory_order_seq_cst);
	ua_self.recover = NULL;
	return 0;
}

size_t ua__raw_clear(void *dst, size_t n)
{
	volatile size_t done = 0;
	sigjmp_buf jb;

	if (sigsetjmp(jb, 0)) {
		ua_self.recover = NULL;
		ua_self.stats.fixups++;
		return n - done;
	}
	ua_self.recover = &jb;
	atomic_signal_fence(memory_order_seq_cst);
	for (; done < n; done++)
		((volatile char *)dst)[done] = 0;
	atomic_signal_fence(memory_order_seq_cst);
	ua_self.recover = NULL;
	return 0;
}

int ua__generic_get(unsigned long *v, const void *p, size_t size)
{
	union {
		uint8_t b;
		uint16_t w;
		uint32_t l;
		uint64_t q;
	} u;

	if (ua__raw_copy(&u, p, size))
		return -EFAULT;
	switch (size) {
	case 1: *v = u.b; break;
	case 2: *v = u.w; break;
	case 4: *v = u.l; break;
	default: *v = (unsigned long)u.q; break;
	}
	return 0;
}

int ua__generic_put(unsigned long v, void *p, size_t size)
{
	union {
		uint8_t b;
		uint16_t w;
		uint32_t l;
		uint64_t q;
	} u;

	switch (size) {
	case 1: u.b = (uint8_t)v; break;
	case 2: u.w = (uint16_t)v; break;
	case 4: u.l = (uint32_t)v; break;
	default: u.q = v; break;
	}
	return ua__raw_copy(p, &u, size) ? -EFAULT : 0;
}
