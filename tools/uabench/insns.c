// SPDX-License-Identifier: MIT
/*
 * Instructions per operation.  Each count runs in a child process,
 * `uabench _count SUB METHOD N MODE`, which does METHOD's work N times and
 * nothing else worth counting; the parent runs it for N and for 2N, and
 * the difference is the instructions of N operations exactly: start-up,
 * ua_init(), task creation and exit are the same in both runs and cancel.
 *
 * The counter is the CPU's (perf_event_open, PERF_COUNT_HW_INSTRUCTIONS,
 * kernel instructions included when perf_event_paranoid allows) when the
 * kernel offers it.  Many virtual machines expose no counters (`perf stat
 * -e instructions` says "<not supported>"); then valgrind's callgrind
 * counts, which sees user-space instructions only: a system call or a
 * host signal delivery costs it nothing, and figures for work that is
 * mostly kernel time say so.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uabench.h"

/* A child that has not finished after this long is killed (SIGALRM). */
#define CHILD_TIMEOUT_S 120

static int perf_open(bool kernel)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.disabled = 1;
	a.exclude_kernel = !kernel;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/* The counter works when it opens and counts a short loop. */
static bool perf_works(bool kernel)
{
	uint64_t v = 0;
	int fd = perf_open(kernel);

	if (fd < 0)
		return false;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < 1000; i++)
		bench_barrier();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &v, sizeof(v)) != sizeof(v))
		v = 0;
	close(fd);
	return v > 0;
}

static const char *find_on_path(const char *prog)
{
	static char path[4096];

	return bench_find_on_path(prog, path, sizeof(path));
}

enum bench_insn_source bench_insns_source(const char **why)
{
	static int cached = -1;
	static const char *reason;

	if (cached < 0) {
		reason = NULL;
		if (perf_works(true))
			cached = BENCH_INSNS_PERF;
		else if (perf_works(false))
			cached = BENCH_INSNS_PERF_USER;
		else if (find_on_path("valgrind"))
			cached = BENCH_INSNS_CALLGRIND;
		else {
			cached = BENCH_INSNS_NONE;
			reason = "no instruction counter (perf_event_open) "
				 "and no valgrind on the PATH";
		}
	}
	if (why)
		*why = reason;
	return (enum bench_insn_source)cached;
}

const char *bench_insns_source_name(enum bench_insn_source s)
{
	static const char *const names[] = {
		"none",
		"perf (user and kernel)",
		"perf (user space only)",
		"callgrind (user space only)",
	};

	return names[s];
}

/* ---- the child ---- */

static const struct bench_cmd *count_cmd(const char *name)
{
	for (int i = 0; bench_cmds[i]; i++) {
		if (!strcmp(bench_cmds[i]->name, name) &&
		    bench_cmds[i]->count_child)
			return bench_cmds[i];
	}
	return NULL;
}

/* _count SUB METHOD N MODE; MODE: perf, perf-user or plain. */
int bench_count_child_main(int argc, char **argv)
{
	const struct bench_cmd *cmd;
	unsigned long long n;
	uint64_t v = 0;
	char *end;
	int fd = -1, rc;

	if (argc != 4 || !(cmd = count_cmd(argv[0])))
		return bench_usage_error(NULL, "_count: internal use only");
	errno = 0;
	n = strtoull(argv[2], &end, 10);
	if (errno || *end || !n)
		return bench_usage_error(NULL, "_count: bad count");
	if (strcmp(argv[3], "plain")) {
		fd = perf_open(!strcmp(argv[3], "perf"));
		if (fd < 0)
			bench_die("_count: perf_event_open: %s",
				  strerror(errno));
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	}
	rc = cmd->count_child(argv[1], n);
	if (fd >= 0) {
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (read(fd, &v, sizeof(v)) != sizeof(v))
			bench_die("_count: cannot read the counter");
		printf("instructions: %llu\n", (unsigned long long)v);
	}
	return rc;
}

/* ---- the parent ---- */

struct child {
	pid_t pid;
	int out; /* where its count is printed */
	int job;
	bool twice;
};

static int spawn(const char *self, const char *sub, const char *method,
		 uint64_t n, enum bench_insn_source src, struct child *c)
{
	char tmpl[] = "/tmp/uabench-insns-XXXXXX", num[32];
	const char *mode = src == BENCH_INSNS_PERF	? "perf" :
			   src == BENCH_INSNS_PERF_USER ? "perf-user" :
							  "plain";
	const char *vg = find_on_path("valgrind");
	int null;

	snprintf(num, sizeof(num), "%llu", (unsigned long long)n);
	c->out = mkstemp(tmpl);
	if (c->out < 0)
		return -errno;
	unlink(tmpl);
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0) {
		int err = errno;

		close(c->out);
		errno = err;
		return -err;
	}
	if (c->pid)
		return 0;
	/* Child: the count goes to c->out, everything else to /dev/null. */
	null = open("/dev/null", O_RDWR);
	alarm(CHILD_TIMEOUT_S);
	if (src == BENCH_INSNS_CALLGRIND) {
		/* callgrind's summary ("Collected : N") is on stderr. */
		dup2(null, STDOUT_FILENO);
		dup2(c->out, STDERR_FILENO);
		execl(vg, "valgrind", "--tool=callgrind",
		      "--callgrind-out-file=/dev/null", self, "_count", sub,
		      method, num, mode, (char *)NULL);
	} else {
		dup2(c->out, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		execl(self, "uabench", "_count", sub, method, num, mode,
		      (char *)NULL);
	}
	_exit(127);
}

/*
 * The line of @buf that best says what failed, without valgrind's
 * "==pid== ": the first naming an error, else the last one with text.
 */
static const char *failure_line(char *buf)
{
	static const char *const keys[] = { "Valgrind: ", "ASan", "rror" };
	char *line = NULL, *save = NULL;

	for (char *l = strtok_r(buf, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, "==", 2) && strstr(l + 2, "=="))
			l = strstr(l + 2, "==") + 2;
		l += strspn(l, " ");
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			if (strstr(l, keys[k]))
				return l;
		}
		if (*l)
			line = l;
	}
	return line;
}

/*
 * The count a finished child printed; 0 when there is none, with @why
 * saying what went wrong (valgrind may be unable to run the program at
 * all: a sanitized build, or debug information it cannot read).
 */
static uint64_t child_result(const struct child *c, int st,
			     enum bench_insn_source src, const char *method,
			     char *why, size_t n)
{
	const char *key =
		src == BENCH_INSNS_CALLGRIND ? "Collected :" : "instructions:";
	const char *tool = src == BENCH_INSNS_CALLGRIND ? "callgrind" : "perf";
	char buf[8192], *p = NULL, *line;
	ssize_t len = -1;

	if (lseek(c->out, 0, SEEK_SET) == 0)
		len = read(c->out, buf, sizeof(buf) - 1);
	buf[len > 0 ? len : 0] = 0;
	if (WIFEXITED(st) && !WEXITSTATUS(st) && (p = strstr(buf, key)))
		return strtoull(p + strlen(key), NULL, 10);
	line = (char *)failure_line(buf);
	if (line && strlen(line) > 100)
		line[100] = 0;
	snprintf(why, n, "%s run of %s failed (%s %d)%s%s", tool, method,
		 WIFEXITED(st) ? "exit status" : "signal",
		 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
		 line ? ": " : "", line ? line : "");
	return 0;
}

/*
 * Counts every job's instructions per operation, a few children at a time
 * (one per CPU, at most 4).  Returns 0, or -1 when no counter is usable
 * (every per_op left NAN); a job whose child failed stays NAN, and *@why
 * then says why the first one failed.
 */
int bench_count_insns(struct bench_ctx *ctx, const char *sub,
		      struct bench_insn_job *jobs, int njobs, const char **why)
{
	enum bench_insn_source src = bench_insns_source(NULL);
	static char reason[240];
	struct child run[4];
	uint64_t *got;
	char self[4096], what[96], one[240];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int par = ncpu < 1 ? 1 : ncpu > 4 ? 4 : (int)ncpu;
	int next = 0, active = 0, done = 0;
	ssize_t len;

	for (int i = 0; i < njobs; i++)
		jobs[i].per_op = NAN;
	if (src == BENCH_INSNS_NONE)
		return -1;
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return -1;
	self[len] = 0;
	reason[0] = 0;
	got = calloc((size_t)njobs * 2, sizeof(*got));
	if (!got)
		bench_die("out of memory");
	while (done < 2 * njobs) {
		int st, k;
		pid_t pid;

		while (active < par && next < 2 * njobs) {
			struct child *c = &run[active];
			const struct bench_insn_job *j = &jobs[next / 2];

			c->job = next / 2;
			c->twice = next & 1;
			if (spawn(self, sub, j->method, j->n * (c->twice + 1),
				  src, c)) {
				if (!reason[0])
					snprintf(reason, sizeof(reason),
						 "cannot start a count: %s",
						 strerror(errno));
				done++; /* counted as failed */
				next++;
				continue;
			}
			active++;
			next++;
		}
		if (!active)
			continue;
		snprintf(what, sizeof(what), "instructions (%s) %d/%d",
			 src == BENCH_INSNS_CALLGRIND ? "callgrind" : "perf",
			 done / 2 + 1, njobs);
		bench_progress_line(ctx, what);
		pid = waitpid(-1, &st, 0);
		if (pid < 0)
			break;
		for (k = 0; k < active && run[k].pid != pid; k++)
			;
		if (k == active)
			continue;
		got[run[k].job * 2 + run[k].twice] =
			child_result(&run[k], st, src, jobs[run[k].job].method,
				     one, sizeof(one));
		if (!got[run[k].job * 2 + run[k].twice] && !reason[0])
			snprintf(reason, sizeof(reason), "%s", one);
		close(run[k].out);
		run[k] = run[--active];
		done++;
	}
	for (int i = 0; i < njobs; i++) {
		uint64_t a = got[2 * i], b = got[2 * i + 1];

		if (a && b && b > a)
			jobs[i].per_op = (double)(b - a) / (double)jobs[i].n;
	}
	free(got);
	if (reason[0] && why)
		*why = reason;
	return 0;
}
