/* SPDX-License-Identifier: MIT */
/*
 * Library-internal definitions shared by the layers.  Nothing here is
 * installed; applications see only include/.
 */
#ifndef UA_INTERNAL_H
#define UA_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#if !defined(__x86_64__)
#include <errno.h>
#include <unistd.h>
#endif

#include <uaccess.h>

#define UA_HIDDEN __attribute__((visibility("hidden")))
#define UA_TLS __thread __attribute__((tls_model("initial-exec")))

struct ua_space;

/*
 * Code the rewrite fast path runs on the guest's FS base (src/task/
 * trap_fast.c): no stack protector and no sanitizer instrumentation, both
 * of which read %fs.  Such functions are named ua__fast_*, and
 * tools/check-fast-path verifies their machine code: no %fs, and no call
 * that leaves the set.  They are hot, as are the entry, exit and copy
 * stubs (.text.hot.*), so that the linker packs them into a few pages:
 * a fast call touches about three pages of code rather than six.
 */
#if defined(__clang__)
#define UA_FAST                                                   \
	__attribute__((no_stack_protector,                        \
		       no_sanitize("address", "undefined", "coverage")))
#else
#define UA_FAST                                                          \
	__attribute__((no_stack_protector, no_sanitize("address", "undefined"), \
		       no_sanitize_coverage, hot))
#endif

/*
 * A body shared by a fast-path function and its full-path counterpart:
 * always inlined, so that a constant argument (block mode, say) leaves
 * in the fast copy only code that is fit for it; tools/check-fast-path
 * checks what remains.  GCC inlines an always_inline function whatever
 * the caller's sanitizer attributes (the full-path copy is instrumented
 * as its caller is); a compiler that kept an out-of-line copy instead
 * would show in check-fast-path as calls the fast path may not make.
 */
#define UA_FAST_INLINE static inline __attribute__((always_inline)) UA_FAST

#if !UA_FORCE_GENERIC_ARCH
/*
 * The inline accessors' ua__raw_copy() is public, so a call from inside
 * the library would go through the PLT; the library calls its hidden
 * alias instead (src/arch/x86_64/copy.S).
 */
UA_HIDDEN size_t ua__raw_copy_local(void *dst, const void *src, size_t n);
#define ua__raw_copy ua__raw_copy_local
#endif

/* One backend: how a space is locked and how windows open (src/protect/). */
struct ua_protect_ops {
	enum ua_protect kind;
	/* Called once the space is reserved; may fail with -errno. */
	int (*init)(struct ua_space *sp);
	void (*fini)(struct ua_space *sp);
	/* The protection newly mapped pages get in the space's current state. */
	int (*map_prot)(struct ua_space *sp, int guest_prot);
	/*
	 * State changes; from/to are UA_MODE_* of the calling thread.  Not
	 * called for none and pkey: protect.c switches those inline.
	 */
	void (*switch_mode)(struct ua_space *sp, int from, int to);
	/*
	 * May be NULL.  In a forked child, sp->lock held: only the calling
	 * thread is left, in @mode; what the others held went with them.
	 */
	void (*fork_child)(struct ua_space *sp, int mode);
	/*
	 * May be NULL.  Before the violation report's call trace, which must
	 * unwind through frames on guest stacks that the thread's protection
	 * locks (a monitor handler stacked on guest code): let the thread read
	 * them.  The process aborts right after.
	 */
	void (*oops_unlock)(void);
};

/* Per-thread protection mode of a space (window kinds use UA_WIN_*). */
#define UA_MODE_LOCKED 0
#define UA_MODE_READ UA_WIN_READ
#define UA_MODE_WRITE UA_WIN_WRITE
#define UA_MODE_RW UA_WIN_RW
#define UA_MODE_GUEST 4

struct ua_mapping {
	uintptr_t start, end;
	int prot;
};

struct ua_space {
	uintptr_t base;  /* first guest byte */
	uintptr_t limit; /* one past the last; the guard gap starts here */
	size_t size;     /* limit - base */
	size_t guard;    /* bytes of guard gap after limit */
	int slot;        /* index in the space registry */
	const struct ua_protect_ops *ops;
	_Atomic uint32_t lock; /* mappings and backend state: see below */
	struct ua_mapping *maps;
	size_t nmaps, maps_cap;
	/* Backend state. */
	int pkey;
	int mp_counts[5]; /* mprotect: holders per UA_MODE_* */
	int mp_level;     /* mprotect: protection now applied */
	atomic_int tasks;   /* tasks created and not destroyed */
	atomic_int running; /* of those, the ones running now */
	atomic_int users;   /* threads whose current space it is */
};

/* Per-thread state. */
struct ua_thread {
	struct ua_space *cur;
	struct ua_stats stats;
	/*
	 * WRPKRU, FS-base writes and host signals (ua_stats_get_insns()):
	 * bumped with ua__count() where each happens, through the thread's
	 * ua_thread pointer on the fast path (no %fs there) and by the FS
	 * base stub in trap.S at UA_THREAD_INSN (task_internal.h).
	 */
	struct ua_insn_stats insn;
	/*
	 * Lean windows (ua__lean_window_open): one count, up on the open
	 * and up again on the close, so an odd value means one is open (on
	 * cur, for writing) and the value is the switches they made;
	 * ua_stats_get() adds it in.  Two increments of one word are the
	 * whole bookkeeping of the library's own clear.
	 */
	uint64_t lean_seq;
	/* The open window, if any. */
	int win_kind;
	struct ua_space *win_space;
	uintptr_t win_lo, win_hi;
	const char *win_file;
	int win_line;
	/* Set while the thread runs guest code in this space. */
	struct ua_space *guest_space;
	/* Portable arch only: where a fault in a primitive resumes. */
	void *recover;
	/* pkey: the monitor's PKRU, saved on the way into guest mode. */
	uint32_t pkru_monitor;
	/* ua_protect_probe() is running: its faults are not violations. */
	bool probing;
	/* Space locks (sp->lock) this thread holds: a signal handler that
	 * interrupted one must not take a space lock again. */
	int space_locks;
	/* The thread-exit hook that gives up cur is armed. */
	bool exit_hook;
};

extern UA_TLS struct ua_thread ua_self;

/*
 * One more of a per-thread counter, in one instruction: a signal handler
 * on the same thread that counts too (a fault, the interrupt signal) can
 * come between a load and a store, never inside an add to memory.  No
 * lock prefix: no other thread writes it.
 */
static inline UA_FAST void ua__count(uint64_t *c)
{
#if defined(__x86_64__)
	asm volatile("addq $1, %0" : "+m"(*c));
#else
	atomic_signal_fence(memory_order_seq_cst);
	(*c)++;
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

/*
 * A host syscall without the C library: no errno (which is reached
 * through %fs), -errno on failure.  For code on the fast path.
 */
static inline UA_FAST long ua__raw_syscall6(long nr, long a1, long a2,
					    long a3, long a4, long a5, long a6)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10),
			   "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
#else
	/* No fast path elsewhere: the C library's call will do. */
	long ret = syscall(nr, a1, a2, a3, a4, a5, a6);

	return ret < 0 ? -errno : ret;
#endif
}

static inline UA_FAST long ua__raw_syscall(long nr, long a1, long a2, long a3,
					   long a4)
{
	return ua__raw_syscall6(nr, a1, a2, a3, a4, 0, 0);
}

/*
 * The space lock is a futex word of its own, 0 free, 1 held, 2 held with
 * a waiter (the mutex of Drepper's "Futexes Are Tricky"), not a pthread
 * mutex: the fast path, which runs on the guest's FS base, takes it too
 * (ua__space_trylock_fast()), and the C library's mutex reads the
 * owner's thread id through %fs.  Its holders are counted in the thread:
 * code that may run in a signal handler checks space_locks instead of
 * deadlocking on a lock its own thread was interrupted holding.
 */
static inline void ua__space_lock(struct ua_space *sp)
{
	uint32_t c = 0;

	ua_self.space_locks++;
	atomic_signal_fence(memory_order_seq_cst);
	if (atomic_compare_exchange_strong(&sp->lock, &c, 1))
		return;
	if (c != 2)
		c = atomic_exchange(&sp->lock, 2);
	while (c) {
		ua__raw_syscall(SYS_futex, (long)&sp->lock,
				FUTEX_WAIT_PRIVATE, 2, 0);
		c = atomic_exchange(&sp->lock, 2);
	}
}

static inline UA_FAST void ua__space_unlock_word(struct ua_space *sp)
{
	if (atomic_exchange(&sp->lock, 0) == 2)
		ua__raw_syscall(SYS_futex, (long)&sp->lock, FUTEX_WAKE_PRIVATE,
				1, 0);
}

static inline void ua__space_unlock(struct ua_space *sp)
{
	ua__space_unlock_word(sp);
	atomic_signal_fence(memory_order_seq_cst);
	ua_self.space_locks--;
}

/* The fast path's: never waits (a holder may be this thread's handler). */
static inline UA_FAST bool ua__space_trylock_fast(struct ua_space *sp,
						  struct ua_thread *self)
{
	uint32_t c = 0;

	self->space_locks++;
	atomic_signal_fence(memory_order_seq_cst);
	if (atomic_compare_exchange_strong(&sp->lock, &c, 1))
		return true;
	atomic_signal_fence(memory_order_seq_cst);
	self->space_locks--;
	return false;
}

static inline UA_FAST void ua__space_unlock_fast(struct ua_space *sp,
						 struct ua_thread *self)
{
	ua__space_unlock_word(sp);
	atomic_signal_fence(memory_order_seq_cst);
	self->space_locks--;
}

/* src/core/init.c */
UA_HIDDEN void ua__ensure_init(void);
UA_HIDDEN void ua__die(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));
UA_HIDDEN void ua__write_str(int fd, const char *s);
UA_HIDDEN char *ua__fmt_hex(char *buf, uintptr_t v);
UA_HIDDEN char *ua__fmt_dec(char *buf, unsigned long v);

/* src/core/space_registry.c */
UA_HIDDEN int ua__registry_add(struct ua_space *sp);
UA_HIDDEN void ua__registry_del(struct ua_space *sp);
UA_HIDDEN bool ua__registry_overlaps(uintptr_t lo, uintptr_t hi);

/* src/core/space.c */
UA_HIDDEN int ua__space_prot_at(struct ua_space *sp, uintptr_t addr);
/* The mapping run (one vma) at addr; the bytes mapped. */
UA_HIDDEN int ua__space_vma(struct ua_space *sp, uintptr_t addr,
			    uintptr_t *start, uintptr_t *end);
UA_HIDDEN size_t ua__space_mapped(struct ua_space *sp);
UA_HIDDEN int ua__map_file(struct ua_space *sp, uintptr_t addr, size_t len,
			  int prot, int flags, int host_fd, off_t off);
UA_HIDDEN size_t ua__space_maps_copy(struct ua_space *sp,
				 struct ua_mapping **out);
/* The fast path's anonymous map and unmap, space lock held. */
UA_HIDDEN uintptr_t ua__fast_space_gap(const struct ua_space *sp, size_t len);
UA_HIDDEN long ua__fast_space_map(struct ua_space *sp, uintptr_t addr,
				  size_t len, int prot);
UA_HIDDEN long ua__fast_space_unmap(struct ua_space *sp, uintptr_t addr,
				    size_t len);
/* Around the host's fork() of a process with this space (src/task/fork.c). */
UA_HIDDEN void ua__space_fork_prepare(struct ua_space *sp);
UA_HIDDEN void ua__space_fork_parent(struct ua_space *sp);
UA_HIDDEN void ua__space_fork_child(struct ua_space *sp);

/* src/protect/protect.c */
UA_HIDDEN const struct ua_protect_ops *ua__protect_select(enum ua_protect p,
							  int *err);
UA_HIDDEN bool ua__protect_window_open(int kind, const void *ptr, size_t len);
/* pkey: clear [to, +n) in a lean window; false if it cannot be one. */
UA_HIDDEN bool ua__pkey_clear_lean(void *to, size_t n, size_t *left);
UA_HIDDEN void ua__protect_window_close(int kind);
UA_HIDDEN int ua__protect_mode(const struct ua_space *sp);
UA_HIDDEN void ua__protect_forget(const struct ua_space *sp);
UA_HIDDEN void ua__protect_show_guest(struct ua_space *sp, bool on);
UA_HIDDEN bool ua__pkey_available(const char **why);
extern UA_HIDDEN const struct ua_protect_ops ua__protect_none;
extern UA_HIDDEN const struct ua_protect_ops ua__protect_mprotect;
extern UA_HIDDEN const struct ua_protect_ops ua__protect_pkey;

/*
 * Is [ptr, ptr+len) inside sp?  The overflow-free form of the kernel's
 * __access_ok(): len <= size && off <= size - len, where off = ptr - base
 * wraps to a huge value for pointers below base.
 */
static inline UA_FAST bool ua__space_has(const struct ua_space *sp,
					 const void *ptr, size_t len)
{
	uintptr_t off = (uintptr_t)ptr - sp->base;

	return len <= sp->size && off <= sp->size - len;
}

/*
 * A window's bookkeeping in a thread's state, and its end.  They take the
 * thread explicitly: the rewrite fast path (src/task/trap_fast.c) runs
 * them on the guest's FS base, where ua_self cannot be reached.  win_kind
 * is what a signal handler looks at: it is set before the other window
 * fields and cleared after them.  A handler arriving in between sees a
 * window and refuses to open its own; were it let in, its own window's
 * end would clear fields the interrupted thread had already filled in.
 */
static inline UA_FAST void ua__win_record(struct ua_thread *self,
					  struct ua_space *sp, int kind,
					  const void *ptr, size_t len)
{
	self->win_kind = kind;
	atomic_signal_fence(memory_order_seq_cst);
	self->win_space = sp;
	self->win_lo = (uintptr_t)ptr;
	self->win_hi = (uintptr_t)ptr + len;
	self->win_file = NULL;
	self->win_line = 0;
	self->stats.windows++;
	/*
	 * Kept apart from the switches++ that follows every record: GCC
	 * otherwise merges the two counters into one 16-byte load, add and
	 * store, and that load cannot be forwarded from the 8-byte switches++
	 * store of the last window's close (a stall of about 3 ns a window).
	 */
	atomic_signal_fence(memory_order_seq_cst);
}

static inline UA_FAST void ua__win_forget(struct ua_thread *self)
{
	self->win_space = NULL;
	atomic_signal_fence(memory_order_seq_cst);
	self->win_kind = 0;
	atomic_signal_fence(memory_order_seq_cst);
}

/*
 * A window under backend none, with none open: the bookkeeping and the
 * count of protect_switch() (protect.c), nothing to switch.
 */
static inline UA_FAST void ua__none_window_open(struct ua_thread *self,
						struct ua_space *sp, int kind,
						const void *ptr, size_t len)
{
	ua__win_record(self, sp, kind, ptr, len);
	self->stats.switches++;
	atomic_signal_fence(memory_order_seq_cst);
}

static inline UA_FAST void ua__none_window_close(struct ua_thread *self)
{
	self->stats.switches++;
	atomic_signal_fence(memory_order_seq_cst);
	ua__win_forget(self);
}

/*
 * The whole of a lock on syscall entry and an unlock on exit under
 * backend none, with no window open and the thread in the expected mode:
 * the bookkeeping (the same stores, in the same order, and the same
 * count, as ua_protect_lock() and enter_guest() in protect.c: keep them
 * in step).
 */
static inline UA_FAST bool ua__none_lock_ok(const struct ua_thread *self,
					    const struct ua_space *sp)
{
	return sp->ops->kind == UA_PROTECT_NONE && !self->win_kind &&
	       self->guest_space == sp;
}

static inline UA_FAST void ua__none_lock(struct ua_thread *self)
{
	self->guest_space = NULL;
	self->stats.switches++;
	atomic_signal_fence(memory_order_seq_cst);
}

static inline UA_FAST void ua__none_unlock(struct ua_thread *self,
					   struct ua_space *sp)
{
	self->stats.switches++;
	atomic_signal_fence(memory_order_seq_cst);
	self->guest_space = sp;
	atomic_signal_fence(memory_order_seq_cst);
	self->win_space = NULL;
}

/*
 * ua_protect_lock()/ua_protect_unlock() for a task's syscall entry and
 * exit, with the commonest case inline (above); anything else, including
 * every misuse check, goes to the real calls.  Inline because these two
 * calls were a quarter of a null syscall.
 */
static inline void ua__protect_syscall_lock(struct ua_space *sp)
{
	if (ua_likely(ua__none_lock_ok(&ua_self, sp))) {
		ua__none_lock(&ua_self);
		return;
	}
	ua_protect_lock(sp);
}

static inline void ua__protect_syscall_unlock(struct ua_space *sp)
{
	if (ua_likely(sp->ops->kind == UA_PROTECT_NONE && !ua_self.win_kind &&
		      !ua_self.guest_space)) {
		ua__none_unlock(&ua_self, sp);
		return;
	}
	ua_protect_unlock(sp);
}

/* src/core/usercopy.c */
UA_HIDDEN size_t ua__copy_from_user_nozero(void *to, const void *from,
					   size_t n);

/* src/arch/x86_64/entry.S: the guest's way in; ua_syscall() is this. */
UA_HIDDEN long ua__syscall(long nr, long a1, long a2, long a3, long a4,
			   long a5);

/*
 * src/arch/x86_64/restorer.S: the rt_sigreturn restorer ua_sys_sigaction()
 * supplies as sa_restorer when the guest gives none.
 */
UA_HIDDEN void ua__restore_rt(void);

/*
 * src/arch (copy.S, generic/copy.c): zero with fault recovery; returns
 * the number of bytes not cleared.
 */
UA_HIDDEN size_t ua__raw_clear(void *dst, size_t n);
/*
 * Compare the 32-bit word at uaddr (inside an open write window) with
 * old and store new there if equal, atomically; *seen gets the value it
 * held.  0, or -EFAULT on a fault (*seen untouched).  src/arch/.
 */
UA_HIDDEN int ua__raw_cmpxchg32(uint32_t *uaddr, uint32_t old, uint32_t new,
				uint32_t *seen);

/* src/core/usercopy.c: ua_clear_user() through the full window. */
UA_HIDDEN __attribute__((noinline)) size_t ua__clear_user_slow(void *to,
						      size_t n);

/*
 * Is a window open on this thread, a full one or a lean one (below)?  What
 * every "may a window open here" test asks; a lean window never reaches a
 * syscall exit, so the tests on the way back to guest code ask win_kind.
 */
static inline UA_FAST bool ua__window_busy(const struct ua_thread *self)
{
	return self->win_kind || (self->lean_seq & 1);
}

/*
 * May a window under backend none open over [ptr, +len) of sp, the
 * thread's current space?  The test of every inline none window.
 */
static inline UA_FAST bool ua__none_window_ok(const struct ua_thread *self,
					      const struct ua_space *sp,
					      const void *ptr, size_t len)
{
	return sp && sp->ops->kind == UA_PROTECT_NONE &&
	       !ua__window_busy(self) && ua__space_has(sp, ptr, len);
}

/*
 * A write window under backend none on the thread's current space, around
 * one of the library's own primitives (a clear) and nothing else.  Its
 * whole record is lean_seq going odd and back to even: a signal handler
 * that arrives inside sees ua__window_busy() and opens no window of its
 * own.  Neither win_kind nor the range, file and line are written: the
 * debug checks that read them are for unsafe accessors, which never run
 * here.  Against memset() of a 512-byte block every store counts, as the
 * CPU's L1 is busy with stores, not instructions (doc/benchmarks.md).
 */
static inline UA_FAST void ua__lean_window_open(struct ua_thread *self)
{
	self->lean_seq++;
	atomic_signal_fence(memory_order_seq_cst);
}

static inline UA_FAST void ua__lean_window_close(struct ua_thread *self)
{
	atomic_signal_fence(memory_order_seq_cst);
	self->lean_seq++;
	atomic_signal_fence(memory_order_seq_cst);
}

#if defined(__x86_64__) && !UA_FORCE_GENERIC_ARCH
/*
 * src/arch/x86_64/cpu.c: the stores ua__raw_clear uses, the widest that
 * ua__clear_vec_max() finds the CPU has and the OS saves.  Tests lower
 * ua__clear_vec to cover every width the machine has.
 */
enum { UA_CLEAR_SSE, UA_CLEAR_AVX, UA_CLEAR_AVX512 };
extern UA_HIDDEN unsigned char ua__clear_vec;
UA_HIDDEN int ua__clear_vec_max(void);
#endif

/*
 * The 64-byte AVX-512 blocks of a clear inside an open window, inline where
 * the CPU has them: ua_clear_user() then makes no call of its own, which
 * puts 512 bytes of it within a few stores of memset().  Returns the bytes
 * it left for ua__raw_clear(), with *to moved past the blocks written: a
 * tail under 64 bytes, all of it on other CPUs, or from the start of a
 * block that faulted (d and n move once a block is written), where
 * ua__raw_clear() finds the exact count.  VZEROUPPER on every way out, as
 * in copy.S; the clobbers make a caller that keeps vectors save them.
 */
static inline UA_FAST size_t ua__clear_wide(char **to, size_t n)
{
#if defined(__x86_64__) && !UA_FORCE_GENERIC_ARCH
	if (ua_likely(n >= 64 && ua__clear_vec == UA_CLEAR_AVX512)) {
		char *d = *to;

		asm volatile("vpxor %%xmm0, %%xmm0, %%xmm0\n\t"
			     "cmpq $256, %[n]\n\t"
			     "jb 2f\n"
			     "1:\n"
			     "10: vmovdqu64 %%zmm0, 0(%[d])\n"
			     "11: vmovdqu64 %%zmm0, 64(%[d])\n"
			     "12: vmovdqu64 %%zmm0, 128(%[d])\n"
			     "13: vmovdqu64 %%zmm0, 192(%[d])\n\t"
			     "addq $256, %[d]\n\t"
			     "subq $256, %[n]\n\t"
			     "cmpq $256, %[n]\n\t"
			     "jae 1b\n"
			     "2:\n\t"
			     "cmpq $64, %[n]\n\t"
			     "jb 3f\n"
			     "14: vmovdqu64 %%zmm0, 0(%[d])\n\t"
			     "addq $64, %[d]\n\t"
			     "subq $64, %[n]\n\t"
			     "jmp 2b\n"
			     "3:\n\t"
			     "vzeroupper\n\t"
			     UA__ASM_EXTABLE(10b, 3b) UA__ASM_EXTABLE(11b, 3b)
			     UA__ASM_EXTABLE(12b, 3b) UA__ASM_EXTABLE(13b, 3b)
			     UA__ASM_EXTABLE(14b, 3b)
			     : [d] "+r"(d), [n] "+r"(n)
			     :
			     : "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3",
			       "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
			       "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
			       "xmm15");
		*to = d;
	}
#else
	(void)to;
#endif
	return n;
}

/* A clear inside an open window: ua__raw_clear() after the wide blocks. */
static inline UA_FAST size_t ua__clear_in_window(void *to, size_t n)
{
	char *d = to;

	n = ua__clear_wide(&d, n);
	return ua_likely(!n) ? 0 : ua__raw_clear(d, n);
}

/* src/core/usercopy.c: the rest of a lean clear, and its window's close. */
UA_HIDDEN __attribute__((noinline)) size_t ua__clear_user_rest(char *to,
							       size_t n);

/*
 * ua_clear_user(), with the commonest case inline: backend none, no
 * window open, the range inside the current space.  That window is a
 * lean one and the clear's blocks are inline, so 512 bytes make no call
 * and need no stack frame; everything else, refusals included, takes the
 * full window.  The debug-windows build keeps its checked windows
 * throughout.
 */
static inline size_t ua__clear_user(void *to, size_t n)
{
#if !UA_DEBUG_WINDOWS
	struct ua_space *sp = ua_self.cur;

	if (ua_likely(n && ua__none_window_ok(&ua_self, sp, to, n))) {
		char *d = to;

		ua__lean_window_open(&ua_self);
		n = ua__clear_wide(&d, n);
		if (ua_unlikely(n))
			return ua__clear_user_rest(d, n);
		ua__lean_window_close(&ua_self);
		return 0;
	}
#endif
	return ua__clear_user_slow(to, n);
}

#if defined(__x86_64__)
/* XCR0, the state components the OS enabled; only once CPUID says OSXSAVE. */
static inline uint64_t ua__xgetbv0(void)
{
	uint32_t lo, hi;

	asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}
#endif

/*
 * src/core/debug.c: with UA_DEBUG=1 in the environment, says on stderr
 * why an access of kind UA_WIN_* to [ptr, +len) was refused.
 */
UA_HIDDEN void ua__debug_refused(int kind, const void *ptr, size_t len);

/* src/core/fault.c */
UA_HIDDEN int ua__fault_install(void);

/* src/core/interpose.c */
UA_HIDDEN bool ua__fault_sigs_unblock(sigset_t *old);
UA_HIDDEN void ua__fault_sigs_restore(const sigset_t *old);
UA_HIDDEN void ua__sigmask_raw(int how, const sigset_t *set, sigset_t *old);

/* src/protect/pkey.c: a new thread locks every pkey space. */
UA_HIDDEN void ua__protect_thread_start(void);
UA_HIDDEN uint32_t ua__pkru_locked_all(uint32_t pkru, uint32_t keys);

/* The system page size, read once by ua_init(). */
extern UA_HIDDEN size_t ua__pagesz;

static inline UA_FAST uintptr_t ua__page_up(uintptr_t v)
{
	return (v + ua__pagesz - 1) & ~(uintptr_t)(ua__pagesz - 1);
}

#endif /* UA_INTERNAL_H */
