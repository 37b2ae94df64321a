// SPDX-License-Identifier: MIT
/*
 * Host faults in guest code end the task with a signal status (no
 * core-dump bit: no core file is written), never the monitor; the
 * fault handler needs an alternate signal stack, which ua_task_run()
 * provides unless the thread has its own.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "ttask.h"

TestSuite(task_fault, .init = t_skip_if_unavailable);

/* Run a faulting guest, check the status, then show the monitor goes on. */
static void expect_death(void (*fn)(void *), void *arg, int sig)
{
	struct ua_space *sp = tt_space();
	struct ua_stats a, b;
	sigset_t mask;

	ua_stats_reset();
	ua_stats_get(&a);
	tt_assert_killed(tt_run(sp, fn, arg), sig);
	ua_stats_get(&b);
	/* Unlock at start, lock when the fault brings the thread back. */
	cr_assert_eq(b.switches - a.switches, 2);
	cr_assert_null(ua_current_task());
	/* The fault's signal is not left blocked in the monitor. */
	pthread_sigmask(SIG_SETMASK, NULL, &mask);
	cr_assert_not(sigismember(&mask, SIGSEGV));
	cr_assert_not(sigismember(&mask, SIGBUS));
	tt_assert_exited(tt_run(sp, tt_guest_return, NULL), 0);
	ua_space_destroy(sp);
}

/* In assembly: the compiler (and UBSan) must not see a NULL access. */
static void guest_null_write(void *arg)
{
	(void)arg;
	__asm__ volatile("movl $1, (%0)" ::"r"(0L) : "memory");
}

static void guest_null_read(void *arg)
{
	long v;

	(void)arg;
	__asm__ volatile("movq 8(%1), %0" : "=r"(v) : "r"(0L) : "memory");
}

Test(task_fault, null_deref_kills_task)
{
	expect_death(guest_null_write, NULL, SIGSEGV);
	expect_death(guest_null_read, NULL, SIGSEGV);
}

static void guest_smash_rsp(void *arg)
{
	(void)arg;
	/* The call itself pushes through the smashed stack pointer. */
	__asm__ volatile("movq $16, %%rsp\n\t"
			 "call ua_sys_nop@PLT" ::: "memory");
}

static void guest_smash_rsp_unmapped(void *arg)
{
	__asm__ volatile("movq %0, %%rsp\n\t"
			 "call ua_sys_nop@PLT" ::"r"(arg) : "memory");
}

Test(task_fault, smashed_stack_pointer_kills_task)
{
	expect_death(guest_smash_rsp, NULL, SIGSEGV);
	/* The stack pointer in unmapped space memory. */
	{
		struct ua_space *sp = tt_space();
		void *hole = (char *)ua_space_limit(sp) - 64;

		tt_assert_killed(tt_run(sp, guest_smash_rsp_unmapped, hole),
				 SIGSEGV);
		tt_assert_exited(tt_run(sp, tt_guest_return, NULL), 0);
		ua_space_destroy(sp);
	}
}

/*
 * A stack pointer at the very bottom of a mapped page, the page below
 * unmapped, a return address in place: the call "happened", and the first
 * push of the entry code (monitor code, still in guest mode) faults.
 */
static void guest_fault_in_entry(void *arg)
{
	__asm__ volatile("leaq 1f(%%rip), %%rax\n\t"
			 "movq %%rax, (%0)\n\t"
			 "movq %0, %%rsp\n\t"
			 "jmp ua__syscall@PLT\n"
			 "1:\tud2" ::"r"(arg)
			 : "rax", "memory");
}

Test(task_fault, fault_inside_syscall_entry_kills_task)
{
	struct ua_space *sp = tt_space();
	char *p = ua_map(sp, NULL, 8192, PROT_READ | PROT_WRITE);

	cr_assert_not_null(p);
	cr_assert_eq(ua_unmap(sp, p, 4096), 0);
	tt_assert_killed(tt_run(sp, guest_fault_in_entry, p + 4096), SIGSEGV);
	tt_assert_exited(tt_run(sp, tt_guest_return, NULL), 0);
	ua_space_destroy(sp);
}

static volatile int keep_going = 1;

static int recurse(int depth)
{
	volatile char frame[256];

	frame[0] = (char)depth;
	if (keep_going)
		return recurse(depth + 1) + frame[0];
	return frame[0];
}

static void guest_overflow(void *arg)
{
	(void)arg;
	recurse(0);
}

Test(task_fault, stack_overflow_hits_guard_page)
{
	expect_death(guest_overflow, NULL, SIGSEGV);
}

static void guest_write_readonly(void *arg)
{
	__asm__ volatile("movl $1, (%0)" ::"r"(arg) : "memory");
}

static void guest_exec_data(void *arg)
{
	((void (*)(void))arg)();
}

Test(task_fault, guest_memory_protection_faults)
{
	struct ua_space *sp = tt_space();
	char *ro = ua_map(sp, NULL, 4096, PROT_READ);
	char *rw = ua_map(sp, NULL, 4096, PROT_READ | PROT_WRITE);

	cr_assert(ro && rw);
	tt_assert_killed(tt_run(sp, guest_write_readonly, ro), SIGSEGV);
	/* A RW page is not executable. */
	tt_assert_killed(tt_run(sp, guest_exec_data, rw), SIGSEGV);
	tt_assert_exited(tt_run(sp, tt_guest_return, NULL), 0);
	ua_space_destroy(sp);
}

/*
 * AC set by the guest and an unaligned access: #AC, SIGBUS.  The library's
 * fault handler then runs with AC still set (the kernel does not clear it
 * for a handler) and must not take a second SIGBUS itself.
 */
static char unaligned_buf[32] __attribute__((aligned(16)));

static void guest_alignment_check(void *arg)
{
	long v;

	(void)arg;
	__asm__ volatile("pushfq\n\t"
			 "orl $0x40000, (%%rsp)\n\t"
			 "popfq\n\t"
			 "movq 1(%1), %0"
			 : "=r"(v)
			 : "r"(unaligned_buf)
			 : "memory", "cc");
}

Test(task_fault, alignment_check_kills_task_with_sigbus)
{
	expect_death(guest_alignment_check, NULL, SIGBUS);
}

Test(task_fault, many_deaths_in_a_row)
{
	struct ua_space *sp = tt_space();

	for (int i = 0; i < 200; i++)
		tt_assert_killed(tt_run(sp, i & 1 ? guest_null_write :
						    guest_smash_rsp,
					NULL),
				 SIGSEGV);
	tt_assert_exited(tt_run(sp, tt_guest_return, NULL), 0);
	ua_space_destroy(sp);
}

/* ---- alternate signal stacks ---- */

#define MY_ALTSTACK (64 << 10)

/* Runs on threads other than the test's: reports, never asserts. */
#define CHECK(cond, msg)                                                     \
	do {                                                                 \
		if (!(cond))                                                 \
			return (void *)(msg);                                \
	} while (0)

static void *altstack_case(void *arg)
{
	bool own = arg != NULL;
	struct ua_space *sp = ua_space_create(TT_SPACE_SIZE, NULL);
	struct ua_task *t;
	stack_t ss, cur;
	char *mine = NULL;
	int status;
	size_t used = 0;

	CHECK(sp, "ua_space_create");
	if (own) {
		mine = malloc(MY_ALTSTACK);
		CHECK(mine, "malloc");
		memset(mine, 0xcd, MY_ALTSTACK);
		ss = (stack_t){ .ss_sp = mine, .ss_size = MY_ALTSTACK };
		CHECK(sigaltstack(&ss, NULL) == 0, "sigaltstack");
	} else {
		/* Sanitizer runtimes give every thread one: take it away. */
		ss = (stack_t){ .ss_flags = SS_DISABLE };
		CHECK(sigaltstack(&ss, NULL) == 0, "sigaltstack");
	}
	t = ua_task_create(sp, guest_smash_rsp, NULL, NULL);
	CHECK(t, "ua_task_create");
	status = ua_task_run(t);
	ua_task_destroy(t);
	CHECK(status >= 0 && WIFSIGNALED(status) &&
		      WTERMSIG(status) == SIGSEGV && !WCOREDUMP(status),
	      "the task did not die of SIGSEGV");
	sigaltstack(NULL, &cur);
	if (own) {
		/* Kept, and the fault was taken on it. */
		CHECK(cur.ss_sp == mine && cur.ss_size == MY_ALTSTACK &&
			      !(cur.ss_flags & SS_DISABLE),
		      "the thread's own altstack was replaced");
		for (size_t i = 0; i < MY_ALTSTACK; i++)
			used += mine[i] != (char)0xcd;
		CHECK(used > 0, "the fault was not handled on the altstack");
	} else {
		/* The library gave the thread one (freed at thread exit). */
		CHECK(!(cur.ss_flags & SS_DISABLE) && cur.ss_size >= 16384,
		      "no altstack was provided");
	}
	/* A second run keeps whatever the thread has now. */
	ss = cur;
	t = ua_task_create(sp, tt_guest_return, NULL, NULL);
	CHECK(t, "ua_task_create");
	status = ua_task_run(t);
	ua_task_destroy(t);
	CHECK(status == 0, "second task");
	sigaltstack(NULL, &cur);
	CHECK(cur.ss_sp == ss.ss_sp, "altstack changed by a second run");
	ua_space_destroy(sp);
	if (own) {
		ss = (stack_t){ .ss_flags = SS_DISABLE };
		sigaltstack(&ss, NULL);
		free(mine);
	}
	return NULL;
}

static void run_altstack_case(bool own, bool thread)
{
	const char *err;
	pthread_t th;
	void *ret;

	t_skip_if_unavailable();
	if (!thread) {
		err = altstack_case(own ? (void *)1 : NULL);
	} else {
		cr_assert_eq(pthread_create(&th, NULL, altstack_case,
					    own ? (void *)1 : NULL),
			     0);
		pthread_join(th, &ret);
		err = ret;
	}
	cr_assert_null(err, "%s", err);
}

Test(task_fault, own_altstack_is_kept)
{
	run_altstack_case(true, false);
	run_altstack_case(true, true);
}

Test(task_fault, altstack_provided_when_missing)
{
	/* Fresh threads: the test's own thread may have one already. */
	for (int i = 0; i < 3; i++)
		run_altstack_case(false, true);
}

/* Division by zero, an undefined opcode, a breakpoint: in assembly. */
static void guest_divide_by_zero(void *arg)
{
	(void)arg;
	__asm__ volatile("xorl %%ecx, %%ecx\n\t"
			 "movl $1, %%eax\n\t"
			 "cltd\n\t"
			 "idivl %%ecx" ::: "eax", "ecx", "edx", "memory");
}

static void guest_ud2(void *arg)
{
	(void)arg;
	__asm__ volatile("ud2" ::: "memory");
}

static void guest_int3(void *arg)
{
	(void)arg;
	__asm__ volatile("int3" ::: "memory");
}

Test(task_fault, cpu_traps_kill_only_the_task)
{
	expect_death(guest_divide_by_zero, NULL, SIGFPE);
	expect_death(guest_ud2, NULL, SIGILL);
	expect_death(guest_int3, NULL, SIGTRAP);
}
