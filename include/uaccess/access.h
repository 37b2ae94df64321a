/* SPDX-License-Identifier: MIT */
/*
 * Range checks and checked accessors.  Each checked accessor checks the
 * range against the current space, opens its own window, does the access
 * with fault recovery and closes the window (two protection switches).
 * Byte counts are exact at every fault offset.
 */
#ifndef UACCESS_ACCESS_H
#define UACCESS_ACCESS_H

#include <uaccess/compiler.h>

UA_BEGIN_DECLS

/**
 * ua_access_ok() - is [ptr, ptr+len) inside the current space?
 * @ptr: guest pointer
 * @len: length in bytes
 *
 * Overflow-safe; a zero length at the limit is accepted.  Without a current
 * space nothing is accepted, and a monitor pointer never is.  Does not check
 * that the memory is mapped.  Async-signal-safe.
 */
UA_EXPORT bool ua_access_ok(const void *ptr, size_t len);

/**
 * ua_mask_user_address() - clamp a pointer to the current space
 * @ptr: guest pointer
 *
 * Branch-free: returns @ptr when it lies in [base, limit], else the limit,
 * which is inside the guard gap so a dense upward access faults.  Without a
 * current space returns an address that always faults.
 */
UA_EXPORT void *ua_mask_user_address(const void *ptr);

/* Internal out-of-line halves of the macros below. */
UA_EXPORT int ua__get_user(unsigned long *v, const void *ptr, size_t size);
UA_EXPORT int ua__put_user(unsigned long v, void *ptr, size_t size);

/**
 * ua_get_user() - read one value from guest memory
 * @x: lvalue receiving the value (set to 0 on failure)
 * @ptr: guest pointer; its type gives the size (1, 2, 4 or 8 bytes)
 *
 * Return: 0, or -EFAULT.
 */
#define ua_get_user(x, ptr)                                                \
	({                                                                 \
		unsigned long __ua_gv = 0;                                 \
		int __ua_ge;                                               \
		_Static_assert(ua__size_ok(ptr),                           \
			       "ua_get_user: size must be 1, 2, 4 or 8");  \
		__ua_ge = ua__get_user(&__ua_gv, (ptr), sizeof(*(ptr)));   \
		(x) = ua__from_bits(ptr, __ua_gv);                         \
		__ua_ge;                                                   \
	})

/**
 * ua_put_user() - write one value to guest memory
 * @x: the value, converted to the type of *@ptr
 * @ptr: guest pointer; its type gives the size (1, 2, 4 or 8 bytes)
 *
 * Return: 0, or -EFAULT (guest memory untouched).
 */
#define ua_put_user(x, ptr)                                                \
	({                                                                 \
		ua__unqual_typeof(ptr) __ua_pv = (x);                      \
		_Static_assert(ua__size_ok(ptr),                           \
			       "ua_put_user: size must be 1, 2, 4 or 8");  \
		ua__put_user(ua__to_bits(ptr, __ua_pv), (ptr),             \
			     sizeof(*(ptr)));                              \
	})

/**
 * ua_copy_from_user() - copy a block from guest memory
 * @to: monitor destination, @n bytes
 * @from: guest source
 * @n: bytes to copy
 *
 * On a fault the uncopied tail of @to is zero-filled; when the range check
 * fails all of @to is zeroed.  As the kernel's check_copy_size(), an @n
 * above INT_MAX is refused with @to left untouched.
 *
 * Return: the number of bytes NOT copied (0 on success), exact.
 */
UA_EXPORT UA_MUST_CHECK size_t ua_copy_from_user(void *to,
						 const void *from, size_t n);

/**
 * ua_copy_to_user() - copy a block to guest memory
 * @to: guest destination
 * @from: monitor source
 * @n: bytes to copy
 *
 * An @n above INT_MAX is refused (nothing written), as in the kernel.
 *
 * Return: the number of bytes NOT copied, exact; the copied prefix stays.
 */
UA_EXPORT UA_MUST_CHECK size_t ua_copy_to_user(void *to, const void *from,
					       size_t n);

/**
 * ua_clear_user() - zero a block of guest memory
 * @to: guest destination
 * @n: bytes
 *
 * Return: the number of bytes NOT cleared, exact.
 */
UA_EXPORT size_t ua_clear_user(void *to, size_t n);

/**
 * ua_strncpy_from_user() - copy a NUL-terminated string from the guest
 * @dst: monitor buffer of @count bytes
 * @src: guest string
 * @count: maximum bytes to copy
 *
 * Return: the length without the NUL when one is found within @count (dst
 * is terminated); @count when there is none (dst is NOT terminated);
 * -EFAULT on a fault or at the end of the space (bytes read so far stay in
 * @dst).  0 when @count <= 0.
 */
UA_EXPORT long ua_strncpy_from_user(char *dst, const char *src, long count);

/**
 * ua_strnlen_user() - length of a guest string
 * @src: guest string
 * @n: maximum bytes to examine
 *
 * Return: the length INCLUDING the NUL; a value > @n when there is no NUL
 * within @n bytes; 0 on a fault or when @n <= 0.
 */
UA_EXPORT long ua_strnlen_user(const char *src, long n);

/**
 * ua_check_zeroed_user() - are all bytes of a guest range zero?
 * @from: guest pointer
 * @size: bytes; 0 returns 1 without touching memory
 *
 * Return: 1 when all bytes are zero, 0 when one is not, -EFAULT.
 */
UA_EXPORT int ua_check_zeroed_user(const void *from, size_t size);

/**
 * ua_copy_struct_from_user() - copy an extensible struct from the guest
 * @dst: monitor struct of @ksize bytes
 * @ksize: size the monitor knows
 * @src: guest struct
 * @usize: size the guest passed
 *
 * A shorter guest struct leaves the rest of @dst zeroed; a longer one is
 * accepted only when its extra bytes are zero.
 *
 * Return: 0, -E2BIG (non-zero trailing guest bytes) or -EFAULT.
 */
UA_EXPORT int ua_copy_struct_from_user(void *dst, size_t ksize,
				       const void *src, size_t usize);

UA_END_DECLS

#endif /* UACCESS_ACCESS_H */
