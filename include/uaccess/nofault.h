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

#include <errno.h>

#include <uaccess/compiler.h>
#include <uaccess/arch.h>

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

/*
 * The inline fast path of ua_get_kernel_nofault(): the library keeps one
 * range covering every guest space (guard gaps included) that ever
 * existed; an address outside it needs no registry lookup.  Anything
 * else, and the first call before ua_init(), takes the out-of-line path.
 */
UA_EXPORT extern uintptr_t ua__nofault_lo, ua__nofault_hi;
UA_EXPORT extern int ua__nofault_ready;

static inline bool ua__nofault_fast_ok(const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p;
	uintptr_t lo = __atomic_load_n(&ua__nofault_lo, __ATOMIC_RELAXED);

	if (ua_unlikely(!__atomic_load_n(&ua__nofault_ready, __ATOMIC_ACQUIRE)))
		return false;
	return a >= __atomic_load_n(&ua__nofault_hi, __ATOMIC_RELAXED) ||
	       (a < lo && lo - a >= n);
}

/* Store the low size bytes of v's value at b, whatever the byte order. */
static inline void ua__store_sized(void *b, unsigned long v, size_t size)
{
	uint8_t v1 = (uint8_t)v;
	uint16_t v2 = (uint16_t)v;
	uint32_t v4 = (uint32_t)v;
	uint64_t v8 = (uint64_t)v;

	switch (size) {
	case 1: __builtin_memcpy(b, &v1, 1); break;
	case 2: __builtin_memcpy(b, &v2, 2); break;
	case 4: __builtin_memcpy(b, &v4, 4); break;
	case 8: __builtin_memcpy(b, &v8, 8); break;
	}
}

/**
 * ua_get_kernel_nofault() - read one value from a monitor address
 * @x: lvalue receiving the value (unchanged on failure)
 * @ptr: source pointer; its type gives the size
 *
 * For sizes 1, 2, 4 and 8 at an address outside every guest space the
 * read is inline: one move with an exception-table entry.
 *
 * Return: 0, -EFAULT or -ERANGE (guest-space address).
 */
#define ua_get_kernel_nofault(x, ptr)                                        \
	({                                                                   \
		__label__ __ua_kfault;                                       \
		union {                                                      \
			__typeof__((void)0, *(ptr)) v;                       \
			char b[sizeof(*(ptr))];                              \
		} __ua_ku;                                                   \
		long __ua_ke = 0;                                            \
		if (ua__size_ok(ptr) &&                                      \
		    ua__nofault_fast_ok((ptr), sizeof(*(ptr)))) {            \
			do {                                                 \
				__typeof__(&*(ptr)) __ua_kp = (ptr);         \
				unsigned long __ua_kv;                       \
				/* Hide a constant address from the     */   \
				/* compiler's bounds warnings.          */   \
				__asm__("" : "+r"(__ua_kp));                 \
				ua__arch_get(__ua_kv, __ua_kp, __ua_kfault); \
				ua__store_sized(__ua_ku.b, __ua_kv,          \
						sizeof(*(ptr)));             \
				(x) = __ua_ku.v;                             \
				break;                                       \
			__ua_kfault:                                         \
				__ua_ke = -EFAULT;                           \
			} while (0);                                         \
		} else {                                                     \
			__ua_ke = ua_copy_from_kernel_nofault(               \
				__ua_ku.b, (ptr), sizeof(__ua_ku.b));        \
			if (!__ua_ke)                                        \
				(x) = __ua_ku.v;                             \
		}                                                            \
		(int)__ua_ke;                                                \
	})

UA_END_DECLS

#endif /* UACCESS_NOFAULT_H */
