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
#include <unistd.h>

#include "linux_internal.h"

/* getname(): -EFAULT, -ENAMETOOLONG, -ENOENT for an empty path. */
static long get_path(char *buf, uint64_t upath)
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
static int host_dirfd(struct ua_task *t, long dfd, int *out)
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

static long do_openat(struct ua_task *t, long dfd, uint64_t upath, int flags,
		      int mode)
{
	char path[PATH_MAX];
	struct lx_file f = { .kind = LX_FD_HOST };
	int hdfd, fd;
	long err;

	err = get_path(path, upath);
	if (!err)
		err = host_dirfd(t, dfd, &hdfd);
	if (err)
		return err;
	f.cloexec = flags & O_CLOEXEC;
	f.flags = flags;
	if (!strcmp(path, "/dev/null"))
		f.kind = LX_FD_NULL;
	else if (!strcmp(path, "/dev/zero"))
		f.kind = LX_FD_ZERO;
	if (f.kind == LX_FD_HOST) {
		f.host = openat(hdfd, path, flags | O_CLOEXEC, mode);
		if (f.host < 0)
			return -errno;
		/* Host descriptors 0-2 are the monitor's own. */
		if (f.host < 3) {
			int h = fcntl(f.host, F_DUPFD_CLOEXEC, 3);

			close(f.host);
			if (h < 0)
				return -errno;
			f.host = h;
		}
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

static long do_fstatat(struct ua_task *t, long dfd, uint64_t upath,
		       void *ust, int flags)
{
	char path[PATH_MAX];
	struct stat st;
	int hdfd = AT_FDCWD;
	long err;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT))
		return -EINVAL;
	err = host_dirfd(t, dfd, &hdfd);
	if (err && !((flags & AT_EMPTY_PATH) && err == -ENOTDIR))
		return err;
	err = get_path(path, upath);
	if (err == -ENOENT && (flags & AT_EMPTY_PATH)) {
		struct ua_pt_regs tmp = { .rdi = (uint64_t)dfd,
					  .rsi = (uint64_t)ust };

		return ua__lx_fstat(t, &tmp);
	}
	if (err)
		return err;
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

	err = get_path(path, ARG2(r));
	if (err == -ENOENT && (flags & AT_EMPTY_PATH)) {
		path[0] = 0;
		err = 0;
	}
	if (!err)
		err = host_dirfd(t, (int)ARG1(r), &hdfd);
	if (err)
		return err;
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
	if (count > (64 << 10))
		count = 64 << 10;
	buf = malloc(count ? count : 1);
	if (!buf)
		return -ENOMEM;
	n = getdents64(f->host, buf, count);
	if (n < 0)
		n = -errno;
	else if (ua_copy_to_user((void *)ARG2(r), buf, (size_t)n))
		n = -EFAULT;
	free(buf);
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
	err = get_path(path, upath);
	if (!err)
		err = host_dirfd(t, dfd, &hdfd);
	if (err)
		return err;
	/* The program's own file, not the monitor's. */
	if (!strcmp(path, "/proc/self/exe")) {
		if (!realpath(lx_proc(t)->execfn, out))
			return -ENOENT;
		n = (ssize_t)strlen(out);
	} else {
		n = readlinkat(hdfd, path, out, sizeof(out));
	}
	if (n < 0)
		return -errno;
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
	long err = get_path(path, ARG1(r));

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
	err = get_path(path, upath);
	if (!err)
		err = host_dirfd(t, dfd, &hdfd);
	if (err)
		return err;
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
	err = get_path(path, upath);
	if (!err)
		err = host_dirfd(t, dfd, &hdfd);
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

	err = get_path(path, upath);
	if (!err)
		err = host_dirfd(t, dfd, &hdfd);
	if (err)
		return err;
	return mkdirat(hdfd, path, (mode_t)mode) ? -errno : 0;
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

	err = get_path(from, uold);
	if (!err)
		err = get_path(to, unew);
	if (!err)
		err = host_dirfd(t, odfd, &hodfd);
	if (!err)
		err = host_dirfd(t, ndfd, &hndfd);
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
	{ SYS_rename, "rename", sys_rename, "ss" },
	{ SYS_renameat, "renameat", sys_renameat, "fsfs" },
	{ SYS_renameat2, "renameat2", sys_renameat2, "fsfsx" },
};

void ua__lx_fs_init(void)
{
	LX_REGISTER(calls);
}
