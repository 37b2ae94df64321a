// SPDX-License-Identifier: MIT
/* Per-thread counters. */
#include "../internal.h"

void ua_stats_get(struct ua_stats *st)
{
	*st = ua_self.stats;
	st->windows += ua_self.lean_windows;
	st->switches += 2 * ua_self.lean_windows;
}

void ua_stats_reset(void)
{
	ua_self.stats = (struct ua_stats){ 0 };
	ua_self.lean_windows = 0;
}
