// SPDX-License-Identifier: MIT
/*
 * Descriptors of kinds the host makes whole: eventfd, timerfd and memfd
 * (fs/eventfd.c, fs/timerfd.c, mm/memfd.c).  The host's object is the
 * guest's, so reads, writes, polls, maps and sharing across fork are
 * the host's with nothing more to do; the guest's descriptor number is
 * its own table's (sys_file.c), close-on-exec is the table's flag.  And
 * mlock, whose memory is the host's too.
 */
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "linux_internal.h"

/* include/uapi/linux/memfd.h: MFD_NAME_MAX_LEN (the "memfd:" prefix). */
#define MFD_NAME_MAX 249

/* A new host descriptor h as the guest's lowest free one. */
static long install(struct ua_task *t, int h, bool cloexec)
{
	int fd;

	if (h < 0)
		return -errno;
	fd = ua__lx_fd_install(lx_proc(t), 0,
			       (struct lx_file){ .kind = LX_FD_HOST,
						 .host = h,
						 .cloexec = cloexec });
	if (fd < 0)
		close(h);
	return fd < 0 ? -EMFILE : fd;
}

/* eventfd2(): the flags are checked by the host but for close-on-exec. */
static long do_eventfd(struct ua_task *t, unsigned int count, int flags)
{
	if (flags & ~(EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE))
		return -EINVAL;
	return install(t, eventfd(count, flags | EFD_CLOEXEC),
		       flags & EFD_CLOEXEC);
}

static long sys_eventfd(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_eventfd(t, (unsigned int)ARG1(r), 0);
}

static long sys_eventfd2(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_eventfd(t, (unsigned int)ARG1(r), (int)ARG2(r));
}

static long sys_timerfd_create(struct ua_task *t, struct ua_pt_regs *r)
{
	int flags = (int)ARG2(r);

	if (flags & ~(TFD_CLOEXEC | TFD_NONBLOCK))
		return -EINVAL;
	return install(t, timerfd_create((int)ARG1(r), flags | TFD_CLOEXEC),
		       flags & TFD_CLOEXEC);
}

/* The host timerfd behind a guest descriptor: -EBADF, or -EINVAL. */
static int host_timerfd(struct ua_task *t, long fd)
{
	const struct lx_file *f = ua__lx_file(t, fd);

	if (!f)
		return -EBADF;
	return f->kind == LX_FD_HOST ? f->host : -EINVAL;
}

/* SYSCALL_DEFINE4(timerfd_settime): the new value read first. */
static long sys_timerfd_settime(struct ua_task *t, struct ua_pt_regs *r)
{
	struct itimerspec nv, ov;
	int h;

	if (ua_copy_from_user(&nv, (const void *)ARG3(r), sizeof(nv)))
		return -EFAULT;
	h = host_timerfd(t, (long)ARG1(r));
	if (h < 0)
		return h;
	if (timerfd_settime(h, (int)ARG2(r), &nv, &ov))
		return -errno;
	if (ARG4(r) && ua_copy_to_user((void *)ARG4(r), &ov, sizeof(ov)))
		return -EFAULT;
	return 0;
}

static long sys_timerfd_gettime(struct ua_task *t, struct ua_pt_regs *r)
{
	struct itimerspec cur;
	int h = host_timerfd(t, (long)ARG1(r));

	if (h < 0)
		return h;
	if (timerfd_gettime(h, &cur))
		return -errno;
	if (ua_copy_to_user((void *)ARG2(r), &cur, sizeof(cur)))
		return -EFAULT;
	return 0;
}

/* memfd_create(): the name as the kernel reads it, then the host's. */
static long sys_memfd_create(struct ua_task *t, struct ua_pt_regs *r)
{
	unsigned int flags = (unsigned int)ARG2(r);
	char name[MFD_NAME_MAX + 1];
	long n;

	n = ua_strncpy_from_user(name, (const char *)ARG1(r), sizeof(name));
	if (n < 0)
		return -EFAULT;
	if (n == (long)sizeof(name))
		return -EINVAL;
	return install(t, memfd_create(name, flags | MFD_CLOEXEC),
		       flags & MFD_CLOEXEC);
}

/*
 * do_mlock(): the length grows by the start's offset in its page and is
 * rounded up, the start rounded down; then (apply_vma_lock_flags()) a
 * range that wraps is EINVAL, an empty one 0, and one with a page not
 * mapped ENOMEM.  *size 0: nothing to do.
 */
static long mapped_range(struct ua_task *t, uint64_t addr, uint64_t len,
			 uintptr_t *start, size_t *size)
{
	uint64_t pg = ua__pagesz, s = addr & ~(pg - 1), end;

	len += addr & (pg - 1);
	len = (len + pg - 1) & ~(pg - 1);
	end = s + len;
	*size = 0;
	if (end < s)
		return -EINVAL;
	if (end == s)
		return 0;
	if (!ua__space_has(t->sp, (void *)s, end - s))
		return -ENOMEM;
	for (uint64_t a = s; a < end; a += pg)
		if (ua__space_prot_at(t->sp, a) < 0)
			return -ENOMEM;
	*start = s;
	*size = end - s;
	return 0;
}

static long do_mlock(struct ua_task *t, uint64_t addr, uint64_t len,
		     bool lock, unsigned int flags)
{
	uintptr_t start;
	size_t size;
	long err;

	if (flags & ~MLOCK_ONFAULT)
		return -EINVAL;
	err = mapped_range(t, addr, len, &start, &size);
	if (err || !size)
		return err;
	if (!lock)
		return munlock((void *)start, size) ? -errno : 0;
	/*
	 * Locking faults the pages in, which a locked space refuses (the
	 * mprotect backend's PROT_NONE, the pkey backend's PKRU): a read
	 * window lets the host in.
	 */
	if (!ua_user_read_access_begin((void *)start, size))
		return -ENOMEM;
	err = mlock2((void *)start, size, flags) ? -errno : 0;
	ua_user_read_access_end();
	return err;
}

static long sys_mlock(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_mlock(t, ARG1(r), ARG2(r), true, 0);
}

static long sys_mlock2(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_mlock(t, ARG1(r), ARG2(r), true, (unsigned int)ARG3(r));
}

static long sys_munlock(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_mlock(t, ARG1(r), ARG2(r), false, 0);
}

/* The host's: the monitor's own memory is locked with the space's. */
static long sys_mlockall(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)t;
	return mlockall((int)ARG1(r)) ? -errno : 0;
}

static long sys_munlockall(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)t;
	(void)r;
	return munlockall() ? -errno : 0;
}

static const struct lx_call calls[] = {
	{ SYS_eventfd, "eventfd", sys_eventfd, "u" },
	{ SYS_eventfd2, "eventfd2", sys_eventfd2, "ux" },
	{ SYS_timerfd_create, "timerfd_create", sys_timerfd_create, "dx" },
	{ SYS_timerfd_settime, "timerfd_settime", sys_timerfd_settime,
	  "fxpp" },
	{ SYS_timerfd_gettime, "timerfd_gettime", sys_timerfd_gettime, "fp" },
	{ SYS_memfd_create, "memfd_create", sys_memfd_create, "sx" },
	{ SYS_mlock, "mlock", sys_mlock, "pu" },
	{ SYS_mlock2, "mlock2", sys_mlock2, "pux" },
	{ SYS_munlock, "munlock", sys_munlock, "pu" },
	{ SYS_mlockall, "mlockall", sys_mlockall, "x" },
	{ SYS_munlockall, "munlockall", sys_munlockall, "-" },
};

void ua__lx_hostfd_init(void)
{
	LX_REGISTER(calls);
}
