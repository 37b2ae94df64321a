/* SPDX-License-Identifier: MIT */
/*
 * x86-64 inline primitives: a single load or store with an exception-table
 * entry whose fixup is the caller's label (asm goto with outputs, GCC >= 11,
 * Clang >= 14).  The success path is the bare move: no call, no branch.
 */
#ifndef UACCESS_ARCH_X86_64_H
#define UACCESS_ARCH_X86_64_H

#include <uaccess/compiler.h>
#include <uaccess/extable.h>

#define UA_ARCH_HAS_INLINE_ACCESSORS 1

/* One 12-byte relative entry in section ua_extable: from -> to. */
#define UA__ASM_EXTABLE(from, to)                      \
	".pushsection ua_extable, \"a\"\n\t"           \
	".balign 4\n\t"                                \
	".long (" #from ") - .\n\t"                    \
	".long (" #to ") - .\n\t"                      \
	".long 1\n\t"                                  \
	".popsection\n\t"

/*
 * Load sizeof(*(p)) bytes at p into the unsigned long lvalue v; on a fault
 * jump to label with v unassigned (as the kernel's asm-goto-with-outputs
 * form).  The narrow loads zero-extend so v is always fully defined.
 */
#define ua__arch_get(v, p, label)                                          \
	do {                                                               \
		switch (sizeof(*(p))) {                                    \
		case 1:                                                    \
			asm goto("1: movzbl %[ua_mem], %k[ua_val]\n\t"               \
				 UA__ASM_EXTABLE(1b, %l[label])            \
				 : [ua_val] "=r"(v)                             \
				 : [ua_mem] "m"(*(const volatile uint8_t *)(p)) \
				 :                                         \
				 : label);                                 \
			break;                                             \
		case 2:                                                    \
			asm goto("1: movzwl %[ua_mem], %k[ua_val]\n\t"               \
				 UA__ASM_EXTABLE(1b, %l[label])            \
				 : [ua_val] "=r"(v)                             \
				 : [ua_mem] "m"(*(const volatile uint16_t *)(p)) \
				 :                                         \
				 : label);                                 \
			break;                                             \
		case 4:                                                    \
			asm goto("1: movl %[ua_mem], %k[ua_val]\n\t"                 \
				 UA__ASM_EXTABLE(1b, %l[label])            \
				 : [ua_val] "=r"(v)                             \
				 : [ua_mem] "m"(*(const volatile uint32_t *)(p)) \
				 :                                         \
				 : label);                                 \
			break;                                             \
		case 8:                                                    \
			asm goto("1: movq %[ua_mem], %[ua_val]\n\t"                  \
				 UA__ASM_EXTABLE(1b, %l[label])            \
				 : [ua_val] "=r"(v)                             \
				 : [ua_mem] "m"(*(const volatile uint64_t *)(p)) \
				 :                                         \
				 : label);                                 \
			break;                                             \
		}                                                          \
	} while (0)

/* Store the unsigned long v as sizeof(*(p)) bytes at p; on a fault jump. */
#define ua__arch_put(v, p, label)                                          \
	do {                                                               \
		switch (sizeof(*(p))) {                                    \
		case 1:                                                    \
			asm goto("1: movb %b[ua_val], %[ua_mem]\n\t"                 \
				 UA__ASM_EXTABLE(1b, %l[label])            \
				 :                                         \
				 : [ua_mem] "m"(*(volatile uint8_t *)(p)),      \
				   [ua_val] "iq"((uint8_t)(v))                  \
				 :                                         \
				 : label);                                 \
			break;                                             \
		case 2:                                                    \
			asm goto("1: movw %w[ua_val], %[ua_mem]\n\t"                 \
				 UA__ASM_EXTABLE(1b, %l[label])            \
				 :                                         \
				 : [ua_mem] "m"(*(volatile uint16_t *)(p)),     \
				   [ua_val] "ir"((uint16_t)(v))                 \
				 :                                         \
				 : label);                                 \
			break;                                             \
		case 4:                                                    \
			asm goto("1: movl %k[ua_val], %[ua_mem]\n\t"                 \
				 UA__ASM_EXTABLE(1b, %l[label])            \
				 :                                         \
				 : [ua_mem] "m"(*(volatile uint32_t *)(p)),     \
				   [ua_val] "ir"((uint32_t)(v))                 \
				 :                                         \
				 : label);                                 \
			break;                                             \
		case 8:                                                    \
			asm goto("1: movq %q[ua_val], %[ua_mem]\n\t"                 \
				 UA__ASM_EXTABLE(1b, %l[label])            \
				 :                                         \
				 : [ua_mem] "m"(*(volatile uint64_t *)(p)),     \
				   [ua_val] "er"((uint64_t)(v))                 \
				 :                                         \
				 : label);                                 \
			break;                                             \
		}                                                          \
	} while (0)

/* Branch-free clamp: p when p - base <= size, else limit (the guard gap). */
static inline uintptr_t ua__arch_mask(uintptr_t p, uintptr_t base,
				      uintptr_t size)
{
	uintptr_t off = p - base, lim = base + size;

	asm("cmpq %[size], %[off]\n\t"
	    "cmovaq %[lim], %[p]"
	    : [p] "+r"(p)
	    : [off] "r"(off), [size] "r"(size), [lim] "r"(lim)
	    : "cc");
	return p;
}

#endif /* UACCESS_ARCH_X86_64_H */
