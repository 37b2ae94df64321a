// SPDX-License-Identifier: MIT
/*
 * Asynchronous delivery: the reserved interrupt signal.
 *
 * A signal that becomes deliverable to a task running on another thread
 * is the kernel's "signal to a running task": the kernel kicks the CPU
 * with an IPI and delivers on the way back to user mode.  Here the kick
 * is one host signal, reserved by the library (SIGRTMAX - 3 unless
 * UA_INTERRUPT_SIGNAL or ua_set_interrupt_signal() picks another, never
 * one the program already handles or ignores), sent to the task's thread
 * with tgkill().  Its handler decides by the interrupted context, like
 * the kernel's user_mode(regs):
 *
 * - guest code: take the whole interrupted state (registers and the XSAVE
 *   image of the host's frame) into the task and go through the exit work
 *   on the monitor stack, which delivers at the interrupted instruction
 *   with a full-context frame;
 * - the exit code after its last C code (entry.S, ua__exit_*_begin/end):
 *   the task's regs already hold the whole guest state; abandon the exit
 *   and run the exit work again, so a signal queued after the exit-work
 *   check is not left until the next syscall;
 * - any other monitor code, ua__syscall's entry on the guest's stack
 *   included: mark the task (irq_pending); the exit code checks the mark
 *   after its last C code, and a syscall's exit checks for pending
 *   signals anyway.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "task_internal.h"


static int irq_sig;           /* 0: none (async delivery at syscalls only) */
static int irq_requested = -1; /* ua_set_interrupt_signal(); -1: default */
static pthread_once_t irq_once = PTHREAD_ONCE_INIT;
static bool irq_done;
static int irq_error;
static pid_t irq_pid;

/*
 * The exit code was interrupted: its task's regs are the guest state, and
 * the FP state is the pending image if the exit code had not loaded it
 * yet, the live one (in the host's frame) otherwise.
 */
static void capture_exit(struct ua_task *t, const ucontext_t *uc)
{
	if (t->fpu_restore) {
		/* The init image is only the legacy area and the header. */
		if (t->fpu_restore == ua__xstate_init_image)
			ua__xstate_init_to(t->xsave_ctx);
		else if (t->fpu_restore != t->xsave_ctx)
			memcpy(t->xsave_ctx, t->fpu_restore, ua__xstate_size);
		t->fpu_restore = NULL;
	} else {
		ua__xstate_capture(t->xsave_ctx, uc);
	}
	t->full_ctx = true;
}

/*
 * Where an interrupt found the thread, as the kernel's user_mode(regs)
 * decides: the exit code after its last C code, guest code, or the
 * monitor's code (anything else).
 */
int ua__irq_at(const struct ua_task *t, const ucontext_t *uc)
{
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];

	if (ua_self.guest_space == t->sp && ua__in_exit_code(pc))
		return UA_IRQ_EXIT;
	/*
	 * ua__syscall's entry, still on the guest's stack, is the monitor's
	 * code: the syscall's exit delivers, as it does after any syscall.
	 */
	if (pc >= (uintptr_t)ua__syscall_entry &&
	    pc < (uintptr_t)ua__syscall_on_monitor)
		return UA_IRQ_MONITOR;
	return ua__guest_context(uc) ? UA_IRQ_GUEST : UA_IRQ_MONITOR;
}

static __attribute__((noinline)) void irq_body(ucontext_t *uc)
{
	struct ua_task *t = ua__cur_task;

	if (!t)
		return;
	/* Before looking: a signal queued from now on sends a new kick. */
	__atomic_store_n(&t->kick_sent, 0, __ATOMIC_SEQ_CST);
	switch (ua__irq_at(t, uc)) {
	case UA_IRQ_EXIT:
		capture_exit(t, uc);
		ua__redirect_to_monitor(t, uc, ua__guest_irq_entry, NULL);
		return;
	case UA_IRQ_GUEST:
		ua__capture_guest(t, uc);
		ua__redirect_to_monitor(t, uc, ua__guest_irq_entry, NULL);
		return;
	default:
		t->irq_pending = 1;
		ua__intr_fixup(uc);
	}
}

/*
 * Marked between ua__intr_syscall's test of irq_pending and its syscall
 * (or backed up to the syscall by an SA_RESTART restart): the call
 * returns -EINTR instead of sleeping with the mark unseen.
 */
void ua__intr_fixup(ucontext_t *uc)
{
	extern const char ua__intr_begin[], ua__intr_end[], ua__intr_cancel[];
	greg_t *rip = &uc->uc_mcontext.gregs[REG_RIP];

	if ((uintptr_t)*rip >= (uintptr_t)ua__intr_begin &&
	    (uintptr_t)*rip < (uintptr_t)ua__intr_end)
		*rip = (greg_t)(uintptr_t)ua__intr_cancel;
}

/* A forwarded host signal found the thread running its target (hostsig.c). */
void ua__irq_interrupt(ucontext_t *uc)
{
	irq_body(uc);
}

/*
 * Monitor code never runs with the guest's AC (see fault.c): cleared
 * before anything that could make an unaligned access, below the red
 * zone of the interrupted code.
 */

/* Entered through ua__irq_entry (trap.S): the monitor's FS base first. */
__attribute__((no_sanitize_address)) UA_HIDDEN void
ua__irq_handler(int sig, siginfo_t *info, void *uc)
{
	int saved;

	__asm__ volatile("leaq -128(%%rsp), %%rsp\n\t"
			 "pushfq\n\t"
			 "andl $~0x40000, (%%rsp)\n\t"
			 "popfq\n\t"
			 "leaq 128(%%rsp), %%rsp" ::: "cc", "memory");
	ua__count(&ua_self.insn.sig_irq);
	saved = errno;
	/* The same entry serves the host signals forwarded to a task. */
	if (sig != __atomic_load_n(&irq_sig, __ATOMIC_RELAXED))
		ua__host_signal(sig, info, uc);
	/* Only the library's own kicks: tgkill() from this process. */
	else if (info->si_code == SI_TKILL && info->si_pid == irq_pid)
		irq_body(uc);
	/* A question from another monitor (xreq.c): answered as a kick. */
	else if (info->si_code == SI_QUEUE && ua__xreq_post(info))
		irq_body(uc);
	/* The parent-death signal (ppid.c), or a kill(): ask the host. */
	else if (info->si_code == SI_USER)
		ua__ppid_changed(info, uc);
	errno = saved;
}

static int pick_signal(void)
{
	const char *v = getenv("UA_INTERRUPT_SIGNAL");
	char *end;
	long n;

	if (irq_requested >= 0)
		return irq_requested;
	if (!v || !*v)
		return SIGRTMAX - 3;
	if (!strcmp(v, "none"))
		return 0;
	n = strtol(v, &end, 10);
	if (*end || n < SIGRTMIN || n > SIGRTMAX) {
		ua__write_str(2, "uaccess: UA_INTERRUPT_SIGNAL='");
		ua__write_str(2, v);
		ua__write_str(2, "' is not a real-time signal number usable "
				 "here, nor 'none'; asynchronous signals wait "
				 "for the task's next syscall\n");
		return 0;
	}
	return (int)n;
}

static void irq_install(void)
{
	struct sigaction sa, old;
	int sig = pick_signal();

	irq_pid = getpid();
	__atomic_store_n(&irq_done, true, __ATOMIC_RELEASE);
	if (!sig)
		return;
	if (sigaction(sig, NULL, &old)) {
		irq_error = -errno;
		return;
	}
	if (old.sa_handler != SIG_DFL) {
		/* Never taken from a program that uses it. */
		ua__write_str(2, "uaccess: the interrupt signal is in use by "
				 "the program; asynchronous signals wait for "
				 "the task's next syscall (set "
				 "UA_INTERRUPT_SIGNAL to a free one)\n");
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = ua__irq_entry;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL)) {
		irq_error = -errno;
		return;
	}
	__atomic_store_n(&irq_sig, sig, __ATOMIC_RELEASE);
}

int ua__irq_setup(void)
{
	pthread_once(&irq_once, irq_install);
	return irq_error;
}

int ua_set_interrupt_signal(int sig)
{
	if (sig && (sig < SIGRTMIN || sig > SIGRTMAX))
		return -EINVAL;
	/* Chosen once, by the first ua_task_run(). */
	if (__atomic_load_n(&irq_done, __ATOMIC_ACQUIRE))
		return -EBUSY;
	irq_requested = sig;
	return 0;
}

int ua_interrupt_signal(void)
{
	return __atomic_load_n(&irq_sig, __ATOMIC_ACQUIRE);
}

/* A forked monitor (fork.c): kicks are sent within the new process. */
void ua__irq_after_fork(void)
{
	irq_pid = getpid();
	ua__xreq_after_fork();
}

void ua__task_kick(struct ua_task *t)
{
	int sig = __atomic_load_n(&irq_sig, __ATOMIC_ACQUIRE);
	pid_t tid = __atomic_load_n(&t->host_tid, __ATOMIC_ACQUIRE);

	/* The task's own thread (a raise): no syscall to find that out. */
	if (!sig || !tid || ua__cur_task == t)
		return;
	if (__atomic_exchange_n(&t->kick_sent, 1, __ATOMIC_SEQ_CST))
		return;
	syscall(SYS_tgkill, irq_pid, tid, sig);
}
