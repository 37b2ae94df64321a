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

/*
 * Internal: the calling thread's current space as [base, base + size),
 * written by ua_space_use() alone ({0, 0} with no current space), for the
 * inline range check below.  Initial-exec, as the library's own thread
 * state is: loading libuaccess already takes static TLS.
 */
struct ua__cur_range {
	uintptr_t base;
	size_t size;
};
UA_EXPORT extern __thread struct ua__cur_range ua__cur_range
	__attribute__((tls_model("initial-exec")));

/*
 * Internal: ua_access_ok() inline for the common case.  It accepts only
 * what ua_access_ok() accepts, and sends the rest (a zero length at the
 * limit included) to the caller's out-of-line path, which gives the
 * answer and, with UA_DEBUG=1, the reason.
 */
static inline bool ua__cur_range_has(const void *ptr, size_t len)
{
	uintptr_t off = (uintptr_t)ptr - ua__cur_range.base;

	return off < ua__cur_range.size && len <= ua__cur_range.size - off;
}

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
 * above INT_MAX is refused with @to left untouched, and so is an @n larger
 * than the monitor buffer where the compiler knows its size (see below).
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
 * An @n above INT_MAX is refused (nothing written), as in the kernel, and
 * so is an @n larger than a monitor buffer of known size (see below).
 *
 * Return: the number of bytes NOT copied, exact; the copied prefix stays.
 */
UA_EXPORT UA_MUST_CHECK size_t ua_copy_to_user(void *to, const void *from,
					       size_t n);

/*
 * Monitor-buffer size checks of the two block copies, as the kernel's
 * check_copy_size(): when the compiler knows the size of the monitor
 * object (an array, a struct, a malloc() of known size; with
 * __builtin_dynamic_object_size also a run-time size) and it is smaller
 * than @n (up to INT_MAX: a larger @n is refused anyway), the copy is
 * refused.  Both sizes constant (optimising builds):
 * a compile-time error.  Otherwise: a report on stderr and the copy
 * returns @n with nothing copied and the monitor buffer untouched.
 * Where the size is not known nothing is checked.  Define
 * UA_NO_COPY_SIZE_CHECK before including <uaccess.h> to turn it off.
 */
UA_EXPORT size_t ua__copy_overflow(size_t size, size_t n, bool to_user);
#ifndef UA_NO_COPY_SIZE_CHECK
#if defined(__has_builtin)
#if __has_builtin(__builtin_dynamic_object_size)
#define ua__object_size(p) __builtin_dynamic_object_size(p, 0)
#endif
#endif
#ifndef ua__object_size
#define ua__object_size(p) __builtin_object_size(p, 0)
#endif

/* Without the attribute the call is left undefined: a link error. */
#if defined(__has_attribute)
#if __has_attribute(error)
#define ua__copy_error(msg) __attribute__((error(msg)))
#endif
#endif
#ifndef ua__copy_error
#define ua__copy_error(msg)
#endif
extern void ua__bad_copy_from(void)
	ua__copy_error("ua_copy_from_user: destination buffer smaller than n");
extern void ua__bad_copy_to(void)
	ua__copy_error("ua_copy_to_user: source buffer smaller than n");

static __inline__ __attribute__((always_inline)) bool
ua__copy_size_ok(size_t size, size_t n, bool to_user)
{
	/* An n above INT_MAX is refused by the copy itself, untouched. */
	if (ua_likely(size >= n) || n > 0x7fffffff)
		return true;
#ifdef __OPTIMIZE__
	if (__builtin_constant_p(size) && __builtin_constant_p(n)) {
		if (to_user)
			ua__bad_copy_to();
		else
			ua__bad_copy_from();
	}
#endif
	ua__copy_overflow(size, n, to_user);
	return false;
}

static __inline__ __attribute__((always_inline)) UA_MUST_CHECK size_t
ua__copy_from_user_checked(void *to, const void *from, size_t n,
			   size_t size)
{
	if (!ua__copy_size_ok(size, n, false))
		return n;
	return (ua_copy_from_user)(to, from, n);
}

static __inline__ __attribute__((always_inline)) UA_MUST_CHECK size_t
ua__copy_to_user_checked(void *to, const void *from, size_t n, size_t size)
{
	if (!ua__copy_size_ok(size, n, true))
		return n;
	return (ua_copy_to_user)(to, from, n);
}

#define ua_copy_from_user(to, from, n) \
	ua__copy_from_user_checked(to, from, n, ua__object_size(to))
#define ua_copy_to_user(to, from, n) \
	ua__copy_to_user_checked(to, from, n, ua__object_size(from))
#endif /* UA_NO_COPY_SIZE_CHECK */

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
