// SPDX-License-Identifier: MIT
/*
 * Guest tasks: creation, running on a thread, destruction.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "task_internal.h"

#if defined(__SANITIZE_ADDRESS__)
#define UA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UA_ASAN 1
#endif
#endif
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#ifdef UA_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

_Static_assert(offsetof(struct ua_task, regs) == UA_TASK_REGS, "entry.S");
_Static_assert(offsetof(struct ua_task, mon_rsp) == UA_TASK_MON_RSP,
	       "entry.S");
_Static_assert(offsetof(struct ua_task, mon_saved) == UA_TASK_MON_SAVED,
	       "entry.S");
_Static_assert(offsetof(struct ua_task, exit_rsp) == UA_TASK_EXIT_RSP,
	       "entry.S");
_Static_assert(offsetof(struct ua_task, fpu_restore) == UA_TASK_FPU_RESTORE,
	       "entry.S");
_Static_assert(offsetof(struct ua_task, irq_pending) == UA_TASK_IRQ_PENDING,
	       "entry.S");
_Static_assert(offsetof(struct ua_pt_regs, rip) == 128, "entry.S");
_Static_assert(sizeof(struct ua_pt_regs) == 168, "entry.S");

UA_TLS struct ua_task *ua__cur_task;
UA_TLS struct ua_task *ua__guest_task;
/* Task ids: from 1000, as 0 and the monitor's pid stand for the caller. */
atomic_int ua__next_tid = 1000;
const struct ua_task_hooks *ua__task_hooks;

void ua__task_set_hooks(const struct ua_task_hooks *h)
{
	ua__task_hooks = h;
}

/* Guest side: the first frame of every task. */
static void task_trampoline(void (*entry)(void *), void *arg)
{
	entry(arg);
	ua_sys_exit(0);
}

static int frame_mode_from_env(enum ua_frame_mode *m)
{
	const char *v = getenv("UA_FRAME_MODE");

	*m = UA_FRAME_BLOCK;
	if (!v || !*v || !strcmp(v, "block"))
		return 0;
	if (!strcmp(v, "per-access") || !strcmp(v, "per_access")) {
		*m = UA_FRAME_PER_ACCESS;
		return 0;
	}
	ua__write_str(2, "uaccess: UA_FRAME_MODE='");
	ua__write_str(2, v);
	ua__write_str(2, "' is not one of: block, per-access\n");
	return -EINVAL;
}

/*
 * Map the stack with an inaccessible guard page below it.  The guard stays
 * mapped (PROT_NONE) rather than unmapped: a later ua_map() without an
 * address takes the first gap, and would otherwise put guest memory right
 * where an overflowing stack must fault.  Its faults still report
 * SEGV_MAPERR, as the kernel's guard gap does (fix_segv_code()).
 */
static int map_stack(struct ua_task *t, size_t size)
{
	char *p = ua_map(t->sp, NULL, size + ua__pagesz, PROT_READ | PROT_WRITE);

	if (!p)
		return -ENOMEM;
	ua_unmap(t->sp, p, ua__pagesz);
	if (ua_map(t->sp, p, ua__pagesz, PROT_NONE) != p) {
		/* Another thread mapped into the gap meanwhile. */
		ua_unmap(t->sp, p + ua__pagesz, size);
		return -ENOMEM;
	}
	t->stack = p + ua__pagesz;
	t->stack_size = size;
	return 0;
}

static void init_regs(struct ua_task *t, void (*entry)(void *), void *arg)
{
	uintptr_t top = (uintptr_t)t->stack + t->stack_size;

	memset(&t->regs, 0, sizeof(t->regs));
	t->regs.rip = (uintptr_t)task_trampoline;
	/* As if called: (rsp + 8) % 16 == 0 at function entry. */
	t->regs.rsp = (top & ~(uintptr_t)15) - 8;
	t->regs.rdi = (uintptr_t)entry;
	t->regs.rsi = (uintptr_t)arg;
	t->regs.eflags = 0x202;
	t->regs.orig_rax = (uint64_t)-1;
}

/* A task's memory: the structure and its two XSAVE images. */
static void task_free(struct ua_task *t)
{
	free(t->xsave_ctx);
	free(t->xsave_ret);
	free(t);
}

static struct ua_task *task_alloc(struct ua_space *sp)
{
	struct ua_task *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->sp = sp;
	t->xsave_ctx = ua__xstate_alloc();
	t->xsave_ret = ua__xstate_alloc();
	if (!t->xsave_ctx || !t->xsave_ret) {
		task_free(t);
		return NULL;
	}
	return t;
}

/* Its id and the upper layers' state; then it counts in its space. */
static int task_register(struct ua_task *t)
{
	int err;

	/*
	 * The signal calls take the monitor's pid to name the caller
	 * (names_self() in src/signal/syscalls.c), so a task whose id were
	 * the host's pid (pids wrap and come back to the thousands) could
	 * not be signalled by the others: skip it.
	 */
	do
		t->tid = atomic_fetch_add(&ua__next_tid, 1);
	while (t->tid == getpid());
	if (ua__task_hooks && ua__task_hooks->create &&
	    (err = ua__task_hooks->create(t)))
		return err;
	atomic_fetch_add(&t->sp->tasks, 1);
	return 0;
}

struct ua_task *ua_task_create(struct ua_space *sp, void (*entry)(void *),
			       void *arg, const struct ua_task_opts *opts)
{
	size_t stack = opts && opts->stack_size ? opts->stack_size :
						  UA_TASK_DEFAULT_STACK;
	enum ua_frame_mode mode = opts ? opts->frame_mode : UA_FRAME_DEFAULT;
	struct ua_task *t;
	uint32_t after = 0;
	uint8_t trap = 0;
	int err = -EOPNOTSUPP;

#if !defined(__x86_64__)
	goto fail;
#endif
	err = -EINVAL;
	if (!sp || !entry || (unsigned)mode > UA_FRAME_PER_ACCESS ||
	    stack < UA_TASK_MIN_STACK)
		goto fail;
	if (mode == UA_FRAME_DEFAULT && (err = frame_mode_from_env(&mode)))
		goto fail;
	err = ua__trap_check(opts, &trap);
	if (err)
		goto fail;
	if (trap == UA_TRAP_PATCH && (err = ua__patch_after(opts, &after)))
		goto fail;
	err = -ENOMEM;
	/* Also keeps the page rounding and the guard page from overflowing. */
	if (stack >= sp->size)
		goto fail;
	t = task_alloc(sp);
	if (!t)
		goto fail;
	t->frame_mode = mode;
	t->trap = trap;
	t->tb.mode = trap;
	t->patch_after = after;
	err = map_stack(t, ua__page_up(stack));
	if (err)
		goto free_t;
	init_regs(t, entry, arg);
	err = task_register(t);
	if (err)
		goto unmap;
	return t;

unmap:
	ua_unmap(sp, (char *)t->stack - ua__pagesz,
		 t->stack_size + ua__pagesz);
free_t:
	task_free(t);
fail:
	errno = -err;
	return NULL;
}

/*
 * A thread of parent's process (clone with CLONE_VM | CLONE_THREAD): the
 * caller sets its registers.  Trampolines and code ranges of the patch
 * trap and the table of patched or rewritten sites are the process's:
 * the new task reads the parent's and never frees them (the parent
 * outlives its threads: sys_thread.c).  While the space has several
 * tasks the table never grows and its entries are added under a lock
 * (trap_patch.c, trap_rewrite.c).
 */
struct ua_task *ua__task_clone(struct ua_task *parent)
{
	struct ua_task *t;
	int err;

	/* Still alone: the shared table gets its room now (trap_rewrite.c). */
	if ((parent->tb.mode == UA_TRAP_PATCH ||
	     parent->tb.mode == UA_TRAP_REWRITE) &&
	    atomic_load(&parent->sp->tasks) == 1 &&
	    ua__rw_sites_reserve(parent)) {
		errno = ENOMEM;
		return NULL;
	}
	t = task_alloc(parent->sp);
	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	t->frame_mode = parent->frame_mode;
	t->trap = parent->trap;
	t->tb.mode = parent->tb.mode;
	t->own_fs = parent->own_fs;
	t->tb.guest_fs = parent->tb.guest_fs;
	t->hook = parent->hook;
	t->hook_data = parent->hook_data;
	t->tsc_off = parent->tsc_off;
	t->patch = parent->patch;
	t->patch_after = parent->patch_after;
	t->tb.rw = parent->tb.rw;
	t->patch_shared = true;
	t->regs = parent->regs;
	err = task_register(t);
	if (err) {
		task_free(t);
		errno = -err;
		return NULL;
	}
	return t;
}

void ua_task_destroy(struct ua_task *t)
{
	if (!t)
		return;
	if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == UA_TASK_RUNNING) {
		ua__write_str(2, "uaccess: ua_task_destroy: task is running; "
				 "not destroyed\n");
		errno = EBUSY;
		return;
	}
	ua__host_sig_forget(t);
	if (t->lx_free)
		t->lx_free(t);
	/* Threads may still run through the trampolines (sys_thread.c). */
	if (t->patch_shared || atomic_load(&t->sp->tasks) > 1) {
		t->patch = NULL;
		t->tb.rw = NULL;
	}
	ua__trap_free(t);
	if (ua__task_hooks && ua__task_hooks->destroy)
		ua__task_hooks->destroy(t);
	if (t->stack)
		ua_unmap(t->sp, (char *)t->stack - ua__pagesz,
			 t->stack_size + ua__pagesz);
	atomic_fetch_sub(&t->sp->tasks, 1);
	task_free(t);
}

/*
 * AddressSanitizer must know which stack it is on: a noreturn call in
 * guest code (ua_sys_exit) unpoisons "the current stack", and with the
 * thread's bounds that range would be the whole gap between the two
 * stacks.  Starting a fiber switch to the guest stack and finishing it
 * only once the task is over leaves ASan choosing the bounds by the stack
 * pointer (guest stack or thread stack) for the whole run, which is what
 * each syscall's stack change needs, with no annotation per syscall.
 * Frames of guest code that never returned (an exit from deep inside, a
 * fault) leave poisoned redzones on the guest stack: clear them before
 * the memory can be mapped again.
 */
#ifdef UA_ASAN
static void asan_enter(struct ua_task *t, void **fake)
{
	/* A thread's stack is the guest's own, where no C code runs. */
	if (t->stack)
		__sanitizer_start_switch_fiber(fake, t->stack, t->stack_size);
}

static void asan_leave(struct ua_task *t, void *fake)
{
	const void *bottom;
	size_t size;

	if (!t->stack)
		return;
	__sanitizer_finish_switch_fiber(fake, &bottom, &size);
	__sanitizer_start_switch_fiber(&fake, bottom, size);
	__sanitizer_finish_switch_fiber(fake, NULL, NULL);
	ASAN_UNPOISON_MEMORY_REGION(t->stack, t->stack_size);
}
#else
static void asan_enter(struct ua_task *t, void **fake)
{
	(void)t;
	(void)fake;
}

static void asan_leave(struct ua_task *t, void *fake)
{
	(void)t;
	(void)fake;
}
#endif

/*
 * The lowest byte of the thread's own stack, where ua_task_run() and the
 * monitor side of every task run (noted once per thread); 0 if unknown.
 */
static UA_TLS uintptr_t mon_stack_lo;

static void note_monitor_stack(void)
{
	pthread_attr_t a;
	void *lo;
	size_t size;

	if (mon_stack_lo || pthread_getattr_np(pthread_self(), &a))
		return;
	if (!pthread_attr_getstack(&a, &lo, &size))
		mon_stack_lo = (uintptr_t)lo;
	pthread_attr_destroy(&a);
}

/*
 * The guest starts with the monitor thread's PKRU (under the pkey backend
 * with its space's key open, as the unlock into guest mode gives it).
 */
static void init_pkru(struct ua_task *t)
{
	if (!ua__pkru_in_xstate)
		return;
	t->pkru_monitor = ua__rdpkru();
	t->pkru = t->pkru_monitor;
	if (t->sp->ops->kind == UA_PROTECT_PKEY)
		t->pkru = ua__pkru_with(t->pkru, t->sp->pkey, UA_MODE_GUEST);
}

int ua_task_run(struct ua_task *t)
{
	uint32_t mxcsr;
	uint16_t fcw;
	enum ua_task_state expect = UA_TASK_NEW;
	void *fake = NULL;
	sigset_t mask;
	bool masked;
	int err, status;

	if (!t)
		return -EINVAL;
	if (ua__cur_task)
		return -EBUSY;
	/*
	 * A thread that runs guest code needs an alternate signal stack: a
	 * guest that smashes its stack pointer must still let the fault
	 * handler run, and the entry stubs find the task from it.
	 */
	err = ua_init();
	if (!err)
		err = ua__astack_get(t->trap || t->own_fs);
	if (err)
		return err;
	note_monitor_stack();
	err = ua__irq_setup();
	/* Two threads may try the same task: one wins. */
	if (!err &&
	    !__atomic_compare_exchange_n(&t->state, &expect, UA_TASK_RUNNING,
					 false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		err = -EBUSY;
	if (err) {
		ua__astack_put();
		return err;
	}
	/*
	 * A guest fault on a blocked fault signal would kill the process
	 * (the kernel forces the default action): the library's
	 * pthread_sigmask() never blocks them, a raw system call may have.
	 */
	masked = ua__fault_sigs_unblock(&mask);
	t->prev_space = ua_space_use(t->sp);
	atomic_fetch_add(&t->sp->running, 1);
	ua__cur_task = t;
	err = ua__trap_run_begin(t);
	if (err) {
		ua__cur_task = NULL;
		ua_space_use(t->prev_space);
		atomic_fetch_sub(&t->sp->running, 1);
		if (masked)
			ua__fault_sigs_restore(&mask);
		__atomic_store_n(&t->state, UA_TASK_NEW, __ATOMIC_RELEASE);
		ua__astack_put();
		return err;
	}
	__atomic_store_n(&t->host_tid, gettid(), __ATOMIC_RELEASE);
	/* Guest code may change the FP control words: the monitor's come back. */
	asm volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(mxcsr), "=m"(fcw));
	init_pkru(t);
	asan_enter(t, &fake);
	status = ua__task_enter(t);
	asan_leave(t, fake);
	ua__trap_run_end(t);
	ua__astack_put();
	/*
	 * FLDCW waits for pending x87 exceptions: clear the guest's first, or
	 * an exception it left pending and unmasked fires here (FNCLEX does
	 * not wait).
	 */
	asm volatile("fnclex\n\tfldcw %1\n\tldmxcsr %0"
		     : : "m"(mxcsr), "m"(fcw));
	__atomic_store_n(&t->host_tid, 0, __ATOMIC_RELEASE);
	ua__guest_task = NULL;
	ua__cur_task = NULL;
	ua_space_use(t->prev_space);
	atomic_fetch_sub(&t->sp->running, 1);
	if (masked)
		ua__fault_sigs_restore(&mask);
	__atomic_store_n(&t->state, UA_TASK_DEAD, __ATOMIC_RELEASE);
	return status;
}

pid_t ua_task_tid(const struct ua_task *t)
{
	return t->tid;
}

struct ua_space *ua_task_space(const struct ua_task *t)
{
	return t->sp;
}

struct ua_task *ua_current_task(void)
{
	return ua__cur_task;
}

unsigned long ua_task_signals_delivered(const struct ua_task *t)
{
	return t->nr_signals;
}

struct ua_pt_regs *ua_task_regs(struct ua_task *t)
{
	return &t->regs;
}

void ua_task_set_syscall_hook(struct ua_task *t, ua_syscall_hook_t hook,
			      void *data)
{
	t->hook = hook;
	t->hook_data = data;
}

/* Called in monitor mode (space locked) on the monitor stack. */
_Noreturn void ua__task_exit(struct ua_task *t, int wstatus)
{
	/*
	 * A window a syscall left open for the way back to guest code
	 * does not outlive the task: the monitor resumes with none.
	 */
	if (ua_self.win_kind)
		ua__protect_window_close(ua_self.win_kind);
	if (t->lx_exit)
		wstatus = t->lx_exit(t, wstatus);
	t->status = wstatus;
	ua__task_leave(t, wstatus);
}

_Noreturn void ua__return_to_guest(struct ua_task *t)
{
	/* An interrupt from here on sets it again: the exit code re-checks. */
	t->irq_pending = 0;
	atomic_signal_fence(memory_order_seq_cst);
	/* Not with a window left open to fold into the unlock. */
	if (!ua_self.win_kind)
		ua__xreq_serve(t, false);
	if (ua__task_hooks && ua__task_hooks->exit_work)
		ua__task_hooks->exit_work(t);
	/* Back to the interrupted instant, no frame built: its whole state. */
	if (t->full_ctx) {
		t->full_ctx = false;
		t->fpu_restore = t->xsave_ctx;
	}
	t->regs.eflags = ua__user_eflags(t->regs.eflags);
	if (ua_self.win_kind)
		ua_protect_unlock_from_window(t->sp);
	else
		ua_protect_unlock(t->sp);
	ua__pkru_exit(t);
	ua__tsc_exit(t);
	ua__guest_task = t;
	/* The guest's FS base and a blocking selector, after all C code. */
	if (t->trap || t->own_fs)
		ua__ret_to_guest_trap(&t->regs, &t->tb, ua__exit_store_ok(t));
	if (!ua__exit_store_ok(t))
		ua__ret_to_guest_iret(&t->regs);
	ua__ret_to_guest(&t->regs);
}

/*
 * arch/x86/kernel/process.c set_tsc_mode(): the host sets CR4.TSD for
 * this thread while the flag is on, and RDTSC in guest code then raises
 * #GP, a SIGSEGV with SI_KERNEL and no address (exc_general_protection()
 * in traps.c), which reaches the guest as its own fault.
 */
void ua__tsc_host(bool off)
{
	prctl(PR_SET_TSC, off ? PR_TSC_SIGSEGV : PR_TSC_ENABLE);
}

/* Monitor stack depth assumed when the thread's stack is not known. */
#define MON_STACK_FALLBACK ((uintptr_t)1 << 20)

/*
 * Did a host signal taken while the thread is in guest mode interrupt
 * guest code?  Guest and monitor share the CPU's privilege level, so the
 * interrupted stack tells them apart (the kernel's user_mode(regs)):
 * guest code runs on a stack inside its space; a monitor signal handler
 * with SA_ONSTACK runs on the thread's alternate signal stack, and the
 * monitor's entry and exit code on the thread's own stack below the point
 * ua_task_run() entered the task.  Any other stack pointer is guest code
 * that moved its RSP somewhere odd, and its faults are the task's.  A
 * monitor handler without SA_ONSTACK runs on the guest's stack and cannot
 * be told from guest code (doc/signals.md).
 */
static bool in_range(uintptr_t pc, const char *lo, const char *hi)
{
	return pc >= (uintptr_t)lo && pc < (uintptr_t)hi;
}

bool ua__in_exit_code(uintptr_t pc)
{
	return in_range(pc, ua__exit_fast_begin, ua__exit_fast_end) ||
	       in_range(pc, ua__exit_full_begin, ua__exit_full_end);
}

bool ua__guest_context(const ucontext_t *uc)
{
	const struct ua_task *t = ua__cur_task;
	uintptr_t rsp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	uintptr_t rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	uintptr_t ss = (uintptr_t)uc->uc_stack.ss_sp, lo;

	if (!t || ua_self.guest_space != t->sp)
		return false;
	/*
	 * The exit code's last instruction (ret, iretq) faults on a bad
	 * guest RIP or RSP: the guest's fault, as the kernel's bad IRET is
	 * (its other accesses have exception-table entries).
	 */
	if (ua__in_exit_code((uintptr_t)uc->uc_mcontext.gregs[REG_RIP]))
		return true;
	/*
	 * Monitor code never runs from the space (the patch slots there
	 * run guest state): a fault with RIP in it, such as the fetch from
	 * a bad page a guest's rt_sigreturn jumped to, is the guest's
	 * whatever its RSP holds, even an address on the monitor's stack.
	 */
	if (rip >= t->sp->base && rip < t->sp->limit)
		return true;
	if (rsp >= t->sp->base && rsp <= t->sp->limit)
		return true;
	if (uc->uc_stack.ss_size && rsp > ss &&
	    rsp - ss <= uc->uc_stack.ss_size)
		return false;
	lo = mon_stack_lo ? mon_stack_lo : t->mon_saved - MON_STACK_FALLBACK;
	return !(rsp >= lo && rsp <= t->mon_saved);
}

/*
 * The host fault handler saw a fault while this thread ran guest code:
 * copy the faulting context into the task and resume on the monitor stack
 * in ua__guest_fault_entry.  Async-signal-safe: only copies.
 */
void ua__capture_guest(struct ua_task *t, const ucontext_t *uc)
{
	const greg_t *g = uc->uc_mcontext.gregs;

	t->regs = (struct ua_pt_regs){
		.r15 = g[REG_R15], .r14 = g[REG_R14], .r13 = g[REG_R13],
		.r12 = g[REG_R12], .rbp = g[REG_RBP], .rbx = g[REG_RBX],
		.r11 = g[REG_R11], .r10 = g[REG_R10], .r9 = g[REG_R9],
		.r8 = g[REG_R8], .rax = g[REG_RAX], .rcx = g[REG_RCX],
		.rdx = g[REG_RDX], .rsi = g[REG_RSI], .rdi = g[REG_RDI],
		.orig_rax = (uint64_t)-1, .rip = g[REG_RIP],
		.eflags = g[REG_EFL], .rsp = g[REG_RSP],
	};
	ua__xstate_capture(t->xsave_ctx, uc);
	t->full_ctx = true;
	t->fpu_restore = NULL;
}

#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31) /* include/uapi/linux/signal.h */
#endif

/* CPUID 0xD.9 EBX: PKRU's offset in a standard-format XSAVE image. */
static uint32_t pkru_xsave_off;

/*
 * The PKRU of the interrupted context, from the XSAVE image of the
 * handler's frame (the kernel writes the interrupted value there:
 * arch/x86/kernel/fpu/signal.c, update_pkru_in_sigframe()); an image
 * without the PKRU component means the init value, 0.  False when the
 * frame has no XSAVE image to read it from.
 */
static bool uc_pkru(const ucontext_t *uc, uint32_t *pkru)
{
	const unsigned char *fp = (const void *)uc->uc_mcontext.fpregs;
	uint32_t magic;
	uint64_t bv;

	if (!fp || !pkru_xsave_off)
		return false;
	memcpy(&magic, fp + 464, sizeof(magic)); /* sw_reserved.magic1 */
	if (magic != UA_FP_XSTATE_MAGIC1)
		return false;
	memcpy(&bv, fp + 512, sizeof(bv));
	*pkru = 0;
	if (bv & (1u << 9))
		memcpy(pkru, fp + pkru_xsave_off, sizeof(*pkru));
	return true;
}

/*
 * Resumes a host handler that caught the guest at entry(t, arg) on the
 * monitor stack.  Directly where it can: the guest's state is in the task
 * already, and skipping the host's rt_sigreturn is most of what makes a
 * guest fault as cheap as the kernel's own.  What that rt_sigreturn
 * would still have restored is put back by hand: the signal mask
 * (ua__handler_to_monitor) and, where PKRU is XSAVE state, the
 * interrupted PKRU, which ua__pkru_entry() then takes as the guest's.
 * An alternate stack armed with SS_AUTODISARM is given back only by
 * rt_sigreturn, so there the handler returns into entry through it.
 */
void ua__redirect_to_monitor(struct ua_task *t, ucontext_t *uc,
			     void (*entry)(void), const void *arg)
{
	greg_t *g = uc->uc_mcontext.gregs;
	uint32_t pkru;

	/* The guest's FS base as the entry found it: a wrfsbase stands. */
	if (t->trap || t->own_fs)
		t->tb.guest_fs = t->tb.entry_fs;
	if (!(uc->uc_stack.ss_flags & SS_AUTODISARM)) {
		if (!ua__pkru_in_xstate) {
			ua__handler_to_monitor(t, entry, arg, &uc->uc_sigmask);
		} else if (uc_pkru(uc, &pkru)) {
			ua__wrpkru(pkru);
			ua__handler_to_monitor(t, entry, arg, &uc->uc_sigmask);
		}
	}
	g[REG_RIP] = (greg_t)entry;
	g[REG_RSP] = (greg_t)t->mon_rsp;
	g[REG_EFL] &= ~(greg_t)UA_MONITOR_EFLAGS_CLEAR;
	g[REG_RDI] = (greg_t)t;
	g[REG_RSI] = (greg_t)arg;
	/* The entry stub keeps the monitor's FS base (trap.S). */
	t->tb.resume_monitor = 1;
}

static bool guest_fault_hook(int sig, siginfo_t *info, ucontext_t *uc)
{
	struct ua_task *t = ua__cur_task;
	const greg_t *g = uc->uc_mcontext.gregs;
	static UA_TLS siginfo_t fault_info;

	if (!t || !ua__guest_context(uc))
		return false;
	if (ua__in_exit_code((uintptr_t)g[REG_RIP])) {
		/* The return itself faulted: regs hold the state it was
		 * returning to; the FP state is loaded by now. */
		ua__xstate_capture(t->xsave_ctx, uc);
		t->full_ctx = true;
		t->fpu_restore = NULL;
	} else {
		ua__capture_guest(t, uc);
	}
	fault_info = *info;
	fault_info.si_signo = sig;
	t->fault_trapno = (uint64_t)g[REG_TRAPNO];
	t->fault_err = (uint64_t)g[REG_ERR];
	ua__redirect_to_monitor(t, uc, ua__guest_fault_entry, &fault_info);
	return true;
}

/*
 * The space is one PROT_NONE reservation, so the host reports SEGV_ACCERR
 * for every guest page nothing is mapped at.  The kernel reports
 * SEGV_MAPERR there, and for its stack guard gap, which the task's guard
 * page stands for (it stays in the space's bookkeeping as a PROT_NONE
 * mapping so that nothing else is ever placed there: map_stack()).
 */
static void fix_segv_code(const struct ua_task *t, siginfo_t *info)
{
	uintptr_t a = (uintptr_t)info->si_addr;
	uintptr_t stack = (uintptr_t)t->stack;

	if (info->si_signo != SIGSEGV || info->si_code != SEGV_ACCERR ||
	    a < t->sp->base || a - t->sp->base >= t->sp->size + t->sp->guard)
		return;
	if ((a < stack && stack - a <= ua__pagesz) || a >= t->sp->limit ||
	    ua__space_prot_at(t->sp, a) == -1)
		info->si_code = SEGV_MAPERR;
}

/*
 * Entered on the monitor stack from ua__guest_irq_entry (an interrupt took
 * the thread out of guest code or out of the exit code) or from the exit
 * code that found an interrupt pending: run the exit work again.
 */
_Noreturn void ua__guest_irq(struct ua_task *t)
{
	ua__guest_task = NULL;
	ua__tsc_entry(t);
	ua__pkru_entry(t);
	ua_protect_lock(t->sp);
	if (t->tb.mode == UA_TRAP_PATCH)
		ua__patch_irq(t);
	ua__return_to_guest(t);
}

/* Entered from ua__guest_fault_entry on the monitor stack. */
_Noreturn void ua__guest_fault(struct ua_task *t, const siginfo_t *fault)
{
	siginfo_t info = *fault;

	ua__guest_task = NULL;
	ua__tsc_entry(t);
	ua_protect_lock(t->sp);
	ua__rewrite_fault(t, &info);
	fix_segv_code(t, &info);
	if (ua__task_hooks && ua__task_hooks->guest_fault &&
	    ua__task_hooks->guest_fault(t, info.si_signo, &info))
		ua__return_to_guest(t);
	/* No signal layer, or it cannot deliver: the default action. */
	ua__task_exit(t, info.si_signo);
}

extern bool (*ua__guest_fault_hook)(int sig, siginfo_t *info,
				    ucontext_t *uc);
extern bool (*ua__guest_context_hook)(const ucontext_t *uc);

bool ua__have_sahf;
bool ua__pkru_in_xstate;

/* CPUID 7 ECX bit 4 (OSPKE: CR4.PKE set) and XCR0 bit 9 (PKRU). */
bool ua__cpu_pkru_in_xstate(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;

	if (__get_cpuid_max(0, NULL) < 7)
		return false;
	__cpuid_count(7, 0, a, b, c, d);
	if (!(c & (1u << 4)))
		return false;
	__cpuid(1, a, b, c, d);
	if (!(c & (1u << 27))) /* OSXSAVE */
		return false;
	return ua__xgetbv0() & (1u << 9);
#else
	return false;
#endif
}

/*
 * Does a host syscall hand NT back?  Hosts differ: on some x86-64 hosts
 * (seen on a 6.18 kernel in an AMD virtual machine) every return from a
 * syscall clears it, on others it survives.  A guest's syscall returns
 * the way the host's own do, so ask the host once: NT set, getppid, NT
 * read back.
 */
uint64_t ua__exit_eflags_drop;

static uint64_t host_drops_nt(void)
{
#if defined(__x86_64__)
	unsigned long after, nt = 0x4000;

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
	return after & 0x4000 ? 0 : 0x4000;
#else
	return 0;
#endif
}

/* CPUID 0x80000001 ECX bit 0, LAHF-SAHF (Intel SDM vol. 2, CPUID). */
static bool cpu_has_sahf(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000001)
		return false;
	__get_cpuid(0x80000001, &a, &b, &c, &d);
	return c & 1;
#else
	return false;
#endif
}

__attribute__((constructor)) static void task_init(void)
{
	ua__guest_fault_hook = guest_fault_hook;
	ua__guest_context_hook = ua__guest_context;
	ua__have_sahf = cpu_has_sahf();
	ua__exit_eflags_drop = host_drops_nt();
	ua__trap_init();
	ua__pkru_in_xstate = ua__cpu_pkru_in_xstate();
	if (ua__pkru_in_xstate) {
		unsigned a, b, c, d;

		__cpuid_count(0xd, 9, a, b, c, d);
		pkru_xsave_off = b;
	}
}
