// SPDX-License-Identifier: MIT
/*
 * check_zeroed_user() and copy_struct_from_user(), after lib/usercopy.c
 * and include/linux/uaccess.h: the extensible-struct convention where an
 * older or newer guest may pass a shorter or longer struct.
 */
#include <errno.h>
#include <string.h>

#include "../internal.h"

/* Is any byte of w at positions [lo, hi) non-zero? (any endianness) */
static bool bytes_nonzero(uint64_t w, size_t lo, size_t hi)
{
	unsigned char b[8];

	memcpy(b, &w, 8);
	for (size_t i = lo; i < hi; i++)
		if (b[i])
			return true;
	return false;
}

int ua_check_zeroed_user(const void *from, size_t size)
{
	size_t align = (uintptr_t)from & 7, total, nwords, i;
	const uint64_t *p = (const uint64_t *)((uintptr_t)from - align);
	int ret = 1;
	uint64_t w;

	if (!size)
		return 1;
	/* Widen to whole aligned words, as the kernel does. */
	total = size + align;
	if (total < size || total + 7 < total)
		return -EFAULT;
	nwords = (total + 7) / 8;
	if (!ua_user_read_access_begin(p, nwords * 8))
		return -EFAULT;
	for (i = 0; i < nwords; i++) {
		size_t lo = i ? 0 : align;
		size_t hi = i + 1 < nwords ? 8 : total - 8 * i;

		ua_unsafe_get_user(w, p + i, fault);
		if (lo == 0 && hi == 8 ? w != 0 : bytes_nonzero(w, lo, hi)) {
			ret = 0;
			break;
		}
	}
	ua_user_read_access_end();
	return ret;
fault:
	ua_user_read_access_end();
	return -EFAULT;
}

int ua_copy_struct_from_user(void *dst, size_t ksize, const void *src,
			     size_t usize)
{
	size_t size = ksize < usize ? ksize : usize;
	size_t rest = (ksize > usize ? ksize : usize) - size;

	if (usize < ksize) {
		memset((char *)dst + size, 0, rest);
	} else if (usize > ksize) {
		int ret = ua_check_zeroed_user((const char *)src + size, rest);

		if (ret <= 0)
			return ret ? ret : -E2BIG;
	}
	if (ua_copy_from_user(dst, src, size))
		return -EFAULT;
	return 0;
}
