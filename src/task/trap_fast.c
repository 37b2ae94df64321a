// SPDX-License-Identifier: MIT
/*
 * The rewrite entry's fast path: syscalls answered before the monitor's
 * FS base is loaded.
 *
 * Without the FSGSBASE instructions (a CPU or a hypervisor that hides
 * them) the only way to change the FS base is arch_prctl(), a host
 * syscall, and a trapped syscall needs two: the monitor's base on entry,
 * the guest's on exit.  On some virtual machines each costs more than
 * the guest's whole syscall would on the host.  So ua__rewrite_entry
 * (trap.S) first calls ua__fast_rewrite() on the guest's FS base.  That
 * code never reads %fs: no thread-local variable (the thread's ua_self
 * comes from the trap block, found through GS), no libc call, no stack
 * protector, no sanitizer (UA_FAST; tools/check-fast-path checks the
 * machine code).  It takes only the commonest, simplest case: backend
 * none, no hook or trace, no window open, nothing pending, RDTSC not
 * made to fault (monitor code runs with the TSC readable, and only the
 * full path switches it), a syscall the
 * Linux layer can answer from its own state (src/linux/fast.c).  It does
 * the same bookkeeping as the full path, so the counts of --stats are
 * the same either way.  Anything else returns 0 before any change, and
 * the stub loads the monitor's FS base and takes the full path.
 *
 * Where PKRU is XSAVE state (ua__pkru_in_xstate) it is the guest's while
 * this runs.  The commonest case is that it is the monitor's own too
 * (nothing ever set another): then nothing is switched, one RDPKRU notes
 * it as the guest's for a frame, and only an rt_sigreturn that gave the
 * guest another PKRU costs a WRPKRU on the way out, as on the full path.
 * A guest running with a PKRU of its own takes the full path, which
 * hands PKRU over at entry and exit.
 *
 * A host signal that arrives meanwhile finds monitor code on the monitor
 * stack (irq.c, task.c ua__guest_context): its entry stub loads the
 * monitor's FS base for the handler and puts the guest's back after;
 * an interrupt leaves irq_pending, which the exit code checks, and a
 * fault in the one guest access (the clear of a read) is fixed up
 * through the exception table like any other.
 */
#include "task_internal.h"

/*
 * Entered from ua__rewrite_entry on the monitor stack, with the regs
 * saved as that stub leaves them.  1: handled, the regs are the result
 * and the stub returns to the guest through ua__ret_to_guest (whose first
 * instruction checks irq_pending); 0: nothing was changed.
 */
UA_FAST int ua__fast_rewrite(struct ua_task *t)
{
	struct ua_thread *self = t->tb.self;
	struct ua_pt_regs *r = &t->regs;
	struct ua_space *sp = t->sp;
	struct ua__rw_site *site;
	bool work = false;
	uint32_t pkru = 0;
	long ret;

	if (!self || self->cur != sp || !ua__none_lock_ok(self, sp) ||
	    t->hook || t->fpu_restore || t->full_ctx || t->tsc_off ||
	    !ua__exit_store_ok(t))
		return 0;
	if (ua__pkru_in_xstate) {
		pkru = ua__rdpkru();
		if (pkru != t->pkru_monitor)
			return 0;
		/* The guest's, for a frame (what ua__pkru_entry() notes). */
		t->pkru = pkru;
	}
	/* The return address is the instruction after the 2-byte site. */
	site = ua__fast_rw_site(t, r->rip - 2);
	if (!site)
		return 0;
	ua__none_lock(self);
	ua__rewrite_regs(r);
	ret = ua__fast_lx(t, self, &work);
	if (ret == UA_FAST_DECLINE) {
		/* Nothing done: the full path counts its own lock. */
		self->stats.switches--;
		self->guest_space = sp;
		return 0;
	}
	ua__site_trip(site);
	t->trap_entry = true;
	t->regs_replaced = false;
	r->rax = (uint64_t)ret;
	r->eflags &= ~ua__exit_eflags_drop;
	/* A frame's window (src/signal/fast.c) folds into the unlock. */
	if (self->win_kind)
		ua__win_forget(self);
	ua__none_unlock(self, sp);
	/* An rt_sigreturn gave the guest another PKRU (ua__pkru_exit()). */
	if (ua__pkru_in_xstate && t->pkru != pkru)
		ua__wrpkru_self(self, t->pkru);
	/* Exit work (a signal queued meanwhile): the exit code runs it. */
	if (work)
		t->irq_pending = 1;
	return 1;
}
