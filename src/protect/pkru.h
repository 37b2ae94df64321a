/* SPDX-License-Identifier: MIT */
/*
 * PKRU access for the pkey backend, inline so that a protection switch is
 * one RDPKRU and at most one WRPKRU, never a call (glibc's pkey_set() is a
 * function call and re-reads PKRU).  Facts from the SDM (RDPKRU/WRPKRU:
 * ECX must be 0, and EDX too for WRPKRU; WRPKRU is never executed
 * speculatively and later PKRU-checked accesses wait for it) and the
 * kernel's Documentation/core-api/protection-keys.rst (two bits per key:
 * access-disable at 2k, write-disable at 2k+1).
 */
#ifndef UA_PROTECT_PKRU_H
#define UA_PROTECT_PKRU_H

#include "../internal.h"

#define UA_PKRU_AD(k) (1u << (2 * (k)))
#define UA_PKRU_WD(k) (1u << (2 * (k) + 1))
#define UA_PKRU_MASK(k) (UA_PKRU_AD(k) | UA_PKRU_WD(k))

#if defined(__x86_64__)
static inline UA_FAST uint32_t ua__rdpkru(void)
{
	uint32_t eax, edx;

	asm volatile(".byte 0x0f, 0x01, 0xee" : "=a"(eax), "=d"(edx) : "c"(0));
	return eax;
}

/*
 * Every WRPKRU of the library is this one, counted in the thread's
 * insn.wrpkru (ua_stats_get_insns()).  self: the calling thread's
 * ua_thread, which the rewrite fast path has without reading %fs.  The
 * memory clobber keeps guest accesses on their side of the switch.
 */
static inline UA_FAST void ua__wrpkru_self(struct ua_thread *self, uint32_t v)
{
	asm volatile(".byte 0x0f, 0x01, 0xef"
		     :
		     : "a"(v), "c"(0), "d"(0)
		     : "memory");
	ua__count(&self->insn.wrpkru);
}
#else
/* No protection keys: ua__pkey_available() says no, so never called. */
static inline UA_FAST uint32_t ua__rdpkru(void)
{
	return 0;
}

static inline UA_FAST void ua__wrpkru_self(struct ua_thread *self, uint32_t v)
{
	(void)self;
	(void)v;
}
#endif

static inline void ua__wrpkru(uint32_t v)
{
	ua__wrpkru_self(&ua_self, v);
}

/*
 * The bits of one key for a mode: locked = access- and write-disable,
 * read window = write-disable only, write/rw window and guest mode = open.
 */
static inline uint32_t ua__pkru_bits(int key, int mode)
{
	switch (mode) {
	case UA_MODE_LOCKED:
		return UA_PKRU_MASK(key);
	case UA_MODE_READ:
		return UA_PKRU_WD(key);
	default:
		return 0;
	}
}

static inline uint32_t ua__pkru_with(uint32_t pkru, int key, int mode)
{
	return (pkru & ~UA_PKRU_MASK(key)) | ua__pkru_bits(key, mode);
}

/* WRPKRU is dearer than RDPKRU: skip writes that change nothing. */
static inline void ua__pkru_set_mode(int key, int mode)
{
	uint32_t old = ua__rdpkru();
	uint32_t v = ua__pkru_with(old, key, mode);

	if (v != old)
		ua__wrpkru(v);
}

#endif /* UA_PROTECT_PKRU_H */
