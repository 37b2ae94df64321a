// SPDX-License-Identifier: MIT
/*
 * The "mprotect" backend: a locked space is PROT_NONE; a read window makes
 * it readable, a write or rw window readable and writable, guest mode gives
 * back each mapping's own protection, and no level ever grants more than
 * the mapping's own protection.  Protection is per process, not per
 * thread, so the space takes the most open level any thread holds: a count
 * of holders per mode decides it, and a window closing never locks memory
 * under another thread's open window or running guest code.  The price:
 * while any thread holds a window or runs guest code, every thread of the
 * monitor can touch the space (see doc/protection.md).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../internal.h"

/* The protection a mapping gets at a level: never more than the guest's. */
static int level_prot(int level, int guest_prot)
{
	switch (level) {
	case UA_MODE_GUEST:
		return guest_prot;
	case UA_MODE_WRITE:
	case UA_MODE_RW:
		return guest_prot & (PROT_READ | PROT_WRITE);
	case UA_MODE_READ:
		return guest_prot & PROT_READ;
	default:
		return PROT_NONE;
	}
}

static int level_now(const struct ua_space *sp)
{
	const int *c = sp->mp_counts;

	if (c[UA_MODE_GUEST] > 0)
		return UA_MODE_GUEST;
	if (c[UA_MODE_WRITE] > 0 || c[UA_MODE_RW] > 0)
		return UA_MODE_RW;
	if (c[UA_MODE_READ] > 0)
		return UA_MODE_READ;
	return UA_MODE_LOCKED;
}

static void __attribute__((noreturn)) apply_failed(void)
{
	/* Running on with the space in an unknown state would be worse. */
	ua__write_str(2, "uaccess: mprotect() of a guest space failed (out "
			 "of memory or of VMAs): protection state unknown\n");
	abort();
}

/*
 * One mprotect() per run of mappings that end up alike, and none for a
 * run that the level in force already gives that protection (a
 * read-only mapping is the same in guest mode and in a read window).
 * Runs that become PROT_NONE may also span the unmapped gaps between
 * mappings, which are PROT_NONE reservations already: locking costs one
 * call.
 */
static void apply(struct ua_space *sp, int level)
{
	int from = sp->mp_level;
	size_t i = 0;

	while (i < sp->nmaps) {
		uintptr_t start = sp->maps[i].start, end = sp->maps[i].end;
		int prot = level_prot(level, sp->maps[i].prot);
		bool change = level_prot(from, sp->maps[i].prot) != prot;

		for (i++; i < sp->nmaps; i++) {
			const struct ua_mapping *m = &sp->maps[i];

			if (level_prot(level, m->prot) != prot ||
			    (m->start != end && prot != PROT_NONE))
				break;
			change |= level_prot(from, m->prot) != prot;
			end = m->end;
		}
		if (change && mprotect((void *)start, end - start, prot))
			apply_failed();
	}
	sp->mp_level = level;
}

static int mp_init(struct ua_space *sp)
{
	sp->mp_level = UA_MODE_LOCKED;
	return 0;
}

static void mp_fini(struct ua_space *sp)
{
	(void)sp;
}

/* Called with sp->lock held by ua_map(). */
static int mp_map_prot(struct ua_space *sp, int guest_prot)
{
	return level_prot(sp->mp_level, guest_prot);
}

/*
 * protect.c never calls this from a signal handler that interrupted a
 * holder of a space lock on the same thread (ua_self.space_locks), so the
 * lock cannot deadlock on its own thread.
 */
static void mp_switch(struct ua_space *sp, int from, int to)
{
	int level;

	ua__space_lock(sp);
	if (from != UA_MODE_LOCKED)
		sp->mp_counts[from]--;
	if (to != UA_MODE_LOCKED)
		sp->mp_counts[to]++;
	level = level_now(sp);
	if (level != sp->mp_level)
		apply(sp, level);
	ua__space_unlock(sp);
}

/* Only the forking thread's mode is left to count (space.c). */
static void mp_fork_child(struct ua_space *sp, int mode)
{
	memset(sp->mp_counts, 0, sizeof(sp->mp_counts));
	if (mode != UA_MODE_LOCKED)
		sp->mp_counts[mode] = 1;
	if (level_now(sp) != sp->mp_level)
		apply(sp, level_now(sp));
}

const struct ua_protect_ops ua__protect_mprotect = {
	.kind = UA_PROTECT_MPROTECT,
	.init = mp_init,
	.fini = mp_fini,
	.map_prot = mp_map_prot,
	.switch_mode = mp_switch,
	.fork_child = mp_fork_child,
};
