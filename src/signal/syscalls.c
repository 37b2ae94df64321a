// SPDX-License-Identifier: MIT
/*
 * The signal syscalls (monitor side) and their guest-side wrappers, after
 * kernel/signal.c.  Guest pointers are read and written with the checked
 * accessors only; a bad pointer is -EFAULT, never a monitor crash.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "signal_internal.h"

static bool valid_sig(long sig)
{
	return sig >= 1 && sig <= UA_NSIG;
}

/*
 * What the host must know of the guest's SIGCHLD action: the children
 * are the host's, so it reaps them and holds back stop notices for the
 * guest (src/task/hostsig.c).  A handler reset by SA_RESETHAND keeps
 * the flags (kernel/signal.c, get_signal()), so only rt_sigaction
 * changes what the host does.
 */
static void chld_changed(struct ua_task *t, const struct ua_ksigaction *ka)
{
	unsigned int mode = ka->flags & (SA_NOCLDSTOP | SA_NOCLDWAIT);

	if (ka->handler == (uint64_t)(uintptr_t)SIG_IGN)
		mode |= UA_CHLD_IGNORE;
	if (mode != t->host_chld)
		ua__host_sig_chld(t, mode);
}

static long sys_rt_sigaction(struct ua_task *t, struct ua_pt_regs *r)
{
	struct ua_sigstate *s = sigstate(t);
	int sig = (int)r->rsi;
	void *uact = (void *)r->rdx, *uoact = (void *)r->rcx;
	struct ua_ksigaction new, old;

	if (r->r8 != 8 || !valid_sig(sig))
		return -EINVAL;
	if (uact && ua_copy_from_user(&new, uact, sizeof(new)))
		return -EFAULT;
	if (uact && (sig == SIGKILL || sig == SIGSTOP))
		return -EINVAL;
	old = s->action[sig];
	old.flags &= UA_SA_UAPI_FLAGS;
	if (uact) {
		new.flags &= UA_SA_UAPI_FLAGS;
		new.mask &= ~UNBLOCKABLE;
		s->action[sig] = new;
		/* A disposition that ignores drops what is pending. */
		if (ua__sig_ignored(s, sig))
			ua__sig_flush(t, sig);
		if (sig == SIGCHLD)
			chld_changed(t, &new);
	}
	if (uoact && ua_copy_to_user(uoact, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

static long sys_rt_sigprocmask(struct ua_task *t, struct ua_pt_regs *r)
{
	struct ua_sigstate *s = sigstate(t);
	int how = (int)r->rsi;
	void *uset = (void *)r->rdx, *uoset = (void *)r->rcx;
	uint64_t set, old = s->blocked, mask = old;

	if (r->r8 != 8)
		return -EINVAL;
	if (uset) {
		if (ua_copy_from_user(&set, uset, 8))
			return -EFAULT;
		if (ua__sigmask_how(how, &mask, set))
			return -EINVAL;
		/* Before the old mask is written: a fault there leaves the
		 * new one in place (kernel/signal.c, rt_sigprocmask). */
		ua__sig_set_blocked(t, mask);
	}
	if (uoset && ua_copy_to_user(uoset, &old, 8))
		return -EFAULT;
	return 0;
}

static long sys_rt_sigpending(struct ua_task *t, struct ua_pt_regs *r)
{
	struct ua_sigstate *s = sigstate(t);
	uint64_t set = ua__sig_pending(s) & s->blocked;

	if (r->rdx != 8)
		return -EINVAL;
	if (ua_copy_to_user((void *)r->rsi, &set, 8))
		return -EFAULT;
	return 0;
}

static long sys_rt_sigsuspend(struct ua_task *t, struct ua_pt_regs *r)
{
	struct ua_sigstate *s = sigstate(t);
	uint64_t mask;

	if (r->rdx != 8)
		return -EINVAL;
	if (ua_copy_from_user(&mask, (void *)r->rsi, 8))
		return -EFAULT;
	s->saved_mask = s->blocked;
	s->restore_mask = true;
	ua__sig_set_blocked(t, mask);
	ua__sig_wait(t, NULL, NULL);
	return -ERESTARTNOHAND;
}

static long sys_pause(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)r;
	ua__sig_wait(t, NULL, NULL);
	return -ERESTARTNOHAND;
}

static bool woken(struct ua_task *t, void *arg)
{
	(void)arg;
	return sigstate(t)->woken;
}

static long sys_futex_wait(struct ua_task *t, struct ua_pt_regs *r)
{
	struct ua_sigstate *s = sigstate(t);
	const int *uaddr = (const int *)r->rsi;
	int val = (int)r->rdx, cur;

	for (;;) {
		if (ua_get_user(cur, uaddr))
			return -EFAULT;
		if (cur != val)
			return s->woken ? (s->woken = false, 0) : -EAGAIN;
		ua__sig_wait(t, woken, NULL);
		if (ua__sig_pending(s) & ~s->blocked)
			return -ERESTARTSYS;
		pthread_mutex_lock(&s->lock);
		s->woken = false;
		pthread_mutex_unlock(&s->lock);
		if (ua_get_user(cur, uaddr))
			return -EFAULT;
		if (cur != val)
			return 0;
	}
}

/* do_sigaltstack(); sp is the guest stack pointer it is judged against. */
int ua__do_sigaltstack(struct ua_task *t, const struct ua_kstack *ss,
		       struct ua_kstack *oss, uint64_t sp)
{
	struct ua_sigstate *s = sigstate(t);

	if (oss) {
		*oss = s->altstack;
		oss->pad = 0;
		oss->flags = ua__sas_ss_flags(s, sp) |
			     (s->altstack.flags & SS_AUTODISARM);
	}
	if (!ss)
		return 0;
	int mode = ss->flags & ~SS_AUTODISARM;

	if (ua__on_sig_stack(s, sp))
		return -EPERM;
	if (mode != 0 && mode != SS_ONSTACK && mode != SS_DISABLE)
		return -EINVAL;
	if (ss->sp == s->altstack.sp && ss->size == s->altstack.size &&
	    ss->flags == s->altstack.flags)
		return 0;
	if (mode == SS_DISABLE) {
		s->altstack.sp = 0;
		s->altstack.size = 0;
	} else {
		if (ss->size < UA_MINSIGSTKSZ)
			return -ENOMEM;
		s->altstack.sp = ss->sp;
		s->altstack.size = ss->size;
	}
	s->altstack.flags = ss->flags;
	return 0;
}

static long sys_sigaltstack(struct ua_task *t, struct ua_pt_regs *r)
{
	struct ua_kstack new, old;
	void *uss = (void *)r->rsi, *uoss = (void *)r->rdx;
	int ret;

	if (uss && ua_copy_from_user(&new, uss, sizeof(new)))
		return -EFAULT;
	ret = ua__do_sigaltstack(t, uss ? &new : NULL, &old, r->rsp);
	if (!ret && uoss && ua_copy_to_user(uoss, &old, sizeof(old)))
		return -EFAULT;
	return ret;
}

static void sender_info(siginfo_t *info, int sig, int code)
{
	memset(info, 0, sizeof(*info));
	info->si_signo = sig;
	info->si_code = code;
	info->si_pid = ua__monitor_pid();
	info->si_uid = ua__monitor_uid();
}

static bool names_self(const struct ua_task *self, pid_t pid)
{
	return pid == 0 || pid == ua__monitor_pid() || pid == self->tid;
}

/*
 * The task a pid names, with the registry locked (the caller unlocks):
 * 0, the monitor's pid and the caller's own id are the caller.
 */
static struct ua_task *target_locked(struct ua_task *self, pid_t pid)
{
	ua__task_registry_lock();
	if (names_self(self, pid))
		return self;
	return ua__task_lookup_locked(pid);
}

static long send_to(struct ua_task *self, pid_t pid, int sig,
		    const siginfo_t *info, bool rt_may_fail)
{
	struct ua_task *t;
	long ret = 0;

	if (sig < 0 || sig > UA_NSIG)
		return -EINVAL;
	/*
	 * A task signalling itself needs no registry: it is running this
	 * call, so it cannot go away, and the registry's one lock would
	 * otherwise be taken by every task's raise() alike.
	 */
	if (names_self(self, pid))
		return sig ? ua__sig_send(self, sig, info, rt_may_fail) : 0;
	t = target_locked(self, pid);
	if (!t)
		ret = -ESRCH;
	else if (sig)
		ret = ua__sig_send(t, sig, info, rt_may_fail);
	ua__task_registry_unlock();
	return ret;
}

static long sys_kill(struct ua_task *t, struct ua_pt_regs *r)
{
	int sig = (int)r->rdx;
	siginfo_t info;

	if ((pid_t)r->rsi < 0)
		return -ESRCH; /* no process groups in the engine */
	sender_info(&info, sig, SI_USER);
	return send_to(t, (pid_t)r->rsi, sig, &info, false);
}

static long sys_tgkill(struct ua_task *t, struct ua_pt_regs *r)
{
	pid_t tgid = (pid_t)r->rsi, tid = (pid_t)r->rdx;
	int sig = (int)r->rcx;
	siginfo_t info;

	if (tgid <= 0 || tid <= 0)
		return -EINVAL;
	if (tgid != ua__monitor_pid() && tgid != tid)
		return -ESRCH;
	sender_info(&info, sig, SI_TKILL);
	return send_to(t, tid, sig, &info, false);
}

static long sys_rt_sigqueueinfo(struct ua_task *t, struct ua_pt_regs *r)
{
	pid_t pid = (pid_t)r->rsi;
	int sig = (int)r->rdx;
	siginfo_t info;
	bool self;

	if (ua_copy_from_user(&info, (void *)r->rcx, sizeof(info)))
		return -EFAULT;
	self = pid == 0 || pid == ua__monitor_pid() || pid == t->tid;
	/* Only the kernel may claim kill()-style codes towards another. */
	if (!self && (info.si_code >= 0 || info.si_code == SI_TKILL))
		return -EPERM;
	if (pid <= 0 && pid != 0)
		return -ESRCH;
	info.si_signo = sig;
	return send_to(t, pid, sig, &info, info.si_code != SI_USER);
}

void ua__signal_syscalls_init(void)
{
	ua__syscall_register(UA_NR_rt_sigaction, sys_rt_sigaction, 0);
	ua__syscall_register(UA_NR_rt_sigprocmask, sys_rt_sigprocmask, 0);
	ua__syscall_register(UA_NR_rt_sigpending, sys_rt_sigpending, 0);
	ua__syscall_register(UA_NR_rt_sigsuspend, sys_rt_sigsuspend, 0);
	ua__syscall_register(UA_NR_pause, sys_pause, 0);
	ua__syscall_register(UA_NR_futex_wait, sys_futex_wait, 0);
	ua__syscall_register(UA_NR_sigaltstack, sys_sigaltstack, 0);
	ua__syscall_register(UA_NR_kill, sys_kill, 0);
	ua__syscall_register(UA_NR_tgkill, sys_tgkill, 0);
	ua__syscall_register(UA_NR_rt_sigqueueinfo, sys_rt_sigqueueinfo, 0);
	ua__syscall_register(UA_NR_rt_sigreturn, ua__sys_rt_sigreturn,
			     UA_SYSCALL_ENTRY_FOLD);
	ua__syscall_register(UA_NR_swapcontext, ua__sys_swapcontext, 0);
}

/* Monitor side. */

int ua_task_kill(struct ua_task *t, int sig)
{
	siginfo_t info;

	if (!t || sig < 0 || sig > UA_NSIG)
		return -EINVAL;
	if (!sig)
		return ua__task_gone(t) ? -ESRCH : 0;
	sender_info(&info, sig, SI_USER);
	return ua__sig_send(t, sig, &info, false);
}

int ua_task_sigqueue(struct ua_task *t, int sig, union sigval value)
{
	siginfo_t info;

	if (!t || !valid_sig(sig))
		return -EINVAL;
	sender_info(&info, sig, SI_QUEUE);
	info.si_value = value;
	return ua__sig_send(t, sig, &info, true);
}

/* Guest side: libc-style wrappers. */

static long result(long ret)
{
	if (ret < 0 && ret > -4096) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

#define SYS(nr, a, b, c, d) \
	result(ua__syscall((nr), (long)(a), (long)(b), (long)(c), (long)(d), 0))

int ua_sys_sigaction(int sig, const struct sigaction *act,
		     struct sigaction *oact)
{
	struct ua_ksigaction k, ko;
	int ret;

	/* As glibc: the kernel layout, with our restorer unless one is given. */
	if (act) {
		k.handler = (uint64_t)(uintptr_t)act->sa_handler;
		k.flags = (uint64_t)(unsigned int)act->sa_flags;
		k.mask = act->sa_mask.__val[0];
		if (k.flags & UA_SA_RESTORER) {
			k.restorer = (uint64_t)(uintptr_t)act->sa_restorer;
		} else {
			k.flags |= UA_SA_RESTORER;
			k.restorer = (uint64_t)(uintptr_t)ua__restore_rt;
		}
	}
	ret = (int)SYS(UA_NR_rt_sigaction, sig, act ? &k : NULL,
		       oact ? &ko : NULL, 8);
	if (!ret && oact) {
		memset(oact, 0, sizeof(*oact));
		oact->sa_handler = (void (*)(int))(uintptr_t)ko.handler;
		oact->sa_flags = (int)ko.flags;
		oact->sa_restorer = (void (*)(void))(uintptr_t)ko.restorer;
		oact->sa_mask.__val[0] = ko.mask;
	}
	return ret;
}

int ua_sys_sigprocmask(int how, const sigset_t *set, sigset_t *oset)
{
	return (int)SYS(UA_NR_rt_sigprocmask, how, set, oset, 8);
}

int ua_sys_sigpending(sigset_t *set)
{
	return (int)result(ua__syscall(UA_NR_rt_sigpending, (long)set, 8, 0,
				       0, 0));
}

int ua_sys_sigsuspend(const sigset_t *mask)
{
	return (int)result(ua__syscall(UA_NR_rt_sigsuspend, (long)mask, 8, 0,
				       0, 0));
}

int ua_sys_pause(void)
{
	return (int)SYS(UA_NR_pause, 0, 0, 0, 0);
}

int ua_sys_futex_wait(const int *uaddr, int val)
{
	return (int)SYS(UA_NR_futex_wait, uaddr, val, 0, 0);
}

int ua_sys_sigaltstack(const stack_t *ss, stack_t *oss)
{
	return (int)SYS(UA_NR_sigaltstack, ss, oss, 0, 0);
}

int ua_sys_kill(pid_t pid, int sig)
{
	return (int)SYS(UA_NR_kill, pid, sig, 0, 0);
}

int ua_sys_tgkill(pid_t tgid, pid_t tid, int sig)
{
	return (int)SYS(UA_NR_tgkill, tgid, tid, sig, 0);
}

/*
 * One syscall, as glibc's raise() (which has its pid and tid at hand):
 * the ids come from the monitor's thread state, not from two more calls.
 */
int ua_sys_raise(int sig)
{
	struct ua_task *t = ua_current_task();

	if (!t) {
		errno = EPERM;
		return -1;
	}
	return ua_sys_tgkill(ua__monitor_pid(), ua_task_tid(t), sig);
}

int ua_sys_rt_sigqueueinfo(pid_t tgid, int sig, siginfo_t *info)
{
	return (int)SYS(UA_NR_rt_sigqueueinfo, tgid, sig, info, 0);
}

int ua_sys_swapcontext(ucontext_t *oucp, const ucontext_t *ucp)
{
	return (int)SYS(UA_NR_swapcontext, oucp, ucp, 0, 0);
}

static _Atomic uid_t monitor_uid = (uid_t)-1;

/* Read once: a syscall per signal would cost more than the delivery. */
uid_t ua__monitor_uid(void)
{
	uid_t u = atomic_load_explicit(&monitor_uid, memory_order_relaxed);

	if (u == (uid_t)-1) {
		u = getuid();
		atomic_store_explicit(&monitor_uid, u, memory_order_relaxed);
	}
	return u;
}

/* The same without the host: -1 until ua__monitor_uid() has run once. */
UA_FAST uid_t ua__fast_monitor_uid(void)
{
	return atomic_load_explicit(&monitor_uid, memory_order_relaxed);
}

static _Atomic pid_t monitor_pid;
static pthread_once_t pid_once = PTHREAD_ONCE_INIT;

/* A forked monitor (a guest's fork, src/task/fork.c) asks again. */
static void pid_forget(void)
{
	atomic_store_explicit(&monitor_pid, 0, memory_order_relaxed);
}

static void pid_once_init(void)
{
	pthread_atfork(NULL, NULL, pid_forget);
}

pid_t ua__monitor_pid(void)
{
	pid_t p = atomic_load_explicit(&monitor_pid, memory_order_relaxed);

	if (!p) {
		/* Before the first cached value: no child may inherit one. */
		pthread_once(&pid_once, pid_once_init);
		p = getpid();
		atomic_store_explicit(&monitor_pid, p, memory_order_relaxed);
	}
	return p;
}

/* The same without the host: 0 until ua__monitor_pid() has run once. */
UA_FAST pid_t ua__fast_monitor_pid(void)
{
	return atomic_load_explicit(&monitor_pid, memory_order_relaxed);
}
