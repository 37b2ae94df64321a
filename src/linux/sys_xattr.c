// SPDX-License-Identifier: MIT
/*
 * Extended attributes (fs/xattr.c) on the host's files: by path
 * (following links or not) or by descriptor.  The name is copied in as
 * import_xattr_name() does, values and lists move through a monitor
 * buffer of at most XATTR_SIZE_MAX bytes, and the host's answer (ENODATA,
 * ENOTSUP, ERANGE, the size) is the guest's.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "linux_internal.h"

/* include/uapi/linux/limits.h */
#define LX_XATTR_NAME_MAX 255
#define LX_XATTR_SIZE_MAX 65536

enum xattr_on { ON_PATH, ON_LINK, ON_FD };

/* A name of 1..255 bytes: ERANGE otherwise, as the kernel. */
static long get_name(char *name, uint64_t uname)
{
	long n = ua_strncpy_from_user(name, (const char *)uname,
				      LX_XATTR_NAME_MAX + 1);

	if (n < 0)
		return n;
	if (!n || n > LX_XATTR_NAME_MAX)
		return -ERANGE;
	return 0;
}

/*
 * The file the call names: a path (copied into path) or the host side
 * of a descriptor (*fd, to release with ua__lx_host_fd_put()).
 */
static long target(struct ua_task *t, enum xattr_on on, uint64_t arg,
		   char *path, int *fd)
{
	*fd = -1;
	if (on != ON_FD)
		return ua__lx_get_path(path, arg);
	*fd = ua__lx_host_fd_get(t, (int)arg);
	return *fd < 0 ? *fd : 0;
}

static void target_put(struct ua_task *t, uint64_t arg, int fd)
{
	if (fd >= 0)
		ua__lx_host_fd_put(t, (int)arg, fd);
}

/* The monitor buffer for size bytes of value or list, or NULL for 0. */
static long xbuf(size_t size, char **out)
{
	*out = NULL;
	if (!size)
		return 0;
	if (size > LX_XATTR_SIZE_MAX)
		size = LX_XATTR_SIZE_MAX;
	*out = malloc(size);
	return *out ? (long)size : -ENOMEM;
}

/* A value or list the host gave: its size, to the guest; buf freed. */
static long host_result(long ret, char *buf, uint64_t ubuf)
{
	if (ret < 0)
		ret = -errno;
	else if (ret > 0 && buf && ua_copy_to_user((void *)ubuf, buf,
						   (size_t)ret))
		ret = -EFAULT;
	free(buf);
	return ret;
}

static long do_getxattr(struct ua_task *t, struct ua_pt_regs *r,
			enum xattr_on on)
{
	char path[PATH_MAX], name[LX_XATTR_NAME_MAX + 1], *buf = NULL;
	long ret, size = 0;
	int fd;

	ret = target(t, on, ARG1(r), path, &fd);
	if (!ret)
		ret = get_name(name, ARG2(r));
	if (!ret)
		ret = size = xbuf(ARG4(r), &buf);
	if (ret < 0)
		goto out;
	ret = on == ON_FD ? fgetxattr(fd, name, buf, (size_t)size) :
	      on == ON_LINK ? lgetxattr(path, name, buf, (size_t)size) :
			      getxattr(path, name, buf, (size_t)size);
	ret = host_result(ret, buf, ARG3(r));
out:
	target_put(t, ARG1(r), fd);
	return ret;
}

static long do_listxattr(struct ua_task *t, struct ua_pt_regs *r,
			 enum xattr_on on)
{
	char path[PATH_MAX], *buf = NULL;
	long ret, size = 0;
	int fd;

	ret = target(t, on, ARG1(r), path, &fd);
	if (!ret)
		ret = size = xbuf(ARG3(r), &buf);
	if (ret < 0)
		goto out;
	ret = on == ON_FD ? flistxattr(fd, buf, (size_t)size) :
	      on == ON_LINK ? llistxattr(path, buf, (size_t)size) :
			      listxattr(path, buf, (size_t)size);
	ret = host_result(ret, buf, ARG2(r));
out:
	target_put(t, ARG1(r), fd);
	return ret;
}

/* setxattr(): flags first, then the name, then a value of at most 64 KiB. */
static long do_setxattr(struct ua_task *t, struct ua_pt_regs *r,
			enum xattr_on on)
{
	char path[PATH_MAX], name[LX_XATTR_NAME_MAX + 1], *buf = NULL;
	size_t size = ARG4(r);
	int flags = (int)ARG5(r), fd;
	long ret;

	if (flags & ~(XATTR_CREATE | XATTR_REPLACE))
		return -EINVAL;
	ret = target(t, on, ARG1(r), path, &fd);
	if (!ret)
		ret = get_name(name, ARG2(r));
	if (!ret && size > LX_XATTR_SIZE_MAX)
		ret = -E2BIG;
	if (!ret && size) {
		buf = malloc(size);
		if (!buf)
			ret = -ENOMEM;
		else if (ua_copy_from_user(buf, (const void *)ARG3(r), size))
			ret = -EFAULT;
	}
	if (!ret) {
		ret = on == ON_FD ? fsetxattr(fd, name, buf, size, flags) :
		      on == ON_LINK ? lsetxattr(path, name, buf, size, flags) :
				      setxattr(path, name, buf, size, flags);
		if (ret < 0)
			ret = -errno;
	}
	free(buf);
	target_put(t, ARG1(r), fd);
	return ret;
}

static long do_removexattr(struct ua_task *t, struct ua_pt_regs *r,
			   enum xattr_on on)
{
	char path[PATH_MAX], name[LX_XATTR_NAME_MAX + 1];
	long ret;
	int fd;

	ret = target(t, on, ARG1(r), path, &fd);
	if (!ret)
		ret = get_name(name, ARG2(r));
	if (!ret) {
		ret = on == ON_FD ? fremovexattr(fd, name) :
		      on == ON_LINK ? lremovexattr(path, name) :
				      removexattr(path, name);
		if (ret < 0)
			ret = -errno;
	}
	target_put(t, ARG1(r), fd);
	return ret;
}

#define XATTR_CALLS(op)                                                 \
	static long sys_##op(struct ua_task *t, struct ua_pt_regs *r)   \
	{                                                               \
		return do_##op(t, r, ON_PATH);                          \
	}                                                               \
	static long sys_l##op(struct ua_task *t, struct ua_pt_regs *r)  \
	{                                                               \
		return do_##op(t, r, ON_LINK);                          \
	}                                                               \
	static long sys_f##op(struct ua_task *t, struct ua_pt_regs *r)  \
	{                                                               \
		return do_##op(t, r, ON_FD);                            \
	}

XATTR_CALLS(getxattr)
XATTR_CALLS(listxattr)
XATTR_CALLS(setxattr)
XATTR_CALLS(removexattr)

static const struct lx_call calls[] = {
	{ SYS_getxattr, "getxattr", sys_getxattr, "sspu" },
	{ SYS_lgetxattr, "lgetxattr", sys_lgetxattr, "sspu" },
	{ SYS_fgetxattr, "fgetxattr", sys_fgetxattr, "fspu" },
	{ SYS_listxattr, "listxattr", sys_listxattr, "spu" },
	{ SYS_llistxattr, "llistxattr", sys_llistxattr, "spu" },
	{ SYS_flistxattr, "flistxattr", sys_flistxattr, "fpu" },
	{ SYS_setxattr, "setxattr", sys_setxattr, "sspux" },
	{ SYS_lsetxattr, "lsetxattr", sys_lsetxattr, "sspux" },
	{ SYS_fsetxattr, "fsetxattr", sys_fsetxattr, "fspux" },
	{ SYS_removexattr, "removexattr", sys_removexattr, "ss" },
	{ SYS_lremovexattr, "lremovexattr", sys_lremovexattr, "ss" },
	{ SYS_fremovexattr, "fremovexattr", sys_fremovexattr, "fs" },
};

void ua__lx_xattr_init(void)
{
	LX_REGISTER(calls);
}
