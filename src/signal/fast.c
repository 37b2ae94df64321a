// SPDX-License-Identifier: MIT
/*
 * A task's signal to itself and its rt_sigreturn on the rewrite fast path
 * (src/task/trap_fast.c says what such code may and may not do: it runs
 * on the guest's FS base).  A libc's raise() is tgkill() of the caller
 * by itself; with nothing else pending the kernel queues the signal and
 * delivers it on the way out of that very syscall.  Here the two are one
 * step: the frame is built at once, with the block-mode helpers the full
 * path uses (frame.h), inside a write window that the unlock folds, as
 * the full path's exit folds it.  rt_sigreturn takes the common frame:
 * the plain XSAVE image (fpu.c, ua__fpu_restore_plain()), the altstack
 * unchanged.  Everything else declines before it changes anything that
 * matters, and the full path does the call from the start: a frame that
 * cannot be built or read, a handler that is not a function, per-access
 * frames, full-context frames, and builds whose accessors are not inline
 * machine code (the portable ones, debug windows, no optimisation to fold
 * the block-mode helpers).  Where PKRU is XSAVE state, the guest's PKRU
 * (t->pkru, the live value: trap_fast.c runs only while it is the
 * monitor's own) goes into the frame as the full path writes it
 * (ua__fill_rt_frame()), and rt_sigreturn takes the frame's through
 * ua__pkru_set_guest(), as the full path does; trap_fast.c hands a
 * changed one to the guest on the way out.
 */
#include <errno.h>

#include "frame.h"

#if UA_FORCE_GENERIC_ARCH || UA_DEBUG_WINDOWS || !defined(__OPTIMIZE__)
#define FAST_SIGNALS 0
#else
#define FAST_SIGNALS 1
#endif

#if FAST_SIGNALS

/*
 * Zero n words: a string instruction, because a compiler may turn a
 * memset or a loop into a call to the C library's memset.
 */
static inline UA_FAST void fast_zero(void *p, size_t n)
{
	asm volatile("rep stosq" : "+D"(p), "+c"(n) : "a"(0ul) : "memory");
}

/* Anything in the task's state that needs the full path. */
static inline UA_FAST bool fast_ok(struct ua_task *t)
{
	return t->frame_mode == UA_FRAME_BLOCK && !sigstate(t)->exited;
}

/* Copy n words: a string instruction, for fast_zero()'s reason. */
static inline UA_FAST void fast_copy(void *to, const void *from, size_t n)
{
	asm volatile("rep movsq" : "+D"(to), "+S"(from), "+c"(n) : : "memory");
}

/*
 * The checks of a delivery of sig, and where its frame goes: true with
 * *ka, *frame, *fp and *len set, or false with nothing changed.  The
 * frame's RAX is the syscall's result, 0, as after the full path; the
 * caller puts RAX back if it goes no further.
 */
static inline UA_FAST bool fast_frame_place(struct ua_task *t, int sig,
					    struct ua_ksigaction **ka,
					    uint64_t *frame, uint64_t *fp,
					    uint64_t *len)
{
	struct ua_sigstate *s = sigstate(t);
	struct ua_pt_regs *r = &t->regs;

	if (!fast_ok(t))
		return false;
	*ka = &s->action[sig];
	if ((*ka)->handler == (uint64_t)(uintptr_t)SIG_DFL ||
	    (*ka)->handler == (uint64_t)(uintptr_t)SIG_IGN ||
	    !((*ka)->flags & UA_SA_RESTORER))
		return false;
	r->rax = 0;
	if (ua__get_sigframe(s, r, *ka, frame, fp))
		return false;
	*len = *fp + ua__fpu_frame_size() - *frame;
	return ua__space_has(t->sp, (void *)*frame, *len) &&
	       ua__exit_store_ok_at(t->sp, *frame);
}

/*
 * Build the frame placed by fast_frame_place() and enter the handler, in
 * a write window that the unlock folds, as the full path's exit folds
 * it: 0, or UA_FAST_DECLINE with the window's counts taken back.
 */
static inline UA_FAST long
fast_frame_build(struct ua_task *t, struct ua_thread *self, int sig,
		 struct ua_ksigaction *ka, const siginfo_t *info,
		 uint64_t frame, uint64_t fp, uint64_t len)
{
	struct ua_sigstate *s = sigstate(t);
	struct ua_pt_regs *r = &t->regs;

	ua__fpu_save_ctl(s);
	ua__none_window_open(self, t->sp, UA_WIN_WRITE, (void *)frame, len);
	if (ua__fill_rt_frame(true, t, info, ka, NULL, NULL, frame, fp,
			      s->blocked)) {
		/* The full path builds it again and fails the same way. */
		ua__win_forget(self);
		self->stats.windows--;
		self->stats.switches--;
		return UA_FAST_DECLINE;
	}
	r->orig_rax = (uint64_t)-1;
	ua__handler_regs(r, sig, frame, ka);
	r->eflags = ua__user_eflags(r->eflags);
	ua__signal_delivered(t, sig, ka);
	t->nr_signals++;
	ua__fpu_fresh_from(s->mxcsr, s->fcw);
	return 0;
}

/* The siginfo of a signal the task sends itself (syscalls.c sender_info). */
static inline UA_FAST void fast_self_info(siginfo_t *si, int sig, int code,
					  pid_t pid, uid_t uid)
{
	fast_zero(si, sizeof(*si) / 8);
	si->si_signo = sig;
	si->si_code = code;
	si->si_pid = pid;
	si->si_uid = uid;
}

/*
 * sig is blocked: queue it as ua__sig_send() would, without s->lock
 * (signal_internal.h says why that is enough for a task's own queue).
 * Standard signals only: they coalesce, and need no queue entry.
 */
static inline UA_FAST long fast_queue_self(struct ua_task *t, int sig, int code,
					   pid_t pid, uid_t uid)
{
	struct ua_sigstate *s = sigstate(t);
	uint64_t bit = SIGBIT(sig);
	siginfo_t *si = &s->own.std_info[sig];

	if (sig >= UA_SIGRTMIN || s->exited || !ua__sigq_trylock(&s->own))
		return UA_FAST_DECLINE;
	if (!(atomic_load_explicit(&s->own.pending, memory_order_relaxed) &
	      bit)) {
		fast_self_info(si, sig, code, pid, uid);
		atomic_fetch_or(&s->own.pending, bit);
	}
	ua__sigq_unlock(&s->own);
	return 0;
}

/*
 * sig, sent by the task to itself (si_code code: SI_TKILL or SI_USER),
 * as the full path's send and exit work would with nothing else pending:
 * delivered at once (0, the regs are the handler's and a write window
 * over the frame is open), queued when it is blocked (0), or
 * UA_FAST_DECLINE.
 */
UA_FAST long ua__fast_signal_self(struct ua_task *t, struct ua_thread *self,
				  int sig, int code)
{
	struct ua_sigstate *s = sigstate(t);
	struct ua_pt_regs *r = &t->regs;
	uint64_t frame, fp, len, rax = r->rax;
	pid_t pid = ua__fast_monitor_pid();
	uid_t uid = ua__fast_monitor_uid();
	struct ua_ksigaction *ka;
	siginfo_t info;

	if (sig < 1 || sig > UA_NSIG || !pid || uid == (uid_t)-1)
		return UA_FAST_DECLINE;
	if (s->blocked & SIGBIT(sig))
		return fast_queue_self(t, sig, code, pid, uid);
	if (!fast_frame_place(t, sig, &ka, &frame, &fp, &len))
		goto decline;
	if (ka->flags & SA_SIGINFO)
		fast_self_info(&info, sig, code, pid, uid);
	if (!fast_frame_build(t, self, sig, ka, &info, frame, fp, len))
		return 0;
decline:
	r->rax = rax;
	return UA_FAST_DECLINE;
}

/*
 * A standard signal that a new mask let through, delivered on the way
 * out of rt_sigprocmask as the exit work would: taken off the queue
 * once its frame has a place, and put back if the frame cannot be
 * written (the exit work then takes it and fails the same way).  Left
 * pending, for the exit work, whenever this cannot deliver it.
 */
static inline UA_FAST void fast_deliver_pending(struct ua_task *t,
						struct ua_thread *self)
{
	struct ua_sigstate *s = sigstate(t);
	uint64_t frame, fp, len, bit;
	struct ua_ksigaction *ka;
	siginfo_t info;
	int sig;

	sig = ua__next_signal(atomic_load(&s->own.pending) & ~s->blocked);
	if (!sig || sig >= UA_SIGRTMIN ||
	    !fast_frame_place(t, sig, &ka, &frame, &fp, &len))
		return;
	bit = SIGBIT(sig);
	if (!ua__sigq_trylock(&s->own))
		return;
	fast_copy(&info, &s->own.std_info[sig], sizeof(info) / 8);
	atomic_fetch_and(&s->own.pending, ~bit);
	ua__sigq_unlock(&s->own);
	if (!fast_frame_build(t, self, sig, ka, &info, frame, fp, len))
		return;
	/* As it was, unless the same signal came meanwhile (it coalesces). */
	ua__sigq_lock(&s->own);
	if (!(atomic_load_explicit(&s->own.pending, memory_order_relaxed) &
	      bit)) {
		fast_copy(&s->own.std_info[sig], &info, sizeof(info) / 8);
		atomic_fetch_or(&s->own.pending, bit);
	}
	ua__sigq_unlock(&s->own);
}

/*
 * rt_sigprocmask(how, set, oldset, sigsetsize) as sys_rt_sigprocmask()
 * (syscalls.c) does it, with the same windows and results, then the
 * delivery of a signal the new mask lets through; or UA_FAST_DECLINE
 * where the full path must tell (a size other than 8, a pointer outside
 * the space).
 */
UA_FAST long ua__fast_sigprocmask(struct ua_task *t, struct ua_thread *self,
				  int how, uint64_t uset, uint64_t uoset,
				  uint64_t size)
{
	struct ua_sigstate *s = sigstate(t);
	uint64_t set, old = s->blocked, mask = old;

	if (size != 8 || (uset && !ua__space_has(t->sp, (void *)uset, 8)) ||
	    (uoset && !ua__space_has(t->sp, (void *)uoset, 8)))
		return UA_FAST_DECLINE;
	if (uset) {
		ua__none_window_open(self, t->sp, UA_WIN_READ, (void *)uset, 8);
		ua_unsafe_get_user(set, (const uint64_t *)uset, efault);
		ua__none_window_close(self);
		if (ua__sigmask_how(how, &mask, set))
			return -EINVAL;
		ua__sig_set_blocked(t, mask);
	}
	if (uoset) {
		ua__none_window_open(self, t->sp, UA_WIN_WRITE, (void *)uoset,
				     8);
		ua_unsafe_put_user(old, (uint64_t *)uoset, efault);
		ua__none_window_close(self);
	}
	/* A -EFAULT result leaves a signal it let through to the exit work. */
	if (atomic_load_explicit(&s->own.pending, memory_order_relaxed) &
	    ~s->blocked)
		fast_deliver_pending(t, self);
	return 0;
efault:
	ua__none_window_close(self);
	return -EFAULT;
}

/* Is the FP area at fp (in the read window) the plain XSAVE image? */
static inline UA_FAST bool fast_fpstate(struct ua_thread *self,
					const struct ua_space *sp, uint64_t fp,
					struct ua_fpu_restored *out)
{
	size_t size = ua__fpu_frame_size();
	struct ua_fp_sw sw;
	uint32_t magic2;

	if (!fp || !ua__fpu.xsave || !ua__space_has(sp, (void *)fp, size))
		return false;
	/* The window grows over the FP area, as ua__window_extend() does. */
	if (fp < self->win_lo)
		self->win_lo = fp;
	if (fp + size > self->win_hi)
		self->win_hi = fp + size;
	ua_unsafe_copy_from_user(&sw, (const void *)(fp + UA_FP_SW_OFF),
				 sizeof(sw), efault);
	if (!ua__fp_sw_xsave(&sw))
		return false;
	ua_unsafe_get_user(magic2, (const uint32_t *)(fp + sw.xsize), efault);
	if (magic2 != FP_XSTATE_MAGIC2)
		return false;
	return ua__fpu_restore_plain(fp, sw.xfeat & ua__fpu.xfeatures, out) ==
	       1;
efault:
	return false;
}

/*
 * rt_sigreturn of a frame the full path would take without XRSTOR and
 * without an altstack change: the syscall's result (the frame's RAX),
 * with the frame's read window left open for the unlock to fold, as the
 * full path of a trapped rt_sigreturn does (its entry locks, so there is
 * no entry fold); or UA_FAST_DECLINE.  The FP control words may have been reset when it
 * declines: the full path loads them from the frame again.
 */
UA_FAST long ua__fast_sigreturn(struct ua_task *t, struct ua_thread *self)
{
	struct ua_sigstate *s = sigstate(t);
	struct ua_pt_regs *r = &t->regs;
	struct ua_rt_sigframe *f = (struct ua_rt_sigframe *)(r->rsp - 8);
	struct ua_fpu_restored fpu;
	struct ua_sigcontext mc;
	struct ua_kstack st;
	uint64_t mask, flags;

	if (!fast_ok(t) || s->nfull || !ua__space_has(t->sp, f, sizeof(*f)))
		return UA_FAST_DECLINE;
	ua__none_window_open(self, t->sp, UA_WIN_READ, f, sizeof(*f));
	/* Every word the full path reads, so that a fault is the same. */
	ua_unsafe_get_user(mask, &f->uc.uc_sigmask, decline);
	ua_unsafe_get_user(flags, &f->uc.uc_flags, decline);
	(void)flags;
	if (ua__read_sigcontext(true, &mc, &f->uc.uc_mcontext))
		goto decline;
	ua_unsafe_get_user(st.sp, &f->uc.uc_stack.sp, decline);
	ua_unsafe_get_user(st.flags, &f->uc.uc_stack.flags, decline);
	ua_unsafe_get_user(st.size, &f->uc.uc_stack.size, decline);
	/* An unchanged altstack is left as it is (ua__do_sigaltstack()). */
	if (st.sp != s->altstack.sp || st.flags != s->altstack.flags ||
	    st.size != s->altstack.size)
		goto decline;
	if (!fast_fpstate(self, t->sp, mc.fpstate, &fpu))
		goto decline;
	ua__sig_set_blocked(t, mask);
	ua__restore_regs(r, &mc);
	r->eflags = ua__user_eflags(r->eflags);
	/* The x87 status word is clear after the restore: no reads needed. */
	ua__fpu_set_ctl(fpu.mxcsr, fpu.fcw);
	/* Given to the guest by the fast path's exit (trap_fast.c). */
	if (fpu.pkru_valid)
		ua__pkru_set_guest(t, fpu.pkru);
	return (long)r->rax;
decline:
	ua__win_forget(self);
	self->stats.windows--;
	self->stats.switches--;
	return UA_FAST_DECLINE;
}

#else /* !FAST_SIGNALS */

UA_FAST long ua__fast_signal_self(struct ua_task *t, struct ua_thread *self,
				  int sig, int code)
{
	(void)t, (void)self, (void)sig, (void)code;
	return UA_FAST_DECLINE;
}

UA_FAST long ua__fast_sigreturn(struct ua_task *t, struct ua_thread *self)
{
	(void)t, (void)self;
	return UA_FAST_DECLINE;
}

UA_FAST long ua__fast_sigprocmask(struct ua_task *t, struct ua_thread *self,
				  int how, uint64_t uset, uint64_t uoset,
				  uint64_t size)
{
	(void)t, (void)self, (void)how, (void)uset, (void)uoset, (void)size;
	return UA_FAST_DECLINE;
}

#endif
