// SPDX-License-Identifier: MIT
/*
 * Building the rt_sigframe on the guest stack and reading it back in
 * rt_sigreturn, in the two forms of the kernel series this project
 * reproduces: per-access (each field through a checked accessor, one
 * window each) and block (the prepare work first, then one window for the
 * whole frame with unsafe accessors).  The order of the stores and the
 * checks follows arch/x86/kernel/signal_64.c.
 */
#include <errno.h>
#include <string.h>

#include "frame.h"

_Static_assert(sizeof(struct ua_sigcontext) == 256, "sigcontext_64");
_Static_assert(sizeof(struct ua_kucontext) == 304, "kernel ucontext");
_Static_assert(sizeof(struct ua_rt_sigframe) == 440, "rt_sigframe");
_Static_assert(offsetof(struct ua_rt_sigframe, uc.uc_mcontext.rip) == 176,
	       "rip offset");
_Static_assert(offsetof(struct ua_rt_sigframe, uc.uc_mcontext.fpstate) == 232,
	       "fpstate offset");
_Static_assert(offsetof(struct ua_rt_sigframe, uc.uc_sigmask) == 304,
	       "uc_sigmask offset");
_Static_assert(offsetof(struct ua_rt_sigframe, info) == 312, "info offset");

/* ss_sp < sp <= ss_sp + ss_size: the stack grows down. */
static bool on_stack_raw(const struct ua_sigstate *s, uint64_t sp)
{
	return sp > s->altstack.sp && sp - s->altstack.sp <= s->altstack.size;
}

bool ua__on_sig_stack(const struct ua_sigstate *s, uint64_t sp)
{
	if (s->altstack.flags & SS_AUTODISARM)
		return false;
	return on_stack_raw(s, sp);
}

int ua__sas_ss_flags(const struct ua_sigstate *s, uint64_t sp)
{
	if (!s->altstack.size)
		return SS_DISABLE;
	return ua__on_sig_stack(s, sp) ? SS_ONSTACK : 0;
}

/* Where the frame and its FP area go; -EFAULT on altstack overflow. */
static int get_sigframe(const struct ua_sigstate *s, const struct ua_pt_regs *r,
			const struct ua_ksigaction *ka, uint64_t *framep,
			uint64_t *fpp)
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
	if ((nested || entering) && !on_stack_raw(s, frame))
		return -EFAULT;
	*framep = frame;
	*fpp = fp;
	return 0;
}

static uint16_t cur_cs(void)
{
	uint16_t v;

	asm("movw %%cs, %0" : "=r"(v));
	return v;
}

static uint16_t cur_ss(void)
{
	uint16_t v;

	asm("movw %%ss, %0" : "=r"(v));
	return v;
}

static int write_sigcontext(bool block, struct ua_sigcontext *mc,
			    const struct ua_pt_regs *r,
			    const struct ua_sigstate *s, uint64_t fp,
			    uint64_t mask)
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
	PUT(cur_cs(), &mc->cs);
	PUT(0, &mc->gs);
	PUT(0, &mc->fs);
	PUT(cur_ss(), &mc->ss);
	PUT(fp, &mc->fpstate);
	PUT(mask, &mc->oldmask);
	PUT(s->cr2, &mc->cr2);
	return 0;
efault:
	return -EFAULT;
}

int ua__setup_rt_frame(struct ua_task *t, int sig, const siginfo_t *info,
		       const struct ua_ksigaction *ka)
{
	struct ua_sigstate *s = sigstate(t);
	struct ua_pt_regs *r = &t->regs;
	bool block = t->frame_mode == UA_FRAME_BLOCK;
	size_t fpsize = ua__fpu_frame_size();
	const unsigned char *full = ua__full_image(t);
	unsigned char img[576];
	struct ua_rt_sigframe *f;
	uint64_t frame, fp, mask, uc_flags;

	/* x86-64 has no fallback restorer in the kernel either. */
	if (!(ka->flags & UA_SA_RESTORER))
		return -EFAULT;
	/* Prepare: everything that reads state or calls out, before the window. */
	ua__fpu_save_ctl(s);
	if (!block)
		ua__fpu_build_image(s, img);
	mask = s->restore_mask ? s->saved_mask : s->blocked;
	uc_flags = UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS |
		   (ua__fpu.xsave ? UC_FP_XSTATE : 0);
	if (get_sigframe(s, r, ka, &frame, &fp))
		return -EFAULT;
	f = (struct ua_rt_sigframe *)frame;
	if (block && !ua_user_write_access_begin(f, fp + fpsize - frame))
		return -EFAULT;

	PUT(uc_flags, &f->uc.uc_flags);
	PUT(0, &f->uc.uc_link);
	PUT(s->altstack.sp, &f->uc.uc_stack.sp);
	PUT(s->altstack.flags, &f->uc.uc_stack.flags);
	PUT(s->altstack.size, &f->uc.uc_stack.size);
	PUT(ka->restorer, &f->pretcode);
	if (write_sigcontext(block, &f->uc.uc_mcontext, r, s, fp, mask))
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
	/* Block mode leaves the window open: exit folds or closes it. */

	r->rdi = (uint64_t)sig;
	r->rsi = (uint64_t)&f->info;
	r->rdx = (uint64_t)&f->uc;
	r->rax = 0;
	r->rsp = frame;
	r->rip = ka->handler;
	r->eflags &= ~(X86_EFLAGS_DF | X86_EFLAGS_RF | X86_EFLAGS_TF);
	if (full) {
		/* The handler starts from the init state, as the kernel's. */
		t->full_ctx = false;
		t->fpu_restore = ua__xstate_init_image;
		ua__note_full_frame(s, frame);
	}
	ua__fpu_fresh_from(s->mxcsr, s->fcw);
	return 0;
efault:
	if (block)
		ua_user_write_access_end();
	return -EFAULT;
}

/*
 * Restore the FP area at fp, as the kernel's fpu__restore_sig() does:
 * check_xstate_in_sigframe() decides between the XSAVE image and its
 * FX-only part (a wrong MAGIC1 or MAGIC2 or a size out of bounds falls
 * back to FX only; a fault reading MAGIC2 is fatal), then the CPU's own
 * restore instruction judges the image.  A NULL fp resets the FP state.
 * hw_align: a sigreturn frame (FX-only images as the host kernel takes
 * them); swapcontext takes FX-only images at any alignment.
 * On success *out holds what the guest gets and the x87 unit has an
 * empty stack and a clear status word (so ua__fpu_set_ctl() may load the
 * control words); on failure the x87 and SSE control words are undefined
 * and the caller sets them.
 */
int ua__restore_fpstate(bool block, uint64_t fp, bool hw_align,
			struct ua_fpu_restored *out)
{
	struct {
		uint32_t magic1, ext;
		uint64_t xfeat;
		uint32_t xsize;
	} __attribute__((packed)) sw;
	uint32_t magic2;

	if (!fp) {
		/* fpu__clear_user_states(): init state, the default PKRU. */
		ua__fpu_x87_clean();
		out->mxcsr = 0x1f80;
		out->fcw = 0x037f;
		out->pkru_valid = ua__fpu.pkru_off != 0;
		out->pkru = UA_INIT_PKRU;
		return 0;
	}
	if (block && !ua__window_extend((void *)fp, ua__fpu_frame_size()))
		return -EFAULT;
	if (!block && !ua_access_ok((void *)fp, ua__fpu_frame_size()))
		return -EFAULT;
	_Static_assert(sizeof(sw) == 20, "the sw bytes looked at");
	COPY_FROM(&sw, (const void *)(fp + 464), sizeof(sw));
	if (ua__fpu.xsave && sw.magic1 == FP_XSTATE_MAGIC1 && sw.xsize >= 576 &&
	    sw.xsize <= ua__fpu.xstate_size && sw.xsize <= sw.ext) {
		GET(magic2, (const uint32_t *)(fp + sw.xsize));
		if (magic2 == FP_XSTATE_MAGIC2)
			return ua__fpu_restore_xsave(block, fp, sw.xfeat, out);
	}
	return ua__fpu_restore_fx(block, fp, hw_align, out);
efault:
	return -EFAULT;
}

static void restore_regs(struct ua_pt_regs *r, const struct ua_sigcontext *mc)
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

static int read_sigcontext(bool block, struct ua_sigcontext *mc,
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

long ua__sys_rt_sigreturn(struct ua_task *t, struct ua_pt_regs *r)
{
	struct ua_rt_sigframe *f = (struct ua_rt_sigframe *)(r->rsp - 8);
	bool block = t->frame_mode == UA_FRAME_BLOCK;
	struct ua_sigcontext mc;
	struct ua_fpu_restored fpu;
	struct ua_kstack st;
	uint64_t mask, flags;

	if (!block) {
		if (!ua_access_ok(f, sizeof(*f)))
			goto badframe;
	} else if (t->entry_unlocked) {
		/* Syscall entry folded into this window: one switch. */
		if (!ua__protect_lock_to_window(UA_WIN_READ, f, sizeof(*f)))
			goto badframe;
	} else if (!ua_user_read_access_begin(f, sizeof(*f))) {
		goto badframe;
	}
	GET(mask, &f->uc.uc_sigmask);
	GET(flags, &f->uc.uc_flags);
	(void)flags;
	ua__sig_set_blocked(t, mask);
	if (read_sigcontext(block, &mc, &f->uc.uc_mcontext))
		goto efault;
	restore_regs(r, &mc);
	t->regs_replaced = true;
	if (ua__take_full_frame(sigstate(t), (uint64_t)f)) {
		if (ua__restore_fpstate_full(t, block, mc.fpstate, &fpu))
			goto efault;
		ua__fpu_load_ctl(fpu.mxcsr, fpu.fcw);
	} else {
		/* The x87 status word is clear after it: no reads needed. */
		if (ua__restore_fpstate(block, mc.fpstate, true, &fpu))
			goto efault;
		ua__fpu_set_ctl(fpu.mxcsr, fpu.fcw);
	}
	if (fpu.pkru_valid)
		ua__pkru_set_guest(t, fpu.pkru);
	GET(st.sp, &f->uc.uc_stack.sp);
	GET(st.flags, &f->uc.uc_stack.flags);
	GET(st.size, &f->uc.uc_stack.size);
	/* Errors from the altstack restore are squashed, as in the kernel. */
	ua__do_sigaltstack(t, &st, NULL, r->rsp);
	/* Block mode: the read window folds into the exit to guest mode. */
	return (long)r->rax;
efault:
	if (block)
		ua_user_read_access_end();
badframe:
	/*
	 * Registers already restored stay; the syscall returns 0.  The FP
	 * state is reset, as the kernel's fpu__clear_user_states() does.
	 */
	ua__fpu_fresh();
	ua__force_sig(t, SIGSEGV);
	t->regs_replaced = false;
	return 0;
}
