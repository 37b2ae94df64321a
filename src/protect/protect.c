// SPDX-License-Identifier: MIT
/*
 * The protection layer: choosing a backend and driving it through the
 * per-thread modes of a space (locked, read/write/rw window, guest).
 * Every mode change is one protection switch in ua_stats, whatever the
 * backend does.
 *
 * A signal handler may open a window of its own (the nofault accessors)
 * on the thread it interrupted, so the thread's bookkeeping and the
 * backend's state must agree whenever a handler can look: each transition
 * below orders its steps so that a handler arriving in between sees
 * either a window (and refuses to open another) or monitor mode with the
 * backend's counts untouched.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pkru.h"

const char *ua_protect_name(enum ua_protect p)
{
	switch (p) {
	case UA_PROTECT_AUTO:
		return "auto";
	case UA_PROTECT_NONE:
		return "none";
	case UA_PROTECT_MPROTECT:
		return "mprotect";
	case UA_PROTECT_PKEY:
		return "pkey";
	}
	return "?";
}

static const struct ua_protect_ops *ops_of(enum ua_protect p)
{
	switch (p) {
	case UA_PROTECT_NONE:
		return &ua__protect_none;
	case UA_PROTECT_MPROTECT:
		return &ua__protect_mprotect;
	case UA_PROTECT_PKEY:
		return &ua__protect_pkey;
	default:
		return NULL;
	}
}

/* UA_PROTECT from the environment: AUTO when unset, empty or "auto". */
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

/* The mode the calling thread has on sp: a window wins over guest mode. */
int ua__protect_mode(const struct ua_space *sp)
{
	if (ua_self.win_kind && ua_self.win_space == sp)
		return ua_self.win_kind;
	if ((ua_self.lean_seq & 1) && ua_self.cur == sp)
		return UA_WIN_WRITE;
	if (ua_self.guest_space == sp)
		return UA_MODE_GUEST;
	return UA_MODE_LOCKED;
}

/*
 * Count one switch and make the backend match the thread's new mode.
 * pkey is inline here (RDPKRU, and WRPKRU when the bits change): no call
 * per switch; only mprotect, a syscall anyway, goes through the ops.
 */
static inline void protect_switch(struct ua_space *sp, int from, int to)
{
	ua_self.stats.switches++;
	atomic_signal_fence(memory_order_seq_cst);
	switch (sp->ops->kind) {
	case UA_PROTECT_PKEY:
		ua__pkru_set_mode(sp->pkey, to);
		break;
	case UA_PROTECT_MPROTECT:
		sp->ops->switch_mode(sp, from, to);
		break;
	default:
		break;
	}
	atomic_signal_fence(memory_order_seq_cst);
}

/*
 * Can a window be opened now?  Not while one is open: that is a nested
 * begin (a bug the debug build reports) or a signal handler that
 * interrupted a window on its thread; opening a second one would lose the
 * first.  Not under mprotect from a handler that interrupted its thread
 * holding a space lock: the backend takes that lock.
 */
static bool window_allowed(const struct ua_space *sp)
{
	if (ua__window_busy(&ua_self))
		return false;
	return sp->ops->kind != UA_PROTECT_MPROTECT || !ua_self.space_locks;
}

static __attribute__((noinline)) bool window_open_slow(int kind,
							const void *ptr,
							size_t len)
{
	struct ua_space *sp = ua_self.cur;
	int from;

	if (ua_unlikely(!sp || !ua__space_has(sp, ptr, len) || !window_allowed(sp))) {
		ua__debug_refused(kind, ptr, len);
		return false;
	}
	from = ua__protect_mode(sp);
	/* Bookkeeping first: a handler arriving now sees the window. */
	ua__win_record(&ua_self, sp, kind, ptr, len);
	protect_switch(sp, from, kind);
	return true;
}

/*
 * The none backend's window is bookkeeping only: inline, with no call
 * and no saved registers; every other case (a refusal, pkey, mprotect)
 * takes the full path above.
 */
bool ua__protect_window_open(int kind, const void *ptr, size_t len)
{
	struct ua_space *sp = ua_self.cur;

	if (ua_likely(ua__none_window_ok(&ua_self, sp, ptr, len))) {
		ua__none_window_open(&ua_self, sp, kind, ptr, len);
		return true;
	}
	return window_open_slow(kind, ptr, len);
}

/*
 * The library's own clear under pkey, in a lean window (internal.h): one
 * WRPKRU opens the space's key for writing and one puts the value found
 * back (the thread's mode, or a signal handler's init PKRU, whatever it
 * was), with lean_seq odd in between so that a handler arriving inside
 * sees a window and opens none.  Nothing but the clear runs inside: no
 * kind, range, file or line is recorded.  Half the cost of a 512-byte
 * clear was the full window's bookkeeping around its two WRPKRUs.
 */
bool ua__pkey_clear_lean(void *to, size_t n, size_t *left)
{
	struct ua_space *sp = ua_self.cur;
	uint32_t old, open;

	if (!sp || sp->ops->kind != UA_PROTECT_PKEY ||
	    ua__window_busy(&ua_self) || !ua__space_has(sp, to, n))
		return false;
	ua__lean_window_open(&ua_self);
	old = ua__rdpkru();
	open = ua__pkru_with(old, sp->pkey, UA_MODE_WRITE);
	if (open != old)
		ua__wrpkru(open);
	*left = ua__raw_clear(to, n);
	if (open != old)
		ua__wrpkru(old);
	ua__lean_window_close(&ua_self);
	return true;
}

void ua__protect_window_close(int kind)
{
	struct ua_space *sp = ua_self.win_space;
	int from = ua_self.win_kind;

	(void)kind;
	if (!from)
		return;
	/* The switch first: until the window is forgotten, handlers refuse. */
	protect_switch(sp, from,
		       ua_self.guest_space == sp ? UA_MODE_GUEST :
						   UA_MODE_LOCKED);
	ua__win_forget(&ua_self);
}

static const char *kind_name(int kind)
{
	return kind == UA_WIN_READ  ? "read" :
	       kind == UA_WIN_WRITE ? "write" :
				      "read-write";
}

/*
 * pkey: PKRU is monitor state.  Guest mode gets the monitor's PKRU with
 * the space's key opened, and syscall entry puts the monitor's PKRU back
 * whole: whatever guest code (or the init PKRU of a signal handler the
 * lock runs in) did to other keys does not leak into monitor mode.
 */
static void pkey_enter_guest(struct ua_space *sp)
{
	uint32_t cur = ua__rdpkru();

	ua_self.pkru_monitor = ua__pkru_with(cur, sp->pkey, UA_MODE_LOCKED);
	ua_self.stats.switches++;
	atomic_signal_fence(memory_order_seq_cst);
	if (ua__pkru_with(cur, sp->pkey, UA_MODE_GUEST) != cur)
		ua__wrpkru(ua__pkru_with(cur, sp->pkey, UA_MODE_GUEST));
	atomic_signal_fence(memory_order_seq_cst);
}

static void pkey_leave_guest(void)
{
	uint32_t v = ua_self.pkru_monitor;
	const struct ua_space *w = ua_self.win_space;

	/* A window opened in guest mode (on any space) stays open. */
	if (ua_self.win_kind && w->ops->kind == UA_PROTECT_PKEY)
		v = ua__pkru_with(v, w->pkey, ua_self.win_kind);
	ua_self.stats.switches++;
	atomic_signal_fence(memory_order_seq_cst);
	if (ua__rdpkru() != v)
		ua__wrpkru(v);
	atomic_signal_fence(memory_order_seq_cst);
}

void ua_protect_lock(struct ua_space *sp)
{
	int from;

	if (ua_self.guest_space != sp)
		ua__die("ua_protect_lock: the thread is not in guest mode on "
			"this space (lock without a matching unlock)");
	from = ua__protect_mode(sp);
	/* Bookkeeping first: a handler arriving now sees monitor mode. */
	ua_self.guest_space = NULL;
	if (sp->ops->kind == UA_PROTECT_PKEY)
		pkey_leave_guest();
	else
		protect_switch(sp, from, ua__protect_mode(sp));
}

/* Guest mode on sp from monitor mode, from = the thread's mode on sp. */
static void enter_guest(struct ua_space *sp, int from)
{
	if (sp->ops->kind == UA_PROTECT_PKEY)
		pkey_enter_guest(sp);
	else
		protect_switch(sp, from, UA_MODE_GUEST);
	/*
	 * The switch first: until guest mode shows, handlers see the old
	 * mode, which the backend still counts for them to leave and enter.
	 */
	ua_self.guest_space = sp;
	atomic_signal_fence(memory_order_seq_cst);
	ua__win_forget(&ua_self);
}

void ua_protect_unlock(struct ua_space *sp)
{
	int from;

	if (ua_self.guest_space)
		ua__die("ua_protect_unlock: the thread is already in guest "
			"mode (unlock without a matching lock)");
	if (ua_self.win_kind && (UA_DEBUG_WINDOWS || ua_self.win_space != sp))
		ua__die("ua_protect_unlock: a %s window opened at %s:%d is "
			"still open on the way back to guest mode",
			kind_name(ua_self.win_kind),
			ua_self.win_file ? ua_self.win_file : "?",
			ua_self.win_line);
	/* Release builds fold a forgotten window on sp into the unlock. */
	from = ua__protect_mode(sp);
	enter_guest(sp, from);
}

void ua_protect_unlock_from_window(struct ua_space *sp)
{
	if (ua_self.guest_space)
		ua__die("ua_protect_unlock_from_window: the thread is already "
			"in guest mode");
	if (!ua_self.win_kind || ua_self.win_space != sp)
		ua__die("ua_protect_unlock_from_window: no window open on the "
			"space");
	enter_guest(sp, ua_self.win_kind);
}

/*
 * The calling thread's state must not outlive the space: a new space
 * allocated at the same address would inherit a stale window or guest
 * mode.  Another thread cannot be inside: ua_space_destroy() refuses a
 * space that is another thread's current space.
 */
void ua__protect_forget(const struct ua_space *sp)
{
	if (ua_self.win_kind && ua_self.win_space == sp)
		ua__win_forget(&ua_self);
	if (ua_self.guest_space == sp)
		ua_self.guest_space = NULL;
}

bool ua_protect_available(enum ua_protect p, const char **why)
{
	const char *dummy;

	if (!why)
		why = &dummy;
	*why = NULL;
	switch (p) {
	case UA_PROTECT_NONE:
	case UA_PROTECT_MPROTECT:
		return true;
	case UA_PROTECT_PKEY:
		return ua__pkey_available(why);
	default:
		*why = "not a backend (auto picks one; see ua_space_protect())";
		return false;
	}
}

int ua_protect_probe(const void *addr)
{
	const uint8_t *p = addr;
	uint64_t fixups = ua_self.stats.fixups;
	unsigned long v;
	int ok = 0;

	ua__ensure_init();
	ua_self.probing = true;
	atomic_signal_fence(memory_order_seq_cst);
	ua__arch_get(v, p, out);
	ok |= UA_WIN_READ;
	/* Store back what was read: a write probe must not change memory. */
	ua__arch_put(v, (uint8_t *)p, out);
	ok |= UA_WIN_WRITE;
out:
	atomic_signal_fence(memory_order_seq_cst);
	ua_self.probing = false;
	ua_self.stats.fixups = fixups;
	return ok;
}

/*
 * Syscall entry folded into the syscall's first window (doc/design.md §5): a
 * syscall that opens a window first thing (rt_sigreturn in block mode)
 * goes from guest mode straight into that window in one switch instead of
 * locking and then opening.  Under pkey the monitor's PKRU comes back whole
 * with only the window's key bits changed, as on a plain lock.  Returns
 * false, with nothing changed, when the thread is not in guest mode on its
 * current space, a window is open, or the range is not in the space.
 */
bool ua__protect_lock_to_window(int kind, const void *ptr, size_t len)
{
	struct ua_space *sp = ua_self.cur;

	if (!sp || ua_self.guest_space != sp || ua__window_busy(&ua_self) ||
	    !ua_access_ok(ptr, len))
		return false;
	ua__win_record(&ua_self, sp, kind, ptr, len);
	ua_self.guest_space = NULL;
	atomic_signal_fence(memory_order_seq_cst);
	if (sp->ops->kind == UA_PROTECT_PKEY)
		pkey_leave_guest();
	else
		protect_switch(sp, UA_MODE_GUEST, kind);
	return true;
}

/*
 * ua__protect_show_guest(): while @on, the host's mappings of sp carry
 * the guest's own protection although the calling thread stays in its
 * mode, so that the host's account of them (/proc/self/smaps) splits
 * where the guest's mappings do.  Only the mprotect backend needs it:
 * its locked level is one PROT_NONE range over the whole space.
 */
void ua__protect_show_guest(struct ua_space *sp, bool on)
{
	if (sp->ops->kind != UA_PROTECT_MPROTECT)
		return;
	if (on)
		sp->ops->switch_mode(sp, UA_MODE_LOCKED, UA_MODE_GUEST);
	else
		sp->ops->switch_mode(sp, UA_MODE_GUEST, UA_MODE_LOCKED);
}
