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

/*
 * The helpers below are shared by the full path (frame.c, deliver.c) and
 * the rewrite fast path (fast.c), which calls them with block true and
 * nothing to read through %fs (UA_FAST_INLINE, src/internal.h).
 */

static inline UA_FAST uint16_t ua__cur_cs(void)
{
	uint16_t v;

	asm("movw %%cs, %0" : "=r"(v));
	return v;
}

static inline UA_FAST uint16_t ua__cur_ss(void)
{
	uint16_t v;

	asm("movw %%ss, %0" : "=r"(v));
	return v;
}

/* Where the frame and its FP area go; -EFAULT on altstack overflow. */
UA_FAST_INLINE int ua__get_sigframe(const struct ua_sigstate *s,
				    const struct ua_pt_regs *r,
				    const struct ua_ksigaction *ka,
				    uint64_t *framep, uint64_t *fpp)
{
	uint64_t sp = r->rsp - 128; /* the red zone */
	bool nested = ua__on_sig_stack(s, r->rsp), entering = false;
	uint64_t fp, frame;

	if ((ka->flags & SA_ONSTACK) && ua__sas_ss_flags(s, sp) == 0) {
		sp = s->altstack.sp + s->altstack.size;
		entering = true;
	}
	fp = (sp - ua__fpu_frame_size()) & ~63ull;
	frame = ((fp - sizeof(struct ua_rt_sigframe)) & ~15ull) - 8;
	if ((nested || entering) && !ua__on_stack_raw(s, frame))
		return -EFAULT;
	*framep = frame;
	*fpp = fp;
	return 0;
}

UA_FAST_INLINE int ua__write_sigcontext(bool block, struct ua_sigcontext *mc,
					const struct ua_pt_regs *r,
					const struct ua_sigstate *s,
					uint64_t fp, uint64_t mask)
{
	PUT(r->rdi, &mc->rdi);
	PUT(r->rsi, &mc->rsi);
	PUT(r->rbp, &mc->rbp);
	PUT(r->rsp, &mc->rsp);
	PUT(r->rbx, &mc->rbx);
	PUT(r->rdx, &mc->rdx);
	PUT(r->rcx, &mc->rcx);
	PUT(r->rax, &mc->rax);
	PUT(r->r8, &mc->r8);
	PUT(r->r9, &mc->r9);
	PUT(r->r10, &mc->r10);
	PUT(r->r11, &mc->r11);
	PUT(r->r12, &mc->r12);
	PUT(r->r13, &mc->r13);
	PUT(r->r14, &mc->r14);
	PUT(r->r15, &mc->r15);
	PUT(s->trapno, &mc->trapno);
	PUT(s->err, &mc->err);
	PUT(r->rip, &mc->rip);
	PUT(r->eflags, &mc->eflags);
	PUT(ua__cur_cs(), &mc->cs);
	PUT(0, &mc->gs);
	PUT(0, &mc->fs);
	PUT(ua__cur_ss(), &mc->ss);
	PUT(fp, &mc->fpstate);
	PUT(mask, &mc->oldmask);
	PUT(s->cr2, &mc->cr2);
	return 0;
efault:
	return -EFAULT;
}

/*
 * The stores of a frame at frame (FP area at fp), in signal_64.c's
 * order, after the prepare step: block mode inside the write window the
 * caller opened over both (left open), per-access through checked
 * accessors.  full: a full-context image for the FP area, else the
 * template with the control words of the prepare step (img: the whole
 * image, per-access mode).  0 or -EFAULT.
 */
UA_FAST_INLINE int ua__fill_rt_frame(bool block, struct ua_task *t,
				     const siginfo_t *info,
				     const struct ua_ksigaction *ka,
				     const unsigned char *full,
				     const unsigned char *img, uint64_t frame,
				     uint64_t fp, uint64_t mask)
{
	struct ua_sigstate *s = sigstate(t);
	struct ua_rt_sigframe *f = (struct ua_rt_sigframe *)frame;
	uint64_t uc_flags = UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS |
			    (ua__fpu.xsave ? UC_FP_XSTATE : 0);

	PUT(uc_flags, &f->uc.uc_flags);
	PUT(0, &f->uc.uc_link);
	PUT(s->altstack.sp, &f->uc.uc_stack.sp);
	PUT(s->altstack.flags, &f->uc.uc_stack.flags);
	PUT(s->altstack.size, &f->uc.uc_stack.size);
	PUT(ka->restorer, &f->pretcode);
	if (ua__write_sigcontext(block, &f->uc.uc_mcontext, &t->regs, s, fp,
				 mask))
		goto efault;
	PUT(mask, &f->uc.uc_sigmask);
	if (ka->flags & SA_SIGINFO)
		COPY_TO(&f->info, info, sizeof(*info));
	if (full) {
		if (ua__write_full_image(block, full, fp))
			goto efault;
	} else if (block) {
		/* The fixed image straight into the frame, then the two words. */
		ua_unsafe_copy_to_user((void *)fp, ua__fpu_template(),
				       ua__fpu.xsave ? 576 : 512, efault);
		ua_unsafe_put_user(s->fcw, (uint16_t *)fp, efault);
		ua_unsafe_put_user(s->mxcsr, (uint32_t *)(fp + 24), efault);
	} else {
		COPY_TO((void *)fp, img, ua__fpu.xsave ? 576 : 512);
	}
	/* The guest's PKRU, at its CPUID offset (the kernel's frames always
	 * carry it where XCR0 has it). */
	if (ua__fpu.pkru_off)
		PUT(t->pkru, (uint32_t *)(fp + ua__fpu.pkru_off));
	if (ua__fpu.xsave)
		PUT(FP_XSTATE_MAGIC2, (uint32_t *)(fp + ua__fpu.xstate_size));
	return 0;
efault:
	return -EFAULT;
}

/* The registers a handler starts with (the frame at frame is built). */
UA_FAST_INLINE void ua__handler_regs(struct ua_pt_regs *r, int sig,
				     uint64_t frame,
				     const struct ua_ksigaction *ka)
{
	struct ua_rt_sigframe *f = (struct ua_rt_sigframe *)frame;

	r->rdi = (uint64_t)sig;
	r->rsi = (uint64_t)&f->info;
	r->rdx = (uint64_t)&f->uc;
	r->rax = 0;
	r->rsp = frame;
	r->rip = ka->handler;
	r->eflags &= ~(X86_EFLAGS_DF | X86_EFLAGS_RF | X86_EFLAGS_TF);
}

/* signal_delivered(): the handler's mask, RESETHAND, AUTODISARM. */
UA_FAST_INLINE void ua__signal_delivered(struct ua_task *t, int sig,
					 struct ua_ksigaction *ka)
{
	struct ua_sigstate *s = sigstate(t);
	uint64_t mask = s->blocked | ka->mask;

	if (!(ka->flags & SA_NODEFER))
		mask |= SIGBIT(sig);
	ua__sig_set_blocked(t, mask);
	s->restore_mask = false;
	if (ka->flags & SA_RESETHAND)
		ka->handler = (uint64_t)(uintptr_t)SIG_DFL;
	if (s->altstack.flags & SS_AUTODISARM) {
		s->altstack.sp = 0;
		s->altstack.size = 0;
		s->altstack.flags = SS_DISABLE;
	}
	s->trapno = s->err = s->cr2 = 0;
}

UA_FAST_INLINE void ua__restore_regs(struct ua_pt_regs *r,
				     const struct ua_sigcontext *mc)
{
	r->r8 = mc->r8;
	r->r9 = mc->r9;
	r->r10 = mc->r10;
	r->r11 = mc->r11;
	r->r12 = mc->r12;
	r->r13 = mc->r13;
	r->r14 = mc->r14;
	r->r15 = mc->r15;
	r->rdi = mc->rdi;
	r->rsi = mc->rsi;
	r->rbp = mc->rbp;
	r->rbx = mc->rbx;
	r->rdx = mc->rdx;
	r->rax = mc->rax;
	r->rcx = mc->rcx;
	r->rsp = mc->rsp;
	r->rip = mc->rip;
	r->eflags = (r->eflags & ~FIX_EFLAGS) | (mc->eflags & FIX_EFLAGS);
	r->orig_rax = (uint64_t)-1;
}

UA_FAST_INLINE int ua__read_sigcontext(bool block, struct ua_sigcontext *mc,
				       const struct ua_sigcontext *umc)
{
	if (block) {
		/* One access up to reserved1, as signal_64.c does. */
		ua_unsafe_copy_from_user(mc, umc,
					 offsetof(struct ua_sigcontext,
						  reserved1),
					 efault);
		return 0;
	}
	GET(mc->r8, &umc->r8);
	GET(mc->r9, &umc->r9);
	GET(mc->r10, &umc->r10);
	GET(mc->r11, &umc->r11);
	GET(mc->r12, &umc->r12);
	GET(mc->r13, &umc->r13);
	GET(mc->r14, &umc->r14);
	GET(mc->r15, &umc->r15);
	GET(mc->rdi, &umc->rdi);
	GET(mc->rsi, &umc->rsi);
	GET(mc->rbp, &umc->rbp);
	GET(mc->rbx, &umc->rbx);
	GET(mc->rdx, &umc->rdx);
	GET(mc->rax, &umc->rax);
	GET(mc->rcx, &umc->rcx);
	GET(mc->rsp, &umc->rsp);
	GET(mc->rip, &umc->rip);
	GET(mc->eflags, &umc->eflags);
	GET(mc->fpstate, &umc->fpstate);
	return 0;
efault:
	return -EFAULT;
}

/* The software bytes of an XSAVE frame image (fpx_sw_bytes, at 464). */
struct ua_fp_sw {
	uint32_t magic1, ext;
	uint64_t xfeat;
	uint32_t xsize;
} __attribute__((packed));

#define UA_FP_SW_OFF 464

/*
 * check_xstate_in_sigframe()'s test before MAGIC2: an XSAVE image of a
 * size this host's frames may have; anything else is taken as FX only.
 */
static inline UA_FAST bool ua__fp_sw_xsave(const struct ua_fp_sw *sw)
{
	return ua__fpu.xsave && sw->magic1 == FP_XSTATE_MAGIC1 &&
	       sw->xsize >= 576 && sw->xsize <= ua__fpu.xstate_size &&
	       sw->xsize <= sw->ext;
}

/* frame.c: restore a frame's FP area (0: reset to init); 0, -EFAULT,
 * -EINVAL.  hw_align: a sigreturn frame, not a swapcontext context. */
UA_HIDDEN int ua__restore_fpstate(bool block, uint64_t fp, bool hw_align,
				  struct ua_fpu_restored *out);

#endif /* UA_SIGNAL_FRAME_H */
