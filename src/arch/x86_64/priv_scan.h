/* SPDX-License-Identifier: MIT */
/*
 * The instructions that guest code must never run when the monitor is
 * to stay out of its reach under protection keys (doc/protection.md,
 * "Isolation"): those that write PKRU, and those that write the FS or
 * GS base the monitor finds its state through.  A jump may land on any
 * byte, so code is searched at every byte offset, not decoded.
 */
#ifndef UA_ARCH_X86_64_PRIV_SCAN_H
#define UA_ARCH_X86_64_PRIV_SCAN_H

#include <stddef.h>
#include <stdint.h>

enum ua__priv_insn {
	UA_PRIV_NONE = 0,
	UA_PRIV_WRPKRU,   /* 0f 01 ef */
	UA_PRIV_XRSTOR,   /* 0f ae /5, memory operand: may load PKRU */
	UA_PRIV_XRSTORS,  /* 0f c7 /3, memory operand */
	UA_PRIV_WRFSBASE, /* f3 [rex] 0f ae /2, register operand */
	UA_PRIV_WRGSBASE, /* f3 [rex] 0f ae /3, register operand */
};

/**
 * ua__priv_scan() - find the first forbidden instruction in a code range
 * @p:    the bytes
 * @n:    how many
 * @kind: set to the instruction found (enum ua__priv_insn), or
 *        UA_PRIV_NONE
 *
 * Looks at every byte offset: bytes that are the tail of one
 * instruction, or constants in the code, count as much as instructions
 * a disassembler would show, since a jump can begin there.  A match is
 * reported at the offset of its 0x0f byte; an F3 prefix that makes a
 * WRFSBASE or WRGSBASE is looked for among the legacy and REX prefix
 * bytes right before it, within @p.  Instructions that cut across the
 * end of @p are not seen: scan a mapping whole.
 *
 * Return: the offset of the first match, or @n if there is none.
 */
size_t ua__priv_scan(const uint8_t *p, size_t n, int *kind);

/**
 * ua__priv_name() - the mnemonic of an enum ua__priv_insn, for messages
 * @kind: the value ua__priv_scan() gave
 *
 * Return: a static string ("wrpkru", ...; "none" for UA_PRIV_NONE).
 */
const char *ua__priv_name(int kind);

#endif
