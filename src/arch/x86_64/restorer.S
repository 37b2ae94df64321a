/* SPDX-License-Identifier: MIT */
/*
 * The rt_sigreturn restorer supplied when a guest gives none (glibc's
 * __restore_rt does `mov $15, %rax; syscall`).  A handler's `ret` lands
 * here with RSP at the frame's ucontext; the call below makes the saved
 * RSP of the syscall that same address, as the kernel sees it.
 */
#define UA_NR_rt_sigreturn 4

	.text
	.globl	ua__restore_rt
	.hidden	ua__restore_rt
	.type	ua__restore_rt, @function
	.p2align 4
ua__restore_rt:
	movl	$UA_NR_rt_sigreturn, %edi
	call	ua__syscall
	ud2
	.size	ua__restore_rt, . - ua__restore_rt

	.section .note.GNU-stack, "", @progbits
