// SPDX-License-Identifier: MIT
/*
 * Library initialisation and the few helpers every layer needs: a message
 * writer that is async-signal-safe (no stdio in a fault handler).
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../internal.h"

UA_TLS struct ua_thread ua_self;
/* include/uaccess/access.h: cur's range, for the inline checks. */
__thread struct ua__cur_range ua__cur_range;
size_t ua__pagesz = 4096;
int ua__nofault_ready; /* the fault handler is in: nofault.h may go inline */

enum { INIT_NONE, INIT_RUNNING, INIT_DONE };
static atomic_int init_state;
static int init_result;

int ua_init(void)
{
	int expect = INIT_NONE;

	if (atomic_load_explicit(&init_state, memory_order_acquire) == INIT_DONE)
		return init_result;
	if (!atomic_compare_exchange_strong(&init_state, &expect,
					    INIT_RUNNING)) {
		/* Another thread is initialising: wait for it. */
		while (atomic_load_explicit(&init_state,
					    memory_order_acquire) != INIT_DONE)
			sched_yield();
		return init_result;
	}
	ua__pagesz = (size_t)sysconf(_SC_PAGESIZE);
	init_result = ua__fault_install();
	if (!init_result)
		__atomic_store_n(&ua__nofault_ready, 1, __ATOMIC_RELEASE);
	atomic_store_explicit(&init_state, INIT_DONE, memory_order_release);
	return init_result;
}

void ua__ensure_init(void)
{
	if (ua_unlikely(atomic_load_explicit(&init_state,
					     memory_order_acquire) != INIT_DONE))
		ua_init();
}

void ua__write_str(int fd, const char *s)
{
	size_t len = strlen(s);

	while (len) {
		ssize_t n = write(fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

/* "0x" followed by hex digits; buf needs 19 bytes. */
char *ua__fmt_hex(char *buf, uintptr_t v)
{
	char tmp[16];
	int n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	buf[0] = '0';
	buf[1] = 'x';
	for (int i = 0; i < n; i++)
		buf[2 + i] = tmp[n - 1 - i];
	buf[2 + n] = 0;
	return buf;
}

/* Decimal digits; buf needs 21 bytes.  Async-signal-safe, unlike printf. */
char *ua__fmt_dec(char *buf, unsigned long v)
{
	char tmp[20];
	int n = 0, i = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		buf[i++] = tmp[--n];
	buf[i] = 0;
	return buf;
}

/* Fatal misuse: print "uaccess: ..." and abort.  Not for signal context. */
void ua__die(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	n = snprintf(msg, sizeof(msg), "uaccess: ");
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	ua__write_str(2, msg);
	ua__write_str(2, "\n");
	abort();
}
