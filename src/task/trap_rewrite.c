// SPDX-License-Identifier: MIT
/*
 * The rewrite trap path (the zpoline / lazypoline technique): a guest
 * runs under Syscall User Dispatch as with sud; after a syscall site's
 * first trap, its 2-byte `syscall` (0f 05) becomes `call *%rax` (ff d0).
 * RAX holds the syscall number, so the call lands at virtual address N in
 * the trampoline page at address 0: a nop sled (with short jumps over
 * most of it: tramp_fill()) that ends in a jump through the trap block
 * the GS base points at, to its rw_entry (ua__rewrite_entry in
 * src/arch/x86_64/trap.S), which enters the same syscall path as a trap:
 * the same dispatch, exit work and register results, without a host
 * signal.
 *
 * The guest owns its GS base (wrgsbase, arch_prctl), so the tail checks
 * that GS leads to a block that names itself (its `me` field) before it
 * jumps, and otherwise executes a `syscall`, which traps as the site's
 * own would have.  A guest that faults on the way (a GS base at unmapped
 * memory, a single-step trap in the sled, a number that sends the call
 * outside the page) is taken back to the site the same way
 * (ua__rewrite_fixup()): the syscall the site made, never a fault.
 *
 * Which sites are rewritten (doc/uarun.md): only one a trap came from
 * (the SIGSYS RIP is the address after it), whose two bytes are still
 * 0f 05, inside the task's space (never monitor code: a task made by
 * ua_task_create() runs the monitor's own text), within one page, and
 * only while its number is inside the sled.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <uaccess/access.h>

#include "task_internal.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef PKEY_DISABLE_ACCESS
#define PKEY_DISABLE_ACCESS 1
#endif

#define TRAMP_SIZE 4096u
/*
 * Page 0 ends in `jmp rel32` to the tail, in a page of its own.  The
 * tail cannot be in page 0: a number between the sled and the page's end
 * would land inside its instructions and run a piece of one (a store
 * through a guest register, a pop).  The displacement's four bytes are
 * one value from tail_rels, each of which, where a number lands on it,
 * faults with nothing done (3f and 60-61 are #UD in 64-bit mode, 6c-6f
 * are port I/O, #GP at CPL 3, and so on); the first whose page is free
 * is used.  Every one puts the tail above 100 MiB, beyond any number a
 * program passes by mistake other than the x32 ones (bit 30 set), which
 * no value here reaches.
 */
#define TRAMP_JMP (TRAMP_SIZE - 5)
static const uint32_t tail_rels[] = {
	0x6f6f6f6f, 0x6e6e6e6e, 0x6d6d6d6d, 0x6c6c6c6c, 0x3f3f3f3f, 0x37373737,
	0x2f2f2f2f, 0x27272727, 0x1f1f1f1f, 0x17171717, 0x0e0e0e0e, 0x07070707,
};
static uint32_t tramp_rel;
/* Orders the rewrites and the table's growth (ua__rewrite_site()). */
static pthread_mutex_t rw_lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t tail_addr, tail_page;
/*
 * The tail, which leaves RFLAGS alone (the entry saves the guest's):
 *	mov %gs:64, %r11	65 4c 8b 1c 25 40 00 00 00
 *	mov 64(%r11), %rcx	49 8b 4b 40
 *	not %r11		49 f7 d3
 *	lea 1(%rcx,%r11), %rcx	4a 8d 4c 19 01	(rcx - r11)
 *	not %r11		49 f7 d3
 *	jrcxz 1f		e3 02
 *	syscall			0f 05
 * 1:	jmp *32(%r11)		41 ff 63 20
 * ua__rewrite_entry gets the block in R11 (a syscall clobbers RCX and
 * R11); the rest of its page is int3.
 */
static const unsigned char tail_code[] = {
	0x65, 0x4c, 0x8b, 0x1c, 0x25, 0x40, 0x00, 0x00, 0x00, 0x49, 0x8b,
	0x4b, 0x40, 0x49, 0xf7, 0xd3, 0x4a, 0x8d, 0x4c, 0x19, 0x01, 0x49,
	0xf7, 0xd3, 0xe3, 0x02, 0x0f, 0x05, 0x41, 0xff, 0x63, 0x20,
};
#define TRAMP_SKIP 0x68
#define INSN_SYSCALL 0x050f  /* 0f 05, little-endian */
#define INSN_CALL_RAX 0xd0ff /* ff d0 */

struct ua__rw_sites {
	size_t n, cap;             /* cap a power of two, n <= cap / 2 */
	struct ua__rw_site *v; /* open addressing by address */
};

static pthread_once_t tramp_once = PTHREAD_ONCE_INIT;
static int tramp_err;
/* The key that makes it execute-only, or -1 (PROT_EXEC alone). */
int ua__rewrite_pkey = -1;

static void refuse(const char *why)
{
	ua__write_str(2, "uaccess: trap mechanism 'rewrite' needs page 0 for "
			 "its trampoline, which cannot be mapped: ");
	ua__write_str(2, why);
	ua__write_str(2, "\n");
}

static unsigned long mmap_min_addr(void)
{
	char buf[32] = "";
	FILE *f = fopen("/proc/sys/vm/mmap_min_addr", "re");
	unsigned long v = 0;

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			v = strtoul(buf, NULL, 10);
		fclose(f);
	}
	return v;
}

/* Why mmap of page 0 failed with err, in words. */
static void refuse_errno(int err)
{
	char why[192];

	if (err == EPERM || err == EACCES)
		snprintf(why, sizeof(why),
			 "%s (vm.mmap_min_addr is %lu and mapping below it "
			 "needs CAP_SYS_RAWIO)",
			 strerror(err), mmap_min_addr());
	else if (err == EEXIST)
		snprintf(why, sizeof(why), "page 0 is already mapped");
	else
		snprintf(why, sizeof(why), "%s", strerror(err));
	refuse(why);
}

/*
 * Execute-only where the CPU has protection keys (a key whose access is
 * disabled: instruction fetches ignore PKRU, data accesses fault);
 * PROT_EXEC alone otherwise, which x86 page tables cannot make
 * unreadable.
 */
static int tramp_protect(void)
{
	long key = syscall(SYS_pkey_alloc, 0, PKEY_DISABLE_ACCESS);

	if (key >= 0) {
		if (!syscall(SYS_pkey_mprotect, 0, TRAMP_SIZE, PROT_EXEC,
			     key) &&
		    !syscall(SYS_pkey_mprotect, tail_page, TRAMP_SIZE,
			     PROT_EXEC, key)) {
			ua__rewrite_pkey = (int)key;
			return 0;
		}
		syscall(SYS_pkey_free, key);
	}
	if (mprotect(NULL, TRAMP_SIZE, PROT_EXEC) ||
	    mprotect((void *)tail_page, TRAMP_SIZE, PROT_EXEC))
		return -errno;
	return 0;
}

/*
 * Fill the page at address 0.  In assembly: to C (and to the sanitizers'
 * null checks) a store through address 0 is a null dereference.
 *
 * A plain sled of one-byte nops costs a call with a small number (most
 * of them) some 4000 nops, which was nearly all of a rewritten syscall's
 * time.  So every TRAMP_SKIP bytes, counted back from the jmp, the sled
 * holds `jmp .+TRAMP_SKIP` (eb 66), which lands on the next one and
 * finally on the jmp.  A call may land on any byte: on the eb it jumps;
 * on the 66 that byte and the nop after it are `66 90`, the two-byte nop,
 * and the slide goes on.  At most TRAMP_SKIP nops and 40 jumps remain.
 */
static void tramp_fill(void)
{
	uintptr_t dst = 0;
	size_t n = TRAMP_JMP;

	asm volatile("rep stosb\n\t"
		     "movb $0xe9, (%%rdi)\n\t"
		     "movl %[rel], 1(%%rdi)\n\t"
		     "movq %[first], %%rdi\n"
		     "1:\tmovw %[skip], (%%rdi)\n\t"
		     "subq %[step], %%rdi\n\t"
		     "jns 1b"
		     : "+D"(dst), "+c"(n)
		     : "a"(0x90), [rel] "r"(tramp_rel),
		       [first] "i"(TRAMP_JMP - TRAMP_SKIP), [skip] "i"(0x66eb),
		       [step] "i"(TRAMP_SKIP)
		     : "memory", "cc");
	memset((void *)tail_page, 0xcc, TRAMP_SIZE);
	memcpy((void *)tail_addr, tail_code, sizeof(tail_code));
}

/* One page at addr, exactly there; false (and the reason said) if not. */
static bool map_at(uintptr_t addr, bool quiet)
{
	void *p =
		mmap((void *)addr, TRAMP_SIZE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED) {
		tramp_err = -errno;
		if (!quiet)
			refuse_errno(errno);
		return false;
	}
	if ((uintptr_t)p != addr) {
		/* A kernel without MAP_FIXED_NOREPLACE took it as a hint. */
		munmap(p, TRAMP_SIZE);
		tramp_err = -EEXIST;
		refuse("the kernel placed the mapping elsewhere");
		return false;
	}
	return true;
}

static void tramp_map(void)
{
	_Static_assert(offsetof(struct ua_trap_block, rw_entry) == 32,
		       "the trampoline's jmp *32(%r11)");
	_Static_assert(offsetof(struct ua_trap_block, me) == 64,
		       "the trampoline's mov %gs:64, %r11");
	if (!map_at(0, false))
		return;
	for (size_t i = 0; i < sizeof(tail_rels) / sizeof(tail_rels[0]); i++) {
		tail_addr = TRAMP_SIZE + (uintptr_t)tail_rels[i];
		tail_page = tail_addr & ~(uintptr_t)(TRAMP_SIZE - 1);
		/* Room for the tail before the page ends. */
		if (tail_addr - tail_page > TRAMP_SIZE - sizeof(tail_code))
			continue;
		if (map_at(tail_page, true)) {
			tramp_rel = tail_rels[i];
			break;
		}
	}
	if (!tramp_rel) {
		munmap(NULL, TRAMP_SIZE);
		tramp_err = -EEXIST;
		refuse("no free page for its tail (every candidate address "
		       "is mapped)");
		return;
	}
	tramp_fill();
	tramp_err = tramp_protect();
	if (tramp_err) {
		munmap(NULL, TRAMP_SIZE);
		munmap((void *)tail_page, TRAMP_SIZE);
		refuse(strerror(-tramp_err));
	}
}

/*
 * The trampoline, mapped once for the process and kept: a rewritten site
 * stays a call into it for as long as the guest's memory lives.
 */
int ua__rewrite_setup(void)
{
	pthread_once(&tramp_once, tramp_map);
	return tramp_err;
}

static UA_FAST struct ua__rw_site *site_find(struct ua__rw_sites *s,
					   uint64_t addr, bool *found)
{
	size_t mask = s->cap - 1;
	size_t i = (size_t)(addr * 0x9e3779b97f4a7c15ull >> 32) & mask;

	while (s->v[i].addr && s->v[i].addr != addr)
		i = (i + 1) & mask;
	*found = s->v[i].addr == addr;
	return &s->v[i];
}

static int sites_grow(struct ua__rw_sites *s)
{
	struct ua__rw_sites n = { 0, s->cap ? s->cap * 2 : 64, NULL };
	bool found;

	n.v = calloc(n.cap, sizeof(*n.v));
	if (!n.v)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++)
		if (s->v[i].addr)
			*site_find(&n, s->v[i].addr, &found) = s->v[i];
	n.n = s->n;
	free(s->v);
	*s = n;
	return 0;
}

/*
 * Room for this many more sites before the table must grow: while the
 * space has several tasks it never does (other threads read it without
 * a lock), so the first thread's clone makes room first.
 */
#define RW_RESERVE 2048

/*
 * The table the process's threads will share, made and grown while its
 * first thread is still alone (ua__task_clone()).
 */
int ua__rw_sites_reserve(struct ua_task *t)
{
	struct ua__rw_sites *s = t->tb.rw;

	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		t->tb.rw = s;
	}
	while ((s->n + RW_RESERVE) * 2 > s->cap)
		if (sites_grow(s))
			return -ENOMEM;
	return 0;
}

/*
 * The entry of a site, added with number nr if new (*is_new then, if
 * is_new is not NULL); NULL without memory, or without room while the
 * space has several tasks.  A new entry's address is written last: a
 * thread that finds it finds the rest.
 */
struct ua__rw_site *ua__rw_site_get(struct ua_task *t, uint64_t addr,
				    uint64_t nr, bool *is_new)
{
	struct ua__rw_sites *s = t->tb.rw;
	bool threads = atomic_load(&t->sp->tasks) > 1;
	struct ua__rw_site *e;
	bool found;

	if (is_new)
		*is_new = false;

	if (!s) {
		if (threads)
			return NULL;
		s = calloc(1, sizeof(*s));
		if (!s)
			return NULL;
		t->tb.rw = s;
	}
	if ((s->n + 1) * 2 > s->cap && (threads || sites_grow(s)))
		return NULL;
	e = site_find(s, addr, &found);
	if (!found) {
		e->nr = nr;
		__atomic_store_n(&e->addr, addr, __ATOMIC_RELEASE);
		s->n++;
		if (is_new)
			*is_new = true;
	}
	return e;
}

/*
 * The call written over a syscall other threads may be running, as
 * trap_patch.c's code_poke() writes its jump: int3 over the first byte,
 * serialise, the second, serialise, the first, serialise; a thread that
 * meets the int3 makes the site's syscall (ua__rewrite_int3()).  On a
 * failure the syscall is put back the same way round.
 */
static bool poke_call(uint8_t *at)
{
	if (!ua_put_user((uint8_t)0xcc, at) && ua__code_sync() &&
	    !ua_put_user((uint8_t)(INSN_CALL_RAX >> 8), at + 1) &&
	    ua__code_sync() &&
	    !ua_put_user((uint8_t)(INSN_CALL_RAX & 0xff), at) &&
	    ua__code_sync())
		return true;
	if (!ua_put_user((uint8_t)(INSN_SYSCALL >> 8), at + 1))
		ua__code_sync();
	if (!ua_put_user((uint8_t)(INSN_SYSCALL & 0xff), at))
		ua__code_sync();
	return false;
}

/* Write the call over the syscall, the page writable only meanwhile. */
static bool patch(struct ua_task *t, uint64_t site, bool threads)
{
	uintptr_t page = site & ~(uintptr_t)(ua__pagesz - 1);
	int prot = ua__space_prot_at(t->sp, page);
	uint16_t insn = 0;
	bool ok;

	if (prot < 0 || !(prot & PROT_EXEC))
		return false;
	if (ua_get_user(insn, (const uint16_t *)site) || insn != INSN_SYSCALL)
		return false;
	if (!(prot & PROT_WRITE) &&
	    ua_mprotect(t->sp, (void *)page, ua__pagesz, prot | PROT_WRITE))
		return false;
	ok = threads ? poke_call((uint8_t *)site) :
		       !ua_put_user((uint16_t)INSN_CALL_RAX, (uint16_t *)site);
	/* Back to exactly what the guest asked for. */
	if (!(prot & PROT_WRITE))
		ua_mprotect(t->sp, (void *)page, ua__pagesz, prot);
	return ok;
}

/*
 * A syscall trapped through Syscall User Dispatch in a task under
 * rewrite (monitor mode, space locked): rewrite its site if it may be.
 * Any failure leaves the site as it was, trapping through sud.
 */
void ua__rewrite_site(struct ua_task *t, const struct ua_pt_regs *r)
{
	uint64_t site = r->rip - 2, nr = r->orig_rax;
	bool threads;

	/* A number outside the sled would jump out of the trampoline. */
	if (nr >= TRAMP_JMP)
		return;
	/* Guest memory only: never the monitor's own text. */
	if (r->rip < 2 || site < t->sp->base || r->rip > t->sp->limit)
		return;
	/* Both bytes in one page: one mprotect, one protection. */
	if ((site & (ua__pagesz - 1)) > ua__pagesz - 2)
		return;
	/* Another thread may be running the code: see poke_call(). */
	threads = atomic_load(&t->sp->tasks) > 1;
	if (threads && !ua__code_sync_ready())
		return;
	pthread_mutex_lock(&rw_lock);
	if (!threads) {
		/* Without memory for the entry the site still works. */
		if (patch(t, site, false))
			ua__rw_site_get(t, site, nr, NULL);
	} else if (ua__rw_site_get(t, site, nr, NULL)) {
		/* Listed first: a thread that meets the int3 finds it. */
		patch(t, site, true);
	}
	pthread_mutex_unlock(&rw_lock);
}

/*
 * A SIGTRAP of an int3 just before guest RIP where poke_call() is
 * writing, or wrote, a call: the guest was about to make the site's
 * syscall, and RIP becomes the address after the site, as the syscall
 * or the call leaves it.  The kernel's poke_int3_handler() likewise
 * emulates the instruction being written rather than sending the CPU
 * back to it: a core that kept executing the int3 it had fetched (QEMU's
 * TCG did, with the call already in memory: two threads went back to
 * the site for good) must not be able to loop.
 */
bool ua__rewrite_int3(struct ua_task *t, const siginfo_t *info)
{
	if (info->si_signo != SIGTRAP || t->fault_trapno != 3 ||
	    !ua__fast_rw_site(t, t->regs.rip - 1))
		return false;
	t->regs.rip++;
	return true;
}

/* A forked child: one thread, whatever the parent's others held. */
void ua__rewrite_after_fork(void)
{
	pthread_mutex_init(&rw_lock, NULL);
}

/*
 * Guest state stopped on the way through a rewritten site, before the
 * trap block's entry: the call itself faulted (at_site: a number that is
 * not a canonical address, a stack its push could not write), the tail
 * found no block through GS (the SIGSYS of its `syscall`, or a fault on
 * its loads), a single-step trap stopped it in the sled, or the number
 * sent the call to an address that faulted.  Each time the guest asked
 * for the site's syscall: r becomes that syscall's entry state (RIP after
 * the site, RSP as before the call); true if it was one of these.
 * Monitor mode, space locked.
 */
bool ua__rewrite_fixup(struct ua_task *t, struct ua_pt_regs *r, bool at_site)
{
	struct ua__rw_sites *s = t->tb.rw;
	uint64_t ret;
	bool found;

	if (!s || !s->cap)
		return false;
	if (at_site) {
		site_find(s, r->rip, &found);
		if (found) {
			r->rip += 2;
			return true;
		}
	}
	if (r->rip >= TRAMP_SIZE && r->rip - tail_page >= TRAMP_SIZE &&
	    r->rip != r->rax)
		return false;
	if (ua_get_user(ret, (uint64_t *)r->rsp) || ret < 2)
		return false;
	site_find(s, ret - 2, &found);
	if (!found)
		return false;
	r->rip = ret;
	r->rsp += 8;
	return true;
}

/*
 * A call through a rewritten site: count it.  With several tasks the
 * table is shared (ua__task_clone()) and added to only under rw_lock:
 * here it is only read, and a count another thread makes at the same
 * moment may be lost, never the table.
 */
void ua__rewrite_trip(struct ua_task *t, uint64_t site)
{
	struct ua__rw_site *e;

	if (atomic_load(&t->sp->tasks) > 1)
		e = ua__fast_rw_site(t, site);
	else
		e = ua__rw_site_get(t, site, t->regs.orig_rax, NULL);
	if (e)
		ua__site_trip(e);
}

/*
 * A site's entry for the fast path (trap_fast.c), which must not
 * allocate: NULL when the site has none yet.
 */
UA_FAST struct ua__rw_site *ua__fast_rw_site(struct ua_task *t, uint64_t site)
{
	struct ua__rw_sites *s = t->tb.rw;
	struct ua__rw_site *e;
	bool found;

	if (!s || !s->cap)
		return NULL;
	e = site_find(s, site, &found);
	return found ? e : NULL;
}

void ua__rewrite_free(struct ua_task *t)
{
	struct ua__rw_sites *s = t->tb.rw;

	if (!s)
		return;
	free(s->v);
	free(s);
	t->tb.rw = NULL;
}

static int site_cmp(const void *a, const void *b)
{
	const struct ua__rw_site *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

size_t ua__rewrite_sites(const struct ua_task *t,
			       struct ua__rw_site *out, size_t max)
{
	const struct ua__rw_sites *s = t ? t->tb.rw : NULL;
	size_t n = 0;

	if (!s)
		return 0;
	for (size_t i = 0; i < s->cap; i++) {
		if (!s->v[i].addr)
			continue;
		if (n < max)
			out[n] = s->v[i];
		n++;
	}
	if (out && max)
		qsort(out, n < max ? n : max, sizeof(*out), site_cmp);
	return n;
}
