// SPDX-License-Identifier: MIT
/*
 * Path-based calls (fs/open.c, fs/stat.c, fs/namei.c, fs/readdir.c,
 * fs/d_path.c).  Paths are read with strncpy_from_user, as getname()
 * does; directory descriptors are translated through the task's table.
 * The working directory is the monitor's.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <utime.h>
#include <unistd.h>

#include "linux_internal.h"

/* getname(): -EFAULT, -ENAMETOOLONG, -ENOENT for an empty path. */
long ua__lx_get_path(char *buf, uint64_t upath)
{
	long n = ua_strncpy_from_user(buf, (const char *)upath, PATH_MAX);

	if (n < 0)
		return n;
	if (n == PATH_MAX)
		return -ENAMETOOLONG;
	if (n == 0)
		return -ENOENT;
	return 0;
}

/* A dirfd as the host sees it: AT_FDCWD, or the host descriptor. */
int ua__lx_host_dirfd(struct ua_task *t, long dfd, int *out)
{
	struct lx_file *f;

	if ((int)dfd == AT_FDCWD) {
		*out = AT_FDCWD;
		return 0;
	}
	f = ua__lx_file(t, (int)dfd);
	if (!f)
		return -EBADF;
	if (f->kind != LX_FD_HOST)
		return -ENOTDIR;
	*out = f->host;
	return 0;
}

/*
 * ua__lx_host_above_stdio(): h itself, or a close-on-exec duplicate of it
 * at 3 or above and h closed: host descriptors 0-2 are the monitor's
 * own.  -errno (and h closed) if there is none.
 */
long ua__lx_host_above_stdio(int h)
{
	int d;

	if (h >= 3)
		return h;
	d = fcntl(h, F_DUPFD_CLOEXEC, 3);
	close(h);
	return d < 0 ? -errno : d;
}

/*
 * The host descriptor for path: the guest's own /proc entries first
 * (procfs.c), then the host's file.
 */
static long host_open(struct ua_task *t, int hdfd, const char *path,
		      int flags, int mode)
{
	long h = -ENOSYS;

	if (!strncmp(path, "/proc/", 6))
		h = ua__lx_procfs_open(t, path, flags);
	if (h != -ENOSYS)
		return h;
	h = openat(hdfd, path, flags | O_CLOEXEC, mode);
	return h < 0 ? -errno : ua__lx_host_above_stdio((int)h);
}

static long do_openat(struct ua_task *t, long dfd, uint64_t upath, int flags,
		      int mode)
{
	char path[PATH_MAX];
	struct lx_file f = { .kind = LX_FD_HOST };
	int hdfd, fd;
	long err;

	err = ua__lx_get_path(path, upath);
	if (!err)
		err = ua__lx_host_dirfd(t, dfd, &hdfd);
	if (err)
		return err;
	ua__lx_procfs_alias(path, !(flags & O_NOFOLLOW));
	f.cloexec = flags & O_CLOEXEC;
	f.flags = flags;
	if (!strcmp(path, "/dev/null"))
		f.kind = LX_FD_NULL;
	else if (!strcmp(path, "/dev/zero"))
		f.kind = LX_FD_ZERO;
	if (f.kind == LX_FD_HOST) {
		long h = host_open(t, hdfd, path, flags, mode);

		if (h < 0)
			return h;
		f.host = (int)h;
		if (!strncmp(path, "/proc/", 6))
			ua__lx_procfs_mark(path, &f);
	}
	fd = ua__lx_fd_install(lx_proc(t), 0, f);
	if (fd < 0 && f.kind == LX_FD_HOST)
		close(f.host);
	return fd;
}

static long sys_open(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_openat(t, AT_FDCWD, ARG1(r), (int)ARG2(r), (int)ARG3(r));
}

static long sys_openat(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_openat(t, (int)ARG1(r), ARG2(r), (int)ARG3(r),
			 (int)ARG4(r));
}

static long sys_creat(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_openat(t, AT_FDCWD, ARG1(r), O_CREAT | O_WRONLY | O_TRUNC,
			 (int)ARG2(r));
}

/*
 * The name the host looks up for a call that inspects a guest path
 * (stat, statx, access): the guest's descriptor links (/dev/fd/N,
 * /proc/self/fd/N) turned into the host descriptor's, the final one
 * only where the call follows it (procfs.c).
 */
static void lookup_path(struct ua_task *t, char *path, int flags)
{
	bool follow = !(flags & AT_SYMLINK_NOFOLLOW);

	ua__lx_procfs_alias(path, follow);
	ua__lx_procfs_host_path(t, path, follow);
}

static long do_fstatat(struct ua_task *t, long dfd, uint64_t upath,
		       void *ust, int flags)
{
	char path[PATH_MAX];
	struct stat st;
	int hdfd = AT_FDCWD;
	long err;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT))
		return -EINVAL;
	err = ua__lx_host_dirfd(t, dfd, &hdfd);
	if (err && !((flags & AT_EMPTY_PATH) && err == -ENOTDIR))
		return err;
	err = ua__lx_get_path(path, upath);
	if (err == -ENOENT && (flags & AT_EMPTY_PATH)) {
		struct ua_pt_regs tmp = { .rdi = (uint64_t)dfd,
					  .rsi = (uint64_t)ust };

		return ua__lx_fstat(t, &tmp);
	}
	if (err)
		return err;
	lookup_path(t, path, flags);
	if (fstatat(hdfd, path, &st, flags))
		return -errno;
	if (ua_copy_to_user(ust, &st, sizeof(st)))
		return -EFAULT;
	return 0;
}

static long sys_stat(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_fstatat(t, AT_FDCWD, ARG1(r), (void *)ARG2(r), 0);
}

static long sys_lstat(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_fstatat(t, AT_FDCWD, ARG1(r), (void *)ARG2(r),
			  AT_SYMLINK_NOFOLLOW);
}

static long sys_newfstatat(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_fstatat(t, (int)ARG1(r), ARG2(r), (void *)ARG3(r),
			  (int)ARG4(r));
}

static long sys_statx(struct ua_task *t, struct ua_pt_regs *r)
{
	char path[PATH_MAX];
	struct statx stx;
	int flags = (int)ARG3(r), hdfd = AT_FDCWD;
	long err;

	err = ua__lx_get_path(path, ARG2(r));
	if (err == -ENOENT && (flags & AT_EMPTY_PATH)) {
		path[0] = 0;
		err = 0;
	}
	if (!err)
		err = ua__lx_host_dirfd(t, (int)ARG1(r), &hdfd);
	if (err)
		return err;
	lookup_path(t, path, flags);
	if (statx(hdfd, path, flags, (unsigned int)ARG4(r), &stx))
		return -errno;
	if (ua_copy_to_user((void *)ARG5(r), &stx, sizeof(stx)))
		return -EFAULT;
	return 0;
}

static long sys_getdents64(struct ua_task *t, struct ua_pt_regs *r)
{
	struct lx_file *f = ua__lx_file(t, (int)ARG1(r));
	size_t count = ARG3(r);
	char *buf;
	long n;

	if (!f)
		return -EBADF;
	if (f->kind != LX_FD_HOST)
		return -ENOTDIR;
	if (f->pdir)
		return ua__lx_procfs_getdents(t, f, (void *)ARG2(r), count);
	/* The task's buffer: a heap buffer per call stays resident. */
	buf = lx_iobuf(t);
	if (count > LX_CHUNK)
		count = LX_CHUNK;
	n = getdents64(f->host, buf, count);
	if (n < 0)
		n = -errno;
	else if (ua_copy_to_user((void *)ARG2(r), buf, (size_t)n))
		n = -EFAULT;
	return n;
}

static long do_readlinkat(struct ua_task *t, long dfd, uint64_t upath,
			  void *ubuf, long size)
{
	char path[PATH_MAX], out[PATH_MAX];
	int hdfd = AT_FDCWD;
	ssize_t n;
	long err;

	if (size <= 0)
		return -EINVAL;
	err = ua__lx_get_path(path, upath);
	if (!err)
		err = ua__lx_host_dirfd(t, dfd, &hdfd);
	if (err)
		return err;
	/* The program's own file and descriptors, not the monitor's. */
	ua__lx_procfs_alias(path, false);
	n = ua__lx_procfs_readlink(t, path, out, sizeof(out));
	if (n == -ENOSYS) {
		n = readlinkat(hdfd, path, out, sizeof(out));
		if (n < 0)
			n = -errno;
	}
	if (n < 0)
		return n;
	if (n > size)
		n = size;
	if (ua_copy_to_user(ubuf, out, (size_t)n))
		return -EFAULT;
	return n;
}

static long sys_readlink(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_readlinkat(t, AT_FDCWD, ARG1(r), (void *)ARG2(r),
			     (long)ARG3(r));
}

static long sys_readlinkat(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_readlinkat(t, (int)ARG1(r), ARG2(r), (void *)ARG3(r),
			     (long)ARG4(r));
}

static long sys_getcwd(struct ua_task *t, struct ua_pt_regs *r)
{
	char buf[PATH_MAX];
	size_t len;

	(void)t;
	if (!getcwd(buf, sizeof(buf)))
		return -errno;
	len = strlen(buf) + 1;
	if (len > ARG2(r))
		return -ERANGE;
	if (ua_copy_to_user((void *)ARG1(r), buf, len))
		return -EFAULT;
	return (long)len;
}

static long sys_chdir(struct ua_task *t, struct ua_pt_regs *r)
{
	char path[PATH_MAX];
	long err = ua__lx_get_path(path, ARG1(r));

	(void)t;
	if (err)
		return err;
	return chdir(path) ? -errno : 0;
}

static long sys_fchdir(struct ua_task *t, struct ua_pt_regs *r)
{
	struct lx_file *f = ua__lx_file(t, (int)ARG1(r));

	if (!f)
		return -EBADF;
	if (f->kind != LX_FD_HOST)
		return -ENOTDIR;
	return fchdir(f->host) ? -errno : 0;
}

static long do_faccessat(struct ua_task *t, long dfd, uint64_t upath,
			 int mode, int flags)
{
	char path[PATH_MAX];
	int hdfd = AT_FDCWD;
	long err;

	if (mode & ~(R_OK | W_OK | X_OK))
		return -EINVAL;
	err = ua__lx_get_path(path, upath);
	if (!err)
		err = ua__lx_host_dirfd(t, dfd, &hdfd);
	if (err)
		return err;
	lookup_path(t, path, flags);
	return faccessat(hdfd, path, mode, flags) ? -errno : 0;
}

static long sys_access(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_faccessat(t, AT_FDCWD, ARG1(r), (int)ARG2(r), 0);
}

static long sys_faccessat(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_faccessat(t, (int)ARG1(r), ARG2(r), (int)ARG3(r), 0);
}

static long sys_faccessat2(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_faccessat(t, (int)ARG1(r), ARG2(r), (int)ARG3(r),
			    (int)ARG4(r));
}

static long do_unlinkat(struct ua_task *t, long dfd, uint64_t upath,
			int flags)
{
	char path[PATH_MAX];
	int hdfd = AT_FDCWD;
	long err;

	if (flags & ~AT_REMOVEDIR)
		return -EINVAL;
	err = ua__lx_get_path(path, upath);
	if (!err)
		err = ua__lx_host_dirfd(t, dfd, &hdfd);
	if (err)
		return err;
	return unlinkat(hdfd, path, flags) ? -errno : 0;
}

static long sys_unlink(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_unlinkat(t, AT_FDCWD, ARG1(r), 0);
}

static long sys_rmdir(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_unlinkat(t, AT_FDCWD, ARG1(r), AT_REMOVEDIR);
}

static long sys_unlinkat(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_unlinkat(t, (int)ARG1(r), ARG2(r), (int)ARG3(r));
}

static long do_mkdirat(struct ua_task *t, long dfd, uint64_t upath, int mode)
{
	char path[PATH_MAX];
	int hdfd = AT_FDCWD;
	long err;

	err = ua__lx_get_path(path, upath);
	if (!err)
		err = ua__lx_host_dirfd(t, dfd, &hdfd);
	if (err)
		return err;
	return mkdirat(hdfd, path, (mode_t)mode) ? -errno : 0;
}

/*
 * mknodat(): the host's, which makes FIFOs, sockets and regular files
 * for anyone and devices for whom it lets (EPERM without CAP_MKNOD).
 */
static long do_mknodat(struct ua_task *t, long dfd, uint64_t upath, int mode,
		       unsigned int dev)
{
	char path[PATH_MAX];
	int hdfd = AT_FDCWD;
	long err;

	err = ua__lx_get_path(path, upath);
	if (!err)
		err = ua__lx_host_dirfd(t, dfd, &hdfd);
	if (err)
		return err;
	return mknodat(hdfd, path, (mode_t)mode, dev) ? -errno : 0;
}

static long sys_mknod(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_mknodat(t, AT_FDCWD, ARG1(r), (int)ARG2(r),
			  (unsigned int)ARG3(r));
}

static long sys_mknodat(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_mknodat(t, (int)ARG1(r), ARG2(r), (int)ARG3(r),
			  (unsigned int)ARG4(r));
}

static long sys_mkdir(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_mkdirat(t, AT_FDCWD, ARG1(r), (int)ARG2(r));
}

static long sys_mkdirat(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_mkdirat(t, (int)ARG1(r), ARG2(r), (int)ARG3(r));
}

static long do_renameat2(struct ua_task *t, long odfd, uint64_t uold,
			 long ndfd, uint64_t unew, unsigned int flags)
{
	char from[PATH_MAX], to[PATH_MAX];
	int hodfd = AT_FDCWD, hndfd = AT_FDCWD;
	long err;

	err = ua__lx_get_path(from, uold);
	if (!err)
		err = ua__lx_get_path(to, unew);
	if (!err)
		err = ua__lx_host_dirfd(t, odfd, &hodfd);
	if (!err)
		err = ua__lx_host_dirfd(t, ndfd, &hndfd);
	if (err)
		return err;
	return renameat2(hodfd, from, hndfd, to, flags) ? -errno : 0;
}

static long sys_rename(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_renameat2(t, AT_FDCWD, ARG1(r), AT_FDCWD, ARG2(r), 0);
}

static long sys_renameat(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_renameat2(t, (int)ARG1(r), ARG2(r), (int)ARG3(r), ARG4(r),
			    0);
}

static long sys_renameat2(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_renameat2(t, (int)ARG1(r), ARG2(r), (int)ARG3(r), ARG4(r),
			    (unsigned int)ARG5(r));
}

/*
 * A path and its dirfd for a call with AT_EMPTY_PATH in flags: an empty
 * path is then the dirfd's own file, which need not be a directory.
 * TODO: a monitor device as that file (ENOTDIR here).
 */
static long get_path_at(struct ua_task *t, long dfd, uint64_t upath, int flags,
			char *path, int *hdfd)
{
	long err = ua__lx_get_path(path, upath);

	if (err == -ENOENT && (flags & AT_EMPTY_PATH)) {
		path[0] = 0;
		err = 0;
	}
	if (!err)
		err = ua__lx_host_dirfd(t, dfd, hdfd);
	return err;
}

/* arch/x86/entry/syscalls/syscall_64.tbl, for older headers. */
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

/* chmod_common() by path; the host applies the mode and its checks. */
static long do_fchmodat(struct ua_task *t, long dfd, uint64_t upath,
			mode_t mode, int flags, bool has_flags)
{
	char path[PATH_MAX];
	int hdfd = AT_FDCWD;
	long err;

	/* fchmodat2(): only these flags; fchmodat() has no flags at all. */
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	err = get_path_at(t, dfd, upath, flags, path, &hdfd);
	if (err)
		return err;
	if (has_flags)
		err = syscall(SYS_fchmodat2, hdfd, path, mode, flags);
	else
		err = syscall(SYS_fchmodat, hdfd, path, mode);
	return err ? -errno : 0;
}

static long sys_chmod(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_fchmodat(t, AT_FDCWD, ARG1(r), (mode_t)ARG2(r), 0, false);
}

static long sys_fchmodat(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_fchmodat(t, (int)ARG1(r), ARG2(r), (mode_t)ARG3(r), 0, false);
}

static long sys_fchmodat2(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_fchmodat(t, (int)ARG1(r), ARG2(r), (mode_t)ARG3(r),
			   (int)ARG4(r), true);
}

/* do_fchownat(): the flags are checked before the path is looked at. */
static long do_fchownat(struct ua_task *t, long dfd, uint64_t upath, uid_t user,
			gid_t group, int flags)
{
	char path[PATH_MAX];
	int hdfd = AT_FDCWD;
	long err;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	err = get_path_at(t, dfd, upath, flags, path, &hdfd);
	if (err)
		return err;
	return fchownat(hdfd, path, user, group, flags) ? -errno : 0;
}

static long sys_chown(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_fchownat(t, AT_FDCWD, ARG1(r), (uid_t)ARG2(r), (gid_t)ARG3(r),
			   0);
}

static long sys_lchown(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_fchownat(t, AT_FDCWD, ARG1(r), (uid_t)ARG2(r), (gid_t)ARG3(r),
			   AT_SYMLINK_NOFOLLOW);
}

static long sys_fchownat(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_fchownat(t, (int)ARG1(r), ARG2(r), (uid_t)ARG3(r),
			   (gid_t)ARG4(r), (int)ARG5(r));
}

/*
 * utimensat() (fs/utimes.c): the times are read first, and two
 * UTIME_OMITs do nothing, not even look the path up.  A NULL path with a
 * descriptor is the descriptor's file (futimens()), flags then 0.  The
 * host checks the rest: flags, nanoseconds after the lookup, permissions.
 */
static long sys_utimensat(struct ua_task *t, struct ua_pt_regs *r)
{
	struct timespec ts[2], *tp = NULL;
	char path[PATH_MAX];
	int dfd = (int)ARG1(r), flags = (int)ARG4(r), hdfd = AT_FDCWD;
	long ret;

	if (ARG3(r)) {
		if (ua_copy_from_user(ts, (const void *)ARG3(r), sizeof(ts)))
			return -EFAULT;
		if (ts[0].tv_nsec == UTIME_OMIT && ts[1].tv_nsec == UTIME_OMIT)
			return 0;
		tp = ts;
	}
	if (!ARG2(r) && dfd != AT_FDCWD) {
		if (flags)
			return -EINVAL;
		hdfd = ua__lx_host_fd_get(t, dfd);
		if (hdfd < 0)
			return hdfd;
		ret = syscall(SYS_utimensat, hdfd, NULL, tp, 0);
		ret = ret ? -errno : 0;
		ua__lx_host_fd_put(t, dfd, hdfd);
		return ret;
	}
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	ret = get_path_at(t, dfd, ARG2(r), flags, path, &hdfd);
	if (ret)
		return ret;
	return syscall(SYS_utimensat, hdfd, path, tp, flags) ? -errno : 0;
}

/* utime() and utimes(): the old forms, converted and checked by the host. */
static long sys_utime(struct ua_task *t, struct ua_pt_regs *r)
{
	struct utimbuf ut, *up = NULL;
	char path[PATH_MAX];
	long err;

	(void)t;
	if (ARG2(r)) {
		if (ua_copy_from_user(&ut, (const void *)ARG2(r), sizeof(ut)))
			return -EFAULT;
		up = &ut;
	}
	err = ua__lx_get_path(path, ARG1(r));
	if (err)
		return err;
	return syscall(SYS_utime, path, up) ? -errno : 0;
}

static long sys_utimes(struct ua_task *t, struct ua_pt_regs *r)
{
	struct timeval tv[2], *tp = NULL;
	char path[PATH_MAX];
	long err;

	(void)t;
	if (ARG2(r)) {
		if (ua_copy_from_user(tv, (const void *)ARG2(r), sizeof(tv)))
			return -EFAULT;
		tp = tv;
	}
	err = ua__lx_get_path(path, ARG1(r));
	if (err)
		return err;
	return syscall(SYS_utimes, path, tp) ? -errno : 0;
}

/* do_sys_truncate(): a negative length before the path. */
static long sys_truncate(struct ua_task *t, struct ua_pt_regs *r)
{
	char path[PATH_MAX];
	long err;

	(void)t;
	if ((long)ARG2(r) < 0)
		return -EINVAL;
	err = ua__lx_get_path(path, ARG1(r));
	if (err)
		return err;
	return syscall(SYS_truncate, path, (long)ARG2(r)) ? -errno : 0;
}

/* do_linkat(): the flags first; AT_EMPTY_PATH makes "" the old file. */
static long do_linkat(struct ua_task *t, long odfd, uint64_t uold, long ndfd,
		      uint64_t unew, int flags)
{
	char from[PATH_MAX], to[PATH_MAX];
	int hodfd = AT_FDCWD, hndfd = AT_FDCWD;
	long err;

	if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	err = get_path_at(t, odfd, uold, flags, from, &hodfd);
	if (!err)
		err = ua__lx_get_path(to, unew);
	if (!err)
		err = ua__lx_host_dirfd(t, ndfd, &hndfd);
	if (err)
		return err;
	return linkat(hodfd, from, hndfd, to, flags) ? -errno : 0;
}

static long sys_link(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_linkat(t, AT_FDCWD, ARG1(r), AT_FDCWD, ARG2(r), 0);
}

static long sys_linkat(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_linkat(t, (int)ARG1(r), ARG2(r), (int)ARG3(r), ARG4(r),
			 (int)ARG5(r));
}

/* do_symlinkat(): the target is a name like any other (empty: ENOENT). */
static long do_symlinkat(struct ua_task *t, uint64_t utarget, long ndfd,
			 uint64_t unew)
{
	char target[PATH_MAX], path[PATH_MAX];
	int hdfd = AT_FDCWD;
	long err;

	err = ua__lx_get_path(target, utarget);
	if (!err)
		err = ua__lx_get_path(path, unew);
	if (!err)
		err = ua__lx_host_dirfd(t, ndfd, &hdfd);
	if (err)
		return err;
	return symlinkat(target, hdfd, path) ? -errno : 0;
}

static long sys_symlink(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_symlinkat(t, ARG1(r), AT_FDCWD, ARG2(r));
}

static long sys_symlinkat(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_symlinkat(t, ARG1(r), (int)ARG2(r), ARG3(r));
}

static long sys_statfs(struct ua_task *t, struct ua_pt_regs *r)
{
	char path[PATH_MAX];
	struct statfs sf;
	long err;

	(void)t;
	err = ua__lx_get_path(path, ARG1(r));
	if (err)
		return err;
	if (syscall(SYS_statfs, path, &sf))
		return -errno;
	if (ua_copy_to_user((void *)ARG2(r), &sf, sizeof(sf)))
		return -EFAULT;
	return 0;
}

static const struct lx_call calls[] = {
	{ SYS_open, "open", sys_open, "sod" },
	{ SYS_openat, "openat", sys_openat, "fsod" },
	{ SYS_creat, "creat", sys_creat, "so" },
	{ SYS_stat, "stat", sys_stat, "sp" },
	{ SYS_lstat, "lstat", sys_lstat, "sp" },
	{ SYS_newfstatat, "newfstatat", sys_newfstatat, "fspx" },
	{ SYS_statx, "statx", sys_statx, "fsxxp" },
	{ SYS_getdents64, "getdents64", sys_getdents64, "fpu" },
	{ SYS_readlink, "readlink", sys_readlink, "spu" },
	{ SYS_readlinkat, "readlinkat", sys_readlinkat, "fspu" },
	{ SYS_getcwd, "getcwd", sys_getcwd, "pu" },
	{ SYS_chdir, "chdir", sys_chdir, "s" },
	{ SYS_fchdir, "fchdir", sys_fchdir, "f" },
	{ SYS_access, "access", sys_access, "sx" },
	{ SYS_faccessat, "faccessat", sys_faccessat, "fsx" },
	{ SYS_faccessat2, "faccessat2", sys_faccessat2, "fsxx" },
	{ SYS_unlink, "unlink", sys_unlink, "s" },
	{ SYS_unlinkat, "unlinkat", sys_unlinkat, "fsx" },
	{ SYS_rmdir, "rmdir", sys_rmdir, "s" },
	{ SYS_mkdir, "mkdir", sys_mkdir, "so" },
	{ SYS_mkdirat, "mkdirat", sys_mkdirat, "fso" },
	{ SYS_mknod, "mknod", sys_mknod, "sox" },
	{ SYS_mknodat, "mknodat", sys_mknodat, "fsox" },
	{ SYS_rename, "rename", sys_rename, "ss" },
	{ SYS_renameat, "renameat", sys_renameat, "fsfs" },
	{ SYS_renameat2, "renameat2", sys_renameat2, "fsfsx" },
	{ SYS_chmod, "chmod", sys_chmod, "so" },
	{ SYS_fchmodat, "fchmodat", sys_fchmodat, "fso" },
	{ SYS_fchmodat2, "fchmodat2", sys_fchmodat2, "fsox" },
	{ SYS_chown, "chown", sys_chown, "sdd" },
	{ SYS_lchown, "lchown", sys_lchown, "sdd" },
	{ SYS_fchownat, "fchownat", sys_fchownat, "fsddx" },
	{ SYS_utimensat, "utimensat", sys_utimensat, "fspx" },
	{ SYS_utime, "utime", sys_utime, "sp" },
	{ SYS_utimes, "utimes", sys_utimes, "sp" },
	{ SYS_truncate, "truncate", sys_truncate, "sd" },
	{ SYS_link, "link", sys_link, "ss" },
	{ SYS_linkat, "linkat", sys_linkat, "fsfsx" },
	{ SYS_symlink, "symlink", sys_symlink, "ss" },
	{ SYS_symlinkat, "symlinkat", sys_symlinkat, "sfs" },
	{ SYS_statfs, "statfs", sys_statfs, "sp" },
};

void ua__lx_fs_init(void)
{
	LX_REGISTER(calls);
}
