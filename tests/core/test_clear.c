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

#if defined(__x86_64__) && !UA_FORCE_GENERIC_ARCH
/*
 * Every store width of ua__raw_clear (src/arch/x86_64/copy.S) that this
 * machine runs: SSE always, AVX and AVX-512 where the CPU has them and
 * the kernel enabled their state.  The widest is the default; the tests
 * lower it to reach the others.
 */
extern unsigned char ua__clear_vec;
int ua__clear_vec_max(void);
enum { UA_CLEAR_SSE_, UA_CLEAR_AVX_, UA_CLEAR_AVX512_ }; /* src/internal.h */

static const char *const width_name[] = { "SSE", "AVX", "AVX-512" };

/*
 * Lengths on both sides of each stride: 64 (every width's block), 128
 * (AVX's four stores), 256 (AVX-512's four), their sums with a block and
 * a tail, and a tail after several strides.
 */
static const size_t width_lens[] = { 63,  64,  65,  127, 128, 129, 191,
				      192, 193, 255, 256, 257, 319, 320,
				      383, 384, 448, 511, 512, 513, 575,
				      576, 639, 1000 };

static void lengths_at_width(void)
{
	static unsigned char back[1100 + 2 * SLACK];

	for (size_t off = 0; off < 64; off += (off < 16 ? 1 : 7)) {
		for (size_t j = 0; j < sizeof(width_lens) / sizeof(size_t);
		     j++) {
			size_t len = width_lens[j];
			char *to = env.buf + 64 + off;

			t_fill(to - SLACK, CANARY, len + 2 * SLACK);
			cr_assert_eq(ua_clear_user(to, len), 0);
			t_peek(back, to - SLACK, len + 2 * SLACK);
			cr_assert_eq(t_first_not(back, CANARY, SLACK), SLACK,
				     "%s off %zu len %zu: before",
				     width_name[ua__clear_vec], off, len);
			cr_assert_eq(t_first_not(back + SLACK, 0, len), len,
				     "%s off %zu len %zu",
				     width_name[ua__clear_vec], off, len);
			cr_assert_eq(
				t_first_not(back + SLACK + len, CANARY, SLACK),
				SLACK, "%s off %zu len %zu: after",
				width_name[ua__clear_vec], off, len);
		}
	}
}

Test(clear, every_store_width)
{
	int max = ua__clear_vec_max();

	cr_assert_eq(ua__clear_vec, max, "the default is the widest");
	for (int v = UA_CLEAR_SSE_; v <= max; v++) {
		ua__clear_vec = (unsigned char)v;
		for (size_t j = 0; j < sizeof(width_lens) / sizeof(size_t);
		     j++)
			clear_every_offset(width_lens[j]);
		lengths_at_width();
	}
	ua__clear_vec = (unsigned char)max;
}

/* XINUSE bit 2: YMM0-15's upper halves are not in their initial state. */
static bool ymm_upper_in_use(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
	return lo & 4;
}

static void dirty_ymm_upper(void)
{
	__asm__ volatile("vpcmpeqd %%ymm1, %%ymm1, %%ymm1" ::: "xmm1");
}

/*
 * A wide clear leaves no upper state behind, whether it finishes or
 * faults part way (VZEROUPPER on both ways out): no AVX-SSE transition
 * for the caller, no upper state for the guest's next XSAVE.
 */
Test(clear, wide_stores_leave_no_upper_state)
{
	unsigned int a, b, c, d;
	int max = ua__clear_vec_max();

	__asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0xd), "c"(1));
	if (max < UA_CLEAR_AVX_ || !(a & 4))
		cr_skip_test("no AVX here, or no XGETBV with ECX=1 (XINUSE)");
	for (int v = UA_CLEAR_AVX_; v <= max; v++) {
		ua__clear_vec = (unsigned char)v;
		dirty_ymm_upper();
		cr_assert(ymm_upper_in_use(), "the check sees dirty state");
		cr_assert_eq(ua_clear_user(env.buf, 512), 0);
		cr_assert(!ymm_upper_in_use(), "%s: after a whole clear",
			  width_name[v]);
		dirty_ymm_upper();
		cr_assert_eq(ua_clear_user(env.hole - 200, 512), 512 - 200);
		cr_assert(!ymm_upper_in_use(), "%s: after a fault",
			  width_name[v]);
	}
	ua__clear_vec = (unsigned char)max;
}
#endif
