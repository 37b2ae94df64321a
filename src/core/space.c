// SPDX-License-Identifier: MIT
/*
 * Guest spaces: one PROT_NONE reservation per space, guest mappings placed
 * inside it with MAP_FIXED, and a guard gap after the limit that is never
 * mapped.  Unmapping puts the reservation back, so nothing else in the
 * process can ever be mapped inside a space or its guard.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../internal.h"

#define RESERVE_FLAGS (MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE)

static int opts_check(const struct ua_space_opts *opts)
{
	if (!opts)
		return 0;
	if ((unsigned)opts->protect > UA_PROTECT_PKEY)
		return -EINVAL;
	if (opts->guard_size > ((size_t)1 << 40))
		return -EINVAL;
	if ((uintptr_t)opts->addr & 4095)
		return -EINVAL;
	return 0;
}

struct ua_space *ua_space_create(size_t size, const struct ua_space_opts *opts)
{
	enum ua_protect want = opts ? opts->protect : UA_PROTECT_AUTO;
	struct ua_space *sp;
	void *base;
	int err;

	err = ua_init();
	if (err)
		goto fail;
	err = -EINVAL;
	if (!size || size > ((size_t)1 << 46) || opts_check(opts))
		goto fail;
	sp = calloc(1, sizeof(*sp));
	err = -ENOMEM;
	if (!sp)
		goto fail;
	sp->ops = ua__protect_select(want, &err);
	if (!sp->ops)
		goto free_sp;
	sp->size = ua__page_up(size);
	sp->guard = opts && opts->guard_size ? ua__page_up(opts->guard_size) :
					       UA_SPACE_DEFAULT_GUARD;
	base = mmap(opts ? opts->addr : NULL, sp->size + sp->guard, PROT_NONE,
		    RESERVE_FLAGS |
			    (opts && opts->addr ? MAP_FIXED_NOREPLACE : 0),
		    -1, 0);
	err = base == MAP_FAILED && errno == EEXIST ? -EEXIST : -ENOMEM;
	if (base == MAP_FAILED)
		goto free_sp;
	/* Kernels before 4.17 take the flag for a hint. */
	if (opts && opts->addr && base != opts->addr) {
		munmap(base, sp->size + sp->guard);
		err = -EEXIST;
		goto free_sp;
	}
	sp->base = (uintptr_t)base;
	sp->limit = sp->base + sp->size;
	sp->pkey = -1;
	atomic_init(&sp->lock, 0);
	err = sp->ops->init(sp);
	if (err)
		goto unmap;
	err = ua__registry_add(sp);
	if (err)
		goto fini;
	return sp;

fini:
	munmap(base, sp->size + sp->guard);
	sp->ops->fini(sp);
	goto free_sp;
unmap:
	munmap(base, sp->size + sp->guard);
free_sp:
	free(sp);
fail:
	errno = -err;
	return NULL;
}

/*
 * Why sp cannot go yet, on stderr: tasks not destroyed (a task holds its
 * stack and registers in the space), or threads other than the caller
 * that still have it as their current space (the kernel's mm_users).
 */
static bool space_busy(struct ua_space *sp)
{
	int tasks = atomic_load(&sp->tasks), users = atomic_load(&sp->users);
	char msg[200];

	if (ua_self.cur == sp)
		users--;
	if (tasks) {
		snprintf(msg, sizeof(msg),
			 "uaccess: ua_space_destroy: the space has %d task%s "
			 "not destroyed (%d still running); not destroyed\n",
			 tasks, tasks == 1 ? "" : "s",
			 atomic_load(&sp->running));
	} else if (users > 0) {
		snprintf(msg, sizeof(msg),
			 "uaccess: ua_space_destroy: the space is the current "
			 "space of %d other thread%s; not destroyed\n",
			 users, users == 1 ? "" : "s");
	} else {
		return false;
	}
	ua__write_str(2, msg);
	return true;
}

int ua_space_destroy(struct ua_space *sp)
{
	if (!sp)
		return 0;
	if (space_busy(sp)) {
		errno = EBUSY;
		return -EBUSY;
	}
	if (ua_self.cur == sp)
		ua_space_use(NULL);
	ua__protect_forget(sp);
	ua__registry_del(sp);
	/* Pages first: a protection key is freed only once no page has it. */
	munmap((void *)sp->base, sp->size + sp->guard);
	sp->ops->fini(sp);
	free(sp->maps);
	free(sp);
	return 0;
}

void *ua_space_base(const struct ua_space *sp)
{
	return (void *)sp->base;
}

size_t ua_space_size(const struct ua_space *sp)
{
	return sp->size;
}

void *ua_space_limit(const struct ua_space *sp)
{
	return (void *)sp->limit;
}

enum ua_protect ua_space_protect(const struct ua_space *sp)
{
	return sp->ops->kind;
}

/*
 * A thread that ends with a current space gives it up, or the space
 * could never be destroyed.  Key destructors run in the exiting thread,
 * before its TLS goes.
 */
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static void thread_exit(void *unused)
{
	(void)unused;
	ua_space_use(NULL);
}

static void exit_key_init(void)
{
	pthread_key_create(&exit_key, thread_exit);
}

static void arm_exit_hook(void)
{
	pthread_once(&exit_once, exit_key_init);
	pthread_setspecific(exit_key, &ua_self);
	ua_self.exit_hook = true;
}

struct ua_space *ua_space_use(struct ua_space *sp)
{
	struct ua_space *old = ua_self.cur;

	if (sp == old)
		return old;
	if (sp) {
		if (ua_unlikely(!ua_self.exit_hook))
			arm_exit_hook();
		atomic_fetch_add(&sp->users, 1);
	}
	ua_self.cur = sp;
	/*
	 * After cur: a signal handler in between may find the old range and
	 * send a buffer on to the checked accessors, which look at cur.
	 */
	ua__cur_range = sp ? (struct ua__cur_range){ sp->base, sp->size } :
			     (struct ua__cur_range){ 0, 0 };
	if (old)
		atomic_fetch_sub(&old->users, 1);
	return old;
}

struct ua_space *ua_current_space(void)
{
	return ua_self.cur;
}

/*
 * The list's helpers serve the fast path too (ua__fast_space_map() and
 * ua__fast_space_unmap() below), so they call nothing of the C library.
 */

/* Index of the first mapping that ends after addr. */
UA_FAST_INLINE size_t maps_find(const struct ua_space *sp, uintptr_t addr)
{
	size_t lo = 0, hi = sp->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sp->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int maps_reserve(struct ua_space *sp, size_t extra)
{
	struct ua_mapping *m;
	size_t cap;

	if (sp->nmaps + extra <= sp->maps_cap)
		return 0;
	cap = sp->maps_cap ? sp->maps_cap * 2 : 8;
	while (cap < sp->nmaps + extra)
		cap *= 2;
	m = realloc(sp->maps, cap * sizeof(*m));
	if (!m)
		return -ENOMEM;
	sp->maps = m;
	sp->maps_cap = cap;
	return 0;
}

/* Room for it made (maps_reserve()). */
UA_FAST_INLINE void maps_insert(struct ua_space *sp, size_t at,
				struct ua_mapping m)
{
	for (size_t j = sp->nmaps; j > at; j--)
		sp->maps[j] = sp->maps[j - 1];
	sp->maps[at] = m;
	sp->nmaps++;
}

/* First gap of len bytes, or 0. */
UA_FAST_INLINE uintptr_t find_gap(const struct ua_space *sp, size_t len)
{
	uintptr_t at = sp->base;

	for (size_t i = 0; i < sp->nmaps; i++) {
		if (sp->maps[i].start - at >= len)
			return at;
		at = sp->maps[i].end;
	}
	return sp->limit - at >= len ? at : 0;
}

static int map_locked(struct ua_space *sp, uintptr_t *addrp, size_t len,
		      int prot)
{
	uintptr_t addr = *addrp;
	int err, mprot;
	size_t i;
	void *p;

	if (!addr) {
		addr = find_gap(sp, len);
		if (!addr)
			return -ENOMEM;
	} else if (addr < sp->base || addr > sp->limit ||
		   len > sp->limit - addr) {
		return -ERANGE;
	}
	i = maps_find(sp, addr);
	if (i < sp->nmaps && sp->maps[i].start < addr + len)
		return -EEXIST;
	err = maps_reserve(sp, 1);
	if (err)
		return err;
	mprot = sp->ops->map_prot(sp, prot);
	p = mmap((void *)addr, len, prot, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_FIXED, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	/*
	 * Mapped first with the guest's protection, so the host's commit
	 * accounting takes or refuses it as it would the program's own
	 * mmap().  A backend that maps it otherwise (mprotect: PROT_NONE
	 * while the monitor runs) switches it at every entry and exit, and
	 * the host charges an untouched private mapping again each time it
	 * becomes writable (mm/mprotect.c, mprotect_fixup()): one refusal
	 * there would leave the protection state unknown.  So the backend's
	 * mapping takes the place of the accounted one without a charge.
	 */
	if (mprot != prot &&
	    mmap(p, len, mprot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED |
		 MAP_NORESERVE, -1, 0) == MAP_FAILED) {
		mmap(p, len, PROT_NONE, RESERVE_FLAGS | MAP_FIXED, -1, 0);
		return -ENOMEM;
	}
	if (sp->pkey >= 0 &&
	    pkey_mprotect(p, len, sp->ops->map_prot(sp, prot), sp->pkey)) {
		err = -errno;
		mmap(p, len, PROT_NONE, RESERVE_FLAGS | MAP_FIXED, -1, 0);
		return err;
	}
	maps_insert(sp, i, (struct ua_mapping){ addr, addr + len, prot });
	*addrp = addr;
	return 0;
}

void *ua_map(struct ua_space *sp, void *addr, size_t len, int prot)
{
	uintptr_t a = (uintptr_t)addr;
	int err;

	if (!sp || !len || (a & (ua__pagesz - 1)) ||
	    (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)) ||
	    len > sp->size) {
		errno = EINVAL;
		return NULL;
	}
	len = ua__page_up(len);
	ua__space_lock(sp);
	err = map_locked(sp, &a, len, prot);
	ua__space_unlock(sp);
	if (err) {
		errno = -err;
		return NULL;
	}
	return (void *)a;
}

/*
 * ua__map_file(): map [off, off + len) of host_fd at addr in sp, the way
 * ua_map() maps anonymous memory: flags MAP_PRIVATE (copy-on-write pages
 * of the file, as the kernel gives a private file map) or MAP_SHARED (the
 * page cache itself), with the backend's protection for the level now in
 * force and the space's protection key.  addr must be free in sp (the
 * caller unmaps first).  0 or -errno.
 */
int ua__map_file(struct ua_space *sp, uintptr_t addr, size_t len, int prot,
		 int flags, int host_fd, off_t off)
{
	size_t i;
	int err = 0, mprot;
	void *p;

	if (!sp || !len || (addr & (ua__pagesz - 1)) ||
	    (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)) ||
	    addr < sp->base || addr > sp->limit || len > sp->limit - addr)
		return -EINVAL;
	len = ua__page_up(len);
	ua__space_lock(sp);
	i = maps_find(sp, addr);
	if (i < sp->nmaps && sp->maps[i].start < addr + len) {
		err = -EEXIST;
		goto out;
	}
	err = maps_reserve(sp, 1);
	if (err)
		goto out;
	/*
	 * With the guest's protection first, so that the host checks the
	 * descriptor's mode against it (a shared writable map of a
	 * read-only file is EACCES, as the program's own mmap() would be):
	 * a map made PROT_NONE would pass, and the backend could not make
	 * it writable later.  Then the backend's protection.  NORESERVE:
	 * the backend's switches would charge a private writable map each
	 * time it became writable (see map_locked()).
	 */
	mprot = sp->ops->map_prot(sp, prot);
	p = mmap((void *)addr, len, prot, flags | MAP_FIXED | MAP_NORESERVE,
		 host_fd, off);
	if (p == MAP_FAILED) {
		err = -errno;
		mmap((void *)addr, len, PROT_NONE, RESERVE_FLAGS | MAP_FIXED,
		     -1, 0);
		goto out;
	}
	if (mprot != prot && mprotect(p, len, mprot)) {
		err = -errno;
		mmap(p, len, PROT_NONE, RESERVE_FLAGS | MAP_FIXED, -1, 0);
		goto out;
	}
	if (sp->pkey >= 0 && pkey_mprotect(p, len, mprot, sp->pkey)) {
		err = -errno;
		mmap(p, len, PROT_NONE, RESERVE_FLAGS | MAP_FIXED, -1, 0);
		goto out;
	}
	maps_insert(sp, i, (struct ua_mapping){ addr, addr + len, prot });
out:
	ua__space_unlock(sp);
	return err;
}

/*
 * The guest protection at addr (-1: not mapped), for the fault handler's
 * violation check; -2 when the calling thread holds a space lock, which a
 * signal handler must not take again.
 */
int ua__space_prot_at(struct ua_space *sp, uintptr_t addr)
{
	int prot = -1;
	size_t i;

	if (ua_self.space_locks)
		return -2;
	ua__space_lock(sp);
	i = maps_find(sp, addr);
	if (i < sp->nmaps && sp->maps[i].start <= addr)
		prot = sp->maps[i].prot;
	ua__space_unlock(sp);
	return prot;
}

/*
 * The run of mappings around addr that have one protection and no hole
 * between them, [*start, *end): what the kernel keeps as one vma, since
 * it merges neighbouring anonymous mappings that agree (mm/vma.c).  The
 * protection, or -1 when nothing is mapped at addr.
 */
int ua__space_vma(struct ua_space *sp, uintptr_t addr, uintptr_t *start,
		  uintptr_t *end)
{
	int prot = -1;
	size_t i, j;

	ua__space_lock(sp);
	i = maps_find(sp, addr);
	if (i >= sp->nmaps || sp->maps[i].start > addr)
		goto out;
	prot = sp->maps[i].prot;
	for (j = i; j > 0 && sp->maps[j - 1].end == sp->maps[j].start &&
		    sp->maps[j - 1].prot == prot;
	     j--)
		;
	*start = sp->maps[j].start;
	for (j = i;
	     j + 1 < sp->nmaps && sp->maps[j + 1].start == sp->maps[j].end &&
	     sp->maps[j + 1].prot == prot;
	     j++)
		;
	*end = sp->maps[j].end;
out:
	ua__space_unlock(sp);
	return prot;
}

/* Bytes mapped in sp, PROT_NONE included (the kernel's total_vm). */
size_t ua__space_mapped(struct ua_space *sp)
{
	size_t n = 0;

	ua__space_lock(sp);
	for (size_t i = 0; i < sp->nmaps; i++)
		n += sp->maps[i].end - sp->maps[i].start;
	ua__space_unlock(sp);
	return n;
}

/*
 * A copy of sp's mappings, sorted, in *out (the caller frees it): their
 * number, or 0 with *out NULL when there are none or no memory.
 */
size_t ua__space_maps_copy(struct ua_space *sp, struct ua_mapping **out)
{
	size_t n;

	ua__space_lock(sp);
	n = sp->nmaps;
	*out = n ? malloc(n * sizeof(**out)) : NULL;
	if (*out)
		memcpy(*out, sp->maps, n * sizeof(**out));
	else
		n = 0;
	ua__space_unlock(sp);
	return n;
}

/*
 * A fork copies the process as it is at that instant, and only the
 * forking thread goes on in the child: a space lock another thread held
 * then (a protection switch under mprotect, a map being added) would stay
 * held in the child for good, and the maps list could be half changed.
 * So the fork happens with the lock held (pthread_atfork()'s rule), and
 * the child's backend forgets the modes of the threads it does not have.
 */
void ua__space_fork_prepare(struct ua_space *sp)
{
	ua__space_lock(sp);
}

void ua__space_fork_parent(struct ua_space *sp)
{
	ua__space_unlock(sp);
}

void ua__space_fork_child(struct ua_space *sp)
{
	if (sp->ops->fork_child)
		sp->ops->fork_child(sp, ua__protect_mode(sp));
	ua__space_unlock(sp);
}

/* Is [lo, hi) covered by mappings without a hole? */
static bool maps_cover(const struct ua_space *sp, uintptr_t lo, uintptr_t hi)
{
	size_t i = maps_find(sp, lo);

	for (; i < sp->nmaps && lo < hi; i++) {
		if (sp->maps[i].start > lo)
			return false;
		lo = sp->maps[i].end;
	}
	return lo >= hi;
}

/* Does dropping [lo, hi) split a mapping in two: one entry more? */
UA_FAST_INLINE bool maps_splits(const struct ua_space *sp, uintptr_t lo,
				uintptr_t hi)
{
	size_t i = maps_find(sp, lo);

	return i < sp->nmaps && sp->maps[i].start < lo && sp->maps[i].end > hi;
}

/* Drop [lo, hi), room made for a split (maps_splits()). */
UA_FAST_INLINE void maps_cut(struct ua_space *sp, uintptr_t lo, uintptr_t hi)
{
	size_t i = maps_find(sp, lo), j;

	if (i < sp->nmaps && sp->maps[i].start < lo && sp->maps[i].end > hi) {
		struct ua_mapping tail = sp->maps[i];

		tail.start = hi;
		sp->maps[i].end = lo;
		maps_insert(sp, i + 1, tail);
		return;
	}
	if (i < sp->nmaps && sp->maps[i].start < lo) {
		sp->maps[i].end = lo;
		i++;
	}
	for (j = i; j < sp->nmaps && sp->maps[j].end <= hi; j++)
		;
	if (j < sp->nmaps && sp->maps[j].start < hi)
		sp->maps[j].start = hi;
	for (size_t k = 0; j > i && j + k < sp->nmaps; k++)
		sp->maps[i + k] = sp->maps[j + k];
	sp->nmaps -= j - i;
}

/* Drop [lo, hi) from the mapping list, splitting mappings that straddle. */
static int maps_remove(struct ua_space *sp, uintptr_t lo, uintptr_t hi)
{
	if (maps_splits(sp, lo, hi) && maps_reserve(sp, 1))
		return -ENOMEM;
	maps_cut(sp, lo, hi);
	return 0;
}

int ua_unmap(struct ua_space *sp, void *addr, size_t len)
{
	uintptr_t a = (uintptr_t)addr;
	int err;

	if (!sp || !len || (a & (ua__pagesz - 1)))
		return -EINVAL;
	len = ua__page_up(len);
	if (a < sp->base || a > sp->limit || len > sp->limit - a)
		return -ERANGE;
	ua__space_lock(sp);
	err = maps_remove(sp, a, a + len);
	if (!err && mmap(addr, len, PROT_NONE, RESERVE_FLAGS | MAP_FIXED, -1,
			 0) == MAP_FAILED)
		err = -ENOMEM;
	ua__space_unlock(sp);
	return err;
}

/* Give [lo, hi) back the host protection its mappings have now. */
static void host_prot_restore(struct ua_space *sp, uintptr_t lo, uintptr_t hi)
{
	for (size_t i = maps_find(sp, lo); i < sp->nmaps; i++) {
		const struct ua_mapping *m = &sp->maps[i];
		uintptr_t a = m->start > lo ? m->start : lo;
		uintptr_t b = m->end < hi ? m->end : hi;

		if (a >= hi)
			break;
		if (a < b &&
		    mprotect((void *)a, b - a, sp->ops->map_prot(sp, m->prot)))
			abort(); /* only lowering what it was: cannot fail */
	}
}

/*
 * Would the host let the guest have prot on [a, a + len)?  A shared map
 * of a file opened read-only may not become writable, a noexec mount's
 * pages not executable (mm/mprotect.c: EACCES).  The backend may apply
 * less than prot now (mprotect: nothing while the monitor runs), which
 * the host would take, and refuse prot only at the switch back to guest
 * code, with the state half changed: so ask it now, with prot itself,
 * and put the host protection back.  0 or -errno.
 */
static int host_allows(struct ua_space *sp, uintptr_t a, size_t len, int prot)
{
	int err = 0;

	if (sp->ops->map_prot(sp, prot) == prot ||
	    !(prot & (PROT_WRITE | PROT_EXEC)))
		return 0;
	if (mprotect((void *)a, len, prot))
		err = -errno;
	host_prot_restore(sp, a, a + len);
	return err;
}

int ua_mprotect(struct ua_space *sp, void *addr, size_t len, int prot)
{
	uintptr_t a = (uintptr_t)addr;
	int err, host;

	if (!sp || (a & (ua__pagesz - 1)) ||
	    (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)))
		return -EINVAL;
	if (!len)
		return 0;
	len = ua__page_up(len);
	if (a < sp->base || a > sp->limit || len > sp->limit - a)
		return -ERANGE;
	ua__space_lock(sp);
	err = -ENOMEM;
	if (!maps_cover(sp, a, a + len) || maps_reserve(sp, 2))
		goto out;
	err = host_allows(sp, a, len, prot);
	if (err)
		goto out;
	/* The host first: what it refuses leaves the mappings as they were. */
	host = sp->ops->map_prot(sp, prot);
	if (sp->pkey >= 0)
		err = pkey_mprotect(addr, len, host, sp->pkey) ? -errno : 0;
	else
		err = mprotect(addr, len, host) ? -errno : 0;
	if (err) {
		host_prot_restore(sp, a, a + len);
		goto out;
	}
	/* Reserved first: removing and inserting cannot fail half-way. */
	err = maps_remove(sp, a, a + len);
	if (err)
		goto out;
	maps_insert(sp, maps_find(sp, a),
		    (struct ua_mapping){ a, a + len, prot });
out:
	ua__space_unlock(sp);
	return err;
}

/*
 * For the fast path (src/linux/fast.c), on the guest's FS base, with the
 * space lock taken (ua__space_trylock_fast()): ua_map() of anonymous
 * memory at a gap ua__fast_space_gap() found, and ua_unmap(), with the
 * same list and the same host calls, under backend none (no second
 * mapping, no protection key).  -EAGAIN where only the full path can:
 * another backend, or a list that must grow (an allocation).
 */
UA_FAST uintptr_t ua__fast_space_gap(const struct ua_space *sp, size_t len)
{
	return find_gap(sp, len);
}

static inline UA_FAST bool fast_plain_space(const struct ua_space *sp)
{
	return sp->ops->kind == UA_PROTECT_NONE && sp->pkey < 0;
}

UA_FAST long ua__fast_space_map(struct ua_space *sp, uintptr_t addr,
				size_t len, int prot)
{
	size_t i;

	if (!fast_plain_space(sp) || sp->nmaps >= sp->maps_cap)
		return -EAGAIN;
	i = maps_find(sp, addr);
	if (i < sp->nmaps && sp->maps[i].start < addr + len)
		return -EAGAIN;
	if (ua__raw_syscall6(SYS_mmap, (long)addr, (long)len, prot,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
			     0) < 0)
		return -ENOMEM;
	maps_insert(sp, i, (struct ua_mapping){ addr, addr + len, prot });
	return 0;
}

UA_FAST long ua__fast_space_unmap(struct ua_space *sp, uintptr_t addr,
				  size_t len)
{
	if (!fast_plain_space(sp) ||
	    (maps_splits(sp, addr, addr + len) && sp->nmaps >= sp->maps_cap))
		return -EAGAIN;
	maps_cut(sp, addr, addr + len);
	if (ua__raw_syscall6(SYS_mmap, (long)addr, (long)len, PROT_NONE,
			     RESERVE_FLAGS | MAP_FIXED, -1, 0) < 0)
		return -ENOMEM;
	return 0;
}
