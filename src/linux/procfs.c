// SPDX-License-Identifier: MIT
/*
 * The guest's own /proc entries.  The host's /proc/self is the monitor:
 * its command line is uarun's, its auxiliary vector the monitor's.  A
 * guest that opens /proc/self/cmdline, environ or auxv (or the same
 * under its own pid or /proc/thread-self) gets what the kernel would
 * show for it (fs/proc/base.c): the argument and environment strings
 * read from the space where the loader put them, and the auxiliary
 * vector the loader gave it.
 *
 * The content is taken when the file is opened and served from a
 * memory file opened read-only, where the kernel reads the
 * process's memory at each read(): a program that rewrites its
 * arguments after the open is not seen by that open.  Every other /proc
 * path is the host's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "linux_internal.h"

enum proc_entry { PROC_NONE, PROC_CMDLINE, PROC_ENVIRON, PROC_AUXV };

/* The entry of this process that path names, or PROC_NONE. */
static enum proc_entry own_entry(const char *path)
{
	static const char *const names[] = {
		[PROC_CMDLINE] = "cmdline",
		[PROC_ENVIRON] = "environ",
		[PROC_AUXV] = "auxv",
	};
	const char *rest = path + 6; /* past "/proc/" */
	char *end;
	long pid;

	if (!strncmp(rest, "self/", 5)) {
		rest += 5;
	} else if (!strncmp(rest, "thread-self/", 12)) {
		rest += 12;
	} else {
		pid = strtol(rest, &end, 10);
		if (end == rest || *end != '/' || pid != getpid())
			return PROC_NONE;
		rest = end + 1;
	}
	for (int e = PROC_CMDLINE; e <= PROC_AUXV; e++)
		if (!strcmp(rest, names[e]))
			return (enum proc_entry)e;
	return PROC_NONE;
}

/*
 * Append guest bytes [from, to) to fd, up to and including the first
 * NUL when stop_at_nul: as far as they can be read, as access_remote_vm()
 * gives what it can.  0 or -errno.
 */
static long put_guest(struct ua_task *t, int fd, uintptr_t from, uintptr_t to,
		      bool stop_at_nul)
{
	char *buf = lx_proc(t)->iobuf;

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

static long fill(struct ua_task *t, int fd, enum proc_entry e)
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
	default:
		return -EINVAL;
	}
}

/* A read-only descriptor, 3 or above, on the content in memfd. */
static long read_only(int memfd)
{
	char self[32];
	int fd;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", memfd);
	fd = open(self, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : ua__lx_host_above_stdio(fd);
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
	enum proc_entry e = own_entry(path);
	long err;
	int memfd;

	if (e == PROC_NONE)
		return -ENOSYS;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_CREAT))
		return -EACCES;
	if (flags & O_DIRECTORY)
		return -ENOTDIR;
	memfd = memfd_create("uaccess-proc", MFD_CLOEXEC);
	if (memfd < 0)
		return -errno;
	err = fill(t, memfd, e);
	if (!err)
		err = read_only(memfd);
	close(memfd);
	return err;
}
