// SPDX-License-Identifier: MIT
/*
 * Checked accessors: each one checks the range against the current space,
 * opens its own window, does the access with fault recovery and closes the
 * window.  Semantics follow the kernel's lib/usercopy.c and the x86 copy
 * routines, with byte counts that are exact at every fault offset.
 */
#include <errno.h>
#include <execinfo.h>
#include <limits.h>
#include <string.h>

#include "../internal.h"

int ua__get_user(unsigned long *v, const void *ptr, size_t size)
{
	if (!ua_user_read_access_begin(ptr, size))
		goto efault;
	switch (size) {
	case 1:
		ua_unsafe_get_user(*v, (const uint8_t *)ptr, fault);
		break;
	case 2:
		ua_unsafe_get_user(*v, (const uint16_t *)ptr, fault);
		break;
	case 4:
		ua_unsafe_get_user(*v, (const uint32_t *)ptr, fault);
		break;
	default:
		ua_unsafe_get_user(*v, (const uint64_t *)ptr, fault);
		break;
	}
	ua_user_read_access_end();
	return 0;
fault:
	ua_user_read_access_end();
efault:
	*v = 0;
	return -EFAULT;
}

int ua__put_user(unsigned long v, void *ptr, size_t size)
{
	if (!ua_user_write_access_begin(ptr, size))
		return -EFAULT;
	switch (size) {
	case 1:
		ua_unsafe_put_user((uint8_t)v, (uint8_t *)ptr, fault);
		break;
	case 2:
		ua_unsafe_put_user((uint16_t)v, (uint16_t *)ptr, fault);
		break;
	case 4:
		ua_unsafe_put_user((uint32_t)v, (uint32_t *)ptr, fault);
		break;
	default:
		ua_unsafe_put_user((uint64_t)v, (uint64_t *)ptr, fault);
		break;
	}
	ua_user_write_access_end();
	return 0;
fault:
	ua_user_write_access_end();
	return -EFAULT;
}

/*
 * The kernel's check_copy_size() refuses n > INT_MAX before anything else
 * and leaves the destination alone: such an n is a length computed from
 * guest input (or one that wraps), and zero-filling it would run the memset
 * far past the monitor's buffer.
 */
static inline bool copy_size_bad(size_t n)
{
	return ua_unlikely(n > INT_MAX);
}

size_t(ua_copy_from_user)(void *to, const void *from, size_t n)
{
	size_t left;

	if (!n || copy_size_bad(n))
		return n;
	if (!ua_user_read_access_begin(from, n)) {
		memset(to, 0, n);
		return n;
	}
	left = ua__raw_copy(to, from, n);
	ua_user_read_access_end();
	if (left)
		memset((char *)to + (n - left), 0, left);
	return left;
}

size_t(ua_copy_to_user)(void *to, const void *from, size_t n)
{
	size_t left;

	if (!n || copy_size_bad(n))
		return n;
	if (!ua_user_write_access_begin(to, n))
		return n;
	left = ua__raw_copy(to, from, n);
	ua_user_write_access_end();
	return left;
}

/*
 * The run-time half of the header's size check (the kernel's
 * copy_overflow(), a warning with a trace; the copy does not happen).
 * Async-signal-safe apart from backtrace(), which the fault handler's
 * set-up has already loaded.
 */
size_t ua__copy_overflow(size_t size, size_t n, bool to_user)
{
	void *frames[16];
	char buf[24];
	int depth;

	ua__write_str(2, to_user ? "uaccess: ua_copy_to_user: buffer "
				   "overflow detected: the source has " :
				   "uaccess: ua_copy_from_user: buffer "
				   "overflow detected: the destination has ");
	ua__write_str(2, ua__fmt_dec(buf, size));
	ua__write_str(2, " bytes, ");
	ua__write_str(2, ua__fmt_dec(buf, n));
	ua__write_str(2, " were asked for; nothing copied\n"
			 "uaccess: call trace:\n");
	depth = backtrace(frames, 16);
	backtrace_symbols_fd(frames, depth, 2);
	return n;
}

size_t ua_clear_user(void *to, size_t n)
{
	return ua__clear_user(to, n);
}

size_t ua__clear_user_rest(char *to, size_t n)
{
	size_t left = ua__raw_clear(to, n);

	ua__lean_window_close(&ua_self);
	return left;
}

size_t ua__clear_user_slow(void *to, size_t n)
{
	size_t left;

	if (!n)
		return 0;
	if (!UA_DEBUG_WINDOWS && ua__pkey_clear_lean(to, n, &left))
		return left;
	if (!ua_user_write_access_begin(to, n))
		return n;
	left = ua__raw_clear(to, n);
	ua_user_write_access_end();
	return left;
}

/* copy_from_user without the zero-fill: for iov_iter's short counts. */
size_t ua__copy_from_user_nozero(void *to, const void *from, size_t n)
{
	size_t left;

	if (!n)
		return 0;
	if (!ua_user_read_access_begin(from, n))
		return n;
	left = ua__raw_copy(to, from, n);
	ua_user_read_access_end();
	return left;
}
