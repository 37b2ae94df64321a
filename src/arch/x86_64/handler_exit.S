/* SPDX-License-Identifier: MIT */
/*
 * _Noreturn void ua__handler_to_monitor(struct ua_task *t,
 *                                       void (*entry)(void),
 *                                       const void *arg,
 *                                       const sigset_t *mask)
 *
 * Leaves a host signal handler that caught a guest (a fault, an
 * interrupt) for the task's monitor stack, without returning through the
 * host's rt_sigreturn: the guest's registers and XSAVE image are already
 * in the task, so the only state of the handler's frame still owed to
 * the thread is its signal mask, which one rt_sigprocmask puts back.
 * entry(t, arg) then runs exactly as if rt_sigreturn had resumed it.
 *
 * The mask (the kernel's sigset_t is 8 bytes) is loaded before the stack
 * switch: once RSP leaves the alternate stack, a signal the handler's
 * sa_mask lets through would build its frame over the ucontext it lies
 * in.  On the monitor stack it is kept in the red zone, which no signal
 * frame touches.
 */
#define MON_RSP 168
#define SIG_SETMASK 2
#define NR_rt_sigprocmask 14

	.text
	.globl	ua__handler_to_monitor
	.hidden	ua__handler_to_monitor
	.type	ua__handler_to_monitor, @function
	.p2align 4
ua__handler_to_monitor:
	.cfi_startproc
	.cfi_undefined rip
	movq	(%rcx), %r15
	movq	MON_RSP(%rdi), %rsp
	movq	%r15, -16(%rsp)
	movq	%rdi, %r12
	movq	%rsi, %r13
	movq	%rdx, %r14
	movl	$SIG_SETMASK, %edi
	leaq	-16(%rsp), %rsi
	xorl	%edx, %edx
	movl	$8, %r10d
	movl	$NR_rt_sigprocmask, %eax
	syscall
	movq	%r12, %rdi
	movq	%r14, %rsi
	jmp	*%r13
	.cfi_endproc
	.size	ua__handler_to_monitor, . - ua__handler_to_monitor

	.section .note.GNU-stack, "", @progbits
