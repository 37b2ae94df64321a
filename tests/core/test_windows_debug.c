// SPDX-License-Identifier: MIT
/*
 * Window discipline checks of debug builds (doc/design.md §4.4), compiled in
 * with -DUA_DEBUG_WINDOWS=1: every misuse aborts with a message that names
 * the file and line of the offending access.  Each misuse runs in a forked
 * child whose stderr is read back; correct use must not trip the checks.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tcore.h"

#if !UA_DEBUG_WINDOWS
#error "this suite must be compiled with -DUA_DEBUG_WINDOWS=1"
#endif

static struct t_env env;

static void setup(void)
{
	t_env_setup(&env, T_PAGES);
}

static void teardown(void)
{
	t_env_teardown(&env);
}

TestSuite(windows_debug, .init = setup, .fini = teardown);

/*
 * Shared with the child: the line of the misuse it is about to commit, and
 * one more line number a misuse may want to report.
 */
static volatile int *shared;
#define bad_line (shared[0])
#define aux_line (shared[1])

#define AT(stmt)                     \
	do {                         \
		bad_line = __LINE__; \
		stmt;                \
	} while (0)

/*
 * Run fn in a child with stderr captured; it must die of SIGABRT with a
 * message containing "<this file>:<line of the misuse>: " and what.
 */
static void expect_abort(void (*fn)(void), const char *what)
{
	char out[4096], want[512];
	size_t len = 0;
	int pfd[2], st;
	ssize_t n;
	pid_t pid;

	if (!shared) {
		shared = mmap(NULL, 2 * sizeof(int), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		cr_assert_neq((void *)shared, MAP_FAILED);
	}
	bad_line = aux_line = -1;
	cr_assert_eq(pipe(pfd), 0);
	fflush(NULL);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (!pid) {
		signal(SIGABRT, SIG_DFL);
		dup2(pfd[1], 2);
		close(pfd[0]);
		fn();
		_exit(0);
	}
	close(pfd[1]);
	while (len < sizeof(out) - 1 &&
	       (n = read(pfd[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = 0;
	close(pfd[0]);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT,
		  "the misuse must abort (status %#x); stderr: %s", st, out);
	cr_assert_gt(bad_line, 0);
	snprintf(want, sizeof(want), "%s:%d: ", __FILE__, bad_line);
	cr_assert_not_null(strstr(out, want), "'%s' does not name '%s'", out,
			   want);
	cr_assert_not_null(strstr(out, what), "'%s' does not say '%s'", out,
			   what);
}

static void get_outside_window(void)
{
	uint32_t v;

	AT(ua_unsafe_get_user(v, (uint32_t *)env.buf, fault));
	(void)v;
fault:
	return;
}

static void put_outside_window(void)
{
	AT(ua_unsafe_put_user(1, (uint64_t *)env.buf, fault));
fault:
	return;
}

static void copy_outside_window(void)
{
	char d[32];

	AT(ua_unsafe_copy_from_user(d, env.buf, sizeof(d), fault));
fault:
	return;
}

static void get_after_end(void)
{
	uint8_t v;

	if (!ua_user_read_access_begin(env.buf, 1))
		return;
	ua_user_read_access_end();
	AT(ua_unsafe_get_user(v, (uint8_t *)env.buf, fault));
	(void)v;
fault:
	return;
}

Test(windows_debug, access_outside_a_window)
{
	expect_abort(get_outside_window, "outside a user access window");
	expect_abort(put_outside_window, "outside a user access window");
	expect_abort(copy_outside_window, "outside a user access window");
	expect_abort(get_after_end, "outside a user access window");
}

static void get_past_range(void)
{
	uint8_t v;

	if (!ua_user_read_access_begin(env.buf, 8))
		return;
	AT(ua_unsafe_get_user(v, (uint8_t *)(env.buf + 8), fault));
	(void)v;
fault:
	return;
}

static void get_straddling_end(void)
{
	uint64_t v;

	if (!ua_user_read_access_begin(env.buf, 8))
		return;
	AT(ua_unsafe_get_user(v, (uint64_t *)(env.buf + 1), fault));
	(void)v;
fault:
	return;
}

static void put_before_range(void)
{
	if (!ua_user_write_access_begin(env.buf + 8, 8))
		return;
	AT(ua_unsafe_put_user(1, (uint16_t *)(env.buf + 7), fault));
fault:
	return;
}

static void copy_past_range(void)
{
	char s[16] = { 0 };

	if (!ua_user_write_access_begin(env.buf, 15))
		return;
	AT(ua_unsafe_copy_to_user(env.buf, s, sizeof(s), fault));
fault:
	return;
}

Test(windows_debug, access_outside_the_begin_range)
{
	expect_abort(get_past_range, "outside the range");
	expect_abort(get_straddling_end, "outside the range");
	expect_abort(put_before_range, "outside the range");
	expect_abort(copy_past_range, "outside the range");
}

static void put_in_read_window(void)
{
	if (!ua_user_read_access_begin(env.buf, 8))
		return;
	AT(ua_unsafe_put_user(1, (uint32_t *)env.buf, fault));
fault:
	return;
}

static void copy_to_in_read_window(void)
{
	char s[8] = { 0 };

	if (!ua_user_read_access_begin(env.buf, 8))
		return;
	AT(ua_unsafe_copy_to_user(env.buf, s, 8, fault));
fault:
	return;
}

static void get_in_write_window(void)
{
	uint32_t v;

	if (!ua_user_write_access_begin(env.buf, 8))
		return;
	AT(ua_unsafe_get_user(v, (uint32_t *)env.buf, fault));
	(void)v;
fault:
	return;
}

Test(windows_debug, wrong_direction)
{
	expect_abort(put_in_read_window, "unsafe write inside a read window");
	expect_abort(copy_to_in_read_window,
		     "unsafe write inside a read window");
	expect_abort(get_in_write_window, "unsafe read inside a write window");
}

static void nested_begin(void)
{
	bool ok;

	aux_line = __LINE__ + 1;
	ok = ua_user_read_access_begin(env.buf, 8);
	if (ok)
		AT((void)!ua_user_access_begin(env.buf, 8));
}

static void nested_scoped(void)
{
	if (!ua_user_write_access_begin(env.buf, 8))
		return;
	AT(ua_scoped_user_read_access((uint64_t *)env.buf, fault) {});
fault:
	return;
}

Test(windows_debug, nested_begin)
{
	char first[512];

	expect_abort(nested_begin, "nested user access window");
	/* The report also names where the open window was begun. */
	snprintf(first, sizeof(first), "read window opened at %s:%d", __FILE__,
		 aux_line);
	expect_abort(nested_begin, first);
	expect_abort(nested_scoped, "nested user access window");
}

static void end_without_begin(void)
{
	AT(ua_user_read_access_end());
}

static void end_twice(void)
{
	if (!ua_user_access_begin(env.buf, 8))
		return;
	ua_user_access_end();
	AT(ua_user_access_end());
}

static void end_after_failed_begin(void)
{
	char mon[8] = { 0 };

	if (ua_user_write_access_begin(mon, sizeof(mon)))
		return;
	AT(ua_user_write_access_end());
}

static void end_of_other_kind(void)
{
	if (!ua_user_read_access_begin(env.buf, 8))
		return;
	AT(ua_user_write_access_end());
}

Test(windows_debug, end_without_begin)
{
	expect_abort(end_without_begin, "closed without begin");
	expect_abort(end_twice, "closed without begin");
	expect_abort(end_after_failed_begin, "closed without begin");
	expect_abort(end_of_other_kind, "closed as a write window");
}

/*
 * Criterion's own signal expectation, for the plainest misuse.  No space
 * is needed, so this suite has no init and runs under every backend.
 */
Test(windows_debug_signal, end_without_begin, .signal = SIGABRT)
{
	ua_user_access_end();
}

/* Correct use never trips the checks, faults included. */
Test(windows_debug, correct_use_passes)
{
	unsigned char s[64], d[64];
	uint64_t v = 0;
	int faults = 0;

	t_pat_fill(s, sizeof(s), 0);
	cr_assert(ua_user_access_begin(env.buf, 64));
	ua_unsafe_copy_to_user(env.buf, s, 64, fault);
	ua_unsafe_put_user(7, (uint8_t *)(env.buf + 63), fault);
	ua_unsafe_get_user(v, (uint64_t *)(env.buf + 56), fault);
	ua_unsafe_copy_from_user(d, env.buf, 64, fault);
	ua_user_access_end();
	cr_assert_eq(memcmp(d, s, 63), 0);
	cr_assert_eq(d[63], 7);
	cr_assert_eq(v >> 56, 7);
	/* A fault inside the range: the window stays open for end. */
	cr_assert(ua_user_read_access_begin(env.hole - 4, 8));
	ua_unsafe_get_user(v, (uint64_t *)(env.hole - 4), rfault);
	cr_assert_fail("crosses the hole");
rfault:
	faults++;
	ua_user_read_access_end();
	/* A refused begin leaves no window behind: a new one may open. */
	cr_assert_not(ua_user_read_access_begin(s, 8));
	cr_assert(ua_user_read_access_begin(env.buf, 8));
	ua_user_read_access_end();
	/* Scoped forms, through every exit. */
	ua_scoped_user_write_access((uint32_t *)env.buf, fault) {
		ua_unsafe_put_user(3, (uint32_t *)env.buf, fault);
	}
	ua_scoped_user_read_access_size(env.hole - 2, 4, sfault) {
		ua_unsafe_get_user(v, (uint32_t *)(env.hole - 2), sfault);
	}
	cr_assert_fail("crosses the hole");
sfault:
	faults++;
	ua_scoped_user_rw_access_size(env.buf, 8, fault) {
		ua_unsafe_get_user(v, (uint32_t *)env.buf, fault);
		break;
	}
	cr_assert_eq(v, 3);
	cr_assert_eq(faults, 2);
	/* The checked accessors are unaffected. */
	cr_assert_eq(ua_put_user(9, (uint16_t *)env.buf), 0);
	return;
fault:
	cr_assert_fail("unexpected fault");
}
