// SPDX-License-Identifier: MIT
/* Per-thread counters. */
#include "../internal.h"

void ua_stats_get(struct ua_stats *st)
{
	*st = ua_self.stats;
}

void ua_stats_reset(void)
{
	ua_self.stats = (struct ua_stats){ 0 };
}
