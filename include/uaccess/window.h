/* SPDX-License-Identifier: MIT */
/*
 * Access windows and the unsafe accessors that run inside them.
 *
 * begin checks the range against the current space and opens the window
 * (a protection switch under a real backend); the unsafe accessors then
 * touch guest memory with no check and no call on the success path, and
 * jump to a label on a fault with the window still open; end closes it.
 */
#ifndef UACCESS_WINDOW_H
#define UACCESS_WINDOW_H

#include <string.h>

#include <uaccess/config.h>
#include <uaccess/compiler.h>
#include <uaccess/arch.h>

UA_BEGIN_DECLS

/* Window kinds, as bits: read, write, both. */
#define UA_WIN_READ 1
#define UA_WIN_WRITE 2
#define UA_WIN_RW (UA_WIN_READ | UA_WIN_WRITE)

/**
 * ua_user_read_access_begin() - open a read window over a guest range
 * @ptr: guest pointer
 * @len: bytes that will be read
 *
 * Return: true with the window open, or false (nothing opened) when the
 * range is not inside the current space.
 */
UA_EXPORT UA_MUST_CHECK bool ua_user_read_access_begin(const void *ptr,
						       size_t len);
/** ua_user_read_access_end() - close the read window */
UA_EXPORT void ua_user_read_access_end(void);

/** ua_user_write_access_begin() - open a write window; see the read form */
UA_EXPORT UA_MUST_CHECK bool ua_user_write_access_begin(void *ptr,
							size_t len);
/** ua_user_write_access_end() - close the write window */
UA_EXPORT void ua_user_write_access_end(void);

/** ua_user_access_begin() - open a read-write window; see the read form */
UA_EXPORT UA_MUST_CHECK bool ua_user_access_begin(void *ptr, size_t len);
/** ua_user_access_end() - close the read-write window */
UA_EXPORT void ua_user_access_end(void);

/**
 * ua__raw_copy() - copy with fault recovery, no checks, no window
 * Return: bytes not copied, exact.  Internal to the inline accessors.
 */
UA_EXPORT size_t ua__raw_copy(void *dst, const void *src, size_t n);

/* Debug-build hooks (UA_DEBUG_WINDOWS): report and abort on misuse. */
UA_EXPORT void ua__window_check(const void *p, size_t n, int kind,
				const char *file, int line);
UA_EXPORT bool ua__access_begin_dbg(int kind, const void *ptr, size_t len,
				    const char *file, int line);
UA_EXPORT void ua__access_end_dbg(int kind, const char *file, int line);

UA_END_DECLS

#if UA_DEBUG_WINDOWS
#define ua_user_read_access_begin(p, n) \
	ua__access_begin_dbg(UA_WIN_READ, (p), (n), __FILE__, __LINE__)
#define ua_user_write_access_begin(p, n) \
	ua__access_begin_dbg(UA_WIN_WRITE, (p), (n), __FILE__, __LINE__)
#define ua_user_access_begin(p, n) \
	ua__access_begin_dbg(UA_WIN_RW, (p), (n), __FILE__, __LINE__)
#define ua_user_read_access_end() \
	ua__access_end_dbg(UA_WIN_READ, __FILE__, __LINE__)
#define ua_user_write_access_end() \
	ua__access_end_dbg(UA_WIN_WRITE, __FILE__, __LINE__)
#define ua_user_access_end() ua__access_end_dbg(UA_WIN_RW, __FILE__, __LINE__)
#define UA__CHECK(p, n, kind) \
	ua__window_check((p), (n), (kind), __FILE__, __LINE__)
#else
#define UA__CHECK(p, n, kind) ((void)0)
#endif

/*
 * The asm goto targets a local label and a plain goto then leaves for the
 * caller's label: GCC miscompiles and Clang rejects an asm goto that leaves
 * a cleanup scope directly (the kernel's uaccess.h does the same).
 */

/**
 * ua_unsafe_get_user() - load inside an open read window
 * @x: lvalue receiving the value (left unassigned on a fault)
 * @ptr: guest pointer; size 1, 2, 4 or 8 from its type
 * @label: where to jump on a fault
 */
#define ua_unsafe_get_user(x, ptr, label)                                  \
	do {                                                               \
		__label__ __ua_fault;                                      \
		unsigned long __ua_v;                                      \
		_Static_assert(ua__size_ok(ptr),                           \
			       "ua_unsafe_get_user: bad size");            \
		UA__CHECK((ptr), sizeof(*(ptr)), UA_WIN_READ);             \
		ua__arch_get(__ua_v, (ptr), __ua_fault);                   \
		(x) = ua__from_bits(ptr, __ua_v);                          \
		break;                                                     \
	__ua_fault:                                                        \
		goto label;                                                \
	} while (0)

/**
 * ua_unsafe_put_user() - store inside an open write window
 * @x: the value, converted to the type of *@ptr
 * @ptr: guest pointer; size 1, 2, 4 or 8 from its type
 * @label: where to jump on a fault
 */
#define ua_unsafe_put_user(x, ptr, label)                                  \
	do {                                                               \
		__label__ __ua_fault;                                      \
		ua__unqual_typeof(ptr) __ua_pv = (x);                      \
		_Static_assert(ua__size_ok(ptr),                           \
			       "ua_unsafe_put_user: bad size");            \
		UA__CHECK((ptr), sizeof(*(ptr)), UA_WIN_WRITE);            \
		ua__arch_put(ua__to_bits(ptr, __ua_pv), (ptr), __ua_fault); \
		break;                                                     \
	__ua_fault:                                                        \
		goto label;                                                \
	} while (0)

/* One move of a type at a constant offset: a load or a store with a fixup. */
#define ua__copy_chunk(dst, src, off, type, is_get, label)                   \
	do {                                                                 \
		if (is_get) {                                                \
			unsigned long __ua_cv;                               \
			type __ua_ct;                                        \
			ua__arch_get(__ua_cv, (const type *)((src) + (off)), \
				     label);                                 \
			__ua_ct = (type)__ua_cv;                             \
			memcpy((dst) + (off), &__ua_ct, sizeof(type));       \
		} else {                                                     \
			type __ua_ct;                                        \
			memcpy(&__ua_ct, (src) + (off), sizeof(type));       \
			ua__arch_put(__ua_ct, (type *)((dst) + (off)), label); \
		}                                                            \
	} while (0)

/*
 * A constant-size block of at most 64 bytes as 8/4/2/1-byte moves at
 * constant offsets.  Every condition folds at compile time; written
 * without loops because GCC 12 warns (-Wstringop-overflow) about the
 * leftover copies of an unrolled loop that cannot run.
 */
#define ua__copy_const(dst, src, n, is_get, label)                          \
	do {                                                                \
		if ((n) >= 8)                                               \
			ua__copy_chunk(dst, src, 0, uint64_t, is_get, label); \
		if ((n) >= 16)                                              \
			ua__copy_chunk(dst, src, 8, uint64_t, is_get, label); \
		if ((n) >= 24)                                              \
			ua__copy_chunk(dst, src, 16, uint64_t, is_get, label); \
		if ((n) >= 32)                                              \
			ua__copy_chunk(dst, src, 24, uint64_t, is_get, label); \
		if ((n) >= 40)                                              \
			ua__copy_chunk(dst, src, 32, uint64_t, is_get, label); \
		if ((n) >= 48)                                              \
			ua__copy_chunk(dst, src, 40, uint64_t, is_get, label); \
		if ((n) >= 56)                                              \
			ua__copy_chunk(dst, src, 48, uint64_t, is_get, label); \
		if ((n) >= 64)                                              \
			ua__copy_chunk(dst, src, 56, uint64_t, is_get, label); \
		if ((n) & 4)                                                \
			ua__copy_chunk(dst, src, (n) & ~(size_t)7, uint32_t, \
				       is_get, label);                      \
		if ((n) & 2)                                                \
			ua__copy_chunk(dst, src, (n) & ~(size_t)3, uint16_t, \
				       is_get, label);                      \
		if ((n) & 1)                                                \
			ua__copy_chunk(dst, src, (n) & ~(size_t)1, uint8_t, \
				       is_get, label);                      \
	} while (0)

#define ua__unsafe_copy(to, from, n, label, is_get, kind, uptr)            \
	do {                                                               \
		__label__ __ua_fault;                                      \
		char *__ua_d = (char *)(to);                               \
		const char *__ua_s = (const char *)(from);                 \
		size_t __ua_n = (n);                                       \
		UA__CHECK((uptr), __ua_n, (kind));                         \
		if (__builtin_constant_p(__ua_n) && __ua_n <= 64) {        \
			ua__copy_const(__ua_d, __ua_s, __ua_n, is_get,     \
				       __ua_fault);                        \
		} else if (ua__raw_copy(__ua_d, __ua_s, __ua_n)) {         \
			goto __ua_fault;                                   \
		}                                                          \
		break;                                                     \
	__ua_fault:                                                        \
		goto label;                                                \
	} while (0)

/**
 * ua_unsafe_copy_from_user() - copy from the guest inside a read window
 * @to: monitor destination
 * @from: guest source
 * @n: bytes; constant sizes up to 64 become inline moves
 * @label: where to jump on a fault (a prefix may have been copied)
 */
#define ua_unsafe_copy_from_user(to, from, n, label) \
	ua__unsafe_copy(to, from, n, label, 1, UA_WIN_READ, from)

/**
 * ua_unsafe_copy_to_user() - copy to the guest inside a write window
 * @to: guest destination
 * @from: monitor source
 * @n: bytes; constant sizes up to 64 become inline moves
 * @label: where to jump on a fault (a prefix may have been written)
 */
#define ua_unsafe_copy_to_user(to, from, n, label) \
	ua__unsafe_copy(to, from, n, label, 0, UA_WIN_WRITE, to)

/**
 * ua_unsafe_op_wrap() - jump to @label when @expr is non-zero
 * @expr: an operation returning 0 on success
 * @label: the fault label
 */
#define ua_unsafe_op_wrap(expr, label)            \
	do {                                      \
		if (ua_unlikely(expr))            \
			goto label;               \
	} while (0)

static inline void ua__scoped_read_end(bool *open)
{
	(void)open;
	ua_user_read_access_end();
}

static inline void ua__scoped_write_end(bool *open)
{
	(void)open;
	ua_user_write_access_end();
}

static inline void ua__scoped_rw_end(bool *open)
{
	(void)open;
	ua_user_access_end();
}

/*
 * Two nested one-shot loops: the outer one opens the window (or jumps to
 * elbl without opening anything), the inner one holds a variable whose
 * cleanup closes the window on every way out of the body: falling through,
 * break, continue, return or goto.
 */
#define ua__scoped_access(begin, endfn, uptr, size, elbl)                    \
	for (bool __ua_sc_once = (begin((uptr), (size)) ? true : ({          \
		     goto elbl;                                              \
		     false;                                                  \
	     }));                                                            \
	     __ua_sc_once; __ua_sc_once = false)                             \
		for (bool __ua_sc_open __attribute__((cleanup(endfn))) = true; \
		     __ua_sc_open; __ua_sc_open = false)

/**
 * ua_scoped_user_read_access_size() - a read window for the block that follows
 * @uptr: guest pointer
 * @size: bytes
 * @elbl: where to go, with no window open, when the range check fails
 */
#define ua_scoped_user_read_access_size(uptr, size, elbl) \
	ua__scoped_access(ua_user_read_access_begin, ua__scoped_read_end, \
			  uptr, size, elbl)
/** ua_scoped_user_write_access_size() - a write window for the next block */
#define ua_scoped_user_write_access_size(uptr, size, elbl) \
	ua__scoped_access(ua_user_write_access_begin, ua__scoped_write_end, \
			  uptr, size, elbl)
/** ua_scoped_user_rw_access_size() - a read-write window for the next block */
#define ua_scoped_user_rw_access_size(uptr, size, elbl) \
	ua__scoped_access(ua_user_access_begin, ua__scoped_rw_end, uptr, \
			  size, elbl)
/** ua_scoped_user_read_access() - read window of sizeof(*uptr) bytes */
#define ua_scoped_user_read_access(uptr, elbl) \
	ua_scoped_user_read_access_size(uptr, sizeof(*(uptr)), elbl)
/** ua_scoped_user_write_access() - write window of sizeof(*uptr) bytes */
#define ua_scoped_user_write_access(uptr, elbl) \
	ua_scoped_user_write_access_size(uptr, sizeof(*(uptr)), elbl)
/** ua_scoped_user_rw_access() - read-write window of sizeof(*uptr) bytes */
#define ua_scoped_user_rw_access(uptr, elbl) \
	ua_scoped_user_rw_access_size(uptr, sizeof(*(uptr)), elbl)

#endif /* UACCESS_WINDOW_H */
