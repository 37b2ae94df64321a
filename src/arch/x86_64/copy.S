/* SPDX-License-Identifier: MIT */
/*
 * Fault-recoverable block copy and clear for x86-64.
 *
 * The bulk moves 8 bytes per iteration (rep movsq / rep stosq); the tail
 * and any fault go through rep movsb / rep stosb, which update RCX as each
 * byte completes and fault with the architectural state of the completed
 * iterations.  A fault in the qword part resumes in the byte part at the
 * same position with RCX = bytes left, so the byte part runs into the
 * same fault and stops at the exact byte (the kernel's copy_user_64.S
 * does the same: its qword loop's fixup jumps to the byte tail).
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
	cmpq	$64, %rdx
	jb	2f
	shrq	$3, %rcx
	andl	$7, %edx
1:	rep movsq
	movl	%edx, %ecx
2:	rep movsb
3:	movq	%rcx, %rax
	ret
	/* qword fault: RCX qwords were not moved, plus the tail in EDX */
4:	leaq	(%rdx, %rcx, 8), %rcx
	jmp	2b
	EXTABLE(1b, 4b)
	EXTABLE(2b, 3b)
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
	cmpq	$64, %rsi
	jb	2f
	shrq	$3, %rcx
	andl	$7, %esi
1:	rep stosq
	movl	%esi, %ecx
2:	rep stosb
3:	movq	%rcx, %rax
	ret
4:	leaq	(%rsi, %rcx, 8), %rcx
	xorl	%eax, %eax
	jmp	2b
	EXTABLE(1b, 4b)
	EXTABLE(2b, 3b)
	.cfi_endproc
	.size	ua__raw_clear, . - ua__raw_clear

	.section .note.GNU-stack, "", @progbits
