// SPDX-License-Identifier: MIT
/*
 * strncpy_from_user() and strnlen_user().  Aligned 8-byte loads never
 * cross a page, so a word either reads whole or faults whole and the
 * fault position is exact without a byte-by-byte retry.  The scan stops at
 * the limit of the current space (the kernel stops at TASK_SIZE_MAX).
 */
#include <errno.h>
#include <string.h>

#include "../internal.h"

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

static inline bool has_zero(uint64_t w)
{
	return ((w - ONES) & ~w & HIGHS) != 0;
}

/* Bytes of [src, src + max) reachable before the limit, or -1 if none. */
static long reachable(const char *src, long count)
{
	const struct ua_space *sp = ua_self.cur;
	uintptr_t a = (uintptr_t)src;

	if (!sp || a < sp->base || a >= sp->limit) {
		ua__debug_refused(UA_WIN_READ, src, (size_t)count);
		return -1;
	}
	if ((uintptr_t)count > sp->limit - a)
		return (long)(sp->limit - a);
	return count;
}

/*
 * Copy up to max bytes into dst (dst may be NULL to only measure), stopping
 * after a NUL.  Returns the length before the NUL, max when none was seen,
 * or -EFAULT.  Runs inside an open read window.
 */
static long scan(char *dst, const char *src, long max)
{
	long i = 0;
	uint8_t c;

	while (i < max && ((uintptr_t)(src + i) & 7)) {
		ua_unsafe_get_user(c, (const uint8_t *)(src + i), fault);
		if (dst)
			dst[i] = (char)c;
		if (!c)
			return i;
		i++;
	}
	while (max - i >= 8) {
		uint64_t w;

		ua_unsafe_get_user(w, (const uint64_t *)(src + i), fault);
		if (has_zero(w))
			break;
		if (dst)
			memcpy(dst + i, &w, 8);
		i += 8;
	}
	while (i < max) {
		ua_unsafe_get_user(c, (const uint8_t *)(src + i), fault);
		if (dst)
			dst[i] = (char)c;
		if (!c)
			return i;
		i++;
	}
	return max;
fault:
	return -EFAULT;
}

long ua_strncpy_from_user(char *dst, const char *src, long count)
{
	long max, ret;

	if (count <= 0)
		return 0;
	max = reachable(src, count);
	if (max < 0 || !ua_user_read_access_begin(src, (size_t)max))
		return -EFAULT;
	ret = scan(dst, src, max);
	ua_user_read_access_end();
	/* Hitting the end of the space before count is a fault. */
	if (ret == max && max < count)
		return -EFAULT;
	return ret;
}

long ua_strnlen_user(const char *src, long n)
{
	long max, ret;

	if (n <= 0)
		return 0;
	max = reachable(src, n);
	if (max < 0 || !ua_user_read_access_begin(src, (size_t)max))
		return 0;
	ret = scan(NULL, src, max);
	ua_user_read_access_end();
	if (ret < 0 || (ret == max && max < n))
		return 0;
	return ret == max ? n + 1 : ret + 1;
}
