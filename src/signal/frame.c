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

int ua__setup_rt_frame(struct ua_task *t, int sig, const siginfo_t *info,
		       const struct ua_ksigaction *ka)
{
	struct ua_sigstate *s = sigstate(t);
	struct ua_pt_regs *r = &t->regs;
	bool block = t->frame_mode == UA_FRAME_BLOCK;
	size_t fpsize = ua__fpu_frame_size();
	const unsigned char *full = ua__full_image(t);
	unsigned char img[576];
	uint64_t frame, fp, mask;

	/* x86-64 has no fallback restorer in the kernel either. */
	if (!(ka->flags & UA_SA_RESTORER))
		return -EFAULT;
	/* Prepare: everything that reads state or calls out, before the window. */
	ua__fpu_save_ctl(s);
	if (!block)
		ua__fpu_build_image(s, img);
	mask = s->restore_mask ? s->saved_mask : s->blocked;
	if (ua__get_sigframe(s, r, ka, &frame, &fp))
		return -EFAULT;
	if (block &&
	    !ua_user_write_access_begin((void *)frame, fp + fpsize - frame))
		return -EFAULT;
	if (ua__fill_rt_frame(block, t, info, ka, full, img, frame, fp, mask)) {
		if (block)
			ua_user_write_access_end();
		return -EFAULT;
	}
	/* Block mode leaves the window open: exit folds or closes it. */
	ua__handler_regs(r, sig, frame, ka);
	if (full) {
		/* The handler starts from the init state, as the kernel's. */
		t->full_ctx = false;
		t->fpu_restore = ua__xstate_init_image;
		ua__note_full_frame(s, frame);
	}
	ua__fpu_fresh_from(s->mxcsr, s->fcw);
	return 0;
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
	struct ua_fp_sw sw;
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
	COPY_FROM(&sw, (const void *)(fp + UA_FP_SW_OFF), sizeof(sw));
	if (ua__fp_sw_xsave(&sw)) {
		GET(magic2, (const uint32_t *)(fp + sw.xsize));
		if (magic2 == FP_XSTATE_MAGIC2)
			return ua__fpu_restore_xsave(block, fp, sw.xfeat, out);
	}
	return ua__fpu_restore_fx(block, fp, hw_align, out);
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
	if (ua__read_sigcontext(block, &mc, &f->uc.uc_mcontext))
		goto efault;
	ua__restore_regs(r, &mc);
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
