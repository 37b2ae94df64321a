// SPDX-License-Identifier: MIT
/*
 * POSIX per-process timers: timer_create, timer_settime, timer_gettime,
 * timer_getoverrun, timer_delete (kernel/time/posix-timers.c).
 *
 * Each timer is a host timerfd on the same clock, so the host keeps the
 * time, the absolute and interval arithmetic and timer_gettime's answer.
 * One monitor thread per process waits on all of them (epoll) and turns
 * an expiry into the guest's signal: SI_TIMER with the timer's id and
 * value, sent to the process as kill() sends (SIGEV_SIGNAL) or to one
 * thread (SIGEV_THREAD_ID).  As in the kernel a timer's signal is queued
 * once: expiries while it is still pending count as its si_overrun, as
 * do expiries the thread was too late to see one by one (the timerfd's
 * count).  timer_getoverrun answers the overrun of the last signal sent.
 *
 * The clocks a timerfd has (REALTIME, MONOTONIC, BOOTTIME and the alarm
 * clocks); the host is asked first whether it gives the guest a timer on
 * the clock at all, so an id it refuses gets its error.  CPU-time clocks
 * and CLOCK_TAI have no timerfd: EINVAL, named once.
 *
 * Timers are not inherited by a forked child; execve starts a new monitor
 * whose process has none (the kernel's exit_itimers()).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "linux_internal.h"

/* include/uapi/asm-generic/siginfo.h: the kernel's struct sigevent. */
struct lx_sigevent {
	uint64_t value;
	int32_t signo;
	int32_t notify;
	int32_t tid; /* _sigev_un._tid */
	int32_t pad[11];
};
_Static_assert(sizeof(struct lx_sigevent) == 64, "the kernel's sigevent");

#define LX_SIGEV_SIGNAL 0
#define LX_SIGEV_NONE 1
#define LX_SIGEV_THREAD 2
#define LX_SIGEV_THREAD_ID 4

/* The epoll key of the stop eventfd; timers use their ids (>= 0). */
#define STOP_KEY UINT64_MAX

struct lx_ptimer {
	int id;
	int fd;
	int notify;
	int sig;
	pid_t tid;
	uint64_t value;
	int overrun_last;
};

struct lx_ptimers {
	pthread_mutex_t lock;
	struct lx_ptimer *v;
	size_t n, cap;
	int next_id;
	int epfd, stopfd;
	pthread_t thread;
	struct lx_proc *p;
	struct ua_task *only;
};

static struct lx_ptimer *find_locked(struct lx_ptimers *pt, int id)
{
	for (size_t i = 0; i < pt->n; i++)
		if (pt->v[i].id == id)
			return &pt->v[i];
	return NULL;
}

/* One expiry (or several: n) of tm; under pt->lock. */
static void fire_locked(struct lx_ptimers *pt, struct lx_ptimer *tm, uint64_t n)
{
	siginfo_t info;

	if (tm->notify == LX_SIGEV_NONE)
		return;
	memset(&info, 0, sizeof(info));
	info.si_signo = tm->sig;
	info.si_code = SI_TIMER;
	info.si_timerid = tm->id;
	info.si_overrun = n - 1 > INT_MAX ? INT_MAX : (int)(n - 1);
	info.si_value.sival_ptr = (void *)(uintptr_t)tm->value;
	tm->overrun_last = info.si_overrun;
	/* Nobody to take it (the thread ended): the kernel drops it too. */
	ua__lx_timer_signal(pt->p, pt->only,
			    tm->notify == LX_SIGEV_THREAD_ID ? tm->tid : 0,
			    &info);
}

static void *ptimer_main(void *arg)
{
	struct lx_ptimers *pt = arg;
	struct epoll_event ev[16];
	sigset_t all;

	/* Guest signals are for the guest's threads, never this one. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		int n = epoll_wait(pt->epfd, ev, 16, -1);

		for (int i = 0; i < n; i++) {
			struct lx_ptimer *tm;
			uint64_t count = 0;

			if (ev[i].data.u64 == STOP_KEY)
				return NULL;
			pthread_mutex_lock(&pt->lock);
			tm = find_locked(pt, (int)ev[i].data.u64);
			if (tm && read(tm->fd, &count, 8) == 8 && count)
				fire_locked(pt, tm, count);
			pthread_mutex_unlock(&pt->lock);
		}
	}
}

static void ptimers_free(struct lx_ptimers *pt)
{
	for (size_t i = 0; i < pt->n; i++)
		close(pt->v[i].fd);
	if (pt->epfd >= 0)
		close(pt->epfd);
	if (pt->stopfd >= 0)
		close(pt->stopfd);
	pthread_mutex_destroy(&pt->lock);
	free(pt->v);
	free(pt);
}

/* The process's timers, made at its first timer_create(). */
static struct lx_ptimers *ptimers_get(struct ua_task *t)
{
	struct lx_proc *p = lx_proc(t);
	struct lx_ptimers *pt = p->ptimers;
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = STOP_KEY };

	if (pt)
		return pt;
	pt = calloc(1, sizeof(*pt));
	if (!pt)
		return NULL;
	pthread_mutex_init(&pt->lock, NULL);
	pt->p = p;
	pt->only = t;
	pt->epfd = (int)ua__lx_host_above_stdio(epoll_create1(EPOLL_CLOEXEC));
	pt->stopfd = (int)ua__lx_host_above_stdio(
		eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	if (pt->epfd < 0 || pt->stopfd < 0 ||
	    epoll_ctl(pt->epfd, EPOLL_CTL_ADD, pt->stopfd, &ev) ||
	    pthread_create(&pt->thread, NULL, ptimer_main, pt)) {
		ptimers_free(pt);
		return NULL;
	}
	p->ptimers = pt;
	return pt;
}

void ua__lx_ptimers_stop(struct lx_proc *p)
{
	struct lx_ptimers *pt = p->ptimers;
	uint64_t one = 1;

	if (!pt)
		return;
	p->ptimers = NULL;
	if (write(pt->stopfd, &one, 8) == 8)
		pthread_join(pt->thread, NULL);
	ptimers_free(pt);
}

/* A forked child: the parent's timers and their thread are not its. */
void ua__lx_ptimers_reset(struct lx_proc *p)
{
	struct lx_ptimers *pt = p->ptimers;

	if (!pt)
		return;
	p->ptimers = NULL;
	/* The parent's thread may have held the lock when it forked. */
	pthread_mutex_init(&pt->lock, NULL);
	ptimers_free(pt);
}

static void say_clock(clockid_t clk)
{
	static bool said;
	char msg[128];

	if (said)
		return;
	said = true;
	snprintf(msg, sizeof(msg),
		 "uaccess: timers on clock %d (CPU time, TAI) are not "
		 "implemented: EINVAL\n",
		 (int)clk);
	ua__write_str(2, msg);
}

/*
 * Whether the host gives a timer on clk, and its error if not; then
 * whether a timerfd can stand for it.
 */
static long check_clock(clockid_t clk)
{
	timer_t probe;
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };

	if (timer_create(clk, &sev, &probe))
		return -errno;
	timer_delete(probe);
	switch (clk) {
	case CLOCK_REALTIME:
	case CLOCK_MONOTONIC:
	case CLOCK_BOOTTIME:
	case CLOCK_REALTIME_ALARM:
	case CLOCK_BOOTTIME_ALARM:
		return 0;
	}
	say_clock(clk);
	return -EINVAL;
}

/* good_sigevent(): the notification asked for, checked as the kernel. */
static long check_event(struct ua_task *t, const struct lx_sigevent *ev)
{
	siginfo_t none;

	switch (ev->notify) {
	case LX_SIGEV_THREAD_ID:
		if (ev->tid != ua__lx_tid(t) &&
		    (!lx_threaded(lx_proc(t)) ||
		     ua__lx_signal_thread(t, ev->tid, 0, &none)))
			return -EINVAL;
		/* fallthrough */
	case LX_SIGEV_SIGNAL:
	case LX_SIGEV_THREAD: /* the libc's to make: a signal here */
		if (ev->signo <= 0 || ev->signo > UA_NSIG)
			return -EINVAL;
		/* fallthrough */
	case LX_SIGEV_NONE:
		return 0;
	}
	return -EINVAL;
}

static long add_timer(struct ua_task *t, clockid_t clk,
		      const struct lx_sigevent *ev, int *id)
{
	struct lx_ptimers *pt = ptimers_get(t);
	struct lx_ptimer tm = { .notify = ev->notify,
				.sig = ev->signo,
				.tid = ev->tid,
				.value = ev->value };
	struct epoll_event e = { .events = EPOLLIN };
	long ret = 0;

	if (!pt)
		return -EAGAIN;
	tm.fd = (int)ua__lx_host_above_stdio(
		timerfd_create(clk, TFD_CLOEXEC | TFD_NONBLOCK));
	if (tm.fd < 0)
		return tm.fd;
	pthread_mutex_lock(&pt->lock);
	if (pt->n == pt->cap) {
		size_t cap = pt->cap ? pt->cap * 2 : 8;
		struct lx_ptimer *v = realloc(pt->v, cap * sizeof(*v));

		if (!v) {
			ret = -EAGAIN;
			goto out;
		}
		pt->v = v;
		pt->cap = cap;
	}
	tm.id = pt->next_id;
	/* A NULL sigevent: SIGALRM, its value the timer's id. */
	if (ev->notify == LX_SIGEV_SIGNAL && ev->value == UINT64_MAX)
		tm.value = (uint64_t)tm.id;
	e.data.u64 = (uint64_t)tm.id;
	if (epoll_ctl(pt->epfd, EPOLL_CTL_ADD, tm.fd, &e)) {
		ret = -errno;
		goto out;
	}
	pt->next_id = pt->next_id == INT_MAX ? 0 : pt->next_id + 1;
	pt->v[pt->n++] = tm;
	*id = tm.id;
out:
	pthread_mutex_unlock(&pt->lock);
	if (ret)
		close(tm.fd);
	return ret;
}

static long del_timer(struct ua_task *t, int id)
{
	struct lx_ptimers *pt = lx_proc(t)->ptimers;
	struct lx_ptimer *tm;

	if (!pt)
		return -EINVAL;
	pthread_mutex_lock(&pt->lock);
	tm = find_locked(pt, id);
	if (tm) {
		close(tm->fd); /* leaves the epoll set with it */
		*tm = pt->v[--pt->n];
	}
	pthread_mutex_unlock(&pt->lock);
	return tm ? 0 : -EINVAL;
}

/* SYSCALL_DEFINE3(timer_create): the sigevent is read before anything. */
static long sys_timer_create(struct ua_task *t, struct ua_pt_regs *r)
{
	struct lx_sigevent ev = { .value = UINT64_MAX,
				  .signo = SIGALRM,
				  .notify = LX_SIGEV_SIGNAL };
	clockid_t clk = (clockid_t)ARG1(r);
	long err;
	int id = -1;

	if (ARG2(r) && ua_copy_from_user(&ev, (void *)ARG2(r), sizeof(ev)))
		return -EFAULT;
	err = check_clock(clk);
	if (err)
		return err;
	err = check_event(t, &ev);
	if (err)
		return err;
	err = add_timer(t, clk, &ev, &id);
	if (err)
		return err;
	if (ua_put_user(id, (int *)ARG3(r))) {
		del_timer(t, id);
		return -EFAULT;
	}
	return 0;
}

/* The host timerfd of the guest's timer id, held under pt->lock. */
static struct lx_ptimer *timer_lock(struct ua_task *t, int id)
{
	struct lx_ptimers *pt = lx_proc(t)->ptimers;
	struct lx_ptimer *tm;

	if (!pt)
		return NULL;
	pthread_mutex_lock(&pt->lock);
	tm = find_locked(pt, id);
	if (!tm)
		pthread_mutex_unlock(&pt->lock);
	return tm;
}

static void timer_unlock(struct ua_task *t)
{
	pthread_mutex_unlock(&lx_proc(t)->ptimers->lock);
}

/*
 * SYSCALL_DEFINE4(timer_settime): the new value is read first, the old
 * one written after.  The flag TIMER_ABSTIME is timerfd's too.
 */
static long sys_timer_settime(struct ua_task *t, struct ua_pt_regs *r)
{
	struct itimerspec nv, ov;
	struct lx_ptimer *tm;
	int ret;

	if (!ARG3(r))
		return -EINVAL;
	if (ua_copy_from_user(&nv, (void *)ARG3(r), sizeof(nv)))
		return -EFAULT;
	tm = timer_lock(t, (int)ARG1(r));
	if (!tm)
		return -EINVAL;
	ret = timerfd_settime(tm->fd, (int)ARG2(r) & TIMER_ABSTIME, &nv, &ov);
	if (ret)
		ret = -errno;
	timer_unlock(t);
	if (!ret && ARG4(r) &&
	    ua_copy_to_user((void *)ARG4(r), &ov, sizeof(ov)))
		return -EFAULT;
	return ret;
}

static long sys_timer_gettime(struct ua_task *t, struct ua_pt_regs *r)
{
	struct itimerspec cur;
	struct lx_ptimer *tm = timer_lock(t, (int)ARG1(r));
	int ret;

	if (!tm)
		return -EINVAL;
	ret = timerfd_gettime(tm->fd, &cur) ? -errno : 0;
	timer_unlock(t);
	if (!ret && ua_copy_to_user((void *)ARG2(r), &cur, sizeof(cur)))
		return -EFAULT;
	return ret;
}

static long sys_timer_getoverrun(struct ua_task *t, struct ua_pt_regs *r)
{
	struct lx_ptimer *tm = timer_lock(t, (int)ARG1(r));
	int n;

	if (!tm)
		return -EINVAL;
	n = tm->overrun_last;
	timer_unlock(t);
	return n;
}

static long sys_timer_delete(struct ua_task *t, struct ua_pt_regs *r)
{
	return del_timer(t, (int)ARG1(r));
}

static const struct lx_call calls[] = {
	{ SYS_timer_create, "timer_create", sys_timer_create, "dpp" },
	{ SYS_timer_settime, "timer_settime", sys_timer_settime, "dxpp" },
	{ SYS_timer_gettime, "timer_gettime", sys_timer_gettime, "dp" },
	{ SYS_timer_getoverrun, "timer_getoverrun", sys_timer_getoverrun, "d" },
	{ SYS_timer_delete, "timer_delete", sys_timer_delete, "d" },
};

void ua__lx_ptimer_init(void)
{
	LX_REGISTER(calls);
}
