// SPDX-License-Identifier: MIT
/*
 * swapcontext as a syscall (the model is powerpc's sys_swapcontext):
 * save the caller's context into one glibc ucontext_t in guest memory and
 * load another, returning into it as rt_sigreturn does.  The context to
 * load is read and checked whole before anything changes, so a bad one
 * fails with nothing loaded.
 */
#include <errno.h>
#include <string.h>

#include "frame.h"

static int save_context(bool block, struct ua_task *t, ucontext_t *u)
{
	struct ua_sigstate *s = sigstate(t);
	const struct ua_pt_regs *r = &t->regs;
	greg_t *g = u->uc_mcontext.gregs;
	unsigned char img[576];
	uint64_t v[NGREG] = { 0 };

	ua__fpu_save_ctl(s);
	ua__fpu_build_image(s, img);
	/* An FX-only image: glibc's __fpregs_mem holds 512 bytes. */
	memset(img + 464, 0, 48);
	v[REG_R8] = r->r8;
	v[REG_R9] = r->r9;
	v[REG_R10] = r->r10;
	v[REG_R11] = r->r11;
	v[REG_R12] = r->r12;
	v[REG_R13] = r->r13;
	v[REG_R14] = r->r14;
	v[REG_R15] = r->r15;
	v[REG_RDI] = r->rdi;
	v[REG_RSI] = r->rsi;
	v[REG_RBP] = r->rbp;
	v[REG_RBX] = r->rbx;
	v[REG_RDX] = r->rdx;
	v[REG_RAX] = 0; /* what the saved context sees swapcontext return */
	v[REG_RCX] = r->rcx;
	v[REG_RSP] = r->rsp;
	v[REG_RIP] = r->rip;
	v[REG_EFL] = r->eflags;
	if (block && !ua_user_write_access_begin(u, sizeof(*u)))
		return -EFAULT;
	for (int i = 0; i < NGREG; i++)
		PUT(v[i], (uint64_t *)&g[i]);
	PUT((uint64_t)(uintptr_t)&u->__fpregs_mem,
	    (uint64_t *)&u->uc_mcontext.fpregs);
	PUT(s->blocked, (uint64_t *)&u->uc_sigmask);
	COPY_TO(&u->__fpregs_mem, img, 512);
	if (block)
		ua_user_write_access_end();
	return 0;
efault:
	if (block)
		ua_user_write_access_end();
	return -EFAULT;
}

static long load_context(bool block, struct ua_task *t, const ucontext_t *u)
{
	struct ua_pt_regs *r = &t->regs;
	struct ua_sigstate *s = sigstate(t);
	struct ua_fpu_restored fpu;
	uint64_t g[NGREG], fp, mask;
	int err;

	if (block ? !ua_user_read_access_begin(u, offsetof(ucontext_t,
							 uc_sigmask) + 8) :
		    !ua_access_ok(u, offsetof(ucontext_t, uc_sigmask) + 8))
		return -EFAULT;
	for (int i = 0; i < NGREG; i++)
		GET(g[i], (const uint64_t *)&u->uc_mcontext.gregs[i]);
	GET(fp, (const uint64_t *)&u->uc_mcontext.fpregs);
	GET(mask, (const uint64_t *)&u->uc_sigmask);
	/*
	 * glibc's ucontext_t keeps its FP image 8-byte aligned only.  A
	 * failed restore may have changed the control words: the caller's
	 * come back, as nothing may change.  PKRU is left alone.
	 */
	ua__fpu_save_ctl(s);
	err = ua__restore_fpstate(block, fp, false, &fpu);
	if (err) {
		ua__fpu_load_ctl(s->mxcsr, s->fcw);
		goto fail;
	}
	ua__fpu_load_ctl(fpu.mxcsr, fpu.fcw);
	r->r8 = g[REG_R8];
	r->r9 = g[REG_R9];
	r->r10 = g[REG_R10];
	r->r11 = g[REG_R11];
	r->r12 = g[REG_R12];
	r->r13 = g[REG_R13];
	r->r14 = g[REG_R14];
	r->r15 = g[REG_R15];
	r->rdi = g[REG_RDI];
	r->rsi = g[REG_RSI];
	r->rbp = g[REG_RBP];
	r->rbx = g[REG_RBX];
	r->rdx = g[REG_RDX];
	r->rax = g[REG_RAX];
	r->rcx = g[REG_RCX];
	r->rsp = g[REG_RSP];
	r->rip = g[REG_RIP];
	r->eflags = (r->eflags & ~FIX_EFLAGS) | (g[REG_EFL] & FIX_EFLAGS);
	r->orig_rax = (uint64_t)-1;
	ua__sig_set_blocked(t, mask);
	t->regs_replaced = true;
	/* Block mode: this read window folds into the exit to guest mode. */
	return (long)r->rax;
efault:
	err = -EFAULT;
fail:
	if (block)
		ua_user_read_access_end();
	return err == -EINVAL ? -EINVAL : -EFAULT;
}

long ua__sys_swapcontext(struct ua_task *t, struct ua_pt_regs *r)
{
	bool block = t->frame_mode == UA_FRAME_BLOCK;
	ucontext_t *oucp = (ucontext_t *)r->rsi;
	const ucontext_t *ucp = (const ucontext_t *)r->rdx;

	if (oucp && save_context(block, t, oucp))
		return -EFAULT;
	if (!ucp)
		return 0;
	return load_context(block, t, ucp);
}
