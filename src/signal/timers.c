// SPDX-License-Identifier: MIT
/*
 * Timers and sleeps for guests: alarm, setitimer/getitimer (ITIMER_REAL,
 * one per task, SIGALRM with si_code SI_KERNEL as the kernel's
 * it_real_fn() sends it) and nanosleep with the kernel's
 * ERESTART_RESTARTBLOCK rules (kernel/time/itimer.c, hrtimer.c).
 *
 * One monitor thread, started by the first timer armed, sleeps until the
 * earliest expiry and sends the signal like any other sender, which
 * interrupts a task running guest code (irq.c).  Times are
 * CLOCK_MONOTONIC nanoseconds, as the kernel's hrtimers for ITIMER_REAL.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "signal_internal.h"

#define NSEC 1000000000ull

static pthread_mutex_t timer_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t timer_cond;
static pthread_once_t timer_once = PTHREAD_ONCE_INIT;
static int timer_err;
static struct ua_task **armed;
static size_t narmed, armed_cap;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

static struct timespec ns_to_ts(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / NSEC),
				  .tv_nsec = (long)(ns % NSEC) };
}

/* Called with timer_lock held. */
static void unlist(struct ua_task *t)
{
	for (size_t i = 0; i < narmed; i++) {
		if (armed[i] == t) {
			armed[i] = armed[--narmed];
			return;
		}
	}
}

static int list(struct ua_task *t)
{
	for (size_t i = 0; i < narmed; i++)
		if (armed[i] == t)
			return 0;
	if (narmed == armed_cap) {
		size_t cap = armed_cap ? armed_cap * 2 : 8;
		struct ua_task **a = realloc(armed, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		armed = a;
		armed_cap = cap;
	}
	armed[narmed++] = t;
	return 0;
}

/* Expire what is due; the next expiry (UINT64_MAX: none).  Locked. */
static uint64_t run_timers(void)
{
	uint64_t now = mono_ns(), next = UINT64_MAX;
	siginfo_t info;

	memset(&info, 0, sizeof(info));
	info.si_signo = SIGALRM;
	info.si_code = SI_KERNEL;
	for (size_t i = 0; i < narmed;) {
		struct ua_task *t = armed[i];
		struct ua_sigstate *s = sigstate(t);

		if (s->itimer_expiry > now) {
			if (s->itimer_expiry < next)
				next = s->itimer_expiry;
			i++;
			continue;
		}
		if (ua__sig_send(t, SIGALRM, &info, false) == -ESRCH ||
		    !s->itimer_interval) {
			s->itimer_expiry = 0;
			armed[i] = armed[--narmed];
			continue;
		}
		/* hrtimer_forward(): the next period after now. */
		s->itimer_expiry += ((now - s->itimer_expiry) /
					     s->itimer_interval +
				     1) *
				    s->itimer_interval;
		if (s->itimer_expiry < next)
			next = s->itimer_expiry;
		i++;
	}
	return next;
}

static void *timer_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&timer_lock);
	for (;;) {
		uint64_t next = run_timers();

		if (next == UINT64_MAX) {
			pthread_cond_wait(&timer_cond, &timer_lock);
		} else {
			struct timespec ts = ns_to_ts(next);

			pthread_cond_timedwait(&timer_cond, &timer_lock, &ts);
		}
	}
	return NULL;
}

static void timer_start(void)
{
	pthread_condattr_t ca;
	pthread_t th;
	sigset_t all, old;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&timer_cond, &ca);
	pthread_condattr_destroy(&ca);
	/* No host signal is ever handled on the timer thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	timer_err = -pthread_create(&th, NULL, timer_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!timer_err)
		pthread_detach(th);
}

/*
 * The child of a guest's fork: the timer thread did not come along, and
 * the kernel does not give a forked child its parent's interval timers
 * (copy_signal() starts them disarmed).  A timer armed later starts the
 * thread again.
 */
void ua__timers_after_fork(struct ua_task *t)
{
	struct ua_sigstate *s = sigstate(t);

	pthread_mutex_init(&timer_lock, NULL);
	narmed = 0;
	timer_once = (pthread_once_t)PTHREAD_ONCE_INIT;
	timer_err = 0;
	if (s)
		s->itimer_expiry = s->itimer_interval = 0;
}

void ua__timer_forget(struct ua_task *t)
{
	struct ua_sigstate *s = sigstate(t);

	if (!s)
		return;
	pthread_mutex_lock(&timer_lock);
	unlist(t);
	s->itimer_expiry = 0;
	pthread_mutex_unlock(&timer_lock);
}

static bool tv_valid(const struct timeval *tv)
{
	return tv->tv_sec >= 0 && tv->tv_usec >= 0 && tv->tv_usec < 1000000;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * NSEC + (uint64_t)tv->tv_usec * 1000;
}

static struct timeval ns_tv(uint64_t ns)
{
	return (struct timeval){ .tv_sec = (time_t)(ns / NSEC),
				 .tv_usec = (suseconds_t)(ns % NSEC / 1000) };
}

/* The setting as getitimer() reports it.  Locked. */
static struct itimerval current(const struct ua_sigstate *s)
{
	struct itimerval v = { .it_interval = ns_tv(s->itimer_interval) };
	uint64_t now = mono_ns();

	if (!s->itimer_expiry)
		return (struct itimerval){ 0 };
	/* Expired, not yet sent: the kernel reports one microsecond. */
	v.it_value = ns_tv(s->itimer_expiry > now ? s->itimer_expiry - now :
						    1000);
	if (!v.it_value.tv_sec && !v.it_value.tv_usec)
		v.it_value.tv_usec = 1;
	return v;
}

static int do_setitimer(struct ua_task *t, const struct itimerval *nv,
			struct itimerval *ov)
{
	struct ua_sigstate *s = sigstate(t);
	uint64_t value = tv_ns(&nv->it_value);
	int err = 0;

	pthread_once(&timer_once, timer_start);
	if (timer_err)
		return timer_err;
	pthread_mutex_lock(&timer_lock);
	if (ov)
		*ov = current(s);
	if (!value) {
		unlist(t);
		s->itimer_expiry = 0;
		s->itimer_interval = 0;
	} else {
		err = list(t);
		if (!err) {
			s->itimer_expiry = mono_ns() + value;
			s->itimer_interval = tv_ns(&nv->it_interval);
		}
	}
	pthread_cond_signal(&timer_cond);
	pthread_mutex_unlock(&timer_lock);
	return err;
}

static long sys_setitimer(struct ua_task *t, struct ua_pt_regs *r)
{
	struct itimerval nv = { 0 }, ov;
	int err;

	if ((int)r->rsi != ITIMER_REAL)
		return -EINVAL;
	/* A NULL new value disarms, as Linux accepts it. */
	if (r->rdx && ua_copy_from_user(&nv, (void *)r->rdx, sizeof(nv)))
		return -EFAULT;
	if (!tv_valid(&nv.it_value) || !tv_valid(&nv.it_interval))
		return -EINVAL;
	err = do_setitimer(t, &nv, &ov);
	if (err)
		return err;
	if (r->rcx && ua_copy_to_user((void *)r->rcx, &ov, sizeof(ov)))
		return -EFAULT;
	return 0;
}

static long sys_getitimer(struct ua_task *t, struct ua_pt_regs *r)
{
	struct itimerval v;

	if ((int)r->rsi != ITIMER_REAL)
		return -EINVAL;
	pthread_mutex_lock(&timer_lock);
	v = current(sigstate(t));
	pthread_mutex_unlock(&timer_lock);
	if (ua_copy_to_user((void *)r->rdx, &v, sizeof(v)))
		return -EFAULT;
	return 0;
}

/* kernel/time/itimer.c alarm_setitimer(): the old value, rounded. */
static long sys_alarm(struct ua_task *t, struct ua_pt_regs *r)
{
	struct itimerval nv = { .it_value.tv_sec = (time_t)(unsigned)r->rsi };
	struct itimerval ov;
	int err = do_setitimer(t, &nv, &ov);

	if (err)
		return err;
	if ((!ov.it_value.tv_sec && ov.it_value.tv_usec) ||
	    ov.it_value.tv_usec >= 500000)
		ov.it_value.tv_sec++;
	return (long)ov.it_value.tv_sec;
}

/*
 * Sleep until deadline unless a signal becomes deliverable; then the
 * time left goes to rem and ERESTART_RESTARTBLOCK says: EINTR if a
 * handler runs, otherwise sleep on to the same deadline.
 */
static long sleep_until(struct ua_task *t, uint64_t deadline, uint64_t rem)
{
	struct ua_sigstate *s = sigstate(t);
	bool interrupted = false;
	uint64_t now;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		struct timespec rt;
		uint64_t abs;

		if (ua__sig_pending(s) & ~s->blocked) {
			interrupted = true;
			break;
		}
		now = mono_ns();
		if (now >= deadline)
			break;
		/* The signal state's condition variable is on CLOCK_REALTIME. */
		clock_gettime(CLOCK_REALTIME, &rt);
		abs = (uint64_t)rt.tv_sec * NSEC + (uint64_t)rt.tv_nsec +
		      (deadline - now);
		rt = ns_to_ts(abs);
		if (ua__sig_wait_answer(t))
			continue;
		pthread_cond_timedwait(&s->cond, &s->lock, &rt);
	}
	pthread_mutex_unlock(&s->lock);
	if (!interrupted)
		return 0;
	s->restart_deadline = deadline;
	s->restart_rem = rem;
	if (rem) {
		now = mono_ns();
		struct timespec left = ns_to_ts(deadline > now ? deadline - now :
								 0);

		if (ua_copy_to_user((void *)rem, &left, sizeof(left)))
			return -EFAULT;
	}
	return -ERESTART_RESTARTBLOCK;
}

static long sys_nanosleep(struct ua_task *t, struct ua_pt_regs *r)
{
	struct timespec req;

	if (ua_copy_from_user(&req, (void *)r->rsi, sizeof(req)))
		return -EFAULT;
	if (req.tv_sec < 0 || req.tv_nsec < 0 || req.tv_nsec >= (long)NSEC)
		return -EINVAL;
	return sleep_until(t,
			   mono_ns() + (uint64_t)req.tv_sec * NSEC +
				   (uint64_t)req.tv_nsec,
			   r->rdx);
}

/* The kernel's restart_syscall: the interrupted sleep, to its deadline. */
static long sys_restart_syscall(struct ua_task *t, struct ua_pt_regs *r)
{
	struct ua_sigstate *s = sigstate(t);
	uint64_t deadline = s->restart_deadline;

	(void)r;
	if (!deadline)
		return -EINTR;
	s->restart_deadline = 0;
	return sleep_until(t, deadline, s->restart_rem);
}

__attribute__((constructor)) static void timers_init(void)
{
	ua__syscall_register(UA_NR_alarm, sys_alarm, 0);
	ua__syscall_register(UA_NR_setitimer, sys_setitimer, 0);
	ua__syscall_register(UA_NR_getitimer, sys_getitimer, 0);
	ua__syscall_register(UA_NR_nanosleep, sys_nanosleep, 0);
	ua__syscall_register(UA_NR_restart_syscall, sys_restart_syscall, 0);
}

/* Guest side. */

static long result(long ret)
{
	if (ret < 0 && ret > -4096) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

unsigned ua_sys_alarm(unsigned seconds)
{
	return (unsigned)ua__syscall(UA_NR_alarm, seconds, 0, 0, 0, 0);
}

int ua_sys_setitimer(int which, const struct itimerval *nv,
		     struct itimerval *ov)
{
	return (int)result(ua__syscall(UA_NR_setitimer, which, (long)nv,
				       (long)ov, 0, 0));
}

int ua_sys_getitimer(int which, struct itimerval *cur)
{
	return (int)result(ua__syscall(UA_NR_getitimer, which, (long)cur, 0,
				       0, 0));
}

int ua_sys_nanosleep(const struct timespec *req, struct timespec *rem)
{
	return (int)result(ua__syscall(UA_NR_nanosleep, (long)req, (long)rem,
				       0, 0, 0));
}
