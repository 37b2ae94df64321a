// SPDX-License-Identifier: MIT
/*
 * epoll through a host epoll instance: the guest's epoll descriptor is a
 * host one, the descriptors it watches are the host descriptors behind
 * the guest's, and the event's data word is the guest's, passed through
 * untouched (the kernel never reads it either).  A watched descriptor
 * the guest closes leaves the set as in Linux, the host descriptor
 * being the one closed.  The monitor's own /dev/null and /dev/zero
 * cannot be watched: EPERM, as natively (their file operations have no
 * poll method, which ep_insert() requires).
 *
 * The wait sleeps in the host (ua__lx_host_wait()), so a signal for the
 * guest ends it with EINTR, which epoll_wait never restarts (signal(7)).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux_internal.h"

/* EP_MAX_EVENTS (fs/eventpoll.c): INT_MAX / sizeof(struct epoll_event). */
#define LX_EP_MAX_EVENTS (0x7fffffff / 12)
/* Events fetched from the host per wait: the rest stay ready there. */
#define LX_EP_BATCH 256

static long epoll_new(struct ua_task *t, int flags)
{
	int h, fd;

	if (flags & ~EPOLL_CLOEXEC)
		return -EINVAL;
	h = epoll_create1(EPOLL_CLOEXEC);
	if (h < 0)
		return -errno;
	fd = ua__lx_fd_install(
		lx_proc(t), 0,
		(struct lx_file){ .kind = LX_FD_HOST,
				  .host = h,
				  .cloexec = flags & EPOLL_CLOEXEC });
	if (fd < 0)
		close(h);
	return fd < 0 ? -EMFILE : fd;
}

static long sys_epoll_create(struct ua_task *t, struct ua_pt_regs *r)
{
	if ((int)ARG1(r) <= 0)
		return -EINVAL;
	return epoll_new(t, 0);
}

static long sys_epoll_create1(struct ua_task *t, struct ua_pt_regs *r)
{
	return epoll_new(t, (int)ARG1(r));
}

/* The host descriptor behind guest fd, for epoll; -errno. */
static long host_of(struct ua_task *t, long fd)
{
	const struct lx_file *f = ua__lx_file(t, fd);

	if (!f)
		return -EBADF;
	if (f->kind != LX_FD_HOST)
		return -EPERM;
	return f->host;
}

static long sys_epoll_ctl(struct ua_task *t, struct ua_pt_regs *r)
{
	int op = (int)ARG2(r);
	struct epoll_event ev = { 0 };
	long ep, fd;

	/* ep_op_has_event(): the event is read before the descriptors. */
	if (op != EPOLL_CTL_DEL &&
	    ua_copy_from_user(&ev, (void *)ARG4(r), sizeof(ev)))
		return -EFAULT;
	ep = host_of(t, (int)ARG1(r));
	if (ep == -EPERM)
		return -EINVAL; /* not an epoll descriptor */
	fd = host_of(t, (int)ARG3(r));
	if (ep < 0 || fd < 0)
		return ep < 0 ? ep : fd;
	if (ARG1(r) == ARG3(r))
		return -EINVAL;
	return epoll_ctl((int)ep, op, (int)fd, &ev) ? -errno : 0;
}

static long do_wait(struct ua_task *t, long epfd, void *uevents, int max,
		    int timeout_ms)
{
	struct epoll_event ev[LX_EP_BATCH];
	long ep, n;

	if (max <= 0 || max > LX_EP_MAX_EVENTS)
		return -EINVAL;
	if (!ua_access_ok(uevents, (size_t)max * sizeof(ev[0])))
		return -EFAULT;
	ep = host_of(t, epfd);
	if (ep < 0)
		return ep == -EPERM ? -EINVAL : ep;
	n = ua__lx_host_wait(t, SYS_epoll_wait,
			     (long[6]){ ep, (long)ev,
					max < LX_EP_BATCH ? max : LX_EP_BATCH,
					timeout_ms },
			     3);
	if (n > 0 && ua_copy_to_user(uevents, ev, (size_t)n * sizeof(ev[0])))
		return -EFAULT;
	return n;
}

static long sys_epoll_wait(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_wait(t, (int)ARG1(r), (void *)ARG2(r), (int)ARG3(r),
		       (int)ARG4(r));
}

/*
 * epoll_pwait: epoll_wait under the call's own mask (fs/eventpoll.c
 * checks the descriptor and count before it sets the mask).
 */
static long sys_epoll_pwait(struct ua_task *t, struct ua_pt_regs *r)
{
	int max = (int)ARG3(r);
	long ret, now;

	if (max <= 0 || max > LX_EP_MAX_EVENTS)
		return -EINVAL;
	if (!ua_access_ok((void *)ARG2(r),
			  (size_t)max * sizeof(struct epoll_event)))
		return -EFAULT;
	now = ua__lx_mask_begin(t, ARG5(r), ARG6(r));
	if (now < 0)
		return now;
	ret = do_wait(t, (int)ARG1(r), (void *)ARG2(r), max,
		      now ? 0 : (int)ARG4(r));
	if (now && !ret)
		ret = -EINTR;
	return ua__lx_mask_end(t, ret);
}

static const struct lx_call calls[] = {
	{ SYS_epoll_create, "epoll_create", sys_epoll_create, "d" },
	{ SYS_epoll_create1, "epoll_create1", sys_epoll_create1, "x" },
	{ SYS_epoll_ctl, "epoll_ctl", sys_epoll_ctl, "fdfp" },
	{ SYS_epoll_wait, "epoll_wait", sys_epoll_wait, "fpdd" },
	{ SYS_epoll_pwait, "epoll_pwait", sys_epoll_pwait, "fpddpu" },
};

void ua__lx_epoll_init(void)
{
	LX_REGISTER(calls);
}
