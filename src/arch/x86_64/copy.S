/* SPDX-License-Identifier: MIT */
/*
 * Fault-recoverable block copy and clear for x86-64.
 *
 * Blocks of 64 bytes move through four SSE registers (caller-saved, so
 * free to use in a function); the tail, and any fault, go through
 * rep movsb / rep stosb, which update RCX as each byte completes and fault
 * with the architectural state of the completed iterations.  A fault
 * anywhere in a 64-byte block resumes the byte loop at the start of that
 * block: it rewrites the bytes the block already stored (with the same
 * values) and stops at the exact faulting byte, so RCX is the exact number
 * of bytes not done (the kernel's copy_user_64.S also finishes a faulting
 * bulk loop in its byte tail).  An empty tail skips the string
 * instruction: rep movsb with RCX 0 still costs its start-up (about 20
 * cycles), and a signal frame's copies (the 576-byte FP image, the 128-byte
 * siginfo) are whole blocks.
 */
	.text

#define EXTABLE(from, to)		\
	.pushsection ua_extable, "a";	\
	.balign 4;			\
	.long (from) - .;		\
	.long (to) - .;			\
	.long 1;			\
	.popsection

/*
 * size_t ua__raw_copy(void *dst, const void *src, size_t n)
 * ua__raw_copy_local is the library's own name for it (src/internal.h):
 * hidden, so calls from inside bind directly, with no PLT entry, as the
 * rewrite fast path needs (tools/check-fast-path).
 */
	.globl	ua__raw_copy
	.type	ua__raw_copy, @function
	.globl	ua__raw_copy_local
	.hidden	ua__raw_copy_local
	.type	ua__raw_copy_local, @function
	.p2align 4
ua__raw_copy:
ua__raw_copy_local:
	.cfi_startproc
	movq	%rdx, %rcx
	cmpq	$64, %rcx
	jb	.Lcopy_bytes
	.p2align 4
.Lcopy_block:
10:	movdqu	0(%rsi), %xmm0
11:	movdqu	16(%rsi), %xmm1
12:	movdqu	32(%rsi), %xmm2
13:	movdqu	48(%rsi), %xmm3
20:	movdqu	%xmm0, 0(%rdi)
21:	movdqu	%xmm1, 16(%rdi)
22:	movdqu	%xmm2, 32(%rdi)
23:	movdqu	%xmm3, 48(%rdi)
	addq	$64, %rsi
	addq	$64, %rdi
	subq	$64, %rcx
	cmpq	$64, %rcx
	jae	.Lcopy_block
.Lcopy_bytes:
	testq	%rcx, %rcx
	jz	31f
30:	rep movsb
31:	movq	%rcx, %rax
	ret
	EXTABLE(10b, .Lcopy_bytes)
	EXTABLE(11b, .Lcopy_bytes)
	EXTABLE(12b, .Lcopy_bytes)
	EXTABLE(13b, .Lcopy_bytes)
	EXTABLE(20b, .Lcopy_bytes)
	EXTABLE(21b, .Lcopy_bytes)
	EXTABLE(22b, .Lcopy_bytes)
	EXTABLE(23b, .Lcopy_bytes)
	EXTABLE(30b, 31b)
	.cfi_endproc
	.size	ua__raw_copy, . - ua__raw_copy
	.size	ua__raw_copy_local, . - ua__raw_copy_local

/* size_t ua__raw_clear(void *dst, size_t n) */
	.globl	ua__raw_clear
	.hidden	ua__raw_clear
	.type	ua__raw_clear, @function
	.p2align 4
ua__raw_clear:
	.cfi_startproc
	movq	%rsi, %rcx
	xorl	%eax, %eax
	cmpq	$64, %rcx
	jb	.Lclear_bytes
	pxor	%xmm0, %xmm0
	.p2align 4
.Lclear_block:
40:	movdqu	%xmm0, 0(%rdi)
41:	movdqu	%xmm0, 16(%rdi)
42:	movdqu	%xmm0, 32(%rdi)
43:	movdqu	%xmm0, 48(%rdi)
	addq	$64, %rdi
	subq	$64, %rcx
	cmpq	$64, %rcx
	jae	.Lclear_block
.Lclear_bytes:
	testq	%rcx, %rcx
	jz	51f
50:	rep stosb
51:	movq	%rcx, %rax
	ret
	EXTABLE(40b, .Lclear_bytes)
	EXTABLE(41b, .Lclear_bytes)
	EXTABLE(42b, .Lclear_bytes)
	EXTABLE(43b, .Lclear_bytes)
	EXTABLE(50b, 51b)
	.cfi_endproc
	.size	ua__raw_clear, . - ua__raw_clear

	.section .note.GNU-stack, "", @progbits
