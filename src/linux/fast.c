// SPDX-License-Identifier: MIT
/*
 * The Linux calls the rewrite fast path answers on the guest's FS base
 * (src/task/trap_fast.c says why, and what such code may not do):
 * getpid, gettid and getppid from the monitor's own state, read and
 * write on the monitor's /dev/zero and /dev/null, a signal the task sends
 * itself (kill, tgkill, tkill: delivered, or queued while it is blocked),
 * rt_sigprocmask (and the delivery of a signal it lets through) and the
 * rt_sigreturn that ends a handler (src/signal/fast.c), three calls that
 * only look at the host's files (newfstatat, fstat and getdents64),
 * read, write and sendfile on files that never block (regular ones, the
 * host's /dev/null), and open and close of such files.  Each gives what the full path's handler gives
 * (sys_proc.c, sys_file.c, sys_signal.c, sys_fs.c), with the same counts,
 * or declines before it changes anything.
 *
 * Those three are the bulk of what find, du or ls make, and without
 * FSGSBASE the full path costs them two arch_prctl calls each, more than
 * the call itself on some virtual machines.  Here the host reads the
 * path and writes the result where the guest has them, as it would for
 * the program run natively: only where everything it may touch lies in
 * the space (under backend none, the only one this path takes, the
 * monitor's own memory is outside it), so guest pointers cannot make it
 * read or write the monitor's.  The full path copies through a buffer of
 * its own; the results are the same bytes, and its windows are counted
 * here as it opens them.
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include "linux_internal.h"

/* Reads up to this size only; larger ones take the full path. */
#define FAST_READ_MAX (64u << 10)

static inline UA_FAST struct lx_file *fast_file(struct lx_proc *p, uint64_t fd)
{
	int i = (int)fd;

	if (i < 0 || i >= LX_NFDS)
		return NULL;
	return &p->files[i];
}

/*
 * read() of /dev/zero: rw_buf(), do_read(), ua_iov_iter_zero() and
 * ua_clear_user() in one, with the none backend's inline window.
 */
static inline UA_FAST long fast_read(struct ua_task *t, struct lx_proc *p,
				     struct ua_thread *self)
{
	struct ua_pt_regs *r = &t->regs;
	struct lx_file *f = fast_file(p, ARG1(r));
	void *buf = (void *)ARG2(r);
	size_t n = ARG3(r), left;

	if (!f || f->kind != LX_FD_ZERO || !lx_dev_mode_ok(f, false))
		return UA_FAST_DECLINE;
#if UA_FORCE_GENERIC_ARCH
	/* The portable clear keeps its recovery point in ua_self. */
	return UA_FAST_DECLINE;
#endif
	if (!n || n > FAST_READ_MAX || !ua__space_has(t->sp, buf, n))
		return UA_FAST_DECLINE;
	ua__lean_window_open(self);
	left = ua__clear_in_window(buf, n);
	ua__lean_window_close(self);
	return left == n ? -EFAULT : (long)(n - left);
}

/* write() to /dev/null or /dev/zero: checked, counted, not read. */
static inline UA_FAST long fast_write(struct ua_task *t, struct lx_proc *p)
{
	struct ua_pt_regs *r = &t->regs;
	struct lx_file *f = fast_file(p, ARG1(r));
	size_t n = ARG3(r);

	if (!f || (f->kind != LX_FD_NULL && f->kind != LX_FD_ZERO) ||
	    !lx_dev_mode_ok(f, true))
		return UA_FAST_DECLINE;
	if ((ssize_t)n < 0 || !ua__space_has(t->sp, (void *)ARG2(r), n))
		return UA_FAST_DECLINE;
	return (long)n;
}

/*
 * A host syscall on the guest's FS base: no libc wrapper (errno is
 * thread-local), the result as the kernel returns it.  The trap block's
 * selector allows it (trap.S); a host signal meanwhile is taken as for
 * the rest of this path (src/task/trap_fast.c).
 */
static inline UA_FAST long fast_host(long nr, long a1, long a2, long a3,
				     long a4)
{
	return ua__raw_syscall(nr, a1, a2, a3, a4);
}

/*
 * A host call that may sleep (an open, a read or write that is not of a
 * regular file after all): -EINTR, without sleeping, once an interrupt
 * has marked the task (src/arch/x86_64/intr_syscall.S).  The callers
 * decline on it where nothing was done, so the full path sleeps instead,
 * with the exit work that delivers what interrupted it.
 */
static inline UA_FAST long fast_intr(struct ua_task *t, long nr, long a1,
				     long a2, long a3, long a4)
{
	return ua__intr_syscall(nr, a1, a2, a3, a4, 0, 0, &t->irq_pending);
}

/* The windows the full path would have opened (lean: see internal.h). */
static inline UA_FAST void fast_windows(struct ua_thread *self, unsigned n)
{
	self->lean_seq += 2u * n;
}

/*
 * The host descriptor behind a guest one, for the calls below.  With
 * several threads another may close and reuse it meanwhile, and the
 * full path orders that: they take it.
 */
static inline UA_FAST struct lx_file *fast_host_file(struct lx_proc *p,
						     uint64_t fd)
{
	struct lx_file *f = fast_file(p, fd);

	if (!f || f->kind != LX_FD_HOST || lx_threaded(p))
		return NULL;
	return f;
}

static inline UA_FAST int fast_host_fd(struct lx_proc *p, uint64_t fd)
{
	struct lx_file *f = fast_host_file(p, fd);

	return f ? f->host : -1;
}

/* Does the C string s start with the n bytes of pre (no libc here)? */
static inline UA_FAST bool fast_prefix(const char *s, const char *pre,
				       size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != pre[i])
			return false;
	return true;
}

/*
 * May the host look up the guest's path itself?  Not for what the full
 * path rewrites first (procfs.c): the guest's own /proc entries and the
 * /dev links into /proc/self/fd.  Its first bytes are read in one window
 * (left open in the count when the answer is yes), no further than the
 * page they start in: a shorter path that ends there is whole, a longer
 * one has its prefix.
 */
static inline UA_FAST bool fast_host_path(struct ua_thread *self,
					  const char *path)
{
	char head[8] = { 0 };
	size_t n = ua__pagesz - ((uintptr_t)path & (ua__pagesz - 1)), left;
	bool nul = false;

#if UA_FORCE_GENERIC_ARCH
	/* The portable copy keeps its recovery point in ua_self. */
	return false;
#endif
	n = n < sizeof(head) ? n : sizeof(head);
	ua__lean_window_open(self);
	left = ua__raw_copy(head, path, n);
	ua__lean_window_close(self);
	for (size_t i = 0; i < n - left; i++)
		nul |= !head[i];
	if (left || (n < sizeof(head) && !nul) ||
	    fast_prefix(head, "/proc/", 6) || fast_prefix(head, "/dev/fd", 7) ||
	    fast_prefix(head, "/dev/std", 8)) {
		self->lean_seq -= 2; /* the full path counts its own */
		return false;
	}
	return true;
}

/*
 * newfstatat(dfd, path, st, flags) (sys_fs.c do_fstatat()): its flags
 * check, then the host's call.  The host reads at most PATH_MAX bytes of
 * path.  An error costs the full path one window (the path's copy),
 * success two.  AT_EMPTY_PATH on a host descriptor is glibc's fstat():
 * the full path's fstat of it, the same two windows; on AT_FDCWD, and
 * EFAULT whichever pointer it came from, the full path's (nothing was
 * changed).
 */
static inline UA_FAST long fast_fstatat(struct ua_task *t, struct lx_proc *p,
					struct ua_thread *self)
{
	struct ua_pt_regs *r = &t->regs;
	int flags = (int)ARG4(r), hdfd = AT_FDCWD;
	void *path = (void *)ARG2(r), *st = (void *)ARG3(r);
	long ret;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT))
		return UA_FAST_DECLINE;
	if ((int)ARG1(r) != AT_FDCWD)
		hdfd = fast_host_fd(p, ARG1(r));
	else if (flags & AT_EMPTY_PATH)
		return UA_FAST_DECLINE;
	if (hdfd < 0 && hdfd != AT_FDCWD)
		return UA_FAST_DECLINE;
	if (!ua__space_has(t->sp, path, PATH_MAX) ||
	    !ua__space_has(t->sp, st, sizeof(struct stat)) ||
	    !fast_host_path(self, path))
		return UA_FAST_DECLINE;
	ret = fast_host(SYS_newfstatat, hdfd, (long)path, (long)st, flags);
	if (ret == -EFAULT || ret == -EINTR) {
		self->lean_seq -= 2; /* fast_host_path()'s: the full path's */
		return UA_FAST_DECLINE;
	}
	/* The path's window was fast_host_path()'s. */
	fast_windows(self, ret ? 0 : 1);
	return ret;
}

/* fstat(fd, st) of a host descriptor (sys_file.c ua__lx_fstat()). */
static inline UA_FAST long fast_fstat(struct ua_task *t, struct lx_proc *p,
				      struct ua_thread *self)
{
	struct ua_pt_regs *r = &t->regs;
	void *st = (void *)ARG2(r);
	int h = fast_host_fd(p, ARG1(r));
	long ret;

	if (h < 0 || !ua__space_has(t->sp, st, sizeof(struct stat)))
		return UA_FAST_DECLINE;
	ret = fast_host(SYS_fstat, h, (long)st, 0, 0);
	if (ret == -EFAULT || ret == -EINTR)
		return UA_FAST_DECLINE;
	fast_windows(self, !ret);
	return ret;
}

/*
 * getdents64(fd, buf, count) of a host descriptor (sys_fs.c): at most
 * 64 KiB a call, as the full path's buffer.  It moves the directory's
 * position, so nothing after it declines: a fault in buf is the EFAULT
 * the program would get natively, with the one window the full path's
 * failed copy costs.
 */
static inline UA_FAST long fast_getdents(struct ua_task *t, struct lx_proc *p,
					 struct ua_thread *self)
{
	struct ua_pt_regs *r = &t->regs;
	void *buf = (void *)ARG2(r);
	size_t count = ARG3(r) < (64u << 10) ? ARG3(r) : (64u << 10);
	struct lx_file *f = fast_host_file(p, ARG1(r));
	long ret;

	/* The guest's own /proc directories are listed by procfs_dir.c. */
	if (!f || f->pdir || !count || !ua__space_has(t->sp, buf, count))
		return UA_FAST_DECLINE;
	ret = fast_host(SYS_getdents64, f->host, (long)buf, (long)count, 0);
	fast_windows(self, ret > 0 || ret == -EFAULT);
	return ret;
}

/*
 * What a host descriptor is: asked of the host once, kept in the file
 * (file_dup() copies it with the rest; a new file starts unknown).  The
 * callers have made sure no other thread can change f meanwhile.
 */
static inline UA_FAST int fast_hkind(struct lx_file *f)
{
	struct stat st;

	if (f->hkind)
		return f->hkind;
	if (fast_host(SYS_fstat, f->host, (long)&st, 0, 0))
		return LX_HK_OTHER;
	f->hkind = (uint8_t)lx_hkind_of(&st);
	return f->hkind;
}

/* A host file the calls below take: one that never blocks. */
static inline UA_FAST struct lx_file *fast_plain(struct lx_proc *p,
						 uint64_t fd, bool write)
{
	struct lx_file *f = fast_file(p, fd);
	int k;

	if (!f || f->kind != LX_FD_HOST || f->sfd || lx_threaded(p))
		return NULL;
	k = fast_hkind(f);
	return k == LX_HK_REG || (write && k == LX_HK_NULL) ? f : NULL;
}

/*
 * One lean window's copy between the guest and the task's buffer: the
 * bytes not copied, a fault recovered through the exception table.
 */
static inline UA_FAST size_t fast_copy(struct ua_thread *self, void *to,
				       const void *from, size_t n)
{
	size_t left;

	ua__lean_window_open(self);
	left = ua__raw_copy(to, from, n);
	ua__lean_window_close(self);
	return left;
}

/*
 * read, pread64, write and pwrite64 of a regular host file, and writes
 * to the host's /dev/null (an inherited stdout, often): rw_buf()'s one
 * chunk (up to LX_CHUNK bytes) through the task's buffer, as do_read()
 * and do_write() make it, so the same bytes, windows and errors.  Pipes,
 * sockets and terminals take the full path, which can sleep; should a
 * file be swapped for one after the kind was asked, the call is still
 * interruptible, and declines.
 */
static inline UA_FAST long fast_rw(struct ua_task *t, struct lx_proc *p,
				   struct ua_thread *self, bool write,
				   bool positional)
{
	struct ua_pt_regs *r = &t->regs;
	struct lx_file *f;
	char *buf = lx_iobuf(t), *ubuf = (char *)ARG2(r);
	long pos = positional ? (long)ARG4(r) : 0, ret, nr;
	size_t n = ARG3(r), left;

#if UA_FORCE_GENERIC_ARCH
	/* The portable copy keeps its recovery point in ua_self. */
	return UA_FAST_DECLINE;
#endif
	if (!buf || !n || n > LX_CHUNK || pos < 0 ||
	    !ua__space_has(t->sp, ubuf, n))
		return UA_FAST_DECLINE;
	f = fast_plain(p, ARG1(r), write);
	if (!f)
		return UA_FAST_DECLINE;
	if (write) {
		left = fast_copy(self, buf, ubuf, n);
		if (left == n)
			return -EFAULT;
		nr = positional ? SYS_pwrite64 : SYS_write;
		ret = fast_intr(t, nr, f->host, (long)buf, (long)(n - left), pos);
		if (ret == -EINTR) {
			self->lean_seq -= 2;
			return UA_FAST_DECLINE;
		}
		/* do_write() goes round for the rest: its copy faults at once. */
		if (left && ret == (long)(n - left))
			fast_windows(self, 1);
		return ret;
	}
	nr = positional ? SYS_pread64 : SYS_read;
	ret = fast_intr(t, nr, f->host, (long)buf, (long)n, pos);
	if (ret == -EINTR)
		return UA_FAST_DECLINE;
	if (ret <= 0)
		return ret;
	left = fast_copy(self, ubuf, buf, (size_t)ret);
	return left == (size_t)ret ? -EFAULT : ret - (long)left;
}

/*
 * The host descriptor sendfile writes to, when it is one that never
 * sleeps and gives no EPIPE: a regular host file, the host's /dev/null,
 * or the one sys_sendfile() opened for the monitor's /dev/null with these
 * flags (lx_dev_cache()); else -1.
 */
static inline UA_FAST int fast_sink(struct lx_proc *p, uint64_t fd)
{
	struct lx_file *f = fast_file(p, fd);

	if (f && f->kind == LX_FD_NULL && !lx_threaded(p))
		return atomic_load(lx_dev_cache(f)) - 1;
	f = fast_plain(p, fd, true);
	return f ? f->host : -1;
}

/*
 * sendfile(out, in, NULL, count) to fast_sink()'s descriptor: the host's
 * sendfile, as sys_sendfile() makes it.  The input is any host file but
 * a signalfd's eventfd (the full path's EINVAL), so that a file just
 * opened costs no fstat for its kind; one that can sleep (a socket, a
 * terminal) is interruptible, and the full path takes over where an
 * interrupt ended it before anything was sent.  An offset in guest
 * memory is the full path's.
 */
static inline UA_FAST long fast_sendfile(struct ua_task *t, struct lx_proc *p,
					 struct ua_pt_regs *r)
{
	struct lx_file *in;
	int out;
	long ret;

	if (ARG3(r))
		return UA_FAST_DECLINE;
	out = fast_sink(p, ARG1(r));
	in = out >= 0 ? fast_host_file(p, ARG2(r)) : NULL;
	if (!in || in->sfd)
		return UA_FAST_DECLINE;
	ret = fast_intr(t, SYS_sendfile, out, in->host, 0, (long)ARG4(r));
	return ret == -EINTR ? UA_FAST_DECLINE : ret;
}

/*
 * close(fd) (sys_file.c ua__lx_close_fd()): the host descriptor closed
 * (not the monitor's own 0-2, which stand for the guest's at start), the
 * slot freed.  A signalfd's slot, and any close while the program has
 * several threads, are the full path's.
 */
static inline UA_FAST long fast_close(struct lx_proc *p, uint64_t fd)
{
	struct lx_file *f = fast_file(p, fd);

	if (!f || f->kind == LX_FD_FREE || lx_threaded(p) ||
	    (f->kind == LX_FD_HOST && f->sfd))
		return UA_FAST_DECLINE;
	if (f->kind == LX_FD_HOST && f->host > 2)
		fast_host(SYS_close, f->host, 0, 0, 0);
	f->kind = LX_FD_FREE;
	return 0;
}

/*
 * The guest's path at upath into buf, in one window: its length, or 0
 * when it is empty, faults or has no NUL within PATH_MAX (what the full
 * path refuses).  A page at a time, so that no fault is taken past the
 * page where the NUL is: a fault is a host signal, dearer than the call;
 * and first no more than FAST_PATH_HEAD bytes, which hold most paths,
 * not the rest of a page.
 */
#define FAST_PATH_HEAD 256

static inline UA_FAST size_t fast_path_copy(struct ua_thread *self, char *buf,
					    uint64_t upath)
{
	size_t len = 0, got = 0;

	ua__lean_window_open(self);
	while (got < PATH_MAX) {
		size_t n = ua__pagesz - ((upath + got) & (ua__pagesz - 1));

		if (n > PATH_MAX - got)
			n = PATH_MAX - got;
		if (!got && n > FAST_PATH_HEAD)
			n = FAST_PATH_HEAD;
		n -= ua__raw_copy(buf + got, (const char *)upath + got, n);
		got += n;
		while (len < got && buf[len])
			len++;
		if (len < got || !n)
			break;
	}
	ua__lean_window_close(self);
	return len < got ? len : 0;
}

/* Is a range of the space named in /proc/<pid>/maps (vma_names.c)? */
static inline UA_FAST bool fast_named(const struct lx_proc *p, uintptr_t lo,
				      uintptr_t hi)
{
	for (size_t i = 0; i < p->nnames; i++)
		if (lo < p->names[i].end && p->names[i].start < hi)
			return true;
	return false;
}

/*
 * mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, fd, 0), what malloc
 * asks for (sys_mm.c sys_mmap()): the same first gap, host call and
 * list (src/core/space.c), without the full path's two FS-base switches,
 * which cost a host call each where the CPU has no FSGSBASE.  Everything
 * else is the full path's: a place asked for, other flags, a limit on
 * the address space (its sum), a name to drop, several threads, a space
 * lock held, a list that must grow, a backend other than none.
 */
static inline UA_FAST long fast_mmap(struct ua_task *t, struct lx_proc *p,
				     struct ua_thread *self)
{
	struct ua_pt_regs *r = &t->regs;
	struct ua_space *sp = t->sp;
	size_t len = ARG2(r);
	int prot = (int)ARG3(r);
	uintptr_t addr;
	long err;

	if (ARG1(r) || (int)ARG4(r) != (MAP_PRIVATE | MAP_ANONYMOUS) ||
	    ARG6(r) || !len || len > sp->size ||
	    (prot & ~(PROT_READ | PROT_WRITE)) || lx_threaded(p) ||
	    p->rlim[RLIMIT_AS].cur != LX_RLIM_INFINITY)
		return UA_FAST_DECLINE;
	len = ua__page_up(len);
	if (!ua__space_trylock_fast(sp, self))
		return UA_FAST_DECLINE;
	addr = ua__fast_space_gap(sp, len);
	err = !addr || fast_named(p, addr, addr + len) ?
		      -EAGAIN :
		      ua__fast_space_map(sp, addr, len, prot);
	ua__space_unlock_fast(sp, self);
	if (err == -EAGAIN)
		return UA_FAST_DECLINE;
	return err ? err : (long)addr;
}

/*
 * munmap(addr, len) (sys_mm.c sys_munmap()) of a range without code the
 * patch trap knows or a name: the same list and host call.  The rest,
 * errors included, is the full path's.
 */
static inline UA_FAST long fast_munmap(struct ua_task *t, struct lx_proc *p,
				       struct ua_thread *self)
{
	struct ua_pt_regs *r = &t->regs;
	struct ua_space *sp = t->sp;
	uintptr_t addr = ARG1(r);
	size_t len = ARG2(r);
	long err;

	if ((addr & (ua__pagesz - 1)) || !len || len > sp->size ||
	    lx_threaded(p))
		return UA_FAST_DECLINE;
	len = ua__page_up(len);
	if (!ua__space_has(sp, (void *)addr, len) ||
	    ua__fast_patch_overlaps(t, addr, len) ||
	    fast_named(p, addr, addr + len) ||
	    !ua__space_trylock_fast(sp, self))
		return UA_FAST_DECLINE;
	err = ua__fast_space_unmap(sp, addr, len);
	ua__space_unlock_fast(sp, self);
	return err == -EAGAIN ? UA_FAST_DECLINE : err;
}

/*
 * openat(dfd, path, flags, mode) (sys_fs.c do_openat()): the path copied
 * into the task's buffer in one window, as the full path's copy, then
 * the host's open.  The full path takes what it treats apart (/proc/...,
 * /dev/null, /dev/zero), O_TMPFILE, and paths it would refuse.  The open
 * of a FIFO or a device may sleep: an interrupt ends it with EINTR
 * before anything was opened, and the full path opens instead.  Once the
 * host has opened the file nothing declines: the descriptor is
 * installed, or closed for EMFILE as the full path does.
 */
static inline UA_FAST long fast_open(struct ua_task *t, struct lx_proc *p,
				     struct ua_thread *self, long dfd,
				     uint64_t upath, int flags, int mode)
{
	char *path = lx_iobuf(t);
	int hdfd = AT_FDCWD, fd, end = lx_nofile(p);
	size_t len;
	long h;

#if UA_FORCE_GENERIC_ARCH
	return UA_FAST_DECLINE;
#endif
	if (!path || lx_threaded(p) || (flags & O_TMPFILE) == O_TMPFILE ||
	    !ua__space_has(t->sp, (void *)upath, PATH_MAX))
		return UA_FAST_DECLINE;
	if ((int)dfd != AT_FDCWD && (hdfd = fast_host_fd(p, (uint64_t)dfd)) < 0)
		return UA_FAST_DECLINE;
	len = fast_path_copy(self, path, upath);
	if (!len || fast_prefix(path, "/proc/", 6) ||
	    (len >= 7 && (fast_prefix(path, "/dev/fd", 7) ||
			  fast_prefix(path, "/dev/std", 8))) ||
	    (len == 9 && (fast_prefix(path, "/dev/null", 9) ||
			  fast_prefix(path, "/dev/zero", 9))))
		goto decline;
	h = fast_intr(t, SYS_openat, hdfd, (long)path, flags | O_CLOEXEC,
		      mode);
	if (h == -EINTR)
		goto decline;
	if (h < 0)
		return h;
	/* ua__lx_host_above_stdio(): 0-2 are the monitor's. */
	if (h <= 2) {
		long d = fast_host(SYS_fcntl, h, F_DUPFD_CLOEXEC, 3, 0);

		fast_host(SYS_close, h, 0, 0, 0);
		if (d < 0)
			return d;
		h = d;
	}
	for (fd = 0; fd < end; fd++)
		if (p->files[fd].kind == LX_FD_FREE)
			break;
	if (fd == end) {
		fast_host(SYS_close, h, 0, 0, 0);
		return -EMFILE;
	}
	p->files[fd].kind = LX_FD_HOST;
	p->files[fd].host = (int)h;
	p->files[fd].flags = flags;
	p->files[fd].cloexec = flags & O_CLOEXEC;
	p->files[fd].sfd = 0;
	p->files[fd].hkind = LX_HK_UNKNOWN;
	return fd;
decline:
	/* The copy's window is the full path's to count. */
	self->lean_seq -= 2;
	return UA_FAST_DECLINE;
}

/* Does pid name the calling task (sys_signal.c's names_self())? */
static inline UA_FAST bool fast_self(const struct ua_task *t, pid_t pid,
				     pid_t me)
{
	return pid == me || pid == t->tid;
}

/* kill(pid, sig), tgkill(tgid, tid, sig), tkill(tid, sig) of the task
 * by itself. */
static inline UA_FAST long fast_kill(struct ua_task *t, struct ua_thread *self,
				     uint64_t nr)
{
	struct ua_pt_regs *r = &t->regs;
	pid_t me = ua__fast_monitor_pid();

	if (!me)
		return UA_FAST_DECLINE;
	if (nr == SYS_kill) {
		if ((pid_t)ARG1(r) != 0 && !fast_self(t, (pid_t)ARG1(r), me))
			return UA_FAST_DECLINE;
		return ua__fast_signal_self(t, self, (int)ARG2(r), SI_USER);
	}
	if (nr == SYS_tkill) {
		/* sys_signal.c: tgkill within the one process there is. */
		if ((pid_t)ARG1(r) <= 0 || !fast_self(t, (pid_t)ARG1(r), me))
			return UA_FAST_DECLINE;
		return ua__fast_signal_self(t, self, (int)ARG2(r), SI_TKILL);
	}
	if ((pid_t)ARG1(r) != me || !fast_self(t, (pid_t)ARG2(r), me))
		return UA_FAST_DECLINE;
	return ua__fast_signal_self(t, self, (int)ARG3(r), SI_TKILL);
}

/*
 * The syscall in t->regs (orig_rax), or UA_FAST_DECLINE.  *work: exit
 * work is pending after it (a signal another thread queued meanwhile,
 * one a restored mask unblocked).
 */
UA_FAST long ua__fast_lx(struct ua_task *t, struct ua_thread *self, bool *work)
{
	struct lx_proc *p = lx_proc(t);
	uint64_t nr = t->regs.orig_rax;
	long ret;

	/* A signalfd's readiness follows every change to a pending set. */
	if (!p || p->trace_fd >= 0 || !t->sig || nr >= LX_NR_MAX ||
	    p->sigfds || ua__fast_sig_work_pending(t))
		return UA_FAST_DECLINE;
	/*
	 * A thread's id, who a signal is for, and a mask that hands the
	 * process's pending signals to another thread are the full path's.
	 */
	if (ua_unlikely(lx_threaded(p)) &&
	    (nr == SYS_gettid || nr == SYS_kill || nr == SYS_tgkill ||
	     nr == SYS_tkill ||
	     (nr == SYS_rt_sigprocmask &&
	      atomic_load(&sigstate(t)->sh->shared.pending))))
		return UA_FAST_DECLINE;
	switch (nr) {
	case SYS_getpid:
	case SYS_gettid:
		/* 0: not known yet; the full path asks the host. */
		ret = ua__fast_monitor_pid() ?: UA_FAST_DECLINE;
		break;
	case SYS_getppid:
		ret = ua__fast_ppid() ?: UA_FAST_DECLINE;
		break;
	case SYS_read:
		ret = fast_read(t, p, self);
		if (ret == UA_FAST_DECLINE)
			ret = fast_rw(t, p, self, false, false);
		break;
	case SYS_write:
		/* An empty write is the full path's. */
		ret = fast_write(t, p) ?: UA_FAST_DECLINE;
		if (ret == UA_FAST_DECLINE)
			ret = fast_rw(t, p, self, true, false);
		break;
	case SYS_pread64:
		ret = fast_rw(t, p, self, false, true);
		break;
	case SYS_pwrite64:
		ret = fast_rw(t, p, self, true, true);
		break;
	case SYS_sendfile:
		ret = fast_sendfile(t, p, &t->regs);
		break;
	case SYS_open:
		ret = fast_open(t, p, self, AT_FDCWD, ARG1(&t->regs),
				(int)ARG2(&t->regs), (int)ARG3(&t->regs));
		break;
	case SYS_openat:
		ret = fast_open(t, p, self, (long)ARG1(&t->regs),
				ARG2(&t->regs), (int)ARG3(&t->regs),
				(int)ARG4(&t->regs));
		break;
	case SYS_close:
		ret = fast_close(p, ARG1(&t->regs));
		break;
	case SYS_kill:
	case SYS_tgkill:
	case SYS_tkill:
		ret = fast_kill(t, self, nr);
		break;
	case SYS_rt_sigprocmask:
		ret = ua__fast_sigprocmask(t, self, (int)ARG1(&t->regs),
					   ARG2(&t->regs), ARG3(&t->regs),
					   ARG4(&t->regs));
		break;
	case SYS_rt_sigreturn:
		ret = ua__fast_sigreturn(t, self);
		break;
	case SYS_newfstatat:
		ret = fast_fstatat(t, p, self);
		break;
	case SYS_fstat:
		ret = fast_fstat(t, p, self);
		break;
	case SYS_mmap:
		ret = fast_mmap(t, p, self);
		break;
	case SYS_munmap:
		ret = fast_munmap(t, p, self);
		break;
	case SYS_getdents64:
		ret = fast_getdents(t, p, self);
		break;
	default:
		return UA_FAST_DECLINE;
	}
	if (ret == UA_FAST_DECLINE)
		return UA_FAST_DECLINE;
	p->counts[nr]++;
	*work = ua__fast_sig_work_pending(t);
	return ret;
}
