// SPDX-License-Identifier: MIT
/*
 * ua_clear_user(): the count not cleared is exact at every fault offset,
 * nothing outside the range is touched; zero length, wrapping ranges, the
 * limit, monitor pointers.
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

TestSuite(clear, .init = setup, .fini = teardown);

#define CANARY 0xa5
#define SLACK 16

static void clear_every_offset(size_t len)
{
	static unsigned char back[T_BIGLEN + SLACK];

	for (size_t k = 0; k <= len; k++) {
		char *to = env.hole - k;
		size_t left;

		t_fill(to - SLACK, CANARY, k + SLACK);
		left = ua_clear_user(to, len);
		cr_assert_eq(left, len - k, "len %zu, fault at offset %zu: %zu",
			     len, k, left);
		t_peek(back, to - SLACK, k + SLACK);
		cr_assert_eq(t_first_not(back, CANARY, SLACK), SLACK,
			     "len %zu, offset %zu: bytes before untouched", len,
			     k);
		cr_assert_eq(t_first_not(back + SLACK, 0, k), k,
			     "len %zu, offset %zu: cleared prefix", len, k);
	}
}

Test(clear, fault_at_every_offset)
{
	for (size_t len = 1; len <= T_MAXLEN; len++)
		clear_every_offset(len);
}

Test(clear, fault_at_every_offset_page_plus_one)
{
	clear_every_offset(T_BIGLEN);
}

Test(clear, lengths_and_alignments)
{
	unsigned char back[300 + 2 * SLACK];

	for (size_t off = 0; off < 16; off++) {
		for (size_t len = 0; len <= 300; len += (len < 40 ? 1 : 11)) {
			char *to = env.buf + 64 + off;

			t_fill(to - SLACK, CANARY, len + 2 * SLACK);
			cr_assert_eq(ua_clear_user(to, len), 0);
			t_peek(back, to - SLACK, len + 2 * SLACK);
			cr_assert_eq(t_first_not(back, CANARY, SLACK), SLACK);
			cr_assert_eq(t_first_not(back + SLACK, 0, len), len,
				     "off %zu len %zu", off, len);
			cr_assert_eq(
				t_first_not(back + SLACK + len, CANARY, SLACK),
				SLACK, "off %zu len %zu: after", off, len);
		}
	}
	/* Every mapped byte at once, across the page boundaries. */
	t_fill(env.buf, CANARY, env.len);
	cr_assert_eq(ua_clear_user(env.buf, env.len), 0);
	for (size_t p = 0; p < env.len; p += T_PG) {
		static unsigned char pg[T_PG];

		t_peek(pg, env.buf + p, T_PG);
		cr_assert_eq(t_first_not(pg, 0, T_PG), T_PG);
	}
}

Test(clear, starts_unmapped)
{
	unsigned char back[64];

	t_fill(env.buf, CANARY, 64);
	for (size_t j = 1; j <= 32; j++) {
		cr_assert_eq(ua_clear_user(env.buf - j, 64), 64, "j %zu", j);
		cr_assert_eq(ua_clear_user(env.hole + j, 64), 64);
	}
	t_peek(back, env.buf, 64);
	cr_assert_eq(t_first_not(back, CANARY, 64), 64);
}

Test(clear, zero_length)
{
	unsigned char mon[4] = { 1, 2, 3, 4 };

	ua_stats_reset();
	cr_assert_eq(ua_clear_user(env.buf, 0), 0);
	cr_assert_eq(ua_clear_user(env.hole, 0), 0);
	cr_assert_eq(ua_clear_user(ua_space_limit(env.sp), 0), 0);
	cr_assert_eq(ua_clear_user(NULL, 0), 0);
	cr_assert_eq(ua_clear_user(mon, 0), 0);
	cr_assert_eq(mon[0] + mon[1] + mon[2] + mon[3], 10);
	t_assert_stats(0, 0, 0);
}

Test(clear, wrapping_range_and_length)
{
	unsigned char back[64];

	t_fill(env.buf, CANARY, 64);
	ua_stats_reset();
	cr_assert_eq(ua_clear_user((void *)(UINTPTR_MAX - 63), 128), 128);
	cr_assert_eq(ua_clear_user(env.buf, SIZE_MAX), SIZE_MAX);
	cr_assert_eq(ua_clear_user(env.buf, SIZE_MAX - (uintptr_t)env.buf + 17),
		     SIZE_MAX - (uintptr_t)env.buf + 17);
	t_assert_stats(0, 0, 0);
	t_peek(back, env.buf, 64);
	cr_assert_eq(t_first_not(back, CANARY, 64), 64);
}

Test(clear, limit)
{
	char *lim = t_map_last_page(&env);
	unsigned char back[101];

	t_fill(lim - 101, CANARY, 101);
	cr_assert_eq(ua_clear_user(lim - 100, 100), 0);
	t_peek(back, lim - 101, 101);
	cr_assert_eq(back[0], CANARY);
	cr_assert_eq(t_first_not(back + 1, 0, 100), 100);
	t_fill(lim - 101, CANARY, 101);
	ua_stats_reset();
	cr_assert_eq(ua_clear_user(lim - 100, 101), 101);
	cr_assert_eq(ua_clear_user(lim, 1), 1);
	t_assert_stats(0, 0, 0);
	t_peek(back, lim - 101, 101);
	cr_assert_eq(t_first_not(back, CANARY, 101), 101);
}

Test(clear, monitor_pointer_rejected)
{
	unsigned char mon[256];
	char *none = t_noaccess_page();

	memset(mon, CANARY, sizeof(mon));
	ua_stats_reset();
	cr_assert_eq(ua_clear_user(mon, sizeof(mon)), sizeof(mon));
	cr_assert_eq(ua_clear_user(mon + 1, 1), 1);
	cr_assert_eq(ua_clear_user(none, T_PG), T_PG);
	cr_assert_eq(ua_clear_user(none + 7, 1), 1);
	cr_assert_eq(ua_clear_user((char *)ua_space_base(env.sp) - 8, 16), 16);
	t_assert_stats(0, 0, 0);
	cr_assert_eq(t_first_not(mon, CANARY, sizeof(mon)), sizeof(mon));
	munmap(none, T_PG);
}
