/* SPDX-License-Identifier: MIT */
/*
 * Portable fallback: the unsafe accessors call small out-of-line routines
 * that recover faults through a per-thread sigsetjmp point instead of an
 * exception table.  Correct on any architecture, slower than inline code.
 */
#ifndef UACCESS_ARCH_GENERIC_H
#define UACCESS_ARCH_GENERIC_H

#include <uaccess/compiler.h>

#define UA_ARCH_HAS_INLINE_ACCESSORS 0

UA_BEGIN_DECLS
/* Internal: 0 on success, -EFAULT on a fault; see src/arch/generic/. */
UA_EXPORT int ua__generic_get(unsigned long *v, const void *p, size_t size);
UA_EXPORT int ua__generic_put(unsigned long v, void *p, size_t size);
UA_END_DECLS

#define ua__arch_get(v, p, label)                                      \
	do {                                                           \
		if (ua__generic_get(&(v), (p), sizeof(*(p))))          \
			goto label;                                    \
	} while (0)

#define ua__arch_put(v, p, label)                                      \
	do {                                                           \
		if (ua__generic_put((v), (p), sizeof(*(p))))           \
			goto label;                                    \
	} while (0)

static inline uintptr_t ua__arch_mask(uintptr_t p, uintptr_t base,
				      uintptr_t size)
{
	uintptr_t ok = (uintptr_t)0 - (uintptr_t)(p - base <= size);

	return (p & ok) | ((base + size) & ~ok);
}

#endif /* UACCESS_ARCH_GENERIC_H */
