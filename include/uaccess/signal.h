/* SPDX-License-Identifier: MIT */
/*
 * The rt signal engine: Linux signal semantics for guest tasks, with
 * frames that are Linux x86-64 rt_sigframes built on the guest stack.
 *
 * Signals are delivered on the way back from a syscall to guest code (the
 * kernel's exit-to-user work), and at an arbitrary instruction: a fault in
 * guest code, or a signal sent from another thread (or a timer) to a task
 * that is running guest code, which interrupts it with the library's
 * interrupt signal (ua_set_interrupt_signal()); those frames carry the
 * full interrupted state.  A task blocked in ua_sys_sigsuspend(),
 * ua_sys_pause(), ua_sys_nanosleep() or ua_sys_futex_wait() is woken at
 * once.
 *
 * Each task is its own process for the purpose of kill(): pid 0, the
 * monitor's pid (ua_sys_getpid()) and the task's own id name the calling
 * task; another task's id names that task.
 */
#ifndef UACCESS_SIGNAL_H
#define UACCESS_SIGNAL_H

#include <signal.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>

#include <uaccess/compiler.h>
#include <uaccess/task.h>

UA_BEGIN_DECLS

/** UA_SIGQUEUE_MAX - queued real-time signals a task may hold */
#define UA_SIGQUEUE_MAX 64

/* Guest-side calls: as libc's wrappers, -1 with errno set on error. */

/**
 * ua_sys_sigaction() - examine and change a signal action
 * @sig: 1..64, not SIGKILL or SIGSTOP for a new action
 * @act: new action (glibc's struct sigaction), or NULL
 * @oact: where to store the old action, or NULL
 *
 * As glibc does, supplies the library's rt_sigreturn restorer when @act
 * has none.  Flags outside the kernel's UAPI set read back as 0.
 * Errors: EINVAL, EFAULT.
 */
UA_EXPORT int ua_sys_sigaction(int sig, const struct sigaction *act,
			       struct sigaction *oact);

/**
 * ua_sys_sigprocmask() - examine and change the blocked mask
 * @how: SIG_BLOCK, SIG_UNBLOCK or SIG_SETMASK
 * @set: the change, or NULL
 * @oset: the old mask, or NULL
 *
 * SIGKILL and SIGSTOP are silently never blocked.  Errors: EINVAL, EFAULT.
 */
UA_EXPORT int ua_sys_sigprocmask(int how, const sigset_t *set,
				 sigset_t *oset);

/** ua_sys_sigpending() - the pending signals that are blocked */
UA_EXPORT int ua_sys_sigpending(sigset_t *set);

/**
 * ua_sys_sigsuspend() - wait for a signal with a temporary mask
 * @mask: the mask while waiting
 *
 * Return: -1 with errno EINTR once a handler ran (never restarted).
 */
UA_EXPORT int ua_sys_sigsuspend(const sigset_t *mask);

/** ua_sys_pause() - wait for a handler to run; -1/EINTR */
UA_EXPORT int ua_sys_pause(void);

/**
 * ua_sys_futex_wait() - block while *@uaddr == @val
 * @uaddr: guest word
 * @val: the value to wait on
 *
 * The blocking test syscall: returns 0 when woken by ua_task_wake() with
 * *@uaddr changed, -1/EAGAIN when *@uaddr != @val at once.  A handler run
 * while it waits restarts it when the handler has SA_RESTART, else it
 * fails with EINTR.
 */
UA_EXPORT int ua_sys_futex_wait(const int *uaddr, int val);

/**
 * ua_sys_sigaltstack() - set or query the alternate signal stack
 * @ss: new stack (standard stack_t), or NULL
 * @oss: old stack, or NULL
 *
 * Errors: EPERM (changing it while running on it), EINVAL (bad flags),
 * ENOMEM (smaller than MINSIGSTKSZ), EFAULT.
 */
UA_EXPORT int ua_sys_sigaltstack(const stack_t *ss, stack_t *oss);

/** ua_sys_kill() - send @sig to a task (see the pid rules above) */
UA_EXPORT int ua_sys_kill(pid_t pid, int sig);

/** ua_sys_tgkill() - send @sig to task @tid (si_code SI_TKILL) */
UA_EXPORT int ua_sys_tgkill(pid_t tgid, pid_t tid, int sig);

/** ua_sys_raise() - send @sig to the calling task, as glibc's raise() */
UA_EXPORT int ua_sys_raise(int sig);

/**
 * ua_sys_rt_sigqueueinfo() - queue a signal with a caller-made siginfo
 * @tgid: target task
 * @sig: the signal
 * @info: the siginfo; si_code >= 0 or SI_TKILL is refused (EPERM) unless
 *	the target is the caller
 *
 * Errors: EAGAIN when the target's real-time queue is full, EINVAL,
 * EPERM, ESRCH, EFAULT.
 */
UA_EXPORT int ua_sys_rt_sigqueueinfo(pid_t tgid, int sig, siginfo_t *info);

/**
 * ua_sys_swapcontext() - save the current context and switch to another
 * @oucp: where to save (glibc ucontext_t in guest memory), or NULL
 * @ucp: the context to load, or NULL to only save
 *
 * Saving stores the registers as they will be when this call returns 0
 * (rax = 0), the FP control words in @oucp's own FP area, and the blocked
 * mask.  Loading restores every register, the FP control words and the
 * mask, as rt_sigreturn does.  Errors: EFAULT, EINVAL (a corrupt FP
 * state); on error nothing is loaded.
 */
UA_EXPORT int ua_sys_swapcontext(ucontext_t *oucp, const ucontext_t *ucp);

/* Monitor side. */

/**
 * ua_task_kill() - send a signal to a task from the monitor
 * @t: the task
 * @sig: 1..64 (0 checks only)
 *
 * si_code is SI_USER with the monitor's pid and uid.  Thread-safe.
 * Return: 0, -EINVAL, -ESRCH (the task has exited).
 */
UA_EXPORT int ua_task_kill(struct ua_task *t, int sig);

/**
 * ua_task_sigqueue() - queue a signal with a value from the monitor
 * @t: the task
 * @sig: 1..64
 * @value: delivered in si_value (si_code SI_QUEUE)
 *
 * Return: 0, -EINVAL, -EAGAIN (real-time queue full), -ESRCH.
 */
UA_EXPORT int ua_task_sigqueue(struct ua_task *t, int sig,
			       union sigval value);

/**
 * ua_task_wake() - wake a task blocked in ua_sys_futex_wait()
 * @t: the task
 */
UA_EXPORT void ua_task_wake(struct ua_task *t);

/**
 * ua_sys_alarm() - SIGALRM after @seconds (0 cancels), guest side
 * @seconds: the delay
 *
 * Return: the seconds left of the previous alarm (rounded to nearest,
 * at least 1 if any time was left), 0 if none.
 */
UA_EXPORT unsigned ua_sys_alarm(unsigned seconds);

/**
 * ua_sys_setitimer() - arm or disarm the task's interval timer
 * @which: ITIMER_REAL (SIGALRM on expiry; one per task)
 * @nv: the new value (it_value 0 disarms) and reload interval
 * @ov: if not NULL, receives the previous setting
 *
 * ITIMER_VIRTUAL and ITIMER_PROF are not implemented.
 *
 * Return: 0, or -1 with errno EINVAL (which, or a timeval out of range),
 * EFAULT.
 */
UA_EXPORT int ua_sys_setitimer(int which, const struct itimerval *nv,
			       struct itimerval *ov);

/**
 * ua_sys_getitimer() - the task's interval timer: time left and interval
 * @which: ITIMER_REAL
 * @cur: receives the setting
 *
 * Return: 0, or -1 with errno EINVAL, EFAULT.
 */
UA_EXPORT int ua_sys_getitimer(int which, struct itimerval *cur);

/**
 * ua_sys_nanosleep() - sleep, interruptible by signals
 * @req: the time to sleep
 * @rem: if not NULL and the sleep is interrupted by a handler, the time
 *	left
 *
 * As the kernel's: a handler interrupts it with EINTR whatever its
 * SA_RESTART; a signal that runs no handler lets it go on for the time
 * left (the kernel's restart_syscall).
 *
 * Return: 0, or -1 with errno EINTR, EINVAL, EFAULT.
 */
UA_EXPORT int ua_sys_nanosleep(const struct timespec *req,
			       struct timespec *rem);

UA_END_DECLS

#endif /* UACCESS_SIGNAL_H */
