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

/* ---- vector state through a fault frame ---- */

#include <cpuid.h>

static uint64_t xgetbv0(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

/* AVX (YMM state enabled by the OS) and AVX-512F (opmask, ZMM state). */
static bool have_avx(void)
{
	unsigned a, b, c, d;

	__cpuid(1, a, b, c, d);
	if (!(c & (1u << 27)) || !(c & (1u << 28)))
		return false;
	return (xgetbv0() & 0x6) == 0x6;
}

static bool have_avx512(void)
{
	unsigned a, b, c, d;

	if (!have_avx() || __get_cpuid_max(0, NULL) < 7)
		return false;
	__cpuid_count(7, 0, a, b, c, d);
	return (b & (1u << 16)) && (xgetbv0() & 0xe6) == 0xe6;
}

/* Offset of XSAVE component i in the standard format (CPUID 0xD.i EBX). */
static uint32_t comp_offset(int i)
{
	unsigned a, b, c, d;

	__cpuid_count(0xd, i, a, b, c, d);
	return b;
}

/* Patterns: what the guest loads, what the handler writes. */
static const uint8_t pat_in[4][64] __attribute__((aligned(64))) = {
	[0] = { [0 ... 63] = 0x11 }, /* ymm1 / zmm1 */
	[1] = { [0 ... 63] = 0x22 }, /* ymm2 */
	[2] = { [0 ... 63] = 0x33 }, /* zmm17 */
	[3] = { 0 },
};
#define PAT_XMM 0xa1 /* the handler's xmm1 */
#define PAT_YMM 0xb2 /* the handler's upper half of ymm1 */
#define PAT_ZMM 0xc3 /* the handler's bits 256..511 of zmm1 */

struct vec_rec {
	uint8_t v1[64], v2[64], v17[64];
	int runs;
	bool avx512;
};

static struct vec_rec vrec;
static struct vec_rec *vrec_shared;

static void h_vec(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uint8_t *fp = (uint8_t *)uc->uc_mcontext.fpregs;

	(void)sig;
	(void)si;
	memset(&fp[160 + 16 * 1], PAT_XMM, 16);
	memset(fp + comp_offset(2) + 16 * 1, PAT_YMM, 16);
	/* The handler's own vector registers, which must not leak back. */
	__asm__ volatile("vpcmpeqd %%ymm2, %%ymm2, %%ymm2\n\t"
			 "vpcmpeqd %%ymm1, %%ymm1, %%ymm1" ::
				 : "xmm1", "xmm2");
	if (vrec.avx512) {
		memset(fp + comp_offset(6) + 32 * 1, PAT_ZMM, 32);
		__asm__ volatile("vpternlogd $0xff, %%zmm17, %%zmm17, %%zmm17"
				 ::: "memory");
	}
	vrec.runs++;
	uc->uc_mcontext.gregs[REG_RIP] += 2; /* ud2 */
}

static void body_vec(struct t_run *r)
{
	stack_t ss = { .ss_sp = r->mem, .ss_size = ALT_SIZE };

	ops->sigaltstack(&ss, NULL);
	t_install(SIGILL, h_vec, SA_ONSTACK, 0);
	if (vrec.avx512)
		__asm__ volatile("vmovdqu64 (%0), %%zmm1\n\t"
				 "vmovdqu64 64(%0), %%zmm2\n\t"
				 "vmovdqu64 128(%0), %%zmm17\n\t"
				 "ud2\n\t"
				 "vmovdqu64 %%zmm1, (%1)\n\t"
				 "vmovdqu64 %%zmm2, 64(%1)\n\t"
				 "vmovdqu64 %%zmm17, 128(%1)\n\t"
				 "vzeroupper"
				 :
				 : "r"(pat_in), "r"(&vrec)
				 : "xmm1", "xmm2", "memory");
	else
		__asm__ volatile("vmovdqu (%0), %%ymm1\n\t"
				 "vmovdqu 64(%0), %%ymm2\n\t"
				 "ud2\n\t"
				 "vmovdqu %%ymm1, (%1)\n\t"
				 "vmovdqu %%ymm2, 64(%1)\n\t"
				 "vzeroupper"
				 :
				 : "r"(pat_in), "r"(&vrec)
				 : "xmm1", "xmm2", "memory");
	if (!ops->engine)
		*vrec_shared = vrec;
	ops->exit(42);
}

static void expect_bytes(const uint8_t *p, int from, int to, int v,
			 const char *what)
{
	for (int i = from; i < to; i++)
		cr_expect_eq(p[i], v, "%s byte %d: %#x, expected %#x", what, i,
			     p[i], v);
}

/*
 * A SIGILL handler edits xmm1, the upper half of ymm1 (and bits 256..511
 * of zmm1 with AVX-512) through the frame, and clobbers ymm1, ymm2 (and
 * zmm17) itself; the interrupted code sees the edits and its own values
 * of everything else, on the host and in the engine alike.
 */
Test(sig_fault_full, handler_edits_and_clobbers_vector_state)
{
	struct vec_rec h;
	int wide;

	if (!have_avx())
		cr_skip_test("the CPU or kernel has no AVX state");
	vrec_shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(vrec_shared, MAP_FAILED);
	memset(&vrec, 0, sizeof(vrec));
	vrec.avx512 = have_avx512();
	wide = vrec.avx512 ? 64 : 32;
	t_assert_status_exit(t_run_host_child(body_vec, NULL), 42);
	h = *vrec_shared;
	memset(vrec.v1, 0, sizeof(vrec.v1) * 3);
	vrec.runs = 0;
	t_assert_status_exit(t_run_engine(body_vec, NULL, NULL, NULL), 42);
	cr_expect_eq(h.runs, 1);
	cr_expect_eq(vrec.runs, 1);
	/* The host: the facts the engine must match. */
	expect_bytes(h.v1, 0, 16, PAT_XMM, "host v1");
	expect_bytes(h.v1, 16, 32, PAT_YMM, "host v1");
	expect_bytes(h.v2, 0, wide, 0x22, "host v2");
	expect_bytes(vrec.v1, 0, 16, PAT_XMM, "engine v1");
	expect_bytes(vrec.v1, 16, 32, PAT_YMM, "engine v1");
	expect_bytes(vrec.v2, 0, wide, 0x22, "engine v2");
	if (vrec.avx512) {
		expect_bytes(h.v1, 32, 64, PAT_ZMM, "host v1");
		expect_bytes(h.v17, 0, 64, 0x33, "host v17");
		expect_bytes(vrec.v1, 32, 64, PAT_ZMM, "engine v1");
		expect_bytes(vrec.v17, 0, 64, 0x33, "engine v17");
	}
	cr_expect_arr_eq(vrec.v1, h.v1, (size_t)wide);
}
