/* SPDX-License-Identifier: MIT */
/*
 * long bench_floor_stub(long nr): the floor of a null syscall.  What any
 * guest -> monitor -> guest round trip must do and nothing more: save every
 * register and the exact RFLAGS into a per-thread register block, move to
 * another stack, call an empty C function there, and come back with every
 * register and RFLAGS as they were, by a plain `ret`.  It mirrors the
 * engine's entry and fast exit (src/arch/x86_64/entry.S: the thread-local
 * load of the block, the stores, the flags restored by sahf when only
 * status flags differ), without the task, the lock, the dispatch or the
 * exit-work checks, so the null syscall's distance from it is what those
 * cost.
 */
#define R15 0
#define R14 8
#define R13 16
#define R12 24
#define RBP 32
#define RBX 40
#define R11 48
#define R10 56
#define R9 64
#define R8 72
#define RAX 80
#define RCX 88
#define RDX 96
#define RSI 104
#define RDI 112
#define RIP 120
#define EFLAGS 128
#define RSP 136
#define STACK 144	/* the other stack's top (floor.c sets it) */

	.text
	.globl	bench_floor_stub
	.type	bench_floor_stub, @function
	.p2align 4
bench_floor_stub:
	.cfi_startproc
	pushfq
	.cfi_adjust_cfa_offset 8
	pushq	%rax
	.cfi_adjust_cfa_offset 8
	movq	bench_floor_regs@gottpoff(%rip), %rax
	addq	%fs:0, %rax
	movq	%r15, R15(%rax)
	movq	%r14, R14(%rax)
	movq	%r13, R13(%rax)
	movq	%r12, R12(%rax)
	movq	%rbp, RBP(%rax)
	movq	%rbx, RBX(%rax)
	movq	%r11, R11(%rax)
	movq	%r10, R10(%rax)
	movq	%r9, R9(%rax)
	movq	%r8, R8(%rax)
	movq	%rcx, RCX(%rax)
	movq	%rdx, RDX(%rax)
	movq	%rsi, RSI(%rax)
	movq	%rdi, RDI(%rax)
	popq	%rcx
	.cfi_adjust_cfa_offset -8
	movq	%rcx, RAX(%rax)
	popq	%rcx
	.cfi_adjust_cfa_offset -8
	movq	%rcx, EFLAGS(%rax)
	movq	(%rsp), %rdx
	movq	%rdx, RIP(%rax)
	leaq	8(%rsp), %rsi
	movq	%rsi, RSP(%rax)
	movq	STACK(%rax), %rsp
	.cfi_undefined rip
	movq	%rax, %rbx
	cld
	movq	%rax, %rdi
	call	bench_floor_body
	movq	%rax, RAX(%rbx)
	movq	%rbx, %rdi
	movq	EFLAGS(%rdi), %rax
	movq	%rax, %rcx
	andq	$~0x8d5, %rcx
	cmpq	$0x202, %rcx
	jne	.Lpopf
	cmpb	$0, bench_floor_sahf(%rip)	/* CPUID LAHF-SAHF (floors.c) */
	je	.Lpopf
	movl	%eax, %ecx
	shrl	$11, %ecx
	andl	$1, %ecx
	addb	$0x7f, %cl			/* OF = the saved OF */
	movb	%al, %ah
	sahf					/* SF ZF AF PF CF */
.Lflags_done:
	movq	R15(%rdi), %r15
	movq	R14(%rdi), %r14
	movq	R13(%rdi), %r13
	movq	R12(%rdi), %r12
	movq	RBP(%rdi), %rbp
	movq	RBX(%rdi), %rbx
	movq	R11(%rdi), %r11
	movq	R10(%rdi), %r10
	movq	R9(%rdi), %r9
	movq	R8(%rdi), %r8
	movq	RAX(%rdi), %rax
	movq	RCX(%rdi), %rcx
	movq	RDX(%rdi), %rdx
	movq	RSI(%rdi), %rsi
	movq	RSP(%rdi), %rsp
	leaq	-8(%rsp), %rsp
	movq	RDI(%rdi), %rdi
	ret
.Lpopf:
	pushq	%rax
	popfq
	jmp	.Lflags_done
	.cfi_endproc
	.size	bench_floor_stub, . - bench_floor_stub

	.section .note.GNU-stack, "", @progbits
