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

/** ua_stats_reset() - zero the calling thread's counters */
UA_EXPORT void ua_stats_reset(void);

UA_END_DECLS

#endif /* UACCESS_STATS_H */
