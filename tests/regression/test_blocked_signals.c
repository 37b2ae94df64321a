// SPDX-License-Identifier: MIT
/*
 * Threads that block every signal (server workers: sigfillset() and
 * pthread_sigmask()), handlers installed with a full sa_mask, and masks
 * set behind the C library's back.  A fault on a blocked fault signal
 * would make the kernel kill the process; the accessors' results must
 * stay exact and guest faults must end only their task, whatever mask
 * the thread asked for.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "tsupport.h"
#include "tregress.h"

static struct t_env env;

static void setup(void)
{
	t_env_setup(&env, 2);
	t_fill(env.buf, 0x6b, env.len);
}

static void teardown(void)
{
	t_env_teardown(&env);
}

TestSuite(blocked_signals, .init = setup, .fini = teardown);

/* The thread's mask as the kernel has it. */
static sigset_t kernel_mask(void)
{
	sigset_t s;

	sigemptyset(&s);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &s, (size_t)(_NSIG / 8));
	return s;
}

static const int fault_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP };

static void assert_fault_sigs_open(const sigset_t *s)
{
	for (size_t i = 0; i < 5; i++)
		cr_assert_eq(sigismember(s, fault_sigs[i]), 0,
			     "signal %d is blocked", fault_sigs[i]);
}

/* An exact short copy across the hole: 8 bytes of data, 8 zeroed. */
static void assert_short_copy(void)
{
	unsigned char dst[16];

	memset(dst, 1, sizeof(dst));
	cr_assert_eq(ua_copy_from_user(dst, env.hole - 8, 16), 8);
	for (int i = 0; i < 8; i++)
		cr_assert_eq(dst[i], 0x6b);
	for (int i = 8; i < 16; i++)
		cr_assert_eq(dst[i], 0);
}

struct worker {
	size_t left;
	long nofault;
	sigset_t seen;
	int blocked_usr1;
};

static void *worker(void *p)
{
	struct worker *w = p;
	unsigned char dst[16];
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	w->seen = kernel_mask();
	w->blocked_usr1 = sigismember(&w->seen, SIGUSR1);
	ua_space_use(env.sp);
	w->left = ua_copy_from_user(dst, env.hole - 8, 16);
	w->nofault = ua_copy_from_kernel_nofault(dst, (void *)T_BAD_ADDR, 8);
	ua_space_use(NULL);
	return NULL;
}

Test(blocked_signals, worker_thread_with_every_signal_blocked)
{
	struct worker w = { 0 };
	pthread_t th;

	cr_assert_eq(pthread_create(&th, NULL, worker, &w), 0);
	pthread_join(th, NULL);
	cr_assert_eq(w.left, 8);
	cr_assert_eq(w.nofault, -EFAULT);
	/* Everything else the thread asked for is blocked. */
	cr_assert_eq(w.blocked_usr1, 1);
	assert_fault_sigs_open(&w.seen);
}

Test(blocked_signals, sigprocmask_setmask_full)
{
	sigset_t all, old, now;

	sigfillset(&all);
	cr_assert_eq(sigprocmask(SIG_SETMASK, &all, &old), 0);
	now = kernel_mask();
	assert_fault_sigs_open(&now);
	cr_assert_eq(sigismember(&now, SIGTERM), 1);
	assert_short_copy();
	sigprocmask(SIG_SETMASK, &old, NULL);
	/* Errors are still the C library's. */
	errno = 0;
	cr_assert_eq(sigprocmask(12345, &all, NULL), -1);
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(pthread_sigmask(12345, &all, NULL), EINVAL);
}

/* ---- a handler with a full sa_mask uses the nofault accessors ---- */

static volatile long h_nofault = 1, h_good = 1;
static sigset_t h_mask;

static void usr1_handler(int sig)
{
	uint64_t v = 0;
	static const uint64_t word = 42;

	(void)sig;
	h_mask = kernel_mask();
	h_nofault = ua_copy_from_kernel_nofault(&v, (void *)T_BAD_ADDR, 8);
	h_good = ua_copy_from_kernel_nofault(&v, &word, 8) || v != 42;
}

Test(blocked_signals, handler_with_full_sa_mask)
{
	struct sigaction sa = { 0 }, back;

	ua_init();
	sa.sa_handler = usr1_handler;
	sigfillset(&sa.sa_mask);
	cr_assert_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	/* What the kernel holds is stripped, and reads back so. */
	cr_assert_eq(sigaction(SIGUSR1, NULL, &back), 0);
	assert_fault_sigs_open(&back.sa_mask);
	cr_assert_eq(sigismember(&back.sa_mask, SIGUSR2), 1);
	raise(SIGUSR1);
	cr_assert_eq(h_nofault, -EFAULT);
	cr_assert_eq(h_good, 0);
	assert_fault_sigs_open(&h_mask);
	cr_assert_eq(sigismember(&h_mask, SIGUSR2), 1);
}

/* ---- guest faults in a thread with every signal blocked ---- */

/* Tasks exist on x86-64 only; elsewhere the tests below skip. */
static void guest_null_write(void *arg)
{
	(void)arg;
#if defined(__x86_64__)
	__asm__ volatile("movl $1, (%0)" ::"r"(T_BAD_ADDR) : "memory");
#endif
}

static void guest_divide(void *arg)
{
	(void)arg;
#if defined(__x86_64__)
	__asm__ volatile("xorl %%ecx, %%ecx\n\t"
			 "movl $1, %%eax\n\t"
			 "cltd\n\t"
			 "idivl %%ecx" ::: "eax", "ecx", "edx", "cc");
#endif
}

struct guest_run {
	void (*fn)(void *);
	int status;
	bool raw; /* block with a raw system call, past the library */
	bool still_blocked;
};

static void *guest_thread(void *p)
{
	struct guest_run *g = p;
	struct ua_space *sp = ua_space_create(8 << 20, NULL);
	struct ua_task *t;
	sigset_t all;

	sigfillset(&all);
	if (g->raw)
		syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL,
			(size_t)(_NSIG / 8));
	else
		pthread_sigmask(SIG_BLOCK, &all, NULL);
	t = ua_task_create(sp, g->fn, NULL, NULL);
	if (!t) {
		g->status = -errno;
		ua_space_destroy(sp);
		return NULL;
	}
	g->status = ua_task_run(t);
	if (g->raw) {
		sigset_t now = kernel_mask();

		g->still_blocked = sigismember(&now, SIGSEGV) == 1;
	}
	ua_task_destroy(t);
	ua_space_destroy(sp);
	return NULL;
}

static void run_guest(struct guest_run *g)
{
	pthread_t th;

	cr_assert_eq(pthread_create(&th, NULL, guest_thread, g), 0);
	pthread_join(th, NULL);
	if (g->status == -EOPNOTSUPP)
		cr_skip_test("no tasks on this architecture");
}

Test(blocked_signals, guest_fault_ends_the_task)
{
	struct guest_run g = { .fn = guest_null_write };

	run_guest(&g);
	cr_assert(WIFSIGNALED(g.status) && WTERMSIG(g.status) == SIGSEGV,
		  "status %#x", g.status);
	g = (struct guest_run){ .fn = guest_divide };
	run_guest(&g);
	cr_assert(WIFSIGNALED(g.status) && WTERMSIG(g.status) == SIGFPE,
		  "status %#x", g.status);
}

Test(blocked_signals, guest_fault_with_mask_from_raw_syscall)
{
	struct guest_run g = { .fn = guest_null_write, .raw = true };

	run_guest(&g);
	cr_assert(WIFSIGNALED(g.status) && WTERMSIG(g.status) == SIGSEGV,
		  "status %#x", g.status);
	/* ua_task_run() puts the thread's own mask back afterwards. */
	cr_assert(g.still_blocked);
}
