// SPDX-License-Identifier: MIT
/*
 * Range checks against the thread's current space.  The overflow-free
 * form of the kernel's __access_ok(): len <= size && off <= size - len,
 * where off = ptr - base wraps to a huge value for pointers below base.
 */
#include "../internal.h"

bool ua_access_ok(const void *ptr, size_t len)
{
	const struct ua_space *sp = ua_self.cur;
	uintptr_t off;

	if (!sp)
		return false;
	off = (uintptr_t)ptr - sp->base;
	return len <= sp->size && off <= sp->size - len;
}

void *ua_mask_user_address(const void *ptr)
{
	const struct ua_space *sp = ua_self.cur;

	/* No space: the top page is never mapped in user space on Linux. */
	if (ua_unlikely(!sp))
		return (void *)~(uintptr_t)0;
	return (void *)ua__arch_mask((uintptr_t)ptr, sp->base, sp->size);
}
