// SPDX-License-Identifier: MIT
/*
 * Access windows: begin checks the range, records the window in the
 * thread's state and switches the space's protection; end switches back.
 * The debug forms add the window-discipline checks of doc/design.md §4.4.
 */
#include <stdio.h>

#include "../internal.h"

/* The library's own calls go to the functions, never the debug macros. */
#undef ua_user_read_access_begin
#undef ua_user_write_access_begin
#undef ua_user_access_begin
#undef ua_user_read_access_end
#undef ua_user_write_access_end
#undef ua_user_access_end

static const char *kind_name(int kind)
{
	return kind == UA_WIN_READ ? "read" : kind == UA_WIN_WRITE ? "write" :
								     "read-write";
}

bool ua_user_read_access_begin(const void *ptr, size_t len)
{
	return ua__protect_window_open(UA_WIN_READ, ptr, len);
}

void ua_user_read_access_end(void)
{
	ua__protect_window_close(UA_WIN_READ);
}

bool ua_user_write_access_begin(void *ptr, size_t len)
{
	return ua__protect_window_open(UA_WIN_WRITE, ptr, len);
}

void ua_user_write_access_end(void)
{
	ua__protect_window_close(UA_WIN_WRITE);
}

bool ua_user_access_begin(void *ptr, size_t len)
{
	return ua__protect_window_open(UA_WIN_RW, ptr, len);
}

void ua_user_access_end(void)
{
	ua__protect_window_close(UA_WIN_RW);
}

bool ua__access_begin_dbg(int kind, const void *ptr, size_t len,
			  const char *file, int line)
{
	if (ua_self.win_kind)
		ua__die("%s:%d: nested user access window: a %s window opened "
			"at %s:%d is still open",
			file, line, kind_name(ua_self.win_kind),
			ua_self.win_file ? ua_self.win_file : "?",
			ua_self.win_line);
	if (!ua__protect_window_open(kind, ptr, len))
		return false;
	ua_self.win_file = file;
	ua_self.win_line = line;
	return true;
}

void ua__access_end_dbg(int kind, const char *file, int line)
{
	if (!ua_self.win_kind)
		ua__die("%s:%d: user access window closed without begin", file,
			line);
	if (ua_self.win_kind != kind)
		ua__die("%s:%d: %s window opened at %s:%d closed as a %s window",
			file, line, kind_name(ua_self.win_kind),
			ua_self.win_file ? ua_self.win_file : "?",
			ua_self.win_line, kind_name(kind));
	ua__protect_window_close(kind);
	/* Lean windows do not store a file: none is left behind for them. */
	ua_self.win_file = NULL;
}

void ua__window_check(const void *p, size_t n, int kind, const char *file,
		      int line)
{
	uintptr_t a = (uintptr_t)p;

	if (!ua_self.win_kind)
		ua__die("%s:%d: unsafe %s of guest address %p outside a user "
			"access window",
			file, line, kind == UA_WIN_READ ? "read" : "write", p);
	if (!(ua_self.win_kind & kind))
		ua__die("%s:%d: unsafe %s inside a %s window (opened at %s:%d)",
			file, line, kind == UA_WIN_READ ? "read" : "write",
			kind_name(ua_self.win_kind),
			ua_self.win_file ? ua_self.win_file : "?",
			ua_self.win_line);
	if (a < ua_self.win_lo || n > ua_self.win_hi - a ||
	    a > ua_self.win_hi)
		ua__die("%s:%d: unsafe access to [%p, +%zu) outside the range "
			"[%p, %p) given to begin at %s:%d",
			file, line, p, n, (void *)ua_self.win_lo,
			(void *)ua_self.win_hi,
			ua_self.win_file ? ua_self.win_file : "?",
			ua_self.win_line);
}

/*
 * Widen the open window's range to cover [ptr, ptr+len) too, after the
 * same range check begin does.  No protection switch: every backend opens
 * the whole space, the range only feeds the debug checks.  For frames
 * whose parts are found while reading them (rt_sigreturn's fpstate).
 */
bool ua__window_extend(const void *ptr, size_t len)
{
	uintptr_t lo = (uintptr_t)ptr, hi = lo + len;

	if (!ua_self.win_kind || ua_self.win_space != ua_self.cur ||
	    !ua_access_ok(ptr, len))
		return false;
	if (lo < ua_self.win_lo)
		ua_self.win_lo = lo;
	if (hi > ua_self.win_hi)
		ua_self.win_hi = hi;
	return true;
}
