/* SPDX-License-Identifier: MIT */
/*
 * The Linux x86-64 rt_sigframe, as the kernel lays it out
 * (arch/x86/include/asm/sigframe.h, uapi/asm/sigcontext.h; the offsets
 * are asserted in frame.c).
 */
#ifndef UA_SIGNAL_FRAME_H
#define UA_SIGNAL_FRAME_H

#include "signal_internal.h"

struct ua_sigcontext {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2;
	uint64_t fpstate;
	uint64_t reserved1[8];
};

struct ua_kucontext {
	uint64_t uc_flags;
	uint64_t uc_link;
	struct ua_kstack uc_stack;
	struct ua_sigcontext uc_mcontext;
	uint64_t uc_sigmask;
};

struct ua_rt_sigframe {
	uint64_t pretcode;
	struct ua_kucontext uc;
	siginfo_t info;
};

#define UC_FP_XSTATE 0x1
#define UC_SIGCONTEXT_SS 0x2
#define UC_STRICT_RESTORE_SS 0x4

/* The RFLAGS bits sigreturn takes from a frame (the kernel's FIX_EFLAGS). */
#define FIX_EFLAGS 0x50DD5ull
#define X86_EFLAGS_TF 0x100ull
#define X86_EFLAGS_DF 0x400ull
#define X86_EFLAGS_RF 0x10000ull

/*
 * One access: an unsafe accessor inside the frame's window in block mode
 * (a local "block" is true), a checked accessor with its own window per
 * field otherwise.  Both jump to a local "efault" label on a fault.
 */
#define PUT(x, p)                                          \
	do {                                               \
		if (block)                                 \
			ua_unsafe_put_user((x), (p), efault); \
		else if (ua_put_user((x), (p)))            \
			goto efault;                       \
	} while (0)

#define COPY_TO(d, s, n)                                          \
	do {                                                      \
		if (block)                                        \
			ua_unsafe_copy_to_user((d), (s), (n), efault); \
		else if (ua_copy_to_user((d), (s), (n)))          \
			goto efault;                              \
	} while (0)

#define GET(x, p)                                          \
	do {                                               \
		if (block)                                 \
			ua_unsafe_get_user((x), (p), efault); \
		else if (ua_get_user((x), (p)))            \
			goto efault;                       \
	} while (0)

#define COPY_FROM(d, s, n)                                          \
	do {                                                        \
		if (block)                                          \
			ua_unsafe_copy_from_user((d), (s), (n), efault); \
		else if (ua_copy_from_user((d), (s), (n)))          \
			goto efault;                                \
	} while (0)

/* The kernel's default init_pkru_value: only key 0 accessible. */
#define UA_INIT_PKRU 0x55555554u

/* frame.c: restore a frame's FP area (0: reset to init); 0, -EFAULT,
 * -EINVAL.  hw_align: a sigreturn frame, not a swapcontext context. */
UA_HIDDEN int ua__restore_fpstate(bool block, uint64_t fp, bool hw_align,
				  struct ua_fpu_restored *out);

#endif /* UA_SIGNAL_FRAME_H */
