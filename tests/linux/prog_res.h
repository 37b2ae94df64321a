/* SPDX-License-Identifier: MIT */
/*
 * Errno names for the test programs' output (strerrorname_np() is
 * glibc's only), the same natively and under uarun.
 */
#ifndef PROG_RES_H
#define PROG_RES_H

#include <errno.h>
#include <stdio.h>

#define PROG_ERRNO(e) { e, #e }

static const struct {
	int e;
	const char *name;
} prog_errnos[] = {
	PROG_ERRNO(EINVAL),
	PROG_ERRNO(EFAULT),
	PROG_ERRNO(ENOENT),
	PROG_ERRNO(EAGAIN),
	PROG_ERRNO(ETIMEDOUT),
	PROG_ERRNO(EINTR),
	PROG_ERRNO(ENOSYS),
	PROG_ERRNO(EBADF),
	PROG_ERRNO(ENOTDIR),
	PROG_ERRNO(EEXIST),
	PROG_ERRNO(EPERM),
	PROG_ERRNO(ESRCH),
	PROG_ERRNO(ENOMEM),
	PROG_ERRNO(EMFILE),
	PROG_ERRNO(EOPNOTSUPP),
	PROG_ERRNO(ENODEV),
};

/* errno e by name, or its value. */
static inline const char *errno_name(int e)
{
	static char buf[32];

	for (size_t i = 0; i < sizeof(prog_errnos) / sizeof(prog_errnos[0]);
	     i++)
		if (prog_errnos[i].e == e)
			return prog_errnos[i].name;
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

#endif /* PROG_RES_H */
