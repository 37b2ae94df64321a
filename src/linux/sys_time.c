// SPDX-License-Identifier: MIT
/*
 * Clocks, sleeps and the real-time interval timer (kernel/time/).  Sleeps
 * wait on the task's signal state, so a signal for the task ends them
 * with EINTR.  ITIMER_REAL (alarm, setitimer) is a monitor thread per
 * task that sends SIGALRM with ua_task_kill(): the signal is delivered at
 * the task's next syscall exit, or at once if it sleeps.
 * TODO: when the guest-side ua_sys_alarm/setitimer/nanosleep of the
 * asynchronous-delivery work are on main, serve these through them (a
 * spinning guest then sees SIGALRM without a syscall).
 */
#include <string.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include "linux_internal.h"

#define NSEC 1000000000L

void ua__lx_ts_add(struct timespec *a, const struct timespec *b)
{
	a->tv_sec += b->tv_sec;
	a->tv_nsec += b->tv_nsec;
	if (a->tv_nsec >= NSEC) {
		a->tv_sec++;
		a->tv_nsec -= NSEC;
	}
}

struct timespec ua__lx_ts_sub(struct timespec a, const struct timespec *b)
{
	a.tv_sec -= b->tv_sec;
	a.tv_nsec -= b->tv_nsec;
	if (a.tv_nsec < 0) {
		a.tv_sec--;
		a.tv_nsec += NSEC;
	}
	if (a.tv_sec < 0)
		a.tv_sec = a.tv_nsec = 0;
	return a;
}

void ua__lx_deadline(struct timespec *end, const struct timespec *rel)
{
	clock_gettime(CLOCK_MONOTONIC, end);
	ua__lx_ts_add(end, rel);
}

struct timespec ua__lx_ts_left(const struct timespec *end)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return ua__lx_ts_sub(*end, &now);
}

static bool ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

bool ua__lx_ts_valid(const struct timespec *t)
{
	return t->tv_sec >= 0 && (unsigned long)t->tv_nsec < NSEC;
}

static int wait_for(struct ua_task *t, const struct timespec *deadline,
		    uint64_t also, const bool *done)
{
	struct ua_sigstate *s = sigstate(t);
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	while (!(ua__sig_pending(s) & (~s->blocked | also)) &&
	       !(done && *done)) {
		struct timespec now, left, abs;

		if (!deadline) {
			if (!ua__sig_wait_answer(t))
				pthread_cond_wait(&s->cond, &s->lock);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!ts_before(&now, deadline)) {
			ret = -ETIMEDOUT;
			break;
		}
		/* The condition variable runs on CLOCK_REALTIME. */
		left = ua__lx_ts_sub(*deadline, &now);
		clock_gettime(CLOCK_REALTIME, &abs);
		ua__lx_ts_add(&abs, &left);
		if (ua__sig_wait_answer(t))
			continue;
		pthread_cond_timedwait(&s->cond, &s->lock, &abs);
	}
	pthread_mutex_unlock(&s->lock);
	return ret;
}

/* ua__lx_wait(): see linux_internal.h. */
int ua__lx_wait(struct ua_task *t, const struct timespec *deadline,
		uint64_t also)
{
	return wait_for(t, deadline, also, NULL);
}

int ua__lx_wait_done(struct ua_task *t, const struct timespec *deadline,
		     const bool *done)
{
	return wait_for(t, deadline, 0, done);
}

void ua__lx_wake_done(struct ua_task *t, bool *done)
{
	struct ua_sigstate *s = sigstate(t);

	pthread_mutex_lock(&s->lock);
	*done = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

static long sys_clock_gettime(struct ua_task *t, struct ua_pt_regs *r)
{
	struct timespec ts;

	(void)t;
	if (clock_gettime((clockid_t)ARG1(r), &ts))
		return -errno;
	if (ua_copy_to_user((void *)ARG2(r), &ts, sizeof(ts)))
		return -EFAULT;
	return 0;
}

/*
 * A clock id as the host must see it.  Dynamic ids (include/linux/
 * posix-timers.h) name a process or thread, which is the monitor's, or a
 * descriptor (CLOCKFD), which is the guest's: the host's own descriptor
 * goes in its place.  A descriptor that is not the host's is no clock
 * (get_clock_desc(): EINVAL).
 */
static long host_clock(struct ua_task *t, uint64_t arg, clockid_t *out)
{
	int id = (int)arg;
	struct lx_file *f;

	if (id < 0 && (id & 7) == 3) {
		f = ua__lx_file(t, (int)~(id >> 3));
		if (!f || f->kind != LX_FD_HOST)
			return -EINVAL;
		id = (int)((~(unsigned int)f->host << 3) | 3);
	}
	*out = id;
	return 0;
}

/*
 * The host's answer for every id, valid or not, by the syscall itself:
 * a libc's clock_getres() may answer from the vDSO, which does not check
 * an id the way the kernel's clockid_to_kclock() does.
 */
static long sys_clock_getres(struct ua_task *t, struct ua_pt_regs *r)
{
	struct timespec ts;
	clockid_t clk;
	long err = host_clock(t, ARG1(r), &clk);

	if (err)
		return err;
	if (syscall(SYS_clock_getres, clk, &ts))
		return -errno;
	if (ARG2(r) && ua_copy_to_user((void *)ARG2(r), &ts, sizeof(ts)))
		return -EFAULT;
	return 0;
}

/*
 * clock_adjtime() and adjtimex() on the host, the timex read before the
 * clock is looked at and written back after, as kernel/time/
 * posix-timers.c does (a read with modes 0 is any process's; changes are
 * the host's to allow or refuse with EPERM).
 */
/* The guest's struct __kernel_timex (include/uapi/linux/timex.h). */
_Static_assert(sizeof(struct timex) == 208, "struct timex is the kernel's");

static long do_adjtime(clockid_t clk, struct timex *tx, void *utx)
{
	long ret = syscall(SYS_clock_adjtime, clk, tx);

	if (ret < 0)
		return -errno;
	if (ua_copy_to_user(utx, tx, sizeof(*tx)))
		return -EFAULT;
	return ret;
}

static long sys_clock_adjtime(struct ua_task *t, struct ua_pt_regs *r)
{
	void *utx = (void *)ARG2(r);
	struct timex tx;
	clockid_t clk;
	long err;

	if (ua_copy_from_user(&tx, utx, sizeof(tx)))
		return -EFAULT;
	err = host_clock(t, ARG1(r), &clk);
	if (err)
		return err;
	return do_adjtime(clk, &tx, utx);
}

static long sys_adjtimex(struct ua_task *t, struct ua_pt_regs *r)
{
	void *utx = (void *)ARG1(r);
	struct timex tx;

	(void)t;
	if (ua_copy_from_user(&tx, utx, sizeof(tx)))
		return -EFAULT;
	return do_adjtime(CLOCK_REALTIME, &tx, utx);
}

static long sys_gettimeofday(struct ua_task *t, struct ua_pt_regs *r)
{
	struct timeval tv;
	struct timezone tz = { 0, 0 };

	(void)t;
	gettimeofday(&tv, NULL);
	if (ARG1(r) && ua_copy_to_user((void *)ARG1(r), &tv, sizeof(tv)))
		return -EFAULT;
	if (ARG2(r) && ua_copy_to_user((void *)ARG2(r), &tz, sizeof(tz)))
		return -EFAULT;
	return 0;
}

static long sys_time(struct ua_task *t, struct ua_pt_regs *r)
{
	int64_t now = (int64_t)time(NULL);

	(void)t;
	if (ARG1(r) && ua_put_user(now, (int64_t *)ARG1(r)))
		return -EFAULT;
	return (long)now;
}

/* Sleep req (relative, or absolute on clk); rem gets what is left. */
static long do_sleep(struct ua_task *t, clockid_t clk, bool abstime,
		     const void *ureq, void *urem)
{
	struct timespec req, now, deadline;
	int ret;

	if (ua_copy_from_user(&req, ureq, sizeof(req)))
		return -EFAULT;
	if (!ua__lx_ts_valid(&req))
		return -EINVAL;
	if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC &&
	    clk != CLOCK_BOOTTIME && clk != CLOCK_TAI)
		return -EINVAL;
	if (abstime) {
		clock_gettime(clk, &now);
		req = ua__lx_ts_sub(req, &now);
	}
	ua__lx_deadline(&deadline, &req);
	ret = ua__lx_wait(t, &deadline, 0);
	if (!ret) {
		if (urem && !abstime) {
			struct timespec left = ua__lx_ts_left(&deadline);

			if (ua_copy_to_user(urem, &left, sizeof(left)))
				return -EFAULT;
		}
		return -EINTR;
	}
	return 0;
}

static long sys_nanosleep(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_sleep(t, CLOCK_MONOTONIC, false, (void *)ARG1(r),
			(void *)ARG2(r));
}

static long sys_clock_nanosleep(struct ua_task *t, struct ua_pt_regs *r)
{
	long ret = do_sleep(t, (clockid_t)ARG1(r), ARG2(r) & TIMER_ABSTIME,
			    (void *)ARG3(r), (void *)ARG4(r));

	return ret;
}

/* The ITIMER_REAL thread of a task. */
static void *timer_main(void *arg)
{
	struct lx_timer *tm = arg;
	struct lx_proc *p = (struct lx_proc *)((char *)tm -
					       offsetof(struct lx_proc, timer));
	struct timespec now;
	siginfo_t info;

	/* it_real_fn(): SIGALRM to the process, from the kernel. */
	memset(&info, 0, sizeof(info));
	info.si_signo = SIGALRM;
	info.si_code = SI_KERNEL;

	pthread_mutex_lock(&tm->lock);
	while (!tm->stop) {
		if (!tm->expires.tv_sec && !tm->expires.tv_nsec) {
			pthread_cond_wait(&tm->cond, &tm->lock);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (ts_before(&now, &tm->expires)) {
			pthread_cond_timedwait(&tm->cond, &tm->lock,
					       &tm->expires);
			continue;
		}
		if (tm->interval.tv_sec || tm->interval.tv_nsec)
			ua__lx_ts_add(&tm->expires, &tm->interval);
		else
			tm->expires = (struct timespec){ 0, 0 };
		pthread_mutex_unlock(&tm->lock);
		ua__lx_timer_signal(p, tm->owner, 0, &info);
		pthread_mutex_lock(&tm->lock);
	}
	pthread_mutex_unlock(&tm->lock);
	return NULL;
}

static int timer_start(struct ua_task *t)
{
	struct lx_timer *tm = &lx_proc(t)->timer;
	pthread_condattr_t ca;

	if (tm->started)
		return 0;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&tm->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&tm->lock, NULL);
	tm->owner = t;
	if (pthread_create(&tm->thread, NULL, timer_main, tm)) {
		pthread_cond_destroy(&tm->cond);
		pthread_mutex_destroy(&tm->lock);
		return -EAGAIN;
	}
	tm->started = true;
	return 0;
}

void ua__lx_timer_stop(struct lx_proc *p)
{
	struct lx_timer *tm = &p->timer;

	if (!tm->started)
		return;
	pthread_mutex_lock(&tm->lock);
	tm->stop = true;
	pthread_cond_signal(&tm->cond);
	pthread_mutex_unlock(&tm->lock);
	pthread_join(tm->thread, NULL);
	pthread_cond_destroy(&tm->cond);
	pthread_mutex_destroy(&tm->lock);
	tm->started = false;
}

/*
 * The child of a guest's fork: no thread runs the parent's timer here,
 * and the kernel gives a forked child no interval timer (copy_signal()).
 */
void ua__lx_timer_reset(struct lx_proc *p)
{
	memset(&p->timer, 0, sizeof(p->timer));
}

static void tv_from_ts(struct timeval *tv, const struct timespec *ts)
{
	tv->tv_sec = ts->tv_sec;
	tv->tv_usec = ts->tv_nsec / 1000;
	/* A timer about to fire still reads as armed (the kernel's rule). */
	if (!tv->tv_sec && !tv->tv_usec && ts->tv_nsec)
		tv->tv_usec = 1;
}

static void timer_get(struct lx_timer *tm, struct itimerval *cur)
{
	struct timespec left = { 0, 0 };

	if (tm->started && (tm->expires.tv_sec || tm->expires.tv_nsec)) {
		left = ua__lx_ts_left(&tm->expires);
		if (!left.tv_sec && !left.tv_nsec)
			left.tv_nsec = 1000;
	}
	tv_from_ts(&cur->it_value, &left);
	tv_from_ts(&cur->it_interval, tm->started ? &tm->interval : &left);
	if (!tm->started)
		cur->it_interval = (struct timeval){ 0, 0 };
}

long ua__lx_setitimer(struct ua_task *t, const struct itimerval *nv,
		      struct itimerval *ov)
{
	struct lx_timer *tm = &lx_proc(t)->timer;
	int err;

	if (nv->it_value.tv_sec < 0 || nv->it_value.tv_usec < 0 ||
	    nv->it_value.tv_usec >= 1000000 || nv->it_interval.tv_sec < 0 ||
	    nv->it_interval.tv_usec < 0 || nv->it_interval.tv_usec >= 1000000)
		return -EINVAL;
	err = timer_start(t);
	if (err)
		return err;
	pthread_mutex_lock(&tm->lock);
	if (ov)
		timer_get(tm, ov);
	if (nv->it_value.tv_sec || nv->it_value.tv_usec) {
		ua__lx_deadline(&tm->expires,
				&(struct timespec){ nv->it_value.tv_sec,
						    nv->it_value.tv_usec *
							    1000 });
		tm->interval = (struct timespec){
			nv->it_interval.tv_sec, nv->it_interval.tv_usec * 1000
		};
	} else {
		tm->expires = tm->interval = (struct timespec){ 0, 0 };
	}
	pthread_cond_signal(&tm->cond);
	pthread_mutex_unlock(&tm->lock);
	return 0;
}

static long sys_setitimer(struct ua_task *t, struct ua_pt_regs *r)
{
	struct itimerval nv = { { 0, 0 }, { 0, 0 } }, ov;
	long ret;

	if (ARG1(r) != ITIMER_REAL)
		return ARG1(r) <= ITIMER_PROF ? -ENOSYS : -EINVAL;
	if (ARG2(r) && ua_copy_from_user(&nv, (void *)ARG2(r), sizeof(nv)))
		return -EFAULT;
	ret = ua__lx_setitimer(t, &nv, &ov);
	if (!ret && ARG3(r) && ua_copy_to_user((void *)ARG3(r), &ov,
					       sizeof(ov)))
		return -EFAULT;
	return ret;
}

void ua__lx_getitimer(struct ua_task *t, struct itimerval *cur)
{
	struct lx_timer *tm = &lx_proc(t)->timer;

	if (tm->started) {
		pthread_mutex_lock(&tm->lock);
		timer_get(tm, cur);
		pthread_mutex_unlock(&tm->lock);
	} else {
		memset(cur, 0, sizeof(*cur));
	}
}

static long sys_getitimer(struct ua_task *t, struct ua_pt_regs *r)
{
	struct itimerval cur;

	if (ARG1(r) != ITIMER_REAL)
		return ARG1(r) <= ITIMER_PROF ? -ENOSYS : -EINVAL;
	ua__lx_getitimer(t, &cur);
	if (ua_copy_to_user((void *)ARG2(r), &cur, sizeof(cur)))
		return -EFAULT;
	return 0;
}

/* alarm(): seconds left of the old timer, rounded as the kernel does. */
static long sys_alarm(struct ua_task *t, struct ua_pt_regs *r)
{
	struct itimerval nv = { { 0, 0 }, { (time_t)(unsigned int)ARG1(r), 0 } };
	struct itimerval ov;
	long ret = ua__lx_setitimer(t, &nv, &ov);

	if (ret)
		return ret;
	if ((!ov.it_value.tv_sec && ov.it_value.tv_usec) ||
	    ov.it_value.tv_usec >= 500000)
		ov.it_value.tv_sec++;
	return (long)ov.it_value.tv_sec;
}

static const struct lx_call calls[] = {
	{ SYS_clock_gettime, "clock_gettime", sys_clock_gettime, "dp" },
	{ SYS_clock_getres, "clock_getres", sys_clock_getres, "dp" },
	{ SYS_clock_adjtime, "clock_adjtime", sys_clock_adjtime, "dp" },
	{ SYS_adjtimex, "adjtimex", sys_adjtimex, "p" },
	{ SYS_gettimeofday, "gettimeofday", sys_gettimeofday, "pp" },
	{ SYS_time, "time", sys_time, "p" },
	{ SYS_nanosleep, "nanosleep", sys_nanosleep, "pp" },
	{ SYS_clock_nanosleep, "clock_nanosleep", sys_clock_nanosleep, "dxpp" },
	{ SYS_alarm, "alarm", sys_alarm, "u" },
	{ SYS_setitimer, "setitimer", sys_setitimer, "dpp" },
	{ SYS_getitimer, "getitimer", sys_getitimer, "dp" },
};

void ua__lx_time_init(void)
{
	LX_REGISTER(calls);
}
