// SPDX-License-Identifier: MIT
/*
 * The registry of live spaces: a fixed array that a fault handler or a
 * nofault accessor can scan without locks.  Writers serialise on a mutex
 * and publish a slot by storing its space pointer last.
 */
#include <errno.h>

#include "../internal.h"

#define UA_MAX_SPACES 1024

struct registry_slot {
	_Atomic(struct ua_space *) sp;
	_Atomic uintptr_t lo, hi; /* [base, limit + guard) */
};

static struct registry_slot slots[UA_MAX_SPACES];
/* A range covering every space that ever existed (nofault.h fast path). */
uintptr_t ua__nofault_lo = UINTPTR_MAX, ua__nofault_hi;
static atomic_int high_water; /* slots [0, high_water) may be in use */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

int ua__registry_add(struct ua_space *sp)
{
	int i, hw, ret = -ENOSPC;

	pthread_mutex_lock(&registry_lock);
	hw = atomic_load(&high_water);
	for (i = 0; i < UA_MAX_SPACES; i++) {
		if (atomic_load(&slots[i].sp))
			continue;
		atomic_store(&slots[i].lo, sp->base);
		atomic_store(&slots[i].hi, sp->limit + sp->guard);
		/* The summary first: no fast path may skip a live space. */
		if (sp->base < __atomic_load_n(&ua__nofault_lo, __ATOMIC_RELAXED))
			__atomic_store_n(&ua__nofault_lo, sp->base,
					 __ATOMIC_RELAXED);
		if (sp->limit + sp->guard >
		    __atomic_load_n(&ua__nofault_hi, __ATOMIC_RELAXED))
			__atomic_store_n(&ua__nofault_hi, sp->limit + sp->guard,
					 __ATOMIC_RELAXED);
		atomic_store_explicit(&slots[i].sp, sp, memory_order_release);
		if (i >= hw)
			atomic_store(&high_water, i + 1);
		sp->slot = i;
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&registry_lock);
	return ret;
}

void ua__registry_del(struct ua_space *sp)
{
	pthread_mutex_lock(&registry_lock);
	atomic_store_explicit(&slots[sp->slot].sp, NULL, memory_order_release);
	pthread_mutex_unlock(&registry_lock);
}

struct ua_space *ua_space_find(const void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	int hw = atomic_load_explicit(&high_water, memory_order_acquire);

	for (int i = 0; i < hw; i++) {
		struct ua_space *sp = atomic_load_explicit(
			&slots[i].sp, memory_order_acquire);

		if (sp && a >= atomic_load_explicit(&slots[i].lo,
						    memory_order_relaxed) &&
		    a < atomic_load_explicit(&slots[i].hi, memory_order_relaxed))
			return sp;
	}
	return NULL;
}

/* Does [lo, hi) touch any space, guard gaps included? */
bool ua__registry_overlaps(uintptr_t lo, uintptr_t hi)
{
	int hw = atomic_load_explicit(&high_water, memory_order_acquire);

	for (int i = 0; i < hw; i++) {
		if (!atomic_load_explicit(&slots[i].sp, memory_order_acquire))
			continue;
		if (lo < atomic_load_explicit(&slots[i].hi,
					      memory_order_relaxed) &&
		    hi > atomic_load_explicit(&slots[i].lo,
					      memory_order_relaxed))
			return true;
	}
	return false;
}
