// SPDX-License-Identifier: MIT
/*
 * ua_stats (doc/design.md §4.1): every checked accessor call is one window and
 * two protection switches (open, close), counted the same under every
 * backend; a refused range is none; each fault recovered through the
 * exception table is one fixup; the counters are per thread.
 */
#include <errno.h>
#include <pthread.h>

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

TestSuite(stats, .init = setup, .fini = teardown);

/* Run expr after a reset; check its result and the counters it left. */
#define COUNTS(expr, want, sw, win, fx)                                   \
	do {                                                              \
		long __r;                                                 \
		ua_stats_reset();                                         \
		__r = (long)(expr);                                       \
		cr_assert_eq(__r, (long)(want), "%s returned %ld", #expr, \
			     __r);                                        \
		t_assert_stats(sw, win, fx, "for " #expr);                \
	} while (0)

Test(stats, reset_and_get)
{
	struct ua_stats st;
	uint32_t v;

	cr_assert_eq(ua_get_user(v, (uint32_t *)env.buf), 0);
	cr_assert_eq(ua_get_user(v, (uint32_t *)env.hole), -EFAULT);
	ua_stats_get(&st);
	cr_assert_geq(st.switches, 4);
	ua_stats_reset();
	t_assert_stats(0, 0, 0);
	(void)v;
}

Test(stats, checked_accessors_success)
{
	static char big[T_BIGLEN];
	char buf[64], s[16] = "str";
	uint8_t b;
	uint16_t h;
	uint32_t l;
	uint64_t q;

	t_poke(env.buf, s, sizeof(s));
	COUNTS(ua_get_user(b, (uint8_t *)env.buf), 0, 2, 1, 0);
	COUNTS(ua_get_user(h, (uint16_t *)env.buf), 0, 2, 1, 0);
	COUNTS(ua_get_user(l, (uint32_t *)env.buf), 0, 2, 1, 0);
	COUNTS(ua_get_user(q, (uint64_t *)env.buf), 0, 2, 1, 0);
	COUNTS(ua_put_user(1, (uint8_t *)(env.buf + 32)), 0, 2, 1, 0);
	COUNTS(ua_put_user(1, (uint16_t *)(env.buf + 32)), 0, 2, 1, 0);
	COUNTS(ua_put_user(1, (uint32_t *)(env.buf + 32)), 0, 2, 1, 0);
	COUNTS(ua_put_user(1, (uint64_t *)(env.buf + 32)), 0, 2, 1, 0);
	COUNTS(ua_copy_from_user(buf, env.buf, sizeof(buf)), 0, 2, 1, 0);
	COUNTS(ua_copy_to_user(env.buf + 64, buf, sizeof(buf)), 0, 2, 1, 0);
	COUNTS(ua_copy_from_user(big, env.buf, sizeof(big)), 0, 2, 1, 0);
	COUNTS(ua_clear_user(env.buf + 64, 64), 0, 2, 1, 0);
	COUNTS(ua_strncpy_from_user(buf, env.buf, sizeof(buf)), 3, 2, 1, 0);
	COUNTS(ua_strnlen_user(env.buf, 64), 4, 2, 1, 0);
	COUNTS(ua_check_zeroed_user(env.buf + 64, 64), 1, 2, 1, 0);
	COUNTS(ua_copy_struct_from_user(buf, 16, env.buf, 16), 0, 2, 1, 0);
	/* A longer guest struct: the zero check and the copy, two windows. */
	COUNTS(ua_copy_struct_from_user(buf, 16, env.buf + 64, 32), 0, 4, 2, 0);
	COUNTS(ua_copy_from_user_nofault(buf, env.buf, 16), 0, 2, 1, 0);
	(void)b, (void)h, (void)l, (void)q;
}

Test(stats, checked_accessors_fault)
{
	char buf[64];
	char *h = env.hole;
	uint8_t b;
	uint64_t q;

	t_fill(env.buf, 0, env.len);
	COUNTS(ua_check_zeroed_user(h - 40, 64), -EFAULT, 2, 1, 1);
	COUNTS(ua_get_user(b, (uint8_t *)h), -EFAULT, 2, 1, 1);
	COUNTS(ua_get_user(q, (uint64_t *)(h - 4)), -EFAULT, 2, 1, 1);
	COUNTS(ua_put_user(1, (uint8_t *)h), -EFAULT, 2, 1, 1);
	COUNTS(ua_put_user(1, (uint64_t *)(h - 1)), -EFAULT, 2, 1, 1);
	COUNTS(ua_copy_from_user(buf, h - 5, 10), 5, 2, 1, 1);
	COUNTS(ua_copy_to_user(h - 5, buf, 10), 5, 2, 1, 1);
	COUNTS(ua_clear_user(h - 5, 10), 5, 2, 1, 1);
	t_fill(h - 4, 'a', 4);
	COUNTS(ua_strncpy_from_user(buf, h - 4, 64), -EFAULT, 2, 1, 1);
	COUNTS(ua_strnlen_user(h - 4, 64), 0, 2, 1, 1);
	COUNTS(ua_copy_struct_from_user(buf, 16, h - 8, 16), -EFAULT, 2, 1, 1);
	COUNTS(ua_copy_from_user_nofault(buf, h - 3, 8), -EFAULT, 2, 1, 1);
	(void)b, (void)q;
}

Test(stats, refused_ranges_count_nothing)
{
	char buf[16], mon[16] = { 0 };
	char *lim = ua_space_limit(env.sp);
	uint32_t l;

	COUNTS(ua_get_user(l, (uint32_t *)mon), -EFAULT, 0, 0, 0);
	COUNTS(ua_put_user(1, (uint32_t *)(lim - 2)), -EFAULT, 0, 0, 0);
	COUNTS(ua_copy_from_user(buf, mon, 16), 16, 0, 0, 0);
	COUNTS(ua_copy_to_user(mon, buf, 16), 16, 0, 0, 0);
	COUNTS(ua_clear_user(mon, 16), 16, 0, 0, 0);
	COUNTS(ua_strncpy_from_user(buf, mon, 16), -EFAULT, 0, 0, 0);
	COUNTS(ua_strnlen_user(mon, 16), 0, 0, 0, 0);
	COUNTS(ua_check_zeroed_user(mon, 16), -EFAULT, 0, 0, 0);
	COUNTS(ua_copy_struct_from_user(buf, 8, mon, 16), -EFAULT, 0, 0, 0);
	COUNTS(ua_copy_from_user_nofault(buf, mon, 16), -EFAULT, 0, 0, 0);
	COUNTS(ua_user_read_access_begin(mon, 1), 0, 0, 0, 0);
	(void)l;
}

Test(stats, windows_and_faults_inside)
{
	uint8_t v;
	int faults = 0;

	ua_stats_reset();
	cr_assert(ua_user_read_access_begin(env.buf, env.len + T_PG));
	t_assert_stats(1, 1, 0);
	for (int i = 0; i < 5; i++) {
		ua_unsafe_get_user(v, (uint8_t *)(env.hole + i), fault);
		cr_assert_fail("the hole must fault");
fault:
		faults++;
	}
	ua_unsafe_get_user(v, (uint8_t *)env.buf, bad);
	ua_user_read_access_end();
	cr_assert_eq(faults, 5);
	t_assert_stats(2, 1, 5, "one window, five recovered faults");
	(void)v;
	return;
bad:
	ua_user_read_access_end();
	cr_assert_fail("unexpected fault");
}

Test(stats, nofault_kernel_accessors_open_no_window)
{
	uint64_t v, mon = 3;
	char *none = t_noaccess_page();

	COUNTS(ua_get_kernel_nofault(v, &mon), 0, 0, 0, 0);
	COUNTS(ua_get_kernel_nofault(v, (uint64_t *)none), -EFAULT, 0, 0, 1);
	COUNTS(ua_copy_to_kernel_nofault(none, &mon, 8), -EFAULT, 0, 0, 1);
	COUNTS(ua_strncpy_from_kernel_nofault((char *)&v, none, 8), -EFAULT, 0,
	       0, 1);
	COUNTS(ua_get_kernel_nofault(v, (uint64_t *)env.buf), -ERANGE, 0, 0, 0);
	munmap(none, T_PG);
}

Test(stats, iov_iter_one_window_per_guest_segment)
{
	struct iovec v[3] = { { env.buf, 8 },
			      { env.buf + 100, 0 },
			      { env.buf + 200, 8 } };
	struct iovec *g = (struct iovec *)(env.buf + T_PG);
	char data[16] = { 0 };
	struct iovec kv[2] = { { data, 8 }, { data + 8, 8 } };
	struct ua_iov_iter it;

	t_poke(g, v, sizeof(v));
	COUNTS(ua_import_iovec(&it, UA_ITER_DEST, g, 3), 16, 2, 1, 0);
	COUNTS(ua_copy_to_iter(data, 16, &it), 16, 4, 2, 0);
	ua_iov_iter_release(&it);
	cr_assert_eq(ua_import_iovec(&it, UA_ITER_DEST, g, 3), 16);
	COUNTS(ua_iov_iter_zero(16, &it), 16, 4, 2, 0);
	ua_iov_iter_release(&it);
	cr_assert_eq(ua_import_iovec(&it, UA_ITER_SOURCE, g, 3), 16);
	COUNTS(ua_copy_from_iter(data, 16, &it), 16, 4, 2, 0);
	ua_iov_iter_release(&it);
	ua_iov_iter_kvec(&it, UA_ITER_DEST, kv, 2);
	COUNTS(ua_copy_to_iter(data, 16, &it), 16, 0, 0, 0);
}

Test(stats, scoped_window)
{
	uint32_t *p = (uint32_t *)env.buf, v = 0;

	ua_stats_reset();
	ua_scoped_user_rw_access(p, efault) {
		ua_unsafe_get_user(v, p, efault);
		ua_unsafe_put_user(v + 1, p, efault);
	}
	t_assert_stats(2, 1, 0);
	return;
efault:
	cr_assert_fail("unexpected fault");
}

Test(stats, guest_mode_switches)
{
	ua_stats_reset();
	t_guest_begin(env.sp);
	t_guest_end(env.sp);
	t_assert_stats(2, 0, 0, "unlock and lock, no window");
}

struct thread_result {
	struct ua_stats before, after;
	int failed;
};

static void *other_thread(void *arg)
{
	struct thread_result *r = arg;
	uint64_t v = 1;

	ua_stats_get(&r->before);
	ua_space_use(env.sp);
	for (int i = 0; i < 10; i++)
		r->failed += ua_get_user(v, (uint64_t *)env.hole) == -EFAULT &&
			     v == 0;
	ua_stats_get(&r->after);
	ua_space_use(NULL);
	return NULL;
}

Test(stats, per_thread)
{
	struct thread_result r = { 0 };
	pthread_t t;
	uint64_t v;

	ua_stats_reset();
	cr_assert_eq(ua_get_user(v, (uint64_t *)env.buf), 0);
	(void)v;
	cr_assert_eq(pthread_create(&t, NULL, other_thread, &r), 0);
	cr_assert_eq(pthread_join(t, NULL), 0);
	cr_assert_eq(r.before.switches + r.before.windows + r.before.fixups, 0,
		     "a new thread starts at zero");
	cr_assert_eq(r.failed, 10);
	cr_assert_eq(r.after.switches, 20);
	cr_assert_eq(r.after.windows, 10);
	cr_assert_eq(r.after.fixups, 10);
	t_assert_stats(2, 1, 0, "the other thread's work is not ours");
}
