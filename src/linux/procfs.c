// SPDX-License-Identifier: MIT
/*
 * The guest's own /proc entries.  The host's /proc/self is the monitor:
 * its command line is uarun's, its auxiliary vector and memory map the
 * monitor's, its descriptors numbered as the monitor holds them.  A
 * guest that opens /proc/self/cmdline, environ, auxv, maps, smaps or
 * smaps_rollup (or the same under its own pid, /proc/thread-self or a
 * thread's task/<tid>/) gets what the kernel would show for it
 * (fs/proc/base.c, fs/proc/task_mmu.c): the argument and environment
 * strings read from the space where the loader put them, the auxiliary
 * vector the loader gave it, and the space's mappings named after what
 * they were made from (vma_names.c), with smaps' counts of them
 * (proc_smaps.c).  exe and fd/N, read as links or opened, are the
 * program's file and the guest's descriptor N; fdinfo/N is the host's
 * account of the file behind guest descriptor N, told in the guest's
 * terms (fdinfo()).
 * mem is the host's own memory file, whose reads and writes proc_mem.c
 * keeps to the program's mappings.
 *
 * The content is taken when the file is opened and served from a
 * memory file opened read-only, where the kernel reads the
 * process's memory at each read(): a program that rewrites its
 * arguments after the open is not seen by that open.  Every other /proc
 * path is the host's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "linux_internal.h"

enum proc_entry {
	PROC_NONE,
	PROC_CMDLINE,
	PROC_ENVIRON,
	PROC_AUXV,
	PROC_MAPS,
	PROC_SMAPS,
	PROC_ROLLUP,
	PROC_EXE,
	PROC_STATUS,
	PROC_STAT,
	PROC_MEM,
	PROC_FD,     /* fd/N */
	PROC_FDINFO, /* fdinfo/N */
	PROC_DIR,    /* fd/, fdinfo/ or task/: *fd says which (LX_PDIR_*) */
};

/* e when name is a descriptor's number (N in *fd), else PROC_NONE. */
static enum proc_entry fd_entry(const char *name, long *fd, enum proc_entry e)
{
	char *end;

	if (*name < '0' || *name > '9')
		return PROC_NONE;
	*fd = strtol(name, &end, 10);
	return *end || *fd >= LX_NFDS ? PROC_NONE : e;
}

/* Which directory of the guest's rest names (LX_PDIR_*), or 0. */
static int dir_entry(const char *rest)
{
	static const char *const dirs[] = {
		[LX_PDIR_FD] = "fd",
		[LX_PDIR_FDINFO] = "fdinfo",
		[LX_PDIR_TASK] = "task",
	};

	for (int i = LX_PDIR_FD; i <= LX_PDIR_TASK; i++) {
		size_t n = strlen(dirs[i]);

		if (!strncmp(rest, dirs[i], n) &&
		    (!rest[n] || (rest[n] == '/' && !rest[n + 1])))
			return i;
	}
	return 0;
}

/*
 * The entry of this process that path names, or PROC_NONE; for fd/N
 * and fdinfo/N, N in *fd.  *tid is the thread the path names through
 * thread-self/ or task/<tid>/, 0 for the process as a whole; a task/
 * entry's tid is checked against the program's threads by the caller
 * (guest_tid()).
 */
/*
 * The entry that rest names inside a process's (in_task: a thread's)
 * directory, or PROC_NONE; for fd/N and fdinfo/N, N in *fd, for a
 * directory which it is (LX_PDIR_*).
 */
static enum proc_entry entry_in(const char *rest, long *fd, bool in_task)
{
	static const char *const names[] = {
		[PROC_CMDLINE] = "cmdline", [PROC_ENVIRON] = "environ",
		[PROC_AUXV] = "auxv",	    [PROC_MAPS] = "maps",
		[PROC_SMAPS] = "smaps",	    [PROC_ROLLUP] = "smaps_rollup",
		[PROC_EXE] = "exe",	    [PROC_STATUS] = "status",
		[PROC_STAT] = "stat",	    [PROC_MEM] = "mem",
	};

	for (int e = PROC_CMDLINE; e <= PROC_MEM; e++)
		if (!strcmp(rest, names[e]))
			return (enum proc_entry)e;
	*fd = dir_entry(rest);
	/* A thread's directory has no task/ of its own. */
	if (*fd && (!in_task || *fd != LX_PDIR_TASK))
		return PROC_DIR;
	if (!strncmp(rest, "fd/", 3))
		return fd_entry(rest + 3, fd, PROC_FD);
	if (!strncmp(rest, "fdinfo/", 7))
		return fd_entry(rest + 7, fd, PROC_FDINFO);
	return PROC_NONE;
}

static enum proc_entry own_entry(const char *path, long *fd, long *tid)
{
	const char *rest = path + 6; /* past "/proc/" */
	char *end;
	long pid;

	*tid = 0;
	if (strncmp(path, "/proc/", 6))
		return PROC_NONE;
	if (!strncmp(rest, "self/", 5)) {
		rest += 5;
	} else if (!strncmp(rest, "thread-self/", 12)) {
		rest += 12;
		*tid = (long)syscall(SYS_gettid);
	} else {
		pid = strtol(rest, &end, 10);
		if (end == rest || *end != '/' || pid != getpid())
			return PROC_NONE;
		rest = end + 1;
	}
	if (!*tid && !strncmp(rest, "task/", 5)) {
		*tid = strtol(rest + 5, &end, 10);
		if (end == rest + 5 || *end != '/' || *tid <= 0)
			return PROC_NONE;
		rest = end + 1;
	}
	return entry_in(rest, fd, *tid != 0);
}

/*
 * The program's thread tid (0: t itself) while the caller holds the
 * thread list's lock (it cannot exit meanwhile), or NULL: a thread of
 * the monitor, or one that has gone, has no entry here.
 */
static struct ua_task *thread_locked(struct ua_task *t, long tid)
{
	struct lx_proc *p = lx_proc(t);

	if (!tid || tid == ua__lx_tid(t))
		return t;
	for (size_t i = 0; i < p->nthreads; i++)
		if (ua__lx_tid(p->threads[i]) == tid)
			return p->threads[i];
	return NULL;
}

/* Is tid one of the program's threads (or 0)? */
static bool guest_tid(struct ua_task *t, long tid)
{
	struct lx_proc *p = lx_proc(t);
	bool ok;

	pthread_mutex_lock(&p->tlock);
	ok = thread_locked(t, tid) != NULL;
	pthread_mutex_unlock(&p->tlock);
	return ok;
}

/*
 * Append guest bytes [from, to) to fd, up to and including the first
 * NUL when stop_at_nul: as far as they can be read, as access_remote_vm()
 * gives what it can.  0 or -errno.
 */
static long put_guest(struct ua_task *t, int fd, uintptr_t from, uintptr_t to,
		      bool stop_at_nul)
{
	char *buf = lx_iobuf(t);

	while (from < to) {
		size_t want = to - from < LX_CHUNK ? to - from : LX_CHUNK;
		size_t n = want - ua_copy_from_user(buf, (void *)from, want);
		char *nul = stop_at_nul ? memchr(buf, 0, n) : NULL;

		if (nul)
			n = (size_t)(nul - buf) + 1;
		if (n && write(fd, buf, n) != (ssize_t)n)
			return -errno;
		if (nul || n < want)
			return 0;
		from += n;
	}
	return 0;
}

/*
 * get_mm_cmdline(): the argument strings; when the last one's NUL was
 * overwritten (setproctitle(3)), the title that runs on into the
 * environment, up to its NUL.
 */
static long put_cmdline(struct ua_task *t, int fd)
{
	struct lx_proc *p = lx_proc(t);
	char last;

	if (p->arg_start >= p->arg_end)
		return 0;
	if (ua_get_user(last, (char *)(p->arg_end - 1)))
		return 0;
	if (!last)
		return put_guest(t, fd, p->arg_start, p->arg_end, false);
	return put_guest(t, fd, p->arg_start, p->env_end, true);
}

/* The lowest guest descriptor on host descriptor h, or -1. */
static long guest_fd_of(struct ua_task *t, long h)
{
	for (long fd = 0; fd < LX_NFDS; fd++) {
		const struct lx_file *f = ua__lx_file(t, fd);

		if (f && f->kind == LX_FD_HOST && f->host == h)
			return fd;
	}
	return -1;
}

/*
 * One line of the host's fdinfo, as the guest's own would read
 * (fs/proc/fd.c seq_show()): the close-on-exec bit of flags is the
 * guest descriptor's; an epoll's watched descriptors (tfd, from
 * ep_show_fdinfo()) are named by the guest's numbers; a signalfd's
 * eventfd lines give way to its mask (signalfd_show_fdinfo()).
 */
static void fdinfo_line(struct ua_task *t, const struct lx_file *f, FILE *out,
			const char *line)
{
	unsigned int flags;
	int tfd, n = 0;

	if (sscanf(line, "flags: %o", &flags) == 1) {
		flags &= ~(unsigned int)O_CLOEXEC;
		fprintf(out, "flags:\t0%o\n",
			flags | (f->cloexec ? O_CLOEXEC : 0));
	} else if (sscanf(line, "tfd: %d%n", &tfd, &n) == 1) {
		fprintf(out, "tfd: %8ld%s", guest_fd_of(t, tfd), line + n);
	} else if (!f->sfd || strncmp(line, "eventfd-", 8)) {
		fputs(line, out);
	}
}

/*
 * fdinfo/N: the host's fdinfo of the file behind guest descriptor fd,
 * put into out line by line.  The monitor's own devices are described
 * by a fresh open of the host's, with the guest's flags.
 */
static long put_fdinfo(struct ua_task *t, int out, long fd)
{
	const struct lx_file *f = ua__lx_file(t, fd);
	char path[40], *line = NULL;
	size_t cap = 0;
	FILE *in, *o = NULL;
	long err = 0;
	int h, d;

	if (!f)
		return -ENOENT;
	h = f->host;
	if (f->kind != LX_FD_HOST) {
		h = ua__lx_dev_open(f, O_ACCMODE | O_APPEND | O_NONBLOCK);
		if (h < 0)
			return h;
	}
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", h);
	in = fopen(path, "re");
	d = in ? fcntl(out, F_DUPFD_CLOEXEC, 0) : -1;
	if (d >= 0 && !(o = fdopen(d, "w")))
		close(d);
	if (!o) {
		err = in ? -ENOMEM : -errno;
		goto out;
	}
	while (getline(&line, &cap, in) > 0)
		fdinfo_line(t, f, o, line);
	if (f->sfd)
		fprintf(o, "sigmask:\t%016llx\n",
			(unsigned long long)ua__lx_sigfd_mask(lx_proc(t),
							      f->sfd));
	if (fflush(o))
		err = -EIO;
out:
	free(line);
	if (in)
		fclose(in);
	if (o)
		fclose(o);
	if (h != f->host)
		close(h);
	return err;
}

/*
 * status and stat of the thread tid (0: the process, as t sees it),
 * made while the thread list's lock keeps the thread from going.
 */
static long put_thread(struct ua_task *t, int fd, enum proc_entry e, long tid)
{
	struct lx_proc *p = lx_proc(t);
	struct ua_task *who;
	long err = -ENOENT;

	pthread_mutex_lock(&p->tlock);
	who = thread_locked(t, tid);
	if (who)
		err = e == PROC_STATUS ? ua__lx_put_status(who, fd, tid) :
					 ua__lx_put_stat(who, fd, tid);
	pthread_mutex_unlock(&p->tlock);
	return err;
}

static long fill(struct ua_task *t, int fd, enum proc_entry e, long fdn,
		 long tid)
{
	struct lx_proc *p = lx_proc(t);
	size_t len = p->auxv_words * 8;

	switch (e) {
	case PROC_CMDLINE:
		return put_cmdline(t, fd);
	case PROC_ENVIRON:
		return put_guest(t, fd, p->env_start, p->env_end, false);
	case PROC_AUXV:
		return write(fd, p->auxv, len) == (ssize_t)len ? 0 : -errno;
	case PROC_MAPS:
		return ua__lx_put_maps(t, fd);
	case PROC_SMAPS:
	case PROC_ROLLUP:
		return ua__lx_put_smaps(t, fd, e == PROC_ROLLUP);
	case PROC_FDINFO:
		return put_fdinfo(t, fd, fdn);
	case PROC_STATUS:
	case PROC_STAT:
		return put_thread(t, fd, e, tid);
	default:
		return -EINVAL;
	}
}

/*
 * ua__lx_procfs_other(): what to ask another process's monitor for the
 * entry of /proc/<pid> that path names (proc_remote.c), or LX_ASK_NONE:
 * maps, smaps, smaps_rollup, status, stat, fdinfo/N, fd/N (its link) and
 * the directories fd/, fdinfo/ and task/ (their names).  The pid in
 * *pid; N, or the directory (LX_PDIR_*), in *arg.
 */
enum lx_ask ua__lx_procfs_other(const char *path, long *pid, long *arg)
{
	char *end;

	if (strncmp(path, "/proc/", 6))
		return LX_ASK_NONE;
	*pid = strtol(path + 6, &end, 10);
	if (end == path + 6 || *end != '/' || *pid <= 0 || *pid == getpid())
		return LX_ASK_NONE;
	switch (entry_in(end + 1, arg, false)) {
	case PROC_MAPS:
		return LX_ASK_MAPS;
	case PROC_SMAPS:
		return LX_ASK_SMAPS;
	case PROC_ROLLUP:
		return LX_ASK_ROLLUP;
	case PROC_STATUS:
		return LX_ASK_STATUS;
	case PROC_STAT:
		return LX_ASK_STAT;
	case PROC_FDINFO:
		return LX_ASK_FDINFO;
	case PROC_FD:
		return LX_ASK_FD_LINK;
	case PROC_DIR:
		return LX_ASK_LIST;
	default:
		return LX_ASK_NONE;
	}
}

static long fd_link(struct ua_task *t, long fd, char *out, size_t size);

/* A descriptor's link, or its host descriptor's number, on out. */
static long put_fd(struct ua_task *t, int out, long fd, bool host)
{
	const struct lx_file *f = ua__lx_file(t, fd);
	char link[PATH_MAX];
	long n;

	if (!f)
		return -ENOENT;
	if (host && f->kind == LX_FD_HOST)
		return dprintf(out, "%d", f->host) > 0 ? 0 : -EIO;
	n = fd_link(t, fd, link, sizeof(link));
	if (n < 0)
		return n;
	return write(out, link, (size_t)n) == n ? 0 : -errno;
}

/* ua__lx_procfs_fill(): the answer to what ua__lx_procfs_other() named. */
long ua__lx_procfs_fill(struct ua_task *t, int fd, enum lx_ask e, long arg)
{
	switch (e) {
	case LX_ASK_MAPS:
		return fill(t, fd, PROC_MAPS, 0, 0);
	case LX_ASK_SMAPS:
		return fill(t, fd, PROC_SMAPS, 0, 0);
	case LX_ASK_ROLLUP:
		return fill(t, fd, PROC_ROLLUP, 0, 0);
	case LX_ASK_STATUS:
		return fill(t, fd, PROC_STATUS, 0, 0);
	case LX_ASK_STAT:
		return fill(t, fd, PROC_STAT, 0, 0);
	case LX_ASK_FDINFO:
		return fill(t, fd, PROC_FDINFO, arg, 0);
	case LX_ASK_FD_LINK:
	case LX_ASK_FD_HOST:
		return put_fd(t, fd, arg, e == LX_ASK_FD_HOST);
	case LX_ASK_LIST:
		return ua__lx_procfs_dir_names(t, (int)arg, fd);
	default:
		return -EINVAL;
	}
}

/* A read-only descriptor, 3 or above, on the content in memfd. */
long ua__lx_procfs_read_only(int memfd)
{
	char self[32];
	int fd;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", memfd);
	fd = open(self, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : ua__lx_host_above_stdio(fd);
}

/*
 * The host path guest descriptor fd stands for (what the kernel's
 * proc_fd_link() gives): its length, or -ENOENT for no such descriptor.
 */
static long fd_link(struct ua_task *t, long fd, char *out, size_t size)
{
	const struct lx_file *f = ua__lx_file(t, fd);
	char self[32];
	ssize_t n;

	if (!f)
		return -ENOENT;
	if (f->kind == LX_FD_NULL || f->kind == LX_FD_ZERO || f->sfd) {
		/* A signalfd's host side is an eventfd (sys_signalfd.c). */
		n = snprintf(out, size, "%s",
			     f->sfd			 ? "anon_inode:[signalfd]" :
			     f->kind == LX_FD_NULL ? "/dev/null" :
						     "/dev/zero");
		return n < (ssize_t)size ? n : (ssize_t)size;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", f->host);
	n = readlink(self, out, size);
	return n < 0 ? -errno : n;
}

/* Another uarun process's exe link (host_proc.c), or -ENOSYS. */
static long other_exe_link(const char *path, char *out, size_t size)
{
	char exe[PATH_MAX];
	size_t n = ua__lx_other_exe(path, exe);

	if (!n)
		return -ENOSYS;
	n = n < size ? n : size;
	memcpy(out, exe, n);
	return (long)n;
}

/*
 * ua__lx_procfs_readlink(): the target of the guest's own exe or fd/N
 * link at path into out (not terminated), its length, -errno, or
 * -ENOSYS when path is not one of them.
 */
long ua__lx_procfs_readlink(struct ua_task *t, const char *path, char *out,
			    size_t size)
{
	long fd, tid;
	size_t n;
	enum proc_entry e = own_entry(path, &fd, &tid);

	if (e != PROC_NONE && tid && !guest_tid(t, tid))
		return -ENOENT;
	switch (e) {
	case PROC_EXE:
		n = strlen(lx_proc(t)->execfn);
		n = n < size ? n : size;
		memcpy(out, lx_proc(t)->execfn, n);
		return (long)n;
	case PROC_FD:
		return fd_link(t, fd, out, size);
	case PROC_NONE: {
		long r = other_exe_link(path, out, size);

		return r != -ENOSYS ? r :
				      ua__lx_remote_readlink(t, path, out, size);
	}
	default:
		return -EINVAL; /* not a link */
	}
}

/*
 * Opening exe or fd/N opens the file they lead to afresh, as the
 * kernel's links do (proc_exe_link(), proc_fd_link()): the host's file
 * under the guest's flags.  The monitor's own devices are opened by
 * their paths.
 */
static long reopen(struct ua_task *t, enum proc_entry e, long fd, int flags)
{
	char path[PATH_MAX];
	long n, h;

	if (e == PROC_EXE) {
		snprintf(path, sizeof(path), "%s", lx_proc(t)->execfn);
	} else {
		const struct lx_file *f = ua__lx_file(t, fd);

		if (!f)
			return -ENOENT;
		if (f->kind == LX_FD_HOST)
			snprintf(path, sizeof(path), "/proc/self/fd/%d",
				 f->host);
		else if ((n = fd_link(t, fd, path, sizeof(path) - 1)) < 0)
			return n;
		else
			path[n] = 0;
	}
	h = open(path, flags | O_CLOEXEC, 0);
	return h < 0 ? -errno : ua__lx_host_above_stdio((int)h);
}

/*
 * /dev/fd and /dev/stdin, /dev/stdout and /dev/stderr are the host's
 * links to /proc/self/fd and its first three entries (udev's and
 * systemd's), which the host would follow to the monitor's descriptors:
 * bash's process substitution hands its commands /dev/fd/63.
 * ua__lx_procfs_alias() rewrites path in place (a PATH_MAX buffer) to the
 * name the host's link gives, where the link is that one, so that the
 * guest's own fd/N answers.  A link that is the path's last component is
 * what lstat and readlink ask about: it is rewritten only when @follow.
 */
void ua__lx_procfs_alias(char *path, bool follow)
{
	static const char *const std[] = { "/dev/stdin", "/dev/stdout",
					   "/dev/stderr" };
	char link[32], want[32];
	size_t len;
	ssize_t n;

	if (strncmp(path, "/dev/", 5))
		return;
	for (int i = 0; i < 3; i++) {
		if (strcmp(path, std[i]))
			continue;
		if (!follow)
			return;
		n = readlink(std[i], link, sizeof(link) - 1);
		snprintf(want, sizeof(want), "/proc/self/fd/%d", i);
		if (n > 0 && (size_t)n == strlen(want) &&
		    !memcmp(link, want, (size_t)n))
			strcpy(path, want);
		return;
	}
	if (strncmp(path, "/dev/fd", 7) || (path[7] && path[7] != '/') ||
	    (!path[7] && !follow))
		return;
	n = readlink("/dev/fd", link, sizeof(link));
	len = strlen(path);
	if (n != 13 || memcmp(link, "/proc/self/fd", 13) ||
	    len + 6 >= PATH_MAX)
		return;
	memmove(path + 13, path + 7, len - 7 + 1);
	memcpy(path, "/proc/self/fd", 13);
}

/*
 * ua__lx_procfs_host_path(): for the calls that look a path up without
 * opening it (stat, lstat, statx, access), the guest's own fd/N link at
 * path, rewritten in place to what the host must look up instead: the
 * link of its host descriptor, which leads to the same file and shows
 * the same open mode; for the device the monitor stands in for, the
 * device followed, or unfollowed the link of the host's own node opened
 * with the same mode (ua__lx_dev_host_fd()); or a name that does not
 * exist for a descriptor that is not open, as the kernel's directory has
 * no entry for it.
 */
void ua__lx_procfs_host_path(struct ua_task *t, char *path, bool follow)
{
	const struct lx_file *f;
	char dev[64];
	long fd, n, tid;
	int h;

	if (own_entry(path, &fd, &tid) != PROC_FD) {
		char exe[PATH_MAX];

		/* Another uarun process's exe: its program's file. */
		if (follow && ua__lx_other_exe(path, exe))
			memcpy(path, exe, strlen(exe) + 1);
		else
			ua__lx_remote_host_path(t, path, follow);
		return;
	}
	f = tid && !guest_tid(t, tid) ? NULL : ua__lx_file(t, fd);
	h = !f ? -EBADF :
	    f->kind == LX_FD_HOST ? f->host :
	    !follow		  ? ua__lx_dev_host_fd(f) :
				    -ENOENT;
	if (h >= 0) {
		snprintf(path, PATH_MAX, "/proc/self/fd/%d", h);
		return;
	}
	n = f && follow ? fd_link(t, fd, dev, sizeof(dev) - 1) : -ENOENT;
	if (n > 0) {
		dev[n] = 0;
		snprintf(path, PATH_MAX, "%s", dev);
		return;
	}
	/* Not open, or a device node the host would not open. */
	snprintf(path, PATH_MAX, "/proc/self/fd/-1");
}

/*
 * ua__lx_procfs_mark(): what the file f just opened at path is, when it
 * is one of the guest's own entries the host opened: a directory that
 * procfs_dir.c lists (f->pdir, LX_PDIR_*; another process's too, with
 * LX_PDIR_OTHER), or the memory file whose reads and writes proc_mem.c
 * clips to the space (f->hkind).
 */
void ua__lx_procfs_mark(const char *path, struct lx_file *f)
{
	long which = 0, tid;

	long pid;

	switch (own_entry(path, &which, &tid)) {
	case PROC_DIR:
		f->pdir = (uint8_t)which;
		break;
	case PROC_MEM:
		f->hkind = LX_HK_MEM;
		break;
	case PROC_NONE:
		/* Another process's: procfs_dir.c asks its monitor. */
		if (ua__lx_procfs_other(path, &pid, &which) == LX_ASK_LIST)
			f->pdir = (uint8_t)(which | LX_PDIR_OTHER);
		break;
	default:
		break;
	}
}

/*
 * ua__lx_procfs_open(): the host descriptor for the guest's own entry
 * at path, -errno, or -ENOSYS when path is not one of them.  The files
 * have no write method: a guest asking to write gets EACCES, what the
 * kernel's modes (0444 and 0400) give a process without
 * CAP_DAC_OVERRIDE.
 */
long ua__lx_procfs_open(struct ua_task *t, const char *path, int flags)
{
	long fd, err, tid;
	enum proc_entry e = own_entry(path, &fd, &tid);
	int memfd;

	if (e == PROC_NONE) {
		char exe[PATH_MAX];
		long h;

		/* Another uarun process's entries: asked of its monitor. */
		h = ua__lx_remote_open(t, path, flags);
		if (h != -ENOSYS)
			return h;
		/* Another uarun process's exe: its program's file afresh. */
		if (!ua__lx_other_exe(path, exe))
			return -ENOSYS;
		h = open(exe, flags | O_CLOEXEC, 0);
		return h < 0 ? -errno : ua__lx_host_above_stdio((int)h);
	}
	/* The monitor's threads have entries in the host's task/ only. */
	if (tid && !guest_tid(t, tid))
		return -ENOENT;
	/* A directory is the host's, listed in the guest's terms. */
	if (e == PROC_DIR)
		return -ENOSYS;
	if (e == PROC_EXE || e == PROC_FD)
		return reopen(t, e, fd, flags);
	/*
	 * The host's own mem file of this process, opened with the guest's
	 * flags: its open checks, its lseek and its FOLL_FORCE reads and
	 * writes are the kernel's, and proc_mem.c keeps them to the space.
	 */
	if (e == PROC_MEM) {
		long h = open("/proc/self/mem", flags | O_CLOEXEC);

		return h < 0 ? -errno : ua__lx_host_above_stdio((int)h);
	}
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_CREAT))
		return -EACCES;
	if (flags & O_DIRECTORY)
		return -ENOTDIR;
	memfd = memfd_create("uaccess-proc", MFD_CLOEXEC);
	if (memfd < 0)
		return -errno;
	err = fill(t, memfd, e, fd, tid);
	if (!err)
		err = ua__lx_procfs_read_only(memfd);
	close(memfd);
	return err;
}
