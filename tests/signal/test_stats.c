// SPDX-License-Identifier: MIT
/*
 * Protection switches for one signal round trip (raise -> handler ->
 * rt_sigreturn), counted exactly under every backend: 5 in block mode
 * (DESIGN.md §5: entry lock, the frame's write window, its unlock folded
 * into the exit; rt_sigreturn's entry folded into its read window, whose
 * close is folded into the exit), and in per-access mode one window per
 * field of the frame, in both directions.
 */
#include <stdlib.h>
#include <string.h>

#include "tsig.h"

TestSuite(sig_stats, .init = t_skip_if_unavailable, .timeout = 60);

/*
 * Per-access mode: every field is its own checked access, a window of
 * two switches.  The frame: uc_flags, uc_link, the three uc_stack fields,
 * pretcode, 27 sigcontext fields, uc_sigmask, siginfo (SA_SIGINFO only),
 * the FP image, PKRU where XCR0 has it (machine-dependent: from CPUID)
 * and MAGIC2: 37 or 38 writes.  rt_sigreturn: uc_sigmask, uc_flags, 19
 * sigcontext fields, the FP area's sw bytes, MAGIC2, the XRSTOR of the
 * image (with PKRU read in the same window), three uc_stack fields: 27
 * reads.  Plus the lock on each syscall's entry and the unlock on its
 * exit.
 */
#define PA_WRITES_SIGINFO (37 + (t_have_pkru ? 1 : 0))
#define PA_READS 27
#define PA_SWITCHES(writes) (2 + 2 * (writes) + 2 + 2 * PA_READS)

#define ROUNDS 16

static struct {
	uint64_t sw[ROUNDS], win[ROUNDS], fix[ROUNDS];
	uint64_t nop_sw;
	int runs;
} st;

static void h_empty(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	st.runs++;
}

static void body_round_trips(struct t_run *r)
{
	struct sigaction sa;
	struct ua_stats a, b;

	memset(&sa, 0, sizeof(sa));
	t_handlers[SIGUSR1] = h_empty;
	sa.sa_sigaction = t_tramp;
	sa.sa_flags = r->arg ? 0 : SA_SIGINFO;
	ua_sys_sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < ROUNDS; i++) {
		ua_stats_get(&a);
		ua_sys_raise(SIGUSR1);
		ua_stats_get(&b);
		st.sw[i] = b.switches - a.switches;
		st.win[i] = b.windows - a.windows;
		st.fix[i] = b.fixups - a.fixups;
	}
	ua_stats_get(&a);
	ua_sys_nop();
	ua_stats_get(&b);
	st.nop_sw = b.switches - a.switches;
}

static void check(bool siginfo)
{
	bool block = t_frame_mode() == UA_FRAME_BLOCK;
	uint64_t want_sw = block ? 5 :
			   PA_SWITCHES(PA_WRITES_SIGINFO - (siginfo ? 0 : 1));
	uint64_t want_win = block ? 2 : (want_sw - 4) / 2;

	memset(&st, 0, sizeof(st));
	t_assert_status_exit(t_run_engine(body_round_trips,
					  siginfo ? NULL : (void *)1, NULL,
					  NULL),
			     0);
	cr_assert_eq(st.runs, ROUNDS);
	cr_expect_eq(st.nop_sw, 2, "null syscall: %lu switches", st.nop_sw);
	for (int i = 0; i < ROUNDS; i++) {
		cr_expect_eq(st.sw[i], want_sw, "%s, round %d: %lu switches",
			     block ? "block" : "per-access", i, st.sw[i]);
		cr_expect_eq(st.win[i], want_win, "round %d: %lu windows", i,
			     st.win[i]);
		cr_expect_eq(st.fix[i], 0);
	}
	cr_log_info("%s mode, backend %s, %s: %lu switches, %lu windows per "
		    "round trip",
		    block ? "block" : "per-access",
		    getenv("UA_PROTECT") ? getenv("UA_PROTECT") : "default",
		    siginfo ? "SA_SIGINFO" : "no SA_SIGINFO", st.sw[0],
		    st.win[0]);
}

Test(sig_stats, round_trip_switches_siginfo)
{
	check(true);
}

Test(sig_stats, round_trip_switches_no_siginfo)
{
	check(false);
}
