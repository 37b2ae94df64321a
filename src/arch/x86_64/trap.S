/* SPDX-License-Identifier: MIT */
/*
 * Trapped `syscall` instructions (Syscall User Dispatch) and the FS-base
 * switch between a guest that owns its thread pointer and the monitor.
 *
 * While a task with trapped syscalls runs, the thread's GS base points at
 * the task's struct ua_trap_block (trap_sud.c): the monitor's FS base, the
 * guest's, and the dispatch selector.  Every signal handler of the library
 * enters through SIGENTRY below, which finds that block through GS and
 * puts the monitor's FS base back before any C code runs (errno, the stack
 * protector and every __thread variable are read through %fs), then puts
 * the interrupted context's back unless the handler redirected it into
 * the monitor.  The handler ends with its own rt_sigreturn from the
 * section ua_sud_text, the range the dispatch filter always allows: that
 * sigreturn passes whatever the selector says.
 *
 * Facts: Documentation/admin-guide/syscall-user-dispatch.rst and
 * kernel/entry/syscall_user_dispatch.c (the SIGSYS carries the syscall
 * number in rax, RIP after the instruction, rcx and r11 as the CPU left
 * them); arch/x86/kernel/process_64.c (ARCH_SET_FS / ARCH_GET_GS).
 */
#define TB_MON_FS 0
#define TB_GUEST_FS 8
#define TB_TASK 16
#define TB_SEL 24
#define TB_RESUME 25
#define TB_SELF 48
/* struct ua_thread: insn.wrfsbase, insn.fs_syscalls (task_internal.h). */
#define TH_WRFSBASE 40
#define TH_FS_SYSCALLS 48

/* struct ua_task: its pt_regs first, then the monitor stack (entry.S). */
#define R15 0
#define R14 8
#define R13 16
#define R12 24
#define RBP 32
#define RBX 40
#define R10 56
#define R9 64
#define R8 72
#define RAX 80
#define RDX 96
#define RSI 104
#define RDI 112
#define RIP 128
#define EFLAGS 144
#define RSP 152
#define MON_RSP 168

#define SEL_ALLOW 0
#define SEL_BLOCK 1

#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003
#define ARCH_GET_GS 0x1004
#define NR_rt_sigreturn 15
#define NR_arch_prctl 158

	.section ua_sud_text, "ax", @progbits

/*
 * uint64_t ua__fs_get(void), void ua__fs_set(uint64_t), uint64_t
 * ua__gs_get(void): FSGSBASE instructions when the kernel enables them
 * (AT_HWCAP2 bit 1), else arch_prctl.  Clobber rax rcx rdx rsi rdi r11
 * only; no %fs access, no C.  ua__fs_set is every FS-base write of the
 * library, called only while the GS base is a trap block: it counts the
 * write in the thread's ua_thread, found through the block (one add to
 * memory, which no signal on this thread can split).
 */
	.p2align 4
	.type	ua__fs_get, @function
ua__fs_get:
	.cfi_startproc
	cmpb	$0, ua__have_fsgsbase(%rip)
	je	1f
	rdfsbase %rax
	ret
1:	pushq	$0
	.cfi_adjust_cfa_offset 8
	movl	$ARCH_GET_FS, %edi
	movq	%rsp, %rsi
	movl	$NR_arch_prctl, %eax
	syscall
	popq	%rax
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
	.size	ua__fs_get, . - ua__fs_get

	.p2align 4
	.type	ua__fs_set, @function
ua__fs_set:
	.cfi_startproc
	movq	%gs:TB_SELF, %rax
	cmpb	$0, ua__have_fsgsbase(%rip)
	je	1f
	wrfsbase %rdi
	testq	%rax, %rax
	jz	2f
	addq	$1, TH_WRFSBASE(%rax)
2:	ret
1:	testq	%rax, %rax
	jz	3f
	addq	$1, TH_FS_SYSCALLS(%rax)
3:	movq	%rdi, %rsi
	movl	$ARCH_SET_FS, %edi
	movl	$NR_arch_prctl, %eax
	syscall
	ret
	.cfi_endproc
	.size	ua__fs_set, . - ua__fs_set

	.p2align 4
	.type	ua__gs_get, @function
ua__gs_get:
	.cfi_startproc
	cmpb	$0, ua__have_fsgsbase(%rip)
	je	1f
	rdgsbase %rax
	ret
1:	pushq	$0
	.cfi_adjust_cfa_offset 8
	movl	$ARCH_GET_GS, %edi
	movq	%rsp, %rsi
	movl	$NR_arch_prctl, %eax
	syscall
	popq	%rax
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
	.size	ua__gs_get, . - ua__gs_get

/*
 * SIGENTRY name, func: a sigaction handler that runs func(sig, info, uc)
 * with the monitor's FS base and an allowing selector.  Until a task with
 * trapped syscalls has run (ua__fs_switching), it is a plain jump.
 */
.macro SIGENTRY name, func
	.globl	\name
	.hidden	\name
	.type	\name, @function
	.p2align 4
\name:
	.cfi_startproc
	cmpb	$0, ua__fs_switching(%rip)
	je	\func
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	pushq	%r12
	.cfi_adjust_cfa_offset 8
	pushq	%r13
	.cfi_adjust_cfa_offset 8
	pushq	%r14
	.cfi_adjust_cfa_offset 8
	pushq	%r15
	.cfi_adjust_cfa_offset 8
	subq	$16, %rsp			/* 16-byte aligned for calls */
	.cfi_adjust_cfa_offset 16
	movq	%rdi, %r12
	movq	%rsi, %r13
	movq	%rdx, %r14
	call	ua__gs_get
	movq	%rax, %rbx
	testq	%rbx, %rbx
	jz	2f				/* not running a task */
	movzbl	TB_SEL(%rbx), %r15d
	movb	$SEL_ALLOW, TB_SEL(%rbx)
	/*
	 * TB_RESUME says whether this handler's func redirected the
	 * context into the monitor.  A handler may interrupt another's
	 * wrapper after its func set the flag (the interrupt signal
	 * during a SIGSYS): each level keeps the flag it found and puts
	 * it back, so neither takes the other's.
	 */
	movzbl	TB_RESUME(%rbx), %eax
	movq	%rax, 8(%rsp)
	movb	$0, TB_RESUME(%rbx)
	call	ua__fs_get
	movq	%rax, (%rsp)
	cmpq	TB_MON_FS(%rbx), %rax
	je	2f
	movq	TB_MON_FS(%rbx), %rdi
	call	ua__fs_set
2:	movq	%r12, %rdi
	movq	%r13, %rsi
	movq	%r14, %rdx
	call	\func
	testq	%rbx, %rbx
	jz	4f
	movzbl	TB_RESUME(%rbx), %ecx
	movq	8(%rsp), %rax
	movb	%al, TB_RESUME(%rbx)		/* the interrupted level's */
	testl	%ecx, %ecx
	jz	3f
	/* Redirected into the monitor: monitor FS, selector allowing. */
	jmp	4f
3:	movq	(%rsp), %rdi
	cmpq	TB_MON_FS(%rbx), %rdi
	je	5f
	call	ua__fs_set
5:	movb	%r15b, TB_SEL(%rbx)
4:	addq	$16, %rsp
	.cfi_adjust_cfa_offset -16
	popq	%r15
	.cfi_adjust_cfa_offset -8
	popq	%r14
	.cfi_adjust_cfa_offset -8
	popq	%r13
	.cfi_adjust_cfa_offset -8
	popq	%r12
	.cfi_adjust_cfa_offset -8
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	/* What the restorer does, from inside the allowed range. */
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	movl	$NR_rt_sigreturn, %eax
	syscall
	ud2
	.cfi_endproc
	.size	\name, . - \name
.endm

	SIGENTRY ua__sigsys_entry, ua__sigsys_handler
	SIGENTRY ua__fault_entry, ua__fault_handler
	SIGENTRY ua__irq_entry, ua__irq_handler

/*
 * void ua__mon_fs_restore(void): the monitor's FS base and an allowing
 * selector, for exit code that turns back into the monitor after
 * ua__ret_to_guest_trap already loaded the guest's (entry.S,
 * ua__irq_reexit).  Clobbers rax rcx rdx rsi rdi r11 only; no C.
 */
	.globl	ua__mon_fs_restore
	.hidden	ua__mon_fs_restore
	.type	ua__mon_fs_restore, @function
	.p2align 4
ua__mon_fs_restore:
	.cfi_startproc
	cmpb	$0, ua__fs_switching(%rip)
	je	1f
	call	ua__gs_get
	testq	%rax, %rax
	jz	1f
	movb	$SEL_ALLOW, TB_SEL(%rax)
	movq	TB_MON_FS(%rax), %rdi
	jmp	ua__fs_set
1:	ret
	.cfi_endproc
	.size	ua__mon_fs_restore, . - ua__mon_fs_restore

/*
 * void ua__ret_to_guest_trap(struct ua_pt_regs *regs,
 *			      struct ua_trap_block *tb, bool store_ok)
 *
 * The last monitor steps before guest code: the guest's FS base, then the
 * selector to block, then ua__ret_to_guest (or its IRETQ form), which is
 * plain register restores: no C, no %fs, no syscall after this.
 */
	.globl	ua__ret_to_guest_trap
	.hidden	ua__ret_to_guest_trap
	.type	ua__ret_to_guest_trap, @function
	.p2align 4
ua__ret_to_guest_trap:
	.cfi_startproc
	movq	%rdi, %r12
	movq	%rsi, %rbx
	movl	%edx, %r13d
	movq	TB_GUEST_FS(%rbx), %rdi
	cmpq	TB_MON_FS(%rbx), %rdi
	je	1f
	call	ua__fs_set
1:	movb	$SEL_BLOCK, TB_SEL(%rbx)
	movq	%r12, %rdi
	testl	%r13d, %r13d
	jz	ua__ret_to_guest_iret
	jmp	ua__ret_to_guest
	.cfi_endproc
	.size	ua__ret_to_guest_trap, . - ua__ret_to_guest_trap

	.text

/*
 * The SIGSYS handler redirects a trapped syscall here, on the monitor
 * stack, with the task in %rdi and its regs saved.
 */
	.globl	ua__sud_entry
	.hidden	ua__sud_entry
	.type	ua__sud_entry, @function
	.p2align 4
ua__sud_entry:
	.cfi_startproc
	.cfi_undefined rip
	cld
	call	ua__trap_syscall
	ud2
	.cfi_endproc
	.size	ua__sud_entry, . - ua__sud_entry

/*
 * A rewritten syscall site (trap_rewrite.c): the guest executed
 * `call *%rax` instead of `syscall`, slid down the page-0 nop sled and
 * jumped here through the trap block (jmp *%gs:TB_RW_ENTRY).  State:
 * RAX the number, [RSP] the return address (the instruction after the
 * site), RFLAGS and every other register the guest's, FS base the
 * guest's, selector blocking.  RCX and R11 are free: a `syscall`
 * clobbers them.
 *
 * Until the move to the monitor stack, a host signal (the interrupt
 * signal) sees guest code: it may capture this context and run a handler
 * frame on top of it, then resume here with every register as it was.
 * So that is safe, nothing before the switch stores a value that differs
 * from the register it will still be in: every store is of an unchanged
 * guest register or of RSP already at its final value; RIP and RFLAGS
 * (which mov, push and pop do not change) are stored after the switch.
 */
	.globl	ua__rewrite_entry
	.hidden	ua__rewrite_entry
	.type	ua__rewrite_entry, @function
	.p2align 4
ua__rewrite_entry:
	.cfi_startproc
	.cfi_undefined rip
	movq	%gs:TB_TASK, %r11
	movq	%r15, R15(%r11)
	movq	%r14, R14(%r11)
	movq	%r13, R13(%r11)
	movq	%r12, R12(%r11)
	movq	%rbp, RBP(%r11)
	movq	%rbx, RBX(%r11)
	movq	%r10, R10(%r11)
	movq	%r9, R9(%r11)
	movq	%r8, R8(%r11)
	movq	%rax, RAX(%r11)
	movq	%rdx, RDX(%r11)
	movq	%rsi, RSI(%r11)
	movq	%rdi, RDI(%r11)
	popq	%rcx				/* the return address */
	movq	%rsp, RSP(%r11)			/* the guest's RSP before the call */
	movq	MON_RSP(%r11), %rsp
	movq	%rcx, RIP(%r11)
	pushfq
	popq	EFLAGS(%r11)
	/* Monitor mode: selector allowing, then the monitor's FS base. */
	movb	$SEL_ALLOW, %gs:TB_SEL
	cld
	movq	%r11, %rbx
	testl	$0x40100, EFLAGS(%rbx)		/* AC, TF */
	jz	1f
	pushq	$2
	popfq
	/*
	 * First the fast path, still on the guest's FS base (trap_fast.c:
	 * C that never reads %fs).  Handled: the regs hold the result;
	 * back to the guest through the exit code, which checks
	 * irq_pending first and otherwise restores every register.
	 */
1:	movq	%rbx, %rdi
	call	ua__fast_rewrite
	testl	%eax, %eax
	jz	3f
	movb	$SEL_BLOCK, %gs:TB_SEL
	movq	%rbx, %rdi
	jmp	ua__ret_to_guest
3:	movq	%gs:TB_MON_FS, %rdi
	cmpq	%gs:TB_GUEST_FS, %rdi
	je	2f
	call	ua__fs_set
2:	movq	%rbx, %rdi
	call	ua__rewrite_syscall
	ud2
	.cfi_endproc
	.size	ua__rewrite_entry, . - ua__rewrite_entry

	.section .note.GNU-stack, "", @progbits
