// SPDX-License-Identifier: MIT
/*
 * The signal calls by their Linux numbers.  The signal layer implements
 * them (kernel/signal.c semantics); this file only adapts the register
 * convention, and adds what a libc needs beyond it: tkill,
 * rt_tgsigqueueinfo and rt_sigtimedwait.  A signal for another process
 * (a forked child, a process group) is the host's to send: pids are the
 * host's, and the program's process is the monitor's (sys_process.c).
 */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "linux_internal.h"

#define UA_CALL(name, ua_nr)                                              \
	static long name(struct ua_task *t, struct ua_pt_regs *r)          \
	{                                                                  \
		return ua__lx_call_ua(t, r, ua_nr);                        \
	}

UA_CALL(sigaction_ua, UA_NR_rt_sigaction)
UA_CALL(sigprocmask_ua, UA_NR_rt_sigprocmask)
UA_CALL(sys_rt_sigpending, UA_NR_rt_sigpending)
UA_CALL(sys_rt_sigsuspend, UA_NR_rt_sigsuspend)
UA_CALL(sys_pause, UA_NR_pause)
UA_CALL(sys_sigaltstack, UA_NR_sigaltstack)
UA_CALL(sys_rt_sigqueueinfo, UA_NR_rt_sigqueueinfo)

/*
 * set_user_sigmask() for ppoll, pselect6 and epoll_pwait: the call's mask
 * replaces the thread's until ua__lx_mask_end().  1 if a signal the new
 * mask lets through is pending already (the call then only polls), 0,
 * or the kernel's error for the mask.
 */
long ua__lx_mask_begin(struct ua_task *t, uint64_t umask, uint64_t size)
{
	struct ua_sigstate *s = sigstate(t);
	uint64_t mask;

	if (!umask)
		return 0;
	if (size != sizeof(mask))
		return -EINVAL;
	if (ua_copy_from_user(&mask, (const void *)umask, sizeof(mask)))
		return -EFAULT;
	s->saved_mask = atomic_load(&s->blocked);
	s->restore_mask = true;
	ua__sig_set_blocked(t, mask);
	/* Against a sender that read the old mask: it queued first. */
	atomic_thread_fence(memory_order_seq_cst);
	return (ua__sig_pending(s) & ~atomic_load(&s->blocked)) != 0;
}

/*
 * restore_saved_sigmask_unless(): the thread's mask comes back now,
 * unless a signal ended the call: then the exit work delivers it under
 * the call's mask and puts the old one in its frame (signal/frame.c).
 */
long ua__lx_mask_end(struct ua_task *t, long ret)
{
	struct ua_sigstate *s = sigstate(t);

	if (!s->restore_mask || ret == -EINTR || ret == -ERESTARTNOHAND)
		return ret;
	s->restore_mask = false;
	ua__sig_set_blocked(t, s->saved_mask);
	return ret;
}

/*
 * do_sigaction(): a disposition that ignores sig drops it from every
 * thread's queue, not only the caller's and the process's.
 */
static long sys_rt_sigaction(struct ua_task *t, struct ua_pt_regs *r)
{
	long ret = sigaction_ua(t, r);
	int sig = (int)ARG1(r);

	if (!ret && ARG2(r) && sig > 0 && sig <= UA_NSIG &&
	    ua__sig_ignored(sigstate(t), sig))
		ua__lx_flush_others(t, sig);
	return ret;
}

/*
 * set_current_blocked(): signals of the process's queue the caller now
 * blocks are another thread's to take (retarget_shared_pending()).
 */
static long sys_rt_sigprocmask(struct ua_task *t, struct ua_pt_regs *r)
{
	uint64_t old = atomic_load(&sigstate(t)->blocked);
	long ret = sigprocmask_ua(t, r);

	if (!ret)
		ua__lx_retarget(t, atomic_load(&sigstate(t)->blocked) & ~old);
	return ret;
}

static long sys_rt_sigreturn(struct ua_task *t, struct ua_pt_regs *r)
{
	return ua__sys_rt_sigreturn(t, r);
}

/* A signal for another process, or for the host's -1 and groups. */
static long host_kill(long nr, long a1, long a2, long a3)
{
	long ret = syscall(nr, a1, a2, a3);

	return ret < 0 ? -errno : ret;
}

/* A thread id of this process's, when it has several threads. */
static bool own_thread(struct ua_task *t, pid_t tid)
{
	return lx_threaded(lx_proc(t)) &&
	       ua__lx_signal_thread(t, tid, 0, NULL) == 0;
}

/*
 * Groups (pid < -1), -1 and kill(0) are the host's calls: every guest
 * process is a host process, and the host sends the monitor its own
 * share as a host signal, forwarded (hostsig.c) and taken at the exit
 * work before the call returns, as the kernel's would be.  A signal the
 * library keeps for itself (the faults, SIGSYS: hostsig.c, kept()) would
 * not come back as the guest's: kill(0) of one stays the caller's own.
 */
static long sys_kill(struct ua_task *t, struct ua_pt_regs *r)
{
	pid_t pid = (pid_t)ARG1(r);
	int sig = (int)ARG2(r);
	siginfo_t info;

	if (pid == 0 && (!sig || ua__host_sig_forwarded(sig)))
		return host_kill(SYS_kill, 0, sig, 0);
	if ((pid == 0 || pid == ua__monitor_pid()) &&
	    lx_threaded(lx_proc(t))) {
		ua__lx_sender_info(&info, sig, SI_USER);
		return ua__lx_signal_group(t, sig, &info);
	}
	if (pid == 0 || pid == ua__monitor_pid())
		return ua__lx_call_ua(t, r, UA_NR_kill);
	/* kill() of a thread's id is a signal to its process. */
	if (own_thread(t, pid)) {
		ua__lx_sender_info(&info, sig, SI_USER);
		return ua__lx_signal_group(t, sig, &info);
	}
	return host_kill(SYS_kill, pid, sig, 0);
}

static long sys_tgkill(struct ua_task *t, struct ua_pt_regs *r)
{
	pid_t tgid = (pid_t)ARG1(r);
	siginfo_t info;

	if (tgid == ua__monitor_pid() && lx_threaded(lx_proc(t))) {
		if ((pid_t)ARG2(r) <= 0)
			return -EINVAL;
		ua__lx_sender_info(&info, (int)ARG3(r), SI_TKILL);
		return ua__lx_signal_thread(t, (pid_t)ARG2(r), (int)ARG3(r),
					    &info);
	}
	if (tgid <= 0 || tgid == ua__monitor_pid())
		return ua__lx_call_ua(t, r, UA_NR_tgkill);
	return host_kill(SYS_tgkill, tgid, (pid_t)ARG2(r), (int)ARG3(r));
}

/* tkill(tid, sig): a thread of this process, or another's. */
static long sys_tkill(struct ua_task *t, struct ua_pt_regs *r)
{
	struct ua_pt_regs tmp = *r;
	siginfo_t info;

	if ((pid_t)ARG1(r) <= 0)
		return -EINVAL;
	if (own_thread(t, (pid_t)ARG1(r))) {
		ua__lx_sender_info(&info, (int)ARG2(r), SI_TKILL);
		return ua__lx_signal_thread(t, (pid_t)ARG1(r), (int)ARG2(r),
					    &info);
	}
	if ((pid_t)ARG1(r) != ua__monitor_pid())
		return host_kill(SYS_tkill, (pid_t)ARG1(r), (int)ARG2(r), 0);
	tmp.rdi = (uint64_t)ua__monitor_pid();
	tmp.rsi = ARG1(r);
	tmp.rdx = ARG2(r);
	return ua__lx_call_ua(t, &tmp, UA_NR_tgkill);
}

/*
 * The queueing calls within a process of several threads: the kernel's
 * checks (a sender may not claim kill()'s or tgkill()'s codes), then
 * the thread or the group.
 */
static long queue_threaded(struct ua_task *t, pid_t tid, int sig,
			   uint64_t uinfo)
{
	siginfo_t info;

	if (ua_copy_from_user(&info, (void *)uinfo, sizeof(info)))
		return -EFAULT;
	if ((info.si_code >= 0 || info.si_code == SI_TKILL) &&
	    ua__lx_tid(t) != tid)
		return -EPERM;
	info.si_signo = sig;
	return ua__lx_signal_thread(t, tid, sig, &info);
}

static long sys_rt_sigqueueinfo_lx(struct ua_task *t, struct ua_pt_regs *r)
{
	siginfo_t info;

	if ((pid_t)ARG1(r) == ua__monitor_pid() && lx_threaded(lx_proc(t))) {
		if (ua_copy_from_user(&info, (void *)ARG3(r), sizeof(info)))
			return -EFAULT;
		if ((info.si_code >= 0 || info.si_code == SI_TKILL) &&
		    ua__lx_tid(t) != ua__monitor_pid())
			return -EPERM;
		info.si_signo = (int)ARG2(r);
		return ua__lx_signal_group(t, (int)ARG2(r), &info);
	}
	return sys_rt_sigqueueinfo(t, r);
}

static long sys_rt_tgsigqueueinfo(struct ua_task *t, struct ua_pt_regs *r)
{
	struct ua_pt_regs tmp = *r;

	if ((pid_t)ARG1(r) == ua__monitor_pid() && lx_threaded(lx_proc(t)))
		return queue_threaded(t, (pid_t)ARG2(r), (int)ARG3(r),
				      ARG4(r));

	if ((pid_t)ARG1(r) != ua__monitor_pid())
		return -ESRCH;
	tmp.rdi = ARG2(r);
	tmp.rsi = ARG3(r);
	tmp.rdx = ARG4(r);
	return ua__lx_call_ua(t, &tmp, UA_NR_rt_sigqueueinfo);
}

/* do_sigtimedwait(): dequeue from set, or wait for one, or time out. */
static long sys_rt_sigtimedwait(struct ua_task *t, struct ua_pt_regs *r)
{
	struct ua_sigstate *s = sigstate(t);
	uint64_t set, old = s->blocked;
	struct timespec ts, deadline;
	siginfo_t info;
	int sig;

	if (ARG4(r) != 8)
		return -EINVAL;
	if (ua_copy_from_user(&set, (void *)ARG1(r), 8))
		return -EFAULT;
	set &= ~UNBLOCKABLE;
	if (ARG3(r)) {
		if (ua_copy_from_user(&ts, (void *)ARG3(r), sizeof(ts)))
			return -EFAULT;
		if (!ua__lx_ts_valid(&ts))
			return -EINVAL;
		ua__lx_deadline(&deadline, &ts);
	}
	/* A signal for the process may pick this thread while it waits. */
	atomic_store(&s->waiting, set);
	for (;;) {
		sig = ua__sig_dequeue_set(t, set, &info);
		if (sig)
			break;
		if (ua__sig_pending(s) & ~old) {
			sig = -EINTR;
			break;
		}
		if (ua__lx_wait(t, ARG3(r) ? &deadline : NULL, set)) {
			sig = -EAGAIN;
			break;
		}
	}
	atomic_store(&s->waiting, 0);
	if (sig > 0 && ARG2(r) &&
	    ua_copy_to_user((void *)ARG2(r), &info, sizeof(info)))
		return -EFAULT;
	return sig;
}

static const struct lx_call calls[] = {
	{ SYS_rt_sigaction, "rt_sigaction", sys_rt_sigaction, "dppu" },
	{ SYS_rt_sigprocmask, "rt_sigprocmask", sys_rt_sigprocmask, "dppu" },
	{ SYS_rt_sigreturn, "rt_sigreturn", sys_rt_sigreturn, "-" },
	{ SYS_rt_sigpending, "rt_sigpending", sys_rt_sigpending, "pu" },
	{ SYS_rt_sigsuspend, "rt_sigsuspend", sys_rt_sigsuspend, "pu" },
	{ SYS_rt_sigtimedwait, "rt_sigtimedwait", sys_rt_sigtimedwait,
	  "pppu" },
	{ SYS_rt_sigqueueinfo, "rt_sigqueueinfo", sys_rt_sigqueueinfo_lx,
	  "ddp" },
	{ SYS_rt_tgsigqueueinfo, "rt_tgsigqueueinfo", sys_rt_tgsigqueueinfo,
	  "dddp" },
	{ SYS_sigaltstack, "sigaltstack", sys_sigaltstack, "pp" },
	{ SYS_kill, "kill", sys_kill, "dd" },
	{ SYS_tgkill, "tgkill", sys_tgkill, "ddd" },
	{ SYS_tkill, "tkill", sys_tkill, "dd" },
	{ SYS_pause, "pause", sys_pause, "-" },
};

void ua__lx_signal_init(void)
{
	LX_REGISTER(calls);
}
