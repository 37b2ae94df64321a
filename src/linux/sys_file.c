// SPDX-License-Identifier: MIT
/*
 * Descriptors and I/O (fs/read_write.c, fs/file.c, fs/fcntl.c, fs/pipe.c,
 * fs/select.c, drivers/char/mem.c).  A program's descriptors are its own
 * table of host descriptors (0, 1 and 2 are the monitor's, passed
 * through); /dev/null and /dev/zero are served by the monitor.  Data
 * moves between host descriptors and guest buffers through a monitor
 * buffer and an iov_iter, never by handing a guest pointer to the host.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <termios.h>
#include <unistd.h>

#include <linux/fs.h>

#include "linux_internal.h"

void ua__lx_files_init(struct lx_proc *p)
{
	for (int i = 0; i < 3; i++)
		p->files[i] = (struct lx_file){ .kind = LX_FD_HOST, .host = i };
}

void ua__lx_files_close(struct lx_proc *p)
{
	for (int i = 0; i < LX_NFDS; i++) {
		if (p->files[i].kind == LX_FD_HOST && p->files[i].host > 2)
			close(p->files[i].host);
		p->files[i].kind = LX_FD_FREE;
	}
}

struct lx_file *ua__lx_file(struct ua_task *t, long fd)
{
	struct lx_proc *p = lx_proc(t);

	if (fd < 0 || fd >= LX_NFDS || p->files[fd].kind == LX_FD_FREE)
		return NULL;
	return &p->files[fd];
}

/*
 * The lowest free descriptor >= min, or -EMFILE.  Calls that may sleep
 * run outside the big lock of a process with threads (table.c), and an
 * open or accept among them installs too: it takes the lock here.
 */
int ua__lx_fd_install(struct lx_proc *p, int min, struct lx_file f)
{
	bool lock = lx_threaded(p) && atomic_load(&p->big_owner) != gettid();
	int end = lx_nofile(p), ret = -EMFILE;

	if (lock)
		ua__lx_big_lock(p);
	for (int i = min; i < end; i++) {
		if (p->files[i].kind == LX_FD_FREE) {
			p->files[i] = f;
			ret = i;
			break;
		}
	}
	if (lock)
		ua__lx_big_unlock(p);
	return ret;
}

static void file_release(struct lx_proc *p, struct lx_file *f)
{
	if (f->kind == LX_FD_HOST && f->host > 2)
		close(f->host);
	if (f->kind == LX_FD_HOST && f->sfd)
		ua__lx_sigfd_put(p, f->sfd);
	f->kind = LX_FD_FREE;
	f->sfd = 0;
}

/* A second reference to f: the host descriptor is duplicated. */
static int file_dup(struct lx_proc *p, const struct lx_file *f,
		    struct lx_file *out)
{
	*out = *f;
	out->cloexec = false;
	if (f->kind == LX_FD_HOST) {
		out->host = fcntl(f->host, F_DUPFD_CLOEXEC, 3);
		if (out->host < 0)
			return -errno;
		if (f->sfd)
			ua__lx_sigfd_get(p, f->sfd);
	}
	return 0;
}

/*
 * The SIGPIPE of a write nobody reads: pipe_write() and the sockets'
 * send paths send it to the writing thread as any signal (send_sig():
 * SI_USER from the writer itself), so a program that ignores it gets
 * the EPIPE alone, and one that blocks it finds it pending.
 */
void ua__lx_sigpipe(struct ua_task *t)
{
	siginfo_t info;

	ua__lx_sender_info(&info, SIGPIPE, SI_USER);
	ua__sig_send(t, SIGPIPE, &info, false);
}

/* A write to a pipe nobody reads: EPIPE and SIGPIPE, as pipe_write(). */
static long pipe_error(struct ua_task *t, long ret)
{
	if (ret == -EPIPE)
		ua__lx_sigpipe(t);
	return ret;
}

/* -EBADF for a monitor device not open for this direction, else 0. */
static int dev_mode(const struct lx_file *f, bool write)
{
	bool dev = f->kind == LX_FD_NULL || f->kind == LX_FD_ZERO;

	return dev && !lx_dev_mode_ok(f, write) ? -EBADF : 0;
}

/* Read from f (at *pos when pos) into the iterator: vfs_read(). */
/*
 * The host read or write of a guest's read(2) or write(2): a terminal or
 * a pipe may make it sleep, so it is a call a signal for the guest ends
 * (ua__host_call(), task_internal.h), never one that sleeps through it.
 */
static ssize_t host_rw(bool write, int fd, void *buf, size_t n,
		       const off_t *pos, off_t skip)
{
	long nr = write ? (pos ? SYS_pwrite64 : SYS_write) :
			  (pos ? SYS_pread64 : SYS_read);
	long r = ua__host_call(nr, fd, (long)buf, (long)n,
			       pos ? (long)(*pos + skip) : 0, 0, 0);

	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

static long do_read(struct ua_task *t, struct lx_file *f,
		    struct ua_iov_iter *it, off_t *pos)
{
	char *buf = lx_iobuf(t);
	size_t total = 0;

	if (dev_mode(f, false))
		return -EBADF;
	if (f->kind == LX_FD_NULL)
		return 0;
	if (ua__lx_host_kind(f) == LX_HK_MEM)
		return ua__lx_mem_rw(t, f, it, pos, false);
	/* No llseek and no write of its own: FMODE_PREAD, FMODE_PWRITE. */
	if (f->kind == LX_FD_HOST && f->sfd)
		return pos ? -ESPIPE : ua__lx_sigfd_read(t, f, it);
	if (f->kind == LX_FD_ZERO) {
		size_t n = ua_iov_iter_count(it);
		size_t z = ua_iov_iter_zero(n, it);

		return z ? (long)z : (n ? -EFAULT : 0);
	}
	while (ua_iov_iter_count(it)) {
		size_t want = ua_iov_iter_count(it) < LX_CHUNK ?
				      ua_iov_iter_count(it) : LX_CHUNK;
		ssize_t n = host_rw(false, f->host, buf, want, pos,
				    (off_t)total);
		size_t c;

		if (n < 0)
			return total ? (long)total : -errno;
		c = ua_copy_to_iter(buf, (size_t)n, it);
		total += c;
		if (c < (size_t)n)
			return total ? (long)total : -EFAULT;
		if ((size_t)n < want)
			break;
	}
	return (long)total;
}

static long do_write(struct ua_task *t, struct lx_file *f,
		     struct ua_iov_iter *it, off_t *pos)
{
	char *buf = lx_iobuf(t);
	size_t total = 0;

	if (f->kind == LX_FD_HOST && f->sfd)
		return pos ? -ESPIPE : -EINVAL;
	if (ua__lx_host_kind(f) == LX_HK_MEM)
		return ua__lx_mem_rw(t, f, it, pos, true);
	if (f->kind == LX_FD_NULL || f->kind == LX_FD_ZERO) {
		size_t n = ua_iov_iter_count(it);

		if (dev_mode(f, true))
			return -EBADF;
		ua_iov_iter_advance(it, n);
		return (long)n;
	}
	while (ua_iov_iter_count(it)) {
		size_t want = ua_iov_iter_count(it) < LX_CHUNK ?
				      ua_iov_iter_count(it) : LX_CHUNK;
		size_t c = ua_copy_from_iter(buf, want, it);
		ssize_t n;

		if (!c)
			return total ? (long)total : -EFAULT;
		n = host_rw(true, f->host, buf, c, pos, (off_t)total);
		if (n < 0)
			return total ? (long)total :
				       pipe_error(t, -(long)errno);
		total += (size_t)n;
		if ((size_t)n < c)
			break;
	}
	return (long)total;
}

static long rw_buf(struct ua_task *t, struct ua_pt_regs *r, bool write,
		   bool positional)
{
	struct lx_file *f = ua__lx_file(t, (int)ARG1(r));
	struct ua_iov_iter it;
	off_t pos = (off_t)ARG4(r);
	uint64_t buf = ARG2(r);
	long ret;

	if (!f)
		return -EBADF;
	/* vfs_read()/vfs_write(): the mode before the buffer. */
	if (dev_mode(f, write))
		return -EBADF;
	if (positional && pos < 0)
		return -EINVAL;
	if ((ssize_t)ARG3(r) < 0)
		return -EINVAL;
	/*
	 * access_ok() of 0 bytes asks only for a user address (x86's
	 * __access_ok()): read(fd, NULL, 0) is 0.  Nothing is accessed, so
	 * any address of the space stands in for one outside it.
	 */
	if (!ARG3(r) && buf < LX_TASK_SIZE_MAX)
		buf = t->sp->base;
	ret = ua_iov_iter_ubuf(&it, write ? UA_ITER_SOURCE : UA_ITER_DEST,
			       (void *)buf, ARG3(r));
	if (ret)
		return ret;
	return write ? do_write(t, f, &it, positional ? &pos : NULL)
		     : do_read(t, f, &it, positional ? &pos : NULL);
}

static long sys_read(struct ua_task *t, struct ua_pt_regs *r)
{
	return rw_buf(t, r, false, false);
}

static long sys_write(struct ua_task *t, struct ua_pt_regs *r)
{
	return rw_buf(t, r, true, false);
}

static long sys_pread64(struct ua_task *t, struct ua_pt_regs *r)
{
	return rw_buf(t, r, false, true);
}

static long sys_pwrite64(struct ua_task *t, struct ua_pt_regs *r)
{
	return rw_buf(t, r, true, true);
}

static long rw_vec(struct ua_task *t, struct ua_pt_regs *r, bool write)
{
	struct lx_file *f = ua__lx_file(t, (int)ARG1(r));
	struct ua_iov_iter it;
	long ret;

	if (!f)
		return -EBADF;
	ret = ua_import_iovec(&it, write ? UA_ITER_SOURCE : UA_ITER_DEST,
			      (const struct iovec *)ARG2(r), ARG3(r));
	if (ret < 0)
		return ret;
	ret = write ? do_write(t, f, &it, NULL) : do_read(t, f, &it, NULL);
	ua_iov_iter_release(&it);
	return ret;
}

static long sys_readv(struct ua_task *t, struct ua_pt_regs *r)
{
	return rw_vec(t, r, false);
}

static long sys_writev(struct ua_task *t, struct ua_pt_regs *r)
{
	return rw_vec(t, r, true);
}

long ua__lx_close_fd(struct ua_task *t, int fd)
{
	struct lx_file *f = ua__lx_file(t, fd);

	if (!f)
		return -EBADF;
	file_release(lx_proc(t), f);
	return 0;
}

static long sys_close(struct ua_task *t, struct ua_pt_regs *r)
{
	return ua__lx_close_fd(t, (int)ARG1(r));
}

static long sys_lseek(struct ua_task *t, struct ua_pt_regs *r)
{
	struct lx_file *f = ua__lx_file(t, (int)ARG1(r));
	off_t ret;

	if (!f)
		return -EBADF;
	if (f->kind != LX_FD_HOST)
		return 0; /* null_lseek(): always 0 */
	/* mem's positions are addresses: any value but -1 is one. */
	ret = lseek(f->host, (off_t)ARG2(r), (int)ARG3(r));
	return ret == -1 ? -errno : (long)ret;
}

long ua__lx_fstat(struct ua_task *t, struct ua_pt_regs *r)
{
	struct lx_file *f = ua__lx_file(t, (int)ARG1(r));
	struct stat st;
	int ret;

	if (!f)
		return -EBADF;
	if (f->kind == LX_FD_HOST)
		ret = fstat(f->host, &st);
	else
		ret = stat(f->kind == LX_FD_NULL ? "/dev/null" : "/dev/zero",
			   &st);
	if (ret)
		return -errno;
	if (ua_copy_to_user((void *)ARG2(r), &st, sizeof(st)))
		return -EFAULT;
	return 0;
}

static long do_dup3(struct ua_task *t, long oldfd, long newfd, int flags)
{
	struct lx_proc *p = lx_proc(t);
	struct lx_file *f = ua__lx_file(t, oldfd), nf;
	int err;

	if (flags & ~O_CLOEXEC)
		return -EINVAL;
	if (!f || newfd < 0 || newfd >= lx_nofile(p))
		return -EBADF;
	err = file_dup(p, f, &nf);
	if (err)
		return err;
	nf.cloexec = flags & O_CLOEXEC;
	file_release(p, &p->files[newfd]);
	p->files[newfd] = nf;
	return newfd;
}

static long sys_dup(struct ua_task *t, struct ua_pt_regs *r)
{
	struct lx_file *f = ua__lx_file(t, (int)ARG1(r)), nf;
	int err, fd;

	if (!f)
		return -EBADF;
	err = file_dup(lx_proc(t), f, &nf);
	if (err)
		return err;
	fd = ua__lx_fd_install(lx_proc(t), 0, nf);
	if (fd < 0)
		file_release(lx_proc(t), &nf);
	return fd;
}

static long sys_dup2(struct ua_task *t, struct ua_pt_regs *r)
{
	if (ARG1(r) == ARG2(r))
		return ua__lx_file(t, (int)ARG1(r)) ? (long)(int)ARG2(r) :
						       -EBADF;
	return do_dup3(t, (int)ARG1(r), (int)ARG2(r), 0);
}

static long sys_dup3(struct ua_task *t, struct ua_pt_regs *r)
{
	if (ARG1(r) == ARG2(r))
		return -EINVAL;
	return do_dup3(t, (int)ARG1(r), (int)ARG2(r), (int)ARG3(r));
}

static long do_pipe2(struct ua_task *t, int *ufds, int flags)
{
	struct lx_proc *p = lx_proc(t);
	int hfd[2], fd[2];

	if (flags & ~(O_CLOEXEC | O_NONBLOCK | O_DIRECT))
		return -EINVAL;
	if (pipe2(hfd, (flags & ~O_CLOEXEC) | O_CLOEXEC))
		return -errno;
	fd[0] = ua__lx_fd_install(p, 0, (struct lx_file){
		.kind = LX_FD_HOST, .host = hfd[0],
		.cloexec = flags & O_CLOEXEC });
	fd[1] = fd[0] < 0 ? -EMFILE :
		ua__lx_fd_install(p, 0, (struct lx_file){
			.kind = LX_FD_HOST, .host = hfd[1],
			.cloexec = flags & O_CLOEXEC });
	if (fd[1] < 0) {
		if (fd[0] >= 0)
			p->files[fd[0]].kind = LX_FD_FREE;
		close(hfd[0]);
		close(hfd[1]);
		return -EMFILE;
	}
	if (ua_copy_to_user(ufds, fd, sizeof(fd))) {
		file_release(p, &p->files[fd[0]]);
		file_release(p, &p->files[fd[1]]);
		return -EFAULT;
	}
	return 0;
}

static long sys_pipe(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_pipe2(t, (int *)ARG1(r), 0);
}

static long sys_pipe2(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_pipe2(t, (int *)ARG1(r), (int)ARG2(r));
}

/*
 * The kernel's struct flock on x86-64 (include/uapi/asm-generic/
 * fcntl.h): type, whence, start, len, pid, 32 bytes with the padding.
 */
struct lx_flock {
	int16_t type, whence;
	int64_t start, len;
	int32_t pid;
	int32_t pad;
};

/*
 * Record locks (fs/locks.c): the host's, on the host file, with the
 * guest's struct copied in and, for the queries, out again; a wait for
 * a lock sleeps in ua__host_call(), which an interrupt ends.  The pids
 * in them are the host's, which the guest's are.  The monitor's own
 * devices lock nothing another process could hold: set is granted,
 * a query finds the range unlocked.
 */
static long fcntl_lock(struct lx_file *f, int cmd, uint64_t uarg)
{
	bool get = cmd == F_GETLK || cmd == F_OFD_GETLK;
	struct lx_flock fl;
	long ret;

	if (ua_copy_from_user(&fl, (const void *)uarg, sizeof(fl)))
		return -EFAULT;
	if (f->kind != LX_FD_HOST) {
		if (fl.type != F_RDLCK && fl.type != F_WRLCK &&
		    fl.type != F_UNLCK)
			return -EINVAL;
		fl.type = F_UNLCK;
		ret = 0;
	} else {
		ret = ua__host_call(SYS_fcntl, f->host, cmd, (long)&fl, 0, 0,
				    0);
	}
	if (!ret && get && ua_copy_to_user((void *)uarg, &fl, sizeof(fl)))
		return -EFAULT;
	return ret;
}

/*
 * fcntl commands that take an int, or nothing, and act on the open file
 * alone (pipe size, seals, owner and signal of SIGIO, leases, directory
 * notification): the host's, on the host file.  -ENOSYS: not one.
 */
static long fcntl_int(struct lx_file *f, int cmd, long arg)
{
	switch (cmd) {
	case F_GETPIPE_SZ: case F_SETPIPE_SZ:
	case F_ADD_SEALS: case F_GET_SEALS:
	case F_GETOWN: case F_SETOWN: case F_GETSIG: case F_SETSIG:
	case F_GETLEASE: case F_SETLEASE: case F_NOTIFY:
		break;
	default:
		return -ENOSYS;
	}
	/* The monitor's devices are neither pipes, memfds nor regular. */
	if (f->kind != LX_FD_HOST || f->sfd)
		return cmd == F_GETPIPE_SZ || cmd == F_SETPIPE_SZ ? -EBADF :
								      -EINVAL;
	return ua__host_call(SYS_fcntl, f->host, cmd, arg, 0, 0, 0);
}

static long sys_fcntl(struct ua_task *t, struct ua_pt_regs *r)
{
	struct lx_file *f = ua__lx_file(t, (int)ARG1(r)), nf;
	int cmd = (int)ARG2(r), fd, err;
	long arg = (long)ARG3(r), ret;

	if (!f)
		return -EBADF;
	ret = fcntl_int(f, cmd, arg);
	if (ret != -ENOSYS)
		return ret;
	switch (cmd) {
	case F_GETLK:
	case F_SETLK:
	case F_SETLKW:
	case F_OFD_GETLK:
	case F_OFD_SETLK:
	case F_OFD_SETLKW:
		return fcntl_lock(f, cmd, ARG3(r));
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		if (arg < 0 || arg >= lx_nofile(lx_proc(t)))
			return -EINVAL;
		err = file_dup(lx_proc(t), f, &nf);
		if (err)
			return err;
		nf.cloexec = cmd == F_DUPFD_CLOEXEC;
		fd = ua__lx_fd_install(lx_proc(t), (int)arg, nf);
		if (fd < 0)
			file_release(lx_proc(t), &nf);
		return fd;
	case F_GETFD:
		return f->cloexec ? FD_CLOEXEC : 0;
	case F_SETFD:
		f->cloexec = arg & FD_CLOEXEC;
		return 0;
	case F_GETFL:
		if (f->kind != LX_FD_HOST)
			return O_RDWR;
		err = fcntl(f->host, F_GETFL);
		return err < 0 ? -errno : err;
	case F_SETFL:
		if (f->kind != LX_FD_HOST)
			return 0;
		return fcntl(f->host, F_SETFL, (int)arg) ? -errno : 0;
	}
	return -EINVAL;
}

/*
 * flock(): the host's lock on the host file (a wait for it sleeps in
 * ua__host_call()); the monitor's own devices lock nothing another
 * process could hold.
 */
static long sys_flock(struct ua_task *t, struct ua_pt_regs *r)
{
	struct lx_file *f = ua__lx_file(t, (int)ARG1(r));

	int op = (int)ARG2(r) & ~LOCK_NB;

	if (!f)
		return -EBADF;
	if (f->kind != LX_FD_HOST)
		return op == LOCK_SH || op == LOCK_EX || op == LOCK_UN ?
			       0 :
			       -EINVAL;
	return ua__host_call(SYS_flock, f->host, (long)(int)ARG2(r), 0, 0, 0,
			     0);
}

/* How an ioctl's third argument is passed. */
enum ioctl_arg {
	ARG_OUT, /* a pointer to size bytes the call writes */
	ARG_IN,	 /* a pointer to size bytes the call reads */
	ARG_VAL, /* an int by value (TIOCSCTTY's steal flag) */
	ARG_NONE,
};

/*
 * Terminal calls: the request, its argument and whether it is one that
 * tty_check_change() guards (drivers/tty/tty_jobctrl.c: set_termios()
 * and tiocspgrp() call it), which sends a caller outside the terminal's
 * foreground group SIGTTOU unless it blocks or ignores that signal.
 */
static const struct {
	unsigned long req;
	unsigned int size;
	enum ioctl_arg arg;
	bool job;
} ioctls[] = {
	{ TCGETS, 36, ARG_OUT, false }, /* the kernel's struct termios */
	{ TCSETS, 36, ARG_IN, true },
	{ TCSETSW, 36, ARG_IN, true },
	{ TCSETSF, 36, ARG_IN, true },
	{ TIOCGWINSZ, sizeof(struct winsize), ARG_OUT, false },
	{ TIOCSWINSZ, sizeof(struct winsize), ARG_IN, false },
	{ TIOCGPGRP, sizeof(int), ARG_OUT, false },
	{ TIOCSPGRP, sizeof(int), ARG_IN, true },
	{ TIOCGSID, sizeof(int), ARG_OUT, false },
	{ TIOCSCTTY, 0, ARG_VAL, false },
	{ TIOCNOTTY, 0, ARG_NONE, false },
	{ TIOCGPTN, sizeof(int), ARG_OUT, false },  /* ptsname() */
	{ TIOCSPTLCK, sizeof(int), ARG_IN, false }, /* unlockpt() */
	{ FIONREAD, sizeof(int), ARG_OUT, false },
	{ FIONBIO, sizeof(int), ARG_IN, false },
	/*
	 * The inode flags chattr and lsattr read and write (an int, despite
	 * the long of the request's encoding: fs/ioctl.c), and the fsxattr
	 * (include/uapi/linux/fs.h, 28 bytes).
	 */
	{ FS_IOC_GETFLAGS, sizeof(int), ARG_OUT, false },
	{ FS_IOC_SETFLAGS, sizeof(int), ARG_IN, false },
	{ FS_IOC_FSGETXATTR, 28, ARG_OUT, false },
	{ FS_IOC_FSSETXATTR, 28, ARG_IN, false },
};

/*
 * The host's SIGTTOU stays at its default (src/task/hostsig.c), so the
 * host would stop the monitor where the guest asked not to be: the
 * guest's blocked or ignored SIGTTOU is the monitor's for the call.
 */
static bool ttou_ignored(struct ua_task *t)
{
	struct ua_sigstate *s = sigstate(t);

	if (!s)
		return false;
	return (s->blocked & SIGBIT(SIGTTOU)) ||
	       s->action[SIGTTOU].handler == (uint64_t)(uintptr_t)SIG_IGN;
}

static long host_ioctl(struct ua_task *t, int fd, unsigned long req, long arg,
		       bool job)
{
	sigset_t set, old;
	long ret;

	if (!job || !ttou_ignored(t))
		return ioctl(fd, req, arg) < 0 ? -errno : 0;
	sigemptyset(&set);
	sigaddset(&set, SIGTTOU);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	ret = ioctl(fd, req, arg) < 0 ? -errno : 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static long sys_ioctl(struct ua_task *t, struct ua_pt_regs *r)
{
	struct lx_file *f = ua__lx_file(t, (int)ARG1(r));
	unsigned long req = ARG2(r);
	void *uarg = (void *)ARG3(r);
	unsigned char buf[64];
	long arg = (long)buf, ret;

	if (!f)
		return -EBADF;
	/* do_vfs_ioctl(): close-on-exec is the descriptor table's. */
	if (req == FIOCLEX || req == FIONCLEX) {
		f->cloexec = req == FIOCLEX;
		return 0;
	}
	for (size_t i = 0; i < sizeof(ioctls) / sizeof(ioctls[0]); i++) {
		if (ioctls[i].req != req)
			continue;
		if (f->kind != LX_FD_HOST)
			return -ENOTTY;
		if (ioctls[i].arg == ARG_IN &&
		    ua_copy_from_user(buf, uarg, ioctls[i].size))
			return -EFAULT;
		if (ioctls[i].arg == ARG_VAL)
			arg = (int)ARG3(r);
		else if (ioctls[i].arg == ARG_NONE)
			arg = 0;
		ret = host_ioctl(t, f->host, req, arg, ioctls[i].job);
		if (ret)
			return ret;
		if (ioctls[i].arg == ARG_OUT &&
		    ua_copy_to_user(uarg, buf, ioctls[i].size))
			return -EFAULT;
		return 0;
	}
	return -ENOTTY;
}

/*
 * poll() over guest descriptors: host ones are polled, the monitor's
 * devices are always ready.  timeout_ms < 0 waits.
 */
static long do_poll(struct ua_task *t, struct pollfd *kfds, size_t n,
		    int timeout_ms)
{
	struct pollfd *h = calloc(n ? n : 1, sizeof(*h));
	long ready = 0;
	int ret;

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct lx_file *f = ua__lx_file(t, kfds[i].fd);

		h[i].fd = -1;
		kfds[i].revents = 0;
		if (kfds[i].fd < 0)
			continue;
		if (!f)
			kfds[i].revents = POLLNVAL;
		else if (f->kind != LX_FD_HOST)
			kfds[i].revents = kfds[i].events & (POLLIN | POLLOUT |
							    POLLRDNORM |
							    POLLWRNORM);
		else
			h[i] = (struct pollfd){ f->host, kfds[i].events, 0 };
		if (kfds[i].revents)
			ready++;
	}
	ret = (int)ua__lx_host_wait(t, SYS_poll,
				    (long[6]){ (long)h, (long)n,
					       ready ? 0 : timeout_ms },
				    2);
	if (ret < 0) {
		free(h);
		return ret;
	}
	for (size_t i = 0; i < n; i++) {
		if (h[i].fd < 0)
			continue;
		kfds[i].revents = h[i].revents;
		if (h[i].revents)
			ready++;
	}
	free(h);
	return ready;
}

static long poll_user(struct ua_task *t, struct pollfd *ufds, size_t n,
		      int timeout_ms)
{
	struct pollfd *k;
	long ret;

	if (n > LX_NFDS)
		return -EINVAL;
	k = calloc(n ? n : 1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	ret = -EFAULT;
	if (ua_copy_from_user(k, ufds, n * sizeof(*k)))
		goto out;
	ret = do_poll(t, k, n, timeout_ms);
	if (ret >= 0 && ua_copy_to_user(ufds, k, n * sizeof(*k)))
		ret = -EFAULT;
out:
	free(k);
	return ret;
}

static long sys_poll(struct ua_task *t, struct ua_pt_regs *r)
{
	return poll_user(t, (struct pollfd *)ARG1(r), ARG2(r), (int)ARG3(r));
}

static int ts_to_ms(const struct timespec *ts)
{
	long long ms = (long long)ts->tv_sec * 1000 + ts->tv_nsec / 1000000;

	return ms > 0x7fffffff ? 0x7fffffff : (int)ms;
}

/*
 * The end of ppoll or pselect6 under its own mask (ua__lx_mask_begin()
 * gave now): a signal deliverable at once made it only poll, and with
 * nothing ready it is the kernel's ERESTARTNOHAND, as is an interrupted
 * wait (fs/select.c): a handler makes it EINTR, else it restarts.
 */
static long poll_end(struct ua_task *t, long now, long ret)
{
	if ((now && !ret) || ret == -EINTR)
		ret = -ERESTARTNOHAND;
	return ua__lx_mask_end(t, ret);
}

static long sys_ppoll(struct ua_task *t, struct ua_pt_regs *r)
{
	struct timespec ts;
	long ret, now;

	if (ARG3(r)) {
		if (ua_copy_from_user(&ts, (void *)ARG3(r), sizeof(ts)))
			return -EFAULT;
		if (!ua__lx_ts_valid(&ts))
			return -EINVAL;
	}
	now = ua__lx_mask_begin(t, ARG4(r), ARG5(r));
	if (now < 0)
		return now;
	ret = poll_user(t, (struct pollfd *)ARG1(r), ARG2(r),
			now ? 0 : ARG3(r) ? ts_to_ms(&ts) : -1);
	return poll_end(t, now, ret);
}

/* select() as poll() over the descriptors in the three sets. */
static long do_select(struct ua_task *t, int nfds, void *uin, void *uout,
		      void *uex, int timeout_ms)
{
	fd_set s[3], res[3];
	void *u[3] = { uin, uout, uex };
	size_t bytes = ((size_t)nfds + 7) / 8;
	struct pollfd *k;
	long ret;
	size_t n = 0;

	if (nfds < 0 || nfds > FD_SETSIZE)
		return -EINVAL;
	for (int j = 0; j < 3; j++) {
		FD_ZERO(&s[j]);
		FD_ZERO(&res[j]);
		if (u[j] && ua_copy_from_user(&s[j], u[j], bytes))
			return -EFAULT;
	}
	k = calloc((size_t)nfds + 1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	for (int fd = 0; fd < nfds; fd++) {
		short ev = (short)((FD_ISSET(fd, &s[0]) ? POLLIN : 0) |
				   (FD_ISSET(fd, &s[1]) ? POLLOUT : 0) |
				   (FD_ISSET(fd, &s[2]) ? POLLPRI : 0));

		if (!ev)
			continue;
		if (!ua__lx_file(t, fd)) {
			free(k);
			return -EBADF;
		}
		k[n++] = (struct pollfd){ fd, ev, 0 };
	}
	ret = do_poll(t, k, n, timeout_ms);
	if (ret >= 0) {
		ret = 0;
		for (size_t i = 0; i < n; i++) {
			short re = k[i].revents;

			if (re & (POLLIN | POLLHUP | POLLERR) &&
			    (k[i].events & POLLIN) && ++ret)
				FD_SET(k[i].fd, &res[0]);
			if (re & (POLLOUT | POLLERR) &&
			    (k[i].events & POLLOUT) && ++ret)
				FD_SET(k[i].fd, &res[1]);
			if (re & POLLPRI && ++ret)
				FD_SET(k[i].fd, &res[2]);
		}
		for (int j = 0; j < 3; j++)
			if (u[j] && ua_copy_to_user(u[j], &res[j], bytes))
				ret = -EFAULT;
	}
	free(k);
	return ret;
}

static long sys_select(struct ua_task *t, struct ua_pt_regs *r)
{
	struct timeval tv;
	int ms = -1;

	if (ARG5(r)) {
		if (ua_copy_from_user(&tv, (void *)ARG5(r), sizeof(tv)))
			return -EFAULT;
		if (tv.tv_sec < 0 || tv.tv_usec < 0)
			return -EINVAL;
		ms = (int)(tv.tv_sec * 1000 + tv.tv_usec / 1000);
	}
	return do_select(t, (int)ARG1(r), (void *)ARG2(r), (void *)ARG3(r),
			 (void *)ARG4(r), ms);
}

static long sys_pselect6(struct ua_task *t, struct ua_pt_regs *r)
{
	/* The sixth argument: { const sigset_t *ss; size_t ss_len; }. */
	uint64_t sig[2] = { 0, 0 };
	struct timespec ts;
	long ret, now;
	int ms = -1;

	if (ARG5(r)) {
		if (ua_copy_from_user(&ts, (void *)ARG5(r), sizeof(ts)))
			return -EFAULT;
		if (!ua__lx_ts_valid(&ts))
			return -EINVAL;
		ms = ts_to_ms(&ts);
	}
	if (ARG6(r) && ua_copy_from_user(sig, (void *)ARG6(r), sizeof(sig)))
		return -EFAULT;
	now = ua__lx_mask_begin(t, sig[0], sig[1]);
	if (now < 0)
		return now;
	ret = do_select(t, (int)ARG1(r), (void *)ARG2(r), (void *)ARG3(r),
			(void *)ARG4(r), now ? 0 : ms);
	return poll_end(t, now, ret);
}

_Atomic int ua__lx_dev_fds[2][LX_DEV_SLOTS];

/*
 * ua__lx_dev_open(): a new host descriptor on the host's node of the
 * monitor's device f, opened with those of f's flags in keep: what the
 * guest's descriptor would be natively.  The descriptor or -errno.
 */
int ua__lx_dev_open(const struct lx_file *f, int keep)
{
	int h = open(f->kind == LX_FD_NULL ? "/dev/null" : "/dev/zero",
		     (f->flags & keep) | O_CLOEXEC | O_NOCTTY);

	return h < 0 ? -errno : h;
}

/*
 * ua__lx_dev_host_fd(): the host's device node behind the monitor's
 * device f, opened once for each set of the flags the calls that take
 * it see (lx_dev_cache()) and kept: sendfile, splice, tee and
 * copy_file_range (so that tar's sendfile to its /dev/null costs no open
 * and close each time), and the descriptor link lstat looks at
 * (procfs.c).  The descriptor, or -errno.
 */
int ua__lx_dev_host_fd(const struct lx_file *f)
{
	_Atomic int *slot = lx_dev_cache(f);
	int h = atomic_load(slot), none = 0;
	long d;

	if (h)
		return h - 1;
	h = ua__lx_dev_open(f, O_ACCMODE | O_PATH | O_APPEND);
	d = h < 0 ? h : ua__lx_host_above_stdio(h);
	if (d < 0)
		return (int)d;
	/* Another thread's open won: keep one. */
	if (!atomic_compare_exchange_strong(slot, &none, (int)d + 1)) {
		close((int)d);
		return none - 1;
	}
	return (int)d;
}

/* The host descriptor a data call uses for guest descriptor fd. */
static int xfer_fd_get(struct ua_task *t, int fd)
{
	const struct lx_file *f = ua__lx_file(t, fd);

	if (!f || f->kind == LX_FD_HOST)
		return ua__lx_host_fd_get(t, fd);
	return ua__lx_dev_host_fd(f);
}

static void xfer_fd_put(struct ua_task *t, int fd, int host)
{
	const struct lx_file *f = ua__lx_file(t, fd);

	if (!f || f->kind == LX_FD_HOST)
		ua__lx_host_fd_put(t, fd, host);
}

/*
 * The host descriptors of a call between two guest descriptors (sendfile,
 * copy_file_range, splice, tee): xfer_fd_get() of each, the first
 * released again if the second fails.  0 or -errno.
 */
static long host_fds_get(struct ua_task *t, int in, int out, int *hin,
			 int *hout)
{
	*hin = xfer_fd_get(t, in);
	if (*hin < 0)
		return *hin;
	*hout = xfer_fd_get(t, out);
	if (*hout < 0) {
		xfer_fd_put(t, in, *hin);
		return *hout;
	}
	return 0;
}

static void host_fds_put(struct ua_task *t, int in, int out, int hin,
			 int hout)
{
	xfer_fd_put(t, out, hout);
	xfer_fd_put(t, in, hin);
}

/*
 * sendfile between two descriptors: the host's, on the host descriptors
 * or, for the monitor's /dev/null and /dev/zero, the host's device nodes
 * opened as the guest's are (what the guest's descriptors are natively),
 * so each file's splice methods are the host kernel's own (a kernel whose
 * /dev/zero cannot be spliced from gives its EINVAL).
 */
static long sys_sendfile(struct ua_task *t, struct ua_pt_regs *r)
{
	struct lx_file *out = ua__lx_file(t, (int)ARG1(r));
	struct lx_file *in = ua__lx_file(t, (int)ARG2(r));
	off_t off, *poff = NULL;
	int hin, hout;
	long n;

	if (!out || !in)
		return -EBADF;
	if (ARG3(r)) {
		if (ua_copy_from_user(&off, (void *)ARG3(r), sizeof(off)))
			return -EFAULT;
		poff = &off;
	}
	/* A signalfd splices neither way (no splice_read, no write). */
	if (in->sfd || out->sfd)
		return -EINVAL;
	n = host_fds_get(t, (int)ARG2(r), (int)ARG1(r), &hin, &hout);
	if (n)
		return n;
	n = ua__host_call(SYS_sendfile, hout, hin, (long)poff,
			  (long)ARG4(r), 0, 0);
	host_fds_put(t, (int)ARG2(r), (int)ARG1(r), hin, hout);
	if (n == -EPIPE)
		ua__lx_sigpipe(t);
	/* sys_sendfile64() puts the offset back whatever came. */
	if (poff && ua_copy_to_user((void *)ARG3(r), &off, sizeof(off)))
		return -EFAULT;
	return n;
}

/* An optional loff_t of the guest: read into *v, pointing *pv at it. */
static long get_off(uint64_t uptr, loff_t *v, loff_t **pv)
{
	*pv = NULL;
	if (!uptr)
		return 0;
	if (ua_copy_from_user(v, (void *)uptr, sizeof(*v)))
		return -EFAULT;
	*pv = v;
	return 0;
}

/*
 * copy_file_range(2): the host's, on the host descriptors; the offsets
 * cross through the accessors before and after, as the kernel's
 * copy_from_user()/copy_to_user() of them do.
 */
static long sys_copy_file_range(struct ua_task *t, struct ua_pt_regs *r)
{
	loff_t in_off, out_off, *pin, *pout;
	int hin, hout;
	long ret;

	ret = get_off(ARG2(r), &in_off, &pin);
	if (!ret)
		ret = get_off(ARG4(r), &out_off, &pout);
	if (ret)
		return ret;
	ret = host_fds_get(t, (int)ARG1(r), (int)ARG3(r), &hin, &hout);
	if (ret)
		return ret;
	ret = copy_file_range(hin, pin, hout, pout, ARG5(r),
			      (unsigned int)ARG6(r));
	if (ret < 0)
		ret = -errno;
	host_fds_put(t, (int)ARG1(r), (int)ARG3(r), hin, hout);
	if (ret >= 0 && pin &&
	    ua_copy_to_user((void *)ARG2(r), &in_off, sizeof(in_off)))
		return -EFAULT;
	if (ret >= 0 && pout &&
	    ua_copy_to_user((void *)ARG4(r), &out_off, sizeof(out_off)))
		return -EFAULT;
	return ret;
}

/*
 * A host descriptor for a call on guest descriptor fd: its own, or for a
 * monitor device one of the host's device node, which is what the
 * guest's descriptor is natively.  ua__lx_host_fd_put() releases it.
 */
int ua__lx_host_fd_get(struct ua_task *t, long fd)
{
	struct lx_file *f = ua__lx_file(t, fd);

	if (!f)
		return -EBADF;
	if (f->kind == LX_FD_HOST)
		return f->host;
	return ua__lx_dev_open(f, O_ACCMODE | O_PATH);
}

void ua__lx_host_fd_put(struct ua_task *t, long fd, int host)
{
	struct lx_file *f = ua__lx_file(t, fd);

	if (!f || f->kind != LX_FD_HOST || f->host != host)
		close(host);
}

/* A host call on the host side of guest descriptor ARG1: -errno or ret. */
#define ON_HOST_FD(t, r, call)                                      \
	({                                                          \
		int __h = ua__lx_host_fd_get((t), (int)ARG1(r));    \
		long __ret = __h;                                   \
		if (__h >= 0) {                                     \
			__ret = (call);                             \
			if (__ret < 0)                              \
				__ret = -errno;                     \
			ua__lx_host_fd_put((t), (int)ARG1(r), __h); \
		}                                                   \
		__ret;                                              \
	})

static long sys_fallocate(struct ua_task *t, struct ua_pt_regs *r)
{
	return ON_HOST_FD(t, r,
			  fallocate(__h, (int)ARG2(r), (off_t)ARG3(r),
				    (off_t)ARG4(r)));
}

/*
 * splice() and tee() between host descriptors (the pipes they need are
 * the host's), offsets through the monitor's copies as copy_file_range
 * does; a wait for a pipe sleeps in ua__host_call().
 */
static long sys_splice(struct ua_task *t, struct ua_pt_regs *r)
{
	loff_t in_off, out_off, *pin, *pout;
	int hin, hout;
	long ret;

	ret = get_off(ARG2(r), &in_off, &pin);
	if (!ret)
		ret = get_off(ARG4(r), &out_off, &pout);
	if (ret)
		return ret;
	ret = host_fds_get(t, (int)ARG1(r), (int)ARG3(r), &hin, &hout);
	if (ret)
		return ret;
	ret = ua__host_call(SYS_splice, hin, (long)pin, hout, (long)pout,
			    (long)ARG5(r), (long)(unsigned int)ARG6(r));
	host_fds_put(t, (int)ARG1(r), (int)ARG3(r), hin, hout);
	if (ret == -EPIPE)
		ua__lx_sigpipe(t);
	if (ret < 0)
		return ret;
	/* __do_splice(): the offsets go back after a transfer. */
	if (pin && ua_copy_to_user((void *)ARG2(r), &in_off, sizeof(in_off)))
		return -EFAULT;
	if (pout &&
	    ua_copy_to_user((void *)ARG4(r), &out_off, sizeof(out_off)))
		return -EFAULT;
	return ret;
}

static long sys_tee(struct ua_task *t, struct ua_pt_regs *r)
{
	int hin, hout;
	long ret;

	ret = host_fds_get(t, (int)ARG1(r), (int)ARG2(r), &hin, &hout);
	if (ret)
		return ret;
	ret = ua__host_call(SYS_tee, hin, hout, (long)ARG3(r),
			    (long)(unsigned int)ARG4(r), 0, 0);
	host_fds_put(t, (int)ARG1(r), (int)ARG2(r), hin, hout);
	if (ret == -EPIPE)
		ua__lx_sigpipe(t);
	return ret;
}

static long sys_fsync(struct ua_task *t, struct ua_pt_regs *r)
{
	return ON_HOST_FD(t, r, fsync(__h));
}

static long sys_fdatasync(struct ua_task *t, struct ua_pt_regs *r)
{
	return ON_HOST_FD(t, r, fdatasync(__h));
}

static long sys_syncfs(struct ua_task *t, struct ua_pt_regs *r)
{
	return ON_HOST_FD(t, r, syncfs(__h));
}

/* sync() cannot fail (fs/sync.c ksys_sync()). */
static long sys_sync(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)t;
	(void)r;
	sync();
	return 0;
}

static long sys_fchmod(struct ua_task *t, struct ua_pt_regs *r)
{
	return ON_HOST_FD(t, r, syscall(SYS_fchmod, __h, (mode_t)ARG2(r)));
}

static long sys_fchown(struct ua_task *t, struct ua_pt_regs *r)
{
	return ON_HOST_FD(
		t, r, syscall(SYS_fchown, __h, (uid_t)ARG2(r), (gid_t)ARG3(r)));
}

/* do_sys_ftruncate(): a negative length before the descriptor. */
static long sys_ftruncate(struct ua_task *t, struct ua_pt_regs *r)
{
	if ((long)ARG2(r) < 0)
		return -EINVAL;
	return ON_HOST_FD(t, r, syscall(SYS_ftruncate, __h, (long)ARG2(r)));
}

/* ksys_fadvise64_64(): the host checks the advice and the file. */
static long sys_fadvise64(struct ua_task *t, struct ua_pt_regs *r)
{
	return ON_HOST_FD(t, r,
			  syscall(SYS_fadvise64, __h, (long)ARG2(r),
				  (long)ARG3(r), (int)ARG4(r)));
}

/* The kernel's struct statfs (arch/x86 uses the generic one), as the host's. */
_Static_assert(sizeof(struct statfs) == 120, "struct statfs is the kernel's");

static long sys_fstatfs(struct ua_task *t, struct ua_pt_regs *r)
{
	struct statfs sf;
	long ret = ON_HOST_FD(t, r, syscall(SYS_fstatfs, __h, &sf));

	if (!ret && ua_copy_to_user((void *)ARG2(r), &sf, sizeof(sf)))
		return -EFAULT;
	return ret;
}

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/*
 * close_range() on the guest's table (fs/file.c): close, or mark
 * close-on-exec, every open descriptor from first to last that the table
 * has.  CLOSE_RANGE_UNSHARE asks for a table of one's own, which a
 * process of one thread already has.
 */
static long sys_close_range(struct ua_task *t, struct ua_pt_regs *r)
{
	struct lx_proc *p = lx_proc(t);
	unsigned int first = (unsigned int)ARG1(r);
	unsigned int last = (unsigned int)ARG2(r);
	unsigned int flags = (unsigned int)ARG3(r);

	if (flags & ~(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC))
		return -EINVAL;
	if (first > last)
		return -EINVAL;
	if (last >= LX_NFDS)
		last = LX_NFDS - 1;
	for (unsigned int i = first; i <= last; i++) {
		struct lx_file *f = &p->files[i];

		if (f->kind == LX_FD_FREE)
			continue;
		if (flags & CLOSE_RANGE_CLOEXEC)
			f->cloexec = true;
		else
			file_release(p, f);
	}
	return 0;
}

static const struct lx_call calls[] = {
	{ SYS_read, "read", sys_read, "fpu" },
	{ SYS_write, "write", sys_write, "fwu" },
	{ SYS_pread64, "pread64", sys_pread64, "fpud" },
	{ SYS_pwrite64, "pwrite64", sys_pwrite64, "fwud" },
	{ SYS_readv, "readv", sys_readv, "fpu" },
	{ SYS_writev, "writev", sys_writev, "fpu" },
	{ SYS_close, "close", sys_close, "f" },
	{ SYS_lseek, "lseek", sys_lseek, "fdd" },
	{ SYS_fstat, "fstat", ua__lx_fstat, "fp" },
	{ SYS_dup, "dup", sys_dup, "f" },
	{ SYS_dup2, "dup2", sys_dup2, "ff" },
	{ SYS_dup3, "dup3", sys_dup3, "ffo" },
	{ SYS_pipe, "pipe", sys_pipe, "p" },
	{ SYS_pipe2, "pipe2", sys_pipe2, "po" },
	{ SYS_fcntl, "fcntl", sys_fcntl, "fdx" },
	{ SYS_flock, "flock", sys_flock, "fd" },
	{ SYS_fallocate, "fallocate", sys_fallocate, "fddd" },
	{ SYS_splice, "splice", sys_splice, "fpfpux" },
	{ SYS_tee, "tee", sys_tee, "ffux" },
	{ SYS_ioctl, "ioctl", sys_ioctl, "fxp" },
	{ SYS_poll, "poll", sys_poll, "pud" },
	{ SYS_ppoll, "ppoll", sys_ppoll, "pupp" },
	{ SYS_select, "select", sys_select, "dpppp" },
	{ SYS_pselect6, "pselect6", sys_pselect6, "dppppp" },
	{ SYS_sendfile, "sendfile", sys_sendfile, "ffpu" },
	{ SYS_copy_file_range, "copy_file_range", sys_copy_file_range,
	  "fpfpux" },
	{ SYS_fsync, "fsync", sys_fsync, "f" },
	{ SYS_fdatasync, "fdatasync", sys_fdatasync, "f" },
	{ SYS_syncfs, "syncfs", sys_syncfs, "f" },
	{ SYS_sync, "sync", sys_sync, "-" },
	{ SYS_fchmod, "fchmod", sys_fchmod, "fo" },
	{ SYS_fchown, "fchown", sys_fchown, "fdd" },
	{ SYS_ftruncate, "ftruncate", sys_ftruncate, "fd" },
	{ SYS_fadvise64, "fadvise64", sys_fadvise64, "fddd" },
	{ SYS_fstatfs, "fstatfs", sys_fstatfs, "fp" },
	{ SYS_close_range, "close_range", sys_close_range, "uux" },
};

void ua__lx_file_init(void)
{
	LX_REGISTER(calls);
}
