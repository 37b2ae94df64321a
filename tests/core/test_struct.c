// SPDX-License-Identifier: MIT
/*
 * ua_check_zeroed_user() and ua_copy_struct_from_user(): the KUnit cases
 * (usercopy_test_check_nonzero_user, usercopy_test_copy_struct_from_user),
 * faults at every offset, and the bad-pointer cases.
 */
#include <errno.h>

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

TestSuite(zstruct, .init = setup, .fini = teardown);

#define CANARY 0xa5

static bool all_zero(const unsigned char *p, size_t n)
{
	return t_first_not(p, 0, n) == n;
}

/*
 * KUnit usercopy_test_check_nonzero_user: a 1024-byte window that crosses
 * a page boundary, zero except 0xff at odd offsets in [1, 256) and at every
 * other offset in [768, 1024); every (start, end) pair must agree with a
 * plain scan of the same bytes.  Covers every alignment and length 0.
 */
Test(zstruct, check_zeroed_every_start_end_pair)
{
	enum { SIZE = 1024, ZSTART = SIZE / 4, ZEND = SIZE - ZSTART };
	static unsigned char k[SIZE];
	char *u = env.buf + T_PG - SIZE / 2;

	memset(k, 0, sizeof(k));
	for (size_t i = 1; i < ZSTART; i += 2)
		k[i] = 0xff;
	for (size_t i = ZEND; i < SIZE; i += 2)
		k[i] = 0xff;
	t_poke(u, k, SIZE);
	for (size_t start = 0; start <= SIZE; start++) {
		for (size_t end = start; end <= SIZE; end++) {
			int want = all_zero(k + start, end - start);
			int got = ua_check_zeroed_user(u + start, end - start);

			if (got != want)
				cr_assert_fail("start %zu end %zu: got %d, "
					       "expected %d",
					       start, end, got, want);
		}
	}
}

Test(zstruct, check_zeroed_single_byte_everywhere)
{
	/* One non-zero byte at each position of a 64-byte range, any start. */
	for (size_t a = 0; a < 8; a++) {
		char *u = env.buf + 256 + a;

		t_fill(env.buf + 240, 0, 96);
		cr_assert_eq(ua_check_zeroed_user(u, 64), 1);
		for (size_t i = 0; i < 64; i++) {
			t_fill(u + i, 1, 1);
			cr_assert_eq(ua_check_zeroed_user(u, 64), 0,
				     "a %zu byte %zu", a, i);
			cr_assert_eq(ua_check_zeroed_user(u, i), 1,
				     "bytes before it are zero");
			cr_assert_eq(ua_check_zeroed_user(u + i + 1, 63 - i), 1,
				     "bytes after it are zero");
			t_fill(u + i, 0, 1);
		}
		/* Non-zero bytes just outside the range do not count. */
		t_fill(u - 8, 0xff, 8);
		t_fill(u + 64, 0xff, 8);
		cr_assert_eq(ua_check_zeroed_user(u, 64), 1, "a %zu", a);
		cr_assert_eq(ua_check_zeroed_user(u, 65), 0);
		cr_assert_eq(ua_check_zeroed_user(u - 1, 65), 0);
	}
}

/*
 * Zeros up to the hole: a range that starts k bytes before it faults for
 * every k < len; a non-zero first byte is seen before the fault.
 */
static void check_zeroed_every_offset(size_t len)
{
	for (size_t k = 0; k <= len; k++) {
		const char *p = env.hole - k;

		cr_assert_eq(ua_check_zeroed_user(p, len),
			     k < len ? -EFAULT : 1,
			     "len %zu, fault at offset %zu", len, k);
		if (!k)
			continue;
		t_fill(env.hole - k, 7, 1);
		cr_assert_eq(ua_check_zeroed_user(p, len), 0,
			     "len %zu offset %zu: non-zero before the fault",
			     len, k);
		t_fill(env.hole - k, 0, 1);
	}
}

Test(zstruct, check_zeroed_fault_at_every_offset)
{
	t_fill(env.buf, 0, env.len);
	for (size_t len = 1; len <= T_MAXLEN; len++)
		check_zeroed_every_offset(len);
	check_zeroed_every_offset(T_BIGLEN);
}

Test(zstruct, check_zeroed_size_zero_touches_nothing)
{
	char *none = t_noaccess_page();
	char mon = 1;

	ua_stats_reset();
	cr_assert_eq(ua_check_zeroed_user(NULL, 0), 1);
	cr_assert_eq(ua_check_zeroed_user(&mon, 0), 1);
	cr_assert_eq(ua_check_zeroed_user(none, 0), 1);
	cr_assert_eq(ua_check_zeroed_user(env.hole, 0), 1);
	cr_assert_eq(ua_check_zeroed_user((void *)UINTPTR_MAX, 0), 1);
	t_assert_stats(0, 0, 0);
	munmap(none, T_PG);
}

Test(zstruct, check_zeroed_bad_ranges)
{
	char *lim = t_map_last_page(&env);
	char *base = ua_space_base(env.sp);
	static const char zeros[64];
	char *none = t_noaccess_page();

	t_fill(lim - T_PG, 0, T_PG);
	cr_assert_eq(ua_check_zeroed_user(lim - 10, 10), 1, "ends at limit");
	cr_assert_eq(ua_check_zeroed_user(lim - 1, 1), 1);
	ua_stats_reset();
	cr_assert_eq(ua_check_zeroed_user(lim - 10, 11), -EFAULT);
	cr_assert_eq(ua_check_zeroed_user(lim, 1), -EFAULT);
	cr_assert_eq(ua_check_zeroed_user(base - 1, 2), -EFAULT);
	cr_assert_eq(ua_check_zeroed_user((void *)(UINTPTR_MAX - 3), 8),
		     -EFAULT);
	cr_assert_eq(ua_check_zeroed_user(env.buf, SIZE_MAX), -EFAULT);
	cr_assert_eq(ua_check_zeroed_user(env.buf + 3, SIZE_MAX - 2), -EFAULT);
	cr_assert_eq(ua_check_zeroed_user(zeros, sizeof(zeros)), -EFAULT,
		     "monitor zeros are not guest zeros");
	cr_assert_eq(ua_check_zeroed_user(none, 16), -EFAULT);
	t_assert_stats(0, 0, 0, "no window, no access");
	munmap(none, T_PG);
}

/* KUnit usercopy_test_copy_struct_from_user. */
Test(zstruct, copy_struct_kunit_cases)
{
	enum { SIZE = 2 * T_PG };
	static unsigned char k[SIZE], expect[SIZE];
	char *u = env.buf;
	size_t ksize, usize;

	t_fill(u, 0x3e, SIZE);
	memset(expect, 0x3e, SIZE);

	/* usize == ksize: an exact copy. */
	ksize = usize = SIZE;
	memset(k, 0, SIZE);
	cr_assert_eq(ua_copy_struct_from_user(k, ksize, u, usize), 0);
	cr_assert_eq(memcmp(k, expect, ksize), 0);

	/* usize < ksize: the rest of the struct is zeroed. */
	ksize = SIZE;
	usize = SIZE / 2;
	memset(k, CANARY, SIZE);
	cr_assert_eq(ua_copy_struct_from_user(k, ksize, u, usize), 0);
	cr_assert_eq(memcmp(k, expect, usize), 0);
	cr_assert(all_zero(k + usize, ksize - usize));

	/* usize > ksize with a non-zero guest tail: -E2BIG. */
	ksize = SIZE / 2;
	usize = SIZE;
	memset(k, 0, SIZE);
	cr_assert_eq(ua_copy_struct_from_user(k, ksize, u, usize), -E2BIG);

	/* The same with the tail cleared: a copy of ksize bytes. */
	cr_assert_eq(ua_clear_user(u + ksize, usize - ksize), 0);
	memset(k, CANARY, SIZE);
	cr_assert_eq(ua_copy_struct_from_user(k, ksize, u, usize), 0);
	cr_assert_eq(memcmp(k, expect, ksize), 0);
	cr_assert_eq(t_first_not(k + ksize, CANARY, SIZE - ksize), SIZE - ksize,
		     "nothing written past ksize");
}

Test(zstruct, copy_struct_small_cases)
{
	unsigned char k[32];

	t_fill(env.buf, 0, 64);
	t_fill(env.buf, 9, 8);
	/* usize 0: nothing read, an all-zero struct; any pointer. */
	memset(k, CANARY, sizeof(k));
	ua_stats_reset();
	cr_assert_eq(ua_copy_struct_from_user(k, 16, NULL, 0), 0);
	cr_assert(all_zero(k, 16));
	cr_assert_eq(k[16], CANARY);
	t_assert_stats(0, 0, 0);
	cr_assert_eq(ua_copy_struct_from_user(k, 16, env.hole, 0), 0);
	/* ksize 0: only the zero check of the guest bytes. */
	cr_assert_eq(ua_copy_struct_from_user(k, 0, env.buf + 8, 16), 0);
	cr_assert_eq(ua_copy_struct_from_user(k, 0, env.buf, 16), -E2BIG);
	cr_assert_eq(ua_copy_struct_from_user(k, 0, env.buf, 0), 0);
	/* A non-zero byte exactly at ksize, and just before it. */
	memset(k, CANARY, sizeof(k));
	cr_assert_eq(ua_copy_struct_from_user(k, 7, env.buf, 16), -E2BIG);
	cr_assert_eq(ua_copy_struct_from_user(k, 8, env.buf, 16), 0);
	cr_assert_eq(t_first_not(k, 9, 8), 8);
	cr_assert_eq(t_first_not(k + 8, CANARY, 24), 24);
}

/*
 * A struct whose guest copy runs into the hole at every offset: -EFAULT,
 * whichever step meets the fault (the zero check of the tail or the copy),
 * and the monitor struct never holds stale bytes where the copy failed.
 */
Test(zstruct, copy_struct_fault_at_every_offset)
{
	enum { KSIZE = 64 };
	unsigned char k[4 * KSIZE], pat[4 * KSIZE];

	t_pat_fill(pat, sizeof(pat), 0);
	for (size_t usize = 1; usize <= 3 * KSIZE; usize++) {
		for (size_t j = 0; j < usize; j++) {
			const char *src = env.hole - j;
			size_t n = usize < KSIZE ? usize : KSIZE;
			int r;

			/* Struct bytes are non-zero, the tail is zero. */
			t_poke(env.hole - j, pat, j < n ? j : n);
			if (j > n)
				t_fill(env.hole - j + n, 0, j - n);
			memset(k, CANARY, sizeof(k));
			r = ua_copy_struct_from_user(k, KSIZE, src, usize);
			cr_assert_eq(r, -EFAULT, "usize %zu, fault at %zu: %d",
				     usize, j, r);
			if (usize < KSIZE)
				cr_assert(all_zero(k + usize, KSIZE - usize),
					  "the struct tail is zeroed first");
			if (usize <= KSIZE) {
				/* The copy itself faulted: tail zero-filled. */
				size_t got = j < n ? j : n;

				cr_assert_eq(memcmp(k, pat, got), 0);
				cr_assert(all_zero(k + got, n - got));
			} else {
				/*
				 * The zero check of the guest tail comes
				 * first and faulted: nothing copied.
				 */
				cr_assert_eq(t_first_not(k, CANARY, KSIZE),
					     KSIZE);
			}
			cr_assert_eq(t_first_not(k + KSIZE, CANARY, 3 * KSIZE),
				     3 * KSIZE, "nothing past ksize");
		}
	}
}

Test(zstruct, copy_struct_limit)
{
	char *lim = t_map_last_page(&env);
	unsigned char k[16];

	t_fill(lim - 32, 0, 32);
	t_fill(lim - 32, 4, 8);
	memset(k, CANARY, sizeof(k));
	cr_assert_eq(ua_copy_struct_from_user(k, 8, lim - 32, 32), 0,
		     "a guest struct ending exactly at the limit");
	cr_assert_eq(t_first_not(k, 4, 8), 8);
	cr_assert_eq(ua_copy_struct_from_user(k, 16, lim - 8, 8), 0);
	cr_assert_eq(t_first_not(k + 8, 0, 8), 8);
	cr_assert_eq(ua_copy_struct_from_user(k, 8, lim - 8, 16), -EFAULT,
		     "a zero tail past the limit");
	cr_assert_eq(ua_copy_struct_from_user(k, 16, lim - 8, 16), -EFAULT);
}

Test(zstruct, copy_struct_bad_pointers)
{
	unsigned char k[32], mon[32];
	char *none = t_noaccess_page();

	memset(mon, 0, sizeof(mon));
	ua_stats_reset();
	memset(k, CANARY, sizeof(k));
	cr_assert_eq(ua_copy_struct_from_user(k, 16, mon, 16), -EFAULT);
	cr_assert(all_zero(k, 16), "copy_from_user zeroes on a bad range");
	cr_assert_eq(ua_copy_struct_from_user(k, 16, mon, 32), -EFAULT,
		     "monitor zeros are not guest zeros");
	cr_assert_eq(ua_copy_struct_from_user(k, 16, mon, 8), -EFAULT);
	cr_assert_eq(ua_copy_struct_from_user(k, 16, none, 16), -EFAULT);
	cr_assert_eq(ua_copy_struct_from_user(k, 8, none, 16), -EFAULT);
	cr_assert_eq(
		ua_copy_struct_from_user(k, 16, (void *)(UINTPTR_MAX - 7), 16),
		-EFAULT);
	t_assert_stats(0, 0, 0, "no window, no access");
	munmap(none, T_PG);
}
