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
 */
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

/* Async-signal-safe: two stores. */
void ua__ppid_changed(void)
{
	atomic_store(&changed, true);
	atomic_store(&cache, 0);
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
 */
void ua__ppid_after_fork(pid_t parent)
{
	int sig = ua_interrupt_signal();

	if (!sig || prctl(PR_SET_PDEATHSIG, sig)) {
		atomic_store(&changed, true);
		atomic_store(&cache, 0);
		return;
	}
	atomic_store(&armed, 1);
	atomic_store(&cache, parent);
	/* Gone before the signal was armed: never reported, so ask. */
	if (getppid() != parent || atomic_load(&changed))
		atomic_store(&cache, 0);
}
