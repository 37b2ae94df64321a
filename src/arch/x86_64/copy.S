/* SPDX-License-Identifier: MIT */
/*
 * Fault-recoverable block copy and clear for x86-64.
 *
 * Blocks of 64 bytes move through four SSE registers (caller-saved, so
 * free to use in a function; the clear below uses wider stores where it
 * can); the tail, and any fault, go through
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
	.section .text.hot.ua_copy, "ax", @progbits

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

/*
 * size_t ua__raw_clear(void *dst, size_t n)
 *
 * The widest stores the CPU and the OS allow (ua__clear_vec, chosen once
 * in cpu.c from CPUID and XCR0): 64-byte blocks as four 16-byte SSE
 * stores, two 32-byte AVX stores or one 64-byte AVX-512 store, and the
 * wide forms also in four-store strides while they fit.  Only register 0
 * is used, so an AVX or AVX-512 pass dirties nothing but its upper half,
 * and VZEROUPPER on every way out of a wide pass (the fault path
 * included) puts that back in its initial state: no AVX-SSE transition
 * penalty for the caller, and no upper state for a later XSAVE.  Every
 * store is in the exception table and a fault resumes the byte loop at
 * the start of its stride, as in ua__raw_copy.  No %fs, no call: the
 * rewrite fast path (src/linux/fast.c) runs it on the guest's FS base.
 */
	.hidden	ua__clear_vec
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
	cmpb	$1, ua__clear_vec(%rip)
	ja	.Lclear_avx512
	je	.Lclear_avx
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

	/* AVX: 128-byte strides of four 32-byte stores, then one 64. */
.Lclear_avx:
	vpxor	%xmm0, %xmm0, %xmm0
	cmpq	$128, %rcx
	jb	.Lclear_avx_64
	.p2align 4
.Lclear_avx_128:
60:	vmovdqu	%ymm0, 0(%rdi)
61:	vmovdqu	%ymm0, 32(%rdi)
62:	vmovdqu	%ymm0, 64(%rdi)
63:	vmovdqu	%ymm0, 96(%rdi)
	subq	$-128, %rdi
	addq	$-128, %rcx
	cmpq	$128, %rcx
	jae	.Lclear_avx_128
.Lclear_avx_64:
	cmpq	$64, %rcx
	jb	.Lclear_vec_done
64:	vmovdqu	%ymm0, 0(%rdi)
65:	vmovdqu	%ymm0, 32(%rdi)
	addq	$64, %rdi
	subq	$64, %rcx
.Lclear_vec_done:
	vzeroupper
	jmp	.Lclear_bytes

	/* AVX-512: 256-byte strides of four 64-byte stores, then 64s. */
.Lclear_avx512:
	vpxor	%xmm0, %xmm0, %xmm0
	cmpq	$256, %rcx
	jb	.Lclear_zmm_64
	.p2align 4
.Lclear_zmm_256:
70:	vmovdqu64 %zmm0, 0(%rdi)
71:	vmovdqu64 %zmm0, 64(%rdi)
72:	vmovdqu64 %zmm0, 128(%rdi)
73:	vmovdqu64 %zmm0, 192(%rdi)
	addq	$256, %rdi
	subq	$256, %rcx
	cmpq	$256, %rcx
	jae	.Lclear_zmm_256
.Lclear_zmm_64:
	cmpq	$64, %rcx
	jb	.Lclear_vec_done
74:	vmovdqu64 %zmm0, 0(%rdi)
	addq	$64, %rdi
	subq	$64, %rcx
	jmp	.Lclear_zmm_64

	/* A fault in a wide pass: its upper state back, then bytes. */
.Lclear_vec_fault:
	vzeroupper
	jmp	.Lclear_bytes
	EXTABLE(40b, .Lclear_bytes)
	EXTABLE(41b, .Lclear_bytes)
	EXTABLE(42b, .Lclear_bytes)
	EXTABLE(43b, .Lclear_bytes)
	EXTABLE(50b, 51b)
	EXTABLE(60b, .Lclear_vec_fault)
	EXTABLE(61b, .Lclear_vec_fault)
	EXTABLE(62b, .Lclear_vec_fault)
	EXTABLE(63b, .Lclear_vec_fault)
	EXTABLE(64b, .Lclear_vec_fault)
	EXTABLE(65b, .Lclear_vec_fault)
	EXTABLE(70b, .Lclear_vec_fault)
	EXTABLE(71b, .Lclear_vec_fault)
	EXTABLE(72b, .Lclear_vec_fault)
	EXTABLE(73b, .Lclear_vec_fault)
	EXTABLE(74b, .Lclear_vec_fault)
	.cfi_endproc
	.size	ua__raw_clear, . - ua__raw_clear

	.section .note.GNU-stack, "", @progbits
