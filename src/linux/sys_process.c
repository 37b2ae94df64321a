// SPDX-License-Identifier: MIT
/*
 * New processes and waiting for them: fork, vfork, clone and clone3
 * without CLONE_VM (or, for posix_spawn, CLONE_VM|CLONE_VFORK), wait4 and
 * waitid.  A guest's child is a forked host process whose monitor carries
 * on the calling task only (src/task/fork.c), so pids, exit statuses,
 * SIGCHLD and the reaping rules are the host kernel's own: a child's
 * monitor ends the way its guest ended (uarun's exit_like()), and the
 * SIGCHLD the host sends reaches the guest as a forwarded host signal.
 *
 * Threads (CLONE_THREAD) are sys_thread.c's.
 * Not yet: CLONE_VM sharing beyond vfork's wait
 * (the child's writes stay its own, so posix_spawn cannot hand back an
 * exec error through memory), pidfds, namespaces.
 */
#include <linux/sched.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux_internal.h"

#define CLONE_EXIT_SIGNAL 0xff
/* What a forked child with no shared state may ask for. */
#define CLONE_FORK_OK                                                      \
	(CLONE_EXIT_SIGNAL | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID |    \
	 CLONE_PARENT_SETTID | CLONE_VFORK | CLONE_VM | CLONE_SETTLS)

struct fork_args {
	uint64_t flags;
	uintptr_t child_tid, parent_tid, stack, tls;
	int exit_signal;
};

static void say_once(bool *said, const char *what)
{
	if (*said)
		return;
	*said = true;
	ua__write_str(2, what);
}

/*
 * The child's side, in its own copy of everything: the kernel's order in
 * copy_process() (CLONE_CHILD_SETTID written by the child, before it
 * runs user code; CLONE_CHILD_CLEARTID recorded for its exit).
 */
static void child_side(struct ua_task *t, struct ua_pt_regs *r,
		       const struct fork_args *a)
{
	struct lx_proc *p = lx_proc(t);

	ua__sig_after_fork(t);
	ua__lx_sigfd_after_fork(t);
	ua__lx_timer_reset(p);
	ua__lx_ptimers_reset(p);
	ua__lx_threads_after_fork(t);
	if (a->flags & CLONE_CHILD_SETTID)
		ua_put_user((int)getpid(), (int *)a->child_tid);
	if (a->flags & CLONE_CHILD_CLEARTID)
		lx_thr(t)->clear_child_tid = a->child_tid;
	if (a->stack)
		r->rsp = a->stack;
	if (a->flags & CLONE_SETTLS)
		t->tb.guest_fs = a->tls;
}

/*
 * vfork: the parent goes on once the child has exec'd or ended.  The
 * child holds the write end of a close-on-exec pipe; the host closes it
 * at either, and the parent's read sees the end.
 */
static long do_fork(struct ua_task *t, struct ua_pt_regs *r,
		    const struct fork_args *a)
{
	bool vfork = a->flags & CLONE_VFORK, threaded;
	int pfd[2] = { -1, -1 };
	pid_t pid;
	char c;

	/* Ended threads' host threads gone first (ua__lx_reap()). */
	ua__lx_reap(lx_proc(t));
	if (vfork && pipe2(pfd, O_CLOEXEC))
		return -EAGAIN;
	lx_proc(t)->trace_pids = true;
	/* No other thread is inside a call that changes shared state. */
	threaded = lx_threaded(lx_proc(t));
	if (threaded)
		ua__lx_big_lock(lx_proc(t));
	pid = ua__task_fork(t);
	if (threaded && pid != 0)
		ua__lx_big_unlock(lx_proc(t));
	if (pid < 0) {
		if (vfork) {
			close(pfd[0]);
			close(pfd[1]);
		}
		return pid == -ENOMEM ? -ENOMEM : -EAGAIN;
	}
	if (!pid) {
		if (vfork)
			close(pfd[0]);
		child_side(t, r, a);
		return 0;
	}
	if (a->flags & CLONE_PARENT_SETTID)
		ua_put_user((int)pid, (int *)a->parent_tid);
	if (vfork) {
		close(pfd[1]);
		while (read(pfd[0], &c, 1) < 0 && errno == EINTR)
			;
		close(pfd[0]);
	}
	return pid;
}

/* The kernel's checks in copy_process() and clone3's, then ours. */
static long clone_common(struct ua_task *t, struct ua_pt_regs *r,
			 struct fork_args *a)
{
	static bool said;

	if ((a->flags & CLONE_THREAD) && !(a->flags & CLONE_SIGHAND))
		return -EINVAL;
	if ((a->flags & CLONE_SIGHAND) && !(a->flags & CLONE_VM))
		return -EINVAL;
	if (a->flags & CLONE_THREAD)
		return ua__lx_clone_thread(t, r, a->flags, a->stack,
					   a->parent_tid, a->child_tid,
					   a->tls);
	if (a->flags & ~(uint64_t)CLONE_FORK_OK ||
	    ((a->flags & CLONE_VM) && !(a->flags & CLONE_VFORK))) {
		say_once(&said, "uaccess: clone with CLONE_VM, CLONE_THREAD "
				"or namespaces: threads and shared address "
				"spaces are not supported yet (ENOSYS)\n");
		return -ENOSYS;
	}
	return do_fork(t, r, a);
}

static long sys_fork(struct ua_task *t, struct ua_pt_regs *r)
{
	struct fork_args a = { .flags = SIGCHLD, .exit_signal = SIGCHLD };

	return do_fork(t, r, &a);
}

static long sys_vfork(struct ua_task *t, struct ua_pt_regs *r)
{
	struct fork_args a = { .flags = CLONE_VM | CLONE_VFORK | SIGCHLD,
			       .exit_signal = SIGCHLD };

	return do_fork(t, r, &a);
}

/* clone(flags, stack, parent_tid, child_tid, tls): x86-64's order. */
static long sys_clone(struct ua_task *t, struct ua_pt_regs *r)
{
	struct fork_args a = {
		.flags = ARG1(r) & 0xffffffffull,
		.stack = ARG2(r),
		.parent_tid = ARG3(r),
		.child_tid = ARG4(r),
		.tls = ARG5(r),
	};

	a.exit_signal = (int)(a.flags & CLONE_EXIT_SIGNAL);
	if (a.exit_signal > 64)
		return -EINVAL;
	return clone_common(t, r, &a);
}

/* struct clone_args (include/uapi/linux/sched.h), its first 64 bytes. */
struct lx_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack,
		stack_size, tls;
};

static long sys_clone3(struct ua_task *t, struct ua_pt_regs *r)
{
	struct lx_clone_args ca;
	size_t size = ARG2(r);
	struct fork_args a;
	long ret;

	/* CLONE_ARGS_SIZE_VER0 (64) up to a page: copy_struct_from_user. */
	if (size < sizeof(ca) || size > 4096)
		return -EINVAL;
	ret = ua_copy_struct_from_user(&ca, sizeof(ca), (void *)ARG1(r), size);
	if (ret)
		return ret;
	if (ca.exit_signal > 64 || (ca.flags & CLONE_EXIT_SIGNAL))
		return -EINVAL;
	if (!!ca.stack != !!ca.stack_size)
		return -EINVAL;
	a = (struct fork_args){
		.flags = ca.flags | ca.exit_signal,
		.child_tid = ca.child_tid,
		.parent_tid = ca.parent_tid,
		.stack = ca.stack ? ca.stack + ca.stack_size : 0,
		.tls = ca.tls,
		.exit_signal = (int)ca.exit_signal,
	};
	return clone_common(t, r, &a);
}

/* The guest's rusage, as the host filled it (same layout). */
static int put_rusage(uintptr_t addr, const struct rusage *ru)
{
	if (!addr)
		return 0;
	return ua_copy_to_user((void *)addr, ru, sizeof(*ru)) ? -EFAULT : 0;
}

static long sys_wait4(struct ua_task *t, struct ua_pt_regs *r)
{
	struct rusage ru;
	int status = 0;
	long ret;

	(void)t;
	ret = ua__host_call(SYS_wait4, (pid_t)ARG1(r), (long)&status,
			    (int)ARG3(r), ARG4(r) ? (long)&ru : 0, 0, 0);
	if (ret <= 0)
		return ret;
	if (ARG2(r) && ua_put_user(status, (int *)ARG2(r)))
		return -EFAULT;
	return put_rusage(ARG4(r), &ru) ?: ret;
}

static long sys_waitid(struct ua_task *t, struct ua_pt_regs *r)
{
	struct rusage ru;
	siginfo_t info;
	long ret;

	(void)t;
	memset(&info, 0, sizeof(info));
	ret = ua__host_call(SYS_waitid, (int)ARG1(r), (pid_t)ARG2(r),
			    ARG3(r) ? (long)&info : 0, (int)ARG4(r),
			    ARG5(r) ? (long)&ru : 0, 0);
	if (ret < 0)
		return ret;
	if (ARG3(r) && ua_copy_to_user((void *)ARG3(r), &info, sizeof(info)))
		return -EFAULT;
	return put_rusage(ARG5(r), &ru) ?: ret;
}

static const struct lx_call calls[] = {
	{ SYS_fork, "fork", sys_fork, "-" },
	{ SYS_vfork, "vfork", sys_vfork, "-" },
	{ SYS_clone, "clone", sys_clone, "xppp" },
	{ SYS_clone3, "clone3", sys_clone3, "pu" },
	{ SYS_wait4, "wait4", sys_wait4, "dpxp" },
	{ SYS_waitid, "waitid", sys_waitid, "ddpxp" },
};

void ua__lx_process_init(void)
{
	LX_REGISTER(calls);
}
