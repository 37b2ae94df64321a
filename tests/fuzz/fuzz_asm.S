/* SPDX-License-Identifier: MIT */
/*
 * Guest-side pieces of the rt_sigreturn fuzz target: enter rt_sigreturn
 * with RSP at a frame, and the landing pad a frame resumes at.
 */
#define UA_NR_rt_sigreturn 4

	.text

/*
 * void fz_sigreturn_at(void *uc): rt_sigreturn with the frame's ucontext
 * at @uc, as after a handler's `ret` popped pretcode (the call pushes its
 * return address at uc - 8, where pretcode would be).
 */
	.globl	fz_sigreturn_at
	.type	fz_sigreturn_at, @function
	.p2align 4
fz_sigreturn_at:
	movq	%rdi, %rsp
	movl	$UA_NR_rt_sigreturn, %edi
	call	ua_syscall@PLT
	ud2
	.size	fz_sigreturn_at, . - fz_sigreturn_at

/*
 * Where fuzzed frames resume: whatever RSP and RFLAGS (AC, DF) the frame
 * gave, move to a stack of our own with clean flags, then exit 0.
 */
	.globl	fz_landing
	.type	fz_landing, @function
	.p2align 4
fz_landing:
	movq	fz_landing_rsp(%rip), %rsp
	pushq	$0x202
	popfq
	call	fz_landed
	ud2
	.size	fz_landing, . - fz_landing

	.section .note.GNU-stack, "", @progbits
