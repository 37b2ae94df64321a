/* SPDX-License-Identifier: MIT */
/*
 * Trapped `syscall` instructions (Syscall User Dispatch) and the FS-base
 * switch between a guest that owns its thread pointer and the monitor.
 *
 * While a task with trapped syscalls runs, its struct ua_trap_block
 * (trap_sud.c) holds the monitor's FS base, the guest's, and the
 * dispatch selector.  Every signal handler of the library enters through
 * SIGENTRY below, which finds that block from the alternate signal stack
 * the kernel switched to (altstack.c: the guest owns both segment bases,
 * so neither may lead there), notes the interrupted FS base, and puts
 * the monitor's back before any C code runs (errno, the stack protector
 * and every __thread variable are read through %fs), then puts the
 * interrupted context's back unless the handler redirected it into the
 * monitor.  The handler ends with its own rt_sigreturn from the
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
#define TB_MODE 26
#define TRAP_REWRITE 2		/* enum ua_trap, <uaccess/task.h> */
#define TB_SELF 48
#define TB_ENTRY_FS 56
#define TB_ME 64
/* struct ua_task's trap block (task_internal.h UA_TASK_TB). */
#define TASK_TB 208
#define ASTACK_SLOT (128 << 10)
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
#define NR_rt_sigreturn 15
#define NR_arch_prctl 158

	.section ua_sud_text, "ax", @progbits

/*
 * uint64_t ua__fs_get(void), void ua__fs_set(uint64_t fs, struct
 * ua_thread *self): FSGSBASE instructions when the kernel enables them
 * (AT_HWCAP2 bit 1), else arch_prctl.  Clobber rax rcx rdx rsi rdi r11
 * only; no %fs access, no C.  ua__fs_set is every FS-base write of the
 * library: it counts the write in self's insn stats, if self is not NULL
 * (one add to memory, which no signal on this thread can split).
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
	cmpb	$0, ua__have_fsgsbase(%rip)
	je	1f
	wrfsbase %rdi
	testq	%rsi, %rsi
	jz	2f
	addq	$1, TH_WRFSBASE(%rsi)
2:	ret
1:	testq	%rsi, %rsi
	jz	3f
	addq	$1, TH_FS_SYSCALLS(%rsi)
3:	movq	%rdi, %rsi
	movl	$ARCH_SET_FS, %edi
	movl	$NR_arch_prctl, %eax
	syscall
	ret
	.cfi_endproc
	.size	ua__fs_set, . - ua__fs_set

/*
 * SIGENTRY name, func: a sigaction handler that runs func(sig, info, uc)
 * with the monitor's FS base and an allowing selector.  Until a task with
 * trapped syscalls has run (ua__fs_switching), it is a plain jump.
 *
 * The trap block: RSP inside the altstack reservation, rounded down to
 * its slot, whose first word is the block of the task the thread runs,
 * or NULL (altstack.c).  Anywhere else, the thread runs no task.
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
	/* 16-byte aligned for calls: interrupted FS, TB_RESUME, TB_ENTRY_FS. */
	subq	$32, %rsp
	.cfi_adjust_cfa_offset 32
	movq	%rdi, %r12
	movq	%rsi, %r13
	movq	%rdx, %r14
	xorl	%ebx, %ebx
	movq	%rsp, %rax
	subq	ua__astack_base(%rip), %rax
	cmpq	ua__astack_len(%rip), %rax
	jae	2f				/* not on a task's altstack */
	movq	%rsp, %rbx
	andq	$-ASTACK_SLOT, %rbx
	movq	(%rbx), %rbx
	testq	%rbx, %rbx
	jz	2f				/* not running a task */
	movzbl	TB_SEL(%rbx), %r15d
	movb	$SEL_ALLOW, TB_SEL(%rbx)
	/*
	 * TB_RESUME says whether this handler's func redirected the
	 * context into the monitor, TB_ENTRY_FS what FS base this entry
	 * interrupted.  A handler may interrupt another's wrapper (the
	 * interrupt signal during a SIGSYS): each level keeps the values
	 * it found and puts them back, so neither takes the other's.
	 */
	movzbl	TB_RESUME(%rbx), %eax
	movq	%rax, 8(%rsp)
	movb	$0, TB_RESUME(%rbx)
	movq	TB_ENTRY_FS(%rbx), %rax
	movq	%rax, 16(%rsp)
	call	ua__fs_get
	movq	%rax, (%rsp)
	movq	%rax, TB_ENTRY_FS(%rbx)
	cmpq	TB_MON_FS(%rbx), %rax
	je	2f
	movq	TB_MON_FS(%rbx), %rdi
	movq	TB_SELF(%rbx), %rsi
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
	movq	16(%rsp), %rax
	movq	%rax, TB_ENTRY_FS(%rbx)
	testl	%ecx, %ecx
	jz	3f
	/* Redirected into the monitor: monitor FS, selector allowing. */
	jmp	4f
3:	movq	(%rsp), %rdi
	cmpq	TB_MON_FS(%rbx), %rdi
	je	5f
	movq	TB_SELF(%rbx), %rsi
	call	ua__fs_set
5:	movb	%r15b, TB_SEL(%rbx)
4:	addq	$32, %rsp
	.cfi_adjust_cfa_offset -32
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
 * void ua__mon_fs_restore(struct ua_task *t): the monitor's FS base and
 * an allowing selector, for exit code that turns back into the monitor
 * after ua__ret_to_guest_trap already loaded the guest's (entry.S,
 * ua__irq_reexit).  Clobbers rax rcx rdx rsi rdi r11 only; no C.
 */
	.globl	ua__mon_fs_restore
	.hidden	ua__mon_fs_restore
	.type	ua__mon_fs_restore, @function
	.p2align 4
ua__mon_fs_restore:
	.cfi_startproc
	cmpq	$0, TASK_TB+TB_TASK(%rdi)
	je	1f				/* no switching for this task */
	leaq	TASK_TB(%rdi), %rax
	movb	$SEL_ALLOW, TB_SEL(%rax)
	movq	TB_MON_FS(%rax), %rdi
	movq	TB_SELF(%rax), %rsi
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
	movq	TB_SELF(%rbx), %rsi
	call	ua__fs_set
1:	movb	$SEL_BLOCK, TB_SEL(%rbx)
	movq	%r12, %rdi
	testl	%r13d, %r13d
	jz	ua__ret_to_guest_iret
	jmp	ua__ret_to_guest
	.cfi_endproc
	.size	ua__ret_to_guest_trap, . - ua__ret_to_guest_trap

	.section .text.hot.ua_trap, "ax", @progbits

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
 * `call *%rax` instead of `syscall`, slid down the page-0 nop sled, whose
 * tail found the trap block through GS, checked it and jumped here with
 * it in R11.  State: RAX the number, [RSP] the return address (the
 * instruction after the site), RFLAGS and every other register the
 * guest's, FS base the guest's, selector blocking.  RCX and R11 are
 * free: a `syscall` clobbers them.
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
	.globl	ua__patch_entry
	.hidden	ua__patch_entry
	.type	ua__patch_entry, @function
	.p2align 4
ua__rewrite_entry:
	.cfi_startproc
	.cfi_undefined rip
	popq	%rcx				/* the return address */
/*
 * A patched site (trap_patch.c): the guest jumped to the site's
 * trampoline, which ran the instruction the jump replaced, found the
 * block through GS and jumped here with it in R11 and the address after
 * the site's `syscall` in RCX.  Nothing was pushed: RSP is the guest's.
 * From here on the two entries are one.
 */
ua__patch_entry:
	movq	TB_TASK(%r11), %r11
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
	movq	%rsp, RSP(%r11)			/* the guest's RSP before the call */
	movq	MON_RSP(%r11), %rsp
	movq	%rcx, RIP(%r11)
	pushfq
	popq	EFLAGS(%r11)
	/* Monitor mode: selector allowing, then the monitor's FS base. */
	movb	$SEL_ALLOW, TASK_TB+TB_SEL(%r11)
	movq	%r11, %rbx
	/* The ABI's flags for monitor code, as ua__syscall (entry.S). */
	testl	$0x44500, EFLAGS(%rbx)		/* AC, NT, DF, TF */
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
	movb	$SEL_BLOCK, TASK_TB+TB_SEL(%rbx)
	movq	%rbx, %rdi
	/*
	 * A rewritten site's `call` left its return address on the return
	 * stack predictor, so a `ret` back is predicted; a patched site
	 * jumped, and returns by a jump (entry.S).
	 */
	cmpb	$TRAP_REWRITE, TASK_TB+TB_MODE(%rbx)
	je	ua__ret_to_guest
	jmp	ua__ret_to_guest_gs
	/* The guest's FS base as it is: it may have written its own. */
3:	cmpb	$0, ua__have_fsgsbase(%rip)
	je	4f
	rdfsbase %rax
	movq	%rax, TASK_TB+TB_GUEST_FS(%rbx)
4:	movq	TASK_TB+TB_MON_FS(%rbx), %rdi
	cmpq	TASK_TB+TB_GUEST_FS(%rbx), %rdi
	je	2f
	movq	TASK_TB+TB_SELF(%rbx), %rsi
	call	ua__fs_set
2:	movq	%rbx, %rdi
	call	ua__rewrite_syscall
	ud2
	.cfi_endproc
	.size	ua__rewrite_entry, . - ua__rewrite_entry
	.size	ua__patch_entry, . - ua__patch_entry

	.section .note.GNU-stack, "", @progbits
