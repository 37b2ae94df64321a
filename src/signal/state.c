// SPDX-License-Identifier: MIT
/*
 * Per-task signal state: creation, the task registry that kill() looks
 * targets up in, queueing (coalescing standard signals, FIFO real-time
 * signals with a per-task limit) and dequeueing (lowest number first,
 * synchronous faults before everything else).  After kernel/signal.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "signal_internal.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ua_task **registry;
static size_t registry_len, registry_cap;

void ua__task_registry_lock(void)
{
	pthread_mutex_lock(&registry_lock);
}

void ua__task_registry_unlock(void)
{
	pthread_mutex_unlock(&registry_lock);
}

struct ua_task *ua__task_lookup_locked(pid_t tid)
{
	for (size_t i = 0; i < registry_len; i++)
		if (registry[i]->tid == tid)
			return registry[i];
	return NULL;
}

static int registry_add(struct ua_task *t)
{
	int ret = 0;

	pthread_mutex_lock(&registry_lock);
	if (registry_len == registry_cap) {
		size_t cap = registry_cap ? registry_cap * 2 : 16;
		struct ua_task **r = realloc(registry, cap * sizeof(*r));

		if (!r) {
			ret = -ENOMEM;
			goto out;
		}
		registry = r;
		registry_cap = cap;
	}
	registry[registry_len++] = t;
out:
	pthread_mutex_unlock(&registry_lock);
	return ret;
}

static void registry_del(struct ua_task *t)
{
	pthread_mutex_lock(&registry_lock);
	for (size_t i = 0; i < registry_len; i++) {
		if (registry[i] == t) {
			registry[i] = registry[--registry_len];
			break;
		}
	}
	pthread_mutex_unlock(&registry_lock);
}

static int sig_create(struct ua_task *t)
{
	struct ua_sigstate *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->sh = calloc(1, sizeof(*s->sh));
	if (!s->sh) {
		free(s);
		return -ENOMEM;
	}
	s->sh->refs = 1;
	s->action = s->sh->action;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	/* A fresh program image: no altstack ever set, raw flags 0 (the
	 * kernel's SS_DISABLE here comes only from a clone sharing the mm). */
	s->altstack.flags = 0;
	t->sig = s;
	if (registry_add(t)) {
		free(s->sh);
		free(s);
		t->sig = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * The child of a guest's fork (the linux layer calls it at once): the
 * kernel starts a forked child with nothing pending (copy_process():
 * init_sigpending), its mask, handlers and altstack those of the parent;
 * locks another thread held at the fork are free again.
 */
void ua__sig_after_fork(struct ua_task *t)
{
	struct ua_sigstate *s = t->sig;

	if (!s)
		return;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	atomic_store(&s->own.qlock, 0);
	atomic_store(&s->own.pending, 0);
	s->own.qlen = 0;
	s->own.noinfo = 0;
	/* The group's queue too: the child is a process of one thread. */
	memset(&s->sh->shared, 0, sizeof(s->sh->shared));
	s->woken = false;
	pthread_mutex_init(&registry_lock, NULL);
	registry[0] = t;
	registry_len = 1;
	ua__timers_after_fork(t);
}

/*
 * copy_process() for CLONE_THREAD: the dispositions are the process's,
 * the mask the caller's, nothing pending, and with the memory shared the
 * alternate stack is not inherited (sas_ss_reset()).
 */
void ua__sig_clone(struct ua_task *parent, struct ua_task *child)
{
	struct ua_sigstate *ps = parent->sig, *cs = child->sig;

	if (!ps || !cs)
		return;
	if (atomic_fetch_sub(&cs->sh->refs, 1) == 1)
		free(cs->sh);
	atomic_fetch_add(&ps->sh->refs, 1);
	cs->sh = ps->sh;
	cs->action = ps->sh->action;
	atomic_store(&cs->blocked, atomic_load(&ps->blocked));
	cs->altstack.sp = 0;
	cs->altstack.size = 0;
	cs->altstack.flags = SS_DISABLE;
	cs->mxcsr = ps->mxcsr;
	cs->fcw = ps->fcw;
}

static void sig_destroy(struct ua_task *t)
{
	struct ua_sigstate *s = t->sig;

	registry_del(t);
	if (!s)
		return;
	if (atomic_fetch_sub(&s->sh->refs, 1) == 1)
		free(s->sh);
	ua__timer_forget(t);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s);
	t->sig = NULL;
}

/* Signals whose default action is to do nothing (stop/cont included). */
static bool default_ignored(int sig)
{
	switch (sig) {
	case SIGCHLD:
	case SIGCONT:
	case SIGURG:
	case SIGWINCH:
	case SIGSTOP:
	case SIGTSTP:
	case SIGTTIN:
	case SIGTTOU:
		return true;
	}
	return false;
}

void (*ua__sig_pend_hook)(struct ua_task *t);

bool ua__sig_ignored(const struct ua_sigstate *s, int sig)
{
	uint64_t h = s->action[sig].handler;

	return h == (uint64_t)(uintptr_t)SIG_IGN ||
	       (h == (uint64_t)(uintptr_t)SIG_DFL && default_ignored(sig));
}

static void wake(struct ua_sigstate *s)
{
	pthread_cond_broadcast(&s->cond);
}

/*
 * Queue sig with its info in q: standard signals coalesce (1: it was
 * pending already), real-time ones queue up to UA_SIGQUEUE_MAX (then
 * -EAGAIN where the caller may fail, else a bit without info).  Under
 * the lock of q's task, if q is a task's.
 */
static int queue(struct ua_sigpend *q, int sig, const siginfo_t *info,
		 bool rt_may_fail)
{
	uint64_t bit = SIGBIT(sig);
	int ret = 0;

	ua__sigq_lock(q);
	if (sig < UA_SIGRTMIN) {
		if (atomic_load(&q->pending) & bit) {
			ret = 1;
			goto out;
		}
		q->std_info[sig] = *info;
	} else if (q->qlen < UA_SIGQUEUE_MAX) {
		q->queue[q->qlen].sig = sig;
		q->queue[q->qlen].info = *info;
		q->qlen++;
	} else if (rt_may_fail) {
		ret = -EAGAIN;
		goto out;
	} else {
		q->noinfo |= bit;
	}
	atomic_fetch_or(&q->pending, bit);
out:
	ua__sigq_unlock(q);
	return ret;
}

#define STOP_MASK                                                   \
	(SIGBIT(SIGSTOP) | SIGBIT(SIGTSTP) | SIGBIT(SIGTTIN) | \
	 SIGBIT(SIGTTOU))

/*
 * prepare_signal(): a stop signal cancels a pending SIGCONT and SIGCONT
 * every pending stop signal, whatever their dispositions.  Standard
 * signals only, so the pending bits and nothing else.  Under s->lock.
 */
static void stop_cont(struct ua_sigpend *q, int sig)
{
	uint64_t drop = sig == SIGCONT		     ? STOP_MASK :
			(SIGBIT(sig) & STOP_MASK) ? SIGBIT(SIGCONT) :
						     0;

	if (!drop || !(atomic_load(&q->pending) & drop))
		return;
	ua__sigq_lock(q);
	atomic_fetch_and(&q->pending, ~drop);
	ua__sigq_unlock(q);
}

int ua__sig_send(struct ua_task *t, int sig, const siginfo_t *info,
		 bool rt_may_fail)
{
	struct ua_sigstate *s = t->sig;
	uint64_t bit = SIGBIT(sig);
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	if (ua__task_gone(t)) {
		ret = -ESRCH;
		goto out;
	}
	stop_cont(&s->own, sig);
	stop_cont(&s->sh->shared, sig);
	/* A blocked signal is never treated as ignored: it may be unblocked. */
	if (!(s->blocked & bit) && sig != SIGKILL && ua__sig_ignored(s, sig))
		goto out;
	ret = queue(&s->own, sig, info, rt_may_fail);
	if (ret) {
		ret = ret < 0 ? ret : 0;
		goto out;
	}
	ua__sig_pend_changed(t);
	/* Only the task itself waits on its condition: not when it sends. */
	if (ua__cur_task != t)
		wake(s);
	/*
	 * Deliverable now: a task running guest code is interrupted.  Under
	 * the lock: once it is released the woken task may exit and its
	 * monitor free it, so the sender touches nothing of it after that.
	 */
	if (!(atomic_load(&s->blocked) & bit))
		ua__task_kick(t);
out:
	pthread_mutex_unlock(&s->lock);
	return ret;
}

/*
 * The task that takes a signal the group queued (complete_signal()) was
 * chosen by the caller: it is woken, and interrupted if it runs guest
 * code.  Under its lock, as in ua__sig_send().
 */
void ua__sig_kick_taker(struct ua_task *to, int sig)
{
	struct ua_sigstate *s = sigstate(to);

	pthread_mutex_lock(&s->lock);
	if (!ua__task_gone(to)) {
		if (ua__cur_task != to)
			wake(s);
		if (!(atomic_load(&s->blocked) & SIGBIT(sig)))
			ua__task_kick(to);
	}
	pthread_mutex_unlock(&s->lock);
}

int ua__sig_send_group(struct ua_task *t, struct ua_task *to, int sig,
		       const siginfo_t *info, bool rt_may_fail)
{
	struct ua_sigstate *s = t->sig;
	struct ua_sigpend *q = &s->sh->shared;
	int ret;

	stop_cont(q, sig);
	/* Ignored unless the thread that would take it blocks it. */
	if (to && !(atomic_load(&sigstate(to)->blocked) & SIGBIT(sig)) &&
	    sig != SIGKILL && ua__sig_ignored(s, sig))
		return 0;
	ret = queue(q, sig, info, rt_may_fail);
	if (ret)
		return ret < 0 ? ret : 0;
	ua__sig_pend_changed(t);
	if (to)
		ua__sig_kick_taker(to, sig);
	return 0;
}

static bool is_timer(const siginfo_t *info, int timerid)
{
	return info->si_code == SI_TIMER && info->si_timerid == timerid;
}

static void add_overrun(siginfo_t *info, int add)
{
	/* DELAYTIMER_MAX: the kernel's overrun count saturates at INT_MAX. */
	info->si_overrun = add > INT_MAX - info->si_overrun ?
				   INT_MAX :
				   info->si_overrun + add;
}

static bool timer_overrun(struct ua_sigpend *q, int sig, int timerid,
			  int add)
{
	bool found = false;

	ua__sigq_lock(q);
	if (!(atomic_load(&q->pending) & SIGBIT(sig)))
		goto out;
	if (sig < UA_SIGRTMIN) {
		found = is_timer(&q->std_info[sig], timerid);
		if (found)
			add_overrun(&q->std_info[sig], add);
		goto out;
	}
	for (int i = 0; i < q->qlen && !found; i++) {
		found = q->queue[i].sig == sig &&
			is_timer(&q->queue[i].info, timerid);
		if (found)
			add_overrun(&q->queue[i].info, add);
	}
out:
	ua__sigq_unlock(q);
	return found;
}

bool ua__sig_timer_overrun(struct ua_task *t, int sig, int timerid, int add)
{
	struct ua_sigstate *s = t->sig;

	return timer_overrun(&s->own, sig, timerid, add) ||
	       timer_overrun(&s->sh->shared, sig, timerid, add);
}

static void take_rt(struct ua_sigpend *q, int sig, siginfo_t *info)
{
	bool more = false;
	int i, found = -1;

	for (i = 0; i < q->qlen; i++) {
		if (q->queue[i].sig != sig)
			continue;
		if (found < 0)
			found = i;
		else
			more = true;
	}
	if (found >= 0) {
		*info = q->queue[found].info;
		memmove(&q->queue[found], &q->queue[found + 1],
			(size_t)(q->qlen - found - 1) * sizeof(q->queue[0]));
		q->qlen--;
		more = more || (q->noinfo & SIGBIT(sig));
	} else {
		/* Queue overflow left only the bit: SI_USER, no sender. */
		memset(info, 0, sizeof(*info));
		info->si_signo = sig;
		info->si_code = SI_USER;
		q->noinfo &= ~SIGBIT(sig);
	}
	if (!more)
		atomic_fetch_and(&q->pending, ~SIGBIT(sig));
}

/* The next of q's signals not in blocked, taken off q; 0 if none. */
static int take(struct ua_sigpend *q, uint64_t blocked, siginfo_t *info)
{
	int sig;

	ua__sigq_lock(q);
	sig = ua__next_signal(atomic_load(&q->pending) & ~blocked);
	if (sig && sig < UA_SIGRTMIN) {
		*info = q->std_info[sig];
		atomic_fetch_and(&q->pending, ~SIGBIT(sig));
	} else if (sig) {
		take_rt(q, sig, info);
	}
	ua__sigq_unlock(q);
	return sig;
}

/* dequeue_signal(): the task's own signals first, then its group's. */
static int dequeue(struct ua_task *t, uint64_t blocked, siginfo_t *info)
{
	struct ua_sigstate *s = t->sig;
	int sig;

	/* Nothing deliverable: the common case, without the lock. */
	if (!(ua__sig_pending(s) & ~blocked))
		return 0;
	pthread_mutex_lock(&s->lock);
	sig = take(&s->own, blocked, info);
	if (!sig)
		sig = take(&s->sh->shared, blocked, info);
	if (sig)
		ua__sig_pend_changed(t);
	pthread_mutex_unlock(&s->lock);
	return sig;
}

int ua__sig_dequeue(struct ua_task *t, siginfo_t *info)
{
	return dequeue(t, sigstate(t)->blocked, info);
}

int ua__sig_dequeue_set(struct ua_task *t, uint64_t set, siginfo_t *info)
{
	return dequeue(t, ~(set & ~UNBLOCKABLE), info);
}

static void flush(struct ua_sigpend *q, int sig)
{
	int i, j = 0;

	ua__sigq_lock(q);
	for (i = 0; i < q->qlen; i++)
		if (q->queue[i].sig != sig)
			q->queue[j++] = q->queue[i];
	q->qlen = j;
	q->noinfo &= ~SIGBIT(sig);
	atomic_fetch_and(&q->pending, ~SIGBIT(sig));
	ua__sigq_unlock(q);
}

/*
 * Drop every pending instance of sig (a new ignoring disposition): the
 * task's and its group's.
 */
void ua__sig_flush(struct ua_task *t, int sig)
{
	struct ua_sigstate *s = t->sig;

	pthread_mutex_lock(&s->lock);
	flush(&s->own, sig);
	pthread_mutex_unlock(&s->lock);
	flush(&s->sh->shared, sig);
	ua__sig_pend_changed(t);
}

/*
 * Before each sleep on s->cond, with s->lock held: questions other
 * monitors filed (xreq.c), answered with the lock let go.  One filed
 * after the look is followed by a poke, which takes the lock to wake the
 * sleep the look was made for.  True when the lock was let go: the
 * caller looks at what it waits for again (a wake meanwhile found no
 * sleeper).
 */
bool ua__sig_wait_answer(struct ua_task *t)
{
	struct ua_sigstate *s = t->sig;

	if (ua_likely(!ua__xreq_filed()))
		return false;
	pthread_mutex_unlock(&s->lock);
	ua__xreq_serve(t, true);
	pthread_mutex_lock(&s->lock);
	return true;
}

/* hooks->poke: a wake that gives the sleeper nothing. */
static void poke(struct ua_task *t)
{
	struct ua_sigstate *s = t->sig;

	pthread_mutex_lock(&s->lock);
	wake(s);
	pthread_mutex_unlock(&s->lock);
}

/*
 * Sleep in the monitor until a signal is deliverable or done() says so.
 * done() runs with the task's signal lock held.
 */
void ua__sig_wait(struct ua_task *t, bool (*done)(struct ua_task *, void *),
		  void *arg)
{
	struct ua_sigstate *s = t->sig;

	pthread_mutex_lock(&s->lock);
	while (!(ua__sig_pending(s) & ~s->blocked) &&
	       !(done && done(t, arg))) {
		if (ua__sig_wait_answer(t))
			continue;
		pthread_cond_wait(&s->cond, &s->lock);
	}
	pthread_mutex_unlock(&s->lock);
}

void ua_task_wake(struct ua_task *t)
{
	struct ua_sigstate *s = t->sig;

	pthread_mutex_lock(&s->lock);
	s->woken = true;
	wake(s);
	pthread_mutex_unlock(&s->lock);
}

static inline UA_FAST bool is_restart(uint64_t rax)
{
	return rax == (uint64_t)-ERESTARTSYS ||
	       rax == (uint64_t)-ERESTARTNOINTR ||
	       rax == (uint64_t)-ERESTARTNOHAND ||
	       rax == (uint64_t)-ERESTART_RESTARTBLOCK;
}

/*
 * Runs on every syscall exit: keep it to a few loads.  The rewrite fast
 * path calls it on the guest's FS base (src/linux/fast.c).
 */
UA_FAST bool ua__fast_sig_work_pending(struct ua_task *t)
{
	struct ua_sigstate *s = t->sig;

	return (ua__sig_pending(s) & ~s->blocked) ||
	       s->restore_mask || ua__host_sig_pending(t) ||
	       (t->regs.orig_rax != (uint64_t)-1 && is_restart(t->regs.rax));
}

/*
 * signal_pending() for a host call that came back EINTR: the interrupt
 * may have been for a signal nobody takes now (a SIGCHLD from the host
 * the guest ignores, a group signal another thread took).  The mark is
 * taken back first, so that a signal queued from here on ends the next
 * host call again.  On the task's own thread, in ordinary context.
 */
bool ua__sig_interrupted(struct ua_task *t)
{
	struct ua_sigstate *s = t->sig;

	t->irq_pending = 0;
	atomic_thread_fence(memory_order_seq_cst);
	/* Another monitor's question may be what interrupted (xreq.c). */
	ua__xreq_serve(t, true);
	if (ua__host_sig_pending(t))
		ua__host_sig_drain();
	return (ua__sig_pending(s) & ~atomic_load(&s->blocked)) != 0;
}

/* A host signal for the task that stands for the process (hostsig.c). */
static void host_signal(struct ua_task *t, int sig, const siginfo_t *info)
{
	siginfo_t i = *info;

	i.si_signo = sig;
	if (t->lx_sig_group)
		t->lx_sig_group(t, sig, &i);
	else
		ua__sig_send(t, sig, &i, false);
}

static const struct ua_task_hooks sig_hooks = {
	.create = sig_create,
	.destroy = sig_destroy,
	.work_pending = ua__fast_sig_work_pending,
	.exit_work = ua__sig_exit_work,
	.guest_fault = ua__sig_guest_fault,
	.host_signal = host_signal,
	.poke = poke,
};

__attribute__((constructor)) static void signal_init(void)
{
	ua__task_set_hooks(&sig_hooks);
	ua__signal_syscalls_init();
	ua__fpu_init();
}
