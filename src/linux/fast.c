// SPDX-License-Identifier: MIT
/*
 * The Linux calls the rewrite fast path answers on the guest's FS base
 * (src/task/trap_fast.c says why, and what such code may not do):
 * getpid, gettid and getppid from the monitor's own state, read and
 * write on the monitor's /dev/zero and /dev/null, a signal the task sends
 * itself (kill, tgkill, tkill: delivered, or queued while it is blocked),
 * rt_sigprocmask (and the delivery of a signal it lets through) and the
 * rt_sigreturn that ends a handler (src/signal/fast.c), and three calls
 * that only look at the host's files: newfstatat, fstat and getdents64.
 * Each gives what the full path's handler gives (sys_proc.c, sys_file.c,
 * sys_signal.c, sys_fs.c), with the same counts, or declines before it
 * changes anything.
 *
 * Those three are the bulk of what find, du or ls make, and without
 * FSGSBASE the full path costs them two arch_prctl calls each, more than
 * the call itself on some virtual machines.  Here the host reads the
 * path and writes the result where the guest has them, as it would for
 * the program run natively: only where everything it may touch lies in
 * the space (under backend none, the only one this path takes, the
 * monitor's own memory is outside it), so guest pointers cannot make it
 * read or write the monitor's.  The full path copies through a buffer of
 * its own; the results are the same bytes, and its windows are counted
 * here as it opens them.
 */
#include <sys/stat.h>

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

/*
 * A host syscall on the guest's FS base: no libc wrapper (errno is
 * thread-local), the result as the kernel returns it.  The trap block's
 * selector allows it (trap.S); a host signal meanwhile is taken as for
 * the rest of this path (src/task/trap_fast.c).
 */
static inline UA_FAST long fast_host(long nr, long a1, long a2, long a3,
				     long a4)
{
	register long r10 __asm__("r10") = a4;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

/* The windows the full path would have opened (lean: see internal.h). */
static inline UA_FAST void fast_windows(struct ua_thread *self, unsigned n)
{
	self->lean_seq += 2u * n;
}

/*
 * The host descriptor behind a guest one, for the calls below.  With
 * several threads another may close and reuse it meanwhile, and the
 * full path orders that: they take it.
 */
static inline UA_FAST int fast_host_fd(struct lx_proc *p, uint64_t fd)
{
	struct lx_file *f = fast_file(p, fd);

	if (!f || f->kind != LX_FD_HOST || lx_threaded(p))
		return -1;
	return f->host;
}

/*
 * newfstatat(dfd, path, st, flags) (sys_fs.c do_fstatat()): its flags
 * check, then the host's call.  The host reads at most PATH_MAX bytes of
 * path.  An error costs the full path one window (the path's copy),
 * success two.  AT_EMPTY_PATH on a host descriptor is glibc's fstat():
 * the full path's fstat of it, the same two windows; on AT_FDCWD, and
 * EFAULT whichever pointer it came from, the full path's (nothing was
 * changed).
 */
static inline UA_FAST long fast_fstatat(struct ua_task *t, struct lx_proc *p,
					struct ua_thread *self)
{
	struct ua_pt_regs *r = &t->regs;
	int flags = (int)ARG4(r), hdfd = AT_FDCWD;
	void *path = (void *)ARG2(r), *st = (void *)ARG3(r);
	long ret;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT))
		return UA_FAST_DECLINE;
	if ((int)ARG1(r) != AT_FDCWD)
		hdfd = fast_host_fd(p, ARG1(r));
	else if (flags & AT_EMPTY_PATH)
		return UA_FAST_DECLINE;
	if (hdfd < 0 && hdfd != AT_FDCWD)
		return UA_FAST_DECLINE;
	if (!ua__space_has(t->sp, path, PATH_MAX) ||
	    !ua__space_has(t->sp, st, sizeof(struct stat)))
		return UA_FAST_DECLINE;
	ret = fast_host(SYS_newfstatat, hdfd, (long)path, (long)st, flags);
	if (ret == -EFAULT || ret == -EINTR)
		return UA_FAST_DECLINE;
	fast_windows(self, ret ? 1 : 2);
	return ret;
}

/* fstat(fd, st) of a host descriptor (sys_file.c ua__lx_fstat()). */
static inline UA_FAST long fast_fstat(struct ua_task *t, struct lx_proc *p,
				      struct ua_thread *self)
{
	struct ua_pt_regs *r = &t->regs;
	void *st = (void *)ARG2(r);
	int h = fast_host_fd(p, ARG1(r));
	long ret;

	if (h < 0 || !ua__space_has(t->sp, st, sizeof(struct stat)))
		return UA_FAST_DECLINE;
	ret = fast_host(SYS_fstat, h, (long)st, 0, 0);
	if (ret == -EFAULT || ret == -EINTR)
		return UA_FAST_DECLINE;
	fast_windows(self, !ret);
	return ret;
}

/*
 * getdents64(fd, buf, count) of a host descriptor (sys_fs.c): at most
 * 64 KiB a call, as the full path's buffer.  It moves the directory's
 * position, so nothing after it declines: a fault in buf is the EFAULT
 * the program would get natively, with the one window the full path's
 * failed copy costs.
 */
static inline UA_FAST long fast_getdents(struct ua_task *t, struct lx_proc *p,
					 struct ua_thread *self)
{
	struct ua_pt_regs *r = &t->regs;
	void *buf = (void *)ARG2(r);
	size_t count = ARG3(r) < (64u << 10) ? ARG3(r) : (64u << 10);
	int h = fast_host_fd(p, ARG1(r));
	long ret;

	if (h < 0 || !count || !ua__space_has(t->sp, buf, count))
		return UA_FAST_DECLINE;
	ret = fast_host(SYS_getdents64, h, (long)buf, (long)count, 0);
	fast_windows(self, ret > 0 || ret == -EFAULT);
	return ret;
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
	case SYS_newfstatat:
		ret = fast_fstatat(t, p, self);
		break;
	case SYS_fstat:
		ret = fast_fstat(t, p, self);
		break;
	case SYS_getdents64:
		ret = fast_getdents(t, p, self);
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
