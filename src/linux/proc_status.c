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
 * the kernel shows them in ShdPnd.
 *
 * /proc/<pid>/stat likewise (fs/proc/array.c do_task_stat()): the host's
 * line with its thread count (field 20), its four signal bitmaps (31 to
 * 34: the task's pending, blocked, ignored and caught signals below 32),
 * its size (23: the program's mappings), its code, stack and data
 * bounds (26 to 28, 45, 46: the program's, as load_elf_binary() sets
 * them) and its heap start and argument and environment bounds (47 to
 * 51) the guest's.  The resident set and the times stay the host
 * process's.
 */
#include <errno.h>
#include <inttypes.h>
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

/* Its threads; none counted yet means the first alone. */
static size_t guest_threads(struct lx_proc *p)
{
	size_t n = atomic_load(&p->nthreads);

	return n ? n : 1;
}

/* The guest's value for a line the table above names, into out. */
static bool own_line(struct ua_task *t, const char *line, char *out,
		     size_t size, uint64_t ign, uint64_t cgt)
{
	struct ua_sigstate *s = sigstate(t);

	if (!strncmp(line, "Threads:", 8)) {
		snprintf(out, size, "Threads:\t%zu\n",
			 guest_threads(lx_proc(t)));
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
 * The host's file name of this process's (tid 0) or thread tid's entry,
 * into buf.  The guest's threads are host threads with the same ids.
 */
static const char *host_file(char *buf, size_t size, long tid,
			     const char *name)
{
	if (tid)
		snprintf(buf, size, "/proc/self/task/%ld/%s", tid, name);
	else
		snprintf(buf, size, "/proc/self/%s", name);
	return buf;
}

/*
 * ua__lx_put_status(): the guest's status of its thread t, written to
 * fd: the host's lines of the process (tid 0) or of thread tid.  0 or
 * -errno.
 */
long ua__lx_put_status(struct ua_task *t, int fd, long tid)
{
	char line[512], own[64];
	FILE *in = fopen(host_file(line, sizeof(line), tid, "status"), "re");
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

/* do_task_stat() prints the old bitmaps' first 31 signals only. */
#define STAT_SIGS 0x7fffffffull

/* The guest's value of stat field k (1-based, as proc(5) counts). */
static bool own_field(struct ua_task *t, int k, uint64_t ign, uint64_t cgt,
		      uint64_t *v)
{
	struct ua_sigstate *s = sigstate(t);
	struct lx_proc *p = lx_proc(t);

	switch (k) {
	case 20:
		*v = guest_threads(p);
		return true;
	case 23:
		*v = ua__lx_vm_size(t);
		return true;
	case 26:
		*v = p->start_code;
		return true;
	case 27:
		*v = p->end_code;
		return true;
	case 28:
		*v = p->start_stack;
		return true;
	case 31:
		*v = atomic_load(&s->own.pending) & STAT_SIGS;
		return true;
	case 32:
		*v = atomic_load(&s->blocked) & STAT_SIGS;
		return true;
	case 33:
		*v = ign & STAT_SIGS;
		return true;
	case 34:
		*v = cgt & STAT_SIGS;
		return true;
	case 45:
		*v = p->start_data;
		return true;
	case 46:
		*v = p->end_data;
		return true;
	case 47:
		*v = p->brk_start;
		return p->brk_start != 0;
	case 48:
		*v = p->arg_start;
		return true;
	case 49:
		*v = p->arg_end;
		return true;
	case 50:
		*v = p->env_start;
		return true;
	case 51:
		*v = p->env_end;
		return true;
	default:
		return false;
	}
}

/*
 * ua__lx_put_stat(): the guest's stat line of its thread t (the host's of
 * the process, tid 0, or of thread tid), written to fd.  0 or -errno.
 * The command name is in parentheses and may hold spaces and ')': the
 * fields start after the last ')', as the kernel's readers parse it.
 */
long ua__lx_put_stat(struct ua_task *t, int fd, long tid)
{
	char in[1024], out[1536], *rest, *save = NULL, *tok;
	FILE *f = fopen(host_file(in, sizeof(in), tid, "stat"), "re");
	uint64_t ign, cgt, v;
	size_t len;
	int k = 3;
	bool got;

	if (!f)
		return -errno;
	got = fgets(in, sizeof(in), f) != NULL;
	fclose(f);
	if (!got)
		return -EIO;
	rest = strrchr(in, ')');
	if (!rest || rest[1] != ' ')
		return -EIO;
	*++rest = 0;
	len = (size_t)snprintf(out, sizeof(out), "%s", in);
	dispositions(sigstate(t), &ign, &cgt);
	for (tok = strtok_r(rest + 1, " \n", &save); tok && len < sizeof(out);
	     tok = strtok_r(NULL, " \n", &save), k++) {
		if (own_field(t, k, ign, cgt, &v))
			len += (size_t)snprintf(out + len, sizeof(out) - len,
						" %" PRIu64, v);
		else
			len += (size_t)snprintf(out + len, sizeof(out) - len,
						" %s", tok);
	}
	if (len >= sizeof(out) - 1)
		return -EIO;
	out[len++] = '\n';
	return write(fd, out, len) == (ssize_t)len ? 0 : -EIO;
}
