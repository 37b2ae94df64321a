/* SPDX-License-Identifier: MIT */
/*
 * Register probes for the task suites: assembly that loads chosen values
 * into every general register and RFLAGS, makes a syscall, and records
 * what every register holds right after it.  C cannot do this: the
 * compiler owns the registers around a call.
 *
 * struct probe: the slots, in the order below (RSP is not loaded: the
 * probe records it before and after instead).
 */
#ifndef UA_TPROBE_H
#define UA_TPROBE_H

#include <stdint.h>

enum {
	P_RAX, P_RBX, P_RCX, P_RDX, P_RSI, P_RDI, P_RBP,
	P_R8, P_R9, P_R10, P_R11, P_R12, P_R13, P_R14, P_R15,
	P_FLAGS, P_RSP_AFTER, P_RSP_BEFORE, P_NSLOTS
};

struct probe {
	uint64_t r[P_NSLOTS];
};

static const char *const probe_names[P_NSLOTS] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10",
	"r11", "r12", "r13", "r14", "r15", "rflags", "rsp after", "rsp before",
};

/*
 * probe_raw(out, in): registers from in->r[P_RAX..P_R15] (in->r[P_RDI] is
 * the syscall number), RFLAGS from in->r[P_FLAGS], then `call ua_syscall`.
 * probe_nop(out, in): the same, but `call ua_sys_nop` (the C wrapper, which
 * sets up its own arguments: only callee-saved registers and RAX mean
 * anything afterwards).
 * Both leave RFLAGS as 0x202 (DF and AC clear) when they return.
 */
void probe_raw(struct probe *out, const struct probe *in);
void probe_nop(struct probe *out, const struct probe *in);

#define PROBE_ASM(name, target)                                              \
	"	.text\n"                                                     \
	"	.globl " #name "\n"                                          \
	"	.hidden " #name "\n"                                         \
	"	.type " #name ", @function\n"                                \
	#name ":\n"                                                          \
	"	pushq %rbx\n"                                                \
	"	pushq %rbp\n"                                                \
	"	pushq %r12\n"                                                \
	"	pushq %r13\n"                                                \
	"	pushq %r14\n"                                                \
	"	pushq %r15\n"                                                \
	"	pushq %rdi\n" /* out at (%rsp); rsp 16-aligned */            \
	"	movq %rsp, 136(%rdi)\n"                                      \
	"	movq %rsi, %rdi\n"                                           \
	"	pushq 120(%rdi)\n"                                           \
	"	popfq\n" /* no arithmetic from here to the call */           \
	"	movq 0(%rdi), %rax\n"                                        \
	"	movq 8(%rdi), %rbx\n"                                        \
	"	movq 16(%rdi), %rcx\n"                                       \
	"	movq 24(%rdi), %rdx\n"                                       \
	"	movq 32(%rdi), %rsi\n"                                       \
	"	movq 48(%rdi), %rbp\n"                                       \
	"	movq 56(%rdi), %r8\n"                                        \
	"	movq 64(%rdi), %r9\n"                                        \
	"	movq 72(%rdi), %r10\n"                                       \
	"	movq 80(%rdi), %r11\n"                                       \
	"	movq 88(%rdi), %r12\n"                                       \
	"	movq 96(%rdi), %r13\n"                                       \
	"	movq 104(%rdi), %r14\n"                                      \
	"	movq 112(%rdi), %r15\n"                                      \
	"	movq 40(%rdi), %rdi\n"                                       \
	"	call " #target "@PLT\n"                                      \
	"	pushfq\n"                                                    \
	"	pushq %rax\n"                                                \
	"	movq 16(%rsp), %rax\n"                                       \
	"	movq %rbx, 8(%rax)\n"                                        \
	"	movq %rcx, 16(%rax)\n"                                       \
	"	movq %rdx, 24(%rax)\n"                                       \
	"	movq %rsi, 32(%rax)\n"                                       \
	"	movq %rdi, 40(%rax)\n"                                       \
	"	movq %rbp, 48(%rax)\n"                                       \
	"	movq %r8, 56(%rax)\n"                                        \
	"	movq %r9, 64(%rax)\n"                                        \
	"	movq %r10, 72(%rax)\n"                                       \
	"	movq %r11, 80(%rax)\n"                                       \
	"	movq %r12, 88(%rax)\n"                                       \
	"	movq %r13, 96(%rax)\n"                                       \
	"	movq %r14, 104(%rax)\n"                                      \
	"	movq %r15, 112(%rax)\n"                                      \
	"	popq %rbx\n"                                                 \
	"	movq %rbx, 0(%rax)\n"                                        \
	"	popq %rbx\n"                                                 \
	"	movq %rbx, 120(%rax)\n"                                      \
	"	movq %rsp, 128(%rax)\n"                                      \
	"	pushq $0x202\n"                                              \
	"	popfq\n"                                                     \
	"	popq %rdi\n"                                                 \
	"	popq %r15\n"                                                 \
	"	popq %r14\n"                                                 \
	"	popq %r13\n"                                                 \
	"	popq %r12\n"                                                 \
	"	popq %rbp\n"                                                 \
	"	popq %rbx\n"                                                 \
	"	ret\n"                                                       \
	"	.size " #name ", . - " #name "\n"

/* Define the probes in exactly one file of a test program. */
#define PROBE_DEFINE()                                                       \
	__asm__(PROBE_ASM(probe_raw, ua_syscall)                            \
		PROBE_ASM(probe_nop, ua_sys_nop))

/* Values that no code path would produce by accident, seeded. */
static inline void probe_fill(struct probe *in, uint64_t seed)
{
	for (int i = 0; i <= P_R15; i++)
		in->r[i] = 0x0123456789abcdefull * (uint64_t)(i + 3) ^
			   (seed * 0x9e3779b97f4a7c15ull);
	in->r[P_FLAGS] = 0x202;
}

#endif
