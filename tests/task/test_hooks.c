// SPDX-License-Identifier: MIT
/*
 * The monitor changing a task's saved registers between syscall entry and
 * exit (ua_task_set_syscall_hook): results in RAX, any general register,
 * a new RIP and RSP (the full exit path, ua__ret_to_guest), bad RIP/RSP
 * values that must kill only the task, RFLAGS sanitising, and the rule
 * that the exit path never writes into the guest's red zone.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "tprobe.h"
#include "ttask.h"

PROBE_DEFINE();

TestSuite(task_hooks, .init = t_skip_if_unavailable);

/*
 * Where a redirected guest lands.  tt_landing records RSP, RDI and RFLAGS
 * as it finds them, moves to the stack the hook left in R12 (so the red
 * zone test can look at the target area untouched), clears RFLAGS and
 * continues in C.  tt_push_stub uses its stack at once: with a bad RSP
 * that faults; if it did not, the task would exit 33 instead.
 */
uint64_t tt_landing_rsp, tt_landing_rdi, tt_landing_flags;
long tt_landing_count;
void tt_landing(void);
void tt_push_stub(void);
void tt_landing_c(long a) __attribute__((used, noreturn));

__asm__("	.text\n"
	"	.globl tt_landing\n"
	"	.hidden tt_landing\n"
	"	.type tt_landing, @function\n"
	"tt_landing:\n"
	"	movq %rsp, tt_landing_rsp(%rip)\n"
	"	movq %rdi, tt_landing_rdi(%rip)\n"
	"	movq %r12, %rsp\n"
	"	pushfq\n"
	"	popq %rax\n"
	"	movq %rax, tt_landing_flags(%rip)\n"
	"	pushq $0x202\n"
	"	popfq\n"
	"	jmp tt_landing_c\n"
	"	.size tt_landing, . - tt_landing\n"
	"	.globl tt_push_stub\n"
	"	.hidden tt_push_stub\n"
	"	.type tt_push_stub, @function\n"
	"tt_push_stub:\n"
	"	pushq $0\n"
	"	pushq $0x202\n"
	"	popfq\n"
	"	jmp tt_landing_c\n"
	"	.size tt_push_stub, . - tt_push_stub\n");

void tt_landing_c(long a)
{
	(void)a;
	tt_landing_count++;
	ua_sys_exit(33);
}

/* ---- hooks that only change results and registers ---- */

static struct {
	int calls;
	uint64_t nr;
	bool regs_match, task_match;
} hk;

static bool hook_rax_42(struct ua_task *t, struct ua_pt_regs *r, void *d)
{
	(void)d;
	hk.calls++;
	hk.nr = r->orig_rax;
	hk.regs_match = r == ua_task_regs(t);
	hk.task_match = t == ua_current_task();
	if (r->orig_rax != UA_NR_nop)
		return false;
	r->rax = 42;
	return true;
}

static long nop_ret;

static void guest_nop_once(void *arg)
{
	(void)arg;
	nop_ret = ua_sys_nop();
}

Test(task_hooks, hook_sets_rax)
{
	struct ua_space *sp = tt_space();
	struct ua_task *t = tt_task(sp, guest_nop_once, NULL);
	struct ua_stats a, b;

	memset(&hk, 0, sizeof(hk));
	ua_task_set_syscall_hook(t, hook_rax_42, NULL);
	ua_stats_reset();
	ua_stats_get(&a);
	tt_assert_exited(ua_task_run(t), 0);
	ua_stats_get(&b);
	cr_assert_eq(nop_ret, 42);
	cr_assert_eq(hk.calls, 2, "the nop and the exit");
	cr_assert_eq(hk.nr, UA_NR_exit, "last call seen: the exit");
	cr_assert(hk.regs_match && hk.task_match);
	/* A hooked syscall costs the same two switches. */
	cr_assert_eq(b.switches - a.switches, 4);
	ua_task_destroy(t);
	ua_space_destroy(sp);
}

static struct probe probe_in, probe_out;

static void guest_probe_once(void *arg)
{
	(void)arg;
	probe_raw(&probe_out, &probe_in);
}

static bool hook_set_gprs(struct ua_task *t, struct ua_pt_regs *r, void *d)
{
	(void)t;
	(void)d;
	if (r->orig_rax != 77)
		return false;
	r->rax = 0x4141;
	r->rbx = ~r->rbx;
	r->rdi = 0x5151;
	r->r11 = 0x1111;
	r->r15 = 0x1515;
	return true;
}

Test(task_hooks, hook_changes_general_registers)
{
	struct ua_space *sp = tt_space();
	struct ua_task *t = tt_task(sp, guest_probe_once, NULL);

	probe_fill(&probe_in, 99);
	probe_in.r[P_RDI] = 77; /* no such syscall: the hook handles it */
	probe_in.r[P_FLAGS] = 0x202 | TT_CF;
	ua_task_set_syscall_hook(t, hook_set_gprs, NULL);
	tt_assert_exited(ua_task_run(t), 0);
	cr_assert_eq(probe_out.r[P_RAX], 0x4141);
	cr_assert_eq(probe_out.r[P_RBX], ~probe_in.r[P_RBX]);
	cr_assert_eq(probe_out.r[P_RDI], 0x5151);
	cr_assert_eq(probe_out.r[P_R11], 0x1111);
	cr_assert_eq(probe_out.r[P_R15], 0x1515);
	for (int s = P_RCX; s <= P_R14; s++) {
		if (s == P_RDI || s == P_R11)
			continue;
		cr_assert_eq(probe_out.r[s], probe_in.r[s], "%s",
			     probe_names[s]);
	}
	cr_assert_eq(probe_out.r[P_FLAGS], 0x202 | TT_CF);
	cr_assert_eq(probe_out.r[P_RSP_AFTER], probe_out.r[P_RSP_BEFORE]);
	ua_task_destroy(t);
	ua_space_destroy(sp);
}

/* The ua_sys_* wrappers: -1 and errno for -4095..-1, the value otherwise. */
static long hook_result;

static bool hook_result_is(struct ua_task *t, struct ua_pt_regs *r, void *d)
{
	(void)t;
	(void)d;
	if (r->orig_rax == UA_NR_exit)
		return false;
	r->rax = (uint64_t)hook_result;
	return true;
}

static long wrap_ret[3];
static int wrap_errno[3];

static void guest_wrappers(void *arg)
{
	(void)arg;
	errno = 0;
	wrap_ret[0] = ua_sys_nop();
	wrap_errno[0] = errno;
	errno = 0;
	wrap_ret[1] = ua_sys_getpid();
	wrap_errno[1] = errno;
	errno = 0;
	wrap_ret[2] = ua_sys_gettid();
	wrap_errno[2] = errno;
}

static void check_wrappers(long result, long want, int want_errno)
{
	struct ua_space *sp = tt_space();
	struct ua_task *t = tt_task(sp, guest_wrappers, NULL);

	hook_result = result;
	ua_task_set_syscall_hook(t, hook_result_is, NULL);
	tt_assert_exited(ua_task_run(t), 0);
	for (int i = 0; i < 3; i++) {
		/* getpid/gettid return pid_t: compare in that width. */
		long got = i ? (long)(pid_t)wrap_ret[i] : wrap_ret[i];
		long w = i ? (long)(pid_t)want : want;

		cr_assert_eq(got, w, "raw %ld, call %d: %ld", result, i, got);
		cr_assert_eq(wrap_errno[i], want_errno, "raw %ld, call %d: %d",
			     result, i, wrap_errno[i]);
	}
	ua_task_destroy(t);
	ua_space_destroy(sp);
}

Test(task_hooks, wrappers_follow_libc_convention)
{
	check_wrappers(-EPERM, -1, EPERM);
	check_wrappers(-ENOSYS, -1, ENOSYS);
	check_wrappers(-4095, -1, 4095);
	check_wrappers(-4096, -4096, 0);
	check_wrappers(0, 0, 0);
	check_wrappers(12345, 12345, 0);
}

/* ---- redirecting RIP and RSP: the full exit path ---- */

static struct {
	uint64_t rsp, rdi, r12, flags_or, flags_and;
	uint64_t rip;
	bool use_rsi_as_rsp; /* the guest passes the target in a1 */
	int calls;
} redir;

static bool hook_redirect(struct ua_task *t, struct ua_pt_regs *r, void *d)
{
	(void)t;
	(void)d;
	if (r->orig_rax != UA_NR_nop || redir.calls++)
		return false;
	r->rip = redir.rip;
	r->rsp = redir.use_rsi_as_rsp ? r->rsi : redir.rsp;
	r->rdi = redir.rdi;
	r->r12 = redir.use_rsi_as_rsp ? r->rsi - 4096 : redir.r12;
	r->eflags = (r->eflags | redir.flags_or) & ~redir.flags_and;
	r->rax = 0;
	return true;
}

static uintptr_t guest_sp_hint;

static void guest_nop_then_return(void *arg)
{
	char anchor;

	(void)arg;
	guest_sp_hint = (uintptr_t)&anchor;
	ua_sys_nop();
	/* Not reached when the hook redirects. */
	ua_sys_exit(1);
}

static void redirect_defaults(void)
{
	memset(&redir, 0, sizeof(redir));
	tt_landing_rsp = tt_landing_rdi = tt_landing_flags = 0;
	tt_landing_count = 0;
	redir.rip = (uintptr_t)tt_landing;
	redir.rdi = 1234;
}

/*
 * The hook needs target stacks inside the task stack before the guest has
 * run: find it from a first run of the same kind of task.
 */
static uintptr_t task_stack_hint(struct ua_space *sp)
{
	guest_sp_hint = 0;
	redirect_defaults();
	tt_assert_exited(tt_run(sp, guest_nop_then_return, NULL), 1);
	cr_assert_neq(guest_sp_hint, 0);
	return guest_sp_hint;
}

Test(task_hooks, hook_redirects_rip_and_rsp)
{
	struct ua_space *sp = tt_space();
	uintptr_t hint = task_stack_hint(sp);
	struct ua_task *t = tt_task(sp, guest_nop_then_return, NULL);
	uint64_t scratch;

	redirect_defaults();
	/* A fresh stack well below what the guest used, as after a call. */
	redir.rsp = ((hint - (64 << 10)) & ~(uintptr_t)15) - 8;
	redir.r12 = redir.rsp - 8192;
	ua_task_set_syscall_hook(t, hook_redirect, NULL);
	tt_assert_exited(ua_task_run(t), 33);
	cr_assert_eq(tt_landing_count, 1);
	cr_assert_eq(tt_landing_rsp, redir.rsp, "landed with rsp %#llx",
		     (unsigned long long)tt_landing_rsp);
	cr_assert_eq((tt_landing_rsp + 8) % 16, 0);
	cr_assert_eq(tt_landing_rdi, 1234);
	cr_assert_eq(tt_landing_flags & (TT_DF | TT_AC | TT_TF), 0);
	/* The full path's `ret $128` left RIP just under the red zone. */
	ua_space_use(sp);
	t_peek(&scratch, (void *)(redir.rsp - 136), 8);
	ua_space_use(NULL);
	cr_assert_eq(scratch, (uintptr_t)tt_landing,
		     "scratch slot %#llx: the ret path was not taken",
		     (unsigned long long)scratch);
	ua_task_destroy(t);
	ua_space_destroy(sp);
}

/*
 * The red zone rule: fill [x - 512, x + 256) from guest code, have the
 * hook resume at x, and look: nothing at or above x - 128 may change.
 */
#define RZ_BELOW 512
#define RZ_ABOVE 256

static uint64_t rz_bad, rz_first_bad_off, rz_scratch;

void tt_rz_check(uintptr_t x) __attribute__((used, noreturn));

void tt_rz_check(uintptr_t x)
{
	const unsigned char *p = (const unsigned char *)(x - RZ_BELOW);

	rz_bad = 0;
	rz_first_bad_off = 0;
	for (int i = 0; i < RZ_BELOW + RZ_ABOVE; i++) {
		int off = i - RZ_BELOW;

		if (off >= -136 && off < -128)
			continue;
		if (p[i] != 0xa5 && !rz_bad++)
			rz_first_bad_off = (uint64_t)(int64_t)off;
	}
	memcpy(&rz_scratch, (const void *)(x - 136), 8);
	ua_sys_exit(44);
}

void tt_rz_landing(void);
__asm__("	.text\n"
	"	.globl tt_rz_landing\n"
	"	.hidden tt_rz_landing\n"
	"	.type tt_rz_landing, @function\n"
	"tt_rz_landing:\n"
	"	movq %rsp, tt_landing_rsp(%rip)\n"
	"	movq %rsp, %rdi\n"
	"	movq %r12, %rsp\n"
	"	pushfq\n"
	"	popq %rax\n"
	"	movq %rax, tt_landing_flags(%rip)\n"
	"	pushq $0x202\n"
	"	popfq\n"
	"	jmp tt_rz_check\n"
	"	.size tt_rz_landing, . - tt_rz_landing\n");

static void guest_fill_redzone(void *arg)
{
	char anchor;
	uintptr_t x = (((uintptr_t)&anchor - (16 << 10)) & ~(uintptr_t)15) - 8;

	(void)arg;
	memset((void *)(x - RZ_BELOW), 0xa5, RZ_BELOW + RZ_ABOVE);
	ua_syscall(UA_NR_nop, (long)x, 0, 0, 0, 0);
	ua_sys_exit(1);
}

static void run_redzone(uint64_t flags_or)
{
	struct ua_space *sp = tt_space();
	struct ua_task *t = tt_task(sp, guest_fill_redzone, NULL);

	redirect_defaults();
	redir.rip = (uintptr_t)tt_rz_landing;
	redir.use_rsi_as_rsp = true;
	redir.flags_or = flags_or;
	rz_bad = 99;
	ua_task_set_syscall_hook(t, hook_redirect, NULL);
	tt_assert_exited(ua_task_run(t), 44);
	cr_assert_eq(rz_bad, 0, "%llu bytes changed, first at x%+lld",
		     (unsigned long long)rz_bad, (long long)rz_first_bad_off);
	cr_assert_eq(tt_landing_flags & flags_or, flags_or);
	if (flags_or & TT_AC)
		/* IRETQ writes nothing at all. */
		cr_assert_eq(rz_scratch, 0xa5a5a5a5a5a5a5a5ull);
	else
		cr_assert_eq(rz_scratch, (uintptr_t)tt_rz_landing);
	ua_task_destroy(t);
	ua_space_destroy(sp);
}

Test(task_hooks, exit_path_keeps_out_of_red_zone)
{
	run_redzone(0);
	run_redzone(TT_DF);
}

Test(task_hooks, iretq_path_keeps_out_of_red_zone)
{
	run_redzone(TT_AC);
}

/* An RSP in monitor memory: no 8-byte store there, IRETQ instead. */
static uint64_t mon_area[1024] __attribute__((aligned(16)));

Test(task_hooks, rsp_outside_space_gets_no_store)
{
	struct ua_space *sp = tt_space();
	uintptr_t hint = task_stack_hint(sp);
	struct ua_task *t = tt_task(sp, guest_nop_then_return, NULL);

	memset(mon_area, 0x77, sizeof(mon_area));
	redirect_defaults();
	redir.rsp = (uintptr_t)&mon_area[512] - 8;
	redir.r12 = ((hint - (64 << 10)) & ~(uintptr_t)15) - 8;
	ua_task_set_syscall_hook(t, hook_redirect, NULL);
	tt_assert_exited(ua_task_run(t), 33);
	cr_assert_eq(tt_landing_rsp, redir.rsp);
	for (size_t i = 0; i < sizeof(mon_area) / 8; i++)
		cr_assert_eq(mon_area[i], 0x7777777777777777ull,
			     "monitor memory changed at word %zu", i);
	ua_task_destroy(t);
	ua_space_destroy(sp);
}

/* ---- bad RIP / RSP from the monitor: the task dies, not the monitor ---- */

/*
 * rsp_in_stack: rsp is an offset below the guest's own stack pointer (a
 * good stack), else an absolute value.
 */
static void run_bad(uint64_t rip, uint64_t rsp, bool rsp_in_stack, int sig,
		    uint64_t fixups)
{
	struct ua_space *sp = tt_space();
	uintptr_t hint = rsp_in_stack ? task_stack_hint(sp) : 0;
	struct ua_task *t = tt_task(sp, guest_nop_then_return, NULL);
	struct ua_stats a, b;

	redirect_defaults();
	redir.rip = rip;
	redir.rsp = rsp_in_stack ? ((hint - rsp) & ~(uintptr_t)15) - 8 : rsp;
	ua_task_set_syscall_hook(t, hook_redirect, NULL);
	ua_stats_reset();
	ua_stats_get(&a);
	tt_assert_killed(ua_task_run(t), sig);
	ua_stats_get(&b);
	cr_assert_eq(tt_landing_count, 0, "guest code ran on a bad stack");
	cr_assert_eq(b.fixups - a.fixups, fixups, "%llu fixups",
		     (unsigned long long)(b.fixups - a.fixups));
	ua_task_destroy(t);
	/* The monitor goes on: a new task in the same space runs. */
	tt_assert_exited(tt_run(sp, tt_guest_return, NULL), 0);
	ua_space_destroy(sp);
}

Test(task_hooks, bad_rsp_inside_space_kills_task)
{
	/* Unmapped, inside the space: the scratch store faults (a fixup),
	 * IRETQ resumes the guest there, its first push faults. */
	struct ua_space *sp = tt_space();
	struct ua_task *t = tt_task(sp, guest_nop_then_return, NULL);
	struct ua_stats a, b;

	redirect_defaults();
	redir.rip = (uintptr_t)tt_push_stub;
	/* The space's last bytes: nothing is mapped there. */
	redir.rsp = (uintptr_t)ua_space_limit(sp) - 8;
	ua_task_set_syscall_hook(t, hook_redirect, NULL);
	ua_stats_reset();
	ua_stats_get(&a);
	tt_assert_killed(ua_task_run(t), SIGSEGV);
	ua_stats_get(&b);
	cr_assert_eq(tt_landing_count, 0);
	cr_assert_eq(b.fixups - a.fixups, 1, "the scratch store faulted");
	ua_task_destroy(t);
	tt_assert_exited(tt_run(sp, tt_guest_return, NULL), 0);
	ua_space_destroy(sp);
}

Test(task_hooks, bad_rsp_low_kills_task)
{
	/* Below any space: no store is tried (no fixup); IRETQ, then the
	 * push faults. */
	run_bad((uintptr_t)tt_push_stub, 16, false, SIGSEGV, 0);
	run_bad((uintptr_t)tt_push_stub, 0, false, SIGSEGV, 0);
}

Test(task_hooks, bad_rsp_noncanonical_kills_task)
{
	/*
	 * IRETQ takes any RSP; the push through a non-canonical one is a
	 * stack-segment fault (#SS), which Linux reports as SIGBUS.
	 */
	run_bad((uintptr_t)tt_push_stub, 0x8000000000000000ull, false, SIGBUS,
		0);
	run_bad((uintptr_t)tt_push_stub, 0xffff800000000000ull, false, SIGBUS,
		0);
}

Test(task_hooks, bad_rip_kills_task)
{
	run_bad(0, 64 << 10, true, SIGSEGV, 0);
	run_bad(0x8000000000000000ull, 64 << 10, true, SIGSEGV, 0);
	run_bad(0xffff800000000000ull, 64 << 10, true, SIGSEGV, 0);
}

/* ---- RFLAGS from the monitor: only the user-modifiable bits ---- */

static uint64_t hook_eflags;

static bool hook_set_eflags(struct ua_task *t, struct ua_pt_regs *r, void *d)
{
	(void)t;
	(void)d;
	if (r->orig_rax != UA_NR_nop)
		return false;
	r->eflags = hook_eflags;
	r->rax = 0;
	return true;
}

static void check_eflags(uint64_t set, uint64_t want)
{
	struct ua_space *sp = tt_space();
	struct ua_task *t = tt_task(sp, guest_probe_once, NULL);

	probe_fill(&probe_in, 5);
	probe_in.r[P_RDI] = UA_NR_nop;
	probe_in.r[P_FLAGS] = 0x202;
	hook_eflags = set;
	ua_task_set_syscall_hook(t, hook_set_eflags, NULL);
	tt_assert_exited(ua_task_run(t), 0);
	cr_assert_eq(probe_out.r[P_FLAGS], want,
		     "hook set %#llx: guest saw %#llx, expected %#llx",
		     (unsigned long long)set,
		     (unsigned long long)probe_out.r[P_FLAGS],
		     (unsigned long long)want);
	/* Every other register arrives as it left. */
	for (int s = P_RBX; s <= P_R15; s++)
		cr_assert_eq(probe_out.r[s], probe_in.r[s], "%s",
			     probe_names[s]);
	cr_assert_eq(probe_out.r[P_RSP_AFTER], probe_out.r[P_RSP_BEFORE]);
	ua_task_destroy(t);
	ua_space_destroy(sp);
}

#define ARITH (TT_CF | TT_PF | TT_AF | TT_ZF | TT_SF | TT_OF)
#define NT 0x4000ul
#define ID 0x200000ul

/*
 * NT where the host's own syscall returns keep it (some hosts clear it
 * at every return from a syscall), else 0: the engine's returns do what
 * the host's do.
 */
static uint64_t host_nt(void)
{
	unsigned long after, nt = NT;

	asm volatile("pushfq\n\t"
		     "orq %[f], (%%rsp)\n\t"
		     "popfq\n\t"
		     "movl $110, %%eax\n\t"
		     "syscall\n\t"
		     "pushfq\n\t"
		     "popq %[a]\n\t"
		     "pushfq\n\t"
		     "notq %[f]\n\t"
		     "andq %[f], (%%rsp)\n\t"
		     "popfq"
		     : [a] "=&r"(after), [f] "+r"(nt)
		     :
		     : "rax", "rcx", "r11", "memory", "cc");
	return after & NT;
}

Test(task_hooks, eflags_sanitised)
{
	uint64_t nt = host_nt();

	check_eflags(0x202 | TT_DF, 0x202 | TT_DF);
	check_eflags(0x202 | TT_AC, 0x202 | TT_AC);
	check_eflags(0x202 | ARITH, 0x202 | ARITH);
	check_eflags(0x202 | TT_AC | TT_DF | ARITH,
		     0x202 | TT_AC | TT_DF | ARITH);
	/* What user code can hold survives, as a syscall's return keeps it. */
	check_eflags(0x202 | NT | ID, 0x202 | nt | ID);
	/* IF and the reserved bit 1 are always set; nothing else gets in. */
	check_eflags(0, 0x202);
	check_eflags(~TT_TF, 0x202 | TT_AC | TT_DF | ARITH | nt | ID);
	/* IOPL, RF, VM, VIF, VIP */
	check_eflags(0x202 | 0x3000 | 0x10000 | 0x20000 | 0x80000 | 0x100000,
		     0x202);
}

/*
 * TF from a hook single-steps the guest, not the monitor: the trap comes
 * after the guest's first instruction, and with no signal layer to catch
 * it, the task dies of it.
 */
Test(task_hooks, eflags_tf_steps_the_guest)
{
	struct ua_space *sp = tt_space();
	struct ua_task *t = tt_task(sp, guest_probe_once, NULL);

	probe_fill(&probe_in, 5);
	probe_in.r[P_RDI] = UA_NR_nop;
	probe_in.r[P_FLAGS] = 0x202;
	hook_eflags = 0x202 | TT_TF;
	ua_task_set_syscall_hook(t, hook_set_eflags, NULL);
	tt_assert_killed(ua_task_run(t), SIGTRAP);
	ua_task_destroy(t);
	ua_space_destroy(sp);
}

/* ---- what the monitor may and may not do from a hook ---- */

static struct {
	int run_other, run_self, nop_ret, nop_errno, destroy_errno;
	bool still_current;
} from_hook;
static struct ua_task *hook_other;

static bool hook_misuse(struct ua_task *t, struct ua_pt_regs *r, void *d)
{
	(void)d;
	if (r->orig_rax != UA_NR_nop)
		return false;
	from_hook.run_other = ua_task_run(hook_other);
	from_hook.run_self = ua_task_run(t);
	errno = 0;
	/* Monitor code is not guest code: refused, the task is intact. */
	from_hook.nop_ret = (int)ua_sys_nop();
	from_hook.nop_errno = errno;
	errno = 0;
	ua_task_destroy(t);
	from_hook.destroy_errno = errno;
	from_hook.still_current = ua_current_task() == t;
	/* And the hook removes itself: the exit is dispatched normally. */
	ua_task_set_syscall_hook(t, NULL, NULL);
	r->rax = 5;
	return true;
}

static void guest_nop_exit_result(void *arg)
{
	(void)arg;
	ua_sys_exit((int)ua_sys_nop());
}

Test(task_hooks, monitor_calls_from_a_hook)
{
	struct ua_space *sp = tt_space();
	struct ua_task *t = tt_task(sp, guest_nop_exit_result, NULL);
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);

	hook_other = tt_task(sp, tt_guest_return, NULL);
	ua_task_set_syscall_hook(t, hook_misuse, NULL);
	/* ua_task_destroy complains on stderr: keep the log clean. */
	dup2(devnull, 2);
	tt_assert_exited(ua_task_run(t), 5);
	dup2(saved, 2);
	close(saved);
	close(devnull);
	cr_assert_eq(from_hook.run_other, -EBUSY);
	cr_assert_eq(from_hook.run_self, -EBUSY);
	cr_assert_eq(from_hook.nop_ret, -1);
	cr_assert_eq(from_hook.nop_errno, EPERM);
	cr_assert_eq(from_hook.destroy_errno, EBUSY);
	cr_assert(from_hook.still_current);
	tt_assert_exited(ua_task_run(hook_other), 0);
	ua_task_destroy(hook_other);
	ua_task_destroy(t);
	ua_space_destroy(sp);
}
