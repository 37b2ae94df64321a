/* SPDX-License-Identifier: MIT */
/*
 * Nofault accessors: read or write any monitor address without ever
 * crashing, from any context, signal handlers included.  Guest-space
 * addresses are refused with -ERANGE (they have their own accessors), as
 * the kernel refuses user addresses in copy_from_kernel_nofault().
 * All calls here are async-signal-safe once ua_init() has run.
 */
#ifndef UACCESS_NOFAULT_H
#define UACCESS_NOFAULT_H

#include <uaccess/compiler.h>

UA_BEGIN_DECLS

/**
 * ua_copy_from_kernel_nofault() - copy from a monitor address that may fault
 * @dst: destination
 * @src: source, any address outside every guest space
 * @n: bytes
 *
 * The range check runs before the size is looked at, so a guest address
 * with @n == 0 is still -ERANGE.  No zero-fill on a fault.
 *
 * Return: 0, -EFAULT, or -ERANGE when [@src, @src+@n) touches a guest
 * space (guard gap included).
 */
UA_EXPORT long ua_copy_from_kernel_nofault(void *dst, const void *src,
					   size_t n);

/**
 * ua_copy_to_kernel_nofault() - copy to a monitor address that may fault
 * @dst: destination, any address outside every guest space
 * @src: source
 * @n: bytes
 *
 * Return: 0, -EFAULT, or -ERANGE when @dst lies in a guest space.
 */
UA_EXPORT long ua_copy_to_kernel_nofault(void *dst, const void *src,
					 size_t n);

/**
 * ua_strncpy_from_kernel_nofault() - copy a string from a monitor address
 * @dst: destination of @count bytes
 * @src: source string
 * @count: maximum bytes, NUL included
 *
 * Return: the length INCLUDING the NUL; @count on truncation (with
 * dst[count-1] = 0); -EFAULT (the partial string is terminated at the
 * faulting position); -ERANGE for a guest address; 0 when @count <= 0.
 */
UA_EXPORT long ua_strncpy_from_kernel_nofault(char *dst, const void *src,
					      long count);

/**
 * ua_copy_from_user_nofault() - copy from the current space, never faulting
 * @dst: monitor destination
 * @src: guest source
 * @n: bytes
 *
 * Opens and closes its own read window.
 *
 * Return: 0 or -EFAULT (no zero-fill, not a byte count).
 */
UA_EXPORT long ua_copy_from_user_nofault(void *dst, const void *src,
					 size_t n);

/**
 * ua_get_kernel_nofault() - read one value from a monitor address
 * @x: lvalue receiving the value
 * @ptr: source pointer; its type gives the size
 *
 * Return: 0, -EFAULT or -ERANGE (guest-space address).
 */
#define ua_get_kernel_nofault(x, ptr)                                        \
	({                                                                   \
		union {                                                      \
			__typeof__(*(ptr)) v;                                \
			char b[sizeof(*(ptr))];                              \
		} __ua_ku;                                                   \
		long __ua_ke = ua_copy_from_kernel_nofault(                  \
			__ua_ku.b, (ptr), sizeof(__ua_ku.b));                \
		if (!__ua_ke)                                                \
			(x) = __ua_ku.v;                                     \
		(int)__ua_ke;                                                \
	})

UA_END_DECLS

#endif /* UACCESS_NOFAULT_H */
