// SPDX-License-Identifier: MIT
/*
 * The numbers of doc/design.md §5, in its order.  A subcommand ties a ratio
 * to a target by key (bench_ratio_add); a target nothing measures yet
 * says why.  A threshold is on a speed ratio (reference time / time, "met"
 * is ratio >= threshold) or, with at_most, on an exact count per operation
 * or a latency in microseconds ("met" is value <= threshold).
 */
#include <string.h>

#include "uabench.h"

const struct bench_target bench_targets[] = {
	/* A count, not a speed: met when at most the threshold. */
	{ "sig_switches_block",
	  "protection switches per signal round trip, block mode",
	  "<= 8, goal 5", 8, NULL, true },
	{ "sig_switches_per_access",
	  "protection switches per signal round trip, per-access mode",
	  "counted; about 10x block", 0, NULL, true },
	{ "sig_vs_host",
	  "signal round trip, engine (none) vs host kernel delivery",
	  ">= 25x faster", 25, NULL, false },
	{ "sig_vs_floor",
	  "signal round trip, engine (none) vs its floor (frame write + "
	  "read)",
	  "within 2.5x (>= 0.40)", 0.40, NULL, false },
	{ "sig_backend_vs_none",
	  "signal round trip, real backend in block mode vs none",
	  ">= 0.90 (pkey); mprotect reported", 0.90, NULL, false },
	{ "signal1_scaling",
	  "signal1 per-task round trips per task CPU-second, 2 tasks vs 1",
	  ">= 0.9", 0.9, NULL, false },
	/*
	 * The same over a control loop's scaling on the same CPUs: what the
	 * hardware costs both (sibling vCPUs) taken out, the code's own left.
	 */
	{ "signal1_scaling_control",
	  "signal1 2-task scaling over a control loop's, the same CPUs",
	  ">= 0.9", 0.9, NULL, false },
	{ "null_syscall_vs_getppid",
	  "null syscall (guest -> monitor -> guest) vs host getppid",
	  ">= 15x faster", 15, NULL, false },
	{ "null_syscall_vs_floor",
	  "null syscall vs its floor (an empty entry/exit stub)",
	  "within 2x (>= 0.50)", 0.50, NULL, false },
	/* Reported only: the count per operation and its share of the time. */
	{ "pkey_wrpkru",
	  "pkey null syscall and clear_user: WRPKRU per op, cost of each",
	  "reported with the cost of each WRPKRU", 0, NULL, false },
	{ "trap_sud_vs_native",
	  "trapped syscall of an unmodified program (getppid), sud vs native",
	  "reported (one host signal per call)", 0, NULL, false },
	{ "real_getppid",
	  "static getppid loop under uarun vs native (default trap: "
	  "patch, none, block)",
	  ">= 5x faster; sud reported", 5, NULL, false },
	{ "real_signal1",
	  "will-it-scale signal1 program under uarun vs native (default "
	  "trap: patch, none, block)",
	  ">= 3x faster; sud reported", 3, NULL, false },
	{ "real_dd",
	  "busybox dd zero->null bs=512 under uarun vs native (default "
	  "trap: patch, none, block)",
	  ">= 2x faster; sud reported", 2, NULL, false },
	/*
	 * Whole programs whose work reaches the host (cmd_real_work.c):
	 * uarun with its default trap against the native run.
	 */
	{ "real_find",
	  "busybox find over /usr/share under uarun (default trap) vs native",
	  ">= 0.9x native; sud informative", 0.9, NULL, false },
	{ "real_tar",
	  "busybox tar cf - /usr/include > /dev/null under uarun (default "
	  "trap) vs native",
	  ">= 0.9x native; sud informative", 0.9, NULL, false },
	{ "real_sha256",
	  "busybox sha256sum of 2000 files of 1-8 KiB under uarun (default "
	  "trap) vs native",
	  ">= 0.9x native; sud informative", 0.9, NULL, false },
	/* Compute-bound: what is left is the cost of the trap's set-up. */
	{ "real_gzip",
	  "busybox gzip -c of 20 MiB under uarun (default trap) vs native",
	  ">= 0.98x native; sud informative", 0.98, NULL, false },
	{ "real_futex",
	  "futex wake/wait round trip between two threads under uarun "
	  "(default trap) vs native",
	  "reported (threads)", 0, NULL, false },
	{ "real_spawn",
	  "busybox sh loop of 200 external commands under uarun vs native",
	  "reported (needs fork and exec)", 0, NULL, false },
	/* Issue 24: python3's start-up within 1.5x of its native time. */
	{ "real_python",
	  "python3 -c 'import this' under uarun (default trap) vs native, "
	  "whole run",
	  ">= 0.67x native (1.5x the time); peak RSS <= 1.2x in the notes",
	  0.67, NULL, false },
	{ "trap_rewrite_vs_native",
	  "syscall at a rewritten site (getppid, none) vs native getppid",
	  ">= 5x faster", 5, NULL, false },
	{ "nofault_vs_pvr",
	  "ua_get_kernel_nofault (mapped, 8 B) vs process_vm_readv",
	  ">= 500x faster", 500, NULL, false },
	{ "nofault_vs_sigsetjmp",
	  "ua_get_kernel_nofault (mapped, 8 B) vs sigsetjmp(0) probe",
	  ">= 2x faster", 2, NULL, false },
	{ "unsafe_load", "ua_unsafe_get_user in a window vs a plain load",
	  "within 5% (speed >= 0.95)", 0.95, NULL, false },
	{ "zero_vs_memset",
	  "ua_clear_user / ua_iov_iter_zero, 512 B blocks, vs memset", ">= 0.8",
	  0.8, NULL, false },
	{ "fault_vs_host",
	  "guest SIGFPE round trip (idiv, handler skips it), host time / "
	  "engine time",
	  ">= 1.0 (engine none)", 1.0, NULL, false },
	/* A latency in microseconds: met when at most the threshold. */
	{ "async_p99",
	  "async signal, send to handler entry in a spinning guest, p99",
	  "< 1 ms (engine none)", 1000, NULL, true },
	{ NULL, NULL, NULL, 0, NULL, false },
};

const struct bench_target *bench_target_find(const char *key)
{
	for (const struct bench_target *t = bench_targets; t->key; t++) {
		if (!strcmp(t->key, key))
			return t;
	}
	return NULL;
}
