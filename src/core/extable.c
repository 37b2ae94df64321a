// SPDX-License-Identifier: MIT
/*
 * The exception-table registry.  Each object's section is decoded once into
 * a sorted array of absolute addresses (relative entries cannot be sorted
 * in place: the section is read-only, and moving an entry would change what
 * its offsets point at).  Lookup is a binary search per object, lock-free:
 * a table is published with one release store and never freed while the
 * process lives, so a fault handler that races with dlclose() still reads
 * valid memory.  A module that is loaded again at the same address with the
 * same table gets its old decoded table back, so dlopen/dlclose cycles do
 * not grow memory without bound.
 */
#include <errno.h>
#include <stdlib.h>

#include "../internal.h"

#define UA_MAX_TABLES 256

struct abs_entry {
	uintptr_t insn, fixup;
	int type;
};

struct table {
	const struct ua_extable_entry *key; /* the object's section start */
	struct table *next_retired;         /* under tables_lock */
	size_t n;
	uintptr_t lo, hi; /* first and last insn */
	struct abs_entry e[];
};

static _Atomic(struct table *) tables[UA_MAX_TABLES];
static struct table *retired; /* unregistered tables, kept reachable */
static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;

static int cmp_entry(const void *a, const void *b)
{
	const struct abs_entry *x = a, *y = b;

	return x->insn < y->insn ? -1 : x->insn > y->insn;
}

static struct table *decode(const struct ua_extable_entry *start,
			    const struct ua_extable_entry *end)
{
	size_t n = (size_t)(end - start);
	struct table *t = malloc(sizeof(*t) + n * sizeof(t->e[0]));

	if (!t)
		return NULL;
	t->key = start;
	t->next_retired = NULL;
	t->n = n;
	for (size_t i = 0; i < n; i++) {
		const struct ua_extable_entry *x = &start[i];

		t->e[i].insn = (uintptr_t)&x->insn + (intptr_t)x->insn;
		t->e[i].fixup = (uintptr_t)&x->fixup + (intptr_t)x->fixup;
		t->e[i].type = x->data & 0xff;
	}
	qsort(t->e, n, sizeof(t->e[0]), cmp_entry);
	t->lo = t->e[0].insn;
	t->hi = t->e[n - 1].insn;
	return t;
}

static bool same_table(const struct table *a, const struct table *b)
{
	if (a->key != b->key || a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		if (a->e[i].insn != b->e[i].insn ||
		    a->e[i].fixup != b->e[i].fixup ||
		    a->e[i].type != b->e[i].type)
			return false;
	}
	return true;
}

/* Called with tables_lock held: swap a fresh table for an identical old one. */
static struct table *reuse_retired(struct table *t)
{
	for (struct table **pp = &retired; *pp; pp = &(*pp)->next_retired) {
		struct table *old = *pp;

		if (!same_table(old, t))
			continue;
		*pp = old->next_retired;
		old->next_retired = NULL;
		free(t);
		return old;
	}
	return t;
}

int ua_extable_register(const struct ua_extable_entry *start,
			const struct ua_extable_entry *end)
{
	struct table *t;
	int free_slot = -1, ret = 0;

	if (!start || end <= start)
		return 0;
	pthread_mutex_lock(&tables_lock);
	for (int i = 0; i < UA_MAX_TABLES; i++) {
		struct table *cur = atomic_load(&tables[i]);

		if (cur && cur->key == start)
			goto out;
		if (!cur && free_slot < 0)
			free_slot = i;
	}
	ret = -ENOSPC;
	if (free_slot < 0)
		goto out;
	ret = -ENOMEM;
	t = decode(start, end);
	if (!t)
		goto out;
	t = reuse_retired(t);
	atomic_store_explicit(&tables[free_slot], t, memory_order_release);
	ret = 0;
out:
	pthread_mutex_unlock(&tables_lock);
	return ret;
}

void ua_extable_unregister(const struct ua_extable_entry *start)
{
	pthread_mutex_lock(&tables_lock);
	for (int i = 0; i < UA_MAX_TABLES; i++) {
		struct table *cur = atomic_load(&tables[i]);

		if (!cur || cur->key != start)
			continue;
		atomic_store_explicit(&tables[i], NULL, memory_order_release);
		/* A handler may still be reading it: keep it, reachable. */
		cur->next_retired = retired;
		retired = cur;
		break;
	}
	pthread_mutex_unlock(&tables_lock);
}

static const struct abs_entry *table_search(const struct table *t,
					    uintptr_t ip)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->e[mid].insn < ip)
			lo = mid + 1;
		else if (t->e[mid].insn > ip)
			hi = mid;
		else
			return &t->e[mid];
	}
	return NULL;
}

int ua_extable_search(uintptr_t ip, uintptr_t *fixup)
{
	for (int i = 0; i < UA_MAX_TABLES; i++) {
		const struct table *t = atomic_load_explicit(
			&tables[i], memory_order_acquire);
		const struct abs_entry *e;

		if (!t || ip < t->lo || ip > t->hi)
			continue;
		e = table_search(t, ip);
		if (e) {
			*fixup = e->fixup;
			return e->type;
		}
	}
	return 0;
}
