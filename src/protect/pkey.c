// SPDX-License-Identifier: MIT
/*
 * The "pkey" backend: each space gets a protection key and its pages are
 * tagged with it; PKRU, which is per thread, decides what the thread may
 * do with them.  The switches themselves are inline in protect.c (see
 * pkru.h); this file detects the hardware, allocates and frees the keys.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>

#include "pkru.h"

#if defined(__x86_64__)
#include <cpuid.h>

/* CPUID.(EAX=7,ECX=0):ECX bit 4: the OS has set CR4.PKE (SDM vol. 2A). */
static bool cpu_has_ospke(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return false;
	return (c & (1u << 4)) != 0;
}
#else
static bool cpu_has_ospke(void)
{
	return false;
}
#endif

/* Keys the library holds, for the message when they run out. */
static atomic_int keys_held;
/* The same as a bit mask, for threads that start (bit k: key k). */
static atomic_uint keys_mask;

/* PKRU with every key in @keys locked (access- and write-disabled). */
uint32_t ua__pkru_locked_all(uint32_t pkru, uint32_t keys)
{
	for (int k = 0; k < 16; k++)
		if (keys & (1u << k))
			pkru |= UA_PKRU_MASK(k);
	return pkru;
}

/*
 * First thing in a thread created through pthread_create() (interpose.c):
 * the thread inherited its creator's PKRU, which may have a space open
 * (a window, guest mode); its own state is "locked on every space".
 */
void ua__protect_thread_start(void)
{
	uint32_t keys = atomic_load_explicit(&keys_mask, memory_order_relaxed);
	uint32_t cur, v;

	if (!keys)
		return;
	cur = ua__rdpkru();
	v = ua__pkru_locked_all(cur, keys);
	if (v != cur)
		ua__wrpkru(v);
}

static const char *detect(void)
{
	int k;

	if (!cpu_has_ospke())
		return "the CPU has no protection keys, or the kernel does not "
		       "enable them (CPUID OSPKE clear)";
	k = pkey_alloc(0, 0);
	if (k >= 0) {
		pkey_free(k);
		return NULL;
	}
	/*
	 * With OSPKE set, ENOSPC only means every key is taken right now
	 * (pkey_alloc(2) also gives ENOSPC where keys do not exist at all,
	 * hence CPUID first): the backend exists, a new space fails.
	 */
	if (errno == ENOSPC)
		return NULL;
	return "pkey_alloc() is refused by the kernel (ENOSYS or EINVAL)";
}

bool ua__pkey_available(const char **why)
{
	/* 0 unknown, 1 yes, -1 no; the reason is published before the state. */
	static atomic_int state;
	static const char *_Atomic reason;
	int s = atomic_load_explicit(&state, memory_order_acquire);

	if (!s) {
		const char *r = detect();

		atomic_store_explicit(&reason, r, memory_order_relaxed);
		s = r ? -1 : 1;
		atomic_store_explicit(&state, s, memory_order_release);
	}
	*why = atomic_load_explicit(&reason, memory_order_relaxed);
	return s > 0;
}

static void report_enospc(void)
{
	char msg[320];

	snprintf(
		msg, sizeof(msg),
		"uaccess: no protection key left for a new pkey space "
		"(pkey_alloc: ENOSPC; uaccess spaces hold %d of the at most 15 "
		"keys x86 gives a process): destroy a pkey space, or create "
		"this one with UA_PROTECT_MPROTECT\n",
		atomic_load(&keys_held));
	ua__write_str(2, msg);
}

static int pk_init(struct ua_space *sp)
{
	/*
	 * The rights argument sets this thread's PKRU for the key; threads
	 * that never switched on the key keep whatever they inherited, which
	 * is access-disabled for every key but 0 unless someone opened it
	 * (init PKRU 0x55555554, copied into new threads at clone).
	 */
	int key = pkey_alloc(0, PKEY_DISABLE_ACCESS);

	if (key < 0) {
		if (errno != ENOSPC)
			return -EOPNOTSUPP;
		report_enospc();
		return -ENOSPC;
	}
	atomic_fetch_add(&keys_held, 1);
	if (key < 16)
		atomic_fetch_or(&keys_mask, 1u << key);
	sp->pkey = key;
	ua__pkru_set_mode(key, UA_MODE_LOCKED);
	return 0;
}

/* Called after the space's pages are unmapped: no page carries the key. */
static void pk_fini(struct ua_space *sp)
{
	if (sp->pkey < 0)
		return;
	/* Leave the key locked in this thread for the next owner of the number. */
	ua__pkru_set_mode(sp->pkey, UA_MODE_LOCKED);
	if (sp->pkey < 16)
		atomic_fetch_and(&keys_mask, ~(1u << sp->pkey));
	pkey_free(sp->pkey);
	atomic_fetch_sub(&keys_held, 1);
	sp->pkey = -1;
}

/* The pages keep the guest's protection: the key alone locks them. */
static int pk_map_prot(struct ua_space *sp, int guest_prot)
{
	(void)sp;
	return guest_prot;
}

/*
 * Every access-disabled key becomes read-only: the unwinder reads guest
 * stacks, and nothing in the report writes one.
 */
static void pk_oops_unlock(void)
{
	uint32_t old = ua__rdpkru(), ad = old & 0x55555555u;

	ua__wrpkru((old & ~ad) | (ad << 1));
}

const struct ua_protect_ops ua__protect_pkey = {
	.kind = UA_PROTECT_PKEY,
	.init = pk_init,
	.fini = pk_fini,
	.map_prot = pk_map_prot,
	.oops_unlock = pk_oops_unlock,
};
