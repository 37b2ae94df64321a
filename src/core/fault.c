// SPDX-License-Identifier: MIT
/*
 * The SIGSEGV/SIGBUS handler: the user-space counterpart of the kernel's
 * fixup_exception() path.  A fault at an instruction with an exception
 * table entry resumes at its fixup; a monitor access to a locked guest page
 * is a protection violation (reported, then abort); anything else belongs
 * to whoever handled the signal before us.
 */
#include <errno.h>
#include <execinfo.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "../internal.h"

/*
 * SIGSEGV and SIGBUS are the accessors' faults; SIGFPE, SIGILL and SIGTRAP
 * are taken too so that guest code raising them (a division by zero, a
 * bad opcode, an int3) ends up with its task instead of killing the
 * process.  Outside guest code all three go straight to the old handler.
 */
static const int fault_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP };
#define NR_FAULT_SIGS (sizeof(fault_sigs) / sizeof(fault_sigs[0]))
static struct sigaction old_action[NR_FAULT_SIGS];

static struct sigaction *old_action_of(int sig)
{
	for (size_t i = 0; i < NR_FAULT_SIGS; i++)
		if (fault_sigs[i] == sig)
			return &old_action[i];
	return &old_action[0];
}

/* Hook for the task layer: a fault taken while the thread runs guest code. */
bool (*ua__guest_fault_hook)(int sig, siginfo_t *info, ucontext_t *uc);
/* Hook for the task layer: did the signal interrupt guest code? */
bool (*ua__guest_context_hook)(const ucontext_t *uc);

/*
 * Guest or monitor is decided by the interrupted context, as the kernel
 * decides with user_mode(regs): the thread's guest mode only says what
 * it ran before host signal handlers stacked on top of it, and a monitor
 * handler running then (or the monitor's own entry and exit code) is
 * monitor code.
 */
static bool guest_context(const ucontext_t *uc)
{
	return ua_self.guest_space && ua__guest_context_hook &&
	       ua__guest_context_hook(uc);
}

#define EFLAGS_AC 0x40000
#ifndef BUS_ADRALN
#define BUS_ADRALN 1
#endif

/*
 * Monitor code never runs with the guest's EFLAGS.AC.  The kernel clears
 * AC on every entry, but a host signal handler that interrupts guest code
 * inherits it (the kernel does not clear AC for handlers): its first
 * unaligned access raises #AC.  Taking AC away from that context and
 * retrying the access is the same as never having had it; the guest's own
 * AC is in the frame under the handler and comes back on its sigreturn.
 */
static bool monitor_alignment_fault(int sig, const siginfo_t *info,
				    ucontext_t *uc)
{
#if defined(__x86_64__)
	greg_t *efl = &uc->uc_mcontext.gregs[REG_EFL];

	if (sig != SIGBUS || info->si_code != BUS_ADRALN ||
	    !ua_self.guest_space || !(*efl & EFLAGS_AC))
		return false;
	*efl &= ~(greg_t)EFLAGS_AC;
	return true;
#else
	(void)sig;
	(void)info;
	(void)uc;
	return false;
#endif
}

static uintptr_t uc_pc(ucontext_t *uc)
{
#if defined(__x86_64__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (uintptr_t)uc->uc_mcontext.pc;
#else
	(void)uc;
	return 0;
#endif
}

static void uc_set_pc(ucontext_t *uc, uintptr_t pc)
{
#if defined(__x86_64__)
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
#elif defined(__aarch64__)
	uc->uc_mcontext.pc = pc;
#else
	(void)uc;
	(void)pc;
#endif
}

/* Was the faulting access a write?  x86 page-fault error code bit 1. */
static int uc_is_write(ucontext_t *uc)
{
#if defined(__x86_64__)
	return (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
	(void)uc;
	return -1;
#endif
}

/* A monitor access that the thread's protection mode forbids. */
struct violation {
	struct ua_space *sp;
	int write;  /* 1 write, 0 read, -1 not known on this arch */
	bool fixup; /* the instruction has a fixup, deliberately not taken */
};

/*
 * The KUAP oops: the monitor touched guest memory of a protected space
 * outside a window, or wrote inside a read window.  Async-signal-safe
 * apart from backtrace(), whose first call (which may allocate) was made
 * when the handler was installed.  Never returns.
 */
static void __attribute__((noreturn))
report_violation(const struct violation *v, siginfo_t *info, ucontext_t *uc)
{
	char buf[24];
	void *frames[32];
	int n;

	ua__write_str(2, "uaccess: monitor attempted to ");
	ua__write_str(2, v->write < 0 ? "access" : v->write ? "write" : "read");
	ua__write_str(2, " guest address ");
	ua__write_str(2, ua__fmt_hex(buf, (uintptr_t)info->si_addr));
	if (ua_self.win_kind && ua_self.win_space == v->sp) {
		ua__write_str(2, " inside a read-only access window");
		if (ua_self.win_file) {
			ua__write_str(2, " opened at ");
			ua__write_str(2, ua_self.win_file);
			ua__write_str(2, ":");
			ua__write_str(2, ua__fmt_dec(buf, (unsigned)ua_self.win_line));
		}
	} else {
		ua__write_str(2, " outside an access window");
	}
	ua__write_str(2, " (protection: ");
	ua__write_str(2, ua_protect_name(v->sp->ops->kind));
	ua__write_str(2, ", thread ");
	ua__write_str(2, ua__fmt_dec(buf, (unsigned long)gettid()));
	ua__write_str(2, ")\nuaccess: faulting instruction at ");
	ua__write_str(2, ua__fmt_hex(buf, uc_pc(uc)));
	ua__write_str(2, "\n");
	if (v->fixup)
		ua__write_str(2, "uaccess: the instruction has an exception-"
				 "table fixup; it is not taken, as a window "
				 "bug must not pass for -EFAULT\n");
	ua__write_str(2, "uaccess: call trace:\n");
	if (v->sp->ops->oops_unlock)
		v->sp->ops->oops_unlock();
	n = backtrace(frames, 32);
	backtrace_symbols_fd(frames, n, 2);
	/* A caught SIGABRT must not let the faulting access run again. */
	signal(SIGABRT, SIG_DFL);
	abort();
}

/*
 * Is this fault a protection violation?  Only for a guest address of a
 * space with a real backend, touched by monitor code (not guest code, not
 * the test probe), when the thread's mode forbids the access: no window,
 * or a write in a read window.  An access the mode allows faulted because
 * of the guest's own protection or an unmapped page: not a violation.
 *
 * An instruction with a fixup is treated like a plain one, as x86 does
 * with SMAP (a kernel access to user memory with AC clear oopses even if
 * it has an exception-table entry): the mode forbade the access, so the
 * window discipline is broken.  It is only spared when the access would
 * have failed inside the right window too (the guest mapping is absent or
 * does not allow it): then the fixup and its -EFAULT are the true answer.
 */
static bool is_violation(struct violation *v, siginfo_t *info,
			 ucontext_t *uc, bool guest)
{
	uintptr_t a = (uintptr_t)info->si_addr, fixup;
	int mode, prot;

	if (guest || ua_self.probing)
		return false;
	v->sp = ua_space_find(info->si_addr);
	if (!v->sp || v->sp->ops->kind == UA_PROTECT_NONE ||
	    a >= v->sp->limit)
		return false;
	v->write = uc_is_write(uc);
	mode = ua__protect_mode(v->sp);
	/*
	 * Monitor code nested in guest mode (a host signal handler) has no
	 * guest rights: outside a window it is locked out like any monitor
	 * code (under pkey the kernel even gave it the default PKRU).
	 */
	if (mode == UA_MODE_GUEST)
		mode = UA_MODE_LOCKED;
	if (mode != UA_MODE_LOCKED && (v->write <= 0 || (mode & UA_WIN_WRITE)))
		return false;
	v->fixup = ua_self.recover || ua_extable_search(uc_pc(uc), &fixup);
	if (!v->fixup)
		return true;
	prot = ua__space_prot_at(v->sp, a);
	if (prot == -2)
		return true; /* cannot look: the thread holds a space lock */
	if (v->write > 0)
		return prot >= 0 && (prot & PROT_WRITE);
	return prot >= 0 && (prot & (PROT_READ | PROT_WRITE));
}

#if defined(__x86_64__) || defined(__aarch64__)
#define UA_CAN_REDIRECT 1
#else
#define UA_CAN_REDIRECT 0
#endif

/*
 * Portable primitives: the handler returns into this, in the faulting
 * thread's own context again (the kernel's sigreturn has put back its
 * signal mask, FP state and PKRU), and it jumps to the recovery point.
 */
static void __attribute__((noreturn, used)) recover_trampoline(void)
{
	void *jb = ua_self.recover;

	ua_self.recover = NULL;
	siglongjmp(*(sigjmp_buf *)jb, 1);
}

/* Make the interrupted context resume in recover_trampoline(). */
static void redirect_to_recovery(ucontext_t *uc)
{
#if defined(__x86_64__)
	greg_t *g = uc->uc_mcontext.gregs;

	/* Below the red zone, aligned as after a call. */
	g[REG_RSP] = (greg_t)((((uintptr_t)g[REG_RSP] - 128) & ~(uintptr_t)15) -
			      8);
#elif defined(__aarch64__)
	uc->uc_mcontext.sp = (uc->uc_mcontext.sp - 16) & ~(uint64_t)15;
#endif
	uc_set_pc(uc, (uintptr_t)recover_trampoline);
}

/* Portable arch without a context to edit: jump out of the handler. */
static void __attribute__((noreturn)) recover_generic(int sig)
{
	void *jb = ua_self.recover;
	sigset_t s;

	ua_self.recover = NULL;
	/*
	 * The point was saved without the signal mask (a syscall per access
	 * would be too dear), so unblock the signal here: a handler installed
	 * without SA_NODEFER that calls ua_handle_fault() would otherwise
	 * leave it blocked, and the next fault would kill the process.
	 */
	sigemptyset(&s);
	sigaddset(&s, sig);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	siglongjmp(*(sigjmp_buf *)jb, 1);
}

static bool handle_fault(int sig, siginfo_t *info, ucontext_t *uc)
{
	struct violation v;
	uintptr_t fixup;
	bool guest;

	/* Only faults the CPU raised; a kill(SIGSEGV) has no faulting PC. */
	if (info->si_code <= 0)
		return false;
	guest = guest_context(uc);
	if (!guest && monitor_alignment_fault(sig, info, uc))
		return true;
	if (sig == SIGFPE || sig == SIGILL || sig == SIGTRAP)
		return guest && ua__guest_fault_hook &&
		       ua__guest_fault_hook(sig, info, uc);
	if (sig != SIGSEGV && sig != SIGBUS)
		return false;
	/* Before any fixup: a forbidden access is reported, not recovered. */
	if (is_violation(&v, info, uc, guest))
		report_violation(&v, info, uc);
	if (ua_self.recover) {
		if (!UA_CAN_REDIRECT)
			recover_generic(sig);
		redirect_to_recovery(uc);
		return true;
	}
	if (ua_extable_search(uc_pc(uc), &fixup)) {
		uc_set_pc(uc, fixup);
		ua_self.stats.fixups++;
		return true;
	}
	if (guest && ua__guest_fault_hook &&
	    ua__guest_fault_hook(sig, info, uc))
		return true;
	return false;
}

bool ua_handle_fault(int sig, siginfo_t *info, void *ucontext)
{
	int saved = errno;
	bool ret = handle_fault(sig, info, ucontext);

	errno = saved;
	return ret;
}

/*
 * The kernel's default action for a signal that is not caught.  A CPU
 * fault cannot be ignored (force_sig_fault() resets an ignored or blocked
 * SIGSEGV to SIG_DFL), so SIG_IGN only discards a signal that was sent.
 * The signal is raised again rather than left to re-fault on return: a
 * fault-like si_code can also come from rt_sigqueueinfo() to oneself, and
 * that would never fault again.  It is blocked here (we are its handler),
 * so it is taken, with the default action, as soon as we return.
 */
static void default_action(int sig, const siginfo_t *info,
			   const struct sigaction *old)
{
	if (old->sa_handler == SIG_IGN && info->si_code <= 0)
		return;
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * Pass a fault that is not ours to the disposition installed before us, as
 * the kernel would have delivered it: SIG_DFL and SIG_IGN compared first
 * whatever the flags say, the handler run with its own sa_mask added and
 * the signal blocked unless SA_NODEFER, SA_RESETHAND honoured.
 */
static void chain(int sig, siginfo_t *info, void *uc)
{
	struct sigaction *slot = old_action_of(sig);
	struct sigaction old = *slot;
	sigset_t mask, prev;

	if (old.sa_handler == SIG_DFL || old.sa_handler == SIG_IGN) {
		default_action(sig, info, &old);
		return;
	}
	if (old.sa_flags & SA_RESETHAND) {
		slot->sa_handler = SIG_DFL;
		slot->sa_flags = 0;
	}
	/*
	 * Our handler runs with every other signal blocked: the mask the old
	 * handler gets is built from the interrupted context's, as the
	 * kernel would have (its mask, plus sa_mask, plus the signal).
	 */
	mask = ((ucontext_t *)uc)->uc_sigmask;
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&old.sa_mask, s) == 1)
			sigaddset(&mask, s);
	if (old.sa_flags & SA_NODEFER)
		sigdelset(&mask, sig);
	else
		sigaddset(&mask, sig);
	/* Raw: the signal itself blocked, as the kernel delivers it. */
	ua__sigmask_raw(SIG_SETMASK, &mask, &prev);
	if (old.sa_flags & SA_SIGINFO)
		old.sa_sigaction(sig, info, uc);
	else
		old.sa_handler(sig);
	ua__sigmask_raw(SIG_SETMASK, &prev, NULL);
}

/*
 * The kernel clears DF and TF for a handler but not EFLAGS.AC.  Guest code
 * may set AC (tasks restore it): then every unaligned access below (glibc's
 * string functions, a lazily bound PLT call) would raise SIGBUS again with
 * SIGBUS blocked, and the process would die.  The interrupted context
 * keeps its own flags in uc.  Below the red zone: this is not a leaf.
 */
static inline void clear_ac(void)
{
#if defined(__x86_64__)
	__asm__ volatile("leaq -128(%%rsp), %%rsp\n\t"
			 "pushfq\n\t"
			 "andl $~0x40000, (%%rsp)\n\t"
			 "popfq\n\t"
			 "leaq 128(%%rsp), %%rsp" ::: "cc", "memory");
#endif
}

static __attribute__((noinline)) void fault_handler_body(int sig,
							siginfo_t *info,
							void *uc)
{
	int saved = errno;

	if (!ua_handle_fault(sig, info, uc))
		chain(sig, info, uc);
	errno = saved;
}

/*
 * Nothing may run before clear_ac() that could make an unaligned access:
 * no locals, and no ASan frame setup (it poisons the frame's shadow with
 * 8-byte stores at RSP/8, which AC turns into SIGBUS).
 */
UA_HIDDEN __attribute__((no_sanitize_address)) void
ua__fault_handler(int sig, siginfo_t *info, void *uc);
__attribute__((no_sanitize_address)) void
ua__fault_handler(int sig, siginfo_t *info, void *uc)
{
	clear_ac();
	ua__count(&ua_self.insn.sig_fault);
	fault_handler_body(sig, info, uc);
}

#if defined(__x86_64__)
UA_HIDDEN void ua__fault_entry(int sig, siginfo_t *info, void *uc);
#endif

int ua__fault_install(void)
{
	struct sigaction sa;
	void *frame;

	/*
	 * A dynamically linked backtrace() loads libgcc_s on first use: do
	 * it now, not in a fault.  A static link (no interpreter, AT_BASE
	 * 0) has the unwinder linked in, and the call would only fault in
	 * its unwind tables for nothing.
	 */
	if (getauxval(AT_BASE))
		backtrace(&frame, 1);
	memset(&sa, 0, sizeof(sa));
#if defined(__x86_64__)
	/* Through the stub that gives the monitor its FS base back (trap.S). */
	sa.sa_sigaction = ua__fault_entry;
#else
	sa.sa_sigaction = ua__fault_handler;
#endif
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
#if !UA_ARCH_HAS_INLINE_ACCESSORS && !UA_CAN_REDIRECT
	/* Recovery longjmps out of the handler: leave nothing blocked. */
	sa.sa_flags |= SA_NODEFER;
#endif
	/*
	 * Every signal but the fault signals is held off while the handler
	 * runs: a handler that interrupted it could run a nofault access
	 * that faults, and with the fault signal blocked (we are its
	 * handler) the kernel would kill the process instead.
	 */
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < NR_FAULT_SIGS; i++)
		sigdelset(&sa.sa_mask, fault_sigs[i]);
	for (size_t i = 0; i < NR_FAULT_SIGS; i++) {
		if (sigaction(fault_sigs[i], &sa, &old_action[i]))
			return -errno;
	}
	return 0;
}
