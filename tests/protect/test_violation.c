// SPDX-License-Identifier: MIT
/*
 * Violation reports, each case in a child process of its own: a plain
 * load or store of guest memory outside a window, and a store inside a
 * read window, abort with the KUAP-style report under mprotect and pkey
 * (and go through under none, which protects nothing); accessors with an
 * exception-table entry are reported the same way when only the mode
 * forbade the access, and recovered when the guest mapping itself refuses
 * it.  Faults that are not violations go to the previous disposition.
 *
 * The unsafe accessors are used outside their windows on purpose here:
 * the debug checks would catch that first, so they are off in this file.
 */
#define UA_DEBUG_WINDOWS 0

#include <ctype.h>

#include "tprotect.h"

static struct t_env env;
static char *ro;

static void setup(void)
{
	t_env_setup(&env, 2);
	ro = ua_map(env.sp, (char *)ua_space_base(env.sp) + 4 * T_PG, T_PG,
		    PROT_READ);
	cr_assert_not_null(ro);
}

static void teardown(void)
{
	t_env_teardown(&env);
}

TestSuite(violation, .init = setup, .fini = teardown);

/*
 * The plain accesses live in functions of their own, not inlined and not
 * static, so the report's faulting instruction can be checked against
 * them and the call trace (the test is linked with -rdynamic) names them.
 */
__attribute__((noinline)) int t_plain_read(const volatile char *p)
{
	return *p;
}

__attribute__((noinline)) void t_plain_write(volatile char *p)
{
	*p = 1;
}

/* Only the report's own lines: sanitizer runtimes may add theirs. */
static bool protected(void)
{
	return !t_is(env.sp, UA_PROTECT_NONE);
}

static uintptr_t hex_after(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	cr_assert_not_null(p, "no '%s' in: %s", key, text);
	return (uintptr_t)strtoull(p + strlen(key), NULL, 16);
}

/*
 * Check a report: its first line for @what at @addr and @where ("outside
 * an access window" or "inside a read-only access window"), the faulting
 * instruction inside @fn, and a call trace naming @fn_name.
 */
static void check_report(const struct t_child *c, const char *what,
			 const void *addr, const char *where, void *fn,
			 const char *fn_name)
{
	char line[160];
	uintptr_t ip;

	cr_assert(t_died_of(c, SIGABRT), "must abort (status %#x): %s",
		  c->status, c->err);
	snprintf(line, sizeof(line),
		 "uaccess: monitor attempted to %s guest address %p %s "
		 "(protection: %s, thread ",
		 what, addr, where, ua_protect_name(ua_space_protect(env.sp)));
	cr_assert_not_null(strstr(c->err, line), "no '%s' in: %s", line,
			   c->err);
	ip = hex_after(c->err, "uaccess: faulting instruction at ");
	if (fn) {
		cr_assert(ip >= (uintptr_t)fn && ip < (uintptr_t)fn + 64,
			  "faulting instruction %#lx is not in %s at %p",
			  (unsigned long)ip, fn_name, fn);
	}
	cr_assert_not_null(strstr(c->err, "uaccess: call trace:\n"), "%s",
			   c->err);
	cr_assert_not_null(strstr(c->err, fn_name),
			   "call trace does not name %s: %s", fn_name, c->err);
}

static void check_no_report(const struct t_child *c)
{
	cr_assert(t_exited_ok(c), "must not die (status %#x): %s", c->status,
		  c->err);
	cr_assert_null(strstr(c->err, "monitor attempted"), "%s", c->err);
}

static void read_outside(void *arg)
{
	(void)arg;
	t_plain_read(env.buf + 5);
}

Test(violation, plain_read_outside_a_window)
{
	struct t_child c;

	t_child(read_outside, NULL, &c);
	if (!protected()) {
		check_no_report(&c);
		return;
	}
	check_report(&c, "read", env.buf + 5, "outside an access window",
		     (void *)t_plain_read, "t_plain_read");
	cr_assert_null(strstr(c.err, "exception-table"), "%s", c.err);
}

static void write_outside(void *arg)
{
	(void)arg;
	t_plain_write(env.buf + T_PG + 3);
}

Test(violation, plain_write_outside_a_window)
{
	struct t_child c;

	t_child(write_outside, NULL, &c);
	if (!protected()) {
		check_no_report(&c);
		return;
	}
	check_report(&c, "write", env.buf + T_PG + 3,
		     "outside an access window", (void *)t_plain_write,
		     "t_plain_write");
}

/* Right after a checked accessor: it left the space locked. */
static void read_after_accessor(void *arg)
{
	uint32_t v;

	(void)arg;
	if (ua_get_user(v, (uint32_t *)env.buf) || v)
		_exit(3);
	t_plain_read(env.buf);
}

Test(violation, plain_read_after_a_checked_accessor)
{
	struct t_child c;

	t_child(read_after_accessor, NULL, &c);
	if (!protected()) {
		check_no_report(&c);
		return;
	}
	check_report(&c, "read", env.buf, "outside an access window",
		     (void *)t_plain_read, "t_plain_read");
}

static void write_in_read_window(void *arg)
{
	(void)arg;
	if (!ua_user_read_access_begin(env.buf, 16))
		_exit(3);
	t_plain_read(env.buf + 8); /* allowed */
	t_plain_write(env.buf + 8);
	ua_user_read_access_end();
}

Test(violation, plain_write_inside_a_read_window)
{
	struct t_child c;

	t_child(write_in_read_window, NULL, &c);
	if (!protected()) {
		check_no_report(&c);
		return;
	}
	check_report(&c, "write", env.buf + 8,
		     "inside a read-only access window", (void *)t_plain_write,
		     "t_plain_write");
}

/* The accesses a window allows go through, plain or not. */
static void plain_inside_windows(void *arg)
{
	(void)arg;
	if (!ua_user_read_access_begin(env.buf, 16))
		_exit(3);
	t_plain_read(env.buf);
	ua_user_read_access_end();
	if (!ua_user_access_begin(env.buf, 16))
		_exit(3);
	t_plain_write(env.buf);
	t_plain_read(env.buf + T_PG);
	ua_user_access_end();
}

Test(violation, plain_access_inside_windows_is_fine)
{
	struct t_child c;

	t_child(plain_inside_windows, NULL, &c);
	check_no_report(&c);
	cr_assert_eq(c.err[0], 0, "%s", c.err);
}

static void plain_in_guest_mode(void *arg)
{
	(void)arg;
	ua_protect_unlock(env.sp);
	t_plain_write(env.buf);
	t_plain_read(ro);
	ua_protect_lock(env.sp);
}

Test(violation, plain_access_in_guest_mode_is_fine)
{
	struct t_child c;

	t_child(plain_in_guest_mode, NULL, &c);
	check_no_report(&c);
}

/*
 * Decision: an exception-table accessor that the mode alone stopped is a
 * violation too (x86 oopses on a SMAP fault even with a fixup): the fixup
 * would turn a window bug into a quiet -EFAULT.
 */
/*
 * The portable arch's accessors are calls: the faulting instruction is in
 * the library then, and only the call trace names the caller.
 */
#if UA_ARCH_HAS_INLINE_ACCESSORS
#define UNSAFE_IP(fn) ((void *)(fn))
#else
#define UNSAFE_IP(fn) NULL
#endif

__attribute__((noinline)) int t_unsafe_put(uint32_t *p)
{
	ua_unsafe_put_user(9u, p, fault);
	return 0;
fault:
	return -EFAULT;
}

__attribute__((noinline)) int t_unsafe_get(const uint32_t *p)
{
	uint32_t v;

	ua_unsafe_get_user(v, p, fault);
	return (int)v;
fault:
	return -EFAULT;
}

static void unsafe_put_in_read_window(void *arg)
{
	(void)arg;
	if (!ua_user_read_access_begin(env.buf, 16))
		_exit(3);
	if (t_unsafe_put((uint32_t *)(env.buf + 4)))
		_exit(4);
	ua_user_read_access_end();
}

Test(violation, unsafe_put_inside_a_read_window)
{
	struct t_child c;

	t_child(unsafe_put_in_read_window, NULL, &c);
	if (!protected()) {
		check_no_report(&c);
		return;
	}
	check_report(&c, "write", env.buf + 4,
		     "inside a read-only access window",
		     UNSAFE_IP(t_unsafe_put), "t_unsafe_put");
	cr_assert_not_null(strstr(c.err, "uaccess: the instruction has an "
					 "exception-table fixup; it is not "
					 "taken"),
			   "%s", c.err);
}

static void unsafe_get_outside(void *arg)
{
	(void)arg;
	if (t_unsafe_get((uint32_t *)env.buf) < 0)
		_exit(4);
}

Test(violation, unsafe_get_outside_a_window)
{
	struct t_child c;

	t_child(unsafe_get_outside, NULL, &c);
	if (!protected()) {
		check_no_report(&c);
		return;
	}
	check_report(&c, "read", env.buf, "outside an access window",
		     UNSAFE_IP(t_unsafe_get), "t_unsafe_get");
}

/*
 * Outside a window, but the access would fail inside the right window
 * too (nothing mapped; a read-only mapping): the fixup's -EFAULT is the
 * true answer, not a violation.
 */
static void unsafe_where_the_guest_refuses(void *arg)
{
	(void)arg;
	if (t_unsafe_get((uint32_t *)env.hole) != -EFAULT)
		_exit(4);
	if (t_unsafe_put((uint32_t *)ro) != -EFAULT)
		_exit(5);
}

Test(violation, unsafe_access_the_guest_refuses_is_recovered)
{
	struct t_child c;

	t_child(unsafe_where_the_guest_refuses, NULL, &c);
	check_no_report(&c);
}

/* Not guest memory: the guard gap after the limit is no violation. */
static void read_guard(void *arg)
{
	(void)arg;
	t_plain_read(ua_space_limit(env.sp));
}

Test(violation, plain_read_of_the_guard_gap_is_a_plain_crash)
{
	struct t_child c;

	t_child(read_guard, NULL, &c);
	cr_assert(t_crashed(&c), "status %#x: %s", c.status, c.err);
	cr_assert_null(strstr(c.err, "monitor attempted"), "%s", c.err);
}

/* A plain read of an unmapped guest page outside a window: reported. */
static void read_unmapped(void *arg)
{
	(void)arg;
	t_plain_read(env.hole);
}

Test(violation, plain_read_of_an_unmapped_guest_page)
{
	struct t_child c;

	t_child(read_unmapped, NULL, &c);
	if (!protected()) {
		/* Under none it is an ordinary fault: the default action. */
		cr_assert(t_crashed(&c), "status %#x: %s", c.status, c.err);
		cr_assert_null(strstr(c.err, "monitor attempted"), "%s", c.err);
		return;
	}
	check_report(&c, "read", env.hole, "outside an access window",
		     (void *)t_plain_read, "t_plain_read");
}

/* A second thread that never opened anything is locked out too. */
static void *thread_read(void *arg)
{
	t_plain_read(arg);
	return NULL;
}

static void read_from_other_thread(void *arg)
{
	pthread_t t;

	(void)arg;
	pthread_create(&t, NULL, thread_read, env.buf + 100);
	pthread_join(t, NULL);
}

Test(violation, plain_read_from_another_thread)
{
	struct t_child c;

	t_child(read_from_other_thread, NULL, &c);
	if (!protected()) {
		check_no_report(&c);
		return;
	}
	check_report(&c, "read", env.buf + 100, "outside an access window",
		     (void *)t_plain_read, "t_plain_read");
}
