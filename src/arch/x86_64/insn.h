/* SPDX-License-Identifier: MIT */
/*
 * An x86-64 instruction length decoder, and a linear sweep of a code
 * section with it: what the patch trap (src/task/trap_patch.c) needs to
 * know about the instruction before a `syscall`.  It decodes lengths and
 * the properties that decide whether an instruction may run elsewhere;
 * it does not disassemble.  64-bit mode only.
 */
#ifndef UA_ARCH_X86_64_INSN_H
#define UA_ARCH_X86_64_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UA_INSN_MAX 15

/*
 * What the decoder says of one instruction.  relocatable: it behaves the
 * same at any address (no RIP-relative operand, no branch, no call, no
 * return, no syscall, interrupt or trap).  syscall: it is `0f 05`.
 */
struct ua__insn {
	int len;
	bool relocatable;
	bool syscall;
	bool rip_rel; /* a RIP-relative memory operand */
	bool branch;  /* a branch, call or return */
	bool sys;     /* a syscall, an interrupt or a trap */
};

/*
 * One `syscall` the sweep found.  len: the length of the instruction
 * right before it if that one may be moved into a trampoline (at least
 * 5 bytes and relocatable), else 0 and why says why not (ua__insn_why()).
 */
struct ua__insn_site {
	uint64_t sys;
	uint8_t len;
	uint8_t why;
	/*
	 * Under 5 bytes (UA_INSN_WHY_SHORT) but relocatable and at least 2:
	 * its length, for a 2-byte `jmp rel8` through a hole (below).
	 */
	uint8_t hop_len;
};

/*
 * A hole: padding (nop forms, int3) right after an unconditional
 * transfer, up to the next instruction that is not padding, at least 5
 * bytes and within one page.  No path of the program runs it, so it can
 * hold a `jmp rel32` that a short site's `jmp rel8` reaches.  used: bytes
 * handed out, from the start.
 */
struct ua__insn_hole {
	uint64_t addr;
	uint8_t len;
	uint8_t used;
};

enum ua__insn_why {
	UA_INSN_OK = 0,
	UA_INSN_WHY_FIRST,    /* nothing decoded before it */
	UA_INSN_WHY_SHORT,    /* the instruction before is under 5 bytes */
	UA_INSN_WHY_RIP_REL,  /* ... has a RIP-relative operand */
	UA_INSN_WHY_BRANCH,   /* ... is a branch, call or return */
	UA_INSN_WHY_SYSCALL,  /* ... is itself a syscall or interrupt */
	UA_INSN_WHY_UNSYNCED, /* after bytes the decoder did not know */
	UA_INSN_WHY_NR,
};

struct ua__sweep_stats {
	size_t insns;	 /* instructions decoded */
	size_t failures; /* bytes skipped as undecodable */
};

/*
 * What one pass over a code section finds: sites and holes (below), each
 * counted in full and stored up to its max.  pagesz 0: no holes wanted.
 */
struct ua__insn_scan {
	struct ua__insn_site *sites;
	size_t max_sites, nsites;
	struct ua__insn_hole *holes;
	size_t max_holes, nholes;
	uint64_t pagesz;
	struct ua__sweep_stats st;
};

/**
 * ua__insn_decode() - decode the length of one instruction
 * @p: its first byte
 * @avail: bytes readable at @p
 * @out: what is known of it
 *
 * Return: its length (1..15), or -1 for bytes that are not a valid
 * 64-bit instruction this decoder knows, or run past @avail.
 */
int ua__insn_decode(const uint8_t *p, size_t avail, struct ua__insn *out);

/**
 * ua__insn_sweep() - find the syscall instructions of a code section
 * @code: the section's bytes
 * @size: their number
 * @vaddr: the address of @code[0] in the program
 * @out: the sites found, by address
 * @max: room in @out
 * @st: counts, or NULL
 *
 * Decodes @code linearly from its start, as compilers lay code out.  A
 * byte it cannot decode is skipped, and sites are not trusted again
 * until the sweep reaches a 16-byte boundary after an unconditional
 * transfer or padding (where functions start).
 *
 * Return: the number of sites; only the first @max are stored.
 */
size_t ua__insn_sweep(const uint8_t *code, size_t size, uint64_t vaddr,
		      struct ua__insn_site *out, size_t max,
		      struct ua__sweep_stats *st);

/**
 * ua__insn_holes() - find the holes of a code section
 * @code: the section's bytes
 * @size: their number
 * @vaddr: the address of @code[0] in the program
 * @pagesz: holes never cross a multiple of it
 * @out: the holes found, by address (each at most 255 bytes)
 * @max: room in @out
 *
 * Decodes as ua__insn_sweep() does.  A run of padding that a byte the
 * decoder does not know ends is not a hole.
 *
 * Return: the number of holes; only the first @max are stored.
 */
size_t ua__insn_holes(const uint8_t *code, size_t size, uint64_t vaddr,
		      uint64_t pagesz, struct ua__insn_hole *out, size_t max);

/**
 * ua__insn_scan() - ua__insn_sweep() and ua__insn_holes() in one pass
 * @code: the section's bytes
 * @size: their number
 * @vaddr: the address of @code[0] in the program
 * @s: where to put what is found; its counts are set
 */
void ua__insn_scan(const uint8_t *code, size_t size, uint64_t vaddr,
		   struct ua__insn_scan *s);

/* Are the len bytes at p padding instructions, whole? */
bool ua__insn_all_pad(const uint8_t *p, size_t len);

/* A site's why, in words. */
const char *ua__insn_why(int why);

#endif
