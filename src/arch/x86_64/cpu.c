// SPDX-License-Identifier: MIT
/*
 * The store width of ua__raw_clear (copy.S), chosen once from what the
 * CPU has (CPUID) and what the kernel enabled (XCR0): a register width
 * the OS does not save on a context switch would be corrupted, so an
 * instruction set is used only when both say yes.
 */
#include <cpuid.h>

#include "../../internal.h"

#define XCR0_SSE (1u << 1)
#define XCR0_AVX (1u << 2)	 /* upper halves of YMM0-15 */
#define XCR0_AVX512 (7u << 5) /* opmask, ZMM0-15 upper, ZMM16-31 */

/* UA_CLEAR_SSE until the constructor below has looked. */
unsigned char ua__clear_vec;

int ua__clear_vec_max(void)
{
	unsigned int a, b, c, d;
	uint64_t xcr0;

	__cpuid(1, a, b, c, d);
	/* OSXSAVE (XGETBV works) and AVX. */
	if ((c & (3u << 27)) != (3u << 27))
		return UA_CLEAR_SSE;
	xcr0 = ua__xgetbv0();
	if ((xcr0 & (XCR0_SSE | XCR0_AVX)) != (XCR0_SSE | XCR0_AVX))
		return UA_CLEAR_SSE;
	if (__get_cpuid_max(0, NULL) < 7)
		return UA_CLEAR_AVX;
	__cpuid_count(7, 0, a, b, c, d);
	if (!(b & (1u << 16)) || (xcr0 & XCR0_AVX512) != XCR0_AVX512)
		return UA_CLEAR_AVX;
	return UA_CLEAR_AVX512;
}

__attribute__((constructor)) static void clear_vec_init(void)
{
	ua__clear_vec = (unsigned char)ua__clear_vec_max();
}
