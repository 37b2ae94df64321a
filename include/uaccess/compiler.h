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

#endif /* UACCESS_COMPILER_H */
