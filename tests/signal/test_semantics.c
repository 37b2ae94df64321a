// SPDX-License-Identifier: MIT
/*
 * Signal semantics of the engine that the differential suite cannot
 * show on the host (or shows only in part): default actions and their
 * wait status (no core-dump bit: no core file is written), queueing
 * limits, sending between tasks and from the monitor,
 * wake-ups of blocked tasks from other threads, and the engine's own
 * numbering (signals 32 and 33 are usable: no libc reserves them).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tsig.h"

/* src/task/task.c: the id the next task takes, hidden in the library. */
extern atomic_int ua__next_tid;

TestSuite(sig_sem, .init = t_skip_if_unavailable, .timeout = 60);

static int run(t_body body, void *arg)
{
	return t_run_engine(body, arg, NULL, NULL);
}

/* ---- default actions ---- */

static void body_raise_then_exit(struct t_run *r)
{
	ua_sys_raise((int)(intptr_t)r->arg);
	ua_sys_exit(7);
}

Test(sig_sem, default_terminate)
{
	static const int sigs[] = { SIGHUP,  SIGINT,    SIGUSR1, SIGUSR2,
				    SIGPIPE, SIGALRM,   SIGTERM, SIGSTKFLT,
				    SIGVTALRM, SIGPROF, SIGIO,   SIGPWR,
				    32,      33,        50,      64 };

	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		int st = run(body_raise_then_exit, (void *)(intptr_t)sigs[i]);

		t_assert_status_sig(st, sigs[i]);
		cr_expect(!WCOREDUMP(st), "signal %d: no core", sigs[i]);
	}
}

Test(sig_sem, default_core)
{
	static const int sigs[] = { SIGQUIT, SIGILL,  SIGTRAP, SIGABRT, SIGBUS,
				    SIGFPE,  SIGSEGV, SIGXCPU, SIGXFSZ, SIGSYS };

	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		int st = run(body_raise_then_exit, (void *)(intptr_t)sigs[i]);

		/* Core-kind, but the engine writes no core file: the wait
		 * status has no core-dump bit, as the host's has none
		 * when no core is written (ulimit -c 0). */
		t_assert_status_sig(st, sigs[i]);
		cr_expect(!WCOREDUMP(st), "signal %d: core-dump bit", sigs[i]);
	}
}

Test(sig_sem, default_ignore_and_no_job_control)
{
	/* Stop signals do nothing: the engine has no job control. */
	static const int sigs[] = { SIGCHLD, SIGURG,  SIGWINCH, SIGCONT,
				    SIGSTOP, SIGTSTP, SIGTTIN,  SIGTTOU };

	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		t_assert_status_exit(run(body_raise_then_exit,
					 (void *)(intptr_t)sigs[i]),
				     7);
}

static void body_kill_blocked(struct t_run *r)
{
	sigset_t all;

	(void)r;
	sigfillset(&all);
	ua_sys_sigprocmask(SIG_SETMASK, &all, NULL);
	ua_sys_raise(SIGKILL);
	ua_sys_exit(7);
}

Test(sig_sem, sigkill_cannot_be_blocked)
{
	int st = run(body_kill_blocked, NULL);

	t_assert_status_sig(st, SIGKILL);
	cr_expect(!WCOREDUMP(st));
}

static void body_ignored(struct t_run *r)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };

	(void)r;
	ua_sys_sigaction(SIGTERM, &ign, NULL);
	ua_sys_raise(SIGTERM);
	ua_sys_exit(7);
}

Test(sig_sem, sig_ign)
{
	t_assert_status_exit(run(body_ignored, NULL), 7);
}

/* ---- queueing ---- */

static struct {
	int sig[200], code[200], value[200], pid[200];
	int n;
	int ret[8], err[8];
	uint64_t pending;
} q;

static void h_count(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (q.n < 200) {
		q.sig[q.n] = sig;
		q.code[q.n] = si->si_code;
		q.value[q.n] = si->si_value.sival_int;
		q.pid[q.n] = si->si_pid;
		q.n++;
	}
}

static void body_coalesce(struct t_run *r)
{
	sigset_t p;

	(void)r;
	t_install(SIGUSR1, h_count, 0, 0);
	t_install(40, h_count, 0, 0);
	t_setmask(BIT(SIGUSR1) | BIT(40));
	for (int i = 0; i < 5; i++) {
		ua_sys_raise(SIGUSR1);
		t_queue(40, 100 + i);
	}
	ua_sys_kill(0, 40); /* SI_USER, queued after the others */
	ua_sys_sigpending(&p);
	q.pending = t_sigset64(&p);
	t_setmask(0);
}

Test(sig_sem, standard_coalesce_rt_queue_in_order)
{
	memset(&q, 0, sizeof(q));
	t_assert_status_exit(run(body_coalesce, NULL), 0);
	cr_expect_eq(q.pending, BIT(SIGUSR1) | BIT(40));
	/* Nested: the RT handlers run first, the last one queued first. */
	cr_assert_eq(q.n, 7);
	cr_expect_eq(q.sig[0], 40);
	cr_expect_eq(q.sig[6], SIGUSR1, "one SIGUSR1 for five raises");
	/* RT: each instance with its own siginfo, FIFO (each handler
	 * blocks 40, so the next one waits for its sigreturn). */
	for (int i = 0; i < 5; i++) {
		cr_expect_eq(q.sig[i], 40);
		cr_expect_eq(q.code[i], SI_QUEUE);
		cr_expect_eq(q.value[i], 100 + i);
	}
	cr_expect_eq(q.code[5], SI_USER);
	cr_expect_eq(q.pid[5], getpid());
}

static void body_queue_limit(struct t_run *r)
{
	siginfo_t info;
	int i;

	(void)r;
	t_install(40, h_count, 0, 0);
	t_setmask(BIT(40));
	for (i = 0; i < UA_SIGQUEUE_MAX; i++)
		if (t_queue(40, i))
			break;
	q.ret[0] = i;
	/* The queue is full: rt_sigqueueinfo fails, nothing is lost. */
	memset(&info, 0, sizeof(info));
	info.si_code = SI_QUEUE;
	info.si_value.sival_int = 999;
	errno = 0;
	q.ret[1] = ua_sys_rt_sigqueueinfo(0, 40, &info);
	q.err[1] = errno;
	/* The monitor side gets -EAGAIN the same way (queue_hook). */
	ua_sys_nop();
	/* kill() cannot fail: the signal is pending without its siginfo. */
	q.ret[3] = ua_sys_kill(0, 40);
	t_setmask(0);
}

static bool queue_hook(struct ua_task *t, struct ua_pt_regs *regs, void *d)
{
	(void)d;
	if (regs->orig_rax == UA_NR_nop)
		q.ret[2] = ua_task_sigqueue(t, 40,
					    (union sigval){ .sival_int = 998 });
	return false;
}

Test(sig_sem, rt_queue_limit)
{
	memset(&q, 0, sizeof(q));
	t_assert_status_exit(t_run_engine(body_queue_limit, NULL, queue_hook,
					  NULL),
			     0);
	cr_expect_eq(q.ret[0], UA_SIGQUEUE_MAX);
	cr_expect_eq(q.ret[1], -1);
	cr_expect_eq(q.err[1], EAGAIN);
	cr_expect_eq(q.ret[2], -EAGAIN);
	cr_expect_eq(q.ret[3], 0);
	cr_assert_eq(q.n, UA_SIGQUEUE_MAX + 1);
	for (int i = 0; i < UA_SIGQUEUE_MAX; i++) {
		cr_expect_eq(q.code[i], SI_QUEUE);
		cr_expect_eq(q.value[i], i);
	}
	/* The overflow instance: SI_USER with no sender, as the kernel's. */
	cr_expect_eq(q.code[UA_SIGQUEUE_MAX], SI_USER);
	cr_expect_eq(q.pid[UA_SIGQUEUE_MAX], 0);
}

static void guest_nop(void *arg)
{
	(void)arg;
	ua_sys_nop();
}

Test(sig_sem, monitor_send_bad_arguments)
{
	struct ua_space *sp = ua_space_create((size_t)4 << 20, NULL);
	struct ua_task *t = ua_task_create(sp, guest_nop, NULL, NULL);

	cr_assert_not_null(t);
	cr_expect_eq(ua_task_kill(t, 0), 0);
	cr_expect_eq(ua_task_kill(t, -1), -EINVAL);
	cr_expect_eq(ua_task_kill(t, 65), -EINVAL);
	cr_expect_eq(ua_task_kill(NULL, SIGUSR1), -EINVAL);
	cr_expect_eq(ua_task_sigqueue(t, 0, (union sigval){ 0 }), -EINVAL);
	cr_expect_eq(ua_task_sigqueue(t, 65, (union sigval){ 0 }), -EINVAL);
	t_assert_status_exit(ua_task_run(t), 0);
	/* An exited task takes no more signals. */
	cr_expect_eq(ua_task_kill(t, 0), -ESRCH);
	cr_expect_eq(ua_task_kill(t, SIGUSR1), -ESRCH);
	cr_expect_eq(ua_task_sigqueue(t, 40, (union sigval){ 0 }), -ESRCH);
	ua_task_destroy(t);
	ua_space_destroy(sp);
}

/* ---- sending to other tasks ---- */

static struct ua_task *peer;
static pid_t peer_tid;
static int peer_ready;

static struct {
	int sig, code, pid, value, ret, err;
} peer_got;

static void h_peer(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	peer_got.sig = sig;
	peer_got.code = si->si_code;
	peer_got.pid = si->si_pid;
	peer_got.value = si->si_value.sival_int;
}

/* The peer, on its own thread: a handler for 40, then wait for it. */
static void peer_main(void *arg)
{
	struct sigaction sa = { .sa_sigaction = h_peer,
				.sa_flags = SA_SIGINFO };
	sigset_t none;

	(void)arg;
	ua_sys_sigaction(40, &sa, NULL);
	sigemptyset(&none);
	sigaddset(&none, 40);
	ua_sys_sigprocmask(SIG_SETMASK, &none, NULL);
	__atomic_store_n(&peer_ready, 1, __ATOMIC_RELEASE);
	sigemptyset(&none);
	errno = 0;
	peer_got.ret = ua_sys_sigsuspend(&none);
	peer_got.err = errno;
}

static void *peer_thread(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)ua_task_run(peer);
}

static void body_send(struct t_run *r)
{
	siginfo_t info;
	pid_t me = ua_sys_gettid(), other = ua_task_tid(peer);

	(void)r;
	while (!__atomic_load_n(&peer_ready, __ATOMIC_ACQUIRE))
		sched_yield();
	memset(&info, 0, sizeof(info));
	errno = 0;
	q.ret[0] = ua_sys_kill(999999, SIGUSR1);
	q.err[0] = errno;
	q.ret[1] = ua_sys_tgkill(ua_sys_getpid(), 0, SIGUSR1);
	q.err[1] = errno;
	q.ret[2] = ua_sys_kill(other, 65);
	q.err[2] = errno;
	/* Only the kernel may claim SI_USER or SI_TKILL towards another. */
	info.si_code = SI_USER;
	q.ret[3] = ua_sys_rt_sigqueueinfo(other, SIGUSR1, &info);
	q.err[3] = errno;
	info.si_code = SI_TKILL;
	q.ret[4] = ua_sys_rt_sigqueueinfo(other, SIGUSR1, &info);
	q.err[4] = errno;
	/* Towards itself it may. */
	t_install(SIGUSR2, h_count, 0, 0);
	info.si_code = SI_USER;
	info.si_pid = 4242;
	q.ret[5] = ua_sys_rt_sigqueueinfo(me, SIGUSR2, &info);
	/* Signal 0 checks only. */
	q.ret[6] = ua_sys_kill(other, 0);
	/* A real one wakes the peer out of its sigsuspend. */
	info.si_code = SI_QUEUE;
	info.si_value.sival_int = 31337;
	q.ret[7] = ua_sys_rt_sigqueueinfo(other, 40, &info);
}

static void send_between_tasks(void)
{
	struct ua_space *sp = ua_space_create((size_t)4 << 20, NULL);
	pthread_t th;
	void *st;

	cr_assert_not_null(sp);
	peer = ua_task_create(sp, peer_main, NULL, NULL);
	cr_assert_not_null(peer);
	peer_tid = ua_task_tid(peer);
	peer_ready = 0;
	memset(&q, 0, sizeof(q));
	memset(&peer_got, 0, sizeof(peer_got));
	cr_assert_eq(pthread_create(&th, NULL, peer_thread, NULL), 0);
	t_assert_status_exit(run(body_send, NULL), 0);
	pthread_join(th, &st);
	t_assert_status_exit((int)(intptr_t)st, 0);
	cr_expect_eq(q.err[0], ESRCH);
	cr_expect_eq(q.err[1], EINVAL);
	cr_expect_eq(q.err[2], EINVAL);
	cr_expect_eq(q.ret[3], -1);
	cr_expect_eq(q.err[3], EPERM);
	cr_expect_eq(q.err[4], EPERM);
	cr_expect_eq(q.ret[5], 0);
	cr_expect_eq(q.n, 1);
	cr_expect_eq(q.code[0], SI_USER);
	cr_expect_eq(q.pid[0], 4242, "a caller-made siginfo is kept");
	cr_expect_eq(q.ret[6], 0);
	cr_expect_eq(q.ret[7], 0);
	cr_expect_eq(peer_got.sig, 40);
	cr_expect_eq(peer_got.code, SI_QUEUE);
	cr_expect_eq(peer_got.value, 31337);
	cr_expect_eq(peer_got.ret, -1);
	cr_expect_eq(peer_got.err, EINTR);
	/* Gone now. */
	cr_expect_eq(ua_task_kill(peer, 0), -ESRCH);
	ua_task_destroy(peer);
	ua_space_destroy(sp);
}

Test(sig_sem, kill_and_sigqueue_between_tasks)
{
	send_between_tasks();
}

/*
 * The monitor's pid names the caller: a task must never take it as its
 * id, or the others could not signal it (host pids wrap round to the
 * thousands the ids start at).
 */
Test(sig_sem, task_ids_skip_the_monitor_pid)
{
	atomic_store(&ua__next_tid, getpid());
	send_between_tasks();
	cr_expect_neq(peer_tid, getpid());
}

/* A signal pending before the task starts is delivered as it starts. */
static void never_runs(void *arg)
{
	(void)arg;
	ua_sys_exit(9);
}

Test(sig_sem, pending_at_start)
{
	struct ua_space *sp = ua_space_create((size_t)4 << 20, NULL);
	struct ua_task *t = ua_task_create(sp, never_runs, NULL, NULL);

	cr_assert_not_null(t);
	cr_expect_eq(ua_task_kill(t, SIGTERM), 0);
	t_assert_status_sig(ua_task_run(t), SIGTERM);
	ua_task_destroy(t);
	ua_space_destroy(sp);
}

/* ---- handler entry without SA_SIGINFO ---- */

static struct {
	long si_off, uc_off;
	int sig;
} plain;

static void h_plain(int sig, siginfo_t *si, void *uc)
{
	plain.sig = sig;
	plain.si_off = (long)((uintptr_t)si - t_entry.rsp);
	plain.uc_off = (long)((uintptr_t)uc - t_entry.rsp);
}

static void body_plain(struct t_run *r)
{
	struct sigaction sa;

	(void)r;
	memset(&sa, 0, sizeof(sa));
	t_handlers[SIGUSR1] = h_plain;
	/* A one-argument handler: rsi and rdx still point into the frame. */
	sa.sa_handler = (void (*)(int))(void *)t_tramp;
	ua_sys_sigaction(SIGUSR1, &sa, NULL);
	ua_sys_raise(SIGUSR1);
}

Test(sig_sem, handler_without_siginfo_gets_frame_pointers)
{
	memset(&plain, 0, sizeof(plain));
	t_assert_status_exit(run(body_plain, NULL), 0);
	cr_expect_eq(plain.sig, SIGUSR1);
	cr_expect_eq(plain.si_off, 312);
	cr_expect_eq(plain.uc_off, 8);
}

/* ---- wake-ups from other threads ---- */

struct waker {
	struct ua_task *t;
	pid_t host_tid;
	int what;
	int *word;
	pthread_t th;
};

static struct {
	int ret, err, runs;
	uint64_t after;
} w;

static void h_wake(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	w.runs++;
}

static pid_t task_thread_tid;

static void *waker_main(void *arg)
{
	struct waker *k = arg;

	/* Once the task sleeps in the monitor (a futex wait on its
	 * condition variable), act on it from this thread. */
	while (!__atomic_load_n(&task_thread_tid, __ATOMIC_ACQUIRE))
		sched_yield();
	t_wait_blocked_in_futex(task_thread_tid);
	switch (k->what) {
	case 0:
	case 3:
		ua_task_kill(k->t, SIGUSR1);
		break;
	case 1:
		ua_task_sigqueue(k->t, 40, (union sigval){ .sival_int = 5 });
		break;
	case 2:
		/* The word changes, then the wake. */
		ua_space_use(ua_task_space(k->t));
		if (ua_put_user(1, k->word))
			abort();
		ua_space_use(NULL);
		ua_task_wake(k->t);
		break;
	}
	return NULL;
}

static void body_wait(struct t_run *r)
{
	struct waker *k = r->arg;
	sigset_t m;

	t_install(SIGUSR1, h_wake, 0, 0);
	t_install(40, h_wake, 0, 0);
	sigemptyset(&m);
	if (k->what == 1 || k->what == 3)
		t_setmask(BIT(SIGUSR1) | BIT(SIGUSR2));
	*(int *)r->mem = 0;
	errno = 0;
	/* From here the waker may act: the next sleep is the wait. */
	__atomic_store_n(&task_thread_tid, (pid_t)syscall(SYS_gettid),
			 __ATOMIC_RELEASE);
	if (k->what == 1 || k->what == 3)
		w.ret = ua_sys_sigsuspend(&m);
	else
		w.ret = ua_sys_futex_wait((int *)r->mem, 0);
	w.err = errno;
	w.after = t_getmask();
}

static bool start_waker(struct ua_task *t, struct ua_pt_regs *regs, void *d)
{
	struct waker *k = d;

	/* The first syscall: the task is known, start the other thread. */
	if (!k->t) {
		k->t = t;
		k->word = (int *)t_cur->mem;
		if (pthread_create(&k->th, NULL, waker_main, k))
			k->t = NULL;
	}
	(void)regs;
	return false;
}

static void check_wait(int what)
{
	struct waker k = { .what = what };

	memset(&w, 0, sizeof(w));
	task_thread_tid = 0;
	t_assert_status_exit(t_run_engine(body_wait, &k, start_waker, &k), 0);
	cr_assert_not_null(k.t, "waker thread not started");
	pthread_join(k.th, NULL);
}

Test(sig_sem, task_kill_wakes_futex_wait)
{
	check_wait(0);
	cr_expect_eq(w.runs, 1);
	cr_expect_eq(w.ret, -1);
	cr_expect_eq(w.err, EINTR);
}

Test(sig_sem, task_sigqueue_wakes_sigsuspend)
{
	check_wait(1);
	cr_expect_eq(w.runs, 1);
	cr_expect_eq(w.ret, -1);
	cr_expect_eq(w.err, EINTR);
	cr_expect_eq(w.after, BIT(SIGUSR1) | BIT(SIGUSR2), "mask restored");
}

Test(sig_sem, task_kill_wakes_sigsuspend)
{
	check_wait(3);
	cr_expect_eq(w.runs, 1);
	cr_expect_eq(w.ret, -1);
	cr_expect_eq(w.err, EINTR);
	cr_expect_eq(w.after, BIT(SIGUSR1) | BIT(SIGUSR2), "mask restored");
}

Test(sig_sem, task_wake_ends_futex_wait)
{
	check_wait(2);
	cr_expect_eq(w.runs, 0);
	cr_expect_eq(w.ret, 0);
}

static void body_futex_values(struct t_run *r)
{
	int *word = (int *)r->mem;

	*word = 5;
	errno = 0;
	w.ret = ua_sys_futex_wait(word, 4);
	w.err = errno;
	w.runs = ua_sys_futex_wait((int *)8, 0) == -1 && errno == EFAULT;
}

Test(sig_sem, futex_wait_value_mismatch_and_fault)
{
	memset(&w, 0, sizeof(w));
	t_assert_status_exit(run(body_futex_values, NULL), 0);
	cr_expect_eq(w.ret, -1);
	cr_expect_eq(w.err, EAGAIN);
	cr_expect_eq(w.runs, 1);
}

/* ---- bad pointers from guest code ---- */

static void body_efault(struct t_run *r)
{
	static char monitor_buf[256];
	void *bad[] = { NULL, (void *)8, monitor_buf, r->mem + T_MEM };
	int n = 0;

	(void)r;
	for (unsigned i = 1; i < 4; i++) {
		errno = 0;
		/* Raw: the wrapper itself reads the glibc struct. */
		n += ua_syscall(UA_NR_rt_sigaction, SIGUSR1, (long)bad[i], 0,
				 8, 0) == -EFAULT;
		n += ua_sys_sigprocmask(SIG_BLOCK, bad[i], NULL) == -1 &&
		     errno == EFAULT;
		n += ua_sys_sigprocmask(SIG_BLOCK, NULL, bad[i]) == -1 &&
		     errno == EFAULT;
		n += ua_sys_sigpending(bad[i]) == -1 && errno == EFAULT;
		n += ua_sys_sigsuspend(bad[i]) == -1 && errno == EFAULT;
		n += ua_sys_sigaltstack(bad[i], NULL) == -1 && errno == EFAULT;
		n += ua_sys_sigaltstack(NULL, bad[i]) == -1 && errno == EFAULT;
		n += ua_sys_rt_sigqueueinfo(0, SIGUSR1, bad[i]) == -1 &&
		     errno == EFAULT;
		n += ua_sys_swapcontext(bad[i], NULL) == -1 && errno == EFAULT;
		n += ua_sys_swapcontext(NULL, bad[i]) == -1 && errno == EFAULT;
	}
	w.runs = n;
	for (unsigned i = 0; i < sizeof(monitor_buf); i++)
		w.ret |= monitor_buf[i];
}

Test(sig_sem, monitor_and_bad_pointers_are_efault)
{
	memset(&w, 0, sizeof(w));
	t_assert_status_exit(run(body_efault, NULL), 0);
	cr_expect_eq(w.runs, 30, "%d of 30 calls failed with EFAULT", w.runs);
	cr_expect_eq(w.ret, 0, "monitor memory untouched");
}
