// SPDX-License-Identifier: MIT
/*
 * Trapping the guest's own `syscall` instructions with Syscall User
 * Dispatch (prctl PR_SET_SYSCALL_USER_DISPATCH, Linux >= 5.11): while guest
 * code runs, the task's selector byte says "block" and every syscall the
 * guest executes becomes a SIGSYS; the handler copies the registers into
 * the task and resumes on the monitor stack in ua__trap_syscall(), which
 * is a syscall entry like ua__syscall's.  In the monitor the selector says
 * "allow".  The mechanics that must not run C code (FS base, selector,
 * the handler's own rt_sigreturn) are in src/arch/x86_64/trap.S.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "task_internal.h"

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#endif
#ifndef PR_SYS_DISPATCH_OFF
#define PR_SYS_DISPATCH_OFF 0
#define PR_SYS_DISPATCH_ON 1
#endif
#ifndef SYS_USER_DISPATCH
#define SYS_USER_DISPATCH 2
#endif
#define HWCAP2_FSGSBASE 2
#define ARCH_SET_GS 0x1001
#define ARCH_GET_FS 0x1003
#define ARCH_GET_GS 0x1004

_Static_assert(offsetof(struct ua_trap_block, mon_fs) == 0, "trap.S");
_Static_assert(offsetof(struct ua_trap_block, guest_fs) == 8, "trap.S");
_Static_assert(offsetof(struct ua_trap_block, sel) == 24, "trap.S");
_Static_assert(offsetof(struct ua_trap_block, resume_monitor) == 25,
	       "trap.S");
_Static_assert(offsetof(struct ua_trap_block, task) == 16, "trap.S");
_Static_assert(offsetof(struct ua_trap_block, exit_rip) == UA_TB_EXIT_RIP,
	       "entry.S");
_Static_assert(offsetof(struct ua_trap_block, mode) == 26, "trap.S");
_Static_assert(UA_TRAP_REWRITE == 2, "trap.S");
_Static_assert(offsetof(struct ua_trap_block, rw_entry) == 32, "trap.S");
_Static_assert(offsetof(struct ua_trap_block, self) == UA_TB_SELF, "trap.S");
_Static_assert(offsetof(struct ua_trap_block, entry_fs) == UA_TB_ENTRY_FS,
	       "trap.S");
_Static_assert(offsetof(struct ua_trap_block, me) == UA_TB_ME, "trap.S");
_Static_assert(offsetof(struct ua_task, tb) == UA_TASK_TB, "trap.S");
_Static_assert(offsetof(struct ua_thread, insn.wrfsbase) ==
		       UA_THREAD_INSN_WRFSBASE, "trap.S");
_Static_assert(offsetof(struct ua_thread, insn.fs_syscalls) ==
		       UA_THREAD_INSN_FS_SYSCALLS, "trap.S");

bool ua__have_fsgsbase;
/* Set once a task with trapped syscalls has run: the stubs switch FS. */
uint8_t ua__fs_switching;
static struct sigaction old_sigsys;

/* The code range the dispatch filter always lets through (trap.S). */
extern const char __start_ua_sud_text[] UA_HIDDEN;
extern const char __stop_ua_sud_text[] UA_HIDDEN;

static long arch_prctl(int code, unsigned long addr)
{
	return syscall(SYS_arch_prctl, code, addr);
}

static int sud_probe(void)
{
	static int result = 1;
	uint8_t sel = UA_SUD_ALLOW;

	if (result <= 0)
		return result;
	if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, 0, 0,
		  &sel)) {
		result = -errno;
		return result;
	}
	prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0, 0);
	result = 0;
	return 0;
}

static int trap_from_env(enum ua_trap *m)
{
	const char *v = getenv("UA_TRAP");

	*m = UA_TRAP_PATCH;
	if (!v || !*v || !strcmp(v, "patch"))
		return 0;
	if (!strcmp(v, "sud")) {
		*m = UA_TRAP_SUD;
		return 0;
	}
	if (!strcmp(v, "rewrite")) {
		*m = UA_TRAP_REWRITE;
		return 0;
	}
	ua__write_str(2, "uaccess: UA_TRAP='");
	ua__write_str(2, v);
	ua__write_str(2, "' is not one of: sud, patch, rewrite\n");
	return -EINVAL;
}

/*
 * Can a task trap its syscalls as opts asks?  Sets *mode: 0 (no
 * trapping), UA_TRAP_SUD, UA_TRAP_REWRITE or UA_TRAP_PATCH.  A mechanism that is not
 * available fails with the reason on stderr, never a silent fallback.
 */
int ua__trap_check(const struct ua_task_opts *opts, uint8_t *mode)
{
	enum ua_trap m = opts ? opts->trap : UA_TRAP_DEFAULT;
	int err;

	*mode = 0;
	if (!opts || !opts->trap_syscalls)
		return 0;
	if ((unsigned)m > UA_TRAP_PATCH)
		return -EINVAL;
	if (m == UA_TRAP_DEFAULT && (err = trap_from_env(&m)))
		return err;
	err = sud_probe();
	if (err) {
		ua__write_str(2, "uaccess: Syscall User Dispatch is not "
				 "available (Linux >= 5.11 with "
				 "CONFIG_GENERIC_ENTRY): cannot trap "
				 "syscalls\n");
		return err;
	}
	/*
	 * rewrite and patch find each site by its first trap: they need
	 * sud too.
	 */
	if (m == UA_TRAP_REWRITE && (err = ua__rewrite_setup()))
		return err;
	*mode = (uint8_t)m;
	return 0;
}

static void regs_from_uc(struct ua_pt_regs *r, const greg_t *g)
{
	*r = (struct ua_pt_regs){
		.r15 = g[REG_R15], .r14 = g[REG_R14], .r13 = g[REG_R13],
		.r12 = g[REG_R12], .rbp = g[REG_RBP], .rbx = g[REG_RBX],
		.r11 = g[REG_R11], .r10 = g[REG_R10], .r9 = g[REG_R9],
		.r8 = g[REG_R8], .rax = g[REG_RAX], .rcx = g[REG_RCX],
		.rdx = g[REG_RDX], .rsi = g[REG_RSI], .rdi = g[REG_RDI],
		.orig_rax = g[REG_RAX], .rip = g[REG_RIP],
		.eflags = g[REG_EFL], .rsp = g[REG_RSP],
	};
}

/* A SIGSYS that is not a trap of ours: what was installed before. */
static void sigsys_foreign(int sig, siginfo_t *info, void *uc)
{
	if (old_sigsys.sa_handler == SIG_IGN)
		return;
	if (old_sigsys.sa_handler == SIG_DFL) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	if (old_sigsys.sa_flags & SA_SIGINFO)
		old_sigsys.sa_sigaction(sig, info, uc);
	else
		old_sigsys.sa_handler(sig);
}

/*
 * Entered from ua__sigsys_entry with the monitor's FS base.  A trap of
 * guest code: the registers go to the task, the context resumes on the
 * monitor stack in ua__sud_entry.  Async-signal-safe: only copies.
 */
UA_HIDDEN void ua__sigsys_handler(int sig, siginfo_t *info, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	struct ua_task *t = ua__cur_task;
	int saved = errno;

	ua__count(&ua_self.insn.sig_sysdispatch);
	if (info->si_code != SYS_USER_DISPATCH || !t || !t->trap ||
	    ua_self.guest_space != t->sp) {
		sigsys_foreign(sig, info, ucv);
		errno = saved;
		return;
	}
	regs_from_uc(&t->regs, g);
	g[REG_RIP] = (greg_t)ua__sud_entry;
	g[REG_RSP] = (greg_t)t->mon_rsp;
	g[REG_EFL] &= ~(greg_t)UA_MONITOR_EFLAGS_CLEAR;
	g[REG_RDI] = (greg_t)t;
	/* The guest's FS base as the entry found it: a wrfsbase stands. */
	t->tb.guest_fs = t->tb.entry_fs;
	t->tb.resume_monitor = 1;
}

/* A syscall entry, after the lock. */
_Noreturn void ua__trap_dispatch(struct ua_task *t, bool rewritten)
{
	struct ua_pt_regs *r = &t->regs;
	long ret;

	if (rewritten)
		ua__rewrite_trip(t, r->rip - 2);
	else if (t->tb.mode == UA_TRAP_REWRITE)
		ua__rewrite_site(t, r);
	else if (t->tb.mode == UA_TRAP_PATCH)
		ua__patch_site(t, r);
	t->trap_entry = true;
	t->regs_replaced = false;
	if (ua_unlikely(t->hook) && t->hook(t, r, t->hook_data)) {
		t->regs_replaced = true;
	} else {
		ret = ua__lx_dispatch(t, r);
		if (!t->regs_replaced)
			r->rax = (uint64_t)ret;
	}
	/* A fault's saved context (ua__rewrite_fault) is over with it. */
	if (t->regs_replaced)
		t->full_ctx = false;
	ua__return_to_guest(t);
}

/*
 * Entered from ua__sud_entry on the monitor stack (a trap), or from
 * ua__rewrite_syscall (a rewritten site): a syscall entry.  A trap from
 * the trampoline is its site's syscall (ua__rewrite_fixup()).
 */
static _Noreturn void trap_syscall(struct ua_task *t, bool rewritten)
{
	struct ua_pt_regs *r = &t->regs;

	ua__guest_task = NULL;
	ua__tsc_entry(t);
	ua__pkru_entry(t);
	ua__protect_syscall_lock(t->sp);
	if (!rewritten && t->tb.mode == UA_TRAP_REWRITE &&
	    ua__rewrite_fixup(t, r, false)) {
		ua__rewrite_regs(r);
		rewritten = true;
	}
	ua__trap_dispatch(t, rewritten);
}

/*
 * From ua__guest_fault() (monitor mode, locked): a fault on the way
 * through a rewritten site is that site's syscall; one in a patched
 * site's trampoline is trap_patch.c's.  The fault's saved context stays
 * the task's (its FP state comes back at the exit).
 */
void ua__rewrite_fault(struct ua_task *t, siginfo_t *info)
{
	if (t->tb.mode == UA_TRAP_PATCH) {
		ua__patch_fault(t, info);
		return;
	}
	if (t->tb.mode != UA_TRAP_REWRITE)
		return;
	if (!ua__rewrite_int3(t, info) &&
	    !ua__rewrite_fixup(t, &t->regs, info->si_signo == SIGSEGV))
		return;
	ua__rewrite_regs(&t->regs);
	ua__trap_dispatch(t, true);
}

_Noreturn void ua__trap_syscall(struct ua_task *t)
{
	trap_syscall(t, false);
}

/*
 * Entered from ua__rewrite_entry (trap.S) on the monitor stack with the
 * monitor's FS base: the stub saved what the `call *%rax` left (RIP the
 * return address, RSP above it, RFLAGS untouched); the rest is what a
 * `syscall` instruction leaves: rcx the next RIP, r11 RFLAGS.
 */
UA_HIDDEN _Noreturn void ua__rewrite_syscall(struct ua_task *t)
{
	ua__rewrite_regs(&t->regs);
	trap_syscall(t, true);
}

void ua__trap_free(struct ua_task *t)
{
	ua__rewrite_free(t);
	ua__patch_free(t);
}

static pthread_once_t sigsys_once = PTHREAD_ONCE_INIT;
static int sigsys_err;

static void sigsys_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = ua__sigsys_entry;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, &old_sigsys))
		sigsys_err = -errno;
}

static uint64_t gs_read(void)
{
	unsigned long v = 0;

	if (ua__have_fsgsbase) {
		asm volatile("rdgsbase %0" : "=r"(v));
		return v;
	}
	arch_prctl(ARCH_GET_GS, (unsigned long)&v);
	return v;
}

static int gs_write(uint64_t v)
{
	if (ua__have_fsgsbase) {
		asm volatile("wrgsbase %0" : : "r"(v) : "memory");
		return 0;
	}
	return arch_prctl(ARCH_SET_GS, v) ? -errno : 0;
}

/* Do this task's trampolines find their trap block through GS? */
static bool gs_finds_tb(const struct ua_task *t)
{
	return t->tb.mode == UA_TRAP_REWRITE || t->tb.mode == UA_TRAP_PATCH;
}

/*
 * What the GS base register holds for a guest whose own base is gs.  The
 * monitor never reads GS, with one exception: a rewritten or patched
 * site finds its trap block through it (trap_rewrite.c, trap_patch.c),
 * so there a guest that has no GS base of its own (0, as a new Linux
 * process) runs with the block's address there, and one that sets its
 * own makes each such site take the slower way in (a host signal).
 */
static uint64_t gs_register(const struct ua_task *t, uint64_t gs)
{
	if (!gs && gs_finds_tb(t))
		return (uint64_t)&t->tb;
	return gs;
}

/* TASK_SIZE_MAX (arch/x86/include/asm/page_64_types.h, 4-level paging). */
#define TASK_SIZE_MAX 0x7ffffffff000ull

/* arch_prctl(ARCH_SET_GS) of the running task, in monitor mode. */
int ua__guest_gs_set(struct ua_task *t, uint64_t gs)
{
	if (gs >= TASK_SIZE_MAX)
		return -EPERM;
	return gs_write(gs_register(t, gs));
}

/* arch_prctl(ARCH_GET_GS): the register, as the guest left it. */
uint64_t ua__guest_gs_get(const struct ua_task *t)
{
	uint64_t v = gs_read();

	return v == (uint64_t)&t->tb ? 0 : v;
}

/*
 * Dispatch on for the task.  The range it always allows must hold the
 * stubs (ua_sud_text), which make their calls with the selector
 * blocking.  A loaded program's code lies in its space and nowhere else
 * (loader.c), so for it the range may be all the addresses above the
 * space: the monitor's own calls (libc's, the fast path's) then pass the
 * kernel's first test, without its vDSO check and its read of the
 * selector byte (kernel/entry/syscall_user_dispatch.c).  Not under
 * protection keys, which do not guard instruction fetch: there the guest
 * may jump to monitor code, and only the stubs' calls should pass
 * unchecked.  Nor under rewrite, whose
 * page-0 trampoline and its tail (trap_rewrite.c) lie outside the space,
 * possibly above a small one, and end in a `syscall` that must trap.
 * The kernel refuses a range that wraps, hence one that stops short of
 * the top byte.
 */
static int sud_on(struct ua_task *t)
{
	const struct ua_space *sp = t->sp;
	unsigned long lo = (unsigned long)__start_ua_sud_text;
	unsigned long len =
		(unsigned long)(__stop_ua_sud_text - __start_ua_sud_text);
	unsigned long above = sp->limit + sp->guard;

	if (t->own_fs && sp->pkey < 0 && t->tb.mode != UA_TRAP_REWRITE &&
	    lo >= above) {
		lo = above;
		len = ~0ul - above;
	}
	if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, lo, len,
		  &t->tb.sel))
		return -errno;
	return 0;
}

/*
 * ua_task_run() on this thread, before guest code: the trap block where
 * the signal entries find it (the thread's altstack slot), the monitor's
 * FS base noted, the GS base the guest starts with, dispatch on with the
 * selector allowing (the monitor runs until the first return to guest
 * code).
 */
int ua__trap_run_begin(struct ua_task *t)
{
	unsigned long fs = 0;
	int err;

	if (!t->trap && !t->own_fs)
		return 0;
	pthread_once(&sigsys_once, sigsys_install);
	if (sigsys_err)
		return sigsys_err;
	if (arch_prctl(ARCH_GET_FS, (unsigned long)&fs))
		return -errno;
	t->saved_gs = gs_read();
	t->tb.mon_fs = fs;
	t->tb.task = t;
	t->tb.sel = UA_SUD_ALLOW;
	t->tb.resume_monitor = 0;
	t->tb.rw_entry = t->tb.mode == UA_TRAP_PATCH ? ua__patch_entry :
						       ua__rewrite_entry;
	t->tb.self = &ua_self;
	t->tb.entry_fs = fs;
	t->tb.me = &t->tb;
	if (!t->own_fs)
		t->tb.guest_fs = fs;
	__atomic_store_n(&ua__fs_switching, 1, __ATOMIC_RELAXED);
	ua__astack_set_tb(&t->tb);
	/* A loaded program starts as a new process does: GS base 0. */
	if (t->own_fs || gs_finds_tb(t)) {
		err = gs_write(gs_register(t, t->own_fs ? 0 : t->saved_gs));
		if (err)
			goto fail;
	}
	if (t->trap) {
		err = sud_on(t);
		if (err)
			goto fail;
	}
	if (t->trap)
		t->ppid_armed = ua__ppid_arm();
	/* A parent-death signal the guest set in an image before an exec. */
	if (!t->ppid_armed && t->pdeath_sig)
		prctl(PR_SET_PDEATHSIG, t->pdeath_sig);
	return 0;
fail:
	gs_write(t->saved_gs);
	ua__astack_set_tb(NULL);
	return err;
}

/*
 * In the child of a guest's fork (fork.c), in monitor mode: the host
 * clears Syscall User Dispatch and the parent-death signal in a forked
 * child; everything else the task set up (altstack, GS, FS) came along.
 */
int ua__trap_after_fork(struct ua_task *t, pid_t parent)
{
	int err;

	ua__patch_after_fork(t);
	ua__rewrite_after_fork();
	if (!t->trap)
		return 0;
	err = sud_on(t);
	if (err)
		return err;
	if (t->ppid_armed)
		t->ppid_armed = ua__ppid_after_fork(parent);
	return 0;
}

/* ua_task_run() after the task ended (monitor mode: selector allowing). */
void ua__trap_run_end(struct ua_task *t)
{
	if (!t->trap && !t->own_fs)
		return;
	if (t->trap)
		prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0,
		      0);
	if (t->ppid_armed)
		ua__ppid_disarm();
	t->ppid_armed = false;
	ua__astack_set_tb(NULL);
	if (gs_read() != t->saved_gs)
		gs_write(t->saved_gs);
}

void ua__trap_init(void)
{
	ua__have_fsgsbase = getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE;
}
