// SPDX-License-Identifier: MIT
/*
 * The protection layer: choosing a backend and driving it through the
 * per-thread modes (locked, read/write/rw window, guest).  Every mode
 * change is one protection switch in ua_stats, whatever the backend does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"

const char *ua_protect_name(enum ua_protect p)
{
	switch (p) {
	case UA_PROTECT_AUTO: return "auto";
	case UA_PROTECT_NONE: return "none";
	case UA_PROTECT_MPROTECT: return "mprotect";
	case UA_PROTECT_PKEY: return "pkey";
	}
	return "?";
}

static const struct ua_protect_ops *ops_of(enum ua_protect p)
{
	switch (p) {
	case UA_PROTECT_NONE: return &ua__protect_none;
	case UA_PROTECT_MPROTECT: return &ua__protect_mprotect;
	case UA_PROTECT_PKEY: return &ua__protect_pkey;
	default: return NULL;
	}
}

/* UA_PROTECT from the environment: AUTO when unset or "auto". */
static int protect_from_env(enum ua_protect *p)
{
	const char *v = getenv("UA_PROTECT");

	*p = UA_PROTECT_AUTO;
	if (!v || !*v || !strcmp(v, "auto"))
		return 0;
	for (enum ua_protect i = UA_PROTECT_NONE; i <= UA_PROTECT_PKEY; i++) {
		if (!strcmp(v, ua_protect_name(i))) {
			*p = i;
			return 0;
		}
	}
	ua__write_str(2, "uaccess: UA_PROTECT='");
	ua__write_str(2, v);
	ua__write_str(2, "' is not one of: auto, none, mprotect, pkey\n");
	return -EINVAL;
}

const struct ua_protect_ops *ua__protect_select(enum ua_protect p, int *err)
{
	const char *why = NULL;

	if (p == UA_PROTECT_AUTO) {
		*err = protect_from_env(&p);
		if (*err)
			return NULL;
		if (p == UA_PROTECT_AUTO)
			p = ua_protect_available(UA_PROTECT_PKEY, NULL) ?
				    UA_PROTECT_PKEY :
				    UA_PROTECT_MPROTECT;
	}
	if (!ua_protect_available(p, &why)) {
		ua__write_str(2, "uaccess: protection backend '");
		ua__write_str(2, ua_protect_name(p));
		ua__write_str(2, "' requested but not available: ");
		ua__write_str(2, why);
		ua__write_str(2, "\n");
		*err = -EOPNOTSUPP;
		return NULL;
	}
	*err = 0;
	return ops_of(p);
}

/* The mode the calling thread has on sp. */
static int mode_of(const struct ua_space *sp)
{
	if (ua_self.win_kind && ua_self.win_space == sp)
		return ua_self.win_kind;
	if (ua_self.guest_space == sp)
		return UA_MODE_GUEST;
	return UA_MODE_LOCKED;
}

void ua__protect_switch(struct ua_space *sp, int from, int to)
{
	ua_self.stats.switches++;
	sp->ops->switch_mode(sp, from, to);
}

bool ua__protect_window_open(int kind, const void *ptr, size_t len)
{
	struct ua_space *sp = ua_self.cur;
	int from;

	if (!ua_access_ok(ptr, len))
		return false;
	from = mode_of(sp);
	ua_self.win_kind = kind;
	ua_self.win_space = sp;
	ua_self.win_lo = (uintptr_t)ptr;
	ua_self.win_hi = (uintptr_t)ptr + len;
	ua_self.win_file = NULL;
	ua_self.stats.windows++;
	ua__protect_switch(sp, from, kind);
	return true;
}

void ua__protect_window_close(int kind)
{
	struct ua_space *sp = ua_self.win_space;
	int from = ua_self.win_kind;

	(void)kind;
	if (!from)
		return;
	ua_self.win_kind = 0;
	ua_self.win_space = NULL;
	ua__protect_switch(sp, from, mode_of(sp));
}

void ua_protect_lock(struct ua_space *sp)
{
	ua_self.guest_space = NULL;
	ua__protect_switch(sp, UA_MODE_GUEST, UA_MODE_LOCKED);
}

static void check_no_window(const char *what)
{
	if (UA_DEBUG_WINDOWS && ua_self.win_kind)
		ua__die("%s: a %s window opened at %s:%d is still open on the "
			"way back to guest mode",
			what, ua_self.win_kind == UA_WIN_READ ? "read" : "write",
			ua_self.win_file ? ua_self.win_file : "?",
			ua_self.win_line);
}

void ua_protect_unlock(struct ua_space *sp)
{
	check_no_window("ua_protect_unlock");
	ua__protect_switch(sp, UA_MODE_LOCKED, UA_MODE_GUEST);
	ua_self.guest_space = sp;
}

void ua_protect_unlock_from_window(struct ua_space *sp)
{
	int from = ua_self.win_kind;

	if (!from || ua_self.win_space != sp)
		ua__die("ua_protect_unlock_from_window: no window open on the "
			"space");
	ua_self.win_kind = 0;
	ua_self.win_space = NULL;
	ua__protect_switch(sp, from, UA_MODE_GUEST);
	ua_self.guest_space = sp;
}

bool ua_protect_available(enum ua_protect p, const char **why)
{
	const char *dummy;

	if (!why)
		why = &dummy;
	switch (p) {
	case UA_PROTECT_NONE:
	case UA_PROTECT_MPROTECT:
		return true;
	case UA_PROTECT_PKEY:
		return ua__pkey_available(why);
	default:
		*why = "not a backend";
		return false;
	}
}
