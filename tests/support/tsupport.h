/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the test suites.  Tests never touch guest memory with
 * plain loads and stores (under mprotect/pkey that is a violation); they
 * set it up and read it back through the library's own accessors or in
 * guest mode (t_guest_begin/t_guest_end).
 */
#ifndef UA_TSUPPORT_H
#define UA_TSUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#include <uaccess.h>

const char *t_backend_unavailable(void);

/* Call first in a test (or use TEST_INIT as .init): skips pkey suites. */
void t_skip_if_unavailable(void);

/**
 * struct t_env - a space with a mapped region followed by an unmapped page
 * @sp: the space (current space of the test thread)
 * @buf: start of @pages mapped read-write pages
 * @hole: first byte of the unmapped page right after them
 */
struct t_env {
	struct ua_space *sp;
	char *buf;
	char *hole;
	size_t len;
};

/* A space of 1 MiB with @pages mapped RW at its base + 64 KiB, a hole after. */
void t_env_setup(struct t_env *e, size_t pages);
void t_env_teardown(struct t_env *e);

/* Copy into / out of guest memory through the library, asserting success. */
void t_poke(void *guest, const void *src, size_t n);
void t_peek(void *dst, const void *guest, size_t n);
void t_fill(void *guest, int c, size_t n);

/* Direct access to guest memory, as guest code would have. */
void t_guest_begin(struct ua_space *sp);
void t_guest_end(struct ua_space *sp);

/**
 * struct t_host_count - what a traced child did between two marks
 * @syscalls: host system calls it made
 * @mprotects: of those, mprotect() (the mprotect backend's switches)
 * @signals: signals the kernel delivered to it
 */
struct t_host_count {
	long syscalls, mprotects, signals;
};

/*
 * Run fn(arg) in a child traced from here (thost.c); fn calls
 * t_host_mark() to divide its run into intervals: out[i] is what happened
 * between its marks i and i + 1, for i < n.  The marks themselves are not
 * counted, nor anything before the first.  Returns the child's wait
 * status (fn returning: exit 0).
 */
int t_host_trace(void (*fn)(void *), void *arg, struct t_host_count *out,
		 int n);
void t_host_mark(void);

#endif
