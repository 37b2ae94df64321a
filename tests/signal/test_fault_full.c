// SPDX-License-Identifier: MIT
/*
 * Guest faults, differential: the same code on the host (a forked child,
 * real signals) and as an engine task, compared.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tsig.h"

TestSuite(sig_fault_full, .init = t_skip_if_unavailable);

/* What a fault handler saw; shared with the host child. */
struct fault_rec {
	int sig, code, runs;
	bool on_altstack;
};

static struct fault_rec rec;
static struct fault_rec *rec_shared;

#define ALT_SIZE (64 << 10)

static void share_setup(void)
{
	rec_shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(rec_shared, MAP_FAILED);
	memset(&rec, 0, sizeof(rec));
}

/* The record of the host run, then a clean one for the engine run. */
static struct fault_rec host_result(void)
{
	struct fault_rec h = *rec_shared;

	memset(&rec, 0, sizeof(rec));
	return h;
}

static void rec_publish(void)
{
	if (!ops->engine)
		*rec_shared = rec;
}

/* ---- stack overflow into the guard, caught on an altstack ---- */

static volatile int keep_going = 1;

static int recurse(int depth)
{
	volatile char frame[256];

	frame[0] = (char)depth;
	if (keep_going)
		return recurse(depth + 1) + frame[0];
	return frame[0];
}

static void h_overflow(int sig, siginfo_t *si, void *uc)
{
	char here;
	uintptr_t p = (uintptr_t)&here, alt = (uintptr_t)t_cur->mem;

	(void)uc;
	rec.sig = sig;
	rec.code = si->si_code;
	rec.runs++;
	rec.on_altstack = p > alt && p - alt <= ALT_SIZE;
	rec_publish();
	ops->exit(42);
}

static void body_overflow(struct t_run *r)
{
	stack_t ss = { .ss_sp = r->mem, .ss_size = ALT_SIZE };

	ops->sigaltstack(&ss, NULL);
	t_install(SIGSEGV, h_overflow, SA_ONSTACK, 0);
	recurse(0);
	ops->exit(1);
}

/*
 * The kernel's stack guard gap is unmapped: SEGV_MAPERR.  The task's
 * guard page reports the same.
 */
Test(sig_fault_full, stack_overflow_on_altstack_is_maperr)
{
	struct fault_rec h;

	share_setup();
	t_assert_status_exit(t_run_host_child(body_overflow, NULL), 42);
	h = host_result();
	t_assert_status_exit(t_run_engine(body_overflow, NULL, NULL, NULL),
			     42);
	cr_expect_eq(h.sig, SIGSEGV);
	cr_expect_eq(h.code, SEGV_MAPERR);
	cr_expect(h.on_altstack);
	cr_expect_eq(rec.sig, h.sig);
	cr_expect_eq(rec.code, h.code, "si_code: host %d engine %d", h.code,
		     rec.code);
	cr_expect(rec.on_altstack);
	cr_expect_eq(rec.runs, 1);
}

/* ---- a store to a page nothing is mapped at ---- */

static void h_record(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	rec.sig = sig;
	rec.code = si->si_code;
	rec.runs++;
	rec_publish();
	ops->exit(42);
}

static void body_hole(struct t_run *r)
{
	stack_t ss = { .ss_sp = r->mem, .ss_size = ALT_SIZE };

	ops->sigaltstack(&ss, NULL);
	t_install(SIGSEGV, h_record, SA_ONSTACK, 0);
	/* T_MEM is followed by an unmapped page, on both sides. */
	__asm__ volatile("movl $1, (%0)" ::"r"(r->mem + T_MEM) : "memory");
	ops->exit(1);
}

Test(sig_fault_full, store_to_unmapped_page_is_maperr)
{
	struct fault_rec h;

	share_setup();
	t_assert_status_exit(t_run_host_child(body_hole, NULL), 42);
	h = host_result();
	t_assert_status_exit(t_run_engine(body_hole, NULL, NULL, NULL), 42);
	cr_expect_eq(h.code, SEGV_MAPERR);
	cr_expect_eq(rec.sig, SIGSEGV);
	cr_expect_eq(rec.code, h.code, "si_code: host %d engine %d", h.code,
		     rec.code);
}
