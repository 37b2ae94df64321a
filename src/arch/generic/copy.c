// SPDX-License-Identifier: MIT
/*
 * Portable fault-recoverable primitives.  Without an exception table the
 * fault handler cannot know where to resume, so each primitive publishes a
 * per-thread recovery point and the handler jumps back to it.  The handler
 * runs with SA_NODEFER in this configuration so the jump leaves no signal
 * blocked.  Byte at a time: slow, exact, correct on any architecture.
 *
 * Recovery points nest: a signal handler may run a nofault copy in the
 * middle of another copy on the same thread.  Each primitive saves the
 * point it found and puts it back on every way out (the fault handler
 * clears it before jumping), so the interrupted copy still recovers.
 */
#include <errno.h>
#include <setjmp.h>

#include "../../internal.h"

size_t ua__raw_copy(void *dst, const void *src, size_t n)
{
	void *volatile prev = ua_self.recover;
	volatile size_t done = 0;
	sigjmp_buf jb;

	if (sigsetjmp(jb, 0)) {
		ua_self.recover = prev;
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
	ua_self.recover = prev;
	return 0;
}

size_t ua__raw_clear(void *dst, size_t n)
{
	void *volatile prev = ua_self.recover;
	volatile size_t done = 0;
	sigjmp_buf jb;

	if (sigsetjmp(jb, 0)) {
		ua_self.recover = prev;
		ua_self.stats.fixups++;
		return n - done;
	}
	ua_self.recover = &jb;
	atomic_signal_fence(memory_order_seq_cst);
	for (; done < n; done++)
		((volatile char *)dst)[done] = 0;
	atomic_signal_fence(memory_order_seq_cst);
	ua_self.recover = prev;
	return 0;
}

/*
 * One typed access, so a value that straddles into a bad page faults
 * before any byte is stored (a put must leave the target untouched), as
 * the single move of an arch port does.
 */
static int access_sized(unsigned long *v, void *p, size_t size, bool store)
{
	void *volatile prev = ua_self.recover;
	sigjmp_buf jb;

	if (sigsetjmp(jb, 0)) {
		ua_self.recover = prev;
		ua_self.stats.fixups++;
		return -EFAULT;
	}
	ua_self.recover = &jb;
	atomic_signal_fence(memory_order_seq_cst);
	switch (size) {
	case 1:
		if (store)
			*(volatile uint8_t *)p = (uint8_t)*v;
		else
			*v = *(const volatile uint8_t *)p;
		break;
	case 2:
		if (store)
			*(volatile uint16_t *)p = (uint16_t)*v;
		else
			*v = *(const volatile uint16_t *)p;
		break;
	case 4:
		if (store)
			*(volatile uint32_t *)p = (uint32_t)*v;
		else
			*v = *(const volatile uint32_t *)p;
		break;
	default:
		if (store)
			*(volatile uint64_t *)p = (uint64_t)*v;
		else
			*v = (unsigned long)*(const volatile uint64_t *)p;
		break;
	}
	atomic_signal_fence(memory_order_seq_cst);
	ua_self.recover = prev;
	return 0;
}

int ua__generic_get(unsigned long *v, const void *p, size_t size)
{
	return access_sized(v, (void *)p, size, false);
}

int ua__generic_put(unsigned long v, void *p, size_t size)
{
	return access_sized(&v, p, size, true);
}

int ua__raw_cmpxchg32(uint32_t *uaddr, uint32_t old, uint32_t new,
		      uint32_t *seen)
{
	void *volatile prev = ua_self.recover;
	uint32_t cur = old;
	sigjmp_buf jb;

	if (sigsetjmp(jb, 0)) {
		ua_self.recover = prev;
		ua_self.stats.fixups++;
		return -EFAULT;
	}
	ua_self.recover = &jb;
	atomic_signal_fence(memory_order_seq_cst);
	__atomic_compare_exchange_n(uaddr, &cur, new, false, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
	atomic_signal_fence(memory_order_seq_cst);
	ua_self.recover = prev;
	*seen = cur;
	return 0;
}
