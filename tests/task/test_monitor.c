// SPDX-License-Identifier: MIT
/*
 * Guest or monitor is decided by the interrupted context, not by the
 * thread's guest mode: a host signal handler of the monitor that runs
 * while its thread is in guest mode is monitor code (its faults are
 * monitor faults, its protection violations are reported, its thread's
 * mask is intact afterwards, it never runs into the guest's EFLAGS.AC),
 * and a host signal at any instruction of the exit path leaves the
 * guest's resume state alone.
 *
 * Each test installs its own dispositions before ua_init(): Criterion
 * runs every test in a fresh process.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <ucontext.h>
#include <unistd.h>

#include "ttask.h"

TestSuite(task_monitor, .init = t_skip_if_unavailable);

static volatile sig_atomic_t app_segv_calls, handler_done, guest_after;
static volatile long guest_ac_after;

/* The monitor's faulting load and where it resumes; in assembly. */
extern char mon_fault_insn[], mon_fault_resume[];

__asm__(".text\n"
	".globl mon_fault_load\n"
	".type mon_fault_load, @function\n"
	"mon_fault_load:\n"
	"	movl $0x40, %eax\n"
	".globl mon_fault_insn\n"
	"mon_fault_insn:\n"
	"	movq (%rax), %rax\n"
	".globl mon_fault_resume\n"
	"mon_fault_resume:\n"
	"	ret\n"
	".size mon_fault_load, . - mon_fault_load\n");
void mon_fault_load(void);

/* The application's own SIGSEGV handler: skips the monitor's load. */
static void app_segv(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	(void)si;
	if (uc->uc_mcontext.gregs[REG_RIP] != (greg_t)mon_fault_insn)
		_exit(99); /* anything else is a test failure */
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)mon_fault_resume;
	app_segv_calls++;
}

static void install(int sig, void (*fn)(int, siginfo_t *, void *),
		    int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	cr_assert_eq(sigaction(sig, &sa, NULL), 0);
}

/* Host signal to the calling thread, sent from guest code. */
static void guest_raise_host(int sig)
{
	syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), sig);
}

static void mon_usr1_fault(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	mon_fault_load();
	handler_done = 1;
}

static void guest_raise_usr1(void *arg)
{
	(void)arg;
	guest_raise_host(SIGUSR1);
	guest_after = 1;
}

static void assert_usr1_unblocked(void)
{
	sigset_t mask;

	pthread_sigmask(SIG_SETMASK, NULL, &mask);
	cr_assert_not(sigismember(&mask, SIGUSR1),
		      "the monitor handler's signal stays blocked");
}

/*
 * A monitor handler (SA_ONSTACK) faults while its thread is in guest
 * mode: a monitor fault, passed to the disposition the application had
 * before the library; the guest is not blamed and goes on.
 */
Test(task_monitor, handler_fault_in_guest_mode_is_a_monitor_fault)
{
	struct ua_space *sp;

	install(SIGSEGV, app_segv, 0);
	install(SIGUSR1, mon_usr1_fault, SA_ONSTACK);
	sp = tt_space();
	tt_assert_exited(tt_run(sp, guest_raise_usr1, NULL), 0);
	cr_assert_eq(app_segv_calls, 1);
	cr_assert_eq(handler_done, 1);
	cr_assert_eq(guest_after, 1);
	assert_usr1_unblocked();
	ua_space_destroy(sp);
}

/* Under pkey: a monitor handler's read of guest memory outside a window. */
static char *guest_page;

static void mon_usr1_read_guest(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	*(volatile char *)guest_page;
	handler_done = 1;
}

static bool pkey_backend(void)
{
	const char *b = getenv("UA_PROTECT");

	return b && !strcmp(b, "pkey");
}

/*
 * Only pkey can see it: under mprotect guest mode opens the space to the
 * whole process, and none protects nothing.
 */
Test(task_monitor, handler_violation_in_guest_mode_is_reported)
{
	struct ua_space *sp;
	pid_t pid;
	int st;

	if (!pkey_backend())
		cr_skip_test("needs the pkey backend to see the access");
	pid = fork();
	cr_assert(pid >= 0);
	if (!pid) {
		install(SIGUSR1, mon_usr1_read_guest, SA_ONSTACK);
		sp = ua_space_create(TT_SPACE_SIZE, NULL);
		guest_page = sp ? ua_map(sp, NULL, 4096, PROT_READ) : NULL;
		if (!guest_page)
			_exit(2);
		ua_task_run(ua_task_create(sp, guest_raise_usr1, NULL, NULL));
		_exit(3); /* not reached: the report aborts */
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT,
		  "status %#x: the violation was not reported", st);
}

/* An unaligned store, in assembly so that it is one. */
static char unaligned[32] __attribute__((aligned(16)));

static void mon_usr1_unaligned(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	__asm__ volatile("movq %0, 1(%1)" ::"r"(0x1122334455667788L),
			 "r"(unaligned)
			 : "memory");
	handler_done = 1;
}

/*
 * With AC set, no library calls (their unaligned accesses would be the
 * guest's own #AC): AC on, tgkill by the syscall instruction, AC read
 * back and cleared, in one block.
 */
static void guest_ac_raise(void *arg)
{
	long pid = getpid(), tid = syscall(SYS_gettid), ret;
	unsigned long fl;

	(void)arg;
	__asm__ volatile("pushfq\n\torl $0x40000, (%%rsp)\n\tpopfq\n\t"
			 "syscall\n\t"
			 "pushfq\n\tpopq %1\n\t"
			 "pushfq\n\tandl $~0x40000, (%%rsp)\n\tpopfq"
			 : "=a"(ret), "=&r"(fl)
			 : "0"((long)SYS_tgkill), "D"(pid), "S"(tid),
			   "d"((long)SIGUSR1)
			 : "rcx", "r11", "cc", "memory");
	(void)ret;
	guest_ac_after = (long)(fl & TT_AC);
	guest_after = 1;
}

/*
 * A guest sets EFLAGS.AC; a monitor handler interrupting it makes an
 * unaligned store.  The monitor must not run into #AC; the guest keeps
 * its AC.
 */
Test(task_monitor, guest_ac_does_not_reach_monitor_handlers)
{
	struct ua_space *sp;
	long v;

	install(SIGUSR1, mon_usr1_unaligned, SA_ONSTACK);
	sp = tt_space();
	tt_assert_exited(tt_run(sp, guest_ac_raise, NULL), 0);
	cr_assert_eq(handler_done, 1);
	cr_assert_eq(guest_after, 1);
	cr_assert_eq(guest_ac_after, (long)TT_AC, "the guest lost its AC");
	memcpy(&v, unaligned + 1, 8);
	cr_assert_eq(v, 0x1122334455667788L);
	assert_usr1_unblocked();
	ua_space_destroy(sp);
}

/*
 * A guest fault while the guest's AC is set is still the guest's: the
 * alignment check of guest code is not swallowed.
 */
static void guest_ac_fault(void *arg)
{
	long v;

	(void)arg;
	__asm__ volatile("pushfq\n\torl $0x40000, (%%rsp)\n\tpopfq\n\t"
			 "movq 1(%1), %0"
			 : "=r"(v)
			 : "r"(unaligned)
			 : "memory", "cc");
}

Test(task_monitor, guest_alignment_fault_stays_the_guests)
{
	struct ua_space *sp = tt_space();

	tt_assert_killed(tt_run(sp, guest_ac_fault, NULL), SIGBUS);
	ua_space_destroy(sp);
}

/*
 * The exit path under a host signal at each of its instructions.  A
 * child runs a task whose every syscall takes the full exit path (a hook
 * changes RFLAGS); the parent, tracing it, stops it at the exit code's
 * first instruction, single-steps k instructions and injects SIGUSR1
 * there, for k = 1, 2, ... until the path is done.  The child's handler
 * has no SA_ONSTACK: its frame goes right below the interrupted RSP.
 * The guest checks its callee-saved registers, RSP and the result after
 * every call and the child exits 0 only if all held.
 */
extern char ua__ret_to_guest[], ua__ret_to_guest_iret[];

/* RSP offsets per instruction: 8-byte steps over a 64-byte line. */
#define SWEEP_ALIGNS 8
#define SWEEP_CALLS 600

/*
 * long sweep_step(long off): one nop syscall with RSP lowered by off
 * bytes (the host's frame below RSP lands at every alignment); 0 if the
 * registers, RSP and the result survived.
 */
__asm__(".text\n"
	".globl sweep_step\n"
	".type sweep_step, @function\n"
	"sweep_step:\n"
	"	pushq %rbx\n\tpushq %rbp\n\tpushq %r12\n"
	"	pushq %r13\n\tpushq %r14\n\tpushq %r15\n"
	"	movq %rsp, %rcx\n"
	"	subq %rdi, %rsp\n"
	"	pushq %rcx\n\tpushq %rcx\n"
	"	movabsq $0x1111111111111111, %rbx\n"
	"	movabsq $0x1212121212121212, %r12\n"
	"	movabsq $0x1313131313131313, %r13\n"
	"	movabsq $0x1414141414141414, %r14\n"
	"	movabsq $0x1515151515151515, %r15\n"
	"	movq %rsp, %rbp\n"
	"	xorl %edi, %edi\n" /* UA_NR_nop */
	"	call ua_syscall@PLT\n"
	"	cmpq $42, %rax\n\tjne 1f\n"
	"	cmpq %rsp, %rbp\n\tjne 1f\n"
	"	movabsq $0x1111111111111111, %rcx\n\tcmpq %rcx, %rbx\n\tjne 1f\n"
	"	movabsq $0x1212121212121212, %rcx\n\tcmpq %rcx, %r12\n\tjne 1f\n"
	"	movabsq $0x1313131313131313, %rcx\n\tcmpq %rcx, %r13\n\tjne 1f\n"
	"	movabsq $0x1414141414141414, %rcx\n\tcmpq %rcx, %r14\n\tjne 1f\n"
	"	movabsq $0x1515151515151515, %rcx\n\tcmpq %rcx, %r15\n\tjne 1f\n"
	"	xorl %eax, %eax\n\tjmp 2f\n"
	"1:	movl $1, %eax\n"
	"2:	popq %rcx\n\tpopq %rsp\n"
	"	popq %r15\n\tpopq %r14\n\tpopq %r13\n"
	"	popq %r12\n\tpopq %rbp\n\tpopq %rbx\n"
	"	ret\n"
	".size sweep_step, . - sweep_step\n");
long sweep_step(long off);

static volatile int sweep_bad;
static volatile sig_atomic_t sweep_signals;

static void sweep_guest(void *arg)
{
	(void)arg;
	for (int i = 0; i < SWEEP_CALLS; i++)
		sweep_bad += (int)sweep_step(8 * (i % SWEEP_ALIGNS));
}

static bool sweep_hook(struct ua_task *t, struct ua_pt_regs *r, void *data)
{
	(void)t;
	(void)data;
	if (r->orig_rax != UA_NR_nop)
		return false;
	r->rax = 42;
	r->eflags ^= TT_CF; /* RFLAGS changed: the full exit path */
	return true;
}

/* Uses its stack: the frame below must not matter to the exit path. */
static void sweep_usr1(int sig, siginfo_t *si, void *uc)
{
	volatile char buf[256];

	(void)si;
	(void)uc;
	memset((char *)buf, sig, sizeof(buf));
	sweep_signals++;
}

static _Noreturn void sweep_child(void)
{
	struct ua_space *sp;
	struct ua_task *t;
	int status;

	ptrace(PTRACE_TRACEME, 0, NULL, NULL);
	raise(SIGSTOP);
	install(SIGUSR1, sweep_usr1, pkey_backend() ? SA_ONSTACK : 0);
	sp = ua_space_create(TT_SPACE_SIZE, NULL);
	t = sp ? ua_task_create(sp, sweep_guest, NULL, NULL) : NULL;
	if (!t)
		_exit(2);
	ua_task_set_syscall_hook(t, sweep_hook, NULL);
	status = ua_task_run(t);
	if (status != 0)
		_exit(3);
	if (sweep_bad)
		_exit(4);
	/* Every injection ran the handler once. */
	_exit(sweep_signals > 0 ? 0 : 5);
}

static uint64_t child_rip(pid_t pid)
{
	struct user_regs_struct r;

	cr_assert_eq(ptrace(PTRACE_GETREGS, pid, NULL, &r), 0);
	return r.rip;
}

static void set_child_rip(pid_t pid, uint64_t rip)
{
	struct user_regs_struct r;

	cr_assert_eq(ptrace(PTRACE_GETREGS, pid, NULL, &r), 0);
	r.rip = rip;
	cr_assert_eq(ptrace(PTRACE_SETREGS, pid, NULL, &r), 0);
}

/*
 * Single-stepping over POPF leaves TF set in the child's flags as if the
 * program had set it (arch/x86/kernel/step.c): PTRACE_CONT would then
 * not clear it.  The sweep clears it itself.
 */
static void clear_child_tf(pid_t pid)
{
	struct user_regs_struct r;

	cr_assert_eq(ptrace(PTRACE_GETREGS, pid, NULL, &r), 0);
	r.eflags &= ~TT_TF;
	cr_assert_eq(ptrace(PTRACE_SETREGS, pid, NULL, &r), 0);
}

static int wait_stop(pid_t pid)
{
	int st;

	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFSTOPPED(st), "child not stopped: status %#x", st);
	return WSTOPSIG(st);
}

static bool in_exit_path(uint64_t rip)
{
	return rip >= (uintptr_t)ua__ret_to_guest &&
	       rip < (uintptr_t)ua__ret_to_guest_iret;
}

Test(task_monitor, host_signal_at_every_exit_path_instruction, .timeout = 120)
{
	uintptr_t bp = (uintptr_t)ua__ret_to_guest;
	long orig, armed;
	pid_t pid;
	int st, k, pass, injected = 0;
	bool done = false;

	pid = fork();
	cr_assert(pid >= 0);
	if (!pid)
		sweep_child();
	cr_assert_eq(wait_stop(pid), SIGSTOP);
	orig = ptrace(PTRACE_PEEKTEXT, pid, (void *)bp, NULL);
	armed = (orig & ~0xffL) | 0xcc; /* int3 */
	cr_assert_eq(ptrace(PTRACE_POKETEXT, pid, (void *)bp, armed), 0);
	cr_assert_eq(ptrace(PTRACE_CONT, pid, NULL, 0), 0);
	for (pass = 0; !done; pass++) {
		k = 1 + pass / SWEEP_ALIGNS;
		cr_assert_eq(wait_stop(pid), SIGTRAP);
		cr_assert_eq(child_rip(pid), bp + 1, "k %d: rip %+ld from bp", k,
			     (long)(child_rip(pid) - bp));
		cr_assert_eq(ptrace(PTRACE_POKETEXT, pid, (void *)bp, orig), 0);
		set_child_rip(pid, bp);
		for (int i = 0; i < k && !done; i++) {
			cr_assert_eq(ptrace(PTRACE_SINGLESTEP, pid, NULL, 0),
				     0);
			cr_assert_eq(wait_stop(pid), SIGTRAP);
			done = !in_exit_path(child_rip(pid));
		}
		if (done)
			break;
		/* Re-armed, then SIGUSR1 taken before the next instruction. */
		clear_child_tf(pid);
		cr_assert_eq(ptrace(PTRACE_POKETEXT, pid, (void *)bp, armed),
			     0);
		cr_assert_eq(ptrace(PTRACE_CONT, pid, NULL,
				    (void *)(long)SIGUSR1),
			     0);
		injected++;
	}
	cr_assert_gt(k, 10, "the exit path has only %d instructions", k);
	clear_child_tf(pid);
	cr_assert_eq(ptrace(PTRACE_CONT, pid, NULL, 0), 0);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		  "child status %#x after %d injections", st, injected);
}
