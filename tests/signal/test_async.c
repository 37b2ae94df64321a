// SPDX-License-Identifier: MIT
/*
 * Asynchronous delivery: a signal sent from another thread to a task that
 * runs guest code without ever making a syscall interrupts it and is
 * delivered at the interrupted instruction, on the host and in the
 * engine alike; under stress, nothing is lost and the vector registers of
 * the interrupted code survive handlers that clobber them.
 */
#include <cpuid.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "tsig.h"

TestSuite(sig_async, .init = t_skip_if_unavailable);

/* void spin_until(volatile int *flag): spins while *flag is 0. */
extern char spin_begin[], spin_end[];
__asm__(".text\n"
	".globl spin_until\n"
	".type spin_until, @function\n"
	"spin_until:\n"
	".globl spin_begin\n"
	"spin_begin:\n"
	"	cmpl $0, (%rdi)\n"
	"	je spin_begin\n"
	".globl spin_end\n"
	"spin_end:\n"
	"	ret\n"
	".size spin_until, . - spin_until\n");
void spin_until(volatile int *flag);

static volatile int spinning, stop, got_sig;
static volatile uint64_t got_rip;
static struct ua_task *volatile target_task;
static pthread_t target_thread;

static void h_stop(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)si;
	got_sig = sig;
	got_rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	stop = 1;
}

static void body_spin(struct t_run *r)
{
	t_install(SIGUSR1, h_stop, 0, 0);
	target_task = r->task;
	__atomic_store_n(&spinning, 1, __ATOMIC_RELEASE);
	spin_until(&stop);
	ops->exit(42);
}

static void *sender(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&spinning, __ATOMIC_ACQUIRE))
		sched_yield();
	usleep(2000); /* well inside the loop */
	if (target_task)
		ua_task_kill(target_task, SIGUSR1);
	else
		pthread_kill(target_thread, SIGUSR1);
	return NULL;
}

static void run_spin(bool engine)
{
	pthread_t th;
	int st;

	spinning = stop = got_sig = 0;
	got_rip = 0;
	target_task = NULL;
	target_thread = pthread_self();
	cr_assert_eq(pthread_create(&th, NULL, sender, NULL), 0);
	if (engine) {
		st = t_run_engine(body_spin, NULL, NULL, NULL);
		t_assert_status_exit(st, 42);
	} else {
		/* The host body exits: a child, whose main thread spins. */
		st = t_run_host_child(body_spin, NULL);
		t_assert_status_exit(st, 42);
	}
	pthread_join(th, NULL);
}

/*
 * The host half runs in a child process: the sender thread cannot reach
 * it there, so the child's body sends from a thread of its own.
 */
static void *child_sender(void *arg)
{
	return sender(arg);
}

static void body_spin_host(struct t_run *r)
{
	pthread_t th;

	target_thread = pthread_self();
	pthread_create(&th, NULL, child_sender, NULL);
	body_spin(r);
}

static uint64_t host_rip;
static int host_sig;
static uint64_t *host_shared;

static void body_spin_host_rec(struct t_run *r)
{
	t_install(SIGUSR1, h_stop, 0, 0);
	(void)r;
	target_thread = pthread_self();
	{
		pthread_t th;

		pthread_create(&th, NULL, child_sender, NULL);
	}
	__atomic_store_n(&spinning, 1, __ATOMIC_RELEASE);
	spin_until(&stop);
	host_shared[0] = (uint64_t)got_sig;
	host_shared[1] = got_rip;
	ops->exit(42);
}

Test(sig_async, kill_interrupts_guest_spinning_without_syscalls)
{
	host_shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(host_shared, MAP_FAILED);
	spinning = stop = 0;
	t_assert_status_exit(t_run_host_child(body_spin_host_rec, NULL), 42);
	host_sig = (int)host_shared[0];
	host_rip = host_shared[1];
	cr_expect_eq(host_sig, SIGUSR1);
	cr_expect(host_rip >= (uintptr_t)spin_begin &&
		  host_rip < (uintptr_t)spin_end,
		  "host: handler's RIP %#lx outside the loop", host_rip);
	run_spin(true);
	cr_expect_eq(got_sig, SIGUSR1);
	cr_expect(got_rip >= (uintptr_t)spin_begin &&
		  got_rip < (uintptr_t)spin_end,
		  "engine: handler's RIP %#lx outside the loop [%p, %p)",
		  (unsigned long)got_rip, (void *)spin_begin,
		  (void *)spin_end);
	(void)body_spin_host;
}

/* ---- stress: two tasks, 10^4 signals each, vector state checked ---- */

#define STRESS_SIGNALS 10000
#define STRESS_TASKS 2
/* A real-time signal: queued, so the sender need not wait for each. */
#define STRESS_SIG 40

/*
 * void vec_spin(volatile long *count, long seen, const void *pattern,
 *		 void *out): ymm0..ymm15 from pattern (32 bytes each), spin
 * while *count == seen, then ymm0..ymm15 into out.
 */
__asm__(".text\n"
	".globl vec_spin\n"
	".type vec_spin, @function\n"
	"vec_spin:\n"
	"	vmovdqu 0(%rdx), %ymm0\n\tvmovdqu 32(%rdx), %ymm1\n"
	"	vmovdqu 64(%rdx), %ymm2\n\tvmovdqu 96(%rdx), %ymm3\n"
	"	vmovdqu 128(%rdx), %ymm4\n\tvmovdqu 160(%rdx), %ymm5\n"
	"	vmovdqu 192(%rdx), %ymm6\n\tvmovdqu 224(%rdx), %ymm7\n"
	"	vmovdqu 256(%rdx), %ymm8\n\tvmovdqu 288(%rdx), %ymm9\n"
	"	vmovdqu 320(%rdx), %ymm10\n\tvmovdqu 352(%rdx), %ymm11\n"
	"	vmovdqu 384(%rdx), %ymm12\n\tvmovdqu 416(%rdx), %ymm13\n"
	"	vmovdqu 448(%rdx), %ymm14\n\tvmovdqu 480(%rdx), %ymm15\n"
	"1:	cmpq %rsi, (%rdi)\n"
	"	je 1b\n"
	"	vmovdqu %ymm0, 0(%rcx)\n\tvmovdqu %ymm1, 32(%rcx)\n"
	"	vmovdqu %ymm2, 64(%rcx)\n\tvmovdqu %ymm3, 96(%rcx)\n"
	"	vmovdqu %ymm4, 128(%rcx)\n\tvmovdqu %ymm5, 160(%rcx)\n"
	"	vmovdqu %ymm6, 192(%rcx)\n\tvmovdqu %ymm7, 224(%rcx)\n"
	"	vmovdqu %ymm8, 256(%rcx)\n\tvmovdqu %ymm9, 288(%rcx)\n"
	"	vmovdqu %ymm10, 320(%rcx)\n\tvmovdqu %ymm11, 352(%rcx)\n"
	"	vmovdqu %ymm12, 384(%rcx)\n\tvmovdqu %ymm13, 416(%rcx)\n"
	"	vmovdqu %ymm14, 448(%rcx)\n\tvmovdqu %ymm15, 480(%rcx)\n"
	"	vzeroupper\n"
	"	ret\n"
	".size vec_spin, . - vec_spin\n");
void vec_spin(volatile long *count, long seen, const void *pattern,
	      void *out);

struct stress {
	struct ua_space *sp;
	struct ua_task *task;
	volatile long handled;
	volatile int ready;
	int bad, status;
	long spins;
	uint8_t pattern[512];
	uint8_t out[512];
};

static struct stress stress[STRESS_TASKS];

static struct stress *stress_of_current(void)
{
	struct ua_task *t = ua_current_task();

	for (int i = 0; i < STRESS_TASKS; i++)
		if (stress[i].task == t)
			return &stress[i];
	return NULL;
}

/* Guest handler: clobbers every ymm register it can reach. */
static void h_clobber(int sig)
{
	struct stress *s = stress_of_current();

	(void)sig;
	__asm__ volatile(
		"vpcmpeqd %%ymm0, %%ymm0, %%ymm0\n\tvmovdqa %%ymm0, %%ymm1\n\t"
		"vmovdqa %%ymm0, %%ymm2\n\tvmovdqa %%ymm0, %%ymm3\n\t"
		"vmovdqa %%ymm0, %%ymm4\n\tvmovdqa %%ymm0, %%ymm5\n\t"
		"vmovdqa %%ymm0, %%ymm6\n\tvmovdqa %%ymm0, %%ymm7\n\t"
		"vmovdqa %%ymm0, %%ymm8\n\tvmovdqa %%ymm0, %%ymm9\n\t"
		"vmovdqa %%ymm0, %%ymm10\n\tvmovdqa %%ymm0, %%ymm11\n\t"
		"vmovdqa %%ymm0, %%ymm12\n\tvmovdqa %%ymm0, %%ymm13\n\t"
		"vmovdqa %%ymm0, %%ymm14\n\tvmovdqa %%ymm0, %%ymm15\n\t"
		"vzeroupper" ::
			: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
			  "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
			  "xmm12", "xmm13", "xmm14", "xmm15");
	__atomic_fetch_add(&s->handled, 1, __ATOMIC_RELEASE);
}

static void stress_guest(void *arg)
{
	struct stress *s = arg;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h_clobber;
	ua_sys_sigaction(STRESS_SIG, &sa, NULL);
	__atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&s->handled, __ATOMIC_ACQUIRE) <
	       STRESS_SIGNALS) {
		vec_spin(&s->handled, s->handled, s->pattern, s->out);
		s->spins++;
		if (memcmp(s->out, s->pattern, sizeof(s->out)))
			s->bad++;
	}
	ua_sys_exit(0);
}

static void *stress_runner(void *arg)
{
	struct stress *s = arg;

	s->status = ua_task_run(s->task);
	return NULL;
}

static bool have_avx(void)
{
	unsigned a, b, c, d;
	uint32_t lo, hi;

	__cpuid(1, a, b, c, d);
	if (!(c & (1u << 27)) || !(c & (1u << 28)))
		return false;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (lo & 6) == 6;
}

Test(sig_async, stress_two_tasks_vector_state, .timeout = 240)
{
	pthread_t th[STRESS_TASKS];
	long sent[STRESS_TASKS] = { 0 };
	bool more = true;

	if (!have_avx())
		cr_skip_test("the CPU or kernel has no AVX state");
	/* Frames are not what this exercises: once per backend is enough
	 * for three busy threads on a shared machine. */
	if (t_frame_mode() != UA_FRAME_BLOCK)
		cr_skip_test("runs in the block-mode run of the suite");
	for (int i = 0; i < STRESS_TASKS; i++) {
		struct stress *s = &stress[i];

		for (int j = 0; j < 512; j++)
			s->pattern[j] = (uint8_t)(j * 7 + i * 13 + 1);
		s->sp = ua_space_create((size_t)8 << 20, NULL);
		cr_assert_not_null(s->sp);
		s->task = ua_task_create(s->sp, stress_guest, s, NULL);
		cr_assert_not_null(s->task);
		cr_assert_eq(pthread_create(&th[i], NULL, stress_runner, s),
			     0);
	}
	for (int i = 0; i < STRESS_TASKS; i++)
		while (!__atomic_load_n(&stress[i].ready, __ATOMIC_ACQUIRE))
			sched_yield();
	/* Queued real-time signals; a full queue (-EAGAIN) waits. */
	while (more) {
		more = false;
		for (int i = 0; i < STRESS_TASKS; i++) {
			int err;

			if (sent[i] == STRESS_SIGNALS)
				continue;
			more = true;
			err = ua_task_sigqueue(stress[i].task, STRESS_SIG,
					       (union sigval){ .sival_int = 1 });
			if (!err)
				sent[i]++;
			else
				cr_assert_eq(err, -EAGAIN);
		}
		if (more)
			sched_yield();
	}
	for (int i = 0; i < STRESS_TASKS; i++) {
		pthread_join(th[i], NULL);
		cr_expect_eq(stress[i].status, 0, "task %d: status %#x", i,
			     stress[i].status);
		cr_expect_eq(stress[i].handled, STRESS_SIGNALS);
		cr_expect_gt(stress[i].spins, 0);
		cr_expect_eq(stress[i].bad, 0,
			     "task %d: vector state corrupted %d times", i,
			     stress[i].bad);
		ua_task_destroy(stress[i].task);
		ua_space_destroy(stress[i].sp);
	}
	(void)run_spin;
	(void)body_spin_host;
}
