// SPDX-License-Identifier: MIT
/*
 * The search for PKRU and segment-base writes in code (priv_scan.h).
 * Encodings from the Intel SDM, vol. 2: WRPKRU is 0f 01 ef; XRSTOR
 * 0f ae /5 and XRSTORS 0f c7 /3 take a memory operand (with a register
 * operand the same bytes are LFENCE, or #UD); WRFSBASE and
 * WRGSBASE are f3 0f ae /2 and /3 with a register operand, and #UD
 * without the F3 prefix.  XRSTORS faults outside ring 0, but it is
 * refused all the same: what a CPU allows there is not this file's
 * to judge.  FXRSTOR (0f ae /1) restores no PKRU and is not looked for.
 */
#include <string.h>

#include "priv_scan.h"

/* A legacy prefix or a REX byte: what may sit between F3 and 0f. */
static int is_prefix(uint8_t b)
{
	switch (b) {
	case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
	case 0x66: case 0x67: case 0xf0: case 0xf2: case 0xf3:
		return 1;
	}
	return (b & 0xf0) == 0x40;
}

/* Whether an F3 is among the prefix bytes that end at p[i - 1]. */
static int has_rep_prefix(const uint8_t *p, size_t i)
{
	/* An instruction is at most 15 bytes: 12 prefixes before 0f ae m. */
	for (size_t k = 1; k <= i && k <= 12 && is_prefix(p[i - k]); k++)
		if (p[i - k] == 0xf3)
			return 1;
	return 0;
}

/* What the three bytes at p[i] are, knowing p[i] is 0x0f. */
static int match_at(const uint8_t *p, size_t i)
{
	uint8_t op = p[i + 1], m = p[i + 2];
	int reg = (m >> 3) & 7, mem = (m >> 6) != 3;

	if (op == 0x01)
		return m == 0xef ? UA_PRIV_WRPKRU : UA_PRIV_NONE;
	if (op == 0xc7)
		return mem && reg == 3 ? UA_PRIV_XRSTORS : UA_PRIV_NONE;
	if (op != 0xae)
		return UA_PRIV_NONE;
	if (mem)
		return reg == 5 ? UA_PRIV_XRSTOR : UA_PRIV_NONE;
	if ((reg == 2 || reg == 3) && has_rep_prefix(p, i))
		return reg == 2 ? UA_PRIV_WRFSBASE : UA_PRIV_WRGSBASE;
	return UA_PRIV_NONE;
}

size_t ua__priv_scan(const uint8_t *p, size_t n, int *kind)
{
	size_t i = 0;

	*kind = UA_PRIV_NONE;
	while (n >= 3 && i <= n - 3) {
		const uint8_t *f = memchr(p + i, 0x0f, n - 2 - i);

		if (!f)
			break;
		i = (size_t)(f - p);
		*kind = match_at(p, i);
		if (*kind)
			return i;
		i++;
	}
	return n;
}

const char *ua__priv_name(int kind)
{
	static const char *const names[] = {
		[UA_PRIV_NONE] = "none",	 [UA_PRIV_WRPKRU] = "wrpkru",
		[UA_PRIV_XRSTOR] = "xrstor",	 [UA_PRIV_XRSTORS] = "xrstors",
		[UA_PRIV_WRFSBASE] = "wrfsbase", [UA_PRIV_WRGSBASE] = "wrgsbase",
	};

	if (kind < 0 || kind > UA_PRIV_WRGSBASE)
		return "?";
	return names[kind];
}
