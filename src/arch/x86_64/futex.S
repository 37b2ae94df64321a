/* SPDX-License-Identifier: MIT */
/*
 * The fault-recoverable compare-and-exchange behind the futex atomics
 * (src/core/futex.c), as the kernel's futex_atomic_cmpxchg_inatomic()
 * (arch/x86/include/asm/futex.h): one LOCK CMPXCHG with an
 * exception-table entry, whose fixup returns -EFAULT.
 */
	.text

#define EFAULT 14

/*
 * int ua__raw_cmpxchg32(uint32_t *uaddr, uint32_t old, uint32_t new,
 *			 uint32_t *seen)
 */
	.globl	ua__raw_cmpxchg32
	.hidden	ua__raw_cmpxchg32
	.type	ua__raw_cmpxchg32, @function
	.p2align 4
ua__raw_cmpxchg32:
	.cfi_startproc
	movl	%esi, %eax
1:	lock cmpxchgl %edx, (%rdi)
	movl	%eax, (%rcx)
	xorl	%eax, %eax
	ret
2:	movl	$-EFAULT, %eax
	ret
	.cfi_endproc
	.size	ua__raw_cmpxchg32, . - ua__raw_cmpxchg32

	.pushsection ua_extable, "a"
	.balign 4
	.long 1b - .
	.long 2b - .
	.long 1
	.popsection

	.section .note.GNU-stack, "", @progbits
