// SPDX-License-Identifier: MIT
/*
 * Register state across syscalls: every general register, RFLAGS, the
 * stack pointer, and the FP control words a guest has live at a call
 * (MXCSR and the x87 control word) come back as they were; RAX holds the
 * result; the monitor itself runs with DF and AC clear whatever the guest
 * had.
 */
#include <string.h>
#include <unistd.h>

#include "tprobe.h"
#include "ttask.h"

PROBE_DEFINE();

TestSuite(task_regs, .init = t_skip_if_unavailable);

/* What the guest saw, checked by the monitor after the run. */
struct seen {
	long iters;
	long bad;            /* iterations with any mismatch */
	int first_slot;      /* first mismatching slot, -1 if none */
	long first_iter;
	uint64_t got, want;
	uint32_t mxcsr[2];   /* before / after the loop */
	uint16_t fpucw[2];
};

static struct seen seen;

static void note_bad(long iter, int slot, uint64_t got, uint64_t want)
{
	if (!seen.bad++) {
		seen.first_iter = iter;
		seen.first_slot = slot;
		seen.got = got;
		seen.want = want;
	}
}

static void assert_seen_clean(long iters)
{
	cr_assert_eq(seen.iters, iters, "guest ran %ld of %ld", seen.iters,
		     iters);
	cr_assert_eq(seen.bad, 0,
		     "%ld bad iterations; first: iteration %ld, %s = %#llx, "
		     "expected %#llx",
		     seen.bad, seen.first_iter,
		     seen.first_slot >= 0 ? probe_names[seen.first_slot] : "?",
		     (unsigned long long)seen.got,
		     (unsigned long long)seen.want);
}

static uint32_t get_mxcsr(void)
{
	uint32_t v;

	__asm__ volatile("stmxcsr %0" : "=m"(v));
	return v;
}

static void set_mxcsr(uint32_t v)
{
	__asm__ volatile("ldmxcsr %0" ::"m"(v));
}

static uint16_t get_fpucw(void)
{
	uint16_t v;

	__asm__ volatile("fnstcw %0" : "=m"(v));
	return v;
}

static void set_fpucw(uint16_t v)
{
	__asm__ volatile("fldcw %0" ::"m"(v));
}

/* Round toward zero, flush-to-zero, all exceptions masked. */
#define GUEST_MXCSR 0xff80u
/* Round toward zero (truncate), extended precision, exceptions masked. */
#define GUEST_FPUCW 0x0f7fu

/*
 * 10^6 null syscalls; 10^5 where each one also costs the backend two
 * mprotect() calls (mprotect: 2 * 10^6 host syscalls would take minutes on
 * a loaded virtual machine, and add nothing the first 10^5 do not test).
 */
static long nops = 1000000L;

static void guest_nop_loop(void *arg)
{
	static const int callee_saved[] = { P_RBX, P_RBP, P_R12,
					    P_R13, P_R14, P_R15 };
	uint32_t mxcsr0 = get_mxcsr();
	uint16_t fpucw0 = get_fpucw();
	struct probe in, out;

	(void)arg;
	set_mxcsr(GUEST_MXCSR);
	set_fpucw(GUEST_FPUCW);
	seen.mxcsr[0] = get_mxcsr();
	seen.fpucw[0] = get_fpucw();
	for (long i = 0; i < nops; i++) {
		bool bad = false;

		probe_fill(&in, (uint64_t)i);
		probe_nop(&out, &in);
		for (size_t k = 0; k < 6; k++) {
			int s = callee_saved[k];

			if (out.r[s] != in.r[s] && !bad) {
				note_bad(i, s, out.r[s], in.r[s]);
				bad = true;
			}
		}
		if (!bad && out.r[P_RAX] != 0) {
			note_bad(i, P_RAX, out.r[P_RAX], 0);
			bad = true;
		}
		if (!bad && (out.r[P_FLAGS] & TT_DF)) {
			note_bad(i, P_FLAGS, out.r[P_FLAGS], 0);
			bad = true;
		}
		if (!bad && out.r[P_RSP_AFTER] != out.r[P_RSP_BEFORE])
			note_bad(i, P_RSP_AFTER, out.r[P_RSP_AFTER],
				 out.r[P_RSP_BEFORE]);
		if ((i & 4095) == 0 && (get_mxcsr() != GUEST_MXCSR ||
					get_fpucw() != GUEST_FPUCW))
			break;
		seen.iters = i + 1;
	}
	seen.mxcsr[1] = get_mxcsr();
	seen.fpucw[1] = get_fpucw();
	set_mxcsr(mxcsr0);
	set_fpucw(fpucw0);
}

Test(task_regs, nop_many_times_keeps_state, .timeout = 120)
{
	struct ua_space *sp = tt_space();
	struct ua_stats a, b;

	if (ua_space_protect(sp) != UA_PROTECT_NONE)
		nops = 100000L;
	memset(&seen, 0, sizeof(seen));
	seen.first_slot = -1;
	ua_stats_reset();
	ua_stats_get(&a);
	tt_assert_exited(tt_run(sp, guest_nop_loop, NULL), 0);
	ua_stats_get(&b);
	assert_seen_clean(nops);
	cr_assert_eq(seen.mxcsr[0], GUEST_MXCSR, "%#x", seen.mxcsr[0]);
	cr_assert_eq(seen.mxcsr[1], GUEST_MXCSR, "MXCSR after: %#x",
		     seen.mxcsr[1]);
	cr_assert_eq(seen.fpucw[0], GUEST_FPUCW, "%#x", seen.fpucw[0]);
	cr_assert_eq(seen.fpucw[1], GUEST_FPUCW, "x87 CW after: %#x",
		     seen.fpucw[1]);
	cr_assert_eq(b.switches - a.switches, 2 * (uint64_t)nops + 2);
	ua_space_destroy(sp);
}

/* Raw ua_syscall: every register but RAX exactly as loaded. */
static uint64_t raw_flags_in;
static long raw_nr;
static uint64_t raw_rax_want;

static void guest_raw_loop(void *arg)
{
	long n = (long)(intptr_t)arg;
	struct probe in, out;

	for (long i = 0; i < n; i++) {
		bool bad = false;

		probe_fill(&in, (uint64_t)i * 7 + 1);
		in.r[P_RDI] = (uint64_t)raw_nr;
		in.r[P_FLAGS] = raw_flags_in;
		probe_raw(&out, &in);
		for (int s = P_RBX; s <= P_R15 && !bad; s++) {
			if (out.r[s] != in.r[s]) {
				note_bad(i, s, out.r[s], in.r[s]);
				bad = true;
			}
		}
		if (!bad && out.r[P_RAX] != raw_rax_want) {
			note_bad(i, P_RAX, out.r[P_RAX], raw_rax_want);
			bad = true;
		}
		/* RF is never visible to pushfq; everything else is exact. */
		if (!bad && out.r[P_FLAGS] != in.r[P_FLAGS]) {
			note_bad(i, P_FLAGS, out.r[P_FLAGS], in.r[P_FLAGS]);
			bad = true;
		}
		if (!bad && out.r[P_RSP_AFTER] != out.r[P_RSP_BEFORE])
			note_bad(i, P_RSP_AFTER, out.r[P_RSP_AFTER],
				 out.r[P_RSP_BEFORE]);
		seen.iters = i + 1;
	}
}

static void run_raw(long nr, uint64_t flags, uint64_t rax_want, long n)
{
	struct ua_space *sp = tt_space();

	memset(&seen, 0, sizeof(seen));
	seen.first_slot = -1;
	raw_nr = nr;
	raw_flags_in = flags;
	raw_rax_want = rax_want;
	tt_assert_exited(tt_run(sp, guest_raw_loop, (void *)(intptr_t)n), 0);
	assert_seen_clean(n);
	ua_space_destroy(sp);
}

#define ARITH (TT_CF | TT_PF | TT_AF | TT_ZF | TT_SF | TT_OF)

Test(task_regs, raw_syscall_keeps_every_register)
{
	run_raw(UA_NR_nop, 0x202, 0, 10000);
	run_raw(UA_NR_nop, 0x202 | ARITH, 0, 10000);
}

/*
 * The fast return restores the status flags without popfq when nothing
 * else is set: every combination of the six must come back exactly, with
 * and without DF (which takes popfq).
 */
Test(task_regs, every_status_flag_combination)
{
	static const uint64_t bit[6] = { TT_CF, TT_PF, TT_AF,
					 TT_ZF, TT_SF, TT_OF };

	for (unsigned m = 0; m < 64; m++) {
		uint64_t f = 0x202;

		for (int i = 0; i < 6; i++)
			if (m & (1u << i))
				f |= bit[i];
		run_raw(UA_NR_nop, f, 0, 20);
		run_raw(UA_NR_nop, f | TT_DF, 0, 5);
	}
}

Test(task_regs, raw_syscall_result_in_rax)
{
	struct ua_space *sp = tt_space();
	struct ua_task *t;

	/* ENOSYS for an unknown number, with all other registers intact. */
	run_raw(4000, 0x202 | ARITH, (uint64_t)-ENOSYS, 1000);
	run_raw(UA_NR_getpid, 0x202, (uint64_t)getpid(), 1000);
	/* gettid: the id of the task that runs the loop. */
	t = tt_task(sp, guest_raw_loop, (void *)100);
	memset(&seen, 0, sizeof(seen));
	raw_nr = UA_NR_gettid;
	raw_flags_in = 0x202;
	raw_rax_want = (uint64_t)ua_task_tid(t);
	tt_assert_exited(ua_task_run(t), 0);
	assert_seen_clean(100);
	ua_task_destroy(t);
	ua_space_destroy(sp);
}

/*
 * A guest that breaks the ABI by calling with DF or AC set: the monitor
 * runs with both clear (an unaligned access in monitor code would raise
 * SIGBUS under AC), and the guest gets its flags back exactly.
 */
static uint64_t hook_flags;
static uint64_t hook_unaligned;
static int hook_calls;

static bool hook_flag_probe(struct ua_task *t, struct ua_pt_regs *r, void *d)
{
	static char buf[16] = "0123456789abcde";
	uint64_t v;

	(void)t;
	(void)r;
	(void)d;
	hook_calls++;
	hook_flags = __builtin_ia32_readeflags_u64();
	/* Unaligned on purpose: would fault if AC had leaked in. */
	__asm__ volatile("movq 1(%1), %0" : "=r"(v) : "r"(buf));
	hook_unaligned = v;
	return false;
}

static void run_flags_case(uint64_t flags)
{
	struct ua_space *sp = tt_space();
	struct ua_task *t = tt_task(sp, guest_raw_loop, (void *)10);

	memset(&seen, 0, sizeof(seen));
	seen.first_slot = -1;
	hook_calls = 0;
	raw_nr = UA_NR_nop;
	raw_flags_in = flags;
	raw_rax_want = 0;
	ua_task_set_syscall_hook(t, hook_flag_probe, NULL);
	tt_assert_exited(ua_task_run(t), 0);
	assert_seen_clean(10);
	cr_assert_eq(hook_calls, 10 + 1, "10 nops and the exit");
	cr_assert_eq(hook_flags & (TT_DF | TT_AC | TT_TF), 0,
		     "monitor flags %#llx", (unsigned long long)hook_flags);
	cr_assert_eq(hook_unaligned, 0x3837363534333231ull);
	ua_task_destroy(t);
	ua_space_destroy(sp);
}

Test(task_regs, guest_df_does_not_reach_monitor)
{
	run_flags_case(0x202 | TT_DF);
	run_flags_case(0x202 | TT_DF | ARITH);
}

Test(task_regs, guest_ac_does_not_reach_monitor)
{
	run_flags_case(0x202 | TT_AC);
	run_flags_case(0x202 | TT_AC | TT_DF | ARITH);
}
