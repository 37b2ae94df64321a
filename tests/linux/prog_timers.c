// SPDX-License-Identifier: MIT
/*
 * POSIX timers, run natively and under uarun by run_programs.py: the
 * output must be the same bytes, so it says only what does not depend on
 * timing.  SIGEV_SIGNAL with the default sigevent and with an RT signal
 * and a value, expiries while the signal is pending counted as its
 * overrun, a handler run by a periodic timer, SIGEV_THREAD_ID to a thread
 * that blocks the signal while another does not, the libc's SIGEV_THREAD,
 * SIGEV_NONE read back, an absolute CLOCK_REALTIME expiry, a forked child
 * without its parent's timers, and the kernel's errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MS 1000000L

/* The kernel's timer id behind a libc timer_t of SIGEV_SIGNAL/NONE. */
static int kid(timer_t t)
{
	return (int)(intptr_t)t;
}

/*
 * sigev_notify_thread_id: the union after the first 16 bytes, as the
 * kernel's struct sigevent (glibc names it _sigev_un._tid, musl's
 * headers give it no name).
 */
static void set_tid(struct sigevent *ev, pid_t tid)
{
	memcpy((char *)ev + 16, &tid, sizeof(tid));
}

static void block(int sig)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, sig);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
}

static int wait_one(int sig, siginfo_t *si)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, sig);
	return sigwaitinfo(&s, si);
}

static void arm(timer_t t, long first_ns, long every_ns, int flags)
{
	struct itimerspec v = {
		{ every_ns / 1000000000L, every_ns % 1000000000L },
		{ first_ns / 1000000000L, first_ns % 1000000000L }
	};

	if (timer_settime(t, flags, &v, NULL))
		perror("timer_settime");
}

static void sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void show(const char *what, long ret)
{
	printf("%s: %ld %s\n", what, ret, ret < 0 ? strerror(errno) : "");
	errno = 0;
}

/* A NULL sigevent: SIGALRM, the value the timer's id. */
static void default_event(void)
{
	timer_t t;
	siginfo_t si;

	block(SIGALRM);
	if (timer_create(CLOCK_MONOTONIC, NULL, &t)) {
		perror("timer_create");
		return;
	}
	arm(t, 10 * MS, 0, 0);
	if (wait_one(SIGALRM, &si) != SIGALRM)
		perror("sigwaitinfo");
	printf("default: signo %d code SI_TIMER %d value is id %d "
	       "timerid is id %d overrun %d\n",
	       si.si_signo, si.si_code == SI_TIMER,
	       si.si_value.sival_int == kid(t), si.si_timerid == kid(t),
	       si.si_overrun);
	timer_delete(t);
}

/*
 * Periodic, its RT signal left pending: the expiries become its overrun
 * (queued once, not once per expiry).  Collected before the timer is
 * changed: since Linux 6.13 a re-armed or deleted timer's pending
 * signal is dropped, before then it is delivered.
 */
static void overrun(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL,
			       .sigev_signo = SIGRTMIN + 1,
			       .sigev_value.sival_int = 42 };
	struct itimerspec cur;
	siginfo_t si;
	timer_t t;

	block(SIGRTMIN + 1);
	timer_create(CLOCK_MONOTONIC, &ev, &t);
	arm(t, 2 * MS, 2 * MS, 0);
	sleep_ns(40 * MS);
	wait_one(SIGRTMIN + 1, &si);
	timer_gettime(t, &cur);
	printf("overrun: value %d overrun>=5 %d still armed %d\n",
	       si.si_value.sival_int, si.si_overrun >= 5,
	       cur.it_interval.tv_nsec == 2 * MS);
	timer_delete(t);
}

static atomic_int ticks;

static void on_tick(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code == SI_TIMER && si->si_value.sival_int == 7)
		atomic_fetch_add(&ticks, 1);
}

/* A handler run by every expiry of a periodic timer. */
static void handler(void)
{
	struct sigaction sa = { .sa_sigaction = on_tick,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL,
			       .sigev_signo = SIGUSR1,
			       .sigev_value.sival_int = 7 };
	timer_t t;

	sigaction(SIGUSR1, &sa, NULL);
	timer_create(CLOCK_MONOTONIC, &ev, &t);
	/*
	 * A period well above what a delivery costs under the slowest
	 * backend and frame mode in an emulated machine: a period shorter
	 * than handler and return leaves no time for the loop between
	 * signals, natively too.
	 */
	arm(t, 20 * MS, 20 * MS, 0);
	while (atomic_load(&ticks) < 3)
		sleep_ns(5 * MS);
	timer_delete(t);
	printf("handler: at least 3 ticks\n");
}

static sem_t worker_ready, worker_done;
static atomic_int worker_got;

static void on_usr2(int sig)
{
	(void)sig;
	atomic_store(&worker_got, 1);
}

/* Does not block SIGUSR2: a process-directed one would come here. */
static void *worker(void *arg)
{
	sigset_t s;

	(void)arg;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	sem_post(&worker_ready);
	sem_wait(&worker_done);
	return NULL;
}

/* SIGEV_THREAD_ID to the first thread, which blocks the signal. */
static void thread_id(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID,
			       .sigev_signo = SIGUSR2 };
	struct sigaction sa = { .sa_handler = on_usr2 };
	pthread_t th;
	siginfo_t si;
	timer_t t;

	sigaction(SIGUSR2, &sa, NULL);
	block(SIGUSR2);
	sem_init(&worker_ready, 0, 0);
	sem_init(&worker_done, 0, 0);
	errno = pthread_create(&th, NULL, worker, NULL);
	if (errno) {
		perror("pthread_create");
		return;
	}
	sem_wait(&worker_ready);
	set_tid(&ev, (pid_t)syscall(SYS_gettid));
	if (timer_create(CLOCK_MONOTONIC, &ev, &t))
		perror("timer_create thread_id");
	arm(t, 5 * MS, 0, 0);
	wait_one(SIGUSR2, &si);
	sem_post(&worker_done);
	pthread_join(th, NULL);
	printf("thread_id: the first thread took it %d, the worker %d\n",
	       si.si_code == SI_TIMER, atomic_load(&worker_got));
	timer_delete(t);
}

static sem_t fired;
static atomic_int fired_value;

static void on_thread(union sigval v)
{
	atomic_store(&fired_value, v.sival_int);
	sem_post(&fired);
}

/* The libc's SIGEV_THREAD (a helper thread and SIGEV_THREAD_ID). */
static void sigev_thread(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD,
			       .sigev_notify_function = on_thread,
			       .sigev_value.sival_int = 99 };
	timer_t t;

	sem_init(&fired, 0, 0);
	if (timer_create(CLOCK_MONOTONIC, &ev, &t)) {
		perror("timer_create SIGEV_THREAD");
		return;
	}
	arm(t, 5 * MS, 0, 0);
	while (sem_wait(&fired) && errno == EINTR)
		;
	timer_delete(t);
	printf("sigev_thread: value %d\n", atomic_load(&fired_value));
}

/* SIGEV_NONE: nothing is sent, the time left reads back. */
static void none(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_NONE };
	struct itimerspec cur, old;
	struct itimerspec v = { { 0, 0 }, { 5, 0 } };
	timer_t t;
	int id;

	timer_create(CLOCK_MONOTONIC, &ev, &t);
	id = kid(t);
	timer_settime(t, 0, &v, NULL);
	timer_gettime(t, &cur);
	v.it_value.tv_sec = 0;
	timer_settime(t, 0, &v, &old);
	printf("none: armed %d old %d overrun %d\n",
	       cur.it_value.tv_sec >= 4 && cur.it_value.tv_sec <= 5,
	       old.it_value.tv_sec >= 4 && old.it_value.tv_sec <= 5,
	       timer_getoverrun(t));
	timer_delete(t);
	show("none: deleted gettime", syscall(SYS_timer_gettime, id, &cur));
}

/* TIMER_ABSTIME on CLOCK_REALTIME. */
static void absolute(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL,
			       .sigev_signo = SIGRTMIN + 2 };
	struct itimerspec v = { { 0, 0 }, { 0, 0 } };
	siginfo_t si;
	timer_t t;

	block(SIGRTMIN + 2);
	timer_create(CLOCK_REALTIME, &ev, &t);
	clock_gettime(CLOCK_REALTIME, &v.it_value);
	v.it_value.tv_nsec += 10 * MS;
	if (v.it_value.tv_nsec >= 1000000000L) {
		v.it_value.tv_sec++;
		v.it_value.tv_nsec -= 1000000000L;
	}
	timer_settime(t, TIMER_ABSTIME, &v, NULL);
	wait_one(SIGRTMIN + 2, &si);
	printf("absolute: code SI_TIMER %d\n", si.si_code == SI_TIMER);
	timer_delete(t);
}

/* Timers are not inherited (kernel/fork.c: copy_signal()). */
static void forked(void)
{
	struct itimerspec cur;
	timer_t t;
	pid_t pid;
	int st;

	timer_create(CLOCK_MONOTONIC, NULL, &t);
	fflush(stdout);
	pid = fork();
	if (!pid) {
		show("fork: the child's gettime",
		     syscall(SYS_timer_gettime, kid(t), &cur));
		_exit(0);
	}
	waitpid(pid, &st, 0);
	printf("fork: the parent's gettime %ld\n",
	       syscall(SYS_timer_gettime, kid(t), &cur));
	timer_delete(t);
}

/* The kernel's errors, by the raw calls. */
static void errors(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL,
			       .sigev_signo = SIGUSR1 };
	struct itimerspec bad = { { 0, 0 }, { 0, 1000000000L } };
	int id = -1;

	show("bad clock", syscall(SYS_timer_create, 12, NULL, &id));
	show("raw clock",
	     syscall(SYS_timer_create, CLOCK_MONOTONIC_RAW, NULL, &id));
	ev.sigev_notify = 99;
	show("bad notify",
	     syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id));
	ev.sigev_notify = SIGEV_THREAD;
	/* The kernel takes it as SIGEV_SIGNAL (good_sigevent()). */
	show("kernel SIGEV_THREAD",
	     syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id));
	syscall(SYS_timer_delete, id);
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = 0;
	show("signal 0", syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id));
	ev.sigev_signo = 65;
	show("signal 65", syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id));
	ev.sigev_signo = SIGUSR1;
	ev.sigev_notify = SIGEV_THREAD_ID;
	set_tid(&ev, 1);
	show("thread of another",
	     syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id));
	show("bad sigevent",
	     syscall(SYS_timer_create, CLOCK_MONOTONIC, (void *)8, &id));
	show("bad id pointer",
	     syscall(SYS_timer_create, CLOCK_MONOTONIC, NULL, (void *)8));
	if (syscall(SYS_timer_create, CLOCK_MONOTONIC, NULL, &id))
		perror("timer_create");
	show("settime NULL", syscall(SYS_timer_settime, id, 0, NULL, NULL));
	show("settime nsec", syscall(SYS_timer_settime, id, 0, &bad, NULL));
	show("settime bad pointer",
	     syscall(SYS_timer_settime, id, 0, (void *)8, NULL));
	show("gettime bad pointer", syscall(SYS_timer_gettime, id, (void *)8));
	show("getoverrun", syscall(SYS_timer_getoverrun, id));
	show("delete", syscall(SYS_timer_delete, id));
	show("delete again", syscall(SYS_timer_delete, id));
	show("getoverrun deleted", syscall(SYS_timer_getoverrun, id));
	show("settime never made",
	     syscall(SYS_timer_settime, 12345, 0, &bad, NULL));
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	default_event();
	overrun();
	handler();
	thread_id();
	sigev_thread();
	none();
	absolute();
	forked();
	errors();
	return 0;
}
