// SPDX-License-Identifier: MIT
/* Per-thread counters. */
#include <string.h>

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
	ua_self.insn = (struct ua_insn_stats){ 0 };
	/* An open lean window (a handler interrupted a clear) stays open. */
	ua_self.lean_seq &= 1;
}

size_t ua_stats_get_insns(struct ua_insn_stats *st, size_t size)
{
	struct ua_insn_stats now = ua_self.insn;

	if (st && size)
		memcpy(st, &now, size < sizeof(now) ? size : sizeof(now));
	return sizeof(now);
}
