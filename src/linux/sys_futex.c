// SPDX-License-Identifier: MIT
/*
 * futex(2) for a process of one thread (kernel/futex/syscalls.c,
 * waitwake.c, core.c).  With no other thread there is never a waiter to
 * wake: a wake finds nobody after the kernel's checks, and a wait whose
 * value matches sleeps until its timeout or a signal, as nothing else
 * could wake it.  That is what a libc's once-initialisation and its
 * uncontended locks ask of futex in a single-threaded program.
 */
#include <linux/futex.h>
#include <time.h>

#include "linux_internal.h"

#define NSEC 1000000000L

/* futex_cmd_has_timeout(): the commands whose fourth argument is a time. */
static bool cmd_has_timeout(int cmd)
{
	switch (cmd) {
	case FUTEX_WAIT:
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
	case FUTEX_WAIT_BITSET:
	case FUTEX_WAIT_REQUEUE_PI:
		return true;
	}
	return false;
}

/*
 * get_futex_key(): a u32 aligned to its size (EINVAL), in the user range
 * (access_ok(), EFAULT).  A private key is the address alone and touches
 * no memory; a shared one looks the page up, which faults on a hole.
 */
static long futex_key(uint64_t uaddr, bool shared)
{
	uint32_t v;

	if (uaddr % sizeof(uint32_t))
		return -EINVAL;
	if (uaddr > LX_TASK_SIZE_MAX - sizeof(uint32_t))
		return -EFAULT;
	if (shared && ua_get_user(v, (const uint32_t *)uaddr))
		return -EFAULT;
	(void)v;
	return 0;
}

/* A CLOCK_MONOTONIC deadline from the guest's timeout (futex_init_timeout()). */
static long futex_deadline(int cmd, int op, const struct timespec *ts,
			   struct timespec *deadline)
{
	struct timespec now;
	long sec = ts->tv_sec, nsec = ts->tv_nsec;

	if (ts->tv_sec < 0 || (unsigned long)ts->tv_nsec >= NSEC)
		return -EINVAL;
	/* FUTEX_WAIT's time is relative; WAIT_BITSET's absolute. */
	if (cmd != FUTEX_WAIT) {
		clock_gettime(op & FUTEX_CLOCK_REALTIME ? CLOCK_REALTIME :
							  CLOCK_MONOTONIC,
			      &now);
		sec -= now.tv_sec;
		nsec -= now.tv_nsec;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	sec += now.tv_sec;
	nsec += now.tv_nsec;
	while (nsec < 0) {
		sec--;
		nsec += NSEC;
	}
	while (nsec >= NSEC) {
		sec++;
		nsec -= NSEC;
	}
	deadline->tv_sec = sec;
	deadline->tv_nsec = nsec;
	return 0;
}

/*
 * futex_wait(): EAGAIN unless *uaddr is val, else sleep.  Only a signal
 * or the timeout can end the sleep.  The kernel's return for a signal is
 * ERESTARTSYS without a timeout (a handler with SA_RESTART waits again)
 * and a restart block with one (EINTR whenever a handler runs).  The
 * restart block becomes ERESTARTNOHAND here: the same EINTR with a
 * handler, and a wait again with the same arguments without one, which
 * for an absolute WAIT_BITSET is the kernel's futex_wait_restart().
 */
static long futex_wait(struct ua_task *t, uint64_t uaddr, bool shared,
		       uint32_t val, const struct timespec *deadline,
		       uint32_t bitset)
{
	uint32_t cur;
	long err;

	if (!bitset)
		return -EINVAL;
	err = futex_key(uaddr, shared);
	if (err)
		return err;
	if (ua_get_user(cur, (const uint32_t *)uaddr))
		return -EFAULT;
	if (cur != val)
		return -EAGAIN;
	if (ua__lx_wait(t, deadline, 0))
		return -ETIMEDOUT;
	return deadline ? -ERESTARTNOHAND : -ERESTARTSYS;
}

/* futex_wake(): the checks, then nobody to wake. */
static long futex_wake(uint64_t uaddr, bool shared, uint32_t bitset)
{
	long err;

	if (!bitset)
		return -EINVAL;
	err = futex_key(uaddr, shared);
	return err ? err : 0;
}

static long sys_futex(struct ua_task *t, struct ua_pt_regs *r)
{
	int op = (int)ARG2(r);
	int cmd = op & FUTEX_CMD_MASK;
	bool shared = !(op & FUTEX_PRIVATE_FLAG);
	uint32_t val = (uint32_t)ARG3(r), val3 = (uint32_t)ARG6(r);
	struct timespec ts, deadline, *dl = NULL;
	long err;

	/* SYSCALL_DEFINE6(futex): the timeout is read and checked first. */
	if (ARG4(r) && cmd_has_timeout(cmd)) {
		if (ua_copy_from_user(&ts, (const void *)ARG4(r), sizeof(ts)))
			return -EFAULT;
		err = futex_deadline(cmd, op, &ts, &deadline);
		if (err)
			return err;
		dl = &deadline;
	}
	/* do_futex(): the realtime clock only for the waits that take one. */
	if ((op & FUTEX_CLOCK_REALTIME) && cmd != FUTEX_WAIT_BITSET &&
	    cmd != FUTEX_WAIT_REQUEUE_PI && cmd != FUTEX_LOCK_PI2)
		return -ENOSYS;
	switch (cmd) {
	case FUTEX_WAIT:
		return futex_wait(t, ARG1(r), shared, val, dl,
				  FUTEX_BITSET_MATCH_ANY);
	case FUTEX_WAIT_BITSET:
		return futex_wait(t, ARG1(r), shared, val, dl, val3);
	case FUTEX_WAKE:
		return futex_wake(ARG1(r), shared, FUTEX_BITSET_MATCH_ANY);
	case FUTEX_WAKE_BITSET:
		return futex_wake(ARG1(r), shared, val3);
	}
	/* Requeue, wake-op and the PI calls are not served (yet). */
	return -ENOSYS;
}

static const struct lx_call calls[] = {
	{ SYS_futex, "futex", sys_futex, "pduppx" },
};

void ua__lx_futex_init(void)
{
	LX_REGISTER(calls);
}
