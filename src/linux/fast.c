// SPDX-License-Identifier: MIT
/*
 * The Linux calls the rewrite fast path answers on the guest's FS base
 * (src/task/trap_fast.c says why, and what such code may not do):
 * getpid, gettid and getppid from the monitor's own state, read and
 * write on the monitor's /dev/zero and /dev/null, a signal the task sends
 * itself (kill, tgkill, tkill: delivered, or queued while it is blocked),
 * rt_sigprocmask (and the delivery of a signal it lets through) and the
 * rt_sigreturn that ends a handler (src/signal/fast.c).  Each gives what
 * the full path's handler gives (sys_proc.c, sys_file.c, sys_signal.c),
 * with the same counts, or declines before it changes anything.
 */
#include "linux_internal.h"

/* Reads up to this size only; larger ones take the full path. */
#define FAST_READ_MAX (64u << 10)

static inline UA_FAST struct lx_file *fast_file(struct lx_proc *p, uint64_t fd)
{
	int i = (int)fd;

	if (i < 0 || i >= LX_NFDS)
		return NULL;
	return &p->files[i];
}

/*
 * read() of /dev/zero: rw_buf(), do_read(), ua_iov_iter_zero() and
 * ua_clear_user() in one, with the none backend's inline window.
 */
static inline UA_FAST long fast_read(struct ua_task *t, struct lx_proc *p,
				     struct ua_thread *self)
{
	struct ua_pt_regs *r = &t->regs;
	struct lx_file *f = fast_file(p, ARG1(r));
	void *buf = (void *)ARG2(r);
	size_t n = ARG3(r), left;

	if (!f || f->kind != LX_FD_ZERO || !lx_dev_mode_ok(f, false))
		return UA_FAST_DECLINE;
#if UA_FORCE_GENERIC_ARCH
	/* The portable clear keeps its recovery point in ua_self. */
	return UA_FAST_DECLINE;
#endif
	if (!n || n > FAST_READ_MAX || !ua__space_has(t->sp, buf, n))
		return UA_FAST_DECLINE;
	ua__lean_window_open(self);
	left = ua__clear_in_window(buf, n);
	ua__lean_window_close(self);
	return left == n ? -EFAULT : (long)(n - left);
}

/* write() to /dev/null or /dev/zero: checked, counted, not read. */
static inline UA_FAST long fast_write(struct ua_task *t, struct lx_proc *p)
{
	struct ua_pt_regs *r = &t->regs;
	struct lx_file *f = fast_file(p, ARG1(r));
	size_t n = ARG3(r);

	if (!f || (f->kind != LX_FD_NULL && f->kind != LX_FD_ZERO) ||
	    !lx_dev_mode_ok(f, true))
		return UA_FAST_DECLINE;
	if ((ssize_t)n < 0 || !ua__space_has(t->sp, (void *)ARG2(r), n))
		return UA_FAST_DECLINE;
	return (long)n;
}

/* Does pid name the calling task (sys_signal.c's names_self())? */
static inline UA_FAST bool fast_self(const struct ua_task *t, pid_t pid,
				     pid_t me)
{
	return pid == me || pid == t->tid;
}

/* kill(pid, sig), tgkill(tgid, tid, sig), tkill(tid, sig) of the task
 * by itself. */
static inline UA_FAST long fast_kill(struct ua_task *t, struct ua_thread *self,
				     uint64_t nr)
{
	struct ua_pt_regs *r = &t->regs;
	pid_t me = ua__fast_monitor_pid();

	if (!me)
		return UA_FAST_DECLINE;
	if (nr == SYS_kill) {
		if ((pid_t)ARG1(r) != 0 && !fast_self(t, (pid_t)ARG1(r), me))
			return UA_FAST_DECLINE;
		return ua__fast_signal_self(t, self, (int)ARG2(r), SI_USER);
	}
	if (nr == SYS_tkill) {
		/* sys_signal.c: tgkill within the one process there is. */
		if ((pid_t)ARG1(r) <= 0 || !fast_self(t, (pid_t)ARG1(r), me))
			return UA_FAST_DECLINE;
		return ua__fast_signal_self(t, self, (int)ARG2(r), SI_TKILL);
	}
	if ((pid_t)ARG1(r) != me || !fast_self(t, (pid_t)ARG2(r), me))
		return UA_FAST_DECLINE;
	return ua__fast_signal_self(t, self, (int)ARG3(r), SI_TKILL);
}

/*
 * The syscall in t->regs (orig_rax), or UA_FAST_DECLINE.  *work: exit
 * work is pending after it (a signal another thread queued meanwhile,
 * one a restored mask unblocked).
 */
UA_FAST long ua__fast_lx(struct ua_task *t, struct ua_thread *self, bool *work)
{
	struct lx_proc *p = lx_proc(t);
	uint64_t nr = t->regs.orig_rax;
	long ret;

	/* A signalfd's readiness follows every change to a pending set. */
	if (!p || p->trace_fd >= 0 || !t->sig || nr >= LX_NR_MAX ||
	    p->sigfds || ua__fast_sig_work_pending(t))
		return UA_FAST_DECLINE;
	/*
	 * A thread's id, who a signal is for, and a mask that hands the
	 * process's pending signals to another thread are the full path's.
	 */
	if (ua_unlikely(lx_threaded(p)) &&
	    (nr == SYS_gettid || nr == SYS_kill || nr == SYS_tgkill ||
	     nr == SYS_tkill ||
	     (nr == SYS_rt_sigprocmask &&
	      atomic_load(&sigstate(t)->sh->shared.pending))))
		return UA_FAST_DECLINE;
	switch (nr) {
	case SYS_getpid:
	case SYS_gettid:
		/* 0: not known yet; the full path asks the host. */
		ret = ua__fast_monitor_pid() ?: UA_FAST_DECLINE;
		break;
	case SYS_getppid:
		ret = ua__fast_ppid() ?: UA_FAST_DECLINE;
		break;
	case SYS_read:
		ret = fast_read(t, p, self);
		break;
	case SYS_write:
		/* An empty write is the full path's. */
		ret = fast_write(t, p) ?: UA_FAST_DECLINE;
		break;
	case SYS_kill:
	case SYS_tgkill:
	case SYS_tkill:
		ret = fast_kill(t, self, nr);
		break;
	case SYS_rt_sigprocmask:
		ret = ua__fast_sigprocmask(t, self, (int)ARG1(&t->regs),
					   ARG2(&t->regs), ARG3(&t->regs),
					   ARG4(&t->regs));
		break;
	case SYS_rt_sigreturn:
		ret = ua__fast_sigreturn(t, self);
		break;
	default:
		return UA_FAST_DECLINE;
	}
	if (ret == UA_FAST_DECLINE)
		return UA_FAST_DECLINE;
	p->counts[nr]++;
	*work = ua__fast_sig_work_pending(t);
	return ret;
}
