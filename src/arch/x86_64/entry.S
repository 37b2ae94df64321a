/* SPDX-License-Identifier: MIT */
/*
 * Guest <-> monitor transitions for x86-64 tasks.
 *
 * Offsets are struct ua_pt_regs (the kernel's pt_regs order) at the start
 * of struct ua_task, then mon_rsp and mon_saved; task.c asserts them.
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
#define ORIG_RAX 120
#define RIP 128
#define CS 136
#define EFLAGS 144
#define RSP 152
#define SS 160
#define MON_RSP 168
#define MON_SAVED 176
#define EXIT_RSP 184
#define FPU_RESTORE 192
#define IRQ_PENDING 200
/* struct ua_task's trap block and its exit_rip (task_internal.h). */
#define TASK_TB 208
#define TB_EXIT_RIP 72
/* XRSTOR's feature mask: never PKRU (monitor state), nor AMX tiles. */
#define XRSTOR_RFBM_LO 0xfff9fdff

/* Bytes below the guest RSP the exit path may use: the red zone + 8. */
#define EXIT_SCRATCH 136

#define EXTABLE(from, to)		\
	.pushsection ua_extable, "a";	\
	.balign 4;			\
	.long (from) - .;		\
	.long (to) - .;			\
	.long 1;			\
	.popsection

/* Every general register from the pt_regs at %rdi, but %rdi and %rsp. */
.macro RESTORE_GPRS_BUT_RDI_RSP
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
.endm

/*
 * RFLAGS back to the guest's, from the regs at %rdi, without popfq
 * (microcoded: about 28 cycles, the costliest instruction of an exit)
 * when only status flags differ from the monitor's own IF | bit 1: OF
 * by an add that overflows exactly when it was set, then SF ZF AF PF CF
 * from AH by sahf (which leaves OF alone).  Anything else (DF, AC, NT,
 * ID, ...) takes popfq; TF the caller sends to the IRETQ exit first.
 * The monitor's flags here are the ABI's (the entries cleared DF, AC, NT
 * and TF), so no other bit needs setting.  Clobbers RAX and RCX, which
 * the caller restores after.
 */
.macro RESTORE_EFLAGS
	movq	EFLAGS(%rdi), %rax
	movq	%rax, %rcx
	andq	$~0x8d5, %rcx
	cmpq	$0x202, %rcx
	jne	.Lpopf\@
	cmpb	$0, ua__have_sahf(%rip)		/* CPUID LAHF-SAHF (task.c) */
	je	.Lpopf\@
	movl	%eax, %ecx
	shrl	$11, %ecx
	andl	$1, %ecx
	addb	$0x7f, %cl			/* OF = the saved OF */
	movb	%al, %ah
	sahf					/* SF ZF AF PF CF */
	jmp	.Ldone\@
.Lpopf\@:
	pushq	%rax
	popfq
.Ldone\@:
.endm

/*
 * Load the task's pending XSAVE image, if any (task.h fpu_restore), and
 * clear it.  Last thing before the general registers: no monitor code may
 * use a vector register after it.  The image was checked when it was
 * read; should XRSTOR still refuse it, the exception table skips it.
 */
.macro RESTORE_FP_PENDING
	movq	FPU_RESTORE(%rdi), %rcx
	testq	%rcx, %rcx
	jz	.Lfp_done\@
	movl	$XRSTOR_RFBM_LO, %eax
	movl	$-1, %edx
	cmpb	$0, ua__xstate_xsave(%rip)
	je	.Lfx\@
.Lxrstor\@:
	xrstor64 (%rcx)
	jmp	.Lfp_clear\@
.Lfx\@:
	fxrstor64 (%rcx)
	/* Cleared once loaded: an interrupt before this takes the image. */
.Lfp_clear\@:
	movq	$0, FPU_RESTORE(%rdi)
.Lfp_done\@:
	EXTABLE(.Lxrstor\@, .Lfp_clear\@)
	EXTABLE(.Lfx\@, .Lfp_clear\@)
.endm

	.section .text.hot.ua_entry, "ax", @progbits

/*
 * long ua__syscall(long nr, long a1, long a2, long a3, long a4, long a5)
 *
 * Called by guest code on the guest stack.  As the callee we may use the
 * stack below the return address.  Saves every register into the current
 * task, moves to the monitor stack and never returns here: the exit path
 * resumes guest code at the saved RIP (the return address) with the saved
 * RSP (just above it), as a plain `ret` would.
 *
 * ua__guest_task is set only while the thread runs guest code of a task:
 * a call from anywhere else (monitor code, a syscall hook, a thread with
 * no task) returns -EPERM before it could overwrite a task's saved
 * registers or reuse a monitor stack that is in use.
 */
	.globl	ua__syscall
	.hidden	ua__syscall
	.type	ua__syscall, @function
	/* The public name (uaccess/task.h): the same entry. */
	.globl	ua_syscall
	.type	ua_syscall, @function
	.set	ua_syscall, ua__syscall
	.p2align 4
ua__syscall:
	.cfi_startproc
	pushfq					/* before any test: exact flags */
	.cfi_adjust_cfa_offset 8
	pushq	%rax
	.cfi_adjust_cfa_offset 8
	movq	ua__guest_task@gottpoff(%rip), %rax
	movq	%fs:(%rax), %rax
	testq	%rax, %rax
	jz	.Lnot_guest
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
	movq	%rdi, ORIG_RAX(%rax)
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
	movq	MON_RSP(%rax), %rsp
	/*
	 * Up to here the code runs on the guest's stack, with the guest's
	 * mode, so an interrupt would see guest code; but it has stored into
	 * the task values that are in no register any more (RAX, RFLAGS,
	 * RIP, RSP and ORIG_RAX), which a signal frame built on this context
	 * and its rt_sigreturn would overwrite, and the call would then run
	 * with a wrong number or return to a wrong place.  irq.c leaves an
	 * interrupt in [ua__syscall, ua__syscall_on_monitor) for the exit
	 * code (irq_pending), as it does on the monitor stack.
	 */
	.globl	ua__syscall_on_monitor
	.hidden	ua__syscall_on_monitor
ua__syscall_on_monitor:
	/*
	 * The caller's frame is on another stack now; its registers are in
	 * the task.  Unwinders (backtrace(), gdb, sanitizers) stop here
	 * rather than read the monitor stack as if it were the caller's.
	 */
	.cfi_undefined rip
	movq	%rax, %rdi
	/*
	 * The monitor runs with the ABI's flags whatever the guest had: DF
	 * clear, and AC clear, or every unaligned access of monitor code
	 * (memcpy, a hook) would raise SIGBUS; NT and TF clear too
	 * (UA_MONITOR_EFLAGS_CLEAR).  That costs a popfq, so only when one
	 * is set.  DF with them: a guest seldom enters with it set, and a
	 * cld on every entry would cost more than that popfq now and then.
	 * (A caller that sets TF steps the instructions above.)
	 */
	testl	$0x44500, %ecx			/* AC, NT, DF, TF */
	jnz	.Lclear_ac
.Ldispatch:
	call	ua__syscall_dispatch
	/*
	 * From here to the guest, an interrupt (the reserved signal) that
	 * finds the thread in this code abandons it and runs the exit work
	 * again (irq.c); one that came during the C code before left
	 * irq_pending set, checked first.  The task's regs hold the whole
	 * guest state all along.
	 */
	.globl	ua__exit_fast_begin
	.hidden	ua__exit_fast_begin
ua__exit_fast_begin:
	cmpb	$0, IRQ_PENDING(%rax)
	jne	.Lreexit
	/*
	 * Fast return: the syscall left RIP, RSP and RFLAGS as they were, so
	 * the return address is still in place just below the saved RSP and
	 * a plain `ret` resumes the caller (and matches the return-stack
	 * predictor, which the full path's jump cannot).  The full path
	 * (ua__ret_to_guest) never comes back here.
	 */
	movq	%rax, %rdi
	/* TF: the IRETQ exit, or popfq would step the rest of this code. */
	testl	$0x100, EFLAGS(%rdi)
	jnz	ua__ret_to_guest_iret
	RESTORE_EFLAGS
	RESTORE_GPRS_BUT_RDI_RSP
	/*
	 * Two steps, unlike the full path: between them the return address
	 * is 8 bytes below RSP, inside the red zone, which a host signal
	 * frame skips (the kernel leaves 128 bytes below RSP alone).
	 */
	movq	RSP(%rdi), %rsp
	leaq	-8(%rsp), %rsp
	movq	RDI(%rdi), %rdi
	ret
	.globl	ua__exit_fast_end
	.hidden	ua__exit_fast_end
ua__exit_fast_end:
.Lreexit:
	movq	%rax, %rdi
	jmp	ua__irq_reexit
.Lclear_ac:
	pushq	$2
	popfq
	jmp	.Ldispatch
	.cfi_endproc
.Lnot_guest:
	.cfi_startproc
	.cfi_adjust_cfa_offset 16
	leaq	16(%rsp), %rsp
	.cfi_adjust_cfa_offset -16
	movq	$-1, %rax			/* -EPERM */
	ret
	.cfi_endproc
	.size	ua__syscall, . - ua__syscall
	.size	ua_syscall, . - ua__syscall

/*
 * void ua__ret_to_guest(struct ua_pt_regs *regs)
 *
 * Restores every register and jumps to regs->rip without writing at or
 * above regs->rsp - 128 (the guest's red zone).  Fast path: store RIP just
 * below the red zone, point RSP at it and `ret $128`.  If that store
 * faults (a bad guest RSP) or RFLAGS has AC or TF set (an alignment check
 * or a single-step trap would hit the monitor's own last instructions),
 * IRETQ from a frame on the monitor stack instead: it loads RIP, RFLAGS
 * and RSP in one step, so a trap flag first steps the guest's next
 * instruction, as after the kernel's own IRET.
 * ua__ret_to_guest_iret() is that IRETQ path alone, for a caller that
 * knows the store must not be tried (an RSP outside the space).
 */
	.globl	ua__ret_to_guest
	.hidden	ua__ret_to_guest
	.type	ua__ret_to_guest, @function
	.p2align 4
ua__ret_to_guest:
	.cfi_startproc
	.globl	ua__exit_full_begin
	.hidden	ua__exit_full_begin
ua__exit_full_begin:
	cmpb	$0, IRQ_PENDING(%rdi)
	jne	ua__irq_reexit
	RESTORE_FP_PENDING
	testl	$0x40100, EFLAGS(%rdi)		/* AC, TF */
	jnz	ua__ret_to_guest_iret
	movq	RSP(%rdi), %rax
	movq	RIP(%rdi), %rcx
1:	movq	%rcx, -EXIT_SCRATCH(%rax)
	leaq	-EXIT_SCRATCH(%rax), %rax
	movq	%rax, EXIT_RSP(%rdi)
	RESTORE_EFLAGS
	RESTORE_GPRS_BUT_RDI_RSP
	/*
	 * One instruction from the monitor stack to the staged slot: from
	 * here on the slot is at [RSP], never below it, where a host signal
	 * frame (a handler without SA_ONSTACK) would land on top of it.
	 */
	movq	EXIT_RSP(%rdi), %rsp
	movq	RDI(%rdi), %rdi
	ret	$(EXIT_SCRATCH - 8)
	.cfi_endproc
	.size	ua__ret_to_guest, . - ua__ret_to_guest

/*
 * void ua__ret_to_guest_gs(struct ua_pt_regs *regs)
 *
 * ua__ret_to_guest for a task whose guest GS base is its trap block (a
 * trampoline found the block through GS on the way in, and nothing since
 * changed GS): the same, but the last jump is `jmp *%gs:exit_rip` rather
 * than a `ret` through the guest stack.  Nothing called the exit, so a
 * `ret` is predicted from the return stack and missed on every syscall
 * (and the guest's own next `ret` with it); an indirect jump is
 * predicted by its target's history.  Nothing is written below the
 * guest's RSP, and the target lives in the trap block, not on a stack a
 * host signal frame could land on.
 */
	.globl	ua__ret_to_guest_gs
	.hidden	ua__ret_to_guest_gs
	.type	ua__ret_to_guest_gs, @function
	.p2align 4
ua__ret_to_guest_gs:
	.cfi_startproc
	cmpb	$0, IRQ_PENDING(%rdi)
	jne	ua__irq_reexit
	RESTORE_FP_PENDING
	testl	$0x40100, EFLAGS(%rdi)		/* AC, TF */
	jnz	ua__ret_to_guest_iret
	movq	RIP(%rdi), %rcx
	movq	%rcx, TASK_TB+TB_EXIT_RIP(%rdi)
	RESTORE_EFLAGS
	RESTORE_GPRS_BUT_RDI_RSP
	movq	RSP(%rdi), %rsp
	movq	RDI(%rdi), %rdi
	jmp	*%gs:TB_EXIT_RIP
	.cfi_endproc
	.size	ua__ret_to_guest_gs, . - ua__ret_to_guest_gs

	.globl	ua__ret_to_guest_iret
	.hidden	ua__ret_to_guest_iret
	.type	ua__ret_to_guest_iret, @function
	.p2align 4
ua__ret_to_guest_iret:
	.cfi_startproc
	cmpb	$0, IRQ_PENDING(%rdi)
	jne	ua__irq_reexit
	RESTORE_FP_PENDING
	xorl	%eax, %eax
	movw	%ss, %ax
	pushq	%rax
	pushq	RSP(%rdi)
	pushq	EFLAGS(%rdi)
	movw	%cs, %ax
	pushq	%rax
	pushq	RIP(%rdi)
	RESTORE_GPRS_BUT_RDI_RSP
	movq	RDI(%rdi), %rdi
	iretq
	EXTABLE(1b, ua__ret_to_guest_iret)
	.cfi_endproc
	.globl	ua__exit_full_end
	.hidden	ua__exit_full_end
ua__exit_full_end:
	.size	ua__ret_to_guest_iret, . - ua__ret_to_guest_iret

/*
 * The exit code found an interrupt pending (task in %rdi): back to the
 * monitor stack's base and through the exit work again.
 */
	.type	ua__irq_reexit, @function
	.p2align 4
ua__irq_reexit:
	.cfi_startproc
	.cfi_undefined rip
	movq	MON_RSP(%rdi), %rsp
	cld
	/* A trapping task's exit may have loaded the guest's FS base. */
	movq	%rdi, %rbx
	call	ua__mon_fs_restore
	movq	%rbx, %rdi
	call	ua__guest_irq
	ud2
	.cfi_endproc
	.size	ua__irq_reexit, . - ua__irq_reexit

/*
 * The interrupt handler redirects here, on the monitor stack, with the
 * task in %rdi and its regs (and full FP state) already saved.
 */
	.globl	ua__guest_irq_entry
	.hidden	ua__guest_irq_entry
	.type	ua__guest_irq_entry, @function
	.p2align 4
ua__guest_irq_entry:
	.cfi_startproc
	.cfi_undefined rip
	cld
	call	ua__guest_irq
	ud2
	.cfi_endproc
	.size	ua__guest_irq_entry, . - ua__guest_irq_entry

/*
 * int ua__task_enter(struct ua_task *t)
 *
 * Saves the monitor's callee-saved registers, makes the stack below them
 * the task's monitor stack and enters guest code.  Returns only through
 * ua__task_leave(), with the task's wait status.
 */
	.globl	ua__task_enter
	.hidden	ua__task_enter
	.type	ua__task_enter, @function
	.p2align 4
ua__task_enter:
	.cfi_startproc
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rbp, 0
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rbx, 0
	pushq	%r12
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r12, 0
	pushq	%r13
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r13, 0
	pushq	%r14
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r14, 0
	pushq	%r15
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r15, 0
	subq	$8, %rsp			/* 16-byte aligned from here */
	.cfi_adjust_cfa_offset 8
	movq	%rsp, MON_SAVED(%rdi)
	movq	%rsp, MON_RSP(%rdi)
	call	ua__return_to_guest
	ud2
	.cfi_endproc
	.size	ua__task_enter, . - ua__task_enter

/* void ua__task_leave(struct ua_task *t, int status) */
	.globl	ua__task_leave
	.hidden	ua__task_leave
	.type	ua__task_leave, @function
	.p2align 4
ua__task_leave:
	.cfi_startproc
	movq	MON_SAVED(%rdi), %rsp
	movl	%esi, %eax
	addq	$8, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret
	.cfi_endproc
	.size	ua__task_leave, . - ua__task_leave

/*
 * The host fault handler redirects a fault taken in guest code here, on
 * the monitor stack, with the task in %rdi and its regs already saved.
 */
	.globl	ua__guest_fault_entry
	.hidden	ua__guest_fault_entry
	.type	ua__guest_fault_entry, @function
	.p2align 4
ua__guest_fault_entry:
	.cfi_startproc
	.cfi_undefined rip
	cld
	call	ua__guest_fault
	ud2
	.cfi_endproc
	.size	ua__guest_fault_entry, . - ua__guest_fault_entry

	.section .note.GNU-stack, "", @progbits
