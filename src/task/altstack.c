// SPDX-License-Identifier: MIT
/*
 * The alternate signal stacks of threads that run guest code, and how a
 * signal entry finds the running task from the stack the kernel switched
 * to.
 *
 * A guest owns its FS and GS bases (wrfsbase and wrgsbase work where the
 * kernel enables FSGSBASE, AT_HWCAP2 bit 1), so neither can lead a
 * signal entry to the thread's state.  The stack pointer can: every
 * handler of the library is SA_ONSTACK, so while a task runs, every host
 * signal the thread takes lands on its alternate stack (the kernel
 * switches unless the thread is already on it, and then it is on it).
 * All those stacks are slots of one reservation: the entry stubs
 * (src/arch/x86_64/trap.S) test that RSP is inside it, round it down to
 * its slot and read the slot's first word, the trap block of the task
 * the thread runs (NULL between runs).  A stack pointer anywhere else
 * means a thread that is not running a task.
 *
 * A slot: one page with the header, one guard page (an overflowing
 * handler faults rather than overwrite the header), then the stack.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "task_internal.h"

#define SLOT_SIZE ((size_t)UA_ASTACK_SLOT)
#define NR_SLOTS 1024
#define HEAD_SIZE 4096
#define GUARD_SIZE 4096

/* Read by the entry stubs: the reservation, 0 and 0 until made. */
uintptr_t ua__astack_base;
size_t ua__astack_len;

static pthread_once_t reserve_once = PTHREAD_ONCE_INIT;
static uint64_t slot_used[NR_SLOTS / 64];
static pthread_key_t slot_key;

struct astack_tls {
	int slot;	    /* this thread's slot + 1, or 0 */
	bool foreign_saved; /* the thread had an altstack of its own */
	stack_t foreign;
};
static UA_TLS struct astack_tls astack;

static void slot_free(void *p);

static void reserve(void)
{
	size_t len = SLOT_SIZE * NR_SLOTS;
	uintptr_t base, aligned;
	void *m;

	/* Slots aligned to their size: the stubs find one with a mask. */
	m = mmap(NULL, len + SLOT_SIZE, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return;
	base = (uintptr_t)m;
	aligned = (base + SLOT_SIZE - 1) & ~(uintptr_t)(SLOT_SIZE - 1);
	if (aligned > base)
		munmap(m, aligned - base);
	munmap((void *)(aligned + len), base + SLOT_SIZE - aligned);
	if (pthread_key_create(&slot_key, slot_free)) {
		munmap((void *)aligned, len);
		return;
	}
	ua__astack_len = len;
	__atomic_store_n(&ua__astack_base, aligned, __ATOMIC_RELEASE);
}

static uintptr_t slot_addr(int i)
{
	return ua__astack_base + (size_t)i * SLOT_SIZE;
}

static int slot_take(void)
{
	for (int w = 0; w < NR_SLOTS / 64; w++) {
		uint64_t v = __atomic_load_n(&slot_used[w], __ATOMIC_RELAXED);

		while (~v) {
			int b = __builtin_ctzll(~v);

			if (__atomic_compare_exchange_n(
				    &slot_used[w], &v, v | (1ull << b), false,
				    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
				return w * 64 + b;
		}
	}
	return -1;
}

static void slot_release(int i)
{
	__atomic_fetch_and(&slot_used[i / 64], ~(1ull << (i % 64)),
			   __ATOMIC_RELEASE);
}

/* Thread exit: the stack back to the reservation, the slot free. */
static void slot_free(void *p)
{
	int i = (int)(uintptr_t)p - 1;
	stack_t cur, off = { .ss_flags = SS_DISABLE };
	uintptr_t a = slot_addr(i);

	if (!sigaltstack(NULL, &cur) &&
	    (uintptr_t)cur.ss_sp == a + HEAD_SIZE + GUARD_SIZE)
		sigaltstack(&off, NULL);
	mmap((void *)a, SLOT_SIZE, PROT_NONE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
	slot_release(i);
}

static int slot_get(void)
{
	uintptr_t a;
	int i;

	if (astack.slot)
		return 0;
	pthread_once(&reserve_once, reserve);
	if (!ua__astack_base)
		return -ENOMEM;
	i = slot_take();
	if (i < 0) {
		ua__write_str(2, "uaccess: more threads run tasks at once than "
				 "there are signal stacks for (1024)\n");
		return -EAGAIN;
	}
	a = slot_addr(i);
	if (mprotect((void *)a, HEAD_SIZE, PROT_READ | PROT_WRITE) ||
	    mprotect((void *)(a + HEAD_SIZE + GUARD_SIZE),
		     SLOT_SIZE - HEAD_SIZE - GUARD_SIZE,
		     PROT_READ | PROT_WRITE)) {
		int err = -errno;

		slot_release(i);
		return err;
	}
	astack.slot = i + 1;
	pthread_setspecific(slot_key, (void *)(uintptr_t)astack.slot);
	return 0;
}

/*
 * ua_task_run(), before the task starts: this thread's slot installed as
 * its alternate signal stack.  A task whose entries must find it there
 * (required: one that traps syscalls or owns its FS base) puts an
 * altstack of the caller's own aside until ua__astack_put(); any other
 * task runs on the caller's, if it has one.
 */
int ua__astack_get(bool required)
{
	stack_t cur, ss;
	int err;

	if (sigaltstack(NULL, &cur))
		return -errno;
	if (!required && !(cur.ss_flags & SS_DISABLE))
		return 0;
	err = slot_get();
	if (err)
		return err;
	ss.ss_sp =
		(void *)(slot_addr(astack.slot - 1) + HEAD_SIZE + GUARD_SIZE);
	ss.ss_size = SLOT_SIZE - HEAD_SIZE - GUARD_SIZE;
	ss.ss_flags = 0;
	if (cur.ss_sp == ss.ss_sp && !(cur.ss_flags & SS_DISABLE))
		return 0;
	if (sigaltstack(&ss, NULL))
		return -errno;
	/* None before: this one stays for the thread's life. */
	if (!(cur.ss_flags & SS_DISABLE)) {
		astack.foreign_saved = true;
		astack.foreign = cur;
	}
	return 0;
}

/* ua_task_run(), after the task: the caller's altstack back, if any. */
void ua__astack_put(void)
{
	if (!astack.foreign_saved)
		return;
	astack.foreign_saved = false;
	/* SS_ONSTACK is a status, not a request (sigaltstack(2)). */
	astack.foreign.ss_flags &= SS_DISABLE;
	sigaltstack(&astack.foreign, NULL);
}

/*
 * What the entry stubs find for this thread: the trap block of the task
 * it runs, or NULL.  The thread's slot is installed (ua__astack_get()).
 */
void ua__astack_set_tb(struct ua_trap_block *tb)
{
	struct ua_trap_block **head;

	if (!astack.slot)
		return;
	head = (struct ua_trap_block **)slot_addr(astack.slot - 1);
	__atomic_store_n(head, tb, __ATOMIC_RELEASE);
}
