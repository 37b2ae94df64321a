// SPDX-License-Identifier: MIT
/*
 * Delivery on the way back to guest code: the kernel's get_signal() /
 * handle_signal() / signal_delivered() loop, syscall restart, default
 * actions, and the forced SIGSEGV of a frame that cannot be built or read.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "frame.h"


/* Default action: 0 ignore, 1 terminate, 2 terminate with core. */
static int default_action(int sig)
{
	switch (sig) {
	case SIGQUIT:
	case SIGILL:
	case SIGTRAP:
	case SIGABRT:
	case SIGBUS:
	case SIGFPE:
	case SIGSEGV:
	case SIGXCPU:
	case SIGXFSZ:
	case SIGSYS:
		return 2;
	case SIGCHLD:
	case SIGCONT:
	case SIGURG:
	case SIGWINCH:
	/* No job control in the engine: stop signals do nothing. */
	case SIGSTOP:
	case SIGTSTP:
	case SIGTTIN:
	case SIGTTOU:
		return 0;
	}
	return 1;
}

#define STOP_SIGS                                                   \
	(SIGBIT(SIGSTOP) | SIGBIT(SIGTSTP) | SIGBIT(SIGTTIN) | \
	 SIGBIT(SIGTTOU))

static void close_window(void)
{
	if (ua_self.win_kind == UA_WIN_WRITE)
		ua_user_write_access_end();
	else if (ua_self.win_kind == UA_WIN_READ)
		ua_user_read_access_end();
	else if (ua_self.win_kind)
		ua_user_access_end();
}

/*
 * Re-issue the interrupted syscall after the handler: resume at the
 * ua__syscall entry with RSP back on the return address, which is still
 * in place just below the saved RSP, and the saved argument registers.
 * A trapped `syscall` instruction is re-executed as the kernel does it:
 * RIP back over the 2-byte instruction, the number back in RAX.
 */
static void restart_syscall(struct ua_task *t, struct ua_pt_regs *r)
{
	if (t->trap_entry) {
		r->rip -= 2;
		r->rax = r->orig_rax;
		return;
	}
	r->rip = (uint64_t)ua__syscall;
	r->rsp -= 8;
}

static bool in_syscall(const struct ua_pt_regs *r)
{
	return r->orig_rax != (uint64_t)-1;
}

/* handle_signal()'s restart rules when a handler is about to run. */
static void restart_for_handler(struct ua_task *t, struct ua_pt_regs *r,
				const struct ua_ksigaction *ka)
{
	if (!in_syscall(r))
		return;
	switch ((long)r->rax) {
	case -ERESTARTNOHAND:
	case -ERESTART_RESTARTBLOCK:
		r->rax = (uint64_t)-EINTR;
		break;
	case -ERESTARTSYS:
		if (!(ka->flags & SA_RESTART)) {
			r->rax = (uint64_t)-EINTR;
			break;
		}
		/* fallthrough */
	case -ERESTARTNOINTR:
		restart_syscall(t, r);
		break;
	}
	r->orig_rax = (uint64_t)-1;
}

static void kernel_info(siginfo_t *info, int sig, int code)
{
	memset(info, 0, sizeof(*info));
	info->si_signo = sig;
	info->si_code = code;
}

/*
 * force_sig() with HANDLER_CURRENT: a blocked or ignored SIGSEGV is reset
 * to the default action so the task cannot survive by ignoring it.
 */
static void force_with_info(struct ua_task *t, int sig, const siginfo_t *info,
			    bool fatal)
{
	struct ua_sigstate *s = sigstate(t);
	struct ua_ksigaction *ka = &s->action[sig];

	if (fatal || (s->blocked & SIGBIT(sig)) ||
	    ka->handler == (uint64_t)(uintptr_t)SIG_IGN) {
		ka->handler = (uint64_t)(uintptr_t)SIG_DFL;
		ua__sig_set_blocked(t, s->blocked & ~SIGBIT(sig));
	}
	ua__sig_send(t, sig, info, false);
}

void ua__force_sig(struct ua_task *t, int sig)
{
	siginfo_t info;

	kernel_info(&info, sig, SI_KERNEL);
	force_with_info(t, sig, &info, false);
}

/* A frame for sig could not be built: SIGSEGV, fatal if sig was SIGSEGV. */
void ua__force_sigsegv(struct ua_task *t, int sig)
{
	siginfo_t info;

	kernel_info(&info, SIGSEGV, SI_KERNEL);
	force_with_info(t, SIGSEGV, &info, sig == SIGSEGV);
}

bool ua__sig_guest_fault(struct ua_task *t, int sig, const siginfo_t *info)
{
	struct ua_sigstate *s = sigstate(t);

	if (!s)
		return false;
	/* What the kernel puts in the frame: the fault's own trap and code. */
	s->trapno = t->fault_trapno;
	s->err = t->fault_err;
	/* cr2 is the page-fault address; other traps leave it 0 here. */
	s->cr2 = sig == SIGSEGV || sig == SIGBUS ?
			 (uint64_t)(uintptr_t)info->si_addr : 0;
	force_with_info(t, sig, info, false);
	return true;
}

static _Noreturn void die(struct ua_task *t, int sig)
{
	struct ua_sigstate *s = sigstate(t);

	close_window();
	pthread_mutex_lock(&s->lock);
	s->exited = true;
	pthread_mutex_unlock(&s->lock);
	ua__task_exit(t, sig); /* no core file: no core-dump bit */
}

void ua__sig_exit_work(struct ua_task *t)
{
	struct ua_sigstate *s = sigstate(t);
	struct ua_pt_regs *r = &t->regs;
	bool handled = false;
	siginfo_t info;
	int sig;

	/* What the host sent the process since (hostsig.c), queued first. */
	if (ua__host_sig_pending(t))
		ua__host_sig_drain();
	while ((sig = ua__sig_dequeue(t, &info))) {
		struct ua_ksigaction *ka = &s->action[sig];

		if (ka->handler == (uint64_t)(uintptr_t)SIG_IGN)
			continue;
		if (ka->handler == (uint64_t)(uintptr_t)SIG_DFL) {
			if (sig == SIGKILL || default_action(sig))
				die(t, sig);
			/* The task standing for the process stops it. */
			if (SIGBIT(sig) & STOP_SIGS) {
				ua__host_stop(t, sig);
				if (ua__host_sig_pending(t))
					ua__host_sig_drain();
			}
			continue;
		}
		/* A frame built earlier in this loop: its window closes now. */
		close_window();
		restart_for_handler(t, r, ka);
		if (ua__setup_rt_frame(t, sig, &info, ka)) {
			ua__force_sigsegv(t, sig);
			continue;
		}
		ua__signal_delivered(t, sig, ka);
		t->nr_signals++;
		handled = true;
	}
	if (handled)
		return;
	/* No handler ran: interrupted syscalls restart, the mask comes back. */
	if (in_syscall(r) && ((long)r->rax == -ERESTARTNOHAND ||
			      (long)r->rax == -ERESTARTSYS ||
			      (long)r->rax == -ERESTARTNOINTR))
		restart_syscall(t, r);
	/* The kernel's restart_syscall: the number register says which. */
	if (in_syscall(r) && (long)r->rax == -ERESTART_RESTARTBLOCK) {
		r->rdi = UA_NR_restart_syscall;
		restart_syscall(t, r);
	}
	r->orig_rax = (uint64_t)-1;
	if (s->restore_mask) {
		s->restore_mask = false;
		ua__sig_set_blocked(t, s->saved_mask);
	}
}
