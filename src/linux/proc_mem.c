// SPDX-License-Identifier: MIT
/*
 * Reads and writes of the guest's /proc/<pid>/mem.  The guest and the
 * monitor are one host process, so the host's mem file of it reaches
 * the monitor's memory as well as the program's: a guest that read or
 * wrote it directly could see or change the monitor.  procfs.c opens
 * the host's file (its open checks and lseek are the kernel's) and
 * marks it LX_HK_MEM; read, write, pread and pwrite of it come here,
 * never to the fast path, and reach the host's file only for the part
 * of the request that lies in the program's mappings
 * (ua__lx_mem_span()).  The host's access is the kernel's own
 * FOLL_FORCE access, so a read-only or PROT_NONE page of the program
 * is read and written as natively, whatever protection the backend
 * gives the space while the monitor runs.
 *
 * The shape is mem_rw()'s (fs/proc/base.c): pieces of at most a page;
 * a write takes its piece from the caller's buffer before the access, a
 * read gives it after; the first piece that reaches nothing ends the
 * call, with EIO if it is the first; a caller's buffer that faults is
 * EFAULT whatever went before, and the file position then stays
 * (ksys_read() writes it back only on success).  Positions are
 * addresses, unsigned (FMODE_UNSIGNED_OFFSET).  sendfile, splice and
 * mmap of the file need nothing here: the host's file has no splice or
 * mmap method either, and refuses them as the guest's would.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux_internal.h"

dev_t ua__lx_procfs_dev = (dev_t)-1;

/* Called once, before any guest descriptor exists (ua__lx_proc_new()). */
void ua__lx_procfs_dev_init(void)
{
	struct stat st;

	if (ua__lx_procfs_dev == (dev_t)-1 && !stat("/proc/self", &st))
		ua__lx_procfs_dev = st.st_dev;
}

/*
 * Whether the procfs file h is the mem file of a thread of this process
 * (whose memory is the monitor's too): its path is /proc/<id>/mem or
 * /proc/<id>/task/<id>/mem, and the last id one of this process's
 * threads.  Another process's mem reaches that process, not this one.
 */
static bool own_mem(int h)
{
	char link[64], path[48], *s;
	long id;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", h);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = 0;
	if (strncmp(link, "/proc/", 6))
		return false;
	id = strtol(link + 6, &s, 10);
	if (!strncmp(s, "/task/", 6))
		id = strtol(s + 6, &s, 10);
	if (id <= 0 || strcmp(s, "/mem"))
		return false;
	snprintf(path, sizeof(path), "/proc/self/task/%ld", id);
	return !access(path, F_OK);
}

/*
 * ua__lx_host_kind(): what the host descriptor of f is, for the full
 * path's calls (fast.c's fast_hkind() for its own): a procfs file is
 * told apart here, once, so that every spelling of this process's mem
 * is clipped to the program's mappings.
 */
int ua__lx_host_kind(struct lx_file *f)
{
	struct stat st;

	if (f->kind != LX_FD_HOST)
		return LX_HK_OTHER;
	if (!f->hkind) {
		if (fstat(f->host, &st))
			return LX_HK_OTHER;
		f->hkind = (uint8_t)lx_hkind_of(&st);
	}
	if (f->hkind == LX_HK_PROC)
		f->hkind = own_mem(f->host) ? LX_HK_MEM : LX_HK_REG;
	return f->hkind;
}

/* The file position of the host's mem file: an address, any 64 bits. */
static uint64_t mem_pos(int h)
{
	return (uint64_t)lseek(h, 0, SEEK_CUR);
}

/* One piece at addr through the host's file: the bytes done, or 0. */
static size_t mem_piece(int h, bool write, char *buf, size_t n, uint64_t addr)
{
	ssize_t r = write ? pwrite(h, buf, n, (off_t)addr) :
			    pread(h, buf, n, (off_t)addr);

	return r > 0 ? (size_t)r : 0;
}

/*
 * ua__lx_mem_rw(): read (write false) or write the iterator's bytes at
 * the address *pos, or at the file's position (advanced on success)
 * when pos is NULL.  The bytes done or -errno.
 */
long ua__lx_mem_rw(struct ua_task *t, struct lx_file *f, struct ua_iov_iter *it,
		   const off_t *pos, bool write)
{
	char *buf = lx_iobuf(t);
	uint64_t addr = pos ? (uint64_t)*pos : mem_pos(f->host);
	size_t left = ua_iov_iter_count(it), done = 0, span;

	/*
	 * rw_verify_area(): a position at or above 2^63 (reached by lseek;
	 * pread's offset is never negative) is refused only when the count
	 * would carry past the top of the address space.
	 */
	if ((int64_t)addr < 0 && left >= -addr)
		return -EOVERFLOW;
	if (!left)
		return 0;
	span = ua__lx_mem_span(t, (uintptr_t)addr, left);
	while (left) {
		size_t want = left < ua__pagesz ? left : ua__pagesz;
		size_t n = want;

		if (write && ua_copy_from_iter(buf, want, it) != want)
			return -EFAULT;
		if (n > span - done)
			n = span - done;
		n = n ? mem_piece(f->host, write, buf, n, addr + done) : 0;
		if (!n)
			break;
		if (!write && ua_copy_to_iter(buf, n, it) != n)
			return -EFAULT;
		done += n;
		left -= n;
		/* Short: the next piece would reach nothing. */
		if (n < want)
			break;
	}
	if (!done)
		return -EIO;
	if (!pos)
		lseek(f->host, (off_t)(addr + done), SEEK_SET);
	return (long)done;
}
