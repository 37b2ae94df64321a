// SPDX-License-Identifier: MIT
/*
 * uabench real_signal1: will-it-scale's signal1 testcase as a program of
 * its own, with a fixed count instead of will-it-scale's endless loop and
 * sampling.
 *
 *   signal1 COUNT
 *
 * After will-it-scale's tests/signal1.c (github.com/antonblanchard/
 * will-it-scale): an empty SIGUSR1 handler installed with sigaction(),
 * then raise(SIGUSR1) in a loop.  Each iteration is glibc's raise()
 * (Debian 12's glibc 2.36: gettid, getpid and tgkill, with no mask calls
 * for the calling thread), the delivery of the signal to the handler and
 * the handler's rt_sigreturn.  Built static, so it runs
 * natively and under uarun alike; uabench times a run of COUNT raises
 * less a run of none, so start-up and exit cancel.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static void handler(int sig)
{
	(void)sig; /* as will-it-scale's: nothing */
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	if (sigaction(SIGUSR1, &sa, NULL))
		return 1;
	for (long i = 0; i < n; i++)
		raise(SIGUSR1);
	return 0;
}
