// SPDX-License-Identifier: MIT
/*
 * signalfd and signalfd4 (fs/signalfd.c): a descriptor that reads the
 * process's pending signals of a mask as struct signalfd_siginfo.
 *
 * The guest's descriptor is a host eventfd, so that poll, select, epoll,
 * fcntl, dup, close-on-exec and fork treat it as the host treats any
 * descriptor; what the host does not know is served here: a read takes
 * signals off the engine's queues (the reader's own, then the
 * process's), a write is EINVAL, pread and pwrite ESPIPE.
 *
 * Readiness is the eventfd's count: 1 while a signal of the mask is
 * pending, 0 otherwise.  The signal layer calls pend_hook() after every
 * change to the process's pending sets once it has a signalfd
 * (ua_sighand's watchers, src/signal/signal_internal.h).  The kernel's
 * signalfd_poll() looks at the polling thread's own queue and the
 * process's; here it is the own queue of the thread that made the
 * descriptor or last read it, and the process's.
 *
 * Each signalfd is a slot of the process's table, shared by the guest
 * descriptors that refer to it (lx_file's sfd: dup keeps it, the last
 * close frees it).  The slot holds a descriptor of its own for the
 * eventfd, so closing one guest descriptor never closes another's.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "linux_internal.h"

struct lx_sigfd {
	int refs;	       /* guest descriptors; 0: the slot is free */
	int efd;	       /* the monitor's own, close-on-exec */
	uint64_t mask;	       /* never SIGKILL nor SIGSTOP */
	bool ready;	       /* the eventfd's count is 1 */
	struct ua_task *owner; /* whose own queue counts; NULL: none */
};

struct lx_sigfds {
	pthread_mutex_t lock;
	struct lx_sigfd v[LX_NSIGFD];
};

#define BIT(sig) (1ull << ((sig) - 1))

static void sfd_update(struct lx_sigfd *e, struct ua_task *any)
{
	uint64_t pend = atomic_load(&sigstate(any)->sh->shared.pending);
	uint64_t one = 1;
	bool ready;
	ssize_t n;

	if (e->owner)
		pend |= atomic_load(&sigstate(e->owner)->own.pending);
	ready = pend & e->mask;
	if (ready == e->ready)
		return;
	/* Never blocks: the count is 0 before the write, 1 before the read. */
	n = ready ? write(e->efd, &one, sizeof(one)) :
		    read(e->efd, &one, sizeof(one));
	if (n == sizeof(one))
		e->ready = ready;
}

/* fn(slot, t) for each slot in use of t's process, under the lock. */
static void each_slot(struct ua_task *t,
		      void (*fn)(struct lx_sigfd *e, struct ua_task *t))
{
	struct lx_proc *p = lx_proc(t);
	struct lx_sigfds *fs = p ? p->sigfds : NULL;

	if (!fs)
		return;
	pthread_mutex_lock(&fs->lock);
	for (int i = 0; i < LX_NSIGFD; i++)
		if (fs->v[i].refs)
			fn(&fs->v[i], t);
	pthread_mutex_unlock(&fs->lock);
}

static void pend_hook(struct ua_task *t)
{
	each_slot(t, sfd_update);
}

static struct lx_sigfds *table_of(struct ua_task *t)
{
	struct lx_proc *p = lx_proc(t);
	struct lx_sigfds *fs = p->sigfds;

	if (fs)
		return fs;
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return NULL;
	pthread_mutex_init(&fs->lock, NULL);
	p->sigfds = fs;
	ua__sig_pend_hook = pend_hook;
	atomic_store(&sigstate(t)->sh->watchers, 1);
	return fs;
}

void ua__lx_sigfd_get(struct lx_proc *p, int sfd)
{
	pthread_mutex_lock(&p->sigfds->lock);
	p->sigfds->v[sfd - 1].refs++;
	pthread_mutex_unlock(&p->sigfds->lock);
}

void ua__lx_sigfd_put(struct lx_proc *p, int sfd)
{
	struct lx_sigfd *e = &p->sigfds->v[sfd - 1];

	pthread_mutex_lock(&p->sigfds->lock);
	if (!--e->refs) {
		close(e->efd);
		*e = (struct lx_sigfd){ .efd = -1 };
	}
	pthread_mutex_unlock(&p->sigfds->lock);
}

static void drop_owner(struct lx_sigfd *e, struct ua_task *t)
{
	if (e->owner == t)
		e->owner = NULL;
}

/* A thread that ends no longer stands for the readers of its signalfds. */
void ua__lx_sigfd_forget(struct ua_task *t)
{
	each_slot(t, drop_owner);
}

/*
 * A slot for mask with one reference, its eventfd made or (host >= 0,
 * an exec's new image) the one the guest's descriptor already is: the
 * slot number + 1, or a negative error.
 */
int ua__lx_sigfd_new(struct ua_task *t, uint64_t mask, int host)
{
	struct lx_sigfds *fs = table_of(t);
	int ret = -ENFILE;

	if (!fs)
		return -ENOMEM;
	pthread_mutex_lock(&fs->lock);
	for (int i = 0; i < LX_NSIGFD; i++) {
		struct lx_sigfd *e = &fs->v[i];

		if (e->refs)
			continue;
		e->efd = host < 0 ? eventfd(0, EFD_CLOEXEC) :
				    fcntl(host, F_DUPFD_CLOEXEC, 3);
		if (e->efd < 0) {
			ret = errno == EMFILE ? -EMFILE : -ENFILE;
			break;
		}
		e->refs = 1;
		e->mask = mask;
		e->owner = t;
		e->ready = false;
		if (host >= 0) {
			struct pollfd pfd = { .fd = e->efd, .events = POLLIN };
			uint64_t v;

			/* The old image's count: back to 0, then recounted. */
			if (poll(&pfd, 1, 0) == 1)
				(void)!read(e->efd, &v, sizeof(v));
		}
		sfd_update(e, t);
		ret = i + 1;
		break;
	}
	pthread_mutex_unlock(&fs->lock);
	return ret;
}

uint64_t ua__lx_sigfd_mask(struct lx_proc *p, int sfd)
{
	return p->sigfds->v[sfd - 1].mask;
}

/*
 * A forked child: its slots still name the parent's eventfds, which the
 * host shares between the two.  Each gets a new one, put in place of
 * every guest descriptor of the slot (with its file status flags), so
 * that the parent's signals never show in the child's and back.
 */
void ua__lx_sigfd_after_fork(struct ua_task *t)
{
	struct lx_proc *p = lx_proc(t);
	struct lx_sigfds *fs = p->sigfds;

	if (!fs)
		return;
	pthread_mutex_init(&fs->lock, NULL);
	for (int i = 0; i < LX_NSIGFD; i++) {
		struct lx_sigfd *e = &fs->v[i];
		int nfd;

		if (!e->refs)
			continue;
		nfd = eventfd(0, EFD_CLOEXEC);
		if (nfd < 0)
			continue;
		for (int fd = 0; fd < LX_NFDS; fd++) {
			struct lx_file *f = &p->files[fd];
			int fl;

			if (f->kind != LX_FD_HOST || f->sfd != i + 1)
				continue;
			fl = fcntl(f->host, F_GETFL);
			dup3(nfd, f->host, O_CLOEXEC);
			if (fl >= 0)
				fcntl(f->host, F_SETFL, fl);
		}
		close(e->efd);
		e->efd = nfd;
		e->ready = false;
		e->owner = t;
		sfd_update(e, t);
	}
}

void ua__lx_sigfd_free(struct lx_proc *p)
{
	struct lx_sigfds *fs = p->sigfds;

	if (!fs)
		return;
	for (int i = 0; i < LX_NSIGFD; i++)
		if (fs->v[i].refs)
			close(fs->v[i].efd);
	p->sigfds = NULL;
	free(fs);
}

/*
 * siginfo_layout() (kernel/signal.c): which union member a siginfo's
 * code says it carries.  The limits are the kernel's NSIG* counts of
 * include/uapi/asm-generic/siginfo.h (Linux 6.x).
 */
enum { SIL_KILL, SIL_TIMER, SIL_POLL, SIL_FAULT, SIL_FAULT_MCEERR, SIL_CHLD,
       SIL_RT, SIL_SYS };

static int si_layout(int sig, int code)
{
	static const struct {
		int limit, layout;
	} filter[] = {
		[SIGILL] = { 11, SIL_FAULT },  [SIGFPE] = { 15, SIL_FAULT },
		[SIGSEGV] = { 10, SIL_FAULT }, [SIGBUS] = { 5, SIL_FAULT },
		[SIGTRAP] = { 6, SIL_FAULT },  [SIGCHLD] = { 6, SIL_CHLD },
		[SIGPOLL] = { 6, SIL_POLL },   [SIGSYS] = { 2, SIL_SYS },
	};

	if (code > SI_USER && code < SI_KERNEL) {
		if (sig > 0 && sig < (int)(sizeof(filter) / sizeof(filter[0])) &&
		    filter[sig].limit && code <= filter[sig].limit) {
			if (sig == SIGBUS && (code == BUS_MCEERR_AR ||
					      code == BUS_MCEERR_AO))
				return SIL_FAULT_MCEERR;
			return filter[sig].layout;
		}
		return code <= 6 ? SIL_POLL : SIL_KILL;
	}
	if (code == SI_TIMER)
		return SIL_TIMER;
	if (code == SI_SIGIO)
		return SIL_POLL;
	return code < 0 ? SIL_RT : SIL_KILL;
}

/* signalfd_copyinfo(): the fields the layout has, the rest 0. */
static void copyinfo(struct signalfd_siginfo *n, const siginfo_t *i)
{
	memset(n, 0, sizeof(*n));
	n->ssi_signo = (uint32_t)i->si_signo;
	n->ssi_errno = i->si_errno;
	n->ssi_code = i->si_code;
	switch (si_layout(i->si_signo, i->si_code)) {
	case SIL_KILL:
		n->ssi_pid = (uint32_t)i->si_pid;
		n->ssi_uid = i->si_uid;
		break;
	case SIL_TIMER:
		n->ssi_tid = (uint32_t)i->si_timerid;
		n->ssi_overrun = (uint32_t)i->si_overrun;
		n->ssi_ptr = (uint64_t)(uintptr_t)i->si_ptr;
		n->ssi_int = i->si_int;
		break;
	case SIL_POLL:
		n->ssi_band = (uint32_t)i->si_band;
		n->ssi_fd = i->si_fd;
		break;
	case SIL_FAULT:
		n->ssi_addr = (uint64_t)(uintptr_t)i->si_addr;
		break;
	case SIL_FAULT_MCEERR:
		n->ssi_addr = (uint64_t)(uintptr_t)i->si_addr;
		n->ssi_addr_lsb = (uint16_t)i->si_addr_lsb;
		break;
	case SIL_CHLD:
		n->ssi_pid = (uint32_t)i->si_pid;
		n->ssi_uid = i->si_uid;
		n->ssi_status = i->si_status;
		n->ssi_utime = (uint64_t)i->si_utime;
		n->ssi_stime = (uint64_t)i->si_stime;
		break;
	case SIL_RT:
		n->ssi_pid = (uint32_t)i->si_pid;
		n->ssi_uid = i->si_uid;
		n->ssi_ptr = (uint64_t)(uintptr_t)i->si_ptr;
		n->ssi_int = i->si_int;
		break;
	case SIL_SYS:
		n->ssi_call_addr = (uint64_t)(uintptr_t)i->si_call_addr;
		n->ssi_syscall = i->si_syscall;
		n->ssi_arch = i->si_arch;
		break;
	}
}

/*
 * signalfd_dequeue(): one signal of mask, the reader's own first; else
 * -EAGAIN, or a sleep until one comes or a signal the reader does not
 * block ends it (-ERESTARTSYS: a handler with SA_RESTART reads again).
 */
static int take_one(struct ua_task *t, uint64_t mask, bool nonblock,
		    siginfo_t *info)
{
	struct ua_sigstate *s = sigstate(t);
	int sig = ua__sig_dequeue_set(t, mask, info);

	if (sig || nonblock)
		return sig ? sig : -EAGAIN;
	/* A signal for the process may pick this thread while it waits. */
	atomic_store(&s->waiting, mask);
	for (;;) {
		sig = ua__sig_dequeue_set(t, mask, info);
		if (sig)
			break;
		if (ua__sig_pending(s) & ~atomic_load(&s->blocked)) {
			sig = -ERESTARTSYS;
			break;
		}
		ua__lx_wait(t, NULL, mask);
	}
	atomic_store(&s->waiting, 0);
	return sig;
}

/* signalfd_read_iter(): whole records, waiting for the first only. */
long ua__lx_sigfd_read(struct ua_task *t, struct lx_file *f,
		       struct ua_iov_iter *it)
{
	struct lx_sigfds *fs = lx_proc(t)->sigfds;
	struct lx_sigfd *e = &fs->v[f->sfd - 1];
	size_t count = ua_iov_iter_count(it) / sizeof(struct signalfd_siginfo);
	int fl = fcntl(f->host, F_GETFL);
	bool nonblock = fl >= 0 && (fl & O_NONBLOCK);
	long total = 0, ret = 0;
	uint64_t mask;

	if (!count)
		return -EINVAL;
	pthread_mutex_lock(&fs->lock);
	mask = e->mask;
	if (e->owner != t) {
		e->owner = t;
		sfd_update(e, t);
	}
	pthread_mutex_unlock(&fs->lock);
	while (count--) {
		struct signalfd_siginfo n;
		siginfo_t info;
		int sig = take_one(t, mask, nonblock, &info);

		if (sig <= 0) {
			ret = sig;
			break;
		}
		copyinfo(&n, &info);
		if (ua_copy_to_iter(&n, sizeof(n), it) != sizeof(n)) {
			ret = -EFAULT;
			break;
		}
		total += (long)sizeof(n);
		nonblock = true;
	}
	return total ? total : ret;
}

/* do_signalfd4(), after the mask is read. */
static long do_signalfd4(struct ua_task *t, int ufd, uint64_t mask, int flags)
{
	struct lx_proc *p = lx_proc(t);
	struct lx_file *f;
	int sfd, host, fd;

	if (flags & ~(SFD_CLOEXEC | SFD_NONBLOCK))
		return -EINVAL;
	mask &= ~(BIT(SIGKILL) | BIT(SIGSTOP));
	if (ufd != -1) {
		f = ua__lx_file(t, ufd);
		if (!f)
			return -EBADF;
		if (f->kind != LX_FD_HOST || !f->sfd)
			return -EINVAL;
		pthread_mutex_lock(&p->sigfds->lock);
		p->sigfds->v[f->sfd - 1].mask = mask;
		sfd_update(&p->sigfds->v[f->sfd - 1], t);
		pthread_mutex_unlock(&p->sigfds->lock);
		return ufd;
	}
	sfd = ua__lx_sigfd_new(t, mask, -1);
	if (sfd < 0)
		return sfd;
	host = fcntl(p->sigfds->v[sfd - 1].efd, F_DUPFD_CLOEXEC, 3);
	if (host < 0 || ((flags & SFD_NONBLOCK) &&
			 fcntl(host, F_SETFL, O_RDWR | O_NONBLOCK))) {
		fd = -errno;
		goto fail;
	}
	fd = ua__lx_fd_install(p, 0,
			       (struct lx_file){ .kind = LX_FD_HOST,
						 .host = host,
						 .flags = O_RDWR | (flags &
								    O_NONBLOCK),
						 .cloexec = flags & SFD_CLOEXEC,
						 .sfd = sfd });
	if (fd >= 0)
		return fd;
fail:
	if (host >= 0)
		close(host);
	ua__lx_sigfd_put(p, sfd);
	return fd;
}

static long sys_signalfd4(struct ua_task *t, struct ua_pt_regs *r)
{
	uint64_t mask;

	if (ARG3(r) != sizeof(mask))
		return -EINVAL;
	if (ua_copy_from_user(&mask, (const void *)ARG2(r), sizeof(mask)))
		return -EFAULT;
	return do_signalfd4(t, (int)ARG1(r), mask, (int)ARG4(r));
}

static long sys_signalfd(struct ua_task *t, struct ua_pt_regs *r)
{
	struct ua_pt_regs r4 = *r;

	r4.r10 = 0;
	return sys_signalfd4(t, &r4);
}

static const struct lx_call calls[] = {
	{ SYS_signalfd, "signalfd", sys_signalfd, "dpu" },
	{ SYS_signalfd4, "signalfd4", sys_signalfd4, "dpux" },
};

void ua__lx_signalfd_init(void)
{
	LX_REGISTER(calls);
}
