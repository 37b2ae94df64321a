// SPDX-License-Identifier: MIT
/*
 * Guest tasks and the signal engine need the per-architecture entry code
 * (only x86-64 has it).  Elsewhere every call exists, so programs link,
 * and reports "not supported" clearly: the rest of the library works.
 */
#include <errno.h>
#include <stdlib.h>

#include "../../internal.h"

struct ua_task *ua_task_create(struct ua_space *sp, void (*entry)(void *),
			       void *arg, const struct ua_task_opts *opts)
{
	(void)sp;
	(void)entry;
	(void)arg;
	(void)opts;
	errno = EOPNOTSUPP;
	return NULL;
}

int ua_task_run(struct ua_task *t)
{
	(void)t;
	return -EOPNOTSUPP;
}

void ua_task_destroy(struct ua_task *t)
{
	(void)t;
}

int ua_task_forward_host_signals(struct ua_task *t)
{
	(void)t;
	return -EOPNOTSUPP;
}

int ua_set_interrupt_signal(int sig)
{
	(void)sig;
	return -EOPNOTSUPP;
}

int ua_interrupt_signal(void)
{
	return 0;
}

pid_t ua_task_tid(const struct ua_task *t)
{
	(void)t;
	return -1;
}

struct ua_space *ua_task_space(const struct ua_task *t)
{
	(void)t;
	return NULL;
}

struct ua_task *ua_current_task(void)
{
	return NULL;
}

struct ua_pt_regs *ua_task_regs(struct ua_task *t)
{
	(void)t;
	return NULL;
}

void ua_task_set_syscall_hook(struct ua_task *t, ua_syscall_hook_t hook,
			      void *data)
{
	(void)t;
	(void)hook;
	(void)data;
}

long ua__syscall(long nr, long a1, long a2, long a3, long a4, long a5)
{
	(void)nr;
	(void)a1;
	(void)a2;
	(void)a3;
	(void)a4;
	(void)a5;
	return -ENOSYS;
}

long ua_syscall(long nr, long a1, long a2, long a3, long a4, long a5)
{
	return ua__syscall(nr, a1, a2, a3, a4, a5);
}

/* No task can exist, so no guest code can be calling these. */
static long unsupported(void)
{
	errno = ENOSYS;
	return -1;
}

long ua_sys_nop(void)
{
	return unsupported();
}

_Noreturn void ua_sys_exit(int status)
{
	(void)status;
	abort();
}

pid_t ua_sys_getpid(void)
{
	return (pid_t)unsupported();
}

pid_t ua_sys_gettid(void)
{
	return (pid_t)unsupported();
}

int ua_sys_sigaction(int sig, const struct sigaction *act,
		     struct sigaction *oact)
{
	(void)sig;
	(void)act;
	(void)oact;
	return (int)unsupported();
}

int ua_sys_sigprocmask(int how, const sigset_t *set, sigset_t *oset)
{
	(void)how;
	(void)set;
	(void)oset;
	return (int)unsupported();
}

int ua_sys_sigpending(sigset_t *set)
{
	(void)set;
	return (int)unsupported();
}

int ua_sys_sigsuspend(const sigset_t *mask)
{
	(void)mask;
	return (int)unsupported();
}

int ua_sys_pause(void)
{
	return (int)unsupported();
}

int ua_sys_futex_wait(const int *uaddr, int val)
{
	(void)uaddr;
	(void)val;
	return (int)unsupported();
}

int ua_sys_sigaltstack(const stack_t *ss, stack_t *oss)
{
	(void)ss;
	(void)oss;
	return (int)unsupported();
}

int ua_sys_kill(pid_t pid, int sig)
{
	(void)pid;
	(void)sig;
	return (int)unsupported();
}

int ua_sys_tgkill(pid_t tgid, pid_t tid, int sig)
{
	(void)tgid;
	(void)tid;
	(void)sig;
	return (int)unsupported();
}

int ua_sys_raise(int sig)
{
	(void)sig;
	return (int)unsupported();
}

int ua_sys_rt_sigqueueinfo(pid_t tgid, int sig, siginfo_t *info)
{
	(void)tgid;
	(void)sig;
	(void)info;
	return (int)unsupported();
}

int ua_sys_swapcontext(ucontext_t *oucp, const ucontext_t *ucp)
{
	(void)oucp;
	(void)ucp;
	return (int)unsupported();
}

int ua_task_kill(struct ua_task *t, int sig)
{
	(void)t;
	(void)sig;
	return -ESRCH;
}

int ua_task_sigqueue(struct ua_task *t, int sig, union sigval value)
{
	(void)t;
	(void)sig;
	(void)value;
	return -ESRCH;
}

void ua_task_wake(struct ua_task *t)
{
	(void)t;
}

void ua__restore_rt(void)
{
	abort();
}

unsigned long ua_task_signals_delivered(const struct ua_task *t)
{
	(void)t;
	return 0;
}
