// SPDX-License-Identifier: MIT
/*
 * ua_copy_from_user() / ua_copy_to_user(): the byte count not copied is
 * exact at every fault offset, the uncopied tail of a copy_from_user
 * destination is zero-filled and nothing past it is touched; zero length,
 * wrapping ranges, the limit, and monitor pointers.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

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

TestSuite(copy, .init = setup, .fini = teardown);

/* Guest byte at address a holds t_pat(a - env.buf) once this has run. */
static void fill_guest_pattern(void)
{
	static unsigned char pat[T_PAGES * T_PG];

	t_pat_fill(pat, sizeof(pat), 0);
	t_poke(env.buf, pat, sizeof(pat));
}

#define CANARY 0xa5
#define SLACK 16

/*
 * copy_from_user of len bytes starting k bytes before the hole, for every
 * k in [0, len]: exactly len - k bytes are not copied, the copied prefix
 * matches, the tail is zero and the bytes after the buffer are untouched.
 */
static void from_user_every_offset(size_t len, unsigned char *dst)
{
	for (size_t k = 0; k <= len; k++) {
		const char *from = env.hole - k;
		size_t seed = (size_t)(from - env.buf), left;

		memset(dst, CANARY, len + SLACK);
		left = ua_copy_from_user(dst, from, len);
		cr_assert_eq(left, len - k, "len %zu, fault at offset %zu: %zu",
			     len, k, left);
		cr_assert_eq(t_first_not_pat(dst, k, seed), k,
			     "len %zu, offset %zu: copied prefix", len, k);
		cr_assert_eq(t_first_not(dst + k, 0, len - k), len - k,
			     "len %zu, offset %zu: zero-filled tail", len, k);
		cr_assert_eq(t_first_not(dst + len, CANARY, SLACK), SLACK,
			     "len %zu, offset %zu: past the end", len, k);
	}
}

Test(copy, from_user_fault_at_every_offset)
{
	unsigned char dst[T_MAXLEN + SLACK];

	fill_guest_pattern();
	for (size_t len = 1; len <= T_MAXLEN; len++)
		from_user_every_offset(len, dst);
}

Test(copy, from_user_fault_at_every_offset_page_plus_one)
{
	static unsigned char dst[T_BIGLEN + SLACK];

	fill_guest_pattern();
	from_user_every_offset(T_BIGLEN, dst);
}

/*
 * copy_to_user of len bytes starting k bytes before the hole: len - k not
 * copied, the written prefix matches, the bytes before it are untouched.
 */
static void to_user_every_offset(size_t len, const unsigned char *src)
{
	static unsigned char back[T_BIGLEN + SLACK];

	for (size_t k = 0; k <= len; k++) {
		char *to = env.hole - k;
		size_t left;

		t_fill(to - SLACK, CANARY, k + SLACK);
		left = ua_copy_to_user(to, src, len);
		cr_assert_eq(left, len - k, "len %zu, fault at offset %zu: %zu",
			     len, k, left);
		t_peek(back, to - SLACK, k + SLACK);
		cr_assert_eq(t_first_not(back, CANARY, SLACK), SLACK,
			     "len %zu, offset %zu: bytes before untouched", len,
			     k);
		cr_assert_eq(memcmp(back + SLACK, src, k), 0,
			     "len %zu, offset %zu: written prefix", len, k);
	}
}

Test(copy, to_user_fault_at_every_offset)
{
	unsigned char src[T_MAXLEN];

	t_pat_fill(src, sizeof(src), 7);
	for (size_t len = 1; len <= T_MAXLEN; len++)
		to_user_every_offset(len, src);
}

Test(copy, to_user_fault_at_every_offset_page_plus_one)
{
	static unsigned char src[T_BIGLEN];

	t_pat_fill(src, sizeof(src), 3);
	to_user_every_offset(T_BIGLEN, src);
}

/* A copy that starts in an unmapped page copies nothing at all. */
Test(copy, starts_unmapped)
{
	unsigned char dst[64 + SLACK], src[64];

	fill_guest_pattern();
	t_pat_fill(src, sizeof(src), 0);
	for (size_t j = 1; j <= 32; j++) {
		memset(dst, CANARY, sizeof(dst));
		cr_assert_eq(ua_copy_from_user(dst, env.buf - j, 64), 64);
		cr_assert_eq(t_first_not(dst, 0, 64), 64, "all zero-filled");
		cr_assert_eq(t_first_not(dst + 64, CANARY, SLACK), SLACK);
		cr_assert_eq(ua_copy_to_user(env.buf - j, src, 64), 64);
		cr_assert_eq(ua_copy_to_user(env.hole + j, src, 64), 64);
	}
	/* Nothing reached the mapped bytes after the unmapped start. */
	memset(dst, 0, sizeof(dst));
	t_peek(dst, env.buf, 64);
	cr_assert_eq(t_first_not_pat(dst, 64, 0), 64);
}

/* KUnit usercopy_test_valid, on guest memory. */
Test(copy, valid_two_pages)
{
	static unsigned char k[2 * T_PG];

	memset(k, 0x3a, sizeof(k));
	cr_assert_eq(ua_copy_to_user(env.buf, k, T_PG), 0);
	memset(k, 0, T_PG);
	cr_assert_eq(ua_copy_from_user(k, env.buf, T_PG), 0);
	cr_assert_eq(memcmp(k, k + T_PG, T_PG), 0);
}

Test(copy, roundtrip_lengths_and_alignments)
{
	unsigned char src[300], dst[300 + SLACK];

	t_pat_fill(src, sizeof(src), 11);
	for (size_t off = 0; off < 16; off++) {
		for (size_t len = 0; len <= 300; len += (len < 40 ? 1 : 13)) {
			cr_assert_eq(ua_copy_to_user(env.buf + off, src, len),
				     0);
			memset(dst, CANARY, sizeof(dst));
			cr_assert_eq(ua_copy_from_user(dst, env.buf + off, len),
				     0);
			cr_assert_eq(memcmp(dst, src, len), 0,
				     "off %zu len %zu", off, len);
			cr_assert_eq(t_first_not(dst + len, CANARY, SLACK),
				     SLACK);
		}
	}
}

Test(copy, zero_length)
{
	unsigned char dst[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, keep[8];
	char *lim = ua_space_limit(env.sp);

	memcpy(keep, dst, 8);
	ua_stats_reset();
	cr_assert_eq(ua_copy_from_user(dst, env.buf, 0), 0);
	cr_assert_eq(ua_copy_from_user(dst, env.hole, 0), 0);
	cr_assert_eq(ua_copy_from_user(dst, lim, 0), 0);
	cr_assert_eq(ua_copy_from_user(dst, NULL, 0), 0);
	cr_assert_eq(ua_copy_from_user(dst, keep, 0), 0);
	cr_assert_eq(memcmp(dst, keep, 8), 0, "nothing written");
	cr_assert_eq(ua_copy_to_user(env.buf, dst, 0), 0);
	cr_assert_eq(ua_copy_to_user(env.hole, dst, 0), 0);
	cr_assert_eq(ua_copy_to_user(lim, dst, 0), 0);
	cr_assert_eq(ua_copy_to_user(dst, keep, 0), 0);
	cr_assert_eq(memcmp(dst, keep, 8), 0, "nothing written");
	t_assert_stats(0, 0, 0, "a zero-length copy opens no window");
}

Test(copy, wrapping_range)
{
	unsigned char dst[128 + SLACK], src[128];
	char *top = (char *)(UINTPTR_MAX - 63);

	t_pat_fill(src, sizeof(src), 0);
	ua_stats_reset();
	memset(dst, CANARY, sizeof(dst));
	cr_assert_eq(ua_copy_from_user(dst, top, 128), 128);
	cr_assert_eq(t_first_not(dst, 0, 128), 128, "all zero-filled");
	cr_assert_eq(t_first_not(dst + 128, CANARY, SLACK), SLACK);
	cr_assert_eq(ua_copy_to_user(top, src, 128), 128);
	t_assert_stats(0, 0, 0);
}

/*
 * A length that wraps the address space from a guest pointer: refused
 * before anything is written (the kernel's check_copy_size() refuses any
 * n > INT_MAX and leaves the destination alone), never a huge memset.
 */
Test(copy, wrapping_length)
{
	unsigned char dst[64], src[64];
	size_t n = SIZE_MAX - (uintptr_t)env.buf + 17;

	t_fill(env.buf, 0x42, 64);
	memset(dst, CANARY, sizeof(dst));
	t_pat_fill(src, sizeof(src), 0);
	ua_stats_reset();
	cr_assert_eq(ua_copy_from_user(dst, env.buf, n), n);
	cr_assert_eq(t_first_not(dst, CANARY, sizeof(dst)), sizeof(dst));
	cr_assert_eq(ua_copy_to_user(env.buf, src, n), n);
	cr_assert_eq(ua_copy_from_user(dst, env.buf, SIZE_MAX), SIZE_MAX);
	cr_assert_eq(ua_copy_to_user(env.buf, src, SIZE_MAX), SIZE_MAX);
	cr_assert_eq(ua_copy_from_user(dst, env.buf, (size_t)INT_MAX + 1),
		     (size_t)INT_MAX + 1);
	cr_assert_eq(t_first_not(dst, CANARY, sizeof(dst)), sizeof(dst));
	t_assert_stats(0, 0, 0);
	memset(dst, 0, sizeof(dst));
	t_peek(dst, env.buf, 64);
	cr_assert_eq(t_first_not(dst, 0x42, 64), 64, "guest untouched");
}

Test(copy, limit)
{
	char *lim = t_map_last_page(&env);
	unsigned char src[100], dst[101 + SLACK];

	t_pat_fill(src, sizeof(src), 5);
	cr_assert_eq(ua_copy_to_user(lim - 100, src, 100), 0,
		     "a range ending exactly at the limit");
	memset(dst, CANARY, sizeof(dst));
	cr_assert_eq(ua_copy_from_user(dst, lim - 100, 100), 0);
	cr_assert_eq(memcmp(dst, src, 100), 0);
	cr_assert_eq(dst[100], CANARY);
	/* One byte more: the range check fails and all of dst is zeroed. */
	ua_stats_reset();
	cr_assert_eq(ua_copy_from_user(dst, lim - 100, 101), 101);
	cr_assert_eq(t_first_not(dst, 0, 101), 101);
	cr_assert_eq(t_first_not(dst + 101, CANARY, SLACK), SLACK);
	cr_assert_eq(ua_copy_to_user(lim - 100, dst, 101), 101);
	cr_assert_eq(ua_copy_from_user(dst, lim, 1), 1);
	cr_assert_eq(ua_copy_to_user(lim, src, 1), 1);
	t_assert_stats(0, 0, 0);
	cr_assert_eq(ua_copy_from_user(dst, lim - 100, 100), 0);
	cr_assert_eq(memcmp(dst, src, 100), 0, "guest bytes intact");
}

Test(copy, monitor_pointer_rejected)
{
	static unsigned char kmem[2 * T_PG], keep[2 * T_PG];
	unsigned char *none = t_noaccess_page();

	memset(kmem, 0x5a, T_PG);
	memset(kmem + T_PG, 0, T_PG);
	memcpy(keep, kmem, sizeof(kmem));
	ua_stats_reset();
	/* KUnit usercopy_test_invalid: all-monitor copies fail and zero. */
	cr_assert_eq(ua_copy_from_user(kmem, kmem + T_PG, T_PG), T_PG);
	cr_assert_eq(t_first_not(kmem, 0, T_PG), T_PG, "destination zeroed");
	memcpy(kmem, keep, sizeof(kmem));
	cr_assert_eq(ua_copy_to_user(kmem, kmem + T_PG, T_PG), T_PG);
	cr_assert_eq(memcmp(kmem, keep, sizeof(kmem)), 0, "never written");
	/* A monitor source with a pattern: not one byte of it is copied. */
	memset(kmem + T_PG, 0x77, T_PG);
	cr_assert_eq(ua_copy_from_user(kmem, kmem + T_PG, 100), 100);
	cr_assert_eq(t_first_not(kmem, 0, 100), 100);
	/* Pointers into a no-access page: rejected without a dereference. */
	cr_assert_eq(ua_copy_from_user(kmem, none, 64), 64);
	cr_assert_eq(ua_copy_from_user(kmem, none + T_PG - 1, 1), 1);
	cr_assert_eq(ua_copy_to_user(none, kmem, 64), 64);
	cr_assert_eq(ua_copy_to_user(none + 100, kmem, 1), 1);
	t_assert_stats(0, 0, 0, "no window, no access");
	munmap(none, T_PG);
}

/* Ranges that are half guest, half monitor are refused as a whole. */
Test(copy, straddling_the_space_edges)
{
	char *base = ua_space_base(env.sp), *lim = ua_space_limit(env.sp);
	unsigned char dst[64], src[64] = { 0 };

	ua_stats_reset();
	cr_assert_eq(ua_copy_from_user(dst, base - 16, 32), 32);
	cr_assert_eq(ua_copy_to_user(base - 16, src, 32), 32);
	cr_assert_eq(ua_copy_from_user(dst, lim - 16, 32), 32);
	cr_assert_eq(ua_copy_to_user(lim - 16, src, 32), 32);
	t_assert_stats(0, 0, 0);
}

Test(copy, no_current_space)
{
	unsigned char dst[16];

	t_fill(env.buf, 1, 16);
	ua_space_use(NULL);
	memset(dst, CANARY, sizeof(dst));
	cr_assert_eq(ua_copy_from_user(dst, env.buf, 16), 16);
	cr_assert_eq(t_first_not(dst, 0, 16), 16);
	cr_assert_eq(ua_copy_to_user(env.buf, dst, 16), 16);
	ua_space_use(env.sp);
}
