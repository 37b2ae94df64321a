/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the regression suites: faults that are not the library's
 * (a near-NULL read, a read past the end of a file mapping) and signal
 * disposition set-up.
 */
#ifndef UA_TREGRESS_H
#define UA_TREGRESS_H

#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>

/*
 * A near-NULL monitor address.  Kept in a volatile so the compiler cannot
 * see the dereference as undefined and drop it; not NULL itself, so
 * UBSan's null check stays out of the way and the CPU raises the fault.
 */
#define T_BAD_ADDR ((uintptr_t)0x40)

static inline int t_read_bad(void)
{
	static volatile uintptr_t bad = T_BAD_ADDR;

	return *(volatile int *)bad;
}

/* Install a handler (or SIG_DFL/SIG_IGN through @plain) for @sig. */
static inline void t_sigaction(int sig, void (*info)(int, siginfo_t *, void *),
			       void (*plain)(int), int flags)
{
	struct sigaction sa = { 0 };

	if (info) {
		sa.sa_sigaction = info;
		flags |= SA_SIGINFO;
	} else {
		sa.sa_handler = plain;
	}
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/* Tests that end by dying of a signal must not leave core files behind. */
static inline void t_no_core(void)
{
	struct rlimit rl = { 0, 0 };

	setrlimit(RLIMIT_CORE, &rl);
}

#endif
