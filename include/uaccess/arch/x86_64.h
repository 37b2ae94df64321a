/* SPDX-License-Identifier: MIT */
/*
 * x86-64 inline primitives: a single load or store with an exception-table
 * entry whose fixup is the caller's label (asm goto).  The success path is
 * the bare move: no call, no branch.  Where the compiler cannot be trusted
 * with asm goto (below), the move's fixup sets an error register instead
 * and a predictable branch follows the move: still no call.
 *
 * Clang before 17 checks every asm goto of a function against the labels
 * of every other asm goto in it, so a function with a scoped window (a
 * cleanup variable) and any other unsafe access fails to compile ("cannot
 * jump from this asm goto statement to one of its possible targets",
 * ClangBuiltLinux issue 1886, fixed in LLVM 17).  There the fixup instead
 * sets an error register and resumes after the move, and a plain C goto
 * leaves for the label: one predictable branch on the success path.
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

#if defined(__clang__) && __clang_major__ < 17
#define UA__ARCH_ASM_GOTO 0
#else
#define UA__ARCH_ASM_GOTO 1
#endif

/*
 * asm goto WITH OUTPUTS (the loads) is miscompiled by GCC before 14: the
 * register allocator can drop the output on the fall-through path when a
 * function holds several such statements (seen here with GCC 12.2: the
 * loaded value replaced by 0; the kernel also distrusts these versions,
 * see its GCC_ASM_GOTO_OUTPUT_BROKEN).  Loads there use the fixup form;
 * stores have no outputs and keep asm goto.
 */
#if defined(__clang__)
#define UA__ARCH_ASM_GOTO_OUTPUT UA__ARCH_ASM_GOTO
#elif __GNUC__ >= 14
#define UA__ARCH_ASM_GOTO_OUTPUT 1
#else
#define UA__ARCH_ASM_GOTO_OUTPUT 0
#endif

/*
 * The move at 1:, its fixup out of line at 3: (err = 1, the loaded value
 * cleared, back to 2:), as the kernel's .fixup sections did before asm
 * goto.  The table entry is the usual 1b -> 3b resume-at-fixup one.
 */
#define UA__ASM_MOVE_FIXUP(insn, clear)                                    \
	"1: " insn "\n\t"                                                    \
	"2:\n\t"                                                            \
	".pushsection .text.ua_fixup, \"ax\"\n\t"                          \
	"3: movl $1, %k[ua_err]\n\t" clear "jmp 2b\n\t"                    \
	".popsection\n\t" UA__ASM_EXTABLE(1b, 3b)

/*
 * Per access size: the type, the zero-extending load, the store and the
 * store's value constraint.  The type may alias anything (compiler.h): the
 * guest object can be of any type of that size.  X(n, T, load, store, cons, ...) is expanded
 * once per size inside a switch on sizeof(*(p)).
 */
#define UA__SIZES(X, ...)                                                 \
	X(1, ua__u8_alias, "movzbl %[ua_mem], %k[ua_val]",                      \
	  "movb %b[ua_val], %[ua_mem]", "iq", __VA_ARGS__)                 \
	X(2, ua__u16_alias, "movzwl %[ua_mem], %k[ua_val]",                     \
	  "movw %w[ua_val], %[ua_mem]", "ir", __VA_ARGS__)                 \
	X(4, ua__u32_alias, "movl %[ua_mem], %k[ua_val]",                       \
	  "movl %k[ua_val], %[ua_mem]", "ir", __VA_ARGS__)                 \
	X(8, ua__u64_alias, "movq %[ua_mem], %[ua_val]",                        \
	  "movq %q[ua_val], %[ua_mem]", "er", __VA_ARGS__)

#if UA__ARCH_ASM_GOTO_OUTPUT
/*
 * Load sizeof(*(p)) bytes at p into the unsigned long lvalue v; on a fault
 * jump to label with v unassigned (as the kernel's asm-goto-with-outputs
 * form).  The narrow loads zero-extend so v is always fully defined.
 */
#define UA__GET_GOTO(n, T, load, store, cons, v, p, label)                \
	case n:                                                           \
		__asm__ volatile goto("1: " load "\n\t"                       \
				  UA__ASM_EXTABLE(1b, %l[label])          \
				  : [ua_val] "=r"(v)                      \
				  : [ua_mem] "m"(*(const volatile T *)(p)) \
				  :                                       \
				  : label);                               \
		break;

#define ua__arch_get(v, p, label)                                          \
	do {                                                               \
		switch (sizeof(*(p))) {                                    \
			UA__SIZES(UA__GET_GOTO, v, p, label)               \
		}                                                          \
	} while (0)
#else
#define UA__GET_FIXUP(n, T, load, store, cons, v, p, err)                 \
	case n:                                                           \
		__asm__ volatile(UA__ASM_MOVE_FIXUP(load,                     \
				"xorl %k[ua_val], %k[ua_val]\n\t")        \
			     : [ua_val] "=r"(v), [ua_err] "+r"(err)       \
			     : [ua_mem] "m"(*(const volatile T *)(p)));   \
		break;

#define ua__arch_get(v, p, label)                                          \
	do {                                                               \
		int __ua_err = 0;                                          \
		switch (sizeof(*(p))) {                                    \
			UA__SIZES(UA__GET_FIXUP, v, p, __ua_err)           \
		}                                                          \
		if (ua_unlikely(__ua_err))                                 \
			goto label;                                        \
	} while (0)
#endif

#if UA__ARCH_ASM_GOTO
/* Store the unsigned long v as sizeof(*(p)) bytes at p; on a fault jump. */
#define UA__PUT_GOTO(n, T, load, store, cons, v, p, label)                \
	case n:                                                           \
		__asm__ volatile goto("1: " store "\n\t"                      \
				  UA__ASM_EXTABLE(1b, %l[label])          \
				  :                                       \
				  : [ua_mem] "m"(*(volatile T *)(p)),     \
				    [ua_val] cons((T)(v))                 \
				  :                                       \
				  : label);                               \
		break;

#define ua__arch_put(v, p, label)                                          \
	do {                                                               \
		switch (sizeof(*(p))) {                                    \
			UA__SIZES(UA__PUT_GOTO, v, p, label)               \
		}                                                          \
	} while (0)
#else
#define UA__PUT_FIXUP(n, T, load, store, cons, v, p, err)                 \
	case n:                                                           \
		__asm__ volatile(UA__ASM_MOVE_FIXUP(store, "")                \
			     : [ua_mem] "=m"(*(volatile T *)(p)),         \
			       [ua_err] "+r"(err)                         \
			     : [ua_val] cons((T)(v)));                    \
		break;

#define ua__arch_put(v, p, label)                                          \
	do {                                                               \
		int __ua_err = 0;                                          \
		switch (sizeof(*(p))) {                                    \
			UA__SIZES(UA__PUT_FIXUP, v, p, __ua_err)           \
		}                                                          \
		if (ua_unlikely(__ua_err))                                 \
			goto label;                                        \
	} while (0)
#endif

/* Branch-free clamp: p when p - base <= size, else limit (the guard gap). */
static inline uintptr_t ua__arch_mask(uintptr_t p, uintptr_t base,
				      uintptr_t size)
{
	uintptr_t off = p - base, lim = base + size;

	__asm__("cmpq %[size], %[off]\n\t"
	    "cmovaq %[lim], %[p]"
	    : [p] "+r"(p)
	    : [off] "r"(off), [size] "r"(size), [lim] "r"(lim)
	    : "cc");
	return p;
}

#endif /* UACCESS_ARCH_X86_64_H */
