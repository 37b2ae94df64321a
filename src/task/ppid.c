// SPDX-License-Identifier: MIT
/*
 * getppid() without a host syscall.  The parent of the monitor process
 * changes only when the parent exits (the child is reparented), and the
 * kernel can tell us so: PR_SET_PDEATHSIG sends a signal when the thread
 * that is our parent exits (kernel/exit.c, forget_original_parent(), which
 * sends it for every parent that goes, the reaper included).  The signal
 * is the library's interrupt signal; its handler sees SI_USER instead of
 * a kick's SI_TKILL and calls ua__ppid_changed().  From then on the cache
 * is never used again in this process.
 *
 * The setting belongs to a thread and dies with it, so it is made on the
 * thread that runs a task with trapped syscalls, for as long as the task
 * runs there (ua__ppid_arm/disarm from trap_sud.c).  A thread whose
 * parent-death signal is already set (by the application) is left alone
 * and does not cache.  Without an interrupt signal there is no cache.
 *
 * The guest's own parent-death signal (prctl PR_SET_PDEATHSIG) rides on
 * the same host setting: where it is armed here, the handler that drops
 * the cache also hands the guest the signal it chose (pdeath_notify()),
 * and the guest's value is only remembered; elsewhere the host's setting
 * is the guest's signal itself, which then arrives as any host signal.
 */
#include <errno.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "task_internal.h"

static atomic_int cache;    /* 0: ask the host */
static atomic_int armed;    /* threads with our parent-death signal */
static atomic_bool changed; /* a parent went: never cache again */

bool ua__ppid_arm(void)
{
	int sig = ua_interrupt_signal(), cur = -1;
	pid_t p;

	if (!sig || atomic_load(&changed))
		return false;
	if (prctl(PR_GET_PDEATHSIG, &cur) || cur)
		return false;
	if (prctl(PR_SET_PDEATHSIG, sig))
		return false;
	if (atomic_fetch_add(&armed, 1))
		return true;
	/* Armed before asking: a parent that goes now is reported. */
	p = getppid();
	atomic_store(&cache, p);
	if (atomic_load(&changed))
		atomic_store(&cache, 0);
	return true;
}

void ua__ppid_disarm(void)
{
	prctl(PR_SET_PDEATHSIG, 0);
	if (atomic_fetch_sub(&armed, 1) == 1)
		atomic_store(&cache, 0);
}

/*
 * The guest's parent-death signal, to the task standing for the process,
 * once its parent process is gone.  A monitor that was the parent has
 * threads of its own: the thread that forked us ending first reparents
 * us to another of them and signals (forget_original_parent() tries a
 * live thread of the same process first), and the last one signals
 * again as it hands us to a reaper.  The guest's parent had one thread,
 * so only that last signal is the guest's: the one after which our
 * parent is no longer the process that sent it.
 */
static void pdeath_notify(const siginfo_t *info, ucontext_t *uc)
{
	struct ua_task *t = atomic_load(&ua__hs_target);
	int sig = t ? __atomic_load_n(&t->pdeath_sig, __ATOMIC_ACQUIRE) : 0;

	if (!sig || getppid() == info->si_pid)
		return;
	ua__host_signal_as(sig, info, uc);
}

/*
 * From the interrupt signal's handler: the parent went, and info is the
 * host's SI_USER from it.  The guest's own parent-death signal is
 * forwarded last: in guest code that does not return.
 */
void ua__ppid_changed(const siginfo_t *info, ucontext_t *uc)
{
	atomic_store(&changed, true);
	atomic_store(&cache, 0);
	pdeath_notify(info, uc);
}

UA_FAST pid_t ua__fast_ppid(void)
{
	return atomic_load_explicit(&cache, memory_order_relaxed);
}

pid_t ua__ppid(void)
{
	pid_t p = ua__fast_ppid();

	return p ? p : getppid();
}

/*
 * In a forked monitor (fork.c) whose task was armed: fork cleared the
 * parent-death signal, and the parent is now the monitor that forked.
 * Whether the thread is armed again.
 */
bool ua__ppid_after_fork(pid_t parent)
{
	int sig = ua_interrupt_signal();

	if (!sig || prctl(PR_SET_PDEATHSIG, sig)) {
		atomic_store(&changed, true);
		atomic_store(&cache, 0);
		return false;
	}
	atomic_store(&armed, 1);
	atomic_store(&cache, parent);
	/* Gone before the signal was armed: never reported, so ask. */
	if (getppid() != parent || atomic_load(&changed))
		atomic_store(&cache, 0);
	return true;
}

/*
 * prctl(PR_SET_PDEATHSIG) for t, which runs on this thread.  The kernel
 * sends the signal to the whole process when the thread that forked it
 * exits (kernel/exit.c, forget_original_parent(), SEND_SIG_NOINFO: SI_USER
 * from the parent), so the task standing for the process receives it.
 */
int ua__pdeath_set(struct ua_task *t, int sig)
{
	if (!t->ppid_armed && prctl(PR_SET_PDEATHSIG, sig))
		return -errno;
	__atomic_store_n(&t->pdeath_sig, sig, __ATOMIC_RELEASE);
	return 0;
}
