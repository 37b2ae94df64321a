// SPDX-License-Identifier: MIT
/*
 * The "none" backend: windows are bookkeeping only.  Guest pages keep the
 * protection given to ua_map() and the monitor can always touch them; the
 * switches are still counted so every backend reports the same numbers.
 */
#include "../internal.h"

static int none_init(struct ua_space *sp)
{
	(void)sp;
	return 0;
}

static void none_fini(struct ua_space *sp)
{
	(void)sp;
}

static int none_map_prot(struct ua_space *sp, int guest_prot)
{
	(void)sp;
	return guest_prot;
}

const struct ua_protect_ops ua__protect_none = {
	.kind = UA_PROTECT_NONE,
	.init = none_init,
	.fini = none_fini,
	.map_prot = none_map_prot,
};
