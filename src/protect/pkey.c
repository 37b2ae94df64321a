// SPDX-License-Identifier: MIT
/*
 * The "pkey" backend: each space gets a protection key; PKRU, which is per
 * thread, decides what the thread may do with the space's pages.  Locked =
 * access-disable, read window = write-disable only, write/rw window and
 * guest mode = both clear: the read/write split of POWER's KUAP.
 * RDPKRU/WRPKRU are inline (no call per switch); facts from the kernel's
 * Documentation/core-api/protection-keys.rst and the SDM (WRPKRU is not
 * executed speculatively, so no fence is needed after it).
 */
#include <errno.h>
#include <sys/mman.h>

#include "../internal.h"

#if defined(__x86_64__)
#include <cpuid.h>

static inline uint32_t rdpkru(void)
{
	uint32_t eax, edx;

	asm volatile(".byte 0x0f, 0x01, 0xee" : "=a"(eax), "=d"(edx) : "c"(0));
	return eax;
}

static inline void wrpkru(uint32_t v)
{
	asm volatile(".byte 0x0f, 0x01, 0xef" : : "a"(v), "c"(0), "d"(0)
		     : "memory");
}

static bool cpu_has_ospke(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return false;
	return (c & (1u << 4)) != 0; /* CPUID.7.0:ECX.OSPKE */
}
#else
static inline uint32_t rdpkru(void)
{
	return 0;
}

static inline void wrpkru(uint32_t v)
{
	(void)v;
}

static bool cpu_has_ospke(void)
{
	return false;
}
#endif

#define PKRU_AD(k) (1u << (2 * (k)))
#define PKRU_WD(k) (1u << (2 * (k) + 1))

bool ua__pkey_available(const char **why)
{
	static int cached; /* 0 unknown, 1 yes, -1 no */
	static const char *cached_why;
	int k;

	if (cached) {
		*why = cached_why;
		return cached > 0;
	}
	if (!cpu_has_ospke()) {
		cached_why = "the CPU has no protection keys, or the kernel "
			     "does not enable them (CPUID OSPKE clear)";
		cached = -1;
	} else if ((k = pkey_alloc(0, 0)) < 0) {
		cached_why = "pkey_alloc() failed: the kernel refuses "
			     "protection keys";
		cached = -1;
	} else {
		pkey_free(k);
		cached = 1;
	}
	*why = cached_why;
	return cached > 0;
}

static uint32_t pkru_bits(int mode, int key)
{
	switch (mode) {
	case UA_MODE_LOCKED: return PKRU_AD(key) | PKRU_WD(key);
	case UA_MODE_READ: return PKRU_WD(key);
	default: return 0;
	}
}

static void set_mode(int key, int mode)
{
	uint32_t mask = PKRU_AD(key) | PKRU_WD(key);
	uint32_t old = rdpkru();
	uint32_t v = (old & ~mask) | pkru_bits(mode, key);

	if (v != old)
		wrpkru(v);
}

static int pk_init(struct ua_space *sp)
{
	int key = pkey_alloc(0, PKEY_DISABLE_ACCESS);

	if (key < 0)
		return errno == ENOSPC ? -ENOSPC : -EOPNOTSUPP;
	sp->pkey = key;
	set_mode(key, UA_MODE_LOCKED);
	return 0;
}

static void pk_fini(struct ua_space *sp)
{
	if (sp->pkey < 0)
		return;
	/* Leave the key access-disabled for a later owner of the number. */
	set_mode(sp->pkey, UA_MODE_LOCKED);
	pkey_free(sp->pkey);
	sp->pkey = -1;
}

static int pk_map_prot(struct ua_space *sp, int guest_prot)
{
	(void)sp;
	return guest_prot;
}

static void pk_switch(struct ua_space *sp, int from, int to)
{
	(void)from;
	set_mode(sp->pkey, to);
}

const struct ua_protect_ops ua__protect_pkey = {
	.kind = UA_PROTECT_PKEY,
	.init = pk_init,
	.fini = pk_fini,
	.map_prot = pk_map_prot,
	.switch_mode = pk_switch,
};
