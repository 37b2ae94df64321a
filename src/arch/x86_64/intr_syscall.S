/* SPDX-License-Identifier: MIT */
/*
 * long ua__intr_syscall(long nr, long a1, long a2, long a3, long a4,
 *                       long a5, long a6, const volatile uint8_t *flag)
 *
 * A host syscall made for the guest that may block (a read of a
 * terminal, a poll), made so that a signal for the guest cannot be lost
 * between the monitor's last look and the kernel's sleep: the kernel's
 * own sleeps test signal_pending() after queueing themselves, which user
 * space cannot do.  Instead the test of *flag (the task's irq_pending)
 * and the syscall instruction form a range that an interrupt landing in
 * it leaves for ua__intr_cancel (ua__intr_fixup(), irq.c), as musl's
 * cancellation points do (src/thread/x86_64/syscall_cp.s there).  A
 * signal during the sleep itself ends it with EINTR (no SA_RESTART) or,
 * for the SA_RESTART interrupt signal, finds RIP backed up to the
 * syscall instruction, inside the range: -EINTR either way, and the
 * linux layer turns it into the kernel's restart code.
 *
 * Returns the raw result: -errno on failure.
 */
	.section .text.hot.ua_intr, "ax", @progbits
	.globl	ua__intr_syscall
	.hidden	ua__intr_syscall
	.globl	ua__intr_begin
	.hidden	ua__intr_begin
	.globl	ua__intr_end
	.hidden	ua__intr_end
	.globl	ua__intr_cancel
	.hidden	ua__intr_cancel
	.type	ua__intr_syscall, @function
	.p2align 4
ua__intr_syscall:
	movq	16(%rsp), %r11
	movq	%rdi, %rax
	movq	%rsi, %rdi
	movq	%rdx, %rsi
	movq	%rcx, %rdx
	movq	%r8, %r10
	movq	%r9, %r8
	movq	8(%rsp), %r9
ua__intr_begin:
	cmpb	$0, (%r11)
	jne	ua__intr_cancel
	syscall
ua__intr_end:
	ret
ua__intr_cancel:
	movq	$-4, %rax		/* -EINTR */
	ret
	.size	ua__intr_syscall, . - ua__intr_syscall

	.section .note.GNU-stack, "", @progbits
