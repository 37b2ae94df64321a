// SPDX-License-Identifier: MIT
/*
 * The library's own definitions of sigprocmask(), pthread_sigmask(),
 * sigaction() and pthread_create(), which take the place of the C
 * library's in every program linked with uaccess (the technique of
 * OpenJDK's libjsig).  Two guarantees that the kernel gets from running
 * its fixups in the page-fault handler, and user space only by owning
 * these calls:
 *
 * - The fault signals stay deliverable.  A synchronous fault on a blocked
 *   signal is not held pending: the kernel (force_sig_fault(), see
 *   kernel/signal.c force_sig_info_to_task()) unblocks it, resets it to
 *   SIG_DFL and the process dies.  So a worker thread that blocks every
 *   signal, or a handler installed with a full sa_mask, would turn an
 *   accessor's -EFAULT or a guest task's fault into the death of the
 *   monitor.  The masks these calls install never contain SIGSEGV,
 *   SIGBUS, SIGFPE, SIGILL or SIGTRAP; a program cannot block them, as it
 *   cannot block SIGKILL.
 * - A new thread starts with every space locked.  It inherits its
 *   creator's PKRU, window and all (x86 copies the register at clone);
 *   the thread's start resets the keys of the library's spaces.
 *
 * Raw system calls, and C library functions that change the mask through
 * internal calls (sigsuspend(), pselect(), setcontext(), ...), bypass
 * this; doc/usage.md lists them.  glibc only: elsewhere these
 * definitions are left out.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../internal.h"

static const int fault_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP };
#define NR_FAULT_SIGS (sizeof(fault_sigs) / sizeof(fault_sigs[0]))

/* Remove the fault signals from *set; true when one was there. */
static bool strip_fault_sigs(sigset_t *set)
{
	bool had = false;

	for (size_t i = 0; i < NR_FAULT_SIGS; i++) {
		if (sigismember(set, fault_sigs[i]) == 1) {
			sigdelset(set, fault_sigs[i]);
			had = true;
		}
	}
	return had;
}

#if defined(__GLIBC__)

#define UA_PUBLIC __attribute__((visibility("default")))

/*
 * The mask change itself, as glibc's __pthread_sigmask() does it: the C
 * library's own signals (SIGCANCEL, SIGSETXID: 32 up to SIGRTMIN) are
 * never blocked.  Returns 0 or an errno value.
 */
static int set_mask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t local;
	long ret;

	if (set && how != SIG_UNBLOCK) {
		local = *set;
		strip_fault_sigs(&local);
		for (int s = 32; s < SIGRTMIN; s++)
			sigdelset(&local, s);
		set = &local;
	}
	ret = syscall(SYS_rt_sigprocmask, how, set, old, (size_t)(_NSIG / 8));
	return ret ? errno : 0;
}

UA_PUBLIC int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	int saved = errno, err = set_mask(how, set, old);

	errno = saved;
	return err;
}

UA_PUBLIC int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int err = set_mask(how, set, old);

	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/*
 * glibc exports __sigaction from libc.so, and libc.a defines it strongly
 * beside its weak sigaction: linking this definition statically does not
 * clash with glibc's.
 */
extern int __sigaction(int sig, const struct sigaction *act,
		       struct sigaction *old);

UA_PUBLIC int sigaction(int sig, const struct sigaction *act,
			struct sigaction *old)
{
	struct sigaction local;

	if (act && act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN) {
		local = *act;
		if (strip_fault_sigs(&local.sa_mask))
			act = &local;
	}
	return __sigaction(sig, act, old);
}

/* ---- pthread_create ---- */

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *,
			 void *(*)(void *), void *);

/*
 * libc.so does not export __pthread_create: the weak reference is set in
 * static links only (libc.a), where RTLD_NEXT has nothing to find; in
 * dynamic ones the next pthread_create in the lookup order is the real
 * one (or another interposer's, such as a sanitizer's).
 */
extern int __pthread_create(pthread_t *, const pthread_attr_t *,
			    void *(*)(void *), void *) __attribute__((weak));

static create_fn real_create(void)
{
	static create_fn _Atomic fn;
	create_fn f = atomic_load_explicit(&fn, memory_order_acquire);

	if (f)
		return f;
	f = __pthread_create;
	if (!f)
		f = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
	if (f)
		atomic_store_explicit(&fn, f, memory_order_release);
	return f;
}

struct start {
	void *(*fn)(void *);
	void *arg;
};

static void *thread_start(void *p)
{
	struct start st = *(struct start *)p;

	free(p);
	ua__protect_thread_start();
	return st.fn(st.arg);
}

UA_PUBLIC int pthread_create(pthread_t *th, const pthread_attr_t *attr,
			     void *(*fn)(void *), void *arg)
{
	create_fn create = real_create();
	struct start *st;
	int err;

	if (!create) {
		ua__write_str(2, "uaccess: pthread_create: the C library's is "
				 "not linked in; a static program must be "
				 "linked with -Wl,-u,__pthread_create\n");
		return EAGAIN;
	}
	st = malloc(sizeof(*st));
	if (!st)
		return EAGAIN;
	st->fn = fn;
	st->arg = arg;
	err = create(th, attr, thread_start, st);
	if (err)
		free(st);
	return err;
}

#endif /* __GLIBC__ */

/*
 * ua_task_run() and others: make sure the fault signals are not blocked
 * on this thread, whatever a raw system call did.  Returns true when one
 * was blocked (and *old holds the mask to put back).
 */
bool ua__fault_sigs_unblock(sigset_t *old)
{
	sigset_t set, was;

	sigemptyset(&set);
	for (size_t i = 0; i < NR_FAULT_SIGS; i++)
		sigaddset(&set, fault_sigs[i]);
	if (syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &set, old,
		    (size_t)(_NSIG / 8)))
		return false;
	was = *old;
	return strip_fault_sigs(&was);
}

void ua__fault_sigs_restore(const sigset_t *old)
{
	ua__sigmask_raw(SIG_SETMASK, old, NULL);
}

/* The kernel's call as it is: for masks the kernel itself would set. */
void ua__sigmask_raw(int how, const sigset_t *set, sigset_t *old)
{
	syscall(SYS_rt_sigprocmask, how, set, old, (size_t)(_NSIG / 8));
}
