// SPDX-License-Identifier: MIT
/*
 * A guest's fork: the host process is forked with its monitor, and in the
 * child only the calling task goes on, as only the calling thread does in
 * a forked Linux process.  The space is private anonymous host memory (or
 * file copies), so the host's copy-on-write gives the child the guest's
 * memory as it was; the monitor's own memory and its host descriptors
 * come along the same way.
 *
 * What the host does not carry into the child is set up again here:
 * Syscall User Dispatch (cleared in a forked child: the task's trap
 * would go quiet), the parent-death signal behind the getppid cache
 * (cleared by fork), the monitor's helper threads (only the caller
 * survives fork) and the cached pids (the
 * signal layer forgets its own through pthread_atfork()).  The space's
 * lock is held across the fork, so that no other thread can leave it
 * held in the child (src/core/space.c).
 */
#include <errno.h>
#include <unistd.h>

#include "task_internal.h"

/*
 * In the child, before anything else runs there.  A child that cannot
 * trap its guest's syscalls must not run it: it ends, and its parent's
 * wait sees exit status 127 with the reason on stderr.
 */
static void child_reset(struct ua_task *t, pid_t parent)
{
	int err;

	ua__irq_after_fork();
	/*
	 * The space's other tasks had host threads, which fork leaves
	 * behind: the child's space counts only this one, running.
	 */
	atomic_store(&t->sp->tasks, 1);
	atomic_store(&t->sp->running, 1);
	atomic_store(&t->sp->users, ua_self.cur == t->sp);
	__atomic_store_n(&t->host_tid, gettid(), __ATOMIC_RELEASE);
	t->kick_sent = 0;
	/* copy_process() clears it: a parent-death signal is not inherited. */
	t->pdeath_sig = 0;
	err = ua__trap_after_fork(t, parent);
	if (!err)
		err = ua__host_sig_after_fork(t);
	if (!err)
		return;
	ua__write_str(2, "uaccess: a forked guest cannot go on: its "
			 "syscall trap or signal forwarding failed to start "
			 "again\n");
	_exit(127);
}

pid_t ua__task_fork(struct ua_task *t)
{
	pid_t parent = getpid(), pid;
	int err;

	ua__host_sig_before_fork();
	ua__space_fork_prepare(t->sp);
	pid = fork();
	if (!pid) {
		ua__space_fork_child(t->sp);
		child_reset(t, parent);
		return 0;
	}
	err = pid < 0 ? -errno : 0;
	ua__space_fork_parent(t->sp);
	return err ? err : pid;
}
