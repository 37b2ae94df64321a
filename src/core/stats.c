// SPDX-License-Identifier: MIT
/* Per-thread counters. */
#include "../internal.h"

void ua_stats_get(struct ua_stats *st)
{
	*st = ua_self.stats;
	/* Each lean window counts when it opens, as the others do. */
	st->windows += (ua_self.lean_seq + 1) / 2;
	st->switches += ua_self.lean_seq;
}

void ua_stats_reset(void)
{
	ua_self.stats = (struct ua_stats){ 0 };
	/* An open lean window (a handler interrupted a clear) stays open. */
	ua_self.lean_seq &= 1;
}
