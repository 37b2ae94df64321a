// SPDX-License-Identifier: MIT
/*
 * The host kernel's own /proc entries of this process, made to describe
 * the program: what another process reads in /proc/<pid>/cmdline,
 * environ, auxv and stat (ps, top, a shell's jobs, and the guest
 * processes of the same tree, whose monitors pass those opens to the
 * host) is otherwise uarun's command line and the monitor's auxiliary
 * vector and bounds.
 *
 * The kernel keeps those in the mm (arg_start..env_end, saved_auxv,
 * start_code...), set by the ELF loader and changeable as a whole by
 * prctl(PR_SET_MM, PR_SET_MM_MAP), which checkpoint/restore added and
 * which needs no privilege unless it changes the exe link
 * (kernel/sys.c, prctl_set_mm_map(); prctl(2)).  The brk bounds go back
 * as they are: they are the monitor's heap, which its malloc still
 * grows.  The exe link stays uarun: changing it needs CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE, and uarun's file no longer mapped.
 *
 * The kernel reads the strings from the process's memory at each read
 * (fs/proc/base.c, get_mm_cmdline(): access_remote_vm() without
 * FOLL_FORCE, and only from anonymous memory), so a program that
 * rewrites its arguments is seen as natively.  Under the mprotect
 * backend the space is PROT_NONE whenever the monitor runs, which is
 * most of the time a process is looked at (waiting for a child, a read),
 * so the kernel would find nothing there; the strings are then a copy
 * of the loader's, in monitor memory, and later rewrites are not seen.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux_internal.h"

#ifndef PR_SET_MM_MAP
#define PR_SET_MM 35 /* include/uapi/linux/prctl.h */
#define PR_SET_MM_MAP 14
#endif

/* include/uapi/linux/prctl.h struct prctl_mm_map */
struct host_mm_map {
	uint64_t start_code, end_code, start_data, end_data;
	uint64_t start_brk, brk, start_stack;
	uint64_t arg_start, arg_end, env_start, env_end;
	uint64_t *auxv;
	uint32_t auxv_size;
	uint32_t exe_fd;
};

/*
 * Field k (1-based, as proc(5) counts) of the host's /proc/<pid>/stat,
 * pid 0 for this process's, counted after the command name, whose
 * parentheses may enclose anything; 0 if it cannot be read.
 */
static uintptr_t stat_field(long pid, int k)
{
	char buf[1024], *p;
	ssize_t n;
	int fd, field = 2;

	if (pid)
		snprintf(buf, sizeof(buf), "/proc/%ld/stat", pid);
	else
		snprintf(buf, sizeof(buf), "/proc/self/stat");
	fd = open(buf, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	while (p && field < k) {
		p = strchr(p + 1, ' ');
		field++;
	}
	return p ? strtoul(p + 1, NULL, 10) : 0;
}

/*
 * Under mprotect, the strings copied into anonymous monitor memory (the
 * kernel reads them from nothing else): *lo and *hi moved to the copy.
 */
static int copy_strings(uintptr_t *lo, uintptr_t *hi)
{
	size_t len = *hi - *lo;
	char *copy;

	copy = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (copy == MAP_FAILED)
		return -errno;
	if (ua_copy_from_user(copy, (const void *)*lo, len)) {
		munmap(copy, len);
		return -EFAULT;
	}
	*hi = (uintptr_t)copy + len;
	*lo = (uintptr_t)copy;
	return 0;
}

int ua_linux_host_proc(struct ua_task *t)
{
	struct lx_proc *p = t ? lx_proc(t) : NULL;
	struct host_mm_map m = { 0 };
	uintptr_t lo, hi;
	int err;

	if (!p || !p->start_code || p->arg_start >= p->env_end)
		return -EINVAL;
	/* The entries only this monitor knows, for other processes. */
	ua__xreq_set_handler(ua__lx_remote_answer);
	m.start_code = p->start_code;
	m.end_code = p->end_code;
	m.start_data = p->start_data;
	m.end_data = p->end_data;
	m.start_stack = p->start_stack;
	m.start_brk = stat_field(0, 47); /* start_brk */
	m.brk = (uintptr_t)sbrk(0);
	if (!m.start_brk || m.brk == (uintptr_t)-1)
		return -EIO;
	lo = p->arg_start;
	hi = p->env_end;
	if (ua_space_protect(t->sp) == UA_PROTECT_MPROTECT) {
		struct ua_space *prev = ua_space_use(t->sp);

		err = copy_strings(&lo, &hi);
		ua_space_use(prev);
		if (err)
			return err;
	}
	m.arg_start = lo;
	m.arg_end = lo + (p->arg_end - p->arg_start);
	m.env_start = lo + (p->env_start - p->arg_start);
	m.env_end = hi;
	m.auxv = p->auxv;
	m.auxv_size = (uint32_t)(p->auxv_words * 8);
	m.exe_fd = (uint32_t)-1;
	if (!prctl(PR_SET_MM, PR_SET_MM_MAP, &m, sizeof(m), 0))
		return 0;
	/* A vector longer than the kernel's saved_auxv: the rest without. */
	if (errno == EINVAL && m.auxv_size) {
		m.auxv = NULL;
		m.auxv_size = 0;
		if (!prctl(PR_SET_MM, PR_SET_MM_MAP, &m, sizeof(m), 0))
			return 0;
	}
	return -errno;
}

/* The pid of "/proc/<pid>/exe" (also through /proc/<pid>/task/<tid>/), or 0. */
static long exe_pid(const char *path)
{
	const char *rest;
	char *end;
	long pid, tid;

	if (strncmp(path, "/proc/", 6))
		return 0;
	pid = strtol(path + 6, &end, 10);
	if (end == path + 6 || pid <= 0 || *end != '/')
		return 0;
	rest = end + 1;
	if (!strncmp(rest, "task/", 5)) {
		tid = strtol(rest + 5, &end, 10);
		if (end == rest + 5 || tid <= 0 || *end != '/')
			return 0;
		rest = end + 1;
	}
	return strcmp(rest, "exe") ? 0 : pid;
}

/* Is the file behind a and b the same (both followed)? */
static bool same_file(const char *a, const char *b)
{
	struct stat x, y;

	return !stat(a, &x) && !stat(b, &y) && x.st_dev == y.st_dev &&
	       x.st_ino == y.st_ino;
}

bool ua__lx_runs_monitor(long pid)
{
	char exe[64];

	snprintf(exe, sizeof(exe), "/proc/%ld/exe", pid);
	return same_file(exe, "/proc/self/exe");
}

/*
 * The name of the file host maps of pid shows at addr, into out (size
 * PATH_MAX): its length, or 0.
 */
static size_t mapped_name(long pid, uintptr_t addr, char *out)
{
	char path[64], *line = NULL;
	unsigned long lo, hi;
	size_t cap = 0, n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0) {
		/* start-end perms offset dev inode, then the name */
		int at = 0, got = sscanf(line, "%lx-%lx %*s %*s %*s %*s %n",
					 &lo, &hi, &at);

		if (got < 2 || !at || addr < lo || addr >= hi)
			continue;
		n = strcspn(line + at, "\n");
		if (line[at] == '/' && n < PATH_MAX) {
			memcpy(out, line + at, n);
			out[n] = 0;
		} else {
			n = 0;
		}
		break;
	}
	free(line);
	fclose(f);
	return n;
}

/*
 * ua__lx_other_exe(): for /proc/<pid>/exe of another uarun process (its
 * host exe is this monitor's own file), the program it runs, into out
 * (size PATH_MAX, NUL-terminated): the file the host maps at the start
 * of the code ua_linux_host_proc() gave its stat.  The length, or 0
 * where the host's own link stands: not such a path, another program,
 * or a process whose stat still names the monitor's code.
 */
size_t ua__lx_other_exe(const char *path, char *out)
{
	long pid = exe_pid(path);
	uintptr_t code;
	size_t len;

	if (!pid || pid == getpid() || !ua__lx_runs_monitor(pid))
		return 0;
	code = stat_field(pid, 26); /* startcode */
	len = code ? mapped_name(pid, code, out) : 0;
	/* Not described: its code is the monitor's, in this very file. */
	if (len && same_file(out, "/proc/self/exe"))
		return 0;
	return len;
}
