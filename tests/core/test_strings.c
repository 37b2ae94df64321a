// SPDX-License-Identifier: MIT
/*
 * ua_strncpy_from_user() and ua_strnlen_user() with the kernel's return
 * conventions (lib/strncpy_from_user.c, lib/strnlen_user.c in the kernel):
 * length without the NUL / count with no terminator on truncation / -EFAULT;
 * length with the NUL / a value > n when too long / 0 on a fault.
 */
#include <errno.h>
#include <limits.h>

#include "tcore.h"

static struct t_env env;

static void setup(void)
{
	t_env_setup(&env, T_PAGES);
}

static void teardown(void)
{
	t_env_teardown(&env);
}

TestSuite(strings, .init = setup, .fini = teardown);

#define CANARY 0xa5
#define SLACK 16

/* Put the C string s (with its NUL) into guest memory at g. */
static void put_str(char *g, const char *s)
{
	t_poke(g, s, strlen(s) + 1);
}

Test(strings, strncpy_basic)
{
	char dst[32];

	put_str(env.buf, "hello");
	memset(dst, CANARY, sizeof(dst));
	cr_assert_eq(ua_strncpy_from_user(dst, env.buf, sizeof(dst)), 5);
	cr_assert_str_eq(dst, "hello");
	/* NUL at index count-1: found, terminated. */
	memset(dst, CANARY, sizeof(dst));
	cr_assert_eq(ua_strncpy_from_user(dst, env.buf, 6), 5);
	cr_assert_eq(memcmp(dst, "hello", 6), 0);
	cr_assert_eq((unsigned char)dst[6], CANARY);
	/* No NUL within count: count returned, dst NOT terminated. */
	memset(dst, CANARY, sizeof(dst));
	cr_assert_eq(ua_strncpy_from_user(dst, env.buf, 5), 5);
	cr_assert_eq(memcmp(dst, "hello", 5), 0);
	cr_assert_eq((unsigned char)dst[5], CANARY, "no terminator written");
	memset(dst, CANARY, sizeof(dst));
	cr_assert_eq(ua_strncpy_from_user(dst, env.buf, 2), 2);
	cr_assert_eq(memcmp(dst, "he", 2), 0);
	cr_assert_eq((unsigned char)dst[2], CANARY);
	/* The empty string. */
	put_str(env.buf + 100, "");
	memset(dst, CANARY, sizeof(dst));
	cr_assert_eq(ua_strncpy_from_user(dst, env.buf + 100, 10), 0);
	cr_assert_eq(dst[0], 0);
}

Test(strings, strnlen_basic)
{
	put_str(env.buf, "hello");
	cr_assert_eq(ua_strnlen_user(env.buf, 100), 6, "length with the NUL");
	cr_assert_eq(ua_strnlen_user(env.buf, 6), 6);
	cr_assert_gt(ua_strnlen_user(env.buf, 5), 5, "too long: > n");
	cr_assert_gt(ua_strnlen_user(env.buf, 1), 1);
	put_str(env.buf + 100, "");
	cr_assert_eq(ua_strnlen_user(env.buf + 100, 1), 1);
	cr_assert_eq(ua_strnlen_user(env.buf + 100, LONG_MAX), 1);
}

Test(strings, count_not_positive)
{
	char dst[4] = { 9, 9, 9, 9 };

	put_str(env.buf, "abc");
	ua_stats_reset();
	cr_assert_eq(ua_strncpy_from_user(dst, env.buf, 0), 0);
	cr_assert_eq(ua_strncpy_from_user(dst, env.buf, -1), 0);
	cr_assert_eq(ua_strncpy_from_user(dst, NULL, 0), 0);
	cr_assert_eq(ua_strncpy_from_user(dst, env.hole, LONG_MIN), 0);
	cr_assert_eq(ua_strnlen_user(env.buf, 0), 0);
	cr_assert_eq(ua_strnlen_user(env.buf, -5), 0);
	cr_assert_eq(ua_strnlen_user(NULL, 0), 0);
	t_assert_stats(0, 0, 0, "nothing touched");
	cr_assert_eq(dst[0] + dst[1] + dst[2] + dst[3], 36);
}

/* Strings of every length and alignment, also across a page boundary. */
Test(strings, lengths_alignments_and_page_crossing)
{
	char s[80], dst[80 + SLACK];

	for (size_t a = 0; a < 16; a++) {
		for (size_t len = 0; len < 64; len++) {
			char *g = env.buf + T_PG - 32 + a;

			t_pat_fill(s, len, a);
			s[len] = 0;
			put_str(g, s);
			memset(dst, CANARY, sizeof(dst));
			cr_assert_eq(ua_strncpy_from_user(dst, g, 80),
				     (long)len, "a %zu len %zu", a, len);
			cr_assert_eq(memcmp(dst, s, len + 1), 0);
			cr_assert_eq(ua_strnlen_user(g, 80), (long)len + 1);
			cr_assert_eq(ua_strnlen_user(g, (long)len + 1),
				     (long)len + 1);
			if (len)
				cr_assert_gt(ua_strnlen_user(g, (long)len),
					     (long)len);
		}
	}
}

/*
 * All the bytes before the hole are non-zero.  A string starting k bytes
 * before it is "count" bytes long for count <= k (truncation) and faults
 * for count > k: strncpy gives -EFAULT with the k readable bytes copied,
 * strnlen gives 0.  Nothing at or after dst[count] is ever written.
 */
static void strings_every_offset(long count, char *dst)
{
	for (long k = 0; k <= count; k++) {
		const char *src = env.hole - k;
		size_t seed = (size_t)(src - env.buf);
		long r, n;

		memset(dst, CANARY, (size_t)count + SLACK);
		r = ua_strncpy_from_user(dst, src, count);
		n = ua_strnlen_user(src, count);
		if (k >= count) {
			cr_assert_eq(r, count, "count %ld, k %ld", count, k);
			cr_assert_gt(n, count, "count %ld, k %ld", count, k);
			cr_assert_eq(t_first_not_pat(dst, (size_t)count, seed),
				     (size_t)count);
		} else {
			cr_assert_eq(r, -EFAULT, "count %ld, fault at %ld: %ld",
				     count, k, r);
			cr_assert_eq(n, 0, "count %ld, fault at %ld: %ld",
				     count, k, n);
			cr_assert_eq(t_first_not_pat(dst, (size_t)k, seed),
				     (size_t)k, "bytes read before the fault");
		}
		cr_assert_eq(t_first_not(dst + count, CANARY, SLACK), SLACK,
			     "count %ld, k %ld: past count", count, k);
	}
}

static void fill_nonzero(void)
{
	static unsigned char pat[T_PAGES * T_PG];

	t_pat_fill(pat, sizeof(pat), 0);
	t_poke(env.buf, pat, sizeof(pat));
}

Test(strings, fault_at_every_offset)
{
	char dst[T_MAXLEN + SLACK];

	fill_nonzero();
	for (long count = 1; count <= T_MAXLEN; count++)
		strings_every_offset(count, dst);
}

Test(strings, fault_at_every_offset_page_plus_one)
{
	static char dst[T_BIGLEN + SLACK];

	fill_nonzero();
	strings_every_offset(T_BIGLEN, dst);
}

/* A NUL as the very last byte before the hole: found, never a fault. */
Test(strings, nul_right_before_the_hole)
{
	char dst[T_MAXLEN + 8 + SLACK];

	fill_nonzero();
	t_fill(env.hole - 1, 0, 1);
	for (long len = 0; len < T_MAXLEN; len++) {
		const char *src = env.hole - 1 - len;

		for (long count = 1; count <= len + 8; count++) {
			long r, n;

			memset(dst, CANARY, sizeof(dst));
			r = ua_strncpy_from_user(dst, src, count);
			n = ua_strnlen_user(src, count);
			if (count > len) {
				cr_assert_eq(r, len, "len %ld count %ld", len,
					     count);
				cr_assert_eq(dst[len], 0);
				cr_assert_eq(n, len + 1);
			} else {
				cr_assert_eq(r, count);
				cr_assert_gt(n, count);
			}
			cr_assert_eq(t_first_not(dst + count, CANARY, SLACK),
				     SLACK);
		}
	}
}

Test(strings, limit)
{
	char *lim = t_map_last_page(&env);
	char dst[64];

	/* Ten non-zero bytes that end exactly at the limit. */
	t_fill(lim - 10, 'x', 10);
	memset(dst, CANARY, sizeof(dst));
	cr_assert_eq(ua_strncpy_from_user(dst, lim - 10, 10), 10);
	cr_assert_eq(t_first_not(dst, 'x', 10), 10);
	cr_assert_eq((unsigned char)dst[10], CANARY);
	cr_assert_gt(ua_strnlen_user(lim - 10, 10), 10);
	/* Running into the limit is a fault, not a truncation. */
	cr_assert_eq(ua_strncpy_from_user(dst, lim - 10, 11), -EFAULT);
	cr_assert_eq(ua_strncpy_from_user(dst, lim - 10, LONG_MAX), -EFAULT);
	cr_assert_eq(ua_strnlen_user(lim - 10, 11), 0);
	cr_assert_eq(ua_strnlen_user(lim - 10, LONG_MAX), 0);
	/* A NUL as the last byte of the space. */
	t_fill(lim - 1, 0, 1);
	cr_assert_eq(ua_strncpy_from_user(dst, lim - 10, LONG_MAX), 9);
	cr_assert_str_eq(dst, "xxxxxxxxx");
	cr_assert_eq(ua_strnlen_user(lim - 10, LONG_MAX), 10);
	/* At the limit itself nothing can be read. */
	ua_stats_reset();
	cr_assert_eq(ua_strncpy_from_user(dst, lim, 1), -EFAULT);
	cr_assert_eq(ua_strnlen_user(lim, 1), 0);
	t_assert_stats(0, 0, 0);
}

Test(strings, wrapping_and_huge_counts)
{
	char dst[16];

	put_str(env.buf, "wrap");
	ua_stats_reset();
	cr_assert_eq(ua_strncpy_from_user(dst, (char *)(UINTPTR_MAX - 5), 100),
		     -EFAULT);
	cr_assert_eq(ua_strnlen_user((char *)(UINTPTR_MAX - 5), 100), 0);
	cr_assert_eq(ua_strncpy_from_user(dst, (char *)UINTPTR_MAX, 1),
		     -EFAULT);
	t_assert_stats(0, 0, 0);
	/* A count larger than the rest of the space is fine with a NUL. */
	cr_assert_eq(ua_strncpy_from_user(dst, env.buf, LONG_MAX), 4);
	cr_assert_str_eq(dst, "wrap");
	cr_assert_eq(ua_strnlen_user(env.buf, LONG_MAX), 5);
}

Test(strings, monitor_pointer_rejected)
{
	static const char mon[] = "a monitor string";
	char dst[64 + SLACK];
	char *none = t_noaccess_page();

	ua_stats_reset();
	memset(dst, CANARY, sizeof(dst));
	cr_assert_eq(ua_strncpy_from_user(dst, mon, 64), -EFAULT);
	cr_assert_eq(ua_strnlen_user(mon, 64), 0);
	cr_assert_eq(ua_strncpy_from_user(dst, none, 64), -EFAULT);
	cr_assert_eq(ua_strncpy_from_user(dst, none + T_PG - 1, 1), -EFAULT);
	cr_assert_eq(ua_strnlen_user(none, 64), 0);
	cr_assert_eq(ua_strncpy_from_user(
			     dst, (char *)ua_space_base(env.sp) - 4, 64),
		     -EFAULT);
	t_assert_stats(0, 0, 0, "no window, no access");
	cr_assert_eq(t_first_not(dst, CANARY, sizeof(dst)), sizeof(dst),
		     "not one byte of the monitor string was copied");
	munmap(none, T_PG);
}

Test(strings, unmapped_start)
{
	char dst[16];

	memset(dst, CANARY, sizeof(dst));
	cr_assert_eq(ua_strncpy_from_user(dst, env.hole, 8), -EFAULT);
	cr_assert_eq(ua_strncpy_from_user(dst, env.buf - 3, 8), -EFAULT);
	cr_assert_eq(ua_strnlen_user(env.hole + 5, 8), 0);
	cr_assert_eq(ua_strnlen_user(ua_space_base(env.sp), 8), 0);
	cr_assert_eq(t_first_not(dst, CANARY, sizeof(dst)), sizeof(dst));
}
