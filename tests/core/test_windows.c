// SPDX-License-Identifier: MIT
/*
 * Windows and the unsafe accessors: begin refuses a bad range and opens
 * nothing; unsafe get/put/copy jump to the label at every fault offset with
 * the window still open; constant and runtime copy sizes; ua_unsafe_op_wrap;
 * the scoped forms close the window on every way out of the block.  Window
 * opening and closing is observed through ua_stats.
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

TestSuite(windows, .init = setup, .fini = teardown);

#define CANARY 0xa5
#define SLACK 16

Test(windows, begin_end_each_kind)
{
	ua_stats_reset();
	cr_assert(ua_user_read_access_begin(env.buf, 8));
	t_assert_stats(1, 1, 0, "read window open");
	ua_user_read_access_end();
	t_assert_stats(2, 1, 0, "read window closed");
	cr_assert(ua_user_write_access_begin(env.buf, 8));
	ua_user_write_access_end();
	cr_assert(ua_user_access_begin(env.buf, 8));
	ua_user_access_end();
	t_assert_stats(6, 3, 0);
	/* Ranges the whole mapped area, the whole space, and empty ones. */
	cr_assert(ua_user_access_begin(ua_space_base(env.sp),
				       ua_space_size(env.sp)));
	ua_user_access_end();
	cr_assert(ua_user_read_access_begin(ua_space_limit(env.sp), 0));
	ua_user_read_access_end();
	cr_assert(ua_user_write_access_begin((char *)ua_space_limit(env.sp) - 8,
					     8),
		  "a range ending exactly at the limit");
	ua_user_write_access_end();
	t_assert_stats(12, 6, 0);
}

/* A bad range: false, and neither a window nor a switch happened. */
Test(windows, begin_refuses_bad_ranges)
{
	char *lim = ua_space_limit(env.sp), *base = ua_space_base(env.sp);
	char mon[16];
	char *none = t_noaccess_page();

	ua_stats_reset();
	cr_assert_not(ua_user_read_access_begin(mon, sizeof(mon)));
	cr_assert_not(ua_user_write_access_begin(mon, 1));
	cr_assert_not(ua_user_access_begin(mon, 0), "monitor, even empty");
	cr_assert_not(ua_user_read_access_begin(none, 8));
	cr_assert_not(ua_user_read_access_begin(lim - 8, 9));
	cr_assert_not(ua_user_write_access_begin(lim, 1));
	cr_assert_not(ua_user_access_begin(lim + 1, 0));
	cr_assert_not(ua_user_read_access_begin(base - 1, 2));
	cr_assert_not(ua_user_read_access_begin(base - 1, 0));
	cr_assert_not(ua_user_write_access_begin(env.buf, SIZE_MAX));
	cr_assert_not(ua_user_access_begin(env.buf,
					   SIZE_MAX - (uintptr_t)env.buf + 2));
	cr_assert_not(ua_user_read_access_begin((void *)(UINTPTR_MAX - 3), 8));
	cr_assert_not(ua_user_read_access_begin(NULL, 1));
	ua_space_use(NULL);
	cr_assert_not(ua_user_read_access_begin(env.buf, 1), "no space");
	ua_space_use(env.sp);
	t_assert_stats(0, 0, 0, "nothing opened");
	munmap(none, T_PG);
}

#define UNSAFE_GET_CROSSING(type)                                            \
	do {                                                                 \
		for (size_t k = 0; k <= sizeof(type); k++) {                 \
			type *p = (type *)(env.hole - k), v = 0;             \
			bool faulted = false;                                \
			ua_stats_reset();                                    \
			cr_assert(ua_user_read_access_begin(p, sizeof(*p))); \
			ua_unsafe_get_user(v, p, fault_##type);              \
			goto done_##type;                                    \
			fault_##type : faulted = true;                       \
			t_assert_stats(1, 1, 1, "the window is still open"); \
			done_##type : ua_user_read_access_end();             \
			cr_assert_eq(faulted, k < sizeof(type),              \
				     #type " at hole - %zu", k);             \
			t_assert_stats(2, 1, k < sizeof(type));              \
			if (!faulted)                                        \
				cr_assert_eq(memcmp(&v, pat + 8 - k, k), 0); \
		}                                                            \
	} while (0)

typedef void *voidp;

Test(windows, unsafe_get_every_offset)
{
	unsigned char pat[8];

	t_pat_fill(pat, 8, 0);
	t_poke(env.hole - 8, pat, 8);
	UNSAFE_GET_CROSSING(uint8_t);
	UNSAFE_GET_CROSSING(int16_t);
	UNSAFE_GET_CROSSING(uint32_t);
	UNSAFE_GET_CROSSING(int64_t);
	UNSAFE_GET_CROSSING(voidp);
}

#define UNSAFE_PUT_CROSSING(type)                                             \
	do {                                                                  \
		for (size_t k = 0; k <= sizeof(type); k++) {                  \
			type *p = (type *)(env.hole - k);                     \
			unsigned char g[8];                                   \
			bool faulted = false;                                 \
			t_fill(env.hole - 8, CANARY, 8);                      \
			ua_stats_reset();                                     \
			cr_assert(ua_user_write_access_begin(p, sizeof(*p))); \
			ua_unsafe_put_user((type)0, p, pfault_##type);        \
			goto pdone_##type;                                    \
			pfault_##type : faulted = true;                       \
			pdone_##type : ua_user_write_access_end();            \
			cr_assert_eq(faulted, k < sizeof(type),               \
				     #type " at hole - %zu", k);              \
			t_assert_stats(2, 1, faulted);                        \
			t_peek(g, env.hole - 8, 8);                           \
			cr_assert_eq(t_first_not(g, CANARY, 8 - k), 8 - k);   \
			cr_assert_eq(t_first_not(g + 8 - k,                   \
						 faulted ? CANARY : 0, k),    \
				     k);                                      \
		}                                                             \
	} while (0)

Test(windows, unsafe_put_every_offset)
{
	UNSAFE_PUT_CROSSING(uint8_t);
	UNSAFE_PUT_CROSSING(int16_t);
	UNSAFE_PUT_CROSSING(uint32_t);
	UNSAFE_PUT_CROSSING(int64_t);
	UNSAFE_PUT_CROSSING(voidp);
}

Test(windows, unsafe_get_put_values)
{
	uint64_t u64 = 0;
	int32_t s32 = 0;
	int8_t s8 = 0;
	uint16_t u16 = 0;
	void *vp = NULL;
	char *g = env.buf;

	cr_assert(ua_user_access_begin(g, 64));
	ua_unsafe_put_user(0x1122334455667788ull, (uint64_t *)g, fault);
	ua_unsafe_put_user(-7, (int32_t *)(g + 9), fault);
	ua_unsafe_put_user(-1, (int8_t *)(g + 15), fault);
	ua_unsafe_put_user(0xbeef, (uint16_t *)(g + 17), fault);
	ua_unsafe_put_user(&env, (void **)(g + 24), fault);
	ua_unsafe_get_user(u64, (uint64_t *)g, fault);
	ua_unsafe_get_user(s32, (int32_t *)(g + 9), fault);
	ua_unsafe_get_user(s8, (int8_t *)(g + 15), fault);
	ua_unsafe_get_user(u16, (uint16_t *)(g + 17), fault);
	ua_unsafe_get_user(vp, (void **)(g + 24), fault);
	ua_user_access_end();
	cr_assert_eq(u64, 0x1122334455667788ull);
	cr_assert_eq(s32, -7);
	cr_assert_eq(s8, -1);
	cr_assert_eq(u16, 0xbeef);
	cr_assert_eq(vp, &env);
	return;
fault:
	ua_user_access_end();
	cr_assert_fail("unexpected fault");
}

/*
 * Constant-size unsafe copies (single moves) across the hole: the label is
 * reached exactly when the block reaches the unmapped page; the monitor
 * bytes after the block are never written.
 */
#define CONST_COPY_CROSSING(N)                                                 \
	do {                                                                   \
		unsigned char d[(N) + SLACK], s[N];                            \
		t_pat_fill(s, (N), 1);                                         \
		for (size_t k = 0; k <= (N); k++) {                            \
			char *g = env.hole - k;                                \
			bool ff = false, tf = false;                           \
			memset(d, CANARY, sizeof(d));                          \
			t_poke(env.hole - (N), s, (N));                        \
			ua_stats_reset();                                      \
			cr_assert(ua_user_read_access_begin(g, (N)));          \
			ua_unsafe_copy_from_user(d, g, (N), ffault_##N);       \
			goto fdone_##N;                                        \
			ffault_##N : ff = true;                                \
			fdone_##N : ua_user_read_access_end();                 \
			cr_assert(ua_user_write_access_begin(g, (N)));         \
			ua_unsafe_copy_to_user(g, s, (N), tfault_##N);         \
			goto tdone_##N;                                        \
			tfault_##N : tf = true;                                \
			tdone_##N : ua_user_write_access_end();                \
			cr_assert_eq(ff, k < (N), "from, size %d, k %zu", (N), \
				     k);                                       \
			cr_assert_eq(tf, k < (N), "to, size %d, k %zu", (N),   \
				     k);                                       \
			t_assert_stats(4, 2, 2 * (k < (N)));                   \
			cr_assert_eq(t_first_not(d + (N), CANARY, SLACK),      \
				     SLACK);                                   \
			if (k == (N))                                          \
				cr_assert_eq(memcmp(d, s, (N)), 0);            \
		}                                                              \
	} while (0)

Test(windows, unsafe_copy_constant_sizes)
{
	CONST_COPY_CROSSING(1);
	CONST_COPY_CROSSING(2);
	CONST_COPY_CROSSING(3);
	CONST_COPY_CROSSING(4);
	CONST_COPY_CROSSING(8);
	CONST_COPY_CROSSING(15);
	CONST_COPY_CROSSING(16);
	CONST_COPY_CROSSING(64);
}

Test(windows, unsafe_copy_constant_values)
{
	unsigned char s[64], d[64 + SLACK];

	t_pat_fill(s, sizeof(s), 9);
	for (size_t a = 0; a < 8; a++) {
		char *g = env.buf + 128 + a;

		memset(d, CANARY, sizeof(d));
		cr_assert(ua_user_access_begin(g, 64));
		ua_unsafe_copy_to_user(g, s, 16, fault);
		ua_unsafe_copy_to_user(g + 16, s + 16, 8, fault);
		ua_unsafe_copy_to_user(g + 24, s + 24, 4, fault);
		ua_unsafe_copy_to_user(g + 28, s + 28, 2, fault);
		ua_unsafe_copy_to_user(g + 30, s + 30, 1, fault);
		ua_unsafe_copy_to_user(g + 31, s + 31, 33, fault);
		ua_unsafe_copy_from_user(d, g, 64, fault);
		ua_user_access_end();
		cr_assert_eq(memcmp(d, s, 64), 0, "alignment %zu", a);
		cr_assert_eq(t_first_not(d + 64, CANARY, SLACK), SLACK);
		memset(d, CANARY, sizeof(d));
		cr_assert(ua_user_read_access_begin(g, 64));
		ua_unsafe_copy_from_user(d, g, 1, fault_r);
		ua_unsafe_copy_from_user(d + 1, g + 1, 2, fault_r);
		ua_unsafe_copy_from_user(d + 3, g + 3, 4, fault_r);
		ua_unsafe_copy_from_user(d + 7, g + 7, 8, fault_r);
		ua_unsafe_copy_from_user(d + 15, g + 15, 16, fault_r);
		ua_unsafe_copy_from_user(d + 31, g + 31, 33, fault_r);
		ua_user_read_access_end();
		cr_assert_eq(memcmp(d, s, 64), 0, "alignment %zu", a);
		cr_assert_eq(t_first_not(d + 64, CANARY, SLACK), SLACK);
	}
	return;
fault:
	ua_user_access_end();
	cr_assert_fail("unexpected fault");
	return;
fault_r:
	ua_user_read_access_end();
	cr_assert_fail("unexpected fault");
}

/* Runtime sizes (the out-of-line copy) for every length and fault offset. */
static size_t runtime(size_t n)
{
	volatile size_t v = n;

	return v;
}

static void runtime_copy_every_offset(size_t len, unsigned char *d,
				      const unsigned char *s)
{
	for (size_t k = 0; k <= len; k++) {
		char *g = env.hole - k;
		bool ff = false, tf = false;

		memset(d, CANARY, len + SLACK);
		ua_stats_reset();
		cr_assert(ua_user_write_access_begin(g, len));
		ua_unsafe_copy_to_user(g, s, runtime(len), tfault);
		goto tdone;
tfault:
		tf = true;
tdone:
		ua_user_write_access_end();
		cr_assert(ua_user_read_access_begin(g, len));
		ua_unsafe_copy_from_user(d, g, runtime(len), ffault);
		goto fdone;
ffault:
		ff = true;
fdone:
		ua_user_read_access_end();
		cr_assert_eq(tf, k < len, "to: len %zu, k %zu", len, k);
		cr_assert_eq(ff, k < len, "from: len %zu, k %zu", len, k);
		t_assert_stats_faulted(4, 2, k < len, "len %zu, k %zu", len, k);
		/* The prefix up to the fault went both ways. */
		cr_assert_eq(memcmp(d, s, k), 0, "len %zu k %zu", len, k);
		cr_assert_eq(t_first_not(d + len, CANARY, SLACK), SLACK);
	}
}

Test(windows, unsafe_copy_runtime_sizes)
{
	static unsigned char d[T_BIGLEN + SLACK], s[T_BIGLEN];

	t_pat_fill(s, sizeof(s), 2);
	for (size_t len = 1; len <= T_MAXLEN; len++)
		runtime_copy_every_offset(len, d, s);
	runtime_copy_every_offset(T_BIGLEN, d, s);
}

static int op_calls;

static int op(int ret)
{
	op_calls++;
	return ret;
}

Test(windows, unsafe_op_wrap)
{
	int reached = 0;

	ua_unsafe_op_wrap(op(0), bad);
	reached = 1;
	ua_unsafe_op_wrap(op(-EFAULT), good);
	cr_assert_fail("a non-zero result must jump");
good:
	ua_unsafe_op_wrap(op(1), good2);
	cr_assert_fail("any non-zero result must jump");
good2:
	cr_assert_eq(reached, 1);
	cr_assert_eq(op_calls, 3, "the expression is evaluated once");
	/* Wrapping a raw copy inside a window: the fault goes to the label. */
	cr_assert(ua_user_read_access_begin(env.hole - 4, 8));
	{
		char d[8];

		ua_unsafe_op_wrap(ua__raw_copy(d, env.hole - 4, 8), copy_fault);
	}
	ua_user_read_access_end();
	cr_assert_fail("the copy crosses the hole");
copy_fault:
	ua_user_read_access_end();
	return;
bad:
	cr_assert_fail("a zero result must not jump");
}

/* Scoped forms: every way out of the block closes the window. */

static int scoped_return(uint32_t *p, uint32_t *out)
{
	ua_scoped_user_read_access(p, efault) {
		ua_unsafe_get_user(*out, p, efault);
		return 0;
	}
	return 1;
efault:
	return -EFAULT;
}

static int scoped_fault_goto(uint64_t *p)
{
	uint64_t v;

	ua_scoped_user_rw_access(p, efault) {
		ua_unsafe_get_user(v, p, efault);
		ua_unsafe_put_user(v + 1, p, efault);
	}
	return 0;
efault:
	return -EFAULT;
}

Test(windows, scoped_fall_through)
{
	uint32_t *p = (uint32_t *)env.buf, v = 0;
	int body = 0;

	ua_stats_reset();
	ua_scoped_user_write_access(p, efault) {
		ua_unsafe_put_user(41, p, efault);
		body++;
	}
	t_assert_stats(2, 1, 0, "closed after falling through");
	ua_scoped_user_read_access(p, efault) {
		ua_unsafe_get_user(v, p, efault);
		body++;
	}
	t_assert_stats(4, 2, 0);
	cr_assert_eq(v, 41);
	cr_assert_eq(body, 2, "each body runs exactly once");
	return;
efault:
	cr_assert_fail("unexpected fault");
}

Test(windows, scoped_break_continue_return)
{
	uint32_t *p = (uint32_t *)env.buf, v = 0;
	int after = 0;

	t_fill(p, 0, 4);
	ua_stats_reset();
	for (int i = 0; i < 3; i++) {
		ua_scoped_user_rw_access(p, efault) {
			ua_unsafe_put_user((uint32_t)i + 1, p, efault);
			if (i == 0)
				continue;
			break;
		}
		after++;
	}
	/* break / continue leave only the scoped block, as in the kernel. */
	cr_assert_eq(after, 3);
	t_assert_stats(6, 3, 0);
	cr_assert_eq(scoped_return(p, &v), 0);
	cr_assert_eq(v, 3);
	t_assert_stats(8, 4, 0, "closed by return");
	return;
efault:
	cr_assert_fail("unexpected fault");
}

Test(windows, scoped_goto_fault_label)
{
	uint64_t v;

	/* A fault inside the block: the window closes on the way out. */
	ua_stats_reset();
	cr_assert_eq(scoped_fault_goto((uint64_t *)(env.hole - 4)), -EFAULT);
	t_assert_stats(2, 1, 1, "closed on the way to the label");
	cr_assert_eq(scoped_return((uint32_t *)(env.hole - 2), (uint32_t *)&v),
		     -EFAULT);
	t_assert_stats(4, 2, 2);
	/* A plain goto out of the block, not from a fault. */
	ua_scoped_user_read_access_size(env.buf, 16, efault) {
		goto out;
	}
	cr_assert_fail("not reached");
out:
	t_assert_stats(6, 3, 2, "closed by goto");
	t_fill(env.buf, 0, 8);
	cr_assert_eq(scoped_fault_goto((uint64_t *)env.buf), 0);
	cr_assert_eq(ua_get_user(v, (uint64_t *)env.buf), 0);
	cr_assert_eq(v, 1);
	return;
efault:
	cr_assert_fail("unexpected fault");
}

Test(windows, scoped_bad_range_opens_nothing)
{
	char mon[8];
	int body = 0;

	ua_stats_reset();
	ua_scoped_user_read_access_size(mon, sizeof(mon), bad1) {
		body++;
	}
	cr_assert_fail("a bad range must go to the label");
bad1:
	ua_scoped_user_write_access((uint64_t *)(ua_space_limit(env.sp) - 4),
				    bad2) {
		body++;
	}
	cr_assert_fail("a bad range must go to the label");
bad2:
	ua_scoped_user_rw_access_size(env.buf, SIZE_MAX, bad3) {
		body++;
	}
	cr_assert_fail("a bad range must go to the label");
bad3:
	cr_assert_eq(body, 0, "the body never ran");
	t_assert_stats(0, 0, 0, "no window was opened");
}

Test(windows, scoped_const_pointer_and_sizes)
{
	const uint16_t *cp = (const uint16_t *)(env.buf + 32);
	unsigned char s[40], d[40];
	uint16_t v = 0;

	t_pat_fill(s, sizeof(s), 4);
	ua_stats_reset();
	ua_scoped_user_write_access_size(env.buf + 32, sizeof(s), efault) {
		ua_unsafe_copy_to_user(env.buf + 32, s, sizeof(s), efault);
	}
	ua_scoped_user_read_access(cp, efault) {
		ua_unsafe_get_user(v, cp, efault);
	}
	ua_scoped_user_read_access_size(cp, sizeof(d), efault) {
		ua_unsafe_copy_from_user(d, cp, sizeof(d), efault);
	}
	t_assert_stats(6, 3, 0);
	cr_assert_eq(v, (uint16_t)(s[0] | s[1] << 8));
	cr_assert_eq(memcmp(d, s, sizeof(d)), 0);
	return;
efault:
	cr_assert_fail("unexpected fault");
}

/* A checked accessor after a scoped block works: nothing was left open. */
Test(windows, windows_do_not_leak)
{
	uint32_t v;

	for (int i = 0; i < 100; i++) {
		cr_assert_eq(scoped_return((uint32_t *)env.hole, &v), -EFAULT);
		cr_assert_eq(scoped_fault_goto((uint64_t *)(env.hole - 1)),
			     -EFAULT);
	}
	ua_stats_reset();
	cr_assert_eq(ua_put_user(5u, (uint32_t *)env.buf), 0);
	cr_assert_eq(ua_get_user(v, (uint32_t *)env.buf), 0);
	cr_assert_eq(v, 5);
	t_assert_stats(4, 2, 0);
}
