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

#endif
