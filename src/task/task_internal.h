/* SPDX-License-Identifier: MIT */
/*
 * Task internals shared with the assembly entry code (offsets checked by
 * static asserts in task.c) and with the signal layer above.
 */
#ifndef UA_TASK_INTERNAL_H
#define UA_TASK_INTERNAL_H

#include <signal.h>
#include <ucontext.h>

#include <uaccess/task.h>

#include "../internal.h"
#include "../protect/pkru.h"

/* Offsets used by src/arch/x86_64/entry.S. */
#define UA_TASK_REGS 0
#define UA_TASK_MON_RSP 168
#define UA_TASK_MON_SAVED 176
#define UA_TASK_EXIT_RSP 184
#define UA_TASK_FPU_RESTORE 192
#define UA_TASK_IRQ_PENDING 200

enum ua_task_state { UA_TASK_NEW, UA_TASK_RUNNING, UA_TASK_DEAD };

/*
 * What the signal entry stubs and the trap return path need while a task
 * with trapped syscalls runs (src/arch/x86_64/trap.S, offsets asserted in
 * trap_sud.c): no monitor C code may run before the monitor's FS base is
 * back, and %fs is not usable to find it.  A signal entry finds the block
 * from its alternate stack (altstack.c), a rewritten site through GS,
 * checked against me (trap_rewrite.c).
 */
struct ua_trap_block {
	uint64_t mon_fs;        /* the monitor thread's FS base */
	uint64_t guest_fs;	/* the guest's, as of its last entry */
	struct ua_task *task;
	uint8_t sel;            /* Syscall User Dispatch selector */
	uint8_t resume_monitor; /* a handler redirected into the monitor */
	uint8_t mode;           /* enum ua_trap in force (trap_sud.c) */
	/*
	 * Where a trampoline jumps once GS found this block: the rewrite
	 * tail (trap_rewrite.c) or a patched site's (trap_patch.c).
	 */
	void (*rw_entry)(void);
	struct ua__rw_sites *rw; /* rewritten or patched sites, or NULL */
	/* The running thread's ua_thread, for code that cannot read %fs. */
	struct ua_thread *self;
	/* The FS base the innermost signal entry interrupted (trap.S). */
	uint64_t entry_fs;
	/* This block's own address: what a GS base that finds it reads. */
	struct ua_trap_block *me;
	/* Where ua__ret_to_guest_gs (entry.S) jumps: the guest's RIP. */
	uint64_t exit_rip;
};

/*
 * Offsets trap.S uses (asserted in trap_sud.c): the trap block's self,
 * and the FS-base write counters of struct ua_thread's insn.
 */
#define UA_TB_SELF 48
#define UA_TB_ENTRY_FS 56
#define UA_TB_ME 64
#define UA_TB_EXIT_RIP 72
/* struct ua_task's tb (entry.S and trap.S reach it from the task). */
#define UA_TASK_TB 208
/* An alternate signal stack slot (altstack.c), a power of two. */
#define UA_ASTACK_SLOT (128 << 10)
#define UA_THREAD_INSN_WRFSBASE 40
#define UA_THREAD_INSN_FS_SYSCALLS 48

/* Selector values (linux/prctl.h SYSCALL_DISPATCH_FILTER_*). */
#define UA_SUD_ALLOW 0
#define UA_SUD_BLOCK 1

struct ua_task {
	struct ua_pt_regs regs;  /* must stay first: entry.S */
	uintptr_t mon_rsp;       /* monitor stack for syscalls */
	uintptr_t mon_saved;     /* ua_task_run's saved context */
	/* The full exit path's final RSP (the staged RIP's slot): entry.S. */
	uintptr_t exit_rsp;
	/* An XSAVE image the exit path loads last (then clears), or NULL. */
	void *fpu_restore;
	/*
	 * Set by the interrupt handler (on the task's thread) when it found
	 * monitor code running: the exit code checks it after its last C
	 * code and runs the exit work again (entry.S).
	 */
	volatile uint8_t irq_pending;
	struct ua_trap_block tb; /* at UA_TASK_TB */
	/* The host thread running the task, 0 when none (for the kick). */
	pid_t host_tid;
	/* A kick is on its way (irq.c): one interrupt covers every signal
	 * queued before its handler runs. */
	int kick_sent;
	/*
	 * Full context: the XSAVE image of the instant a fault or an
	 * asynchronous interrupt stopped guest code (valid while full_ctx:
	 * until a frame carries it or the exit path loads it back), and the
	 * image rt_sigreturn of a full-context frame read (xstate.c).
	 */
	void *xsave_ctx;
	void *xsave_ret;
	bool full_ctx;
	struct ua_space *sp;
	enum ua_task_state state;
	pid_t tid;
	int status;              /* wait status once dead */
	enum ua_frame_mode frame_mode;
	void *stack;             /* lowest mapped byte of the guest stack */
	size_t stack_size;
	/* Set by a syscall that replaced the whole register state. */
	bool regs_replaced;
	/* The host's trap number and error code of the last guest fault. */
	uint64_t fault_trapno, fault_err;
	/* Syscall entry did not lock: the handler's first window does. */
	bool entry_unlocked;
	ua_syscall_hook_t hook;
	void *hook_data;
	struct ua_space *prev_space; /* the thread's current space before run */
	void *sig;               /* the signal layer's per-task state */
	/* Trapped syscalls (trap_sud.c): on, and this syscall came that way. */
	bool trap;
	bool trap_entry;
	/* The guest owns its FS base (a loaded program): switched at entry. */
	bool own_fs;
	uint64_t saved_gs;       /* the thread's GS base before ua_task_run */
	bool ppid_armed;	 /* ua__ppid_arm() succeeded for this run */
	unsigned long nr_signals; /* handlers started, for statistics */
	void *lx;                /* the linux layer's per-process state */
	void (*lx_free)(struct ua_task *t);
	/*
	 * The linux layer's per-thread state, and its say on how the task
	 * ends (a thread group's exit: src/linux/sys_thread.c): called by
	 * ua__task_exit() in monitor mode, it returns the status to end with.
	 */
	void *lx_thread;
	int (*lx_exit)(struct ua_task *t, int wstatus);
	/*
	 * A signal for the whole process, from the host, sent to the
	 * thread the linux layer picks (one that does not block it), or
	 * NULL: to this task.
	 */
	long (*lx_sig_group)(struct ua_task *t, int sig, const siginfo_t *info);
	/* The patch trap's state is another task's (a thread's leader). */
	bool patch_shared;
	/*
	 * Hosts with PKRU in XSAVE (ua__pkru_in_xstate): PKRU is user state
	 * the kernel keeps per thread, so the guest has its own.  pkru is the
	 * guest's, saved at every entry and put back at every exit;
	 * pkru_monitor is the monitor thread's, put back at every entry (the
	 * pkey backend's lock does that itself).
	 */
	uint32_t pkru, pkru_monitor;
	/* PR_SET_TSC(PR_TSC_SIGSEGV): RDTSC faults in guest code. */
	bool tsc_off;
	/* The patch trap's code ranges and trampolines (trap_patch.c). */
	struct ua__patch *patch;
	/* ua_task_opts.patch_after as resolved (0: by section size). */
	uint32_t patch_after;
	/*
	 * The guest's SIGCHLD action as the host applies it while the task
	 * stands for the process (hostsig.c): SA_NOCLDSTOP, SA_NOCLDWAIT
	 * and UA_CHLD_IGNORE.
	 */
	unsigned int host_chld;
	/* The guest's parent-death signal (PR_SET_PDEATHSIG), 0: none. */
	int pdeath_sig;
};

/* host_chld: the guest ignores SIGCHLD (its children are reaped). */
#define UA_CHLD_IGNORE 0x100u

/*
 * The Linux syscall table trapped syscalls go to (src/linux/table.c): the
 * one reference from this layer up, so that a static link that traps
 * syscalls always has the table.
 */
UA_HIDDEN long ua__lx_dispatch(struct ua_task *t, struct ua_pt_regs *r);

/* trap_sud.c; *mode: 0 (no trapping), UA_TRAP_SUD or UA_TRAP_REWRITE */
UA_HIDDEN int ua__trap_check(const struct ua_task_opts *opts, uint8_t *mode);
UA_HIDDEN int ua__trap_run_begin(struct ua_task *t);
UA_HIDDEN void ua__trap_run_end(struct ua_task *t);
UA_HIDDEN int ua__trap_after_fork(struct ua_task *t, pid_t parent);
/*
 * A new task for a thread of parent's: same space and settings, no stack
 * of its own (the caller's registers say where it runs), the parent's
 * signal dispositions shared.  NULL with errno set.
 */
UA_HIDDEN struct ua_task *ua__task_clone(struct ua_task *parent);
/* fork.c: a guest's fork; in the child only t goes on.  pid, 0, -errno. */
UA_HIDDEN pid_t ua__task_fork(struct ua_task *t);
UA_HIDDEN void ua__irq_after_fork(void);
UA_HIDDEN bool ua__ppid_after_fork(pid_t parent);
UA_HIDDEN int ua__host_sig_after_fork(struct ua_task *t);
UA_HIDDEN void ua__host_sig_before_fork(void);
UA_HIDDEN void ua__trap_init(void);
UA_HIDDEN void ua__trap_free(struct ua_task *t);
/* The guest's GS base (arch_prctl ARCH_SET_GS / ARCH_GET_GS). */
UA_HIDDEN int ua__guest_gs_set(struct ua_task *t, uint64_t gs);
UA_HIDDEN uint64_t ua__guest_gs_get(const struct ua_task *t);
/* altstack.c */
UA_HIDDEN int ua__astack_get(bool required);
UA_HIDDEN void ua__astack_put(void);
UA_HIDDEN void ua__astack_set_tb(struct ua_trap_block *tb);
/*
 * trap_rewrite.c: one syscall site that trapped, under rewrite (0f 05
 * became ff d0) or patch (the instruction before it became a jmp to a
 * trampoline; why says why not, and trips then counts its traps).
 */
struct ua__rw_site {
	uint64_t addr;        /* the site: its `syscall` instruction */
	uint64_t nr;          /* the syscall number of its first trap */
	unsigned long trips;  /* calls through the site */
	uint8_t why;          /* 0 patched, else enum ua__patch_why */
	uint8_t len;          /* patch: the relocated instruction's bytes */
};
/* Counted without a lock: threads share the table (ua__task_clone()). */
UA_FAST_INLINE void ua__site_trip(struct ua__rw_site *e)
{
	__atomic_store_n(&e->trips, __atomic_load_n(&e->trips,
						    __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}
UA_HIDDEN struct ua__rw_site *ua__rw_site_get(struct ua_task *t,
					      uint64_t addr, uint64_t nr,
					      bool *is_new);
/*
 * trap_patch.c (the default trap mechanism): why a site that trapped
 * stayed on Syscall User Dispatch.  The decoder's own reasons follow
 * UA_PATCH_WHY_INSN (ua__insn_why()).
 */
enum ua__patch_why {
	UA_PATCH_OK = 0,
	UA_PATCH_WHY_NOT_CODE,   /* not in a code section of a mapped ELF file */
	UA_PATCH_WHY_NOT_SWEPT,  /* not an instruction the sweep found */
	UA_PATCH_WHY_NOT_EXEC,   /* its page is not executable */
	UA_PATCH_WHY_CHANGED,    /* its bytes are not what the sweep saw */
	UA_PATCH_WHY_PAGES,      /* the 5 bytes to patch cross a page */
	UA_PATCH_WHY_FULL,       /* no trampoline slot left */
	UA_PATCH_WHY_FAILED,     /* memory or a write failed */
	UA_PATCH_WHY_NO_HOLE,    /* short, and no hole a jmp rel8 reaches */
	UA_PATCH_WHY_WAIT,       /* its section's traps do not pay a sweep yet */
	UA_PATCH_WHY_ONCE,       /* trapped once; a second trap patches it */
	UA_PATCH_WHY_INSN = 16,
};
UA_HIDDEN const char *ua__patch_why_str(unsigned int why);
UA_HIDDEN void ua__patch_site(struct ua_task *t, const struct ua_pt_regs *r);
UA_HIDDEN int ua__patch_after(const struct ua_task_opts *opts, uint32_t *after);
/* A fault or trap stopped guest code in a trampoline: see trap_patch.c. */
UA_HIDDEN void ua__patch_fault(struct ua_task *t, siginfo_t *info);
UA_HIDDEN void ua__patch_irq(struct ua_task *t);
UA_HIDDEN void ua__patch_free(struct ua_task *t);
UA_HIDDEN void ua__patch_entry(void); /* trap.S */
/*
 * What the loader and mmap tell the patch trap: the code sections of
 * the objects mapped (only sites the sweep of one of them found are
 * patched), each with its object's .eh_frame where the space has it
 * and the file it came from, and the pages in the space reserved for
 * trampolines.  A section replaces those it overlaps.
 * ua__patch_forget(): guest code in a range may have changed (mmap,
 * mprotect, munmap over it).
 */
struct ua__eh_src {
	uint64_t addr, len; /* the .eh_frame in the space (len 0: none) */
	const char *path;   /* the file it was mapped from, or NULL */
	uint64_t dev, ino;  /* that file's, when it was mapped */
	uint64_t off;       /* the section's offset in the file */
};
UA_HIDDEN int ua__patch_add_code(struct ua_task *t, uint64_t start,
				 uint64_t len, const struct ua__eh_src *eh);
UA_HIDDEN void ua__patch_after_fork(struct ua_task *t);
/*
 * Code other threads may be running is changed with the kernel's int3
 * protocol; these serialise their cores (membarrier SYNC_CORE), after
 * one registration per process (false: the host has no such command).
 */
UA_HIDDEN bool ua__code_sync_ready(void);
UA_HIDDEN bool ua__code_sync(void);
UA_HIDDEN int ua__rw_sites_reserve(struct ua_task *t);
UA_HIDDEN bool ua__rewrite_int3(struct ua_task *t, const siginfo_t *info);
UA_HIDDEN void ua__rewrite_after_fork(void);
UA_HIDDEN void ua__patch_set_area(struct ua_task *t, uint64_t start,
				  uint64_t len);
/* src/task/eh_frame.c */
UA_HIDDEN long ua__eh_frame_starts(const uint8_t *eh, size_t len,
				   uint64_t vaddr, uint64_t **out);
UA_HIDDEN void ua__patch_forget(struct ua_task *t, uint64_t start,
				uint64_t len);
/* The fast path's munmap: is a code section in the range (no lock)? */
UA_HIDDEN bool ua__fast_patch_overlaps(const struct ua_task *t,
				       uint64_t start, uint64_t len);
/* Bytes of space the loader reserves for trampolines. */
#define UA_PATCH_AREA_SIZE ((size_t)64 << 10)
/* Up to max sites of t by address into out; returns how many t has. */
UA_HIDDEN size_t ua__rewrite_sites(const struct ua_task *t,
				   struct ua__rw_site *out, size_t max);
extern UA_HIDDEN int ua__rewrite_pkey;
UA_HIDDEN int ua__rewrite_setup(void);
UA_HIDDEN void ua__rewrite_site(struct ua_task *t, const struct ua_pt_regs *r);
UA_HIDDEN void ua__rewrite_trip(struct ua_task *t, uint64_t site);
UA_HIDDEN bool ua__rewrite_fixup(struct ua_task *t, struct ua_pt_regs *r,
				 bool at_site);
/*
 * A guest fault on the way through a rewritten or patched site: runs the
 * site's syscall, resumes the guest, or returns (info possibly adjusted).
 */
UA_HIDDEN void ua__rewrite_fault(struct ua_task *t, siginfo_t *info);
UA_HIDDEN _Noreturn void ua__trap_dispatch(struct ua_task *t, bool rewritten);
UA_HIDDEN void ua__rewrite_free(struct ua_task *t);
UA_HIDDEN void ua__rewrite_entry(void); /* trap.S */
UA_HIDDEN _Noreturn void ua__trap_syscall(struct ua_task *t);
UA_HIDDEN _Noreturn void ua__rewrite_syscall(struct ua_task *t);
/* src/arch/x86_64/trap.S */
UA_HIDDEN _Noreturn void ua__ret_to_guest_trap(struct ua_pt_regs *regs,
					       struct ua_trap_block *tb,
					       bool store_ok);
UA_HIDDEN void ua__sud_entry(void);
UA_HIDDEN void ua__sigsys_entry(int sig, siginfo_t *info, void *uc);
extern UA_HIDDEN bool ua__have_fsgsbase;
extern UA_HIDDEN uint8_t ua__fs_switching;

/* What the signal layer plugs into the task layer. */
struct ua_task_hooks {
	int (*create)(struct ua_task *t);
	void (*destroy)(struct ua_task *t);
	/* Is there work for the way back (a deliverable signal)?  Cheap:
	 * runs on every syscall exit. */
	bool (*work_pending)(struct ua_task *t);
	/* The work itself, on the full exit path; may rewrite regs and
	 * leave a window open to be folded into the unlock. */
	void (*exit_work)(struct ua_task *t);
	/* A host fault taken in guest code: the task's regs hold the
	 * faulting context.  Returns false when the task must die. */
	bool (*guest_fault)(struct ua_task *t, int sig, const siginfo_t *info);
	/* A host signal forwarded to t (hostsig.c), in ordinary context. */
	void (*host_signal)(struct ua_task *t, int sig, const siginfo_t *info);
	/* Wake t from a sleep in the monitor with nothing for it, so that
	 * it answers the questions xreq.c filed. */
	void (*poke)(struct ua_task *t);
};

typedef long (*ua_syscall_fn)(struct ua_task *t, struct ua_pt_regs *regs);
/* The handler of one ua__syscall() number, for the linux layer. */
UA_HIDDEN ua_syscall_fn ua__syscall_fn(unsigned int nr);

UA_HIDDEN void ua__task_set_hooks(const struct ua_task_hooks *h);
UA_HIDDEN int ua__syscall_register(unsigned int nr, ua_syscall_fn fn,
				   int flags);
/* End the running task with a wait status; does not return. */
UA_HIDDEN _Noreturn void ua__task_exit(struct ua_task *t, int wstatus);
extern UA_HIDDEN const struct ua_task_hooks *ua__task_hooks;
/* The id the next task takes (task.c); tests set it. */
extern UA_HIDDEN atomic_int ua__next_tid;

/* Is there exit work?  Inline: it runs on every syscall exit. */
static inline bool ua__exit_work_pending(struct ua_task *t)
{
	const struct ua_task_hooks *h = ua__task_hooks;

	return h && h->work_pending && h->work_pending(t);
}
/*
 * Bytes below the guest RSP that ua__ret_to_guest's fast path writes
 * (EXIT_SCRATCH in entry.S): RIP goes to [rsp - 136], under the red zone.
 */
#define UA_EXIT_SCRATCH 136u

/*
 * May the exit store its 8 bytes below the target RSP?  Only inside the
 * space: an RSP a hook or a sigreturn frame pointed into monitor memory
 * must not turn into a monitor write.  Elsewhere IRETQ, which writes
 * nothing, and a bad RSP then faults in guest code.
 */
static inline UA_FAST bool ua__exit_store_ok_at(const struct ua_space *sp,
					       uintptr_t rsp)
{
	return rsp >= sp->base + UA_EXIT_SCRATCH &&
	       rsp - UA_EXIT_SCRATCH <= sp->limit - 8;
}

static inline UA_FAST bool ua__exit_store_ok(const struct ua_task *t)
{
	return ua__exit_store_ok_at(t->sp, t->regs.rsp);
}

/*
 * RFLAGS on the way back to guest code: what user code can hold at CPL 3
 * (CF PF AF ZF SF TF DF OF NT AC ID: a syscall's return keeps every one,
 * as the kernel's does -- NT only where the host's syscalls keep it),
 * with IF and bit 1 set; never IOPL, RF, VM, VIF
 * or VIP.  TF set takes the exit's IRETQ form (entry.S), so that the
 * flag comes on with the return itself: the monitor is never stepped.
 */
#define UA_USER_EFLAGS 0x244DD5u
/*
 * What monitor code must not inherit from the guest: AC (unaligned
 * accesses would fault), TF (it would be stepped), DF (the ABI's), NT
 * (IRETQ with NT set faults in 64-bit mode).  The kernel's syscall
 * entry masks the same (arch/x86/kernel/cpu/common.c, syscall_init()).
 */
#define UA_MONITOR_EFLAGS_CLEAR 0x44500u
/* NT where the host's own syscalls clear it (task.c), else 0. */
extern UA_HIDDEN uint64_t ua__exit_eflags_drop;
static inline UA_FAST uint64_t ua__user_eflags(uint64_t eflags)
{
	return (eflags & UA_USER_EFLAGS & ~ua__exit_eflags_drop) | 0x202;
}

/* Exit work, unlock (folded when a window is open), resume guest code. */
UA_HIDDEN _Noreturn void ua__return_to_guest(struct ua_task *t);

/* src/protect/protect.c, src/core/window.c */
UA_HIDDEN bool ua__protect_lock_to_window(int kind, const void *ptr,
					  size_t len);
UA_HIDDEN bool ua__window_extend(const void *ptr, size_t len);

/* Syscall flags for ua__syscall_register(). */
#define UA_SYSCALL_ENTRY_FOLD 1 /* opens a window first: entry folds into it */

extern UA_TLS struct ua_task *ua__cur_task;
/*
 * The task whose guest code the thread is running; NULL while it runs
 * monitor code (a syscall, a hook, no task at all).  ua__syscall refuses
 * calls made with it NULL.
 */
extern UA_TLS struct ua_task *ua__guest_task;

/* LAHF/SAHF work in 64-bit mode (not on the first x86-64 CPUs). */
extern UA_HIDDEN bool ua__have_sahf;
/* The OS enabled protection keys and XCR0 has PKRU (CPUID 7:ECX.OSPKE). */
extern UA_HIDDEN bool ua__pkru_in_xstate;
UA_HIDDEN bool ua__cpu_pkru_in_xstate(void);

/*
 * Entry from guest mode, before the lock: note the guest's PKRU and give
 * the monitor its own.  Under the pkey backend the lock puts the
 * monitor's PKRU back itself.
 */
static inline void ua__pkru_entry(struct ua_task *t)
{
	if (!ua__pkru_in_xstate)
		return;
	t->pkru = ua__rdpkru();
	if (t->sp->ops->kind != UA_PROTECT_PKEY && t->pkru != t->pkru_monitor)
		ua__wrpkru(t->pkru_monitor);
}

/*
 * A new PKRU for the guest (rt_sigreturn), given at the next exit.  The
 * bits of key 0 (the monitor's own memory, which the exit path still
 * touches) and, under the pkey backend, of the space's key (the exit
 * path may write the guest stack) stay as they were.
 */
static inline UA_FAST void ua__pkru_set_guest(struct ua_task *t, uint32_t v)
{
	uint32_t keep = UA_PKRU_MASK(0);

	if (t->sp->ops->kind == UA_PROTECT_PKEY)
		keep |= UA_PKRU_MASK(t->sp->pkey);
	t->pkru = (v & ~keep) | (t->pkru & keep);
}

/* Exit to guest mode, after the unlock: the guest's PKRU back. */
static inline void ua__pkru_exit(struct ua_task *t)
{
	if (ua__pkru_in_xstate && ua__rdpkru() != t->pkru)
		ua__wrpkru(t->pkru);
}

/*
 * A guest that made RDTSC fault (PR_SET_TSC, PR_TSC_SIGSEGV) has the
 * host's flag for it, TIF_NOTSC, set only while its own code runs: the
 * monitor reads the TSC itself (the vDSO's clock_gettime()).  One flag
 * test at each entry and exit for every other task; a host prctl() at
 * each for those that asked (task.c).
 */
UA_HIDDEN void ua__tsc_host(bool off);

static inline void ua__tsc_entry(struct ua_task *t)
{
	if (ua_unlikely(t->tsc_off))
		ua__tsc_host(false);
}

static inline void ua__tsc_exit(struct ua_task *t)
{
	if (ua_unlikely(t->tsc_off))
		ua__tsc_host(true);
}

/* sw_reserved.magic1 of an XSAVE-format signal frame (uapi/asm/sigcontext.h) */
#define UA_FP_XSTATE_MAGIC1 0x46505853u

/* src/arch/x86_64/xstate.c */
extern UA_HIDDEN uint32_t ua__xstate_size; /* XCR0's standard-format size */
extern UA_HIDDEN bool ua__xstate_xsave;
extern UA_HIDDEN unsigned char ua__xstate_init_image[576];
UA_HIDDEN void *ua__xstate_alloc(void);
UA_HIDDEN void ua__xstate_init_to(void *buf);
UA_HIDDEN void ua__xstate_capture(void *buf, const ucontext_t *uc);

/* task.c: host signals that interrupted guest code */
UA_HIDDEN bool ua__guest_context(const ucontext_t *uc);
UA_HIDDEN bool ua__in_exit_code(uintptr_t pc);
UA_HIDDEN void ua__capture_guest(struct ua_task *t, const ucontext_t *uc);
UA_HIDDEN void ua__redirect_to_monitor(struct ua_task *t, ucontext_t *uc,
				       void (*entry)(void), const void *arg);

/* ppid.c: the parent's pid, cached while a parent-death signal is set */
UA_HIDDEN bool ua__ppid_arm(void);
UA_HIDDEN void ua__ppid_disarm(void);
UA_HIDDEN void ua__ppid_changed(const siginfo_t *info, ucontext_t *uc);
UA_HIDDEN pid_t ua__ppid(void);
UA_HIDDEN pid_t ua__fast_ppid(void); /* 0: not cached */
/* The guest's PR_SET_PDEATHSIG: 0 or -errno. */
UA_HIDDEN int ua__pdeath_set(struct ua_task *t, int sig);

/*
 * A call through a rewritten site (ua__rewrite_entry saved what the
 * `call *%rax` left: RIP the return address, RFLAGS untouched) as a
 * `syscall` instruction leaves it: rcx the next RIP, r11 RFLAGS.
 */
static inline UA_FAST void ua__rewrite_regs(struct ua_pt_regs *r)
{
	r->orig_rax = r->rax;
	r->rcx = r->rip;
	r->r11 = r->eflags;
}

/*
 * xreq.c: questions from other processes' monitors, filed by the
 * interrupt signal's handler and answered by the function the Linux
 * layer registers (proc_remote.c), on a task's thread.  A question's
 * sigqueue() value has UA_XREQ_MARK in its top 16 bits.
 */
#define UA_XREQ_MARK 0x7551u
typedef void (*ua__xreq_fn)(struct ua_task *t, pid_t from, uint64_t value,
			    bool asleep);
UA_HIDDEN void ua__xreq_set_handler(ua__xreq_fn fn);
UA_HIDDEN bool ua__xreq_post(const siginfo_t *info);
/* asleep: t was sleeping in the monitor for its guest (not running). */
UA_HIDDEN void ua__xreq_serve(struct ua_task *t, bool asleep);
UA_HIDDEN void ua__xreq_after_fork(void);
UA_HIDDEN bool ua__xreq_filed(void);
/* hostsig.c: wake the forwarding thread, which pokes the target. */
UA_HIDDEN void ua__host_sig_poke(void);

/* trap_fast.c, trap_rewrite.c: the rewrite entry's fast path */
UA_HIDDEN int ua__fast_rewrite(struct ua_task *t);
UA_HIDDEN struct ua__rw_site *ua__fast_rw_site(struct ua_task *t,
						uint64_t site);
/* The Linux layer's part: src/linux/fast.c */
#define UA_FAST_DECLINE ((long)-0x7fffffffffffffffL - 1)
UA_HIDDEN long ua__fast_lx(struct ua_task *t, struct ua_thread *self,
			   bool *work);

/* irq.c: the reserved interrupt signal */
UA_HIDDEN int ua__irq_setup(void);
/* What a kick does, from a handler already on the task's thread. */
UA_HIDDEN void ua__irq_interrupt(ucontext_t *uc);

/* src/arch/x86_64/intr_syscall.S: a host call a guest's signal ends. */
UA_HIDDEN long ua__intr_syscall(long nr, long a1, long a2, long a3, long a4,
				long a5, long a6, const volatile uint8_t *flag);
UA_HIDDEN void ua__intr_fixup(ucontext_t *uc);

/*
 * A host call made for the calling task that may sleep: -EINTR, without
 * sleeping, once an interrupt has marked the task (irq_pending), however
 * close to the syscall instruction it came.  Monitor code with no task
 * makes it as a plain call.
 */
static inline long ua__host_call(long nr, long a1, long a2, long a3, long a4,
				 long a5, long a6)
{
	static const volatile uint8_t never;
	struct ua_task *t = ua__cur_task;

	return ua__intr_syscall(nr, a1, a2, a3, a4, a5, a6,
				t ? &t->irq_pending : &never);
}
UA_HIDDEN void ua__irq_entry(int sig, siginfo_t *info, void *uc); /* trap.S */

/*
 * hostsig.c: host signals forwarded to the task that stands for the
 * process (ua_task_forward_host_signals()).  Recorded by the handler,
 * queued by ua__host_sig_drain() at the target's exit work or by the
 * forwarding thread.
 */
extern UA_HIDDEN _Atomic uint64_t ua__hs_pending;
extern UA_HIDDEN _Atomic int ua__hs_busy;
extern UA_HIDDEN struct ua_task *_Atomic ua__hs_target;
UA_HIDDEN void ua__host_signal(int sig, siginfo_t *info, ucontext_t *uc);
UA_HIDDEN void ua__host_sig_drain(void);
/* sig sent to the monitor process comes back to the guest as itself. */
UA_HIDDEN bool ua__host_sig_forwarded(int sig);
UA_HIDDEN void ua__host_sig_forget(struct ua_task *t);
UA_HIDDEN void ua__host_stop(struct ua_task *t, int sig);
/* The guest's SIGCHLD action changed: t->host_chld's bits, to the host. */
UA_HIDDEN void ua__host_sig_chld(struct ua_task *t, unsigned int mode);
/* From a handler: sig, sent to the process as info, for the target. */
UA_HIDDEN void ua__host_signal_as(int sig, const siginfo_t *info,
				  ucontext_t *uc);

/* Host signals stand for t's own (the kernel's signals to the process). */
static inline UA_FAST bool ua__host_sig_target(const struct ua_task *t)
{
	return atomic_load_explicit(&ua__hs_target, memory_order_relaxed) == t;
}

/* Recorded or being queued for t: its exit work drains (cheap, inline). */
static inline UA_FAST bool ua__host_sig_pending(const struct ua_task *t)
{
	return (atomic_load_explicit(&ua__hs_pending, memory_order_relaxed) ||
		atomic_load_explicit(&ua__hs_busy, memory_order_relaxed)) &&
	       ua__host_sig_target(t);
}
/* A signal became deliverable to t: interrupt its thread if another. */
UA_HIDDEN void ua__task_kick(struct ua_task *t);

/* src/arch/x86_64/entry.S */
UA_HIDDEN int ua__task_enter(struct ua_task *t);
UA_HIDDEN _Noreturn void ua__task_leave(struct ua_task *t, int status);
UA_HIDDEN _Noreturn void ua__ret_to_guest(struct ua_pt_regs *regs);
UA_HIDDEN _Noreturn void ua__ret_to_guest_iret(struct ua_pt_regs *regs);
UA_HIDDEN void ua__guest_fault_entry(void);
UA_HIDDEN void ua__guest_irq_entry(void);
/* handler_exit.S */
UA_HIDDEN _Noreturn void ua__handler_to_monitor(struct ua_task *t,
						void (*entry)(void),
						const void *arg,
						const sigset_t *mask);
/*
 * ua__syscall's entry before its move to the monitor stack: not guest
 * code for an interrupt, though it runs on the guest's stack (entry.S).
 */
extern UA_HIDDEN const char ua__syscall_entry[] __asm__("ua__syscall");
extern UA_HIDDEN const char ua__syscall_on_monitor[];
/* irq.c: where an interrupt found the thread (a test looks too). */
enum { UA_IRQ_MONITOR, UA_IRQ_EXIT, UA_IRQ_GUEST };
UA_HIDDEN int ua__irq_at(const struct ua_task *t, const ucontext_t *uc);
/* The exit code after its last C code, where an interrupt abandons it. */
extern UA_HIDDEN const char ua__exit_fast_begin[], ua__exit_fast_end[];
extern UA_HIDDEN const char ua__exit_full_begin[], ua__exit_full_end[];

#endif /* UA_TASK_INTERNAL_H */
