// SPDX-License-Identifier: MIT
/*
 * The host waits the poll family makes for the guest.  An interrupt ends
 * the host call with EINTR whether or not it brought the guest a signal
 * it takes (a SIGCHLD from the host the guest ignores is forwarded and
 * dropped, a group signal may go to another thread): the kernel's wait
 * ends only for signal_pending(), so one that found nothing goes on, for
 * what is left of its timeout (do_poll() and ep_poll() keep their
 * deadline across wake-ups the same way).
 */
#include <time.h>

#include "linux_internal.h"

static long ms_left(const struct timespec *end)
{
	struct timespec d = ua__lx_ts_left(end);

	/* Rounded up, as the kernel's slack never ends a wait early. */
	return d.tv_sec * 1000 + (d.tv_nsec + 999999) / 1000000;
}

long ua__lx_host_wait(struct ua_task *t, long nr, long a[6], int tmo)
{
	struct timespec end = { 0, 0 };
	long ret;

	if (a[tmo] > 0) {
		struct timespec rel = { a[tmo] / 1000,
					(a[tmo] % 1000) * 1000000 };

		ua__lx_deadline(&end, &rel);
	}
	for (;;) {
		ret = ua__host_call(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		if (ret != -EINTR || ua__sig_interrupted(t))
			return ret;
		/* Time up: one look that does not sleep gives the answer. */
		if (a[tmo] > 0)
			a[tmo] = ms_left(&end);
	}
}
