/* SPDX-License-Identifier: MIT */
/* Per-thread counters for benchmarks and tests. */
#ifndef UACCESS_STATS_H
#define UACCESS_STATS_H

#include <uaccess/compiler.h>

UA_BEGIN_DECLS

/**
 * struct ua_stats - counters of the calling thread
 * @switches: protection state changes: each window open or close, each lock
 *	on syscall entry and unlock on exit, counted alike under every backend
 * @windows: access windows opened
 * @fixups: faults recovered through the exception table
 */
struct ua_stats {
	uint64_t switches;
	uint64_t windows;
	uint64_t fixups;
};

/** ua_stats_get() - copy the calling thread's counters into @st */
UA_EXPORT void ua_stats_get(struct ua_stats *st);

/**
 * ua_stats_reset() - zero the calling thread's counters, those of
 *	ua_stats_get() and those of ua_stats_get_insns()
 */
UA_EXPORT void ua_stats_reset(void);

/**
 * struct ua_insn_stats - costly instructions and host events of the
 *	calling thread, counted where the library causes them
 * @wrpkru: WRPKRU instructions executed (a protection key switch, or the
 *	PKRU handed between a guest and its monitor where PKRU is XSAVE
 *	state); PKRU values the kernel writes (pkey_alloc(), a signal
 *	handler's init PKRU) are not instructions and are not counted
 * @wrfsbase: WRFSBASE instructions executed (the FS base switch between
 *	a guest that traps its syscalls or owns its thread pointer and the
 *	monitor)
 * @fs_syscalls: arch_prctl(ARCH_SET_FS) system calls made instead of
 *	WRFSBASE where the kernel does not enable FSGSBASE
 * @sig_sysdispatch: SIGSYS signals of Syscall User Dispatch taken by the
 *	library's handler (each a trapped syscall that took the slow way)
 * @sig_irq: the library's interrupt signal taken by its handler
 * @sig_fault: fault signals (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP)
 *	taken by the library's handler, fixed-up accessor faults included
 *
 * Fields are only ever appended: ua_stats_get_insns() copies as many
 * bytes as the caller's structure has.
 */
struct ua_insn_stats {
	uint64_t wrpkru;
	uint64_t wrfsbase;
	uint64_t fs_syscalls;
	uint64_t sig_sysdispatch;
	uint64_t sig_irq;
	uint64_t sig_fault;
};

/**
 * ua_stats_get_insns() - copy the calling thread's instruction and host
 *	event counters into @st
 * @st: where to copy them
 * @size: sizeof(*st) as the caller was built with; the first
 *	min(@size, sizeof(struct ua_insn_stats)) bytes are written, so
 *	programs built against an older, shorter structure keep working
 *
 * Return: the size of struct ua_insn_stats this library has.
 */
UA_EXPORT size_t ua_stats_get_insns(struct ua_insn_stats *st, size_t size);

UA_END_DECLS

#endif /* UACCESS_STATS_H */
