// SPDX-License-Identifier: MIT
/*
 * The patch trap path, the default: a guest runs under Syscall User
 * Dispatch as with sud; once a syscall site traps (its second trap, see
 * must_wait()), the one
 * instruction before its `syscall` (at least 5 bytes, and one that runs
 * the same anywhere: `mov $nr, %eax` in most libcs) becomes a 5-byte
 * `jmp rel32` to a trampoline slot in the space.  The slot runs a copy
 * of that instruction, finds the trap block through GS (checked, as the
 * rewrite tail does) and jumps to ua__patch_entry (trap.S) with RCX the
 * address after the `syscall`: the same entry, fast path and exit as a
 * rewritten site, without the return address `call *%rax` pushes into
 * the guest's red zone, and without page 0.  The `syscall` instruction
 * itself stays: a branch to it traps as before.
 *
 * x86 code cannot be decoded backwards, so the instruction before a
 * site is known only from a forward linear sweep of the program's code
 * sections (src/arch/x86_64/insn.c), which the loader names
 * (ua__patch_add_code()), from their start or from a function start of
 * the program's unwind table near the site (scan_near(), eh_frame.c);
 * a site that sweep did not find at an
 * instruction boundary, with a relocatable instruction of 5 bytes or
 * more before it, stays on sud, with the reason (--stats).
 *
 * A slot, for a site whose instruction I (len bytes) starts at S and
 * whose `syscall` is at Y = S + len:
 *
 *	I				the instruction, verbatim
 *	mov %gs:64, %r11		the rewrite tail's check (trap_rewrite.c):
 *	mov 64(%r11), %rcx		RCX = block->me - GS's block, without
 *	not %r11			touching RFLAGS
 *	lea 1(%rcx,%r11), %rcx
 *	not %r11
 *	jrcxz 1f
 *	jmp Y				not ours: the site's own syscall traps
 * 1:	lea Y+2(%rip), %rcx		what `syscall` leaves in RCX
 *	jmp *32(%r11)			ua__patch_entry
 *
 * A short site (2 to 4 bytes before the `syscall`, relocatable: glibc's
 * `xor %eax, %eax` of read) hops: its instruction becomes `jmp rel8` to
 * a hole within reach, padding no path runs (ua__insn_holes()), whose
 * five bytes jump to the slot.  A stop in the hole is the site's.
 *
 * With several threads the jump is written with the kernel's
 * cross-modifying-code protocol (text_poke_bp(), arch/x86/kernel/
 * alternative.c): an int3 over the instruction's first byte, the other
 * threads' cores serialised (membarrier's PRIVATE_EXPEDITED_SYNC_CORE:
 * the IPI the kernel sends), the rest of the jump, serialised again, its
 * first byte, serialised again.  A thread that meets the int3 meanwhile
 * takes a SIGTRAP at the site's start + 1; the monitor sends it on to
 * the slot (ua__patch_fault()), as if it had found the jump.  Where the
 * host has no SYNC_CORE membarrier, sites are patched only while the
 * space has one task.
 *
 * Guest state can stop inside a slot (a fault, a single step, an
 * asynchronous signal); it is then made what it would be at the site:
 * at the slot's start, before I (RIP S); after I, before the `syscall`
 * (RIP Y; RCX and R11, which the syscall overwrites, may already hold
 * other values).  A fault of the check itself is the site's syscall.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <uaccess/access.h>

#include "task_internal.h"
#include "../arch/x86_64/insn.h"

#define SLOT_SIZE 64u
/* Code sections: the program's, its interpreter's, its libraries'. */
#define MAX_CODE 128
/* A code section larger than this is not swept (nor patched). */
#define MAX_SWEEP ((uint64_t)256 << 20)
#define INSN_MAX 15u
/*
 * The sweep of this many bytes of a section costs about what one trap
 * through sud does: ~5 ns a byte (one pass of the decoder and the copy)
 * against 3 to 5 us a trap (a host signal, its sigreturn and, without
 * FSGSBASE, two arch_prctl), on a 2-vCPU EPYC VM (doc/uarun.md).
 */
#define SWEEP_BYTES_PER_TRAP 1024u
/* ua_task_opts.patch_after's ceiling: beyond it, sud alone does. */
#define MAX_PATCH_AFTER 1000000000u

/* One code section of the program, and the syscall sites a sweep found. */
struct patch_code {
	uint64_t start, len;
	struct ua__insn_site *sites; /* by address */
	size_t n;
	struct ua__insn_hole *holes; /* by address */
	size_t nholes;
	uint64_t traps; /* through sud before its sweep (ski rental) */
	bool swept, failed;
	bool changed; /* since loaded: the unwind table's starts are stale */
	int unwind;   /* its object's table in unwind[], or -1 */
};

/*
 * An object's .eh_frame, where the space has it, and the function
 * starts it gives (read when a scan first needs them).
 */
struct patch_unwind {
	uint64_t addr, len;
	uint64_t *fn;
	size_t nfn;
	bool read;
	char *path; /* the file to read it from (fn_read()), or NULL */
	uint64_t dev, ino, off;
};

/*
 * What a slot stands for: its site's `syscall` and instruction length,
 * and the hole the site hops through (0: it jumps to the slot itself).
 */
struct patch_slot {
	uint64_t sys;
	uint64_t hop;
	uint8_t len;
};

/*
 * The process's: its threads share it (ua__task_clone()).  lock orders
 * the patching, the sweeps and their undoing; slots and used are read
 * without it (a slot is written before used counts it).
 */
struct ua__patch {
	uint64_t area, area_len; /* trampoline pages, in the space */
	size_t used;		 /* slots handed out */
	struct patch_slot *slots;
	struct patch_code code[MAX_CODE];
	size_t ncode;
	struct patch_unwind unwind[MAX_CODE];
	size_t nunwind;
	pthread_mutex_t lock;
};

/* SYNC_CORE membarrier for this process: 0 not asked, 1 ready, -1 none. */
static _Atomic int membar;

static struct ua__patch *patch_of(struct ua_task *t)
{
	if (!t->patch) {
		t->patch = calloc(1, sizeof(*t->patch));
		if (t->patch)
			pthread_mutex_init(&t->patch->lock, NULL);
	}
	return t->patch;
}

/*
 * A forked child: one thread, whatever the parent's others held, and a
 * new mm, whose membarrier registration is asked again.
 */
void ua__patch_after_fork(struct ua_task *t)
{
	atomic_store(&membar, 0);
	if (!t->patch)
		return;
	pthread_mutex_init(&t->patch->lock, NULL);
}

static void code_drop(struct patch_code *c);

/* Is table u named by no section? */
static bool unwind_unused(const struct ua__patch *p, size_t u)
{
	for (size_t i = 0; i < p->ncode; i++)
		if (p->code[i].unwind == (int)u)
			return false;
	return true;
}

/*
 * The table at [addr, addr + len) (already known, or new), or -1.  Full,
 * the tables no section names any longer (an object unmapped) go first.
 */
static int unwind_of(struct ua__patch *p, const struct ua__eh_src *eh)
{
	struct patch_unwind *u;
	size_t k = 0;

	if (!eh->len)
		return -1;
	for (size_t u = 0; u < p->nunwind; u++)
		if (p->unwind[u].addr == eh->addr &&
		    p->unwind[u].len == eh->len)
			return (int)u;
	if (p->nunwind == MAX_CODE) {
		for (size_t u = 0; u < p->nunwind; u++) {
			if (unwind_unused(p, u)) {
				free(p->unwind[u].fn);
				free(p->unwind[u].path);
				continue;
			}
			for (size_t i = 0; i < p->ncode; i++)
				if (p->code[i].unwind == (int)u)
					p->code[i].unwind = (int)k;
			p->unwind[k++] = p->unwind[u];
		}
		p->nunwind = k;
		if (k == MAX_CODE)
			return -1;
	}
	u = &p->unwind[p->nunwind];
	*u = (struct patch_unwind){ .addr = eh->addr, .len = eh->len };
	if (eh->path) {
		u->path = strdup(eh->path);
		u->dev = eh->dev;
		u->ino = eh->ino;
		u->off = eh->off;
	}
	return (int)p->nunwind++;
}

/* Remove the sections that overlap [start, start + len). */
static void code_remove(struct ua__patch *p, uint64_t start, uint64_t len)
{
	size_t k = 0;

	for (size_t i = 0; i < p->ncode; i++) {
		struct patch_code *c = &p->code[i];

		if (start < c->start + c->len && c->start < start + len) {
			code_drop(c);
			continue;
		}
		p->code[k++] = *c;
	}
	p->ncode = k;
}

int ua__patch_add_code(struct ua_task *t, uint64_t start, uint64_t len,
		       const struct ua__eh_src *eh)
{
	struct ua__patch *p = patch_of(t);
	int err = 0;

	if (!p)
		return -ENOMEM;
	pthread_mutex_lock(&p->lock);
	/* What was mapped there before is gone. */
	code_remove(p, start, len);
	if (p->ncode == MAX_CODE) {
		err = -ENOSPC;
	} else {
		p->code[p->ncode++] = (struct patch_code){
			.start = start,
			.len = len,
			.unwind = unwind_of(p, eh),
		};
	}
	pthread_mutex_unlock(&p->lock);
	return err;
}

void ua__patch_set_area(struct ua_task *t, uint64_t start, uint64_t len)
{
	struct ua__patch *p = patch_of(t);

	if (!p)
		return;
	free(p->slots);
	p->slots = calloc(len / SLOT_SIZE, sizeof(*p->slots));
	p->area = start;
	p->area_len = p->slots ? len : 0;
	p->used = 0;
}

static void code_drop(struct patch_code *c)
{
	free(c->sites);
	c->sites = NULL;
	c->n = 0;
	free(c->holes);
	c->holes = NULL;
	c->nholes = 0;
	c->swept = c->failed = false;
}

/*
 * Guest code in [start, start + len) may have changed: what the sweeps
 * of the sections it touches found no longer holds, and a section it
 * covers whole is no longer known to be code at all (an object
 * unmapped).  Sites patched already keep their trampolines (a site whose
 * bytes changed no longer jumps there).
 */
void ua__patch_forget(struct ua_task *t, uint64_t start, uint64_t len)
{
	struct ua__patch *p = t->patch;
	size_t k = 0;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; i < p->ncode; i++) {
		struct patch_code *c = &p->code[i];

		if (start < c->start + c->len && c->start < start + len) {
			code_drop(c);
			c->changed = true;
			/* Covered whole: not known to be code any longer. */
			if (start <= c->start &&
			    c->start + c->len <= start + len)
				continue;
		}
		p->code[k++] = *c;
	}
	p->ncode = k;
	pthread_mutex_unlock(&p->lock);
}

/*
 * The fast path's munmap leaves a range with code in it to the full
 * path (ua__patch_forget() above).  No lock: the fast path runs only
 * while the process has one thread, the one that changes the table.
 */
UA_FAST bool ua__fast_patch_overlaps(const struct ua_task *t, uint64_t start,
				     uint64_t len)
{
	const struct ua__patch *p = t->patch;

	for (size_t i = 0; p && i < p->ncode; i++)
		if (start < p->code[i].start + p->code[i].len &&
		    p->code[i].start < start + len)
			return true;
	return false;
}

void ua__patch_free(struct ua_task *t)
{
	struct ua__patch *p = t->patch;

	if (!p)
		return;
	for (size_t i = 0; i < p->ncode; i++)
		code_drop(&p->code[i]);
	for (size_t u = 0; u < p->nunwind; u++) {
		free(p->unwind[u].fn);
		free(p->unwind[u].path);
	}
	free(p->slots);
	free(p);
	t->patch = NULL;
}

static struct patch_code *code_at(struct ua__patch *p, uint64_t sys)
{
	for (size_t i = 0; i < p->ncode; i++) {
		struct patch_code *c = &p->code[i];

		if (sys >= c->start && sys - c->start < c->len)
			return c;
	}
	return NULL;
}

/*
 * Every site the sweep can find is a `syscall` (0f 05) somewhere in the
 * bytes: their count bounds the sites, so one pass of the decoder does.
 */
static size_t syscall_bytes(const uint8_t *buf, size_t len)
{
	size_t n = 0;

	for (const uint8_t *p = buf; len >= 2;) {
		const uint8_t *q = memchr(p, 0x0f, len - 1);

		if (!q)
			break;
		n += q[1] == 0x05;
		len -= (size_t)(q + 1 - p);
		p = q + 1;
	}
	return n;
}

/* An array of n, its room cut to what it holds (kept if that fails). */
static void *shrink(void *a, size_t n, size_t size)
{
	void *r = realloc(a, (n ? n : 1) * size);

	return r ? r : a;
}

/*
 * Sweep a section, from a copy of its bytes as the guest has them now:
 * one pass of the decoder finds the sites and the holes.  Sites are
 * bounded by the `syscall` byte pairs, holes by len / 5 (each is 5 bytes
 * at least); the arrays shrink to what was found.
 */
static int sweep(struct patch_code *c)
{
	struct ua__insn_scan s = { .pagesz = ua__pagesz };
	uint8_t *buf;
	int err = -ENOMEM;

	if (c->len > MAX_SWEEP)
		return -EFBIG;
	buf = malloc(c->len);
	if (!buf)
		return -ENOMEM;
	if (ua_copy_from_user(buf, (const void *)c->start, c->len)) {
		free(buf);
		return -EFAULT;
	}
	s.max_sites = syscall_bytes(buf, c->len) + 1;
	s.max_holes = c->len / 5 + 1;
	s.sites = calloc(s.max_sites, sizeof(*s.sites));
	s.holes = calloc(s.max_holes, sizeof(*s.holes));
	if (!s.sites || !s.holes)
		goto out;
	ua__insn_scan(buf, c->len, c->start, &s);
	/* What scans near single sites found is found again. */
	free(c->sites);
	free(c->holes);
	c->sites = shrink(s.sites, s.nsites, sizeof(*s.sites));
	c->n = s.nsites;
	c->holes = shrink(s.holes, s.nholes, sizeof(*s.holes));
	c->nholes = s.nholes;
	s.sites = NULL;
	s.holes = NULL;
	c->swept = true;
	err = 0;
out:
	free(s.sites);
	free(s.holes);
	free(buf);
	return err;
}

static const struct ua__insn_site *site_in(const struct patch_code *c,
					   uint64_t sys)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->sites[mid].sys < sys)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->n && c->sites[lo].sys == sys ? &c->sites[lo] : NULL;
}

/*
 * The table's bytes from the file the object was mapped from, if it is
 * still that file: the same bytes as the unchanged code's pages in the
 * space, read without mapping the guest's pages of the table into the
 * process, where they would count in the program's resident set (libc's
 * table is 150 KiB the program itself never touches).
 */
static bool read_file(const struct patch_unwind *u, uint8_t *buf)
{
	struct stat st;
	size_t got = 0;
	ssize_t n = 0;
	int fd;

	if (!u->path)
		return false;
	fd = open(u->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_dev != u->dev || (uint64_t)st.st_ino != u->ino)
		goto out;
	while (got < u->len) {
		n = pread(fd, buf + got, u->len - got, (off_t)(u->off + got));
		if (n <= 0)
			break;
		got += (size_t)n;
	}
out:
	close(fd);
	return got == u->len;
}

/*
 * The function starts of an object's unwind table, read when a scan
 * first needs them (the loader and mmap only say where the table is):
 * from its file, else from the space.  The copy's pages come populated:
 * on a VM each page fault of a fresh buffer costs more than the parse
 * of its bytes.
 */
static void fn_read(struct patch_unwind *u)
{
	size_t len = u->len;
	uint8_t *buf;
	long n;

	if (u->read)
		return;
	u->read = true;
	if (!len || len > MAX_SWEEP)
		return;
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (buf == MAP_FAILED)
		return;
	if (read_file(u, buf) ||
	    !ua_copy_from_user(buf, (const void *)u->addr, len)) {
		n = ua__eh_frame_starts(buf, len, u->addr, &u->fn);
		u->nfn = n > 0 ? (size_t)n : 0;
	}
	munmap(buf, len);
}

/*
 * Can a scan near one site stand in for the section's sweep?  Only
 * while the code is what the object was mapped with, and its unwind
 * table (read only when a scan comes) names function starts.
 */
static bool may_scan(const struct ua__patch *p, const struct patch_code *c)
{
	const struct patch_unwind *u;

	if (c->changed || c->unwind < 0)
		return false;
	u = &p->unwind[c->unwind];
	return !u->read || u->nfn;
}

/* The index of the first function start at or after addr. */
static size_t fn_index(const struct patch_unwind *u, uint64_t addr)
{
	size_t lo = 0, hi = u->nfn;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->fn[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The last function start at or before addr, or 0. */
static uint64_t fn_before(const struct patch_unwind *u, uint64_t addr)
{
	size_t i = addr == UINT64_MAX ? u->nfn : fn_index(u, addr + 1);

	return i ? u->fn[i - 1] : 0;
}

/* The first function start at or after addr, or UINT64_MAX. */
static uint64_t fn_after(const struct patch_unwind *u, uint64_t addr)
{
	size_t i = fn_index(u, addr);

	return i < u->nfn ? u->fn[i] : UINT64_MAX;
}

/*
 * Array a of n elements of size bytes with item put at index at, or
 * NULL (a kept) when there is no memory for it.
 */
static void *insert_at(void *a, size_t n, size_t at, const void *item,
		       size_t size)
{
	char *v = realloc(a, (n + 1) * size);

	if (!v)
		return NULL;
	memmove(v + (at + 1) * size, v + at * size, (n - at) * size);
	memcpy(v + at * size, item, size);
	return v;
}

/* Put what a scan found into c's sorted arrays: sites once each... */
static void sites_merge(struct patch_code *c, const struct ua__insn_site *s,
			size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct ua__insn_site *v;
		size_t at = 0;

		while (at < c->n && c->sites[at].sys < s[i].sys)
			at++;
		if (at < c->n && c->sites[at].sys == s[i].sys)
			continue;
		v = insert_at(c->sites, c->n, at, &s[i], sizeof(*v));
		if (!v)
			return;
		c->sites = v;
		c->n++;
	}
}

/*
 * ...and holes that overlap none known: a hole handed out in part is a
 * jump and int3s now, which a later scan finds as a shorter hole.
 */
static void holes_merge(struct patch_code *c, const struct ua__insn_hole *h,
			size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct ua__insn_hole *v;
		size_t at = 0;

		while (at < c->nholes &&
		       c->holes[at].addr + c->holes[at].len <= h[i].addr)
			at++;
		if (at < c->nholes && c->holes[at].addr < h[i].addr + h[i].len)
			continue;
		v = insert_at(c->holes, c->nholes, at, &h[i], sizeof(*v));
		if (!v)
			return;
		c->holes = v;
		c->nholes++;
	}
}

/*
 * Instead of the whole section, sweep from a function start the unwind
 * table names to one after the site, wide enough for the holes a
 * `jmp rel8` from the site reaches: as exact as the full sweep (it
 * starts where an instruction does, and decodes the same way), at the
 * cost of a few functions.  False when the table does not help (none,
 * code changed since it was loaded, a huge function, the site not found
 * in step): the ski rental decides.
 */
#define SCAN_REACH 160u
#define SCAN_MAX ((uint64_t)256 << 10)

static bool scan_near(struct ua__patch *p, struct patch_code *c, uint64_t sys)
{
	struct ua__insn_scan s = { .pagesz = ua__pagesz };
	uint64_t lo, hi, cend = c->start + c->len;
	struct patch_unwind *u;
	bool found = false;
	uint8_t *buf;

	if (!may_scan(p, c))
		return false;
	u = &p->unwind[c->unwind];
	fn_read(u);
	if (!u->nfn)
		return false;
	lo = sys - c->start > SCAN_REACH ? fn_before(u, sys - SCAN_REACH) : 0;
	if (lo < c->start)
		lo = c->start;
	hi = cend - sys > SCAN_REACH ? fn_after(u, sys + SCAN_REACH) : cend;
	if (hi > cend)
		hi = cend;
	if (hi - lo > SCAN_MAX || hi < sys + 2)
		return false;
	buf = malloc(hi - lo);
	if (!buf)
		return false;
	if (ua_copy_from_user(buf, (const void *)lo, hi - lo))
		goto out;
	s.max_sites = syscall_bytes(buf, hi - lo) + 1;
	s.max_holes = (hi - lo) / 5 + 1;
	s.sites = calloc(s.max_sites, sizeof(*s.sites));
	s.holes = calloc(s.max_holes, sizeof(*s.holes));
	if (!s.sites || !s.holes)
		goto out;
	ua__insn_scan(buf, hi - lo, lo, &s);
	for (size_t i = 0; i < s.nsites && !found; i++)
		found = s.sites[i].sys == sys &&
			s.sites[i].why != UA_INSN_WHY_UNSYNCED;
	if (found) {
		sites_merge(c, s.sites, s.nsites);
		holes_merge(c, s.holes, s.nholes);
	}
out:
	free(s.sites);
	free(s.holes);
	free(buf);
	return found && site_in(c, sys);
}

/*
 * The sweep's word on the site: its instruction's length, or why not;
 * *c its section.  A short one (*hop) needs a hole.
 */
static unsigned int site_len(struct ua__patch *p, uint64_t sys, uint8_t *len,
			     bool *hop, struct patch_code **cp)
{
	struct patch_code *c = code_at(p, sys);
	const struct ua__insn_site *s;

	if (!c || sys + 2 > c->start + c->len)
		return UA_PATCH_WHY_NOT_CODE;
	s = c->swept ? NULL : site_in(c, sys);
	if (!s && !c->swept && !c->failed && sweep(c))
		c->failed = true;
	if (!s && c->failed)
		return UA_PATCH_WHY_FAILED;
	if (!s)
		s = site_in(c, sys);
	if (!s)
		return UA_PATCH_WHY_NOT_SWEPT;
	*cp = c;
	*hop = !s->len && s->hop_len;
	if (*hop) {
		*len = s->hop_len;
		return UA_PATCH_OK;
	}
	if (!s->len)
		return UA_PATCH_WHY_INSN + s->why;
	*len = s->len;
	return UA_PATCH_OK;
}

/*
 * Five bytes of a hole of c within a `jmp rel8` of from_end (the end of
 * the short site's jump), or NULL; *at their address.
 */
static struct ua__insn_hole *hole_near(struct patch_code *c, uint64_t from_end,
				       uint64_t *at)
{
	size_t lo = 0, hi = c->nholes;

	/* The first hole that may end past from_end - 128. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->holes[mid].addr + 255 < from_end - 128)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < c->nholes; i++) {
		struct ua__insn_hole *h = &c->holes[i];
		int64_t d = (int64_t)(h->addr + h->used - from_end);

		if (d > 127)
			break;
		if (d >= -128 && h->len - h->used >= 5) {
			*at = h->addr + h->used;
			return h;
		}
	}
	return NULL;
}

static void put_rel32(uint8_t *at, uint64_t from_end, uint64_t to)
{
	int32_t rel = (int32_t)(to - from_end);

	memcpy(at, &rel, sizeof(rel));
}

/* Is `to` within a rel32 of the end of an instruction at from_end? */
static bool rel32_ok(uint64_t from_end, uint64_t to)
{
	int64_t d = (int64_t)(to - from_end);

	return d == (int32_t)d;
}

/* The check of the rewrite tail (trap_rewrite.c), RCX and R11 only. */
static const uint8_t slot_check[] = {
	0x65, 0x4c, 0x8b, 0x1c, 0x25, 0x40, 0x00, 0x00, 0x00, /* mov %gs:64 */
	0x49, 0x8b, 0x4b, 0x40,				      /* mov 64(%r11) */
	0x49, 0xf7, 0xd3,				      /* not %r11 */
	0x4a, 0x8d, 0x4c, 0x19, 0x01,			      /* lea */
	0x49, 0xf7, 0xd3,				      /* not %r11 */
	0xe3, 0x05,					      /* jrcxz +5 */
};

/* A slot's code at address at, for the instruction insn before sys. */
static void slot_build(uint8_t *b, uint64_t at, const uint8_t *insn,
		       uint8_t len, uint64_t sys)
{
	size_t o = 0;

	memset(b, 0xcc, SLOT_SIZE);
	memcpy(b, insn, len);
	o += len;
	memcpy(b + o, slot_check, sizeof(slot_check));
	o += sizeof(slot_check);
	b[o] = 0xe9; /* jmp sys */
	put_rel32(b + o + 1, at + o + 5, sys);
	o += 5;
	b[o] = 0x48; /* lea sys+2(%rip), %rcx */
	b[o + 1] = 0x8d;
	b[o + 2] = 0x0d;
	put_rel32(b + o + 3, at + o + 7, sys + 2);
	o += 7;
	b[o] = 0x41; /* jmp *32(%r11) */
	b[o + 1] = 0xff;
	b[o + 2] = 0x63;
	b[o + 3] = 0x20;
}

_Static_assert(INSN_MAX + sizeof(slot_check) + 5 + 7 + 4 <= SLOT_SIZE,
	       "a slot holds the longest instruction");

/*
 * Write len bytes at addr of guest code, its page writable only
 * meanwhile; the protection comes back to exactly what it was.
 */
static bool code_write(struct ua_space *sp, uint64_t addr, const void *src,
		       size_t len, int prot)
{
	uintptr_t page = addr & ~(uintptr_t)(ua__pagesz - 1);
	bool ok;

	if (!(prot & PROT_WRITE) &&
	    ua_mprotect(sp, (void *)page, ua__pagesz, prot | PROT_WRITE))
		return false;
	ok = !ua_copy_to_user((void *)addr, src, len);
	if (!(prot & PROT_WRITE))
		ua_mprotect(sp, (void *)page, ua__pagesz, prot);
	return ok;
}

/*
 * A new slot for the site, written and executable; its address or 0.
 * from_end: the end of the jump that enters it (at the site or a hole).
 */
static uint64_t slot_new(struct ua_task *t, struct ua__patch *p,
			 const uint8_t *insn, uint8_t len, uint64_t sys,
			 uint64_t from_end, uint64_t hop)
{
	uint8_t code[SLOT_SIZE];
	uint64_t at;

	if (p->used >= p->area_len / SLOT_SIZE)
		return 0;
	at = p->area + p->used * SLOT_SIZE;
	if (!rel32_ok(from_end, at) || !rel32_ok(at + SLOT_SIZE, sys))
		return 0;
	slot_build(code, at, insn, len, sys);
	/* Slots never share a page with guest data: the area is ours. */
	if (!code_write(t->sp, at, code, SLOT_SIZE, PROT_READ | PROT_EXEC))
		return 0;
	p->slots[p->used] = (struct patch_slot){ sys, hop, len };
	__atomic_store_n(&p->used, p->used + 1, __ATOMIC_RELEASE);
	return at;
}

/* Every core running one of the process's threads serialised. */
bool ua__code_sync(void)
{
	return !syscall(SYS_membarrier,
			MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
}

/* May code be changed while other threads run?  Asked once. */
bool ua__code_sync_ready(void)
{
	if (!atomic_load(&membar))
		atomic_store(&membar,
			     syscall(SYS_membarrier,
				     MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE,
				     0, 0) ?
				     -1 :
				     1);
	return atomic_load(&membar) > 0;
}

/*
 * The jump written over old (len bytes at start) while other threads may
 * run it: text_poke_bp()'s three steps.  On a failure the old bytes are
 * put back the same way round, so that no int3 of ours stays.
 */
static bool code_poke(struct ua_space *sp, uint64_t start,
		      const uint8_t *old, const uint8_t *new, uint8_t len,
		      int prot)
{
	uintptr_t page = start & ~(uintptr_t)(ua__pagesz - 1);
	uint8_t *at = (uint8_t *)start;
	bool ok;

	if (!(prot & PROT_WRITE) &&
	    ua_mprotect(sp, (void *)page, ua__pagesz, prot | PROT_WRITE))
		return false;
	ok = !ua_put_user((uint8_t)0xcc, at) && ua__code_sync() &&
	     !ua_copy_to_user(at + 1, new + 1, len - 1u) && ua__code_sync() &&
	     !ua_put_user(new[0], at) && ua__code_sync();
	if (!ok) {
		if (!ua_copy_to_user(at + 1, old + 1, len - 1u))
			ua__code_sync();
		if (!ua_put_user(old[0], at))
			ua__code_sync();
	}
	if (!(prot & PROT_WRITE))
		ua_mprotect(sp, (void *)page, ua__pagesz, prot);
	return ok;
}

/*
 * Fill five bytes of hole h at `at` with a jump to slot.  Its first use
 * turns the rest of it into int3 (a later sweep stays in step, and finds
 * the rest as a hole again); before that its bytes must still be the
 * padding the sweep saw.  Nothing runs a hole: no protocol is needed,
 * and the site's own jump, written after, comes with the syncs.
 */
static bool hole_fill(struct ua_task *t, struct ua__insn_hole *h, uint64_t at,
		      uint64_t slot)
{
	uint8_t b[255];
	int prot = ua__space_prot_at(t->sp, h->addr);

	if (prot < 0 || !(prot & PROT_EXEC))
		return false;
	if (!h->used) {
		if (ua_copy_from_user(b, (const void *)h->addr, h->len) ||
		    !ua__insn_all_pad(b, h->len))
			return false;
		memset(b, 0xcc, h->len);
	}
	b[at - h->addr] = 0xe9;
	put_rel32(b + (at - h->addr) + 1, at + 5, slot);
	if (h->used ? !code_write(t->sp, at, b + (at - h->addr), 5, prot) :
		      !code_write(t->sp, h->addr, b, h->len, prot))
		return false;
	h->used += 5;
	return true;
}

/*
 * A short site (under 5 bytes before the `syscall`): its instruction
 * becomes `jmp rel8` to a hole nearby, which jumps to the slot.
 */
static unsigned int hop_prepare(struct ua_task *t, struct patch_code *c,
				const uint8_t *insn, uint8_t len, uint64_t sys,
				uint8_t *jmp)
{
	uint64_t start = sys - len, at, slot;
	struct ua__insn_hole *h = hole_near(c, start + 2, &at);

	if (!h)
		return UA_PATCH_WHY_NO_HOLE;
	slot = slot_new(t, t->patch, insn, len, sys, at + 5, at);
	if (!slot)
		return UA_PATCH_WHY_FULL;
	if (!hole_fill(t, h, at, slot))
		return UA_PATCH_WHY_NO_HOLE;
	memset(jmp, 0xcc, len);
	jmp[0] = 0xeb;
	jmp[1] = (uint8_t)(int8_t)(at - (start + 2));
	return UA_PATCH_OK;
}

/*
 * Patch the site whose `syscall` is at sys: UA_PATCH_OK, or why not.
 * The bytes are read again and decoded here, whatever the sweep saw.
 */
static unsigned int try_patch(struct ua_task *t, uint64_t sys, uint8_t *lenp,
			      bool threads)
{
	struct ua__patch *p = t->patch;
	uint8_t bytes[INSN_MAX + 2], jmp[INSN_MAX];
	struct patch_code *c = NULL;
	struct ua__insn insn;
	unsigned int why;
	uint64_t start, slot;
	uint8_t len = 0;
	bool hop = false;
	int prot;

	if (!p || !p->area_len)
		return UA_PATCH_WHY_NOT_CODE;
	why = site_len(p, sys, &len, &hop, &c);
	if (why)
		return why;
	*lenp = len;
	start = sys - len;
	if ((start & ~(uint64_t)(ua__pagesz - 1)) !=
	    ((start + (hop ? 1 : 4)) & ~(uint64_t)(ua__pagesz - 1)))
		return UA_PATCH_WHY_PAGES;
	prot = ua__space_prot_at(t->sp, start);
	if (prot < 0 || !(prot & PROT_EXEC) ||
	    ua__space_prot_at(t->sp, sys + 1) != prot)
		return UA_PATCH_WHY_NOT_EXEC;
	if (ua_copy_from_user(bytes, (const void *)start, len + 2u))
		return UA_PATCH_WHY_CHANGED;
	if (bytes[len] != 0x0f || bytes[len + 1] != 0x05 ||
	    ua__insn_decode(bytes, len, &insn) != len || !insn.relocatable)
		return UA_PATCH_WHY_CHANGED;
	if (hop) {
		why = hop_prepare(t, c, bytes, len, sys, jmp);
		if (why)
			return why;
	} else {
		slot = slot_new(t, p, bytes, len, sys, start + 5, 0);
		if (!slot)
			return UA_PATCH_WHY_FULL;
		/*
		 * The bytes after the jmp (an instruction longer than 5)
		 * become int3, so that a later sweep stays in step.
		 */
		memset(jmp, 0xcc, len);
		jmp[0] = 0xe9;
		put_rel32(jmp + 1, start + 5, slot);
	}
	/* One thread: nothing runs this code meanwhile. */
	if (threads ? !code_poke(t->sp, start, bytes, jmp, len, prot) :
		      !code_write(t->sp, start, jmp, len, prot))
		return UA_PATCH_WHY_FAILED;
	return UA_PATCH_OK;
}

int ua__patch_after(const struct ua_task_opts *opts, uint32_t *after)
{
	const char *v = getenv("UA_PATCH_AFTER");
	unsigned long n;
	char *end;

	*after = opts ? opts->patch_after : 0;
	if (*after == UA_PATCH_AFTER_AUTO) {
		*after = 0;
		return 0;
	}
	if (*after > MAX_PATCH_AFTER)
		return -EINVAL;
	if (*after || !v || !*v || !strcmp(v, "auto"))
		return 0;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (!errno && !*end && n >= 1 && n <= MAX_PATCH_AFTER && v[0] != '-') {
		*after = (uint32_t)n;
		return 0;
	}
	ua__write_str(2, "uaccess: UA_PATCH_AFTER='");
	ua__write_str(2, v);
	ua__write_str(2, "' is not auto or a count of traps from 1 to "
			 "1000000000\n");
	return -EINVAL;
}

/*
 * Ski rental: a section is swept only once its sites have trapped through
 * sud about as long as the sweep takes (or t->patch_after times), so a
 * process that makes few syscalls never pays for a sweep, and one that
 * makes many pays at most twice what knowing the future would have cost.
 * Until then its sites wait, on sud.  With the unwind table a site costs
 * a scan of a few functions and its patch, about one trap: it is rented
 * once, and patched at its second trap.  A count the user gave is the
 * section's, as before.  0: do not wait; else why.
 */
static unsigned int must_wait(const struct ua_task *t, struct ua__patch *p,
			      uint64_t sys, bool first)
{
	struct patch_code *c = code_at(p, sys);
	uint64_t after = t->patch_after;

	if (!c || c->swept || c->failed || site_in(c, sys))
		return 0;
	if (after) {
		if (++c->traps < after)
			return UA_PATCH_WHY_WAIT;
		/* Else the sweep, when the table does not help. */
		scan_near(p, c, sys);
		return 0;
	}
	if (may_scan(p, c)) {
		if (first) {
			c->traps++;
			return UA_PATCH_WHY_ONCE;
		}
		if (scan_near(p, c, sys))
			return 0;
	}
	return ++c->traps < c->len / SWEEP_BYTES_PER_TRAP ? UA_PATCH_WHY_WAIT :
							    0;
}

/*
 * A syscall trapped through Syscall User Dispatch in a task under patch
 * (monitor mode, space locked): patch its site if it may be, once its
 * section is swept; a site that stays on sud is listed with the reason
 * and its traps.
 */
void ua__patch_site(struct ua_task *t, const struct ua_pt_regs *r)
{
	uint64_t sys = r->rip - 2;
	struct ua__rw_site *e;
	struct ua__patch *p;
	bool is_new, threads;
	unsigned int wait;
	uint8_t len = 0;

	/* Guest memory only: never the monitor's own text. */
	if (r->rip < 2 || sys < t->sp->base || r->rip > t->sp->limit)
		return;
	p = t->patch;
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	/* Another thread may be running the code: see the top. */
	threads = atomic_load(&t->sp->tasks) > 1;
	if (threads && !ua__code_sync_ready())
		goto out;
	e = ua__rw_site_get(t, sys, r->orig_rax, &is_new);
	if (!e)
		goto out;
	if (!is_new && e->why != UA_PATCH_WHY_WAIT &&
	    e->why != UA_PATCH_WHY_ONCE) {
		/* Stayed on sud, or the trampoline's check sent it back. */
		ua__site_trip(e);
		goto out;
	}
	wait = must_wait(t, p, sys, is_new);
	if (wait) {
		e->why = (uint8_t)wait;
		ua__site_trip(e);
		goto out;
	}
	e->why = (uint8_t)try_patch(t, sys, &len, threads);
	e->len = len;
	e->trips = e->why ? 1 : 0;
out:
	pthread_mutex_unlock(&p->lock);
}

/* The slot RIP is in, or NULL; *off its offset there. */
static const struct patch_slot *slot_at(const struct ua_task *t, uint64_t rip,
					unsigned int *off)
{
	const struct ua__patch *p = t->patch;
	uint64_t i;

	if (!p || rip < p->area ||
	    rip - p->area >= __atomic_load_n(&p->used, __ATOMIC_ACQUIRE) *
					SLOT_SIZE)
		return NULL;
	i = (rip - p->area) / SLOT_SIZE;
	*off = (unsigned int)((rip - p->area) % SLOT_SIZE);
	return &p->slots[i];
}

/* The slot whose site hops through addr, or NULL. */
static const struct patch_slot *hop_at(const struct ua_task *t, uint64_t addr)
{
	const struct ua__patch *p = t->patch;
	size_t n;

	if (!p)
		return NULL;
	n = __atomic_load_n(&p->used, __ATOMIC_ACQUIRE);
	for (size_t i = 0; i < n; i++)
		if (p->slots[i].hop == addr)
			return &p->slots[i];
	return NULL;
}

/* The slot of the site whose first byte is addr, or 0. */
static uint64_t site_slot(const struct ua_task *t, uint64_t addr)
{
	const struct ua__patch *p = t->patch;
	size_t n;

	if (!p)
		return 0;
	n = __atomic_load_n(&p->used, __ATOMIC_ACQUIRE);
	for (size_t i = 0; i < n; i++)
		if (p->slots[i].sys - p->slots[i].len == addr)
			return p->area + i * SLOT_SIZE;
	return 0;
}

/*
 * Guest state stopped in a slot is made the site's: before its
 * instruction (the slot's start) or after it.  False: not in a slot, or
 * in one where no instruction starts (the guest jumped there itself).
 */
static bool slot_to_site(struct ua_task *t, const struct patch_slot *s,
			 unsigned int off)
{
	if (off == 0) {
		t->regs.rip = s->sys - s->len;
		return true;
	}
	if (off < s->len)
		return false;
	t->regs.rip = s->sys;
	return true;
}

/*
 * From ua__guest_fault() (monitor mode, locked): a fault or trap with
 * guest RIP in a slot.  At the slot's start a single step (the jump's)
 * goes on silently; there any other fault is the instruction's own,
 * delivered at the site.  Right after the instruction a single step is
 * the one after the site's instruction: delivered at the `syscall`.
 * Anything else on the way, the check's loads included, is the site's
 * syscall, as the check's own failure would have been.
 */
void ua__patch_fault(struct ua_task *t, siginfo_t *info)
{
	struct ua_pt_regs *r = &t->regs;
	const struct patch_slot *s;
	unsigned int off = 0;
	bool step = info->si_signo == SIGTRAP && t->fault_trapno == 1;
	uint64_t slot;

	/*
	 * The int3 of a jump being written (code_poke()): the jump is
	 * taken, as the kernel's poke_int3_handler() emulates the
	 * instruction it writes.  The slot, written before the int3, runs
	 * the site's instruction and syscall.  Sent back to the site
	 * instead, a core still executing the int3 it fetched (QEMU's TCG
	 * did, under the rewrite trap) would come back here for good.
	 */
	if (info->si_signo == SIGTRAP && t->fault_trapno == 3 &&
	    (slot = site_slot(t, r->rip - 1))) {
		r->rip = slot;
		ua__return_to_guest(t);
	}
	/* In a hole, between a short site's jump and its slot: the same. */
	s = hop_at(t, r->rip);
	if (s && step)
		ua__return_to_guest(t);
	if (s) {
		if (info->si_signo == SIGTRAP &&
		    (uint64_t)info->si_addr == r->rip)
			info->si_addr = (void *)(s->sys - s->len);
		r->rip = s->sys - s->len;
		return;
	}
	s = slot_at(t, r->rip, &off);
	if (!s)
		return;
	if (off == 0 && step)
		ua__return_to_guest(t);
	if (off == 0 || (off == s->len && step)) {
		uint64_t was = r->rip;

		if (!slot_to_site(t, s, off))
			return;
		if (info->si_signo == SIGTRAP && (uint64_t)info->si_addr == was)
			info->si_addr = (void *)r->rip;
		return;
	}
	if (off < s->len)
		return;
	r->rip = s->sys + 2;
	ua__rewrite_regs(r);
	ua__trap_dispatch(t, true);
}

/*
 * From ua__guest_irq() (monitor mode, locked): an asynchronous signal
 * that stopped guest code in a slot sees it at the site.
 */
void ua__patch_irq(struct ua_task *t)
{
	const struct patch_slot *s;
	unsigned int off = 0;

	s = slot_at(t, t->regs.rip, &off);
	if (s) {
		slot_to_site(t, s, off);
		return;
	}
	s = hop_at(t, t->regs.rip);
	if (s)
		t->regs.rip = s->sys - s->len;
}

static const char *const why_str[] = {
	[UA_PATCH_OK] = "patched",
	[UA_PATCH_WHY_NOT_CODE] = "not in a code section of a mapped ELF file",
	[UA_PATCH_WHY_NOT_SWEPT] = "not an instruction the sweep found",
	[UA_PATCH_WHY_NOT_EXEC] = "page not executable",
	[UA_PATCH_WHY_CHANGED] = "bytes changed since the sweep",
	[UA_PATCH_WHY_WAIT] = "its section's traps did not pay for a sweep",
	[UA_PATCH_WHY_ONCE] = "trapped once: a second trap patches it",
	[UA_PATCH_WHY_PAGES] = "the patch would cross a page",
	[UA_PATCH_WHY_FULL] = "no trampoline slot within reach",
	[UA_PATCH_WHY_FAILED] = "out of memory or a write failed",
	[UA_PATCH_WHY_NO_HOLE] =
		("the instruction before it is under 5 bytes, and no padding "
		 "within a short jump is free"),
};

const char *ua__patch_why_str(unsigned int why)
{
	if (why >= UA_PATCH_WHY_INSN)
		return ua__insn_why((int)(why - UA_PATCH_WHY_INSN));
	if (why < sizeof(why_str) / sizeof(why_str[0]) && why_str[why])
		return why_str[why];
	return "?";
}
