// SPDX-License-Identifier: MIT
/*
 * Threads: clone with CLONE_VM | CLONE_THREAD, exit and exit_group, the
 * thread ids and the thread-group rules of signals (kernel/fork.c,
 * kernel/exit.c, kernel/signal.c).
 *
 * A thread is a task of its own (src/task/task.c ua__task_clone()) run
 * by a host thread of its own, in the process's space: its registers,
 * FS base, signal mask, pending signals and alternate stack are its
 * own; the dispositions, the descriptors, the mappings and the rest of
 * struct lx_proc are the process's.  Its id is its host thread's id,
 * which no other process or thread on the host has; the first thread's
 * is the process's pid, as under the kernel.
 *
 * How a process ends: exit() ends the calling thread (clearing and
 * waking its CLONE_CHILD_CLEARTID word, as mm_release() does); a first
 * thread that exits so waits for the others before its task ends, since
 * its end is the process's.  exit_group() or a fatal signal in any
 * thread ends them all with that status: the others get SIGKILL, which
 * each takes at its next way back to guest code (or wake-up), and end
 * with the group's status.  While a process has several threads the
 * calls that change its shared state are serialised (table.c).
 */
#include <linux/sched.h>
#include <linux/futex.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "linux_internal.h"

/* What glibc's and musl's pthread_create() pass, and what may go with. */
#define THREAD_NEED                                                       \
	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD)
#define THREAD_OK                                                         \
	(THREAD_NEED | CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID | \
	 CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID | CLONE_DETACHED)

/*
 * How long a group exit waits for threads stuck in a host call (a loaded
 * machine may take a while to schedule the others' way out).
 */
#define GROUP_EXIT_WAIT_S 5

void ua__lx_proc_threads_init(struct lx_proc *p)
{
	pthread_mutex_init(&p->tlock, NULL);
	pthread_cond_init(&p->tcond, NULL);
	pthread_mutex_init(&p->big, NULL);
	p->threads = NULL;
	p->threads_cap = 0;
	atomic_store(&p->nthreads, 0);
	atomic_store(&p->big_owner, 0);
	p->leader = NULL;
	p->group_exiting = false;
	p->group_status = 0;
	p->gone = NULL;
	atomic_store(&p->ngone, 0);
	p->gone_cap = 0;
}

void ua__lx_proc_threads_free(struct lx_proc *p)
{
	ua__lx_reap(p);
	free(p->threads);
	p->threads = NULL;
}

/*
 * The calling host thread, whose guest thread is ending, to be joined
 * by the next ua__lx_reap().  Under tlock.  Without room it is
 * detached: nothing then waits for its end.
 */
static void gone_add_locked(struct lx_proc *p)
{
	size_t n = atomic_load(&p->ngone);

	if (n == p->gone_cap) {
		size_t cap = p->gone_cap ? 2 * p->gone_cap : 8;
		pthread_t *g = realloc(p->gone, cap * sizeof(*g));

		if (!g) {
			pthread_detach(pthread_self());
			return;
		}
		p->gone = g;
		p->gone_cap = cap;
	}
	p->gone[n] = pthread_self();
	atomic_store(&p->ngone, n + 1);
}

/*
 * Join the host threads of the guest threads that have ended.  A guest
 * thread's pthread_join() returns at its child-tid wake, while its host
 * thread still leaves the group, frees its task and runs the C
 * library's (and a sanitizer's) thread exit, under their locks: a fork
 * at that moment gives the child those locks held, and it hangs on
 * them.  So fork, clone and the process's end first wait for those
 * host threads to be gone.  Their guest threads have ended: the wait is
 * short and needs no lock the caller holds (fork and clone run outside
 * the big lock, table.c).
 */
void ua__lx_reap(struct lx_proc *p)
{
	pthread_t *g;
	size_t n;

	if (!atomic_load(&p->ngone))
		return;
	pthread_mutex_lock(&p->tlock);
	g = p->gone;
	n = atomic_load(&p->ngone);
	p->gone = NULL;
	atomic_store(&p->ngone, 0);
	p->gone_cap = 0;
	pthread_mutex_unlock(&p->tlock);
	for (size_t i = 0; i < n; i++) {
		if (pthread_equal(g[i], pthread_self()))
			pthread_detach(g[i]);
		else
			pthread_join(g[i], NULL);
	}
	free(g);
}

void ua__lx_big_lock(struct lx_proc *p)
{
	pthread_mutex_lock(&p->big);
	atomic_store(&p->big_owner, gettid());
}

void ua__lx_big_unlock(struct lx_proc *p)
{
	atomic_store(&p->big_owner, 0);
	pthread_mutex_unlock(&p->big);
}

pid_t ua__lx_tid(struct ua_task *t)
{
	pid_t tid = t->lx ? lx_thr(t)->tid : 0;

	return tid ? tid : ua__monitor_pid();
}

static int group_add_locked(struct lx_proc *p, struct ua_task *t)
{
	if (p->nthreads == p->threads_cap) {
		size_t cap = p->threads_cap ? p->threads_cap * 2 : 8;
		struct ua_task **v = realloc(p->threads, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->threads = v;
		p->threads_cap = cap;
	}
	p->threads[p->nthreads] = t;
	atomic_fetch_add(&p->nthreads, 1);
	return 0;
}

static void group_del_locked(struct lx_proc *p, struct ua_task *t)
{
	for (size_t i = 0; i < p->nthreads; i++) {
		if (p->threads[i] != t)
			continue;
		p->threads[i] = p->threads[p->nthreads - 1];
		atomic_fetch_sub(&p->nthreads, 1);
		break;
	}
	pthread_cond_broadcast(&p->tcond);
}

/*
 * The first thread's task is destroyed while threads remain: those that
 * a group exit did not see end within GROUP_EXIT_WAIT_S (stuck in a
 * host call that no signal ends).  They still lock and read p, so p is
 * left to them, without its first thread, until the process ends.
 */
bool ua__lx_proc_orphan(struct lx_proc *p, struct ua_task *t)
{
	bool others;

	if (!atomic_load(&p->nthreads))
		return false;
	pthread_mutex_lock(&p->tlock);
	group_del_locked(p, t);
	if (p->leader == t)
		p->leader = NULL;
	others = p->nthreads > 0;
	pthread_mutex_unlock(&p->tlock);
	return others;
}

/* What kill() and tgkill() tell the receiver about their sender. */
void ua__lx_sender_info(siginfo_t *info, int sig, int code)
{
	memset(info, 0, sizeof(*info));
	info->si_signo = sig;
	info->si_code = code;
	info->si_pid = ua__monitor_pid();
	info->si_uid = getuid();
}

/* zap_other_threads(): SIGKILL to every thread but t.  Under tlock. */
static void kill_others_locked(struct lx_proc *p, struct ua_task *t)
{
	siginfo_t info;

	ua__lx_sender_info(&info, SIGKILL, SI_KERNEL);
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i] != t)
			ua__sig_send(p->threads[i], SIGKILL, &info, false);
}

/* The first thread's end is the process's: the others go first. */
static void wait_alone_locked(struct lx_proc *p, bool bounded)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += GROUP_EXIT_WAIT_S;
	while (p->nthreads > 1) {
		if (!bounded) {
			pthread_cond_wait(&p->tcond, &p->tlock);
			if (p->group_exiting)
				bounded = true;
			continue;
		}
		if (pthread_cond_timedwait(&p->tcond, &p->tlock, &until))
			break;
	}
}

/*
 * mm_release(): the CLONE_CHILD_CLEARTID word becomes 0 and one waiter
 * on it wakes (pthread_join()).  A fault is ignored, as the kernel does.
 */
static void clear_child_tid(struct ua_task *t)
{
	struct lx_thread *th = lx_thr(t);
	uint64_t addr = th->clear_child_tid;

	if (!addr)
		return;
	th->clear_child_tid = 0;
	if (!ua_put_user(0, (int *)addr))
		ua__lx_futex_wake(addr, 1);
}

/* include/uapi/linux/futex.h struct robust_list_head. */
struct lx_robust_head {
	uint64_t next;
	int64_t futex_offset;
	uint64_t list_op_pending;
};

#define ROBUST_LIST_LIMIT 2048

/*
 * exit_robust_list(): every robust mutex the thread still holds is
 * marked FUTEX_OWNER_DIED and a waiter woken, the one it was taking or
 * dropping (list_op_pending) too.  Entries carry the PI flag in bit 0.
 * A list that faults or loops ends the walk, as with the kernel.
 */
static void exit_robust_list(struct ua_task *t)
{
	struct lx_thread *th = lx_thr(t);
	uint64_t head = th->robust_list, entry, next, pending;
	pid_t tid = ua__lx_tid(t);
	struct lx_robust_head h;
	unsigned int limit = ROBUST_LIST_LIMIT;

	th->robust_list = 0;
	if (!head || ua_copy_from_user(&h, (void *)head, sizeof(h)))
		return;
	entry = h.next;
	pending = h.list_op_pending;
	while ((entry & ~1ull) != head) {
		if (ua_get_user(next, (const uint64_t *)(entry & ~1ull)))
			return;
		if ((entry & ~1ull) != (pending & ~1ull))
			ua__lx_futex_owner_died((entry & ~1ull) +
							(uint64_t)h.futex_offset,
						tid, entry & 1, false);
		entry = next;
		if (!--limit)
			break;
	}
	if (pending & ~1ull)
		ua__lx_futex_owner_died((pending & ~1ull) +
						(uint64_t)h.futex_offset,
					tid, pending & 1, true);
}

/*
 * ua__task_exit()'s hook for every task of a process that has had
 * threads or a robust list: the status the task ends with.
 */
static int thread_exit(struct ua_task *t, int wstatus)
{
	struct lx_proc *p = lx_proc(t);
	struct lx_thread *th = lx_thr(t);

	/* A call that ended the task under the big lock lets it go. */
	if (atomic_load(&p->big_owner) == gettid())
		ua__lx_big_unlock(p);
	exit_robust_list(t);
	/* exit_signals(): what it would have taken goes to another. */
	if (th->thread_exit)
		ua__lx_retarget(t, ~atomic_load(&sigstate(t)->blocked));
	/*
	 * The others are told before the child-tid wake can let them on,
	 * and this host thread is on gone before a joiner can fork.
	 */
	pthread_mutex_lock(&p->tlock);
	if (th->joinable) {
		th->joinable = false;
		gone_add_locked(p);
	}
	if (!th->thread_exit && !p->group_exiting) {
		p->group_exiting = true;
		p->group_status = wstatus;
		kill_others_locked(p, t);
	}
	pthread_mutex_unlock(&p->tlock);
	clear_child_tid(t);
	pthread_mutex_lock(&p->tlock);
	if (t == p->leader)
		wait_alone_locked(p, p->group_exiting);
	if (p->group_exiting)
		wstatus = p->group_status;
	pthread_mutex_unlock(&p->tlock);
	return wstatus;
}

static void thread_free(struct ua_task *t)
{
	struct lx_thread *th = t->lx_thread;

	ua__lx_sigfd_forget(t);
	if (th)
		free(th->iobuf);
	free(th);
	t->lx_thread = NULL;
	t->lx = NULL;
}

struct start {
	struct ua_task *t;
	sem_t ready, go;
	bool abort;
	sigset_t mask;
};

/*
 * The host thread of a guest thread.  Its host signal mask is the
 * creator's without what a trapped syscall or a fault must deliver (the
 * creator may be inside a SIGSYS handler, with SIGSYS blocked).
 */
static void *thread_main(void *arg)
{
	struct start *st = arg;
	struct ua_task *t = st->t;
	struct lx_proc *p = lx_proc(t);
	static const int need[] = { SIGSYS, SIGSEGV, SIGBUS, SIGILL,
				    SIGFPE, SIGTRAP };
	sigset_t mask = st->mask;
	int status, irq = ua_interrupt_signal();
	bool abort_run;

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		sigdelset(&mask, need[i]);
	if (irq > 0)
		sigdelset(&mask, irq);
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
	lx_thr(t)->tid = gettid();
	t->tid = lx_thr(t)->tid;
	sem_post(&st->ready);
	while (sem_wait(&st->go) && errno == EINTR)
		;
	abort_run = st->abort;
	/*
	 * Never in the group: gone before the creator goes on, or a group
	 * exit could see every thread gone and end the process's space
	 * with this task still in it.
	 */
	if (abort_run)
		ua_task_destroy(t);
	else
		lx_thr(t)->joinable = true;
	/* The creator's st is gone after this. */
	sem_post(&st->ready);
	if (abort_run) {
		pthread_detach(pthread_self());
		return NULL;
	}
	status = ua_task_run(t);
	if (status < 0)
		ua__write_str(2, "uaccess: a guest thread could not run\n");
	/* Gone from the group and destroyed at once: the first thread may
	 * be waiting to end the process, and its space, as soon as it sees
	 * the group smaller. */
	pthread_mutex_lock(&p->tlock);
	/* A run that ended without thread_exit() (it could not start). */
	if (lx_thr(t)->joinable)
		gone_add_locked(p);
	group_del_locked(p, t);
	p->signals_gone += ua_task_signals_delivered(t);
	ua_task_destroy(t);
	pthread_mutex_unlock(&p->tlock);
	return NULL;
}

static void say_once(bool *said, const char *what)
{
	if (*said)
		return;
	*said = true;
	ua__write_str(2, what);
}

static int check_flags(uint64_t flags)
{
	static bool said_flags;

	if ((flags & THREAD_NEED) != THREAD_NEED || (flags & ~THREAD_OK)) {
		say_once(&said_flags,
			 "uaccess: clone of a thread that does not share "
			 "files, fs, signal handlers and memory, or with "
			 "namespaces: not supported (ENOSYS)\n");
		return -ENOSYS;
	}
	return 0;
}

/* The task and host thread of a new thread, started but held at go. */
static struct ua_task *new_thread(struct ua_task *t, struct start *st)
{
	struct lx_thread *th = calloc(1, sizeof(*th));
	struct ua_task *c = NULL;
	pthread_t pt;

	if (!th)
		return NULL;
	th->iobuf = malloc(LX_CHUNK);
	if (th->iobuf)
		c = ua__task_clone(t);
	if (!c) {
		free(th->iobuf);
		free(th);
		return NULL;
	}
	c->lx = t->lx;
	c->lx_thread = th;
	c->lx_free = thread_free;
	c->lx_exit = thread_exit;
	ua__sig_clone(t, c);
	st->t = c;
	pthread_sigmask(SIG_BLOCK, NULL, &st->mask);
	/* Joinable: ua__lx_reap() waits for its end (gone_add_locked()). */
	if (pthread_create(&pt, NULL, thread_main, st)) {
		ua_task_destroy(c);
		return NULL;
	}
	while (sem_wait(&st->ready) && errno == EINTR)
		;
	return c;
}

long ua__lx_clone_thread(struct ua_task *t, struct ua_pt_regs *r,
			 uint64_t flags, uintptr_t stack, uintptr_t parent_tid,
			 uintptr_t child_tid, uintptr_t tls)
{
	struct lx_proc *p = lx_proc(t);
	struct start st = { 0 };
	struct ua_task *c;
	long err;
	pid_t tid;

	err = check_flags(flags);
	if (err)
		return err;
	ua__lx_reap(p);
	pthread_mutex_lock(&p->tlock);
	/* The first clone makes the caller the group's first thread. */
	if (!p->nthreads) {
		p->leader = t;
		t->lx_exit = thread_exit;
		t->lx_sig_group = ua__lx_signal_group;
		err = group_add_locked(p, t);
	}
	if (p->group_exiting)
		err = -EAGAIN;
	pthread_mutex_unlock(&p->tlock);
	if (err)
		return err;
	p->trace_pids = true;
	sem_init(&st.ready, 0, 0);
	sem_init(&st.go, 0, 0);
	c = new_thread(t, &st);
	if (!c) {
		err = -EAGAIN;
		goto out;
	}
	tid = lx_thr(c)->tid;
	/* The child's registers: the caller's, returning 0 on its stack. */
	c->regs = *r;
	c->regs.rax = 0;
	c->regs.orig_rax = (uint64_t)-1;
	if (stack)
		c->regs.rsp = stack;
	if (flags & CLONE_SETTLS)
		c->tb.guest_fs = tls;
	if (flags & CLONE_CHILD_CLEARTID)
		lx_thr(c)->clear_child_tid = child_tid;
	/* copy_process() writes both before either side goes on. */
	if (flags & CLONE_PARENT_SETTID)
		ua_put_user((int)tid, (int *)parent_tid);
	if (flags & CLONE_CHILD_SETTID)
		ua_put_user((int)tid, (int *)child_tid);
	pthread_mutex_lock(&p->tlock);
	if (p->group_exiting || group_add_locked(p, c))
		st.abort = true;
	pthread_mutex_unlock(&p->tlock);
	err = st.abort ? -EAGAIN : tid;
	sem_post(&st.go);
	while (sem_wait(&st.ready) && errno == EINTR)
		;
out:
	sem_destroy(&st.ready);
	sem_destroy(&st.go);
	return err;
}

/* The child of a fork by any thread: it alone goes on, as the first. */
void ua__lx_threads_after_fork(struct ua_task *t)
{
	struct lx_proc *p = lx_proc(t);
	struct lx_thread *th = lx_thr(t);

	if (!p)
		return;
	ua__lx_futex_after_fork();
	/* copy_process(): a child starts with no robust list. */
	th->robust_list = 0;
	/*
	 * Whether or not threads remain.  A thread whose guest thread has
	 * ended (and its joiner gone on to fork) leaves the group and frees
	 * its task under tlock: a fork then finds no thread in the group
	 * and tlock held, which the child, left with the first thread's
	 * exit (thread_exit()), would wait for at its end for good.
	 */
	/* Its own record becomes the first thread's; its tid is the pid. */
	if (t->lx_thread) {
		p->first.clear_child_tid = th->clear_child_tid;
		p->first.thread_exit = false;
		free(p->first.iobuf);
		p->first.iobuf = th->iobuf;
		free(th);
		t->lx_thread = NULL;
		t->lx_free = ua__lx_free;
		t->patch_shared = false;
	}
	p->first.tid = 0;
	free(p->threads);
	/* The parent's host threads: none of them is in this process. */
	free(p->gone);
	ua__lx_proc_threads_init(p);
	t->lx_exit = NULL;
	t->lx_sig_group = NULL;
}

/* The task of the guest's tid in t's process, or NULL.  Under tlock. */
static struct ua_task *by_tid_locked(struct lx_proc *p, pid_t tid)
{
	for (size_t i = 0; i < p->nthreads; i++)
		if (ua__lx_tid(p->threads[i]) == tid)
			return p->threads[i];
	return NULL;
}

/* tgkill() and tkill() within the process that has several threads. */
long ua__lx_signal_thread(struct ua_task *t, pid_t tid, int sig,
			  const siginfo_t *info)
{
	struct lx_proc *p = lx_proc(t);
	struct ua_task *to;
	long ret = 0;

	if (sig < 0 || sig > UA_NSIG)
		return -EINVAL;
	pthread_mutex_lock(&p->tlock);
	to = by_tid_locked(p, tid);
	if (!to || ua__task_gone(to))
		ret = -ESRCH;
	else if (sig)
		ret = ua__sig_send(to, sig, info, info->si_code < 0 &&
						      info->si_code != SI_TKILL);
	pthread_mutex_unlock(&p->tlock);
	return ret;
}

/*
 * wants_signal(): a thread that does not block sig, or that waits for it
 * in rt_sigtimedwait (the kernel unblocks the set while it waits).
 */
static bool wants(struct ua_task *t, int sig)
{
	struct ua_sigstate *s = sigstate(t);
	uint64_t bit = SIGBIT(sig);

	return (!(atomic_load(&s->blocked) & bit) ||
		(atomic_load(&s->waiting) & bit)) &&
	       !lx_thr(t)->thread_exit && !ua__task_gone(t);
}

/* complete_signal()'s choice: the first thread if it wants sig, else the
 * first that does; NULL if every thread blocks it.  Under tlock. */
static struct ua_task *taker_locked(struct lx_proc *p, int sig)
{
	if (p->leader && wants(p->leader, sig))
		return p->leader;
	for (size_t i = 0; i < p->nthreads; i++)
		if (wants(p->threads[i], sig))
			return p->threads[i];
	return NULL;
}

/*
 * retarget_shared_pending(): the process's pending signals in @sigs,
 * which @t no longer takes (it blocked them, or it is ending), go to
 * the threads complete_signal() would pick now, woken to take them.
 */
void ua__lx_retarget(struct ua_task *t, uint64_t sigs)
{
	struct lx_proc *p = lx_proc(t);

	sigs &= atomic_load(&sigstate(t)->sh->shared.pending);
	if (!sigs || !p || !lx_threaded(p))
		return;
	pthread_mutex_lock(&p->tlock);
	for (int sig = 1; sig <= UA_NSIG; sig++) {
		struct ua_task *to;

		if (!(sigs & SIGBIT(sig)))
			continue;
		to = taker_locked(p, sig);
		if (to && to != t)
			ua__sig_kick_taker(to, sig);
	}
	pthread_mutex_unlock(&p->tlock);
}

/* sig, now ignored, leaves the queues of @t's other threads too. */
void ua__lx_flush_others(struct ua_task *t, int sig)
{
	struct lx_proc *p = lx_proc(t);

	if (!p || !lx_threaded(p))
		return;
	pthread_mutex_lock(&p->tlock);
	if (p->leader && p->leader != t && !ua__task_gone(p->leader))
		ua__sig_flush(p->leader, sig);
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i] != t && !ua__task_gone(p->threads[i]))
			ua__sig_flush(p->threads[i], sig);
	pthread_mutex_unlock(&p->tlock);
}

/*
 * A signal for the whole process (kill(), rt_sigqueueinfo(), a host
 * signal, a timer's): queued for the group, where any thread that does
 * not block it takes it (the kernel's shared_pending), and the thread
 * complete_signal() would pick is woken to take it now.  @t is any
 * thread of the process.
 */
static long group_send_locked(struct lx_proc *p, struct ua_task *t, int sig,
			      const siginfo_t *info)
{
	return ua__sig_send_group(t, taker_locked(p, sig), sig, info,
				  info->si_code < 0 &&
					  info->si_code != SI_TKILL);
}

long ua__lx_signal_group(struct ua_task *t, int sig, const siginfo_t *info)
{
	struct lx_proc *p = lx_proc(t);
	long ret = 0;

	if (sig < 0 || sig > UA_NSIG)
		return -EINVAL;
	pthread_mutex_lock(&p->tlock);
	if (sig)
		ret = group_send_locked(p, t, sig, info);
	pthread_mutex_unlock(&p->tlock);
	return ret;
}

/*
 * A timer's expiry (sys_timer.c, and ITIMER_REAL in sys_time.c), from a
 * monitor thread: to the thread tid (SIGEV_THREAD_ID), else to the
 * process as kill() does;
 * @only is the process's task while it has never had a second thread.
 * While the signal of the timer's last expiry is still pending, this
 * one only counts as its overrun.
 */
long ua__lx_timer_signal(struct lx_proc *p, struct ua_task *only, pid_t tid,
			 const siginfo_t *info)
{
	int sig = info->si_signo, add = info->si_overrun + 1;
	struct ua_task *to;
	long ret = 0;

	pthread_mutex_lock(&p->tlock);
	if (!p->nthreads)
		to = only;
	else if (tid)
		to = by_tid_locked(p, tid);
	else
		to = p->leader ? p->leader : p->threads[0];
	if (!to || ua__task_gone(to)) {
		ret = -ESRCH;
		goto out;
	}
	/* The group's queue is any of its threads'.  (ITIMER_REAL's
	 * SIGALRM, SI_KERNEL, queues like kill()'s.) */
	if (info->si_code == SI_TIMER &&
	    ua__sig_timer_overrun(to, sig, info->si_timerid, add))
		goto out;
	if (!p->nthreads || tid)
		ret = ua__sig_send(to, sig, info, false);
	else
		ret = group_send_locked(p, to, sig, info);
out:
	pthread_mutex_unlock(&p->tlock);
	return ret;
}

/* exit(): the calling thread only (the process, if it is the only one). */
static long sys_exit(struct ua_task *t, struct ua_pt_regs *r)
{
	lx_thr(t)->thread_exit = true;
	ua__task_exit(t, (int)(ARG1(r) & 0xff) << 8);
}

static long sys_exit_group(struct ua_task *t, struct ua_pt_regs *r)
{
	lx_thr(t)->thread_exit = false;
	ua__task_exit(t, (int)(ARG1(r) & 0xff) << 8);
}

static long sys_gettid(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)r;
	return ua__lx_tid(t);
}

static long sys_set_tid_address(struct ua_task *t, struct ua_pt_regs *r)
{
	lx_thr(t)->clear_child_tid = ARG1(r);
	return ua__lx_tid(t);
}

/* set_robust_list(): the head is the thread's, read when it exits. */
static long sys_set_robust_list(struct ua_task *t, struct ua_pt_regs *r)
{
	if (ARG2(r) != sizeof(struct lx_robust_head))
		return -EINVAL;
	lx_thr(t)->robust_list = ARG1(r);
	t->lx_exit = thread_exit;
	return 0;
}

/*
 * get_robust_list(pid, head_ptr, len_ptr): the caller's (pid 0) or a
 * thread's of its process; another process's needs ptrace's rights,
 * which the monitor does not grant (EPERM).
 */
static long sys_get_robust_list(struct ua_task *t, struct ua_pt_regs *r)
{
	struct lx_proc *p = lx_proc(t);
	pid_t pid = (pid_t)ARG1(r);
	uint64_t head = 0;
	struct ua_task *o;
	long ret = 0;

	if (!pid || pid == ua__lx_tid(t)) {
		head = lx_thr(t)->robust_list;
	} else {
		pthread_mutex_lock(&p->tlock);
		o = by_tid_locked(p, pid);
		if (o)
			head = lx_thr(o)->robust_list;
		else
			ret = kill(pid, 0) ? -ESRCH : -EPERM;
		pthread_mutex_unlock(&p->tlock);
		if (ret)
			return ret;
	}
	if (ua_put_user(sizeof(struct lx_robust_head), (uint64_t *)ARG3(r)))
		return -EFAULT;
	return ua_put_user(head, (uint64_t *)ARG2(r)) ? -EFAULT : 0;
}

static const struct lx_call calls[] = {
	{ SYS_set_robust_list, "set_robust_list", sys_set_robust_list, "pu" },
	{ SYS_get_robust_list, "get_robust_list", sys_get_robust_list,
	  "dpp" },
	{ SYS_exit, "exit", sys_exit, "d" },
	{ SYS_exit_group, "exit_group", sys_exit_group, "d" },
	{ SYS_gettid, "gettid", sys_gettid, "-" },
	{ SYS_set_tid_address, "set_tid_address", sys_set_tid_address, "p" },
};

void ua__lx_thread_init(void)
{
	LX_REGISTER(calls);
}
