// SPDX-License-Identifier: MIT
/*
 * The signal calls by their Linux numbers.  The signal layer implements
 * them (kernel/signal.c semantics); this file only adapts the register
 * convention, and adds what a libc needs beyond it: tkill,
 * rt_tgsigqueueinfo and rt_sigtimedwait.
 */
#include <string.h>
#include <time.h>

#include "linux_internal.h"

#define UA_CALL(name, ua_nr)                                              \
	static long name(struct ua_task *t, struct ua_pt_regs *r)          \
	{                                                                  \
		return ua__lx_call_ua(t, r, ua_nr);                        \
	}

UA_CALL(sys_rt_sigaction, UA_NR_rt_sigaction)
UA_CALL(sys_rt_sigprocmask, UA_NR_rt_sigprocmask)
UA_CALL(sys_rt_sigpending, UA_NR_rt_sigpending)
UA_CALL(sys_rt_sigsuspend, UA_NR_rt_sigsuspend)
UA_CALL(sys_pause, UA_NR_pause)
UA_CALL(sys_sigaltstack, UA_NR_sigaltstack)
UA_CALL(sys_kill, UA_NR_kill)
UA_CALL(sys_tgkill, UA_NR_tgkill)
UA_CALL(sys_rt_sigqueueinfo, UA_NR_rt_sigqueueinfo)

static long sys_rt_sigreturn(struct ua_task *t, struct ua_pt_regs *r)
{
	return ua__sys_rt_sigreturn(t, r);
}

/* tkill(tid, sig): tgkill within the one process there is. */
static long sys_tkill(struct ua_task *t, struct ua_pt_regs *r)
{
	struct ua_pt_regs tmp = *r;

	if ((pid_t)ARG1(r) <= 0)
		return -EINVAL;
	tmp.rdi = (uint64_t)ua__monitor_pid();
	tmp.rsi = ARG1(r);
	tmp.rdx = ARG2(r);
	return ua__lx_call_ua(t, &tmp, UA_NR_tgkill);
}

static long sys_rt_tgsigqueueinfo(struct ua_task *t, struct ua_pt_regs *r)
{
	struct ua_pt_regs tmp = *r;

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
		if (ts.tv_sec < 0 || (unsigned long)ts.tv_nsec >= 1000000000)
			return -EINVAL;
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec += ts.tv_sec;
		deadline.tv_nsec += ts.tv_nsec;
		if (deadline.tv_nsec >= 1000000000) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000;
		}
	}
	for (;;) {
		ua__sig_set_blocked(t, ~set);
		sig = ua__sig_dequeue(t, &info);
		ua__sig_set_blocked(t, old);
		if (sig) {
			if (ARG2(r) &&
			    ua_copy_to_user((void *)ARG2(r), &info,
					    sizeof(info)))
				return -EFAULT;
			return sig;
		}
		if (atomic_load(&s->pending) & ~old)
			return -EINTR;
		if (ua__lx_wait(t, ARG3(r) ? &deadline : NULL, set))
			return -EAGAIN;
	}
}

static const struct lx_call calls[] = {
	{ SYS_rt_sigaction, "rt_sigaction", sys_rt_sigaction, "dppu" },
	{ SYS_rt_sigprocmask, "rt_sigprocmask", sys_rt_sigprocmask, "dppu" },
	{ SYS_rt_sigreturn, "rt_sigreturn", sys_rt_sigreturn, "-" },
	{ SYS_rt_sigpending, "rt_sigpending", sys_rt_sigpending, "pu" },
	{ SYS_rt_sigsuspend, "rt_sigsuspend", sys_rt_sigsuspend, "pu" },
	{ SYS_rt_sigtimedwait, "rt_sigtimedwait", sys_rt_sigtimedwait,
	  "pppu" },
	{ SYS_rt_sigqueueinfo, "rt_sigqueueinfo", sys_rt_sigqueueinfo,
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
