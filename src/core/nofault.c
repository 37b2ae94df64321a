// SPDX-License-Identifier: MIT
/*
 * Nofault accessors (the kernel's mm/maccess.c): read or write any monitor
 * address from any context without ever crashing.  Guest spaces are
 * refused with -ERANGE before the size is looked at, as x86's
 * copy_from_kernel_nofault_allowed() refuses user addresses.
 */
#include <errno.h>

#include "../internal.h"

/* [p, p + n) touches a guest space (n == 0 still checks p itself). */
static bool in_guest(const void *p, size_t n)
{
	uintptr_t lo = (uintptr_t)p, hi = lo + (n ? n : 1);

	if (hi < lo)
		hi = UINTPTR_MAX;
	return ua__registry_overlaps(lo, hi);
}

long ua_copy_from_kernel_nofault(void *dst, const void *src, size_t n)
{
	ua__ensure_init();
	if (in_guest(src, n))
		return -ERANGE;
	if (!n)
		return 0;
	return ua__raw_copy(dst, src, n) ? -EFAULT : 0;
}

long ua_copy_to_kernel_nofault(void *dst, const void *src, size_t n)
{
	ua__ensure_init();
	if (in_guest(dst, n))
		return -ERANGE;
	if (!n)
		return 0;
	return ua__raw_copy(dst, src, n) ? -EFAULT : 0;
}

long ua_strncpy_from_kernel_nofault(char *dst, const void *src, long count)
{
	const char *s = src;
	unsigned long c;
	long i;

	if (count <= 0)
		return 0;
	ua__ensure_init();
	if (in_guest(src, 1))
		return -ERANGE;
	for (i = 0; i < count; i++) {
		/* A string that runs into a guest space is a fault. */
		if (!((uintptr_t)(s + i) & (ua__pagesz - 1)) &&
		    in_guest(s + i, 1))
			goto fault;
		ua__arch_get(c, (const uint8_t *)(s + i), fault);
		dst[i] = (char)c;
		if (!c)
			return i + 1;
	}
	dst[count - 1] = 0;
	return count;
fault:
	dst[i] = 0;
	return -EFAULT;
}

long ua_copy_from_user_nofault(void *dst, const void *src, size_t n)
{
	long ret;

	ua__ensure_init();
	/* A window already open belongs to the interrupted code. */
	if (ua__window_busy(&ua_self))
		return -EFAULT;
	if (!ua_user_read_access_begin(src, n))
		return -EFAULT;
	ret = ua__raw_copy(dst, src, n) ? -EFAULT : 0;
	ua_user_read_access_end();
	return ret;
}
