// SPDX-License-Identifier: MIT
/*
 * futex(2) on guest addresses (kernel/futex/syscalls.c, waitwake.c,
 * requeue.c, core.c).  Like the kernel's, waiters queue in a hash of
 * buckets by address, each with a lock: a wait reads the word under its
 * bucket's lock and queues only if it still holds the expected value, and
 * a wake (which comes after the waker changed the word) takes the same
 * lock, so no wake-up is lost.  A waiter sleeps on its task's signal
 * condition (ua__lx_wait_done()), so that a signal ends the wait as the
 * kernel's would.  Keys are addresses in the one space of the process.
 *
 * A shared futex (no FUTEX_PRIVATE_FLAG) in MAP_SHARED memory may have
 * waiters and wakers in other processes, each with a monitor of its own:
 * only the host sees them all, so those calls are the host's futex on
 * the same address (host_futex()).
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <uaccess/futex.h>

#include "linux_internal.h"

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
	struct timespec rel = *ts, now;

	if (!ua__lx_ts_valid(ts))
		return -EINVAL;
	/*
	 * FUTEX_WAIT's time is relative; WAIT_BITSET's absolute, and one
	 * already past is a deadline of now.
	 */
	if (cmd != FUTEX_WAIT) {
		clock_gettime(op & FUTEX_CLOCK_REALTIME ? CLOCK_REALTIME :
							  CLOCK_MONOTONIC,
			      &now);
		rel = ua__lx_ts_sub(*ts, &now);
	}
	ua__lx_deadline(deadline, &rel);
	return 0;
}

struct waiter {
	struct waiter *next, **pprev;
	_Atomic uint64_t uaddr;
	uint32_t bitset;
	struct ua_task *t;
	bool woken;
};

#define NBUCKETS 256

static struct bucket {
	pthread_mutex_t lock;
	struct waiter *head;
} buckets[NBUCKETS];

static pthread_once_t buckets_once = PTHREAD_ONCE_INIT;

static void buckets_init(void)
{
	for (size_t i = 0; i < NBUCKETS; i++) {
		pthread_mutex_init(&buckets[i].lock, NULL);
		buckets[i].head = NULL;
	}
}

static struct bucket *bucket_of(uint64_t uaddr)
{
	uint64_t h = (uaddr >> 2) * 0x9e3779b97f4a7c15ull;

	pthread_once(&buckets_once, buckets_init);
	return &buckets[h >> 56];
}

/* In the child of a fork only the forking thread goes on: none waits. */
void ua__lx_futex_after_fork(void)
{
	pthread_once(&buckets_once, buckets_init);
	buckets_init();
}

static void link_waiter(struct bucket *b, struct waiter *w)
{
	w->next = b->head;
	if (w->next)
		w->next->pprev = &w->next;
	w->pprev = &b->head;
	b->head = w;
}

static void unlink_waiter(struct waiter *w)
{
	*w->pprev = w->next;
	if (w->next)
		w->next->pprev = w->pprev;
	w->next = NULL;
	w->pprev = NULL;
}

/* The bucket w is queued in, locked: a requeue may move it meanwhile. */
static struct bucket *lock_waiter_bucket(struct waiter *w)
{
	for (;;) {
		struct bucket *b = bucket_of(atomic_load(&w->uaddr));

		pthread_mutex_lock(&b->lock);
		if (b == bucket_of(atomic_load(&w->uaddr)))
			return b;
		pthread_mutex_unlock(&b->lock);
	}
}

/*
 * Wake w, with its bucket locked: once the waiter can lock the bucket
 * again it no longer touches w (it is on the waiter's stack).
 */
static void wake_waiter(struct waiter *w)
{
	unlink_waiter(w);
	ua__lx_wake_done(w->t, &w->woken);
}

/*
 * futex_wait(): EAGAIN unless *uaddr is val, else sleep until a wake,
 * a signal or the timeout.  The kernel's return for a signal is
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
	struct waiter w = { .uaddr = uaddr, .bitset = bitset, .t = t };
	struct bucket *b;
	uint32_t cur;
	long err;
	int slept;

	if (!bitset)
		return -EINVAL;
	err = futex_key(uaddr, shared);
	if (err)
		return err;
	b = bucket_of(uaddr);
	pthread_mutex_lock(&b->lock);
	if (ua_get_user(cur, (const uint32_t *)uaddr)) {
		pthread_mutex_unlock(&b->lock);
		return -EFAULT;
	}
	if (cur != val) {
		pthread_mutex_unlock(&b->lock);
		return -EAGAIN;
	}
	link_waiter(b, &w);
	pthread_mutex_unlock(&b->lock);
	slept = ua__lx_wait_done(t, deadline, &w.woken);
	b = lock_waiter_bucket(&w);
	if (!w.woken)
		unlink_waiter(&w);
	pthread_mutex_unlock(&b->lock);
	if (w.woken)
		return 0;
	if (slept)
		return -ETIMEDOUT;
	return deadline ? -ERESTARTNOHAND : -ERESTARTSYS;
}

/* Wake up to n waiters on uaddr whose bitset meets bitset. */
static long wake_locked(struct bucket *b, uint64_t uaddr, int n,
			uint32_t bitset)
{
	struct waiter *w = b->head, *next;
	long woken = 0;

	for (; w && woken < n; w = next) {
		next = w->next;
		if (atomic_load(&w->uaddr) != uaddr || !(w->bitset & bitset))
			continue;
		wake_waiter(w);
		woken++;
	}
	return woken;
}

long ua__lx_futex_wake(uint64_t uaddr, int n)
{
	struct bucket *b = bucket_of(uaddr);
	long ret;

	pthread_mutex_lock(&b->lock);
	ret = wake_locked(b, uaddr, n, FUTEX_BITSET_MATCH_ANY);
	pthread_mutex_unlock(&b->lock);
	return ret;
}

/*
 * handle_futex_death() (kernel/futex/core.c): a robust futex whose owner
 * died.  The kernel changes the word with cmpxchg; here the bucket's
 * lock is held from the read to the wake instead, so that a waiter
 * that set FUTEX_WAITERS is either woken here or finds the word changed
 * when its wait compares it (and retries).
 */
void ua__lx_futex_owner_died(uint64_t uaddr, pid_t tid, bool pi,
			     bool pending)
{
	struct bucket *b;
	uint32_t uval, mval;

	if (uaddr % sizeof(uint32_t) || futex_key(uaddr, false))
		return;
	b = bucket_of(uaddr);
	pthread_mutex_lock(&b->lock);
	if (ua_get_user(uval, (const uint32_t *)uaddr))
		goto out;
	/* An unlock in progress left the word 0: wake a waiter anyway. */
	if (pending && !pi && !uval) {
		wake_locked(b, uaddr, 1, FUTEX_BITSET_MATCH_ANY);
		goto out;
	}
	if ((uval & FUTEX_TID_MASK) != (uint32_t)tid)
		goto out;
	mval = (uval & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
	if (ua_put_user(mval, (uint32_t *)uaddr))
		goto out;
	if (!pi && (uval & FUTEX_WAITERS))
		wake_locked(b, uaddr, 1, FUTEX_BITSET_MATCH_ANY);
out:
	pthread_mutex_unlock(&b->lock);
}

/* futex_wake(): the checks, then up to n waiters. */
static long futex_wake(uint64_t uaddr, bool shared, int n, uint32_t bitset)
{
	struct bucket *b;
	long err;

	if (!bitset)
		return -EINVAL;
	err = futex_key(uaddr, shared);
	if (err)
		return err;
	/* futex_wake() counts after waking: 0 or less wakes one. */
	if (n < 1)
		n = 1;
	b = bucket_of(uaddr);
	pthread_mutex_lock(&b->lock);
	err = wake_locked(b, uaddr, n, bitset);
	pthread_mutex_unlock(&b->lock);
	return err;
}

static void lock_two(struct bucket *a, struct bucket *b)
{
	if (a > b) {
		struct bucket *x = a;

		a = b;
		b = x;
	}
	pthread_mutex_lock(&a->lock);
	if (b != a)
		pthread_mutex_lock(&b->lock);
}

static void unlock_two(struct bucket *a, struct bucket *b)
{
	pthread_mutex_unlock(&a->lock);
	if (b != a)
		pthread_mutex_unlock(&b->lock);
}

/*
 * futex_requeue() without PI: wake up to nr_wake waiters on uaddr, move
 * up to nr_requeue more to uaddr2; with cmp, only if *uaddr is still
 * val3 (EAGAIN).  Returns how many were woken or moved.
 */
static long futex_requeue(uint64_t uaddr, uint64_t uaddr2, bool shared,
			  int nr_wake, int nr_requeue, bool cmp, uint32_t val3)
{
	struct bucket *b1, *b2;
	struct waiter *w, *next;
	long done, err;
	uint32_t cur;

	if (nr_wake < 0 || nr_requeue < 0)
		return -EINVAL;
	err = futex_key(uaddr, shared);
	if (!err)
		err = futex_key(uaddr2, shared);
	if (err)
		return err;
	b1 = bucket_of(uaddr);
	b2 = bucket_of(uaddr2);
	lock_two(b1, b2);
	if (cmp && ua_get_user(cur, (const uint32_t *)uaddr)) {
		done = -EFAULT;
		goto out;
	}
	if (cmp && cur != val3) {
		done = -EAGAIN;
		goto out;
	}
	done = wake_locked(b1, uaddr, nr_wake, FUTEX_BITSET_MATCH_ANY);
	for (w = b1->head; w && nr_requeue > 0; w = next) {
		next = w->next;
		if (atomic_load(&w->uaddr) != uaddr)
			continue;
		if (b1 != b2) {
			unlink_waiter(w);
			link_waiter(b2, w);
		}
		atomic_store(&w->uaddr, uaddr2);
		nr_requeue--;
		done++;
	}
out:
	unlock_two(b1, b2);
	return done;
}

/*
 * futex_wake_op(): the operation on uaddr2 under both buckets' locks, up
 * to nr_wake waiters of uaddr woken, and up to nr_wake2 of uaddr2 if the
 * operation's comparison held.  A count below 1 wakes one, as there.
 */
static long futex_wake_op(uint64_t uaddr, uint64_t uaddr2, bool shared,
			  int nr_wake, int nr_wake2, uint32_t op)
{
	struct bucket *b1, *b2;
	long ret, cmp;

	ret = futex_key(uaddr, shared);
	if (!ret)
		ret = futex_key(uaddr2, shared);
	if (ret)
		return ret;
	b1 = bucket_of(uaddr);
	b2 = bucket_of(uaddr2);
	lock_two(b1, b2);
	cmp = ua_futex_atomic_op_inuser(op, (uint32_t *)uaddr2);
	if (cmp < 0) {
		ret = cmp;
		goto out;
	}
	ret = wake_locked(b1, uaddr, nr_wake < 1 ? 1 : nr_wake,
			  FUTEX_BITSET_MATCH_ANY);
	if (cmp)
		ret += wake_locked(b2, uaddr2, nr_wake2 < 1 ? 1 : nr_wake2,
				   FUTEX_BITSET_MATCH_ANY);
out:
	unlock_two(b1, b2);
	return ret;
}

static void say_unserved(int cmd)
{
	static bool said;
	char msg[96];

	/* An unknown command is the kernel's quiet ENOSYS too. */
	if (said || cmd <= FUTEX_WAKE_OP || cmd > FUTEX_LOCK_PI2 ||
	    cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_WAKE_BITSET)
		return;
	said = true;
	snprintf(msg, sizeof(msg),
		 "uaccess: futex command %d (PI) is not implemented: "
		 "ENOSYS\n", cmd);
	ua__write_str(2, msg);
}

/* Is uaddr in memory the guest mapped MAP_SHARED (vma_names.c)? */
static bool in_shared_map(struct ua_task *t, uint64_t uaddr)
{
	struct lx_proc *p = lx_proc(t);
	const struct lx_vname *v;
	bool shared;

	ua__lx_big_lock(p);
	v = ua__lx_name_at(p, uaddr);
	shared = v && v->shared;
	ua__lx_big_unlock(p);
	return shared;
}

/*
 * The host's futex call on guest words, in a window over both (the host
 * reads and writes them as the guest's kernel would).  The timeout is the
 * monitor's copy; a wait sleeps in ua__host_call(), which an interrupt
 * ends.
 */
static long host_call_in_window(uint64_t uaddr, uint64_t uaddr2, long op,
				long val, const void *tmo_or_n, long val3)
{
	uint64_t lo = uaddr2 && uaddr2 < uaddr ? uaddr2 : uaddr;
	uint64_t hi = uaddr2 > uaddr ? uaddr2 : uaddr;
	long ret;

	if (!ua_user_access_begin((void *)lo, hi - lo + sizeof(uint32_t)))
		return -EFAULT;
	ret = ua__host_call(SYS_futex, (long)uaddr, op, val, (long)tmo_or_n,
			    (long)uaddr2, val3);
	ua_user_access_end();
	return ret;
}

/*
 * A wait of a shared futex on the host: as futex_wait(), with the same
 * returns; an interrupt that brought the guest no signal waits again,
 * until the same deadline (FUTEX_WAIT_BITSET's time is absolute).
 */
static long host_futex_wait(struct ua_task *t, uint64_t uaddr, uint32_t val,
			    const struct timespec *deadline, uint32_t bitset)
{
	long ret;

	if (!bitset)
		return -EINVAL;
	for (;;) {
		ret = host_call_in_window(uaddr, 0, FUTEX_WAIT_BITSET, val,
					  deadline, bitset);
		if (ret != -EINTR)
			return ret;
		if (ua__sig_interrupted(t))
			return deadline ? -ERESTARTNOHAND : -ERESTARTSYS;
	}
}

/*
 * The calls of a shared futex in MAP_SHARED memory (both words, for the
 * two-word calls); -ENOSYS for the others, which stay in the monitor.
 */
static long host_futex(struct ua_task *t, struct ua_pt_regs *r, int cmd,
		       const struct timespec *deadline)
{
	uint64_t uaddr = ARG1(r), uaddr2 = ARG5(r);
	long val = (long)(uint32_t)ARG3(r), val3 = (long)(uint32_t)ARG6(r);
	bool two = cmd == FUTEX_REQUEUE || cmd == FUTEX_CMP_REQUEUE ||
		   cmd == FUTEX_WAKE_OP;
	long err;

	if (cmd > FUTEX_WAKE_BITSET || cmd == FUTEX_FD)
		return -ENOSYS;
	/* get_futex_key()'s checks first, as the monitor's own calls make. */
	err = futex_key(uaddr, true);
	if (!err && two)
		err = futex_key(uaddr2, true);
	if (err)
		return err;
	if (!in_shared_map(t, uaddr) || (two && !in_shared_map(t, uaddr2)))
		return -ENOSYS;
	switch (cmd) {
	case FUTEX_WAIT:
		return host_futex_wait(t, uaddr, (uint32_t)val, deadline,
				       FUTEX_BITSET_MATCH_ANY);
	case FUTEX_WAIT_BITSET:
		return host_futex_wait(t, uaddr, (uint32_t)val, deadline,
				       (uint32_t)val3);
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
		return host_call_in_window(uaddr, 0, cmd, val, NULL, val3);
	}
	/* The fourth argument is a count here, passed as it came. */
	return host_call_in_window(uaddr, uaddr2, cmd, val,
				   (const void *)ARG4(r), val3);
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
	if (shared) {
		err = host_futex(t, r, cmd, dl);
		if (err != -ENOSYS)
			return err;
	}
	switch (cmd) {
	case FUTEX_WAIT:
		return futex_wait(t, ARG1(r), shared, val, dl,
				  FUTEX_BITSET_MATCH_ANY);
	case FUTEX_WAIT_BITSET:
		return futex_wait(t, ARG1(r), shared, val, dl, val3);
	case FUTEX_WAKE:
		return futex_wake(ARG1(r), shared, (int)val,
				  FUTEX_BITSET_MATCH_ANY);
	case FUTEX_WAKE_BITSET:
		return futex_wake(ARG1(r), shared, (int)val, val3);
	case FUTEX_REQUEUE:
	case FUTEX_CMP_REQUEUE:
		/* The fourth argument is then a count, not a time. */
		return futex_requeue(ARG1(r), ARG5(r), shared, (int)val,
				     (int)ARG4(r), cmd == FUTEX_CMP_REQUEUE,
				     val3);
	case FUTEX_WAKE_OP:
		/* The fourth argument is nr_wake2, not a time. */
		return futex_wake_op(ARG1(r), ARG5(r), shared, (int)val,
				     (int)ARG4(r), val3);
	}
	/* The PI calls are not served (yet). */
	say_unserved(cmd);
	return -ENOSYS;
}

static const struct lx_call calls[] = {
	{ SYS_futex, "futex", sys_futex, "pduppx" },
};

void ua__lx_futex_init(void)
{
	LX_REGISTER(calls);
}
