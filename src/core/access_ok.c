// SPDX-License-Identifier: MIT
/*
 * Range checks against the thread's current space (ua__space_has() in
 * src/internal.h: the kernel's __access_ok() without overflow).
 */
#include "../internal.h"

bool ua_access_ok(const void *ptr, size_t len)
{
	const struct ua_space *sp = ua_self.cur;

	return sp && ua__space_has(sp, ptr, len);
}

void *ua_mask_user_address(const void *ptr)
{
	const struct ua_space *sp = ua_self.cur;

	/* No space: the top page is never mapped in user space on Linux. */
	if (ua_unlikely(!sp))
		return (void *)~(uintptr_t)0;
	return (void *)ua__arch_mask((uintptr_t)ptr, sp->base, sp->size);
}
