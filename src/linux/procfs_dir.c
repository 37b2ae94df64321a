// SPDX-License-Identifier: MIT
/*
 * The guest's own /proc/<pid>/fd, fdinfo and task directories, listed.
 * The host's are the monitor's: its descriptors (the guest's under other
 * numbers, and the monitor's own) and its threads.  A guest that opens
 * one (procfs.c names them) holds the host's directory, so that fstat,
 * fchdir and lseek behave as they would, and getdents64 lists what the
 * kernel would list for the guest (fs/proc/fd.c proc_readfd_common(),
 * fs/proc/base.c proc_task_readdir()): ".", "..", then each open
 * descriptor (links in fd/, files in fdinfo/) or each thread's id
 * (directories in task/).
 *
 * Another uarun process's directories (LX_PDIR_OTHER) list what its
 * monitor answers (proc_remote.c), asked at each call; one that does not
 * answer is listed as the host has it.
 *
 * The position is the kernel's: 0 and 1 the dots, then descriptor N at
 * N + 2, thread k (in ascending ids) at k + 2.  It is kept as the host
 * directory's own offset (lseek on a /proc directory takes any value),
 * so that rewinddir, telldir and seekdir work as natively.  Each call
 * lists the table as it is then, as the kernel's does.
 */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux_internal.h"

/* The names asked of another monitor at most (descriptors, threads). */
#define LX_NAMES_MAX 65536

/* struct linux_dirent64 (include/linux/dirent.h) */
struct lx_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	uint16_t d_reclen;
	uint8_t d_type;
	char d_name[];
};

/* A buffer being filled, as filldir64() fills it (fs/readdir.c). */
struct dir_out {
	char *buf;
	size_t size, used;
	bool full;
};

/* Put one entry whose next position is next; false once full. */
static bool emit(struct dir_out *o, const char *name, uint8_t type,
		 uint64_t ino, int64_t next)
{
	size_t len = strlen(name);
	size_t reclen = (offsetof(struct lx_dirent64, d_name) + len + 1 + 7) &
			~(size_t)7;
	struct lx_dirent64 *d;

	if (o->full || reclen > o->size - o->used) {
		o->full = true;
		return false;
	}
	d = (struct lx_dirent64 *)(o->buf + o->used);
	memset(d, 0, reclen);
	d->d_ino = ino;
	d->d_off = next;
	d->d_reclen = (uint16_t)reclen;
	d->d_type = type;
	memcpy(d->d_name, name, len);
	o->used += reclen;
	return true;
}

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The process's thread ids, ascending; how many (at most max). */
static size_t thread_ids(struct ua_task *t, pid_t *out, size_t max)
{
	struct lx_proc *p = lx_proc(t);
	size_t n = 0;

	pthread_mutex_lock(&p->tlock);
	if (!p->nthreads)
		out[n++] = ua__lx_tid(t);
	for (size_t i = 0; i < p->nthreads && n < max; i++)
		out[n++] = ua__lx_tid(p->threads[i]);
	pthread_mutex_unlock(&p->tlock);
	qsort(out, n, sizeof(*out), cmp_tid);
	return n;
}

/*
 * The names the guest's own directory which lists, ascending: its open
 * descriptors or its threads' ids; a malloc'ed array (NULL: no memory)
 * and its length in *n.
 */
static long *own_names(struct ua_task *t, int which, size_t *n)
{
	struct lx_proc *p = lx_proc(t);
	size_t max = atomic_load(&p->nthreads) + 1;
	pid_t *tids;
	long *names;

	*n = 0;
	if (which != LX_PDIR_TASK) {
		names = malloc(LX_NFDS * sizeof(*names));
		for (int i = 0; names && i < LX_NFDS; i++)
			if (p->files[i].kind != LX_FD_FREE)
				names[(*n)++] = i;
		return names;
	}
	tids = malloc(max * sizeof(*tids));
	names = malloc(max * sizeof(*names));
	if (tids && names) {
		*n = thread_ids(t, tids, max);
		for (size_t i = 0; i < *n; i++)
			names[i] = tids[i];
	}
	free(tids);
	return names;
}

long ua__lx_procfs_dir_names(struct ua_task *t, int which, int fd)
{
	size_t n;
	long *names = own_names(t, which, &n);

	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		dprintf(fd, "%ld\n", names[i]);
	free(names);
	return 0;
}

/*
 * A directory's entries from position pos on, of names (ascending): the
 * position after the last put.  The dots' inode numbers do not matter
 * to anyone.
 */
static int64_t list_names(const long *names, size_t n, int which, int64_t pos,
			  struct dir_out *o)
{
	char name[24];
	size_t i = 0;

	if (pos == 0 && emit(o, ".", DT_DIR, 1, 1))
		pos = 1;
	if (pos == 1 && emit(o, "..", DT_DIR, 1, 2))
		pos = 2;
	if (pos < 2 || o->full)
		return pos;
	if (which == LX_PDIR_TASK) {
		for (; (size_t)(pos - 2) < n; pos++) {
			snprintf(name, sizeof(name), "%ld", names[pos - 2]);
			if (!emit(o, name, DT_DIR, (uint64_t)names[pos - 2],
				  pos + 1))
				break;
		}
		return pos;
	}
	while (i < n && names[i] < pos - 2)
		i++;
	for (; i < n; i++) {
		snprintf(name, sizeof(name), "%ld", names[i]);
		if (!emit(o, name, which == LX_PDIR_FD ? DT_LNK : DT_REG,
			  (uint64_t)names[i] + 2, names[i] + 3))
			break;
		pos = names[i] + 3;
	}
	return o->full ? pos : (int64_t)LX_NFDS + 2;
}

/* The pid of another process's directory open on host descriptor h. */
static long dir_pid(int h)
{
	char self[32], link[64];
	ssize_t n;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", h);
	n = readlink(self, link, sizeof(link) - 1);
	if (n <= 6)
		return 0;
	link[n] = 0;
	return strncmp(link, "/proc/", 6) ? 0 : strtol(link + 6, NULL, 10);
}

/* Entries from position pos on; the position after the last put. */
static int64_t list(struct ua_task *t, int which, int64_t pos,
		    struct dir_out *o)
{
	size_t n;
	long *names = own_names(t, which, &n);

	if (!names)
		return pos;
	pos = list_names(names, n, which, pos, o);
	free(names);
	return pos;
}

long ua__lx_procfs_getdents(struct ua_task *t, struct lx_file *f, void *ubuf,
			    size_t count)
{
	struct dir_out o = { .size = count < (64u << 10) ? count : 64u << 10 };
	off_t pos = lseek(f->host, 0, SEEK_CUR);
	int64_t next;
	long ret;

	if (pos < 0)
		return -errno;
	o.buf = malloc(o.size ? o.size : 1);
	if (!o.buf)
		return -ENOMEM;
	if (f->pdir & LX_PDIR_OTHER) {
		int which = f->pdir & ~LX_PDIR_OTHER;
		long *names = malloc(LX_NAMES_MAX * sizeof(*names)), n;

		n = names ? ua__lx_remote_names(t, dir_pid(f->host), which,
						names, LX_NAMES_MAX) :
			    -ENOMEM;
		if (n < 0) {
			/* No answer: the host's listing. */
			free(names);
			n = syscall(SYS_getdents64, f->host, o.buf, o.size);
			ret = n < 0 ? -errno : n;
			if (n > 0 && ua_copy_to_user(ubuf, o.buf, (size_t)n))
				ret = -EFAULT;
			free(o.buf);
			return ret;
		}
		next = list_names(names, (size_t)n, which, pos, &o);
		free(names);
	} else {
		next = list(t, f->pdir, pos, &o);
	}
	/* Not even one entry fits: the kernel's EINVAL (filldir64()). */
	if (!o.used && o.full) {
		ret = -EINVAL;
	} else if (o.used && ua_copy_to_user(ubuf, o.buf, o.used)) {
		ret = -EFAULT;
	} else {
		ret = (long)o.used;
		if (lseek(f->host, (off_t)next, SEEK_SET) < 0)
			ret = -errno;
	}
	free(o.buf);
	return ret;
}
