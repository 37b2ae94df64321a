// SPDX-License-Identifier: MIT
/*
 * Signals sent to the monitor process from outside (another process's
 * kill(), the terminal's ^C, ^\ and ^Z, a hang-up, a resize), forwarded
 * to the one task that stands for the process: ua_task_forward_host_signals().
 *
 * The host handler may interrupt the monitor anywhere, a malloc or a lock
 * holder included, so it only records: the signal's bit in an atomic
 * pending word and its siginfo in a slot of its own; then it interrupts
 * the task the way a kick does (irq.c: at once in guest code, a mark in
 * monitor code that the exit code checks) and wakes the forwarding
 * thread through an eventfd.  The signal is queued to the task with
 * ua__sig_send() by whoever drains first, in ordinary context: the
 * task's own exit work (the kernel's exit-to-user work: the safe point
 * every return to guest code passes) or the forwarding thread, which is
 * there for a task asleep in the monitor (pause, sigsuspend, nanosleep,
 * futex): those sleep on a condition variable that no signal handler
 * may signal.
 *
 * The handler has no SA_RESTART: a host call the monitor makes for the
 * guest (a read of the terminal) comes back EINTR, and the linux layer
 * turns that into the kernel's restart code, so the guest's handler and
 * its SA_RESTART decide, as under the kernel (table.c).
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "task_internal.h"

#define HS_NSIG 64
#define HS_BIT(sig) (1ull << ((sig) - 1))

struct hs_slot {
	_Atomic int busy;
	siginfo_t info;
};

_Atomic uint64_t ua__hs_pending;
_Atomic int ua__hs_busy;
struct ua_task *_Atomic ua__hs_target;

static struct hs_slot slots[HS_NSIG + 1];
static struct sigaction saved[HS_NSIG + 1];
static uint64_t forwarded;
static _Atomic int inflight;
static pid_t hs_pid;
static int hs_efd = -1;
/* The forwarding thread is past its start-up: see ua__host_sig_before_fork(). */
static _Atomic int hs_up;
/* drain_lock orders drains; setup_lock the installs and restores. */
static pthread_mutex_t drain_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t setup_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t thread_once = PTHREAD_ONCE_INIT;
static int thread_err;

/*
 * The signals the library keeps: those nothing can catch, the faults
 * (the fault handler, src/core/fault.c), SIGSYS (Syscall User Dispatch),
 * the interrupt signal, glibc's own (32 up to SIGRTMIN), and SIGTTIN and
 * SIGTTOU, left at the host's default: the tty layer stops a background
 * reader or writer only when the caller neither blocks nor ignores them
 * (drivers/tty/tty_jobctrl.c, __tty_check_change()), and with a handler
 * of ours there it would send them again at every restart of the read.
 */
static bool kept(int sig)
{
	switch (sig) {
	case SIGKILL:
	case SIGSTOP:
	case SIGSEGV:
	case SIGBUS:
	case SIGFPE:
	case SIGILL:
	case SIGTRAP:
	case SIGSYS:
	case SIGTTIN:
	case SIGTTOU:
		return true;
	}
	return (sig >= 32 && sig < SIGRTMIN) || sig == ua_interrupt_signal();
}

bool ua__host_sig_forwarded(int sig)
{
	return sig >= 1 && sig <= HS_NSIG && atomic_load(&ua__hs_target) &&
	       (forwarded & HS_BIT(sig));
}

/*
 * A second arrival of sig racing a reader or another writer of its slot
 * keeps the siginfo already there: a standard signal coalesces anyway.
 */
static void record(int sig, const siginfo_t *info)
{
	struct hs_slot *s = &slots[sig];

	if (!atomic_exchange(&s->busy, 1)) {
		s->info = *info;
		atomic_store(&s->busy, 0);
	}
	atomic_fetch_or(&ua__hs_pending, HS_BIT(sig));
}

/* Record sig for the target and interrupt it; last, as it may not return. */
static void forward(int sig, const siginfo_t *info, ucontext_t *uc)
{
	uint64_t one = 1;
	struct ua_task *t;
	bool here;

	atomic_fetch_add(&inflight, 1);
	record(sig, info);
	if (hs_efd >= 0 && write(hs_efd, &one, sizeof(one)) < 0) {
		/* Full (2^64 - 2 wakes pending): the thread is awake. */
	}
	t = atomic_load(&ua__hs_target);
	here = t && ua__cur_task == t;
	if (t && !here)
		ua__task_kick(t);
	atomic_fetch_sub(&inflight, 1);
	/* Last: in guest code this resumes in the monitor, never returning. */
	if (here)
		ua__irq_interrupt(uc);
}

/* From ua__irq_handler() (irq.c) for every signal but the interrupt. */
void ua__host_signal(int sig, siginfo_t *info, ucontext_t *uc)
{
	/*
	 * The monitor's own write to a pipe nobody reads (pipe_write() sends
	 * SIGPIPE as SI_USER from the writer): the linux layer has given the
	 * guest its SIGPIPE with the EPIPE.
	 */
	if (sig == SIGPIPE && info->si_code == SI_USER &&
	    info->si_pid == hs_pid)
		return;
	if (sig < 1 || sig > HS_NSIG || !(forwarded & HS_BIT(sig)))
		return;
	forward(sig, info, uc);
}

/*
 * A signal the host sent the process under another number (the guest's
 * parent-death signal, which the host sends as the interrupt signal:
 * ppid.c).  Any signal but 0, the kept ones included: the guest chose it.
 */
void ua__host_signal_as(int sig, const siginfo_t *info, ucontext_t *uc)
{
	siginfo_t i = *info;

	if (sig < 1 || sig > HS_NSIG || !atomic_load(&ua__hs_target))
		return;
	i.si_signo = sig;
	forward(sig, &i, uc);
}

/*
 * Queue what was recorded to the target, in ordinary context.  busy is
 * raised before the pending word is taken, so a task that sees neither
 * set knows no drain is half done (ua__host_sig_pending()).
 */
void ua__host_sig_drain(void)
{
	const struct ua_task_hooks *h = ua__task_hooks;
	struct ua_task *t;
	uint64_t bits;

	atomic_fetch_add(&ua__hs_busy, 1);
	pthread_mutex_lock(&drain_lock);
	t = atomic_load(&ua__hs_target);
	bits = t ? atomic_exchange(&ua__hs_pending, 0) : 0;
	while (bits) {
		int sig = __builtin_ctzll(bits) + 1;
		struct hs_slot *s = &slots[sig];
		siginfo_t info;

		bits &= bits - 1;
		while (atomic_exchange(&s->busy, 1))
			;
		info = s->info;
		atomic_store(&s->busy, 0);
		if (h && h->host_signal)
			h->host_signal(t, sig, &info);
	}
	pthread_mutex_unlock(&drain_lock);
	atomic_fetch_sub(&ua__hs_busy, 1);
}

/* Async-signal-safe: the forwarding thread looks again (xreq.c). */
void ua__host_sig_poke(void)
{
	uint64_t one = 1;

	if (hs_efd >= 0 && write(hs_efd, &one, sizeof(one)) < 0) {
		/* Full: the thread is awake. */
	}
}

/* A target asleep in the monitor wakes to answer another monitor. */
static void poke_target(void)
{
	struct ua_task *t;

	if (!ua__xreq_filed())
		return;
	pthread_mutex_lock(&drain_lock);
	t = atomic_load(&ua__hs_target);
	if (t && ua__task_hooks && ua__task_hooks->poke)
		ua__task_hooks->poke(t);
	pthread_mutex_unlock(&drain_lock);
}

/* The forwarding thread: every signal blocked, woken by the handler. */
static void *hs_thread(void *arg)
{
	uint64_t v;

	(void)arg;
	atomic_store(&hs_up, 1);
	syscall(SYS_futex, &hs_up, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	for (;;) {
		if (read(hs_efd, &v, sizeof(v)) < 0 && errno != EINTR)
			return NULL;
		ua__host_sig_drain();
		poke_target();
	}
}

static void thread_start(void)
{
	sigset_t all, old;
	pthread_t th;
	int err;

	hs_efd = eventfd(0, EFD_CLOEXEC);
	if (hs_efd < 0) {
		thread_err = -errno;
		return;
	}
	atomic_store(&hs_up, 0);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&th, NULL, hs_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		close(hs_efd);
		hs_efd = -1;
		thread_err = -err;
		return;
	}
	pthread_detach(th);
}

static void restore(void)
{
	for (int sig = 1; sig <= HS_NSIG; sig++)
		if (forwarded & HS_BIT(sig))
			sigaction(sig, &saved[sig], NULL);
	forwarded = 0;
}

/* The forwarding handler, with every forwarded signal blocked while it runs. */
static void fwd_action(struct sigaction *sa)
{
	int irq = ua_interrupt_signal();

	memset(sa, 0, sizeof(*sa));
	sa->sa_sigaction = ua__irq_entry;
	/* No SA_RESTART: a host call made for the guest must see EINTR. */
	sa->sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa->sa_mask);
	for (int sig = 1; sig <= SIGRTMAX && sig <= HS_NSIG; sig++)
		if (!kept(sig))
			sigaddset(&sa->sa_mask, sig);
	if (irq)
		sigaddset(&sa->sa_mask, irq);
}

/*
 * SIGCHLD the way the guest's action asks the kernel for it: the
 * children of a process that ignores SIGCHLD, or has SA_NOCLDWAIT, are
 * reaped as they end and its wait4() waits for the last one and fails
 * with ECHILD (kernel/signal.c, do_notify_parent(); kernel/exit.c,
 * do_wait()), and SA_NOCLDSTOP sends nothing for a child that stops or
 * continues (do_notify_parent_cldstop()).  The guest's children are the
 * monitor's, so the host applies these rules itself once the monitor's
 * own disposition says the same.
 */
static void chld_action(struct sigaction *sa, unsigned int mode)
{
	fwd_action(sa);
	if (mode & UA_CHLD_IGNORE) {
		sa->sa_handler = SIG_IGN;
		sa->sa_flags = 0;
		return;
	}
	sa->sa_flags |= mode & (SA_NOCLDSTOP | SA_NOCLDWAIT);
}

static int install(struct ua_task *t)
{
	struct sigaction sa, chld;

	fwd_action(&sa);
	chld_action(&chld, t->host_chld);
	for (int sig = 1; sig <= SIGRTMAX && sig <= HS_NSIG; sig++) {
		if (kept(sig))
			continue;
		/* Before the handler can run: it checks the set. */
		forwarded |= HS_BIT(sig);
		if (sigaction(sig, sig == SIGCHLD ? &chld : &sa, &saved[sig])) {
			int err = -errno;

			forwarded &= ~HS_BIT(sig);
			restore();
			return err;
		}
	}
	return 0;
}

/*
 * From the signal layer's rt_sigaction, in ordinary context on the
 * task's thread.  Only the task standing for the process has the host's
 * SIGCHLD; another keeps the mode for when it does.
 */
void ua__host_sig_chld(struct ua_task *t, unsigned int mode)
{
	struct sigaction sa;

	pthread_mutex_lock(&setup_lock);
	t->host_chld = mode;
	if (atomic_load(&ua__hs_target) == t && (forwarded & HS_BIT(SIGCHLD))) {
		chld_action(&sa, mode);
		sigaction(SIGCHLD, &sa, NULL);
	}
	pthread_mutex_unlock(&setup_lock);
}

int ua_task_forward_host_signals(struct ua_task *t)
{
	struct ua_task *cur;
	int err = 0;

	pthread_mutex_lock(&setup_lock);
	cur = atomic_load(&ua__hs_target);
	if (t == cur)
		goto out;
	if (t && cur) {
		err = -EBUSY;
		goto out;
	}
	if (!t) {
		restore();
		pthread_mutex_lock(&drain_lock);
		atomic_store(&ua__hs_target, NULL);
		atomic_store(&ua__hs_pending, 0);
		pthread_mutex_unlock(&drain_lock);
		/* A handler on another thread may still be kicking cur. */
		while (atomic_load(&inflight))
			;
		goto out;
	}
	/* The interrupt signal is chosen first: it is never forwarded. */
	err = ua__irq_setup();
	if (!err) {
		pthread_once(&thread_once, thread_start);
		err = thread_err;
	}
	if (err)
		goto out;
	hs_pid = getpid();
	atomic_store(&ua__hs_target, t);
	err = install(t);
	if (err)
		atomic_store(&ua__hs_target, NULL);
out:
	pthread_mutex_unlock(&setup_lock);
	return err;
}

/*
 * In the child of a guest's fork (fork.c): the forwarding thread did not
 * come along and its eventfd is the parent's, the locks may have been
 * held by it, and signals pending for the parent are not the child's
 * (the kernel's copy_process() starts the child's queue empty).  The
 * handlers are inherited, and t is still the target.
 */
int ua__host_sig_after_fork(struct ua_task *t)
{
	pthread_mutex_init(&drain_lock, NULL);
	pthread_mutex_init(&setup_lock, NULL);
	atomic_store(&inflight, 0);
	atomic_store(&ua__hs_busy, 0);
	atomic_store(&ua__hs_pending, 0);
	if (atomic_load(&ua__hs_target) != t)
		return 0;
	hs_pid = getpid();
	if (hs_efd >= 0)
		close(hs_efd);
	hs_efd = -1;
	thread_err = 0;
	thread_start();
	return thread_err;
}

/*
 * Before a guest's fork (fork.c): wait for a forwarding thread still
 * starting.  Its start-up allocates (the C library's thread attributes,
 * a sanitizer's thread state), and an allocator whose lock it holds at
 * the fork stays locked in the child for good where the allocator has no
 * fork handler (GCC 12's AddressSanitizer): the child's own forwarding
 * thread then never starts, and a signal to a child asleep in the
 * monitor is never delivered.  A fork right after a fork is the case
 * that meets it, as each child starts its thread anew.  Once up, the
 * thread sleeps in read() and allocates nothing until woken.
 */
void ua__host_sig_before_fork(void)
{
	if (hs_efd < 0 || !atomic_load(&ua__hs_target))
		return;
	while (!atomic_load(&hs_up))
		syscall(SYS_futex, &hs_up, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

/* ua_task_destroy(): a target going away stops the forwarding. */
void ua__host_sig_forget(struct ua_task *t)
{
	if (t && atomic_load(&ua__hs_target) == t)
		ua_task_forward_host_signals(NULL);
}

/*
 * The default action of a stop signal for the task that stands for the
 * process: stop the process, as the kernel's do_signal_stop() stops the
 * native one.  The host is asked to do it with the same signal at its
 * default disposition, so the parent's waitpid() sees WSTOPSIG = sig and
 * the host applies its own rule (a SIGTSTP, SIGTTIN or SIGTTOU to an
 * orphaned process group is dropped).  tgkill() returns only once the
 * process was continued (the stop happens on its way back to user mode);
 * the SIGCONT that did it reaches the guest like any other.
 */
void ua__host_stop(struct ua_task *t, int sig)
{
	struct sigaction dfl, old;
	sigset_t set, oset;

	if (!t || atomic_load(&ua__hs_target) != t)
		return;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	if (sig != SIGSTOP && sigaction(sig, &dfl, &old))
		return;
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, &oset);
	syscall(SYS_tgkill, getpid(), gettid(), sig);
	pthread_sigmask(SIG_SETMASK, &oset, NULL);
	if (sig != SIGSTOP)
		sigaction(sig, &old, NULL);
}
