/* SPDX-License-Identifier: MIT */
/*
 * Guest tasks: a register context that runs guest code on a stack inside a
 * space and enters the monitor only through syscalls.  A syscall saves the
 * full integer register state into the task, switches to the monitor stack
 * and locks the space (entry); on the way back it runs the pending work
 * (signal delivery), unlocks the space and restores every register (exit).
 * x86-64 only; elsewhere ua_task_create() fails with EOPNOTSUPP.
 */
#ifndef UACCESS_TASK_H
#define UACCESS_TASK_H

#include <sys/types.h>

#include <uaccess/compiler.h>
#include <uaccess/space.h>

UA_BEGIN_DECLS

struct ua_task;

/**
 * struct ua_pt_regs - a task's saved integer registers
 *
 * The kernel's x86-64 struct pt_regs layout.  @orig_rax holds the syscall
 * number while a syscall runs; @rax its result on the way out.
 */
struct ua_pt_regs {
	uint64_t r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8;
	uint64_t rax, rcx, rdx, rsi, rdi, orig_rax;
	uint64_t rip, cs, eflags, rsp, ss;
};

/** enum ua_frame_mode - how signal frames are written (see signal.h) */
enum ua_frame_mode {
	UA_FRAME_DEFAULT = 0,   /* UA_FRAME_MODE from the environment, else block */
	UA_FRAME_BLOCK,         /* one write window per frame (the default) */
	UA_FRAME_PER_ACCESS,    /* one checked accessor per field */
};

/** enum ua_trap - how a guest's own `syscall` instructions reach the monitor */
enum ua_trap {
	UA_TRAP_DEFAULT = 0, /* UA_TRAP from the environment, else patch */
	UA_TRAP_SUD,         /* Syscall User Dispatch: exact, one host signal */
	UA_TRAP_REWRITE,     /* trapped sites become calls into a page-0
			      * trampoline (needs page 0; doc/uarun.md) */
	UA_TRAP_PATCH,       /* Syscall User Dispatch, and the instruction
			      * before a trapped site becomes a jump to a
			      * trampoline in the space (doc/uarun.md) */
};

/**
 * struct ua_task_opts - options for ua_task_create()
 * @stack_size: bytes of guest stack, rounded up to a page; 0 picks
 *	UA_TASK_DEFAULT_STACK.  A guard page below it is left unmapped.
 * @frame_mode: signal frame mode; UA_FRAME_DEFAULT reads UA_FRAME_MODE
 *	("block" or "per-access") and falls back to block
 * @trap_syscalls: a `syscall` instruction executed by guest code enters
 *	the monitor like ua__syscall(), with the Linux register convention
 *	(rax number; rdi rsi rdx r10 r8 r9), and is served by the Linux
 *	syscall table (see uaccess/linux.h).  ua_task_exec() always sets it.
 * @trap: the mechanism; UA_TRAP_DEFAULT reads UA_TRAP ("sud", "patch"
 *	or "rewrite") and falls back to patch.  Patching needs what only a
 *	loaded program has (its code sections, trampoline pages: see
 *	ua_task_exec()); a task of ua_task_create() runs the monitor's own
 *	code and so traps every syscall through sud under patch.
 * @patch_after: under patch, a code section's sites are patched once
 *	they have trapped through sud this many times in all (1: at a
 *	site's first trap), because finding them costs a pass over the
 *	whole section.  0 reads UA_PATCH_AFTER ("auto" or a count), else
 *	auto; UA_PATCH_AFTER_AUTO is auto whatever the environment says:
 *	one trap for every 1024 bytes of the section, about the point where
 *	the traps have cost what the pass does.  At most 10^9.
 */
struct ua_task_opts {
	size_t stack_size;
	enum ua_frame_mode frame_mode;
	bool trap_syscalls;
	enum ua_trap trap;
	unsigned int patch_after;
};

#define UA_PATCH_AFTER_AUTO (~0u)

#define UA_TASK_DEFAULT_STACK ((size_t)256 << 10)
#define UA_TASK_MIN_STACK ((size_t)16 << 10)

/**
 * ua_task_create() - create a guest task in a space
 * @sp: the space; it cannot be destroyed while the task lives
 * @entry: the guest function; returning from it exits with status 0
 * @arg: its argument
 * @opts: options, or NULL
 *
 * Return: the task, or NULL with errno set: EINVAL (NULL entry or space,
 * bad options, unknown UA_FRAME_MODE), ENOMEM (the stack does not fit in
 * the space), EOPNOTSUPP (architecture without task support).
 */
UA_EXPORT struct ua_task *ua_task_create(struct ua_space *sp,
					 void (*entry)(void *), void *arg,
					 const struct ua_task_opts *opts);

/**
 * ua_task_run() - run a task on the calling thread until it exits
 * @t: the task; it must not have exited or be running elsewhere
 *
 * Makes the task's space the thread's current space for the duration and
 * gives the thread an alternate signal stack if it has none, so that a
 * fault in guest code (a smashed stack included) ends the task, not the
 * process.
 *
 * Return: a wait status (WIFEXITED/WEXITSTATUS, WIFSIGNALED/WTERMSIG,
 * WCOREDUMP apply), or -EBUSY (already running / exited, or this thread
 * is already running a task), -EINVAL.
 */
UA_EXPORT int ua_task_run(struct ua_task *t);

/**
 * ua_set_interrupt_signal() - choose the host signal that interrupts tasks
 * @sig: a real-time signal (SIGRTMIN..SIGRTMAX), or 0 for none
 *
 * A signal sent to a task that is running guest code on another thread
 * (ua_task_kill(), another task's ua_sys_kill(), a timer) interrupts it
 * with this host signal and is delivered at the interrupted instruction.
 * The default is SIGRTMAX - 3, or the number in the environment variable
 * UA_INTERRUPT_SIGNAL ("none" for none).  The library installs its
 * handler at the first ua_task_run(), and only if the program has left
 * the signal at SIG_DFL; otherwise, or with none, signals to a running
 * task wait for its next syscall.  Call before the first ua_task_run().
 *
 * Return: 0, -EINVAL (not a real-time signal), -EBUSY (already chosen).
 */
UA_EXPORT int ua_set_interrupt_signal(int sig);

/**
 * ua_task_forward_host_signals() - deliver the process's signals to a task
 * @t: the task that stands for the process, or NULL to stop forwarding
 *
 * Signals sent to the monitor process from outside (kill(1), the
 * terminal's SIGINT, SIGQUIT and SIGTSTP, SIGHUP, SIGWINCH, SIGTERM,
 * real-time signals...) become @t's own, as the kernel delivers them to
 * a process: the guest's handler runs with the sender's siginfo
 * (si_code, si_pid, si_uid, si_value), an ignored signal is dropped, a
 * blocked one stays pending, and the default action is taken: the task
 * ends killed by the signal (ua_task_run() returns that status), or, for
 * a stop signal, the whole process is stopped with it until a SIGCONT.
 * A signal that comes while guest code spins is delivered at once (the
 * interrupt signal, ua_set_interrupt_signal(), must be available), one
 * that comes while the task sleeps in a syscall wakes it, and a host
 * call the monitor makes for the task (a read of a terminal) is
 * interrupted and restarted by the guest's own SA_RESTART rules.
 *
 * Kept by the library, never forwarded: SIGKILL and SIGSTOP (the host
 * acts on them itself), SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP (faults),
 * SIGSYS (Syscall User Dispatch), the interrupt signal, glibc's own
 * real-time signals, and SIGTTIN and SIGTTOU, left at the host's default
 * (a background read or write of the terminal stops the process).  The
 * dispositions the program had for the forwarded signals are put back
 * when forwarding stops (NULL, or ua_task_destroy() of @t).  A second
 * thread started by the library blocks every signal and queues them for
 * a task asleep in the monitor; other threads of the program should
 * block the forwarded signals, so that the host picks the task's thread.
 *
 * Return: 0, -EBUSY (another task is the target), or a negative errno
 * value from the host (the thread, the eventfd, sigaction).
 */
UA_EXPORT int ua_task_forward_host_signals(struct ua_task *t);

/**
 * ua_interrupt_signal() - the host signal in use as the interrupt
 *
 * Return: the signal number, or 0 before the first ua_task_run() or when
 * there is none (not chosen, or in use by the program).
 */
UA_EXPORT int ua_interrupt_signal(void);

/**
 * ua_task_signals_delivered() - handlers the signal engine has started in
 * @t (frames built), for statistics
 */
UA_EXPORT unsigned long ua_task_signals_delivered(const struct ua_task *t);

/** ua_task_destroy() - free a task that is not running; NULL is fine */
UA_EXPORT void ua_task_destroy(struct ua_task *t);

/** ua_task_tid() - the task's id, unique in the process */
UA_EXPORT pid_t ua_task_tid(const struct ua_task *t);

/** ua_task_space() - the space the task runs in */
UA_EXPORT struct ua_space *ua_task_space(const struct ua_task *t);

/** ua_current_task() - the task the calling thread is running, or NULL */
UA_EXPORT struct ua_task *ua_current_task(void);

/**
 * ua_task_regs() - the saved registers of a task inside a syscall
 * @t: the task
 *
 * Valid from syscall entry to exit (e.g. in a syscall hook); what is
 * written there is what guest code resumes with.
 */
UA_EXPORT struct ua_pt_regs *ua_task_regs(struct ua_task *t);

/**
 * typedef ua_syscall_hook_t - called on every syscall entry of a task
 * @t: the task
 * @regs: its saved registers (orig_rax is the syscall number)
 * @data: the pointer given to ua_task_set_syscall_hook()
 *
 * Return: true when the hook handled the syscall: nothing is dispatched
 * and guest code resumes with @regs as the hook left them (rax included);
 * false to dispatch normally.
 */
typedef bool (*ua_syscall_hook_t)(struct ua_task *t, struct ua_pt_regs *regs,
				  void *data);

/** ua_task_set_syscall_hook() - install (or, with NULL, remove) a hook */
UA_EXPORT void ua_task_set_syscall_hook(struct ua_task *t,
					ua_syscall_hook_t hook, void *data);

/*
 * The numbers of the library's own syscalls (ua_syscall()); the ua_sys_*
 * wrappers hide them.  A monitor's own syscalls take numbers from
 * UA_NR_MAX up and are served by a syscall hook.
 */
enum ua_syscall_nr {
	UA_NR_nop = 0,
	UA_NR_exit,
	UA_NR_getpid,
	UA_NR_gettid,
	UA_NR_rt_sigreturn,
	UA_NR_kill,
	UA_NR_tgkill,
	UA_NR_rt_sigqueueinfo,
	UA_NR_rt_sigaction,
	UA_NR_rt_sigprocmask,
	UA_NR_rt_sigpending,
	UA_NR_rt_sigsuspend,
	UA_NR_sigaltstack,
	UA_NR_swapcontext,
	UA_NR_pause,
	UA_NR_futex_wait,
	UA_NR_alarm,
	UA_NR_setitimer,
	UA_NR_getitimer,
	UA_NR_nanosleep,
	UA_NR_restart_syscall,
	UA_NR_MAX = 64,
};

/**
 * ua_syscall() - enter the monitor from guest code
 * @nr: the syscall number: one of enum ua_syscall_nr, or a monitor's own
 *	(UA_NR_MAX and up) that its hook (ua_task_set_syscall_hook()) serves
 * @a1: first argument; a hook finds it in regs->rsi (unused ones: 0)
 * @a2: second argument, regs->rdx
 * @a3: third argument, regs->rcx
 * @a4: fourth argument, regs->r8
 * @a5: fifth argument, regs->r9
 *
 * The guest side of a syscall, for calls the ua_sys_* wrappers do not
 * cover: guest code calls it like any function, so the arguments sit in
 * the registers of the C calling convention (@nr in rdi).  It saves
 * every register of the task (struct ua_pt_regs, orig_rax = @nr),
 * switches to the monitor stack, locks the space, runs the hook or the
 * library's handler, does the exit work (signal delivery) and resumes
 * guest code with the registers as the monitor left them; rax is the
 * result.  A number nobody serves
 * returns -ENOSYS.  Called anywhere but from guest code of a running task
 * (monitor code, a hook, a thread without a task) it does nothing and
 * returns -EPERM.
 *
 * Return: the raw result, as the kernel's syscall instruction gives it:
 * a value from -4095 to -1 is a negative errno value (unlike the ua_sys_*
 * wrappers, errno is not touched).
 */
UA_EXPORT long ua_syscall(long nr, long a1, long a2, long a3, long a4,
			  long a5);

/* Guest-side calls: libc-style, -1 with errno set on error. */

/** ua_sys_nop() - the null syscall: enter the monitor and come back */
UA_EXPORT long ua_sys_nop(void);
/** ua_sys_exit() - end the calling task with @status */
UA_EXPORT _Noreturn void ua_sys_exit(int status);
/** ua_sys_getpid() - the monitor's process id */
UA_EXPORT pid_t ua_sys_getpid(void);
/** ua_sys_gettid() - the calling task's id */
UA_EXPORT pid_t ua_sys_gettid(void);

UA_END_DECLS

#endif /* UACCESS_TASK_H */
