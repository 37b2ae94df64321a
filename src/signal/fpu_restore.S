/* SPDX-License-Identifier: MIT */
/*
 * XRSTOR and FXRSTOR of a guest's FP image under an exception-table entry,
 * the user-space form of the kernel's xrstor_from_user_sigframe() and
 * fxrstor_from_user_sigframe() (arch/x86/kernel/fpu/internal.h, legacy.h):
 * what the CPU refuses (#GP: a reserved MXCSR bit, a bad XSAVE header, a
 * misaligned image; #PF: a page it cannot read) resumes at the fixup and
 * is a bad frame.  The instruction decides, so the checks cannot drift
 * from the hardware.
 *
 * On success the control words the restore produced are stored to *ctl
 * (FCW at 0, MXCSR at 4) and the x87 unit is reset with FNINIT: the image
 * may leave a full register stack or pending unmasked exceptions, which
 * the monitor's C code must never see.  The caller loads the control
 * words it wants back.  On a fault the x87 unit is reset too (a partial
 * restore may have loaded anything) and MXCSR is whatever the CPU left:
 * the caller puts its own back.
 */
	.text

#define EXTABLE(from, to)		\
	.pushsection ua_extable, "a";	\
	.balign 4;			\
	.long (from) - .;		\
	.long (to) - .;			\
	.long 1;			\
	.popsection

/* int ua__fpu_xrstor(const void *img, uint64_t rfbm, void *ctl): 0 or -1 */
	.globl	ua__fpu_xrstor
	.hidden	ua__fpu_xrstor
	.type	ua__fpu_xrstor, @function
	.p2align 4
ua__fpu_xrstor:
	.cfi_startproc
	movq	%rdx, %r8		/* XRSTOR takes RFBM in EDX:EAX */
	movl	%esi, %eax
	shrq	$32, %rsi
	movl	%esi, %edx
1:	xrstor64 (%rdi)
	fnstcw	(%r8)
	stmxcsr	4(%r8)
	fninit
	xorl	%eax, %eax
	ret
2:	fninit
	movl	$-1, %eax
	ret
	EXTABLE(1b, 2b)
	.cfi_endproc
	.size	ua__fpu_xrstor, . - ua__fpu_xrstor

/* int ua__fpu_fxrstor(const void *img, void *ctl): 0 or -1 */
	.globl	ua__fpu_fxrstor
	.hidden	ua__fpu_fxrstor
	.type	ua__fpu_fxrstor, @function
	.p2align 4
ua__fpu_fxrstor:
	.cfi_startproc
3:	fxrstor64 (%rdi)
	fnstcw	(%rsi)
	stmxcsr	4(%rsi)
	fninit
	xorl	%eax, %eax
	ret
4:	fninit
	movl	$-1, %eax
	ret
	EXTABLE(3b, 4b)
	.cfi_endproc
	.size	ua__fpu_fxrstor, . - ua__fpu_fxrstor

	.section .note.GNU-stack, "", @progbits
