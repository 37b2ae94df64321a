// SPDX-License-Identifier: MIT
/*
 * Threads, run natively and under uarun by run_programs.py: the output
 * must be the same bytes.  Mutexes and condition variables under
 * contention, a barrier, thread-local storage, thread ids, pthread_kill,
 * a signal to the process taken by the one thread that does not block
 * it, pthread_cancel, join values, a robust mutex whose owner died; with an argument, how a thread ends
 * the process (segv: a fault; exit: exit() from a thread; mainexit: the
 * first thread leaves with pthread_exit(); stress: futex handoffs;
 * hostsig: a signal from outside taken by the thread not blocking it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* include/uapi/linux/futex.h, which musl's headers lack. */
#define FUTEX_WAIT_PRIVATE 128
#define FUTEX_WAKE_PRIVATE 129

#define NTHREADS 4
#define ROUNDS 20000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long counter;

static pid_t tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void *count(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void mutexes(void)
{
	pthread_t t[NTHREADS];

	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, count, NULL);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	printf("mutex: %ld of %d\n", counter, NTHREADS * ROUNDS);
}

/* A one-slot queue: the producer waits for room, the consumer for an item. */
static int slot, full, done_producing;

static void *produce(void *arg)
{
	(void)arg;
	for (int i = 1; i <= 2000; i++) {
		pthread_mutex_lock(&lock);
		while (full)
			pthread_cond_wait(&cond, &lock);
		slot = i;
		full = 1;
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_lock(&lock);
	while (full)
		pthread_cond_wait(&cond, &lock);
	done_producing = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void condvars(void)
{
	pthread_t p;
	long sum = 0, n = 0;

	pthread_create(&p, NULL, produce, NULL);
	pthread_mutex_lock(&lock);
	for (;;) {
		while (!full && !done_producing)
			pthread_cond_wait(&cond, &lock);
		if (!full)
			break;
		sum += slot;
		n++;
		full = 0;
		pthread_cond_broadcast(&cond);
	}
	pthread_mutex_unlock(&lock);
	pthread_join(p, NULL);
	printf("condvar: %ld items, sum %ld\n", n, sum);
}

static pthread_barrier_t barrier;
static _Atomic int arrived[3];
static __thread int mine = 7;

static void *barrier_tls(void *arg)
{
	long id = (long)arg;
	int serial = 0;

	mine = (int)id * 10;
	for (int r = 0; r < 3; r++) {
		arrived[r]++;
		if (pthread_barrier_wait(&barrier) ==
		    PTHREAD_BARRIER_SERIAL_THREAD)
			serial++;
		/* Everyone got here before anyone went on. */
		if (arrived[r] != NTHREADS)
			return (void *)-1L;
	}
	if (mine != (int)id * 10)
		return (void *)-2L;
	return (void *)(long)serial;
}

static void barriers(void)
{
	pthread_t t[NTHREADS];
	long serials = 0;
	void *ret;

	pthread_barrier_init(&barrier, NULL, NTHREADS);
	for (long i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, barrier_tls, (void *)(i + 1));
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], &ret);
		if ((long)ret < 0)
			printf("barrier: thread %d: %ld\n", i, (long)ret);
		else
			serials += (long)ret;
	}
	printf("barrier: 3 rounds, %ld serial returns; tls main %d\n",
	       serials, mine);
}

static _Atomic pid_t handled_by;
static _Atomic int handled_sig;

static void on_sig(int sig)
{
	handled_by = tid();
	handled_sig = sig;
}

static _Atomic pid_t worker_tid;
static _Atomic int stop;

static void *spin(void *arg)
{
	(void)arg;
	worker_tid = tid();
	while (!stop)
		;
	return NULL;
}

static void wait_handled(void)
{
	while (!handled_sig)
		sched_yield();
}

static void ids_and_signals(void)
{
	struct sigaction sa = { .sa_handler = on_sig };
	sigset_t set;
	pthread_t t;

	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	printf("ids: main tid is pid %d\n", tid() == getpid());
	pthread_create(&t, NULL, spin, NULL);
	while (!worker_tid)
		sched_yield();
	printf("ids: worker tid differs %d\n", worker_tid != getpid());
	/* A thread-directed signal runs on its thread. */
	pthread_kill(t, SIGUSR1);
	wait_handled();
	printf("pthread_kill: sig %d on the worker %d\n", handled_sig,
	       handled_by == worker_tid);
	/* The process's signal, blocked here: the worker takes it. */
	handled_sig = 0;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	kill(getpid(), SIGUSR2);
	wait_handled();
	printf("kill: sig %d on the worker %d\n", handled_sig,
	       handled_by == worker_tid);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	stop = 1;
	pthread_join(t, NULL);
}

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void cancel(void)
{
	pthread_t t;
	void *ret;

	pthread_create(&t, NULL, sleeper, NULL);
	pthread_cancel(t);
	pthread_join(t, &ret);
	printf("cancel: %s\n", ret == PTHREAD_CANCELED ? "canceled" : "?");
}

/* A thread that dies holding a robust mutex: the next locker is told. */
static pthread_mutex_t robust;

static void *die_holding(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&robust);
	return NULL;
}

static void robust_mutex(void)
{
	pthread_mutexattr_t a;
	pthread_t t;
	int err;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&robust, &a);
	pthread_create(&t, NULL, die_holding, NULL);
	pthread_join(t, NULL);
	err = pthread_mutex_lock(&robust);
	printf("robust: %s", err == EOWNERDEAD ? "EOWNERDEAD" : strerror(err));
	if (err == EOWNERDEAD)
		pthread_mutex_consistent(&robust);
	printf(", unlock %d\n", pthread_mutex_unlock(&robust));
}

static void *fault(void *arg)
{
	(void)arg;
	*(volatile int *)(uintptr_t)16 = 1;
	return NULL;
}

static void *exits(void *arg)
{
	(void)arg;
	fflush(stdout);
	syscall(SYS_exit_group, 3);
	return NULL;
}

static void *late(void *arg)
{
	struct timespec ts = { 0, 20000000 };

	(void)arg;
	nanosleep(&ts, NULL);
	printf("late thread: done\n");
	fflush(stdout);
	return NULL;
}

/*
 * The futex stress: 4 pairs of threads hand a word back and forth
 * STRESS times each, waking each other with FUTEX_WAKE and sleeping in
 * FUTEX_WAIT (8 threads x STRESS wake/wait pairs).  A lost wake-up hangs.
 */
#define STRESS 100000

struct pair {
	_Atomic int word;
	int side;
};

static long futex(_Atomic int *w, int op, int val)
{
	return syscall(SYS_futex, w, op, val, NULL, NULL, 0);
}

static void *handoff(void *arg)
{
	struct pair *p = (struct pair *)((uintptr_t)arg & ~(uintptr_t)1);
	int mine = (int)((uintptr_t)arg & 1), theirs = !mine;
	long waits = 0;

	for (int i = 0; i < STRESS; i++) {
		while (atomic_load(&p->word) != mine) {
			futex(&p->word, FUTEX_WAIT_PRIVATE, theirs);
			waits++;
		}
		atomic_store(&p->word, theirs);
		futex(&p->word, FUTEX_WAKE_PRIVATE, 1);
	}
	return (void *)waits;
}

static void stress(void)
{
	static struct pair pairs[4] __attribute__((aligned(8)));
	pthread_t t[8];

	for (int i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, handoff,
			       (void *)((uintptr_t)&pairs[i / 2] | (i & 1)));
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	printf("stress: 8 threads x %d handoffs, words %d %d %d %d\n",
	       STRESS, pairs[0].word, pairs[1].word, pairs[2].word,
	       pairs[3].word);
}

/*
 * hostsig: a SIGTERM sent to the process from outside (the runner) is
 * taken by the one thread that does not block it, while the first
 * thread has left with pthread_exit().
 */
static _Atomic pid_t took;

static void on_term(int sig)
{
	(void)sig;
	took = tid();
}

static void *term_worker(void *arg)
{
	sigset_t set;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	worker_tid = tid();
	while (!took)
		sched_yield();
	printf("SIGTERM taken by the worker: %d\n", took == worker_tid);
	exit(0);
}

static void host_term(void)
{
	struct sigaction sa = { .sa_handler = on_term };
	sigset_t set;
	pthread_t t;

	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_create(&t, NULL, term_worker, NULL);
	while (!worker_tid)
		sched_yield();
	printf("ready\n");
	fflush(stdout);
	pthread_exit(NULL);
}

int main(int argc, char **argv)
{
	pthread_t t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "segv")) {
		pthread_create(&t, NULL, fault, NULL);
		pthread_join(t, NULL);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "exit")) {
		pthread_create(&t, NULL, exits, NULL);
		pthread_join(t, NULL);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "hostsig"))
		host_term();
	if (argc > 1 && !strcmp(argv[1], "stress")) {
		stress();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "mainexit")) {
		pthread_create(&t, NULL, late, NULL);
		pthread_exit(NULL);
	}
	mutexes();
	condvars();
	barriers();
	ids_and_signals();
	cancel();
	robust_mutex();
	return 0;
}
