/* SPDX-License-Identifier: MIT */
/*
 * Assembly helpers of the signal suites: the handler-entry trampoline
 * that records the state a handler starts with, syscall stubs that look
 * the same to a signal whether they enter the host kernel or the engine,
 * a landing pad for handlers that redirect the interrupted code, and a
 * way to call rt_sigreturn with RSP at an arbitrary frame.
 *
 * Every stub is entered by a call, pops its return address into %r9
 * (neither the host syscalls used here nor ua__syscall touch it) and
 * enters the kernel or the monitor with RSP where the caller left it
 * before the call.  So the interrupted RSP a signal frame records is the
 * caller's RSP, on the host and under the engine alike.
 */
#define UA_NR_rt_sigreturn 4
#define UA_NR_kill 5
#define UA_NR_tgkill 6
#define UA_NR_rt_sigqueueinfo 7

/* struct t_entry (tsig.h) */
#define E_RSP 0
#define E_RAX 8
#define E_FLAGS 16
#define E_MXCSR 24
#define E_FCW 28

/* struct t_regs (tsig.h): the pt_regs order */
#define R_R15 0
#define R_R14 8
#define R_R13 16
#define R_R12 24
#define R_RBP 32
#define R_RBX 40
#define R_R11 48
#define R_R10 56
#define R_R9 64
#define R_R8 72
#define R_RAX 80
#define R_RCX 88
#define R_RDX 96
#define R_RSI 104
#define R_RDI 112
#define R_RSP 120
#define R_FLAGS 128
#define R_MXCSR 136
#define R_FCW 140

/* t_redir_save: the RSP to go back to, then the FP control words. */
#define S_RSP 0
#define S_MXCSR 8
#define S_FCW 12

	.text

/*
 * Every handler of the suites is installed as t_tramp: it records RSP,
 * RAX, RFLAGS, MXCSR and the x87 control word exactly as the kernel or
 * the engine left them, then jumps to the C handler of the signal
 * (t_handlers[sig]) with rdi, rsi and rdx untouched.
 */
	.globl	t_tramp
	.type	t_tramp, @function
	.p2align 4
t_tramp:
	movq	%rax, t_entry+E_RAX(%rip)
	movq	%rsp, t_entry+E_RSP(%rip)
	pushfq
	popq	%rax
	movq	%rax, t_entry+E_FLAGS(%rip)
	stmxcsr	t_entry+E_MXCSR(%rip)
	fnstcw	t_entry+E_FCW(%rip)
	leaq	t_handlers(%rip), %rax
	movslq	%edi, %rdi
	jmp	*(%rax,%rdi,8)
	.size	t_tramp, . - t_tramp

/*
 * Put every XSAVE component but x87, SSE and PKRU in its init state.
 * The kernel's frame marks in XSTATE_BV each component in use (XINUSE)
 * when the signal comes, and glibc's string functions leave AVX-512 state
 * in use; at a syscall boundary that state is dead (the ABI: a call), and
 * the engine's frames mark only what is live.  Clearing it before the
 * syscall makes the two frames comparable bit for bit.  An XRSTOR of a
 * zero header initialises the components it is asked for; MXCSR, which
 * it also loads when AVX is asked for, is stored into the image first.
 * Preserves every register (the stubs keep arguments and the return
 * address in them).
 */
	.type	t_vec_init, @function
	.p2align 4
t_vec_init:
	cmpb	$0, t_have_xsave(%rip)
	je	1f
	pushq	%rax
	pushq	%rcx
	pushq	%rdx
	xorl	%ecx, %ecx
	xgetbv
	/* Not x87, SSE, PKRU; not the AMX tiles (XFD may forbid them). */
	andl	$~0x60203, %eax
	stmxcsr	t_init_img+24(%rip)
	xrstor64 t_init_img(%rip)
	popq	%rdx
	popq	%rcx
	popq	%rax
1:	ret
	.size	t_vec_init, . - t_vec_init

	.bss
	.p2align 6
t_init_img:
	.zero	1024
	.text

/* ---- host stubs: raw syscalls, -errno on error ---- */

/* long t_host_tgkill(long tgid, long tid, long sig) */
	.globl	t_host_tgkill
	.type	t_host_tgkill, @function
	.p2align 4
t_host_tgkill:
	popq	%r9
	call	t_vec_init
	movl	$234, %eax
	syscall
	pushq	%r9
	ret
	.size	t_host_tgkill, . - t_host_tgkill

/* long t_host_tgkill_df(long tgid, long tid, long sig): with DF set */
	.globl	t_host_tgkill_df
	.type	t_host_tgkill_df, @function
	.p2align 4
t_host_tgkill_df:
	popq	%r9
	call	t_vec_init
	movl	$234, %eax
	std
	syscall
	cld
	pushq	%r9
	ret
	.size	t_host_tgkill_df, . - t_host_tgkill_df

/* long t_host_sigqueue(long tgid, long tid, long sig, siginfo_t *info) */
	.globl	t_host_sigqueue
	.type	t_host_sigqueue, @function
	.p2align 4
t_host_sigqueue:
	popq	%r9
	call	t_vec_init
	movq	%rcx, %r10
	movl	$297, %eax			/* rt_tgsigqueueinfo */
	syscall
	pushq	%r9
	ret
	.size	t_host_sigqueue, . - t_host_sigqueue

/* long t_host_kill(long pid, long sig) */
	.globl	t_host_kill
	.type	t_host_kill, @function
	.p2align 4
t_host_kill:
	popq	%r9
	call	t_vec_init
	movl	$62, %eax
	syscall
	pushq	%r9
	ret
	.size	t_host_kill, . - t_host_kill

/* ---- engine stubs: the same calls through ua__syscall ---- */

	.globl	t_eng_tgkill
	.type	t_eng_tgkill, @function
	.p2align 4
t_eng_tgkill:
	popq	%r9
	call	t_vec_init
	movq	%rdx, %rcx
	movq	%rsi, %rdx
	movq	%rdi, %rsi
	movl	$UA_NR_tgkill, %edi
	call	ua__syscall@PLT
	pushq	%r9
	ret
	.size	t_eng_tgkill, . - t_eng_tgkill

	.globl	t_eng_tgkill_df
	.type	t_eng_tgkill_df, @function
	.p2align 4
t_eng_tgkill_df:
	popq	%r9
	call	t_vec_init
	movq	%rdx, %rcx
	movq	%rsi, %rdx
	movq	%rdi, %rsi
	movl	$UA_NR_tgkill, %edi
	std
	call	ua__syscall@PLT
	cld
	pushq	%r9
	ret
	.size	t_eng_tgkill_df, . - t_eng_tgkill_df

/* rt_sigqueueinfo(tid, sig, info): the engine's takes the task id
 * (the tgid argument, in %rdi, is dropped). */
	.globl	t_eng_sigqueue
	.type	t_eng_sigqueue, @function
	.p2align 4
t_eng_sigqueue:
	popq	%r9
	call	t_vec_init
	movl	$UA_NR_rt_sigqueueinfo, %edi
	call	ua__syscall@PLT
	pushq	%r9
	ret
	.size	t_eng_sigqueue, . - t_eng_sigqueue

	.globl	t_eng_kill
	.type	t_eng_kill, @function
	.p2align 4
t_eng_kill:
	popq	%r9
	call	t_vec_init
	movq	%rsi, %rdx
	movq	%rdi, %rsi
	movl	$UA_NR_kill, %edi
	call	ua__syscall@PLT
	pushq	%r9
	ret
	.size	t_eng_kill, . - t_eng_kill

/*
 * long t_call_aligned(long (*fn)(), long a0, long a1, long a2, long a3,
 *		       long below)
 *
 * Calls fn(a0, a1, a2, a3) with RSP at a 64-byte boundary minus @below
 * (a multiple of 16) just before the call, so that the interrupted RSP of
 * a signal raised by one of the stubs above is known modulo 64.
 */
	.globl	t_call_aligned
	.type	t_call_aligned, @function
	.p2align 4
t_call_aligned:
	pushq	%rbp
	movq	%rsp, %rbp
	subq	$256, %rsp
	andq	$-64, %rsp
	subq	%r9, %rsp
	movq	%rdi, %rax
	movq	%rsi, %rdi
	movq	%rdx, %rsi
	movq	%rcx, %rdx
	movq	%r8, %rcx
	call	*%rax
	leave
	ret
	.size	t_call_aligned, . - t_call_aligned

/*
 * long t_call_redirect(long (*fn)(), long a0, long a1, long a2, long a3)
 *
 * Calls fn(a0..a3) and returns 0 when it returns.  A handler may instead
 * send the interrupted code to t_landing, with any register values: the
 * landing records them in t_landed, puts back this function's RSP, its
 * callee-saved registers and the FP control words, and makes
 * t_call_redirect return 1.
 */
	.globl	t_call_redirect
	.type	t_call_redirect, @function
	.p2align 4
t_call_redirect:
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	subq	$8, %rsp
	movq	%rsp, t_redir_save+S_RSP(%rip)
	stmxcsr	t_redir_save+S_MXCSR(%rip)
	fnstcw	t_redir_save+S_FCW(%rip)
	movq	%rdi, %rax
	movq	%rsi, %rdi
	movq	%rdx, %rsi
	movq	%rcx, %rdx
	movq	%r8, %rcx
	call	*%rax
	xorl	%eax, %eax
.Lredir_out:
	addq	$8, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret

	.globl	t_landing
	.type	t_landing, @function
t_landing:
	movq	%r15, t_landed+R_R15(%rip)
	movq	%r14, t_landed+R_R14(%rip)
	movq	%r13, t_landed+R_R13(%rip)
	movq	%r12, t_landed+R_R12(%rip)
	movq	%rbp, t_landed+R_RBP(%rip)
	movq	%rbx, t_landed+R_RBX(%rip)
	movq	%r11, t_landed+R_R11(%rip)
	movq	%r10, t_landed+R_R10(%rip)
	movq	%r9, t_landed+R_R9(%rip)
	movq	%r8, t_landed+R_R8(%rip)
	movq	%rax, t_landed+R_RAX(%rip)
	movq	%rcx, t_landed+R_RCX(%rip)
	movq	%rdx, t_landed+R_RDX(%rip)
	movq	%rsi, t_landed+R_RSI(%rip)
	movq	%rdi, t_landed+R_RDI(%rip)
	movq	%rsp, t_landed+R_RSP(%rip)
	/* Nothing has touched the stack yet: RSP may be any value. */
	movq	t_redir_save+S_RSP(%rip), %rsp
	pushfq
	popq	%rax
	movq	%rax, t_landed+R_FLAGS(%rip)
	stmxcsr	t_landed+R_MXCSR(%rip)
	fnstcw	t_landed+R_FCW(%rip)
	ldmxcsr	t_redir_save+S_MXCSR(%rip)
	fldcw	t_redir_save+S_FCW(%rip)
	pushq	$0x202
	popfq
	movl	$1, %eax
	jmp	.Lredir_out
	.size	t_call_redirect, . - t_call_redirect

/*
 * void t_sigreturn_at(void *rsp): rt_sigreturn with the frame's ucontext
 * at @rsp, as after a handler's `ret` popped pretcode.  The call pushes
 * its return address at rsp - 8, where pretcode would be.
 */
	.globl	t_sigreturn_at
	.type	t_sigreturn_at, @function
	.p2align 4
t_sigreturn_at:
	movq	%rdi, %rsp
	movl	$UA_NR_rt_sigreturn, %edi
	call	ua__syscall@PLT
	ud2
	.size	t_sigreturn_at, . - t_sigreturn_at

/* void t_set_fpctl(uint32_t mxcsr, uint16_t fcw) */
	.globl	t_set_fpctl
	.type	t_set_fpctl, @function
	.p2align 4
t_set_fpctl:
	movl	%edi, -4(%rsp)
	movw	%si, -8(%rsp)
	ldmxcsr	-4(%rsp)
	fldcw	-8(%rsp)
	ret
	.size	t_set_fpctl, . - t_set_fpctl

/* uint32_t t_get_mxcsr(void), uint16_t t_get_fcw(void) */
	.globl	t_get_mxcsr
	.type	t_get_mxcsr, @function
	.p2align 4
t_get_mxcsr:
	stmxcsr	-4(%rsp)
	movl	-4(%rsp), %eax
	ret
	.size	t_get_mxcsr, . - t_get_mxcsr

	.globl	t_get_fcw
	.type	t_get_fcw, @function
	.p2align 4
t_get_fcw:
	fnstcw	-4(%rsp)
	movzwl	-4(%rsp), %eax
	ret
	.size	t_get_fcw, . - t_get_fcw

	.section .note.GNU-stack, "", @progbits
