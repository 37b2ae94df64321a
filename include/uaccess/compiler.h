/* SPDX-License-Identifier: MIT */
/*
 * Compiler helpers shared by the public headers.
 */
#ifndef UACCESS_COMPILER_H
#define UACCESS_COMPILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define UA_BEGIN_DECLS extern "C" {
#define UA_END_DECLS }
#else
#define UA_BEGIN_DECLS
#define UA_END_DECLS
#endif

#define ua_likely(x) __builtin_expect(!!(x), 1)
#define ua_unlikely(x) __builtin_expect(!!(x), 0)

/* Marks a pointer that refers to guest memory; documentation only. */
#define __ua_user

#define UA_EXPORT __attribute__((visibility("default")))
#define UA_MUST_CHECK __attribute__((warn_unused_result))

/* True when the size of *p is one the single-move accessors support. */
#define ua__size_ok(p)                                                     \
	(sizeof(*(p)) == 1 || sizeof(*(p)) == 2 || sizeof(*(p)) == 4 || \
	 sizeof(*(p)) == 8)

/*
 * Unsigned integers that may alias any object, as char does: the memory
 * operand of an inline access names the guest object through one of these,
 * so a program built with strict aliasing (no -fno-strict-aliasing) may
 * neither be warned about nor have its loads reordered around the access.
 */
typedef uint8_t __attribute__((__may_alias__)) ua__u8_alias;
typedef uint16_t __attribute__((__may_alias__)) ua__u16_alias;
typedef uint32_t __attribute__((__may_alias__)) ua__u32_alias;
typedef uint64_t __attribute__((__may_alias__)) ua__u64_alias;

/* The type of *(p) without its qualifiers (a comma makes it an rvalue). */
#define ua__unqual_typeof(p) __typeof__((void)0, *(p))

/*
 * ua__from_bits(p, v) is the value of type *(p) whose bytes are the low
 * sizeof(*(p)) bytes of the integer v; ua__to_bits(p, x) gives the bytes of
 * the value x of type *(p) back as an unsigned long.  A copy of the bits
 * through a union, not a numeric conversion: a double, a float or a small
 * struct travels intact, and for integers and pointers it compiles to
 * exactly what a cast does.  Each union member is as wide as the type, so
 * the result does not depend on the byte order.
 */
#define ua__bits_union(p, U) union { ua__unqual_typeof(p) t; U u; }
#define ua__bits_in(p, U, v) (((ua__bits_union(p, U)){ .u = (U)(v) }).t)
#define ua__bits_out(p, U, x) \
	((unsigned long)((ua__bits_union(p, U)){ .t = (x) }).u)
#define ua__bits_sel(p, how, arg)                                           \
	__builtin_choose_expr(sizeof(*(p)) == 1, how(p, uint8_t, arg),      \
	__builtin_choose_expr(sizeof(*(p)) == 2, how(p, uint16_t, arg),     \
	__builtin_choose_expr(sizeof(*(p)) == 4, how(p, uint32_t, arg),     \
			      how(p, uint64_t, arg))))
#define ua__from_bits(p, v) ua__bits_sel(p, ua__bits_in, v)
#define ua__to_bits(p, x) ua__bits_sel(p, ua__bits_out, x)

#endif /* UACCESS_COMPILER_H */
