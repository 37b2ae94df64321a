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
#include <unistd.h>

#include "linux_internal.h"

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

/* Entries from position pos on; the position after the last put. */
static int64_t list(struct ua_task *t, int which, int64_t pos,
		    struct dir_out *o)
{
	struct lx_proc *p = lx_proc(t);
	char name[24];

	/* The directory's own inode numbers do not matter to anyone. */
	if (pos == 0 && emit(o, ".", DT_DIR, 1, 1))
		pos = 1;
	if (pos == 1 && emit(o, "..", DT_DIR, 1, 2))
		pos = 2;
	if (pos < 2 || o->full)
		return pos;
	if (which == LX_PDIR_TASK) {
		size_t max = atomic_load(&p->nthreads) + 1, n;
		pid_t *tids = malloc(max * sizeof(*tids));

		if (!tids)
			return pos;
		n = thread_ids(t, tids, max);
		for (; (size_t)(pos - 2) < n; pos++) {
			snprintf(name, sizeof(name), "%d", tids[pos - 2]);
			if (!emit(o, name, DT_DIR, (uint64_t)tids[pos - 2],
				  pos + 1))
				break;
		}
		free(tids);
		return pos;
	}
	for (; pos - 2 < LX_NFDS; pos++) {
		if (p->files[pos - 2].kind == LX_FD_FREE)
			continue;
		snprintf(name, sizeof(name), "%ld", (long)(pos - 2));
		if (!emit(o, name, which == LX_PDIR_FD ? DT_LNK : DT_REG,
			  (uint64_t)pos, pos + 1))
			break;
	}
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
	next = list(t, f->pdir, pos, &o);
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
