// SPDX-License-Identifier: MIT
/* Guest spaces for the benchmarks: one per backend, with one mapping. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "uabench.h"

unsigned bench_backends_available(void)
{
	unsigned set = 0;

	for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY; p++) {
		if (ua_protect_available(p, NULL))
			set |= BENCH_BACKEND_BIT(p);
	}
	return set;
}

/* What --protect chose; every available backend when it was not given. */
unsigned bench_backends_selected(const struct bench_opts *o)
{
	return o->backends ? o->backends : bench_backends_available();
}

/*
 * A space of @len bytes (plus a page) with all of it mapped read-write at
 * the base, made the thread's current space.  One mapping only: the
 * mprotect backend changes every mapping of the space on each switch, so
 * more mappings would only make its windows dearer.
 */
int bench_space_open(struct bench_space *s, enum ua_protect p, size_t len)
{
	struct ua_space_opts so = { .protect = p };

	memset(s, 0, sizeof(*s));
	s->sp = ua_space_create(len + 4096, &so);
	if (!s->sp)
		return -errno;
	s->buf = ua_map(s->sp, ua_space_base(s->sp), len,
			PROT_READ | PROT_WRITE);
	if (!s->buf) {
		int err = -errno;

		ua_space_destroy(s->sp);
		return err;
	}
	s->len = len;
	s->protect = ua_space_protect(s->sp);
	ua_space_use(s->sp);
	return 0;
}

void bench_space_close(struct bench_space *s)
{
	if (!s->sp)
		return;
	if (ua_current_space() == s->sp)
		ua_space_use(NULL);
	ua_space_destroy(s->sp);
	s->sp = NULL;
}
