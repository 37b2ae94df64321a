// SPDX-License-Identifier: MIT
/*
 * The guest's /proc/<pid>/status: the host's, of this very process (the
 * same pid, the same name once exec has named the thread, the same
 * memory and credentials), with the lines that describe the monitor
 * rather than the program told in the program's terms
 * (fs/proc/array.c proc_pid_status()):
 *
 *	Threads:	the thread group's threads (the monitor has threads
 *			of its own: timers, a parent watcher)
 *	SigPnd, ShdPnd	the signals pending for the task, for the group
 *	SigBlk		the task's mask
 *	SigIgn, SigCgt	the dispositions ignored, caught
 *
 * The host's mask and handlers are the monitor's, which catches what it
 * forwards.  Every other line is the host's, as it was read.  One
 * difference stays: a process with one thread keeps the signals sent to
 * the process with its task's (src/signal), so they show in SigPnd where
 * the kernel shows them in ShdPnd.  /proc/<pid>/stat's num_threads is
 * still the host's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux_internal.h"
#include "../signal/signal_internal.h"

/* The signals whose disposition is SIG_IGN (*ign) or a handler (*cgt). */
static void dispositions(struct ua_sigstate *s, uint64_t *ign, uint64_t *cgt)
{
	*ign = *cgt = 0;
	for (int sig = 1; sig <= UA_NSIG; sig++) {
		uint64_t h = s->sh->action[sig].handler;

		if (h == (uint64_t)(uintptr_t)SIG_IGN)
			*ign |= 1ull << (sig - 1);
		else if (h != (uint64_t)(uintptr_t)SIG_DFL)
			*cgt |= 1ull << (sig - 1);
	}
}

/* The guest's value for a line the table above names, into out. */
static bool own_line(struct ua_task *t, const char *line, char *out,
		     size_t size, uint64_t ign, uint64_t cgt)
{
	struct ua_sigstate *s = sigstate(t);
	struct lx_proc *p = lx_proc(t);
	size_t n;

	if (!strncmp(line, "Threads:", 8)) {
		n = atomic_load(&p->nthreads);
		snprintf(out, size, "Threads:\t%zu\n", n ? n : 1);
	} else if (!strncmp(line, "SigPnd:", 7)) {
		snprintf(out, size, "SigPnd:\t%016llx\n",
			 (unsigned long long)atomic_load(&s->own.pending));
	} else if (!strncmp(line, "ShdPnd:", 7)) {
		snprintf(out, size, "ShdPnd:\t%016llx\n",
			 (unsigned long long)atomic_load(
				 &s->sh->shared.pending));
	} else if (!strncmp(line, "SigBlk:", 7)) {
		snprintf(out, size, "SigBlk:\t%016llx\n",
			 (unsigned long long)atomic_load(&s->blocked));
	} else if (!strncmp(line, "SigIgn:", 7)) {
		snprintf(out, size, "SigIgn:\t%016llx\n",
			 (unsigned long long)ign);
	} else if (!strncmp(line, "SigCgt:", 7)) {
		snprintf(out, size, "SigCgt:\t%016llx\n",
			 (unsigned long long)cgt);
	} else {
		return false;
	}
	return true;
}

/*
 * ua__lx_put_status(): the guest's status, written to fd.  0 or -errno.
 */
long ua__lx_put_status(struct ua_task *t, int fd)
{
	FILE *in = fopen("/proc/self/status", "re");
	char line[512], own[64];
	uint64_t ign, cgt;
	long err = 0;

	if (!in)
		return -errno;
	dispositions(sigstate(t), &ign, &cgt);
	while (!err && fgets(line, sizeof(line), in)) {
		bool mine = own_line(t, line, own, sizeof(own), ign, cgt);
		const char *put = mine ? own : line;
		size_t len = strlen(put);

		if (write(fd, put, len) != (ssize_t)len)
			err = -EIO;
	}
	fclose(in);
	return err;
}
