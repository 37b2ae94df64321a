/* SPDX-License-Identifier: MIT */
/*
 * The signal layer's per-task state and the pieces its files share.
 * Facts on layout and semantics: the kernel's arch/x86/kernel/signal*.c,
 * kernel/signal.c and arch/x86/kernel/fpu/signal.c.
 */
#ifndef UA_SIGNAL_INTERNAL_H
#define UA_SIGNAL_INTERNAL_H

#include <errno.h>
#include <signal.h>

#include <uaccess/signal.h>

#include "../task/task_internal.h"

#define UA_NSIG 64
/* The kernel's SIGRTMIN (glibc reserves two more for itself). */
#define UA_SIGRTMIN 32
#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31)
#endif
/*
 * The kernel's x86 MINSIGSTKSZ (uapi asm/signal.h).  Not glibc's macro:
 * with _GNU_SOURCE it is sysconf(_SC_MINSIGSTKSZ), 8192 on some machines.
 */
#define UA_MINSIGSTKSZ 2048u
#define SIGBIT(sig) (1ull << ((sig) - 1))
#define UNBLOCKABLE (SIGBIT(SIGKILL) | SIGBIT(SIGSTOP))

/* Kernel restart codes; never visible to guest code. */
#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516

/* The kernel's sigaction flag bits that exist (UAPI_SA_FLAGS on x86). */
#define UA_SA_RESTORER 0x04000000u
#define UA_SA_UAPI_FLAGS                                                  \
	(SA_NOCLDSTOP | SA_NOCLDWAIT | SA_SIGINFO | SA_ONSTACK | SA_RESTART | \
	 SA_NODEFER | SA_RESETHAND | UA_SA_RESTORER | 0x800u)

/* The kernel's struct sigaction for x86-64 (what rt_sigaction reads). */
struct ua_ksigaction {
	uint64_t handler;
	uint64_t flags;
	uint64_t restorer;
	uint64_t mask;
};

/* The kernel's stack_t (same layout as glibc's). */
struct ua_kstack {
	uint64_t sp;
	int32_t flags;
	int32_t pad;
	uint64_t size;
};

/* Full-context frames remembered per task for rt_sigreturn. */
#define UA_FULL_FRAMES 16

struct ua_sigq {
	int sig;
	siginfo_t info;
};

/*
 * Signals pending with their siginfo: a task's own, or those sent to its
 * thread group (the kernel's struct sigpending, task->pending and
 * signal->shared_pending).  qlock covers every field: see ua_sigstate.
 */
struct ua_sigpend {
	_Atomic int qlock;
	_Atomic uint64_t pending;
	siginfo_t std_info[UA_SIGRTMIN];  /* one per pending standard signal */
	struct ua_sigq queue[UA_SIGQUEUE_MAX];
	int qlen;
	uint64_t noinfo;       /* RT signals pending without a queue entry */
};

/*
 * Dispositions, shared by the threads of a process (CLONE_SIGHAND: the
 * kernel's struct sighand_struct), and the signals sent to the whole
 * group that no thread has taken yet (shared: any thread that does not
 * block one takes it; tasks outside a group never have any).
 */
struct ua_sighand {
	_Atomic int refs;
	struct ua_ksigaction action[UA_NSIG + 1];
	struct ua_sigpend shared;
	/*
	 * Something outside the signal layer shows the process's pending
	 * signals (a signalfd's readiness, src/linux/sys_signalfd.c): while
	 * watchers is nonzero, ua__sig_pend_hook runs after every change to
	 * a pending set of the process's tasks or to shared.
	 */
	_Atomic int watchers;
};

/*
 * Called with t's signal lock held or not, never a queue lock: it may
 * take a lock of its own and make host calls, and may not take a task's
 * signal lock.
 */
extern UA_HIDDEN void (*ua__sig_pend_hook)(struct ua_task *t);


struct ua_sigstate {
	/*
	 * Two locks.  lock goes with cond: whoever sleeps or wakes a sleeper
	 * takes it.  own.qlock covers the task's queue (struct
	 * ua_sigpend): every change takes it, inside lock where lock is
	 * held.  The rewrite fast path may call no libc (src/task/
	 * trap_fast.c) and so takes qlock alone, and only by trying once:
	 * a busy queue sends that call the full way.  It changes the queue
	 * only of its own task, which is running it and so sleeps on nothing.
	 * The group's queue (sh->shared) has its own qlock, never held with
	 * a task's.
	 */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct ua_ksigaction *action; /* sh->action */
	struct ua_sighand *sh;
	_Atomic uint64_t blocked; /* written by the task's thread only */
	/* rt_sigtimedwait's set while it sleeps: it takes those too. */
	_Atomic uint64_t waiting;
	uint64_t saved_mask;   /* sigsuspend's mask to put back */
	bool restore_mask;
	struct ua_sigpend own;
	struct ua_kstack altstack;
	bool woken;            /* ua_task_wake() */
	bool exited;
	/* The guest's FP control words as of the last prepare step. */
	uint32_t mxcsr;
	uint16_t fcw;
	/* Set when a fault is being delivered: trap number, error, address. */
	uint64_t trapno, err, cr2;
	/* Full-context frames not yet returned from (fpu_full.c). */
	uint64_t full_frames[UA_FULL_FRAMES];
	int nfull;
	/* ITIMER_REAL (timers.c, under its lock): CLOCK_MONOTONIC ns of the
	 * expiry (0: disarmed) and the reload interval. */
	uint64_t itimer_expiry, itimer_interval;
	/* An interrupted nanosleep for restart_syscall: deadline, rem. */
	uint64_t restart_deadline, restart_rem;
};

static inline UA_FAST struct ua_sigstate *sigstate(struct ua_task *t)
{
	return t->sig;
}

static inline void ua__sig_pend_changed(struct ua_task *t)
{
	if (atomic_load_explicit(&sigstate(t)->sh->watchers,
				 memory_order_relaxed) &&
	    ua__sig_pend_hook)
		ua__sig_pend_hook(t);
}

#define SYNC_MASK                                                        \
	(SIGBIT(SIGSEGV) | SIGBIT(SIGBUS) | SIGBIT(SIGILL) | SIGBIT(SIGTRAP) | \
	 SIGBIT(SIGFPE) | SIGBIT(SIGSYS))

/* The next signal to deliver: lowest number, synchronous ones first. */
static inline UA_FAST int ua__next_signal(uint64_t mask)
{
	if (mask & SYNC_MASK)
		mask &= SYNC_MASK;
	return mask ? __builtin_ctzll(mask) + 1 : 0;
}

/* rt_sigprocmask's how applied to *mask: 0, or -EINVAL for a bad how. */
static inline UA_FAST int ua__sigmask_how(int how, uint64_t *mask,
					  uint64_t set)
{
	switch (how) {
	case SIG_BLOCK: *mask |= set; return 0;
	case SIG_UNBLOCK: *mask &= ~set; return 0;
	case SIG_SETMASK: *mask = set; return 0;
	}
	return -EINVAL;
}

static inline UA_FAST bool ua__sigq_trylock(struct ua_sigpend *q)
{
	return !atomic_exchange_explicit(&q->qlock, 1, memory_order_acquire);
}

/* Held for a few stores at a time: spinning beats sleeping. */
static inline UA_FAST void ua__sigq_lock(struct ua_sigpend *q)
{
	while (!ua__sigq_trylock(q)) {
		while (atomic_load_explicit(&q->qlock, memory_order_relaxed)) {
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
		}
	}
}

static inline UA_FAST void ua__sigq_unlock(struct ua_sigpend *q)
{
	atomic_store_explicit(&q->qlock, 0, memory_order_release);
}

/* What is pending for the task: its own and its group's. */
static inline UA_FAST uint64_t ua__sig_pending(const struct ua_sigstate *s)
{
	return atomic_load_explicit(&s->own.pending, memory_order_relaxed) |
	       atomic_load_explicit(&s->sh->shared.pending,
				    memory_order_relaxed);
}

/*
 * Has the task exited?  A death by signal marks the signal state at once;
 * any other exit (ua_sys_exit, returning from the entry) shows only in
 * the task's state once ua_task_run() is back.
 */
static inline bool ua__task_gone(struct ua_task *t)
{
	return sigstate(t)->exited ||
	       __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == UA_TASK_DEAD;
}

/* ss_sp < sp <= ss_sp + ss_size: the stack grows down. */
static inline UA_FAST bool ua__on_stack_raw(const struct ua_sigstate *s,
					    uint64_t sp)
{
	return sp > s->altstack.sp && sp - s->altstack.sp <= s->altstack.size;
}

static inline UA_FAST bool ua__on_sig_stack(const struct ua_sigstate *s,
					    uint64_t sp)
{
	if (s->altstack.flags & SS_AUTODISARM)
		return false;
	return ua__on_stack_raw(s, sp);
}

static inline UA_FAST int ua__sas_ss_flags(const struct ua_sigstate *s,
					   uint64_t sp)
{
	if (!s->altstack.size)
		return SS_DISABLE;
	return ua__on_sig_stack(s, sp) ? SS_ONSTACK : 0;
}

/* state.c */
/* A thread's task (ua__task_clone()): parent's dispositions and mask. */
UA_HIDDEN void ua__sig_clone(struct ua_task *parent, struct ua_task *child);
UA_HIDDEN int ua__sig_send(struct ua_task *t, int sig, const siginfo_t *info,
			   bool rt_may_fail);
UA_HIDDEN int ua__sig_dequeue(struct ua_task *t, siginfo_t *info);
/*
 * rt_sigtimedwait's dequeue: a signal of set only, whatever the mask,
 * never SIGKILL or SIGSTOP (those end the wait with -EINTR and act).
 */
/* Wake and interrupt to to take sig from its group's queue. */
UA_HIDDEN void ua__sig_kick_taker(struct ua_task *to, int sig);
UA_HIDDEN int ua__sig_dequeue_set(struct ua_task *t, uint64_t set,
				  siginfo_t *info);
/*
 * A signal to t's whole thread group, queued where any of its threads
 * may take it; @to (may be NULL) is the one chosen to take it now, as
 * the kernel's complete_signal() picks one that does not block it.
 */
UA_HIDDEN int ua__sig_send_group(struct ua_task *t, struct ua_task *to,
				 int sig, const siginfo_t *info,
				 bool rt_may_fail);
/*
 * A POSIX timer's signal (SI_TIMER, timerid) still pending in t: its
 * si_overrun grows by add and true; false if it is not pending (the
 * kernel queues a timer's signal once: posixtimer_send_sigqueue()).
 */
UA_HIDDEN bool ua__sig_timer_overrun(struct ua_task *t, int sig, int timerid,
				     int add);
UA_HIDDEN struct ua_task *ua__task_lookup_locked(pid_t tid);
UA_HIDDEN void ua__task_registry_lock(void);
UA_HIDDEN void ua__task_registry_unlock(void);
UA_HIDDEN bool ua__sig_ignored(const struct ua_sigstate *s, int sig);
UA_HIDDEN void ua__sig_flush(struct ua_task *t, int sig);

/*
 * Only the task's own thread changes its mask, and never while it waits
 * (ua__sig_wait), so no lock: a sender reading a stale mask only decides
 * whether an ignored signal is dropped, which the kernel also decides at
 * send time.
 */
static inline UA_FAST void ua__sig_set_blocked(struct ua_task *t,
					       uint64_t mask)
{
	struct ua_sigstate *s = t->sig;

	atomic_store_explicit(&s->blocked, mask & ~UNBLOCKABLE,
			      memory_order_relaxed);
}

UA_HIDDEN void ua__sig_wait(struct ua_task *t, bool (*done)(struct ua_task *,
							     void *),
			    void *arg);

/* exec.c: the signal state an execve carries to the new image. */
struct ua_sig_image {
	uint64_t blocked, ignored, pending, noinfo;
	siginfo_t std_info[UA_SIGRTMIN];
	int qlen;
	struct ua_sigq queue[UA_SIGQUEUE_MAX];
};
UA_HIDDEN void ua__sig_exec_save(struct ua_task *t, struct ua_sig_image *img);
UA_HIDDEN int ua__sig_exec_load(struct ua_task *t,
				const struct ua_sig_image *img);

/* deliver.c */
UA_HIDDEN void ua__sig_exit_work(struct ua_task *t);
UA_HIDDEN bool ua__sig_guest_fault(struct ua_task *t, int sig,
				   const siginfo_t *info);
/* syscalls.c */
/* The monitor's pid, read once (getpid() is a real syscall). */
UA_HIDDEN pid_t ua__monitor_pid(void);
UA_HIDDEN bool ua__fast_sig_work_pending(struct ua_task *t);
/* state.c: a host call's EINTR came with a signal for the guest. */
UA_HIDDEN bool ua__sig_interrupted(struct ua_task *t);
UA_HIDDEN bool ua__sig_wait_answer(struct ua_task *t);
/* The child of a guest's fork: nothing pending, no timers (state.c). */
UA_HIDDEN void ua__sig_after_fork(struct ua_task *t);
UA_HIDDEN void ua__timers_after_fork(struct ua_task *t);
UA_HIDDEN pid_t ua__fast_monitor_pid(void);
UA_HIDDEN uid_t ua__monitor_uid(void);
UA_HIDDEN uid_t ua__fast_monitor_uid(void);
UA_HIDDEN void ua__signal_syscalls_init(void);
UA_HIDDEN int ua__do_sigaltstack(struct ua_task *t, const struct ua_kstack *ss,
				 struct ua_kstack *oss, uint64_t sp);
UA_HIDDEN void ua__force_sigsegv(struct ua_task *t, int sig);
UA_HIDDEN void ua__force_sig(struct ua_task *t, int sig);

/* fpu.c: the FP area of a frame. */
struct ua_fpu_layout {
	bool xsave;            /* UC_FP_XSTATE frames */
	bool xcomp;            /* XRSTOR takes compacted images (XSAVEC) */
	uint32_t xstate_size;  /* standard-format XSAVE size (user_size) */
	uint64_t xfeatures;    /* the features a frame may carry */
	uint32_t mxcsr_mask;
	uint32_t pkru_off;     /* PKRU's standard-format offset; 0: none */
};
extern UA_HIDDEN struct ua_fpu_layout ua__fpu;
UA_HIDDEN void ua__fpu_init(void);
/* Bytes the FP area takes in a frame (with MAGIC2 when xsave). */
static inline UA_FAST size_t ua__fpu_frame_size(void)
{
	return ua__fpu.xsave ? ua__fpu.xstate_size + 4 : 512;
}
/* The live control words: read in the prepare step, set for a handler. */
UA_HIDDEN void ua__fpu_save_ctl(struct ua_sigstate *s);
UA_HIDDEN void ua__fpu_fresh(void);
UA_HIDDEN void ua__fpu_fresh_from(uint32_t mxcsr, uint16_t fcw);
UA_HIDDEN void ua__fpu_load_ctl(uint32_t mxcsr, uint16_t fcw);
UA_HIDDEN void ua__fpu_set_ctl(uint32_t mxcsr, uint16_t fcw);
UA_HIDDEN void ua__fpu_x87_clean(void);
/* The first 576 bytes of a frame's FP image (legacy area + header). */
/* The image with default control words, for block mode to copy and patch. */
UA_HIDDEN const unsigned char *ua__fpu_template(void);
UA_HIDDEN void ua__fpu_build_image(const struct ua_sigstate *s,
				   unsigned char img[576]);

/*
 * fpu_restore.S: XRSTOR (rfbm in EDX:EAX) or FXRSTOR of img under an
 * exception-table entry; 0, or -1 when the instruction faulted (#GP,
 * #PF): a bad image.  On success the control words it loaded are stored
 * to *ctl; either way the x87 unit is reset (FNINIT) before returning.
 * The one place an image is judged: a restore of a full image reuses it.
 */
struct ua_fpu_ctl {
	uint16_t fcw;
	uint16_t pad;
	uint32_t mxcsr;
};
UA_HIDDEN int ua__fpu_xrstor(const void *img, uint64_t rfbm,
			     struct ua_fpu_ctl *ctl);
UA_HIDDEN int ua__fpu_fxrstor(const void *img, struct ua_fpu_ctl *ctl);

/* What a restore leaves the guest with. */
struct ua_fpu_restored {
	uint32_t mxcsr;
	uint16_t fcw;
	bool pkru_valid; /* the host has PKRU in XSAVE: pkru is meaningful */
	uint32_t pkru;
};
/*
 * Restore an XSAVE image at fp (the kernel's xrstor_from_user_sigframe)
 * with the features rfbm: XRSTOR runs on the guest's bytes in place, so
 * its alignment, header and MXCSR checks and its reads are the CPU's.
 * Block mode: inside the read window the caller holds over the area; per
 * access: one window of its own.  0, -EFAULT or -EINVAL (a bad frame).
 * The x87 and SSE registers are left reset: the caller loads out's
 * control words with ua__fpu_load_ctl(), or its own on failure.
 */
UA_HIDDEN int ua__fpu_restore_xsave(bool block, uint64_t fp, uint64_t rfbm,
				    struct ua_fpu_restored *out);
/*
 * The common XSAVE image inside an open read window, without XRSTOR (see
 * fpu.c): 1 restored, 0 the instruction must judge it, -EFAULT.
 */
UA_HIDDEN int ua__fpu_restore_plain(uint64_t fp, uint64_t rfbm,
				    struct ua_fpu_restored *out);
/*
 * Restore an FX-only image at fp (FXRSTOR on a copy of its 512 bytes).
 * hw_align: refuse an image off its 16-byte alignment if the host kernel
 * does (asked once); swapcontext takes any alignment.
 */
UA_HIDDEN int ua__fpu_restore_fx(bool block, uint64_t fp, bool hw_align,
				 struct ua_fpu_restored *out);

/* timers.c */
UA_HIDDEN void ua__timer_forget(struct ua_task *t);

/* fpu_full.c: the FP area of full-context frames. */
UA_HIDDEN void ua__note_full_frame(struct ua_sigstate *s, uint64_t frame);
UA_HIDDEN bool ua__take_full_frame(struct ua_sigstate *s, uint64_t frame);
UA_HIDDEN const unsigned char *ua__full_image(const struct ua_task *t);
UA_HIDDEN int ua__write_full_image(bool block, const unsigned char *img,
				   uint64_t fp);
struct ua_fpu_restored;
UA_HIDDEN int ua__restore_fpstate_full(struct ua_task *t, bool block,
				       uint64_t fp,
				       struct ua_fpu_restored *out);

/* frame.c */
UA_HIDDEN int ua__setup_rt_frame(struct ua_task *t, int sig,
				 const siginfo_t *info,
				 const struct ua_ksigaction *ka);
UA_HIDDEN long ua__sys_rt_sigreturn(struct ua_task *t,
				    struct ua_pt_regs *r);

/* fast.c: the rewrite fast path's signals (UA_FAST_DECLINE: not taken) */
UA_HIDDEN long ua__fast_signal_self(struct ua_task *t, struct ua_thread *self,
				    int sig, int code);
UA_HIDDEN long ua__fast_sigreturn(struct ua_task *t, struct ua_thread *self);
UA_HIDDEN long ua__fast_sigprocmask(struct ua_task *t, struct ua_thread *self,
				    int how, uint64_t uset, uint64_t uoset,
				    uint64_t size);

/* swapcontext.c */
UA_HIDDEN long ua__sys_swapcontext(struct ua_task *t, struct ua_pt_regs *r);

#endif /* UA_SIGNAL_INTERNAL_H */
