/* SPDX-License-Identifier: MIT */
/*
 * Fault-recoverable block copy and clear for x86-64.
 *
 * rep movsb / rep stosb update RCX as each byte completes, and a fault is
 * taken with the architectural state of the completed iterations, so when
 * the fixup resumes after the instruction RCX is the exact number of bytes
 * not done (the kernel's copy_user_64.S relies on the same property).
 */
	.text

#define EXTABLE(from, to)		\
	.pushsection ua_extable, "a";	\
	.balign 4;			\
	.long (from) - .;		\
	.long (to) - .;			\
	.long 1;			\
	.popsection

/* size_t ua__raw_copy(void *dst, const void *src, size_t n) */
	.globl	ua__raw_copy
	.type	ua__raw_copy, @function
	.p2align 4
ua__raw_copy:
	.cfi_startproc
	movq	%rdx, %rcx
1:	rep movsb
2:	movq	%rcx, %rax
	ret
	EXTABLE(1b, 2b)
	.cfi_endproc
	.size	ua__raw_copy, . - ua__raw_copy

/* size_t ua__raw_clear(void *dst, size_t n) */
	.globl	ua__raw_clear
	.type	ua__raw_clear, @function
	.p2align 4
ua__raw_clear:
	.cfi_startproc
	movq	%rsi, %rcx
	xorl	%eax, %eax
1:	rep stosb
2:	movq	%rcx, %rax
	ret
	EXTABLE(1b, 2b)
	.cfi_endproc
	.size	ua__raw_clear, . - ua__raw_clear

	.section .note.GNU-stack, "", @progbits
