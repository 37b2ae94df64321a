// SPDX-License-Identifier: MIT
/*
 * The mode machine under each backend: what the hardware lets the thread
 * do in monitor mode, in each kind of window and in guest mode (checked
 * with the probe, on read-write, read-only and no-access guest pages);
 * that every checked accessor and every window costs exactly two switches
 * and leaves the space locked, whatever happened inside; lock, unlock and
 * the fold cost one switch each; misuse of the transitions aborts.
 */
#include "tprotect.h"

static struct t_env env;
static char *ro;   /* one read-only guest page */
static char *noac; /* one PROT_NONE guest page */

static void setup(void)
{
	char *base;

	t_env_setup(&env, 2);
	base = ua_space_base(env.sp);
	ro = ua_map(env.sp, base + 4 * T_PG, T_PG, PROT_READ);
	noac = ua_map(env.sp, base + 6 * T_PG, T_PG, PROT_NONE);
	cr_assert_not_null(ro);
	cr_assert_not_null(noac);
	ua_stats_reset();
}

static void teardown(void)
{
	t_env_teardown(&env);
}

TestSuite(modes, .init = setup, .fini = teardown);

/* Probe the three kinds of guest page against what the mode allows. */
static void check_pages(enum t_mode mode, const char *what)
{
	t_assert_probe(env.buf, t_expect(env.sp, mode, PROT_READ | PROT_WRITE),
		       "%s, read-write page", what);
	t_assert_probe(env.buf + T_PG + 100,
		       t_expect(env.sp, mode, PROT_READ | PROT_WRITE),
		       "%s, second read-write page", what);
	t_assert_probe(ro, t_expect(env.sp, mode, PROT_READ),
		       "%s, read-only page", what);
	t_assert_probe(noac, t_expect(env.sp, mode, PROT_NONE),
		       "%s, no-access page", what);
}

Test(modes, new_space_is_locked)
{
	check_pages(T_LOCKED, "after ua_space_create and ua_map");
	t_assert_stats(0, 0, 0, "the probe counts nothing");
}

Test(modes, probe_leaves_memory_alone)
{
	char v[4] = { 1, 2, 3, 4 }, back[4];

	t_poke(env.buf, v, 4);
	t_guest_begin(env.sp);
	cr_assert_eq(ua_protect_probe(env.buf + 1), T_RW);
	t_guest_end(env.sp);
	t_peek(back, env.buf, 4);
	cr_assert_arr_eq(back, v, 4);
}

Test(modes, window_kinds)
{
	cr_assert(ua_user_read_access_begin(env.buf, 8));
	check_pages(T_READWIN, "read window");
	ua_user_read_access_end();
	check_pages(T_LOCKED, "after the read window");
	cr_assert(ua_user_write_access_begin(env.buf, 8));
	check_pages(T_WRITEWIN, "write window");
	ua_user_write_access_end();
	check_pages(T_LOCKED, "after the write window");
	cr_assert(ua_user_access_begin(env.buf, 8));
	check_pages(T_RWWIN, "rw window");
	ua_user_access_end();
	check_pages(T_LOCKED, "after the rw window");
	t_assert_stats(6, 3, 0);
}

/* The window is the whole space, as KUAP's is the whole of user memory. */
Test(modes, window_opens_the_whole_space)
{
	cr_assert(ua_user_write_access_begin(env.buf, 1));
	t_assert_probe(env.buf + T_PG + 4000,
		       t_expect(env.sp, T_WRITEWIN, PROT_READ | PROT_WRITE));
	ua_user_write_access_end();
}

static int scoped_read(const uint32_t *p, uint32_t *out)
{
	ua_scoped_user_read_access(p, efault)
	{
		t_assert_probe(
			p, t_expect(env.sp, T_READWIN, PROT_READ | PROT_WRITE));
		ua_unsafe_get_user(*out, p, efault);
		return 0;
	}
efault:
	return -EFAULT;
}

static int scoped_write_fault(uint32_t *p)
{
	ua_scoped_user_write_access_size(p, 8, efault)
	{
		ua_unsafe_put_user(1u, p, efault);
		ua_unsafe_put_user(2u, p + 1, efault);
	}
	return 0;
efault:
	return -EFAULT;
}

Test(modes, scoped_windows)
{
	uint32_t v = 0;

	cr_assert_eq(scoped_read((uint32_t *)env.buf, &v), 0);
	t_assert_stats(2, 1, 0, "scoped read, left by return");
	check_pages(T_LOCKED, "after a scoped window left by return");
	cr_assert_eq(scoped_write_fault((uint32_t *)(env.hole - 4)), -EFAULT);
	t_assert_stats(4, 2, 1, "scoped write, left by a fault");
	check_pages(T_LOCKED, "after a scoped window left by a fault");
	cr_assert_eq(scoped_write_fault((uint32_t *)env.hole), -EFAULT);
	t_assert_stats(6, 3, 2);
	check_pages(T_LOCKED, "after a scoped window that faulted at once");
}

/* A bad range: nothing opened, nothing switched. */
Test(modes, refused_windows_switch_nothing)
{
	char mon[8] = { 0 };

	cr_assert_not(ua_user_read_access_begin(mon, 8));
	cr_assert_not(ua_user_write_access_begin(ua_space_limit(env.sp), 1));
	cr_assert_not(ua_user_access_begin(env.buf, ua_space_size(env.sp)));
	t_assert_stats(0, 0, 0);
}

/*
 * A forgotten begin is a bug the debug build reports; a release build
 * refuses a second window (begin returns false) rather than lose track of
 * the first one, which stays open and intact.
 */
Test(modes, nested_begin_is_refused)
{
	uint64_t v;

	if (UA_DEBUG_WINDOWS)
		cr_skip_test("debug builds abort on a nested begin");
	cr_assert(ua_user_read_access_begin(env.buf, 8));
	cr_assert_not(ua_user_write_access_begin(env.buf, 8));
	cr_assert_eq(ua_put_user(1u, (uint32_t *)env.buf), -EFAULT);
	t_assert_stats(1, 1, 0, "refused inner windows switch nothing");
	check_pages(T_READWIN, "the outer read window is intact");
	ua_unsafe_get_user(v, (uint64_t *)env.buf, fault);
	(void)v;
	ua_user_read_access_end();
	check_pages(T_LOCKED, "after the outer window");
	t_assert_stats(2, 1, 0);
	return;
fault:
	cr_assert_fail("read in the outer window faulted");
}

/* Checked accessors: two switches each, locked after, fault or not. */

static char mbuf[64];

static int acc_get(void *p)
{
	uint32_t v;
	int r = ua_get_user(v, (uint32_t *)p);

	(void)v;
	return r;
}

static int acc_put(void *p)
{
	return ua_put_user(7u, (uint32_t *)p);
}

static int acc_copy_from(void *p)
{
	return ua_copy_from_user(mbuf, p, 8) ? -EFAULT : 0;
}

static int acc_copy_to(void *p)
{
	return ua_copy_to_user(p, mbuf, 8) ? -EFAULT : 0;
}

static int acc_clear(void *p)
{
	return ua_clear_user(p, 8) ? -EFAULT : 0;
}

static int acc_strncpy(void *p)
{
	long n = ua_strncpy_from_user(mbuf, p, 8);

	return n < 0 ? (int)n : 0;
}

static int acc_strnlen(void *p)
{
	return ua_strnlen_user(p, 8) ? 0 : -EFAULT;
}

static int acc_zeroed(void *p)
{
	int r = ua_check_zeroed_user(p, 8);

	return r < 0 ? r : 0;
}

static int acc_struct(void *p)
{
	return ua_copy_struct_from_user(mbuf, 8, p, 8);
}

static int acc_nofault(void *p)
{
	return (int)ua_copy_from_user_nofault(mbuf, p, 8);
}

static const struct {
	const char *name;
	int (*fn)(void *p);
} accessors[] = {
	{ "ua_get_user", acc_get },
	{ "ua_put_user", acc_put },
	{ "ua_copy_from_user", acc_copy_from },
	{ "ua_copy_to_user", acc_copy_to },
	{ "ua_clear_user", acc_clear },
	{ "ua_strncpy_from_user", acc_strncpy },
	{ "ua_strnlen_user", acc_strnlen },
	{ "ua_check_zeroed_user", acc_zeroed },
	{ "ua_copy_struct_from_user", acc_struct },
	{ "ua_copy_from_user_nofault", acc_nofault },
};

#define N_ACCESSORS (sizeof(accessors) / sizeof(accessors[0]))

Test(modes, checked_accessors_two_switches_and_locked_after)
{
	for (size_t i = 0; i < N_ACCESSORS; i++) {
		const char *name = accessors[i].name;

		t_fill(env.buf, 0, 16);
		ua_stats_reset();
		cr_assert_eq(accessors[i].fn(env.buf), 0, "%s", name);
		t_assert_stats(2, 1, 0, "%s", name);
		check_pages(T_LOCKED, name);
	}
}

Test(modes, faulting_accessors_two_switches_and_locked_after)
{
	for (size_t i = 0; i < N_ACCESSORS; i++) {
		const char *name = accessors[i].name;

		ua_stats_reset();
		/* The first byte of the unmapped page after the buffer. */
		cr_assert_eq(accessors[i].fn(env.hole), -EFAULT, "%s", name);
		t_assert_stats(2, 1, 1, "%s", name);
		check_pages(T_LOCKED, name);
	}
}

Test(modes, refused_accessors_switch_nothing)
{
	char *lim = ua_space_limit(env.sp);

	for (size_t i = 0; i < N_ACCESSORS; i++) {
		ua_stats_reset();
		cr_assert_eq(accessors[i].fn(lim), -EFAULT, "%s",
			     accessors[i].name);
		t_assert_stats(0, 0, 0, "%s", accessors[i].name);
	}
}

/* Two windows: the check of the trailing bytes, then the copy. */
Test(modes, copy_struct_with_a_longer_user_struct)
{
	t_fill(env.buf, 0, 16);
	ua_stats_reset();
	cr_assert_eq(ua_copy_struct_from_user(mbuf, 8, env.buf, 16), 0);
	t_assert_stats(4, 2, 0);
	check_pages(T_LOCKED, "after copy_struct_from_user");
}

/* A window never grants more than the mapping's own protection. */
Test(modes, write_window_over_read_only_mapping)
{
	char src[16] = "not written";

	cr_assert_eq(ua_put_user(1u, (uint32_t *)ro), -EFAULT);
	t_assert_stats(2, 1, 1);
	cr_assert_eq(ua_copy_to_user(ro, src, sizeof(src)), sizeof(src));
	cr_assert_eq(ua_clear_user(ro + 8, 8), 8);
	t_assert_stats(6, 3, 3);
	cr_assert(ua_user_access_begin(ro, 8));
	t_assert_probe(ro, T_R, "rw window on a read-only mapping");
	ua_user_access_end();
	cr_assert_eq(ua_get_user(src[0], ro), 0);
	cr_assert_eq(src[0], 0);
	check_pages(T_LOCKED, "after the refused writes");
}

/* Monitor mode <-> guest mode: one switch each way. */
Test(modes, lock_unlock)
{
	ua_protect_unlock(env.sp);
	t_assert_stats(1, 0, 0, "unlock");
	check_pages(T_GUEST, "guest mode");
	ua_protect_lock(env.sp);
	t_assert_stats(2, 0, 0, "lock");
	check_pages(T_LOCKED, "after lock");
}

/* Guest code sees its memory directly; the monitor reads it after. */
Test(modes, guest_mode_plain_access)
{
	uint64_t v;

	t_guest_begin(env.sp);
	*(volatile uint64_t *)env.buf = 0x1122334455667788ull;
	cr_assert_eq(*(volatile char *)ro, 0);
	t_guest_end(env.sp);
	cr_assert_eq(ua_get_user(v, (uint64_t *)env.buf), 0);
	cr_assert_eq(v, 0x1122334455667788ull);
}

/* A syscall: entry lock, one window, exit unlock = 4 switches. */
Test(modes, syscall_with_one_window)
{
	ua_protect_unlock(env.sp);
	ua_stats_reset();
	ua_protect_lock(env.sp);
	cr_assert_eq(ua_put_user(3u, (uint32_t *)env.buf), 0);
	ua_protect_unlock(env.sp);
	t_assert_stats(4, 1, 0);
	check_pages(T_GUEST, "back in guest mode");
	ua_protect_lock(env.sp);
}

/* The fold: the exit closes the last window, 3 switches instead of 4. */
Test(modes, unlock_from_window_folds)
{
	static const enum t_mode kinds[] = { T_READWIN, T_WRITEWIN, T_RWWIN };

	for (int i = 0; i < 3; i++) {
		bool ok;

		ua_protect_unlock(env.sp);
		ua_stats_reset();
		ua_protect_lock(env.sp);
		ok = kinds[i] == T_READWIN ?
			     ua_user_read_access_begin(env.buf, 8) :
		     kinds[i] == T_WRITEWIN ?
			     ua_user_write_access_begin(env.buf, 8) :
			     ua_user_access_begin(env.buf, 8);
		cr_assert(ok);
		check_pages(kinds[i], "window before the fold");
		ua_protect_unlock_from_window(env.sp);
		t_assert_stats(3, 1, 0, "lock, open, fold (kind %d)", i);
		check_pages(T_GUEST, "guest mode after the fold");
		ua_protect_lock(env.sp);
		check_pages(T_LOCKED, "locked after the next entry");
		/* The window is gone: a new one opens normally. */
		cr_assert_eq(ua_put_user(3u, (uint32_t *)env.buf), 0);
		t_assert_stats(6, 2, 0);
	}
}

/*
 * The entry fold (internal, src/protect/protect.c; rt_sigreturn uses it):
 * guest mode straight into a window in one switch.  Declared here: the
 * tests link the static library, where the hidden symbol is visible.
 */
bool ua__protect_lock_to_window(int kind, const void *ptr, size_t len);

Test(modes, lock_to_window_folds_the_entry)
{
	static const enum t_mode kinds[] = { T_READWIN, T_WRITEWIN, T_RWWIN };

	for (int i = 0; i < 3; i++) {
		ua_protect_unlock(env.sp);
		ua_stats_reset();
		cr_assert(ua__protect_lock_to_window(kinds[i], env.buf, 8));
		t_assert_stats(1, 1, 0, "kind %d", kinds[i]);
		check_pages(kinds[i], "window entered from guest mode");
		if (kinds[i] == T_READWIN)
			ua_user_read_access_end();
		else if (kinds[i] == T_WRITEWIN)
			ua_user_write_access_end();
		else
			ua_user_access_end();
		check_pages(T_LOCKED, "after the window: monitor mode");
		/* Both folds: a syscall with one window costs two switches. */
		ua_protect_unlock(env.sp);
		ua_stats_reset();
		cr_assert(ua__protect_lock_to_window(kinds[i], env.buf, 8));
		ua_protect_unlock_from_window(env.sp);
		t_assert_stats(2, 1, 0);
		check_pages(T_GUEST, "guest mode again");
		ua_protect_lock(env.sp);
	}
	/* Refused, with nothing changed, outside guest mode or for a bad range. */
	ua_stats_reset();
	cr_assert_not(ua__protect_lock_to_window(T_READWIN, env.buf, 8));
	ua_protect_unlock(env.sp);
	cr_assert_not(ua__protect_lock_to_window(T_READWIN,
						 ua_space_limit(env.sp), 8));
	t_assert_stats(1, 0, 0);
	check_pages(T_GUEST, "still guest mode");
	ua_protect_lock(env.sp);
}

/*
 * Release builds fold a window left open at ua_protect_unlock() into the
 * unlock (debug builds report it); a later end for it does nothing.
 */
Test(modes, unlock_with_a_forgotten_window)
{
	if (UA_DEBUG_WINDOWS)
		cr_skip_test("debug builds abort on a window left open");
	cr_assert(ua_user_write_access_begin(env.buf, 8));
	ua_protect_unlock(env.sp);
	t_assert_stats(2, 1, 0);
	check_pages(T_GUEST, "guest mode");
	ua_user_write_access_end();
	t_assert_stats(2, 1, 0, "the late end switches nothing");
	ua_protect_lock(env.sp);
	check_pages(T_LOCKED, "after lock");
}

/* A window opened in guest mode (a signal handler's) closes to guest mode. */
Test(modes, window_from_guest_mode)
{
	uint32_t v;

	ua_protect_unlock(env.sp);
	ua_stats_reset();
	cr_assert_eq(ua_get_user(v, (uint32_t *)env.buf), 0);
	cr_assert_eq(v, 0);
	t_assert_stats(2, 1, 0);
	check_pages(T_GUEST, "still guest mode");
	ua_protect_lock(env.sp);
	check_pages(T_LOCKED, "after lock");
}

/* Two spaces: modes are per space. */
Test(modes, modes_are_per_space)
{
	struct ua_space *other = ua_space_create(1 << 20, NULL);
	char *o;

	cr_assert_not_null(other);
	o = ua_map(other, NULL, T_PG, PROT_READ | PROT_WRITE);
	cr_assert_not_null(o);
	ua_protect_unlock(other);
	t_assert_probe(o, T_RW, "guest mode on the other space");
	check_pages(T_LOCKED, "this space stays locked");
	cr_assert(ua_user_read_access_begin(env.buf, 8));
	check_pages(T_READWIN, "read window here");
	t_assert_probe(o, T_RW, "other space still in guest mode");
	ua_user_read_access_end();
	ua_protect_lock(other);
	t_assert_probe(o, t_expect(other, T_LOCKED, PROT_READ | PROT_WRITE));
	ua_space_destroy(other);
}

/* Misuse of the transitions aborts with a message, in every build. */

static void lock_twice(void *arg)
{
	(void)arg;
	ua_protect_unlock(env.sp);
	ua_protect_lock(env.sp);
	ua_protect_lock(env.sp);
}

static void lock_without_unlock(void *arg)
{
	(void)arg;
	ua_protect_lock(env.sp);
}

static void unlock_twice(void *arg)
{
	(void)arg;
	ua_protect_unlock(env.sp);
	ua_protect_unlock(env.sp);
}

static void fold_without_window(void *arg)
{
	(void)arg;
	ua_protect_unlock_from_window(env.sp);
}

static void unlock_with_window_elsewhere(void *arg)
{
	struct ua_space *other = ua_space_create(1 << 16, NULL);

	(void)arg;
	cr_assert(ua_user_read_access_begin(env.buf, 8));
	ua_protect_unlock(other);
}

static void expect_misuse(void (*fn)(void *), const char *text)
{
	struct t_child c;

	t_child(fn, NULL, &c);
	cr_assert(t_died_of(&c, SIGABRT), "status %#x, stderr: %s", c.status,
		  c.err);
	cr_assert_not_null(strstr(c.err, text), "'%s' does not say '%s'", c.err,
			   text);
}

Test(modes, misuse_aborts)
{
	expect_misuse(lock_twice, "uaccess: ua_protect_lock: the thread is not "
				  "in guest mode on this space");
	expect_misuse(lock_without_unlock, "uaccess: ua_protect_lock: the "
					   "thread is not in guest mode");
	expect_misuse(unlock_twice, "uaccess: ua_protect_unlock: the thread is "
				    "already in guest mode");
	expect_misuse(fold_without_window, "uaccess: "
					   "ua_protect_unlock_from_window: no "
					   "window open on the space");
	expect_misuse(unlock_with_window_elsewhere,
		      "uaccess: ua_protect_unlock: a read window opened at");
}

/* Destroying a space drops the calling thread's window or guest mode on it. */
Test(modes, destroy_forgets_the_threads_modes)
{
	struct ua_space *a = ua_space_create(1 << 16, NULL);
	char *p;

	cr_assert_not_null(a);
	ua_protect_unlock(a);
	ua_space_destroy(a);
	/* Not in guest mode any more: unlocking another space works. */
	ua_protect_unlock(env.sp);
	check_pages(T_GUEST, "guest mode on the other space");
	ua_protect_lock(env.sp);
	a = ua_space_create(1 << 16, NULL);
	cr_assert_not_null(a);
	p = ua_map(a, NULL, T_PG, PROT_READ | PROT_WRITE);
	cr_assert_not_null(p);
	ua_space_use(a);
	cr_assert(ua_user_read_access_begin(p, 8));
	ua_space_destroy(a);
	/* No window any more: a new one opens. */
	ua_space_use(env.sp);
	ua_stats_reset();
	cr_assert_eq(ua_put_user(1u, (uint32_t *)env.buf), 0);
	t_assert_stats(2, 1, 0);
	check_pages(T_LOCKED, "locked after");
}
