// SPDX-License-Identifier: MIT
/*
 * Threads, run natively and under uarun by run_programs.py: the output
 * must be the same bytes.  Mutexes and condition variables under
 * contention, a barrier, thread-local storage, thread ids, pthread_kill,
 * a signal to the process taken by the one thread that does not block
 * it, one that every thread blocks taken by sigwait() in one or by the
 * one that unblocks it, FUTEX_WAKE_OP, pthread_cancel, join values, a
 * robust mutex whose owner died; with an argument, how a thread ends
 * the process (segv: a fault; exit: exit() from a thread; mainexit: the
 * first thread leaves with pthread_exit(); stress: futex handoffs;
 * hostsig: a signal from outside taken by the thread not blocking it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <semaphore.h>
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

/*
 * The process's queue (the kernel's shared_pending): a signal every
 * thread blocks waits for any thread to take it, here a thread that
 * waits for it in sigwait() and one that unblocks it later.
 */
static sem_t waiter_ready, unblock_now;

static void *sigwaiter(void *arg)
{
	sigset_t set;
	int sig = 0;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sem_post(&waiter_ready);
	sigwait(&set, &sig);
	handled_by = tid();
	return (void *)(long)sig;
}

static void *unblocker(void *arg)
{
	sigset_t set;

	(void)arg;
	worker_tid = tid();
	sem_post(&waiter_ready);
	while (sem_wait(&unblock_now))
		;
	/* Taken here, on the way out of this call. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	return NULL;
}

static void shared_queue(void)
{
	struct sigaction sa = { .sa_handler = on_sig };
	sigset_t set, pend;
	pthread_t t;
	void *ret;

	sem_init(&waiter_ready, 0, 0);
	sem_init(&unblock_now, 0, 0);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	/* The sigwait() pattern: every thread blocks, one waits. */
	handled_by = 0;
	pthread_create(&t, NULL, sigwaiter, NULL);
	sem_wait(&waiter_ready);
	kill(getpid(), SIGUSR1);
	pthread_join(t, &ret);
	printf("sigwait: sig %ld in the waiting thread %d\n", (long)ret,
	       handled_by != getpid() && handled_by != 0);
	/* Pending for the process while all block; a thread unblocks it. */
	sigaction(SIGUSR2, &sa, NULL);
	handled_sig = 0;
	worker_tid = 0;
	pthread_create(&t, NULL, unblocker, NULL);
	sem_wait(&waiter_ready);
	kill(getpid(), SIGUSR2);
	sigpending(&pend);
	printf("shared: pending for all %d\n", sigismember(&pend, SIGUSR2));
	sem_post(&unblock_now);
	pthread_join(t, NULL);
	printf("shared: sig %d taken by the thread that unblocked it %d\n",
	       handled_sig, handled_by == worker_tid);
	sigpending(&pend);
	printf("shared: pending after %d\n", sigismember(&pend, SIGUSR2));
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

static sem_t flush_pending, flush_ignored;

/* Blocks SIGUSR1, has one queued to it, and looks after SIG_IGN. */
static void *flushed(void *arg)
{
	sigset_t set, pend;
	int before;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1);
	sigpending(&pend);
	before = sigismember(&pend, SIGUSR1);
	sem_post(&flush_pending);
	sem_wait(&flush_ignored);
	sigpending(&pend);
	printf("ignore: pending in the thread %d, after SIG_IGN elsewhere %d\n",
	       before, sigismember(&pend, SIGUSR1));
	return NULL;
}

/* An ignoring disposition set by one thread empties every thread's queue. */
static void ignore_flushes(void)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	pthread_t t;

	sem_init(&flush_pending, 0, 0);
	sem_init(&flush_ignored, 0, 0);
	pthread_create(&t, NULL, flushed, NULL);
	sem_wait(&flush_pending);
	sigaction(SIGUSR1, &ign, &old);
	sem_post(&flush_ignored);
	pthread_join(t, NULL);
	sigaction(SIGUSR1, &old, NULL);
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

/*
 * FUTEX_WAKE_OP (glibc's condition variables used it before 2.25): the
 * operation on the second word, the waiters of the first woken, those of
 * the second too when the comparison holds; the kernel's errors.
 */
#define FUTEX_WAKE_OP_PRIVATE 133
#define WOP(op, oparg, cmp, cmparg)                                      \
	((((op) & 0xfu) << 28) | (((cmp) & 0xfu) << 24) |                 \
	 (((oparg) & 0xfffu) << 12) | ((cmparg) & 0xfffu))

static _Atomic int wa, wb;
static sem_t wop_ready;

static long wake_op(_Atomic int *w1, int n1, int n2, void *w2, unsigned op)
{
	return syscall(SYS_futex, w1, FUTEX_WAKE_OP_PRIVATE, n1,
		       (void *)(long)n2, w2, op);
}

static void *wop_waiter(void *arg)
{
	(void)arg;
	sem_post(&wop_ready);
	while (atomic_load(&wb) == 21)
		syscall(SYS_futex, &wb, 128, 21, NULL, NULL, 0);
	return NULL;
}

static void show_wop(const char *what, long ret)
{
	printf("wake_op %s: %ld %s, b %d\n", what, ret,
	       ret < 0 ? strerror(errno) : "", atomic_load(&wb));
}

static void wake_ops(void)
{
	pthread_t t;
	long n = 0;

	show_wop("add", wake_op(&wa, 1, 1, &wb, WOP(1, 5, 0, 0)));
	show_wop("or shift", wake_op(&wa, 1, 1, &wb, WOP(2 | 8, 4, 4, 4)));
	show_wop("andn", wake_op(&wa, 1, 1, &wb, WOP(3, 1, 1, 21)));
	show_wop("xor", wake_op(&wa, 1, 1, &wb, WOP(4, 0x801, 2, 0)));
	show_wop("set", wake_op(&wa, 1, 1, &wb, WOP(0, 21, 5, -1)));
	/* A thread waits on b: woken because the comparison holds. */
	sem_init(&wop_ready, 0, 0);
	pthread_create(&t, NULL, wop_waiter, NULL);
	sem_wait(&wop_ready);
	while (n < 1) {
		/* b stays 21 until the waiter is surely asleep and woken. */
		n = wake_op(&wa, 1, 1, &wb, WOP(1, 0, 0, 21));
		if (n < 1)
			sched_yield();
	}
	atomic_store(&wb, 0);
	syscall(SYS_futex, &wb, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	pthread_join(t, NULL);
	printf("wake_op woke the waiter of b: %ld\n", n);
	atomic_store(&wb, 7);
	show_wop("bad op", wake_op(&wa, 1, 1, &wb, WOP(6, 1, 0, 0)));
	show_wop("bad cmp", wake_op(&wa, 1, 1, &wb, WOP(1, 1, 9, 0)));
	show_wop("unaligned", wake_op(&wa, 1, 1, (char *)&wb + 1,
				      WOP(1, 1, 0, 0)));
	show_wop("unmapped", wake_op(&wa, 1, 1, (void *)16, WOP(1, 1, 0, 0)));
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

/*
 * 64 syscall sites of their own, getpid each: half `mov $39, %eax;
 * syscall`, half `mov %edi, %eax; syscall` (a short site, which hops
 * through padding: trap_patch.c).  Under uarun's default trap each is
 * patched at its first trap, by whichever thread gets there, while the
 * other threads may be running it (the cross-modifying-code protocol).
 * A torn patch would crash or give a wrong answer.
 */
#define SITE(i, insn)                                                 \
	static __attribute__((noinline)) long site_##i(void)          \
	{                                                             \
		long r;                                               \
		__asm__ volatile(insn "\n\tsyscall"                    \
				 : "=a"(r)                            \
				 : "D"(39L)                           \
				 : "rcx", "r11", "memory");           \
		return r;                                             \
	}
#define LONG "mov $39, %%eax"
#define SHORT "mov %%edi, %%eax"
#define SITE8(i)                                                      \
	SITE(i##0, LONG) SITE(i##1, SHORT) SITE(i##2, LONG)           \
	SITE(i##3, SHORT) SITE(i##4, LONG) SITE(i##5, SHORT)          \
	SITE(i##6, LONG) SITE(i##7, SHORT)
SITE8(0) SITE8(1) SITE8(2) SITE8(3) SITE8(4) SITE8(5) SITE8(6) SITE8(7)
#define PTR8(i)                                                       \
	site_##i##0, site_##i##1, site_##i##2, site_##i##3, site_##i##4, \
	site_##i##5, site_##i##6, site_##i##7
static long (*const sites[64])(void) = {
	PTR8(0), PTR8(1), PTR8(2), PTR8(3), PTR8(4), PTR8(5), PTR8(6), PTR8(7)
};

static pthread_barrier_t site_bar;

static void *site_runner(void *arg)
{
	long pid = getpid(), wrong = 0;

	pthread_barrier_wait(&site_bar);
	for (int round = 0; round < 200; round++)
		for (int i = 0; i < 64; i++)
			wrong += sites[(i + (intptr_t)arg * 16) % 64]() != pid;
	return (void *)wrong;
}

static void patched_sites(void)
{
	pthread_t th[4];
	long wrong = 0;

	pthread_barrier_init(&site_bar, NULL, 4);
	for (intptr_t i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, site_runner, (void *)i);
	for (int i = 0; i < 4; i++) {
		void *w;

		pthread_join(th[i], &w);
		wrong += (long)w;
	}
	pthread_barrier_destroy(&site_bar);
	printf("sites: 4 threads x 64 sites x 200, %ld wrong\n", wrong);
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
	shared_queue();
	ignore_flushes();
	wake_ops();
	cancel();
	robust_mutex();
	patched_sites();
	return 0;
}
