// SPDX-License-Identifier: MIT
/*
 * Task life cycle: create, run, exit statuses, the task layer's own
 * syscalls, protection switch counts, and bad input.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ttask.h"

TestSuite(task_basic, .init = t_skip_if_unavailable);

/* ---- capturing what the library writes on stderr ---- */

static int saved_fd2 = -1;
static FILE *capture;

static void capture_begin(void)
{
	fflush(stderr);
	capture = tmpfile();
	cr_assert_not_null(capture);
	saved_fd2 = dup(2);
	cr_assert_geq(saved_fd2, 0);
	cr_assert_geq(dup2(fileno(capture), 2), 0);
}

/* The text written to fd 2 since capture_begin(), NUL-terminated. */
static char *capture_end(void)
{
	static char buf[4096];
	size_t n;

	fflush(stderr);
	dup2(saved_fd2, 2);
	close(saved_fd2);
	rewind(capture);
	n = fread(buf, 1, sizeof(buf) - 1, capture);
	buf[n] = 0;
	fclose(capture);
	return buf;
}

/* ---- exit statuses ---- */

Test(task_basic, task_that_returns_exits_0)
{
	struct ua_space *sp = tt_space();

	tt_assert_exited(tt_run(sp, tt_guest_return, NULL), 0);
	ua_space_destroy(sp);
}

static void guest_exit(void *arg)
{
	ua_sys_exit((int)(intptr_t)arg);
}

static void exit_nested(int depth)
{
	volatile char pad[256];

	pad[0] = 9;
	if (depth < 0)
		return;
	/* An exit from deep inside: the frames above are simply dropped. */
	if (depth == 0)
		ua_sys_exit(pad[0]);
	exit_nested(depth - 1);
	pad[1] = pad[0];
}

static void guest_exit_nested(void *arg)
{
	exit_nested((int)(intptr_t)arg);
}

Test(task_basic, sys_exit_status)
{
	struct ua_space *sp = tt_space();

	tt_assert_exited(tt_run(sp, guest_exit, (void *)7), 7);
	tt_assert_exited(tt_run(sp, guest_exit, (void *)0), 0);
	/* As for exit(2): only the low 8 bits are kept. */
	tt_assert_exited(tt_run(sp, guest_exit, (void *)(256 + 3)), 3);
	tt_assert_exited(tt_run(sp, guest_exit, (void *)-1), 255);
	tt_assert_exited(tt_run(sp, guest_exit_nested, (void *)20), 9);
	ua_space_destroy(sp);
}

static struct ua_task *seen_task;
static struct ua_space *seen_space;

static void guest_whoami(void *arg)
{
	(void)arg;
	seen_task = ua_current_task();
	seen_space = ua_current_space();
}

Test(task_basic, current_task_and_space)
{
	struct ua_space *sp = tt_space(), *other = tt_space();
	struct ua_task *t = tt_task(sp, guest_whoami, NULL);

	cr_assert_eq(ua_task_space(t), sp);
	ua_space_use(other);
	cr_assert_null(ua_current_task());
	tt_assert_exited(ua_task_run(t), 0);
	cr_assert_eq(seen_task, t);
	cr_assert_eq(seen_space, sp, "the task's space is current in guest");
	cr_assert_eq(ua_current_space(), other, "previous space restored");
	cr_assert_null(ua_current_task());
	ua_task_destroy(t);
	ua_space_use(NULL);
	ua_space_destroy(other);
	ua_space_destroy(sp);
}

/* ---- the task layer's syscalls ---- */

static pid_t got_pid, got_tid;

static void guest_ids(void *arg)
{
	(void)arg;
	got_pid = ua_sys_getpid();
	got_tid = ua_sys_gettid();
}

Test(task_basic, getpid_is_the_monitors)
{
	struct ua_space *sp = tt_space();

	got_pid = 0;
	tt_assert_exited(tt_run(sp, guest_ids, NULL), 0);
	cr_assert_eq(got_pid, getpid());
	ua_space_destroy(sp);
}

Test(task_basic, gettid_unique_per_task)
{
	struct ua_space *sp = tt_space();
	struct ua_task *t[8];
	pid_t tids[8];

	for (int i = 0; i < 8; i++)
		t[i] = tt_task(sp, guest_ids, NULL);
	/* Run in reverse: the id belongs to the task, not to the run order. */
	for (int i = 7; i >= 0; i--) {
		got_tid = 0;
		tt_assert_exited(ua_task_run(t[i]), 0);
		tids[i] = got_tid;
		cr_assert_eq(tids[i], ua_task_tid(t[i]), "task %d", i);
		cr_assert_gt(tids[i], 0);
	}
	for (int i = 0; i < 8; i++) {
		for (int j = 0; j < i; j++)
			cr_assert_neq(tids[i], tids[j], "tasks %d and %d", i, j);
		ua_task_destroy(t[i]);
	}
	ua_space_destroy(sp);
}

static long raw_ret[6];
static int errno_after;

static void guest_unknown(void *arg)
{
	(void)arg;
	errno = 1234;
	raw_ret[0] = ua__syscall(999, 1, 2, 3, 4, 5);
	raw_ret[1] = ua__syscall(UA_NR_MAX, 0, 0, 0, 0, 0);
	raw_ret[2] = ua__syscall(UA_NR_MAX - 1, 0, 0, 0, 0, 0);
	raw_ret[3] = ua__syscall(-1, 0, 0, 0, 0, 0);
	raw_ret[4] = ua__syscall(LONG_MIN, 0, 0, 0, 0, 0);
	raw_ret[5] = ua__syscall(UA_NR_nop, 0, 0, 0, 0, 0);
	errno_after = errno;
}

Test(task_basic, unknown_syscall_is_enosys)
{
	struct ua_space *sp = tt_space();

	tt_assert_exited(tt_run(sp, guest_unknown, NULL), 0);
	for (int i = 0; i < 5; i++)
		cr_assert_eq(raw_ret[i], -ENOSYS, "call %d: %ld", i, raw_ret[i]);
	cr_assert_eq(raw_ret[5], 0);
	cr_assert_eq(errno_after, 1234, "the raw call leaves errno alone");
	ua_space_destroy(sp);
}

Test(task_basic, syscall_outside_a_task_is_eperm)
{
	struct ua_space *sp = tt_space();

	/* Monitor code is not guest code: refused, and nothing is touched. */
	cr_assert_eq(ua__syscall(UA_NR_nop, 0, 0, 0, 0, 0), -EPERM);
	errno = 0;
	cr_assert_eq(ua_sys_nop(), -1);
	cr_assert_eq(errno, EPERM);
	errno = 0;
	cr_assert_eq(ua_sys_getpid(), -1);
	cr_assert_eq(errno, EPERM);
	/* Guest mode without a task (t_guest_begin) is no task either. */
	ua_space_use(sp);
	t_guest_begin(sp);
	cr_assert_eq(ua__syscall(UA_NR_gettid, 0, 0, 0, 0, 0), -EPERM);
	t_guest_end(sp);
	ua_space_use(NULL);
	/* And the task layer still works afterwards. */
	tt_assert_exited(tt_run(sp, guest_exit, (void *)5), 5);
	ua_space_destroy(sp);
}

/* ---- protection switch counts ---- */

#define NOPS 1000
static struct ua_stats in_guest[2];
static uint64_t per_call_max, per_call_min;

static void guest_count(void *arg)
{
	struct ua_stats a, b;

	(void)arg;
	ua_stats_get(&in_guest[0]);
	per_call_min = UINT64_MAX;
	per_call_max = 0;
	for (int i = 0; i < NOPS; i++) {
		uint64_t d;

		ua_stats_get(&a);
		ua_sys_nop();
		ua_stats_get(&b);
		d = b.switches - a.switches;
		per_call_min = d < per_call_min ? d : per_call_min;
		per_call_max = d > per_call_max ? d : per_call_max;
	}
	ua_stats_get(&in_guest[1]);
}

Test(task_basic, switch_counts_null_syscall)
{
	struct ua_space *sp = tt_space();
	struct ua_task *t = tt_task(sp, guest_count, NULL);
	struct ua_stats before, after;

	ua_stats_reset();
	ua_stats_get(&before);
	tt_assert_exited(ua_task_run(t), 0);
	ua_stats_get(&after);
	/* Exactly 2 per null syscall: lock on entry, unlock on exit. */
	cr_assert_eq(per_call_min, 2);
	cr_assert_eq(per_call_max, 2);
	/* The guest's counters are the thread's: it runs on this thread. */
	cr_assert_eq(in_guest[0].switches - before.switches, 1,
		     "start: one unlock into guest mode");
	cr_assert_eq(in_guest[1].switches - in_guest[0].switches,
		     2 * NOPS + 0, "%llu",
		     (unsigned long long)(in_guest[1].switches -
					  in_guest[0].switches));
	cr_assert_eq(after.switches - in_guest[1].switches, 1,
		     "exit: one lock (the exit syscall's entry)");
	cr_assert_eq(after.switches - before.switches, 2 + 2 * NOPS);
	cr_assert_eq(after.windows, before.windows, "no window opened");
	cr_assert_eq(after.fixups, before.fixups);
	ua_task_destroy(t);
	ua_space_destroy(sp);
}

Test(task_basic, switch_counts_start_and_exit)
{
	struct ua_space *sp = tt_space();
	struct ua_stats st;

	/* A task that returns: unlock at start, lock in ua_sys_exit(0). */
	ua_stats_reset();
	tt_assert_exited(tt_run(sp, tt_guest_return, NULL), 0);
	ua_stats_get(&st);
	cr_assert_eq(st.switches, 2);
	cr_assert_eq(st.windows, 0);
	/* ua_sys_exit(7): the same two. */
	ua_stats_reset();
	tt_assert_exited(tt_run(sp, guest_exit, (void *)7), 7);
	ua_stats_get(&st);
	cr_assert_eq(st.switches, 2);
	ua_space_destroy(sp);
}

/* ---- bad input ---- */

Test(task_basic, create_bad_input)
{
	struct ua_space *sp = tt_space();
	struct ua_task_opts o = { 0 };

	errno = 0;
	cr_assert_null(ua_task_create(sp, NULL, NULL, NULL));
	cr_assert_eq(errno, EINVAL);
	errno = 0;
	cr_assert_null(ua_task_create(NULL, tt_guest_return, NULL, NULL));
	cr_assert_eq(errno, EINVAL);
	o.stack_size = UA_TASK_MIN_STACK - 1;
	errno = 0;
	cr_assert_null(ua_task_create(sp, tt_guest_return, NULL, &o));
	cr_assert_eq(errno, EINVAL);
	o.stack_size = 4096;
	errno = 0;
	cr_assert_null(ua_task_create(sp, tt_guest_return, NULL, &o));
	cr_assert_eq(errno, EINVAL);
	o.stack_size = 0;
	o.frame_mode = (enum ua_frame_mode)99;
	errno = 0;
	cr_assert_null(ua_task_create(sp, tt_guest_return, NULL, &o));
	cr_assert_eq(errno, EINVAL);
	o.frame_mode = (enum ua_frame_mode)-1;
	errno = 0;
	cr_assert_null(ua_task_create(sp, tt_guest_return, NULL, &o));
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(ua_task_run(NULL), -EINVAL);
	ua_task_destroy(NULL);
	ua_space_destroy(sp);
}

Test(task_basic, smallest_stack_works)
{
	struct ua_space *sp = tt_space();
	struct ua_task_opts o = { .stack_size = UA_TASK_MIN_STACK };
	struct ua_task *t = ua_task_create(sp, guest_exit, (void *)4, &o);

	cr_assert_not_null(t, "errno %d", errno);
	tt_assert_exited(ua_task_run(t), 4);
	ua_task_destroy(t);
	/* Not a page multiple: rounded up. */
	o.stack_size = UA_TASK_MIN_STACK + 1;
	t = ua_task_create(sp, guest_exit, (void *)6, &o);
	cr_assert_not_null(t, "errno %d", errno);
	tt_assert_exited(ua_task_run(t), 6);
	ua_task_destroy(t);
	ua_space_destroy(sp);
}

Test(task_basic, stack_that_does_not_fit)
{
	struct ua_space *sp = ua_space_create(1 << 20, NULL);
	struct ua_task_opts o = { 0 };
	size_t sizes[] = { 1 << 20, (1 << 20) - 1, 2 << 20, SIZE_MAX,
			   SIZE_MAX - 4095, (size_t)1 << 62 };

	cr_assert_not_null(sp);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		o.stack_size = sizes[i];
		errno = 0;
		cr_assert_null(ua_task_create(sp, tt_guest_return, NULL, &o),
			       "stack of %zu bytes", sizes[i]);
		cr_assert_eq(errno, ENOMEM, "stack of %zu: errno %d", sizes[i],
			     errno);
	}
	/* Largest that fits: the space less the guard page. */
	o.stack_size = (1 << 20) - 4096;
	{
		struct ua_task *t = ua_task_create(sp, guest_exit, (void *)2, &o);

		cr_assert_not_null(t, "errno %d", errno);
		tt_assert_exited(ua_task_run(t), 2);
		ua_task_destroy(t);
	}
	/* A full space has no room for any stack. */
	cr_assert_not_null(ua_map(sp, NULL, 1 << 20, PROT_READ | PROT_WRITE));
	errno = 0;
	cr_assert_null(ua_task_create(sp, tt_guest_return, NULL, NULL));
	cr_assert_eq(errno, ENOMEM);
	ua_space_destroy(sp);
}

Test(task_basic, run_twice_is_ebusy)
{
	struct ua_space *sp = tt_space();
	struct ua_task *t = tt_task(sp, guest_exit, (void *)3);

	tt_assert_exited(ua_task_run(t), 3);
	cr_assert_eq(ua_task_run(t), -EBUSY);
	cr_assert_eq(ua_task_run(t), -EBUSY);
	ua_task_destroy(t);
	ua_space_destroy(sp);
}

static struct ua_task *other_task;
static int nested_run[2];

static void guest_runs_task(void *arg)
{
	(void)arg;
	/* Guest code calling the monitor's API: the thread is busy. */
	nested_run[0] = ua_task_run(other_task);
	nested_run[1] = ua_task_run(ua_current_task());
}

Test(task_basic, run_from_inside_a_guest_is_ebusy)
{
	struct ua_space *sp = tt_space();
	struct ua_task *t;

	other_task = tt_task(sp, guest_exit, (void *)8);
	t = tt_task(sp, guest_runs_task, NULL);
	tt_assert_exited(ua_task_run(t), 0);
	cr_assert_eq(nested_run[0], -EBUSY);
	cr_assert_eq(nested_run[1], -EBUSY);
	/* The other task was left untouched and still runs normally. */
	tt_assert_exited(ua_task_run(other_task), 8);
	ua_task_destroy(t);
	ua_task_destroy(other_task);
	ua_space_destroy(sp);
}

Test(task_basic, space_destroy_refused_while_task_lives)
{
	struct ua_space *sp = tt_space();
	void *base = ua_space_base(sp);
	struct ua_task *t = tt_task(sp, guest_exit, (void *)11);
	char *msg;

	capture_begin();
	errno = 0;
	cr_assert_eq(ua_space_destroy(sp), -EBUSY);
	msg = capture_end();
	cr_assert_eq(errno, EBUSY);
	cr_assert(strstr(msg, "1 task not destroyed (0 still running)"),
		  "message: '%s'", msg);
	/* Still there: the task runs in it. */
	cr_assert_eq(ua_space_find(base), sp);
	tt_assert_exited(ua_task_run(t), 11);
	/* An exited but not destroyed task still holds the space. */
	capture_begin();
	errno = 0;
	cr_assert_eq(ua_space_destroy(sp), -EBUSY);
	msg = capture_end();
	cr_assert_eq(errno, EBUSY);
	cr_assert(strstr(msg, "1 task not destroyed (0 still running)"),
		  "message: '%s'", msg);
	cr_assert_eq(ua_space_find(base), sp);
	ua_task_destroy(t);
	cr_assert_eq(ua_space_destroy(sp), 0);
	cr_assert_null(ua_space_find(base));
}

Test(task_basic, frame_mode_from_environment)
{
	struct ua_space *sp = tt_space();
	struct ua_task_opts o = { 0 };
	struct ua_task *t;
	char *msg;

	setenv("UA_FRAME_MODE", "bogus", 1);
	capture_begin();
	errno = 0;
	t = ua_task_create(sp, tt_guest_return, NULL, NULL);
	msg = capture_end();
	cr_assert_null(t);
	cr_assert_eq(errno, EINVAL);
	cr_assert(strstr(msg, "UA_FRAME_MODE='bogus'"), "message: '%s'", msg);
	cr_assert(strstr(msg, "block") && strstr(msg, "per-access"),
		  "the message names the accepted values: '%s'", msg);
	/* An explicit mode does not read the environment. */
	o.frame_mode = UA_FRAME_BLOCK;
	t = ua_task_create(sp, tt_guest_return, NULL, &o);
	cr_assert_not_null(t);
	ua_task_destroy(t);
	o.frame_mode = UA_FRAME_PER_ACCESS;
	t = ua_task_create(sp, tt_guest_return, NULL, &o);
	cr_assert_not_null(t);
	ua_task_destroy(t);
	const char *good[] = { "block", "per-access", "" };

	for (size_t i = 0; i < 3; i++) {
		setenv("UA_FRAME_MODE", good[i], 1);
		t = ua_task_create(sp, tt_guest_return, NULL, NULL);
		cr_assert_not_null(t, "UA_FRAME_MODE='%s'", good[i]);
		tt_assert_exited(ua_task_run(t), 0);
		ua_task_destroy(t);
	}
	unsetenv("UA_FRAME_MODE");
	ua_space_destroy(sp);
}

/* ---- the guard page below the stack ---- */

static void guest_overflow(void *arg);

static volatile int overflow_forever = 1;

static int recurse(int depth)
{
	volatile char frame[512];

	frame[0] = (char)depth;
	if (overflow_forever)
		return recurse(depth + 1) + frame[0];
	return frame[0];
}

static void guest_overflow(void *arg)
{
	(void)arg;
	recurse(0);
}

Test(task_basic, guard_page_stays_reserved)
{
	/* A small space: the stack, its guard, and everything else mapped. */
	struct ua_space *sp = ua_space_create(1 << 20, NULL);
	struct ua_task_opts o = { .stack_size = 64 << 10 };
	struct ua_task *t;
	char *pages[256], buf[4096];
	int n = 0;

	cr_assert_not_null(sp);
	t = ua_task_create(sp, guest_overflow, NULL, &o);
	cr_assert_not_null(t);
	/* Fill every gap with one-page mappings, first fit. */
	while (n < 256 && (pages[n] = ua_map(sp, NULL, 4096,
					     PROT_READ | PROT_WRITE)))
		n++;
	cr_assert_eq(n, 256 - 16 - 1, "%d pages: the guard was handed out", n);
	ua_space_use(sp);
	for (int i = 0; i < n; i++)
		t_fill(pages[i], 0x5a, 4096);
	tt_assert_killed(ua_task_run(t), SIGSEGV);
	for (int i = 0; i < n; i++) {
		t_peek(buf, pages[i], 4096);
		for (int j = 0; j < 4096; j++)
			cr_assert_eq(buf[j], 0x5a, "page %p byte %d", pages[i],
				     j);
	}
	ua_space_use(NULL);
	ua_task_destroy(t);
	ua_space_destroy(sp);
}
