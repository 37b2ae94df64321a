// SPDX-License-Identifier: MIT
/*
 * UA_DEBUG=1: say on stderr why an access was refused before it touched
 * anything.  A refused access looks the same to the caller whatever the
 * reason (-EFAULT, a full byte count, false), and the commonest reason --
 * a thread with no current space, because ua_space_use() is per thread --
 * is hard to see from there.  Only the refusal paths call this, so the
 * switch costs nothing when accesses succeed.  Async-signal-safe: accesses
 * are refused in signal handlers too (a nested window), so the message is
 * put together by hand and written with write(2).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"

/* -1: not read yet; 0 off; 1 on.  Read on the first refusal. */
static int debug_on = -1;

static bool debug_enabled(void)
{
	int on = __atomic_load_n(&debug_on, __ATOMIC_RELAXED);
	const char *v;

	if (ua_likely(on >= 0))
		return on;
	/* getenv() only reads environ: safe here, even in a handler. */
	v = getenv("UA_DEBUG");
	on = v && *v && strcmp(v, "0") != 0;
	__atomic_store_n(&debug_on, on, __ATOMIC_RELAXED);
	return on;
}

/* Appends s to the message in buf (of size n), always NUL-terminated. */
static void add(char *buf, size_t n, const char *s)
{
	size_t len = strlen(buf);

	while (*s && len + 1 < n)
		buf[len++] = *s++;
	buf[len] = 0;
}

static void add_hex(char *buf, size_t n, uintptr_t v)
{
	char hex[19];

	add(buf, n, ua__fmt_hex(hex, v));
}

static void add_dec(char *buf, size_t n, long v)
{
	char tmp[24];
	int i = (int)sizeof(tmp) - 1;

	tmp[i] = 0;
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v && i > 0);
	add(buf, n, tmp + i);
}

static const char *kind_name(int kind)
{
	return kind == UA_WIN_READ  ? "read" :
	       kind == UA_WIN_WRITE ? "write" :
				      "read-write";
}

void ua__debug_refused(int kind, const void *ptr, size_t len)
{
	const struct ua_space *sp = ua_self.cur;
	char msg[320];

	if (ua_likely(!debug_enabled()))
		return;
	msg[0] = 0;
	add(msg, sizeof(msg), "uaccess: UA_DEBUG: ");
	add(msg, sizeof(msg), kind_name(kind));
	add(msg, sizeof(msg), " access to [");
	add_hex(msg, sizeof(msg), (uintptr_t)ptr);
	add(msg, sizeof(msg), ", +");
	add_dec(msg, sizeof(msg),
		len > (size_t)LONG_MAX ? LONG_MAX : (long)len);
	add(msg, sizeof(msg), ") refused: ");
	if (!sp) {
		add(msg, sizeof(msg),
		    "no current space on this thread (ua_space_use() sets "
		    "one, for the calling thread only)");
	} else if (!ua_access_ok(ptr, len)) {
		add(msg, sizeof(msg), "outside the current space [");
		add_hex(msg, sizeof(msg), sp->base);
		add(msg, sizeof(msg), ", ");
		add_hex(msg, sizeof(msg), sp->base + sp->size);
		add(msg, sizeof(msg), ")");
	} else if (ua_self.win_kind) {
		add(msg, sizeof(msg), "nested window: a ");
		add(msg, sizeof(msg), kind_name(ua_self.win_kind));
		add(msg, sizeof(msg), " window");
		if (ua_self.win_file) {
			add(msg, sizeof(msg), " opened at ");
			add(msg, sizeof(msg), ua_self.win_file);
			add(msg, sizeof(msg), ":");
			add_dec(msg, sizeof(msg), ua_self.win_line);
		}
		add(msg, sizeof(msg),
		    " is still open on this thread (one window at a time)");
	} else if (ua_self.lean_seq & 1) {
		add(msg, sizeof(msg),
		    "nested window: the thread was interrupted inside the "
		    "write window of one of the library's own clears");
	} else {
		add(msg, sizeof(msg),
		    "the thread was interrupted while holding the space's "
		    "lock (a window from a signal handler, mprotect backend)");
	}
	add(msg, sizeof(msg), "\n");
	ua__write_str(2, msg);
}
