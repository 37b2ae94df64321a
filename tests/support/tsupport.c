// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tsupport.h"

/* Why the backend chosen by UA_PROTECT cannot run here, or NULL. */
const char *t_backend_unavailable(void)
{
	static char reason[256];
	const char *p = getenv("UA_PROTECT");
	const char *why = NULL;

	if (!p || strcmp(p, "pkey") || ua_protect_available(UA_PROTECT_PKEY, &why))
		return NULL;
	snprintf(reason, sizeof(reason),
		 "UA_PROTECT=pkey: protection keys are not available on this "
		 "machine: %s",
		 why);
	return reason;
}

void t_skip_if_unavailable(void)
{
	const char *why = t_backend_unavailable();

	if (why)
		cr_skip_test("%s", why);
}

void t_env_setup(struct t_env *e, size_t pages)
{
	size_t pg = 4096;

	t_skip_if_unavailable();
	e->sp = ua_space_create(1 << 20, NULL);
	cr_assert_not_null(e->sp, "ua_space_create failed");
	ua_space_use(e->sp);
	e->len = pages * pg;
	e->buf = ua_map(e->sp, (char *)ua_space_base(e->sp) + (64 << 10),
			e->len, PROT_READ | PROT_WRITE);
	cr_assert_not_null(e->buf, "ua_map failed");
	e->hole = e->buf + e->len;
}

void t_env_teardown(struct t_env *e)
{
	ua_space_use(NULL);
	ua_space_destroy(e->sp);
}

void t_poke(void *guest, const void *src, size_t n)
{
	cr_assert_eq(ua_copy_to_user(guest, src, n), 0, "t_poke failed");
}

void t_peek(void *dst, const void *guest, size_t n)
{
	cr_assert_eq(ua_copy_from_user(dst, guest, n), 0, "t_peek failed");
}

void t_fill(void *guest, int c, size_t n)
{
	char tmp[4096];

	memset(tmp, c, sizeof(tmp));
	while (n) {
		size_t k = n < sizeof(tmp) ? n : sizeof(tmp);

		t_poke(guest, tmp, k);
		guest = (char *)guest + k;
		n -= k;
	}
}

void t_guest_begin(struct ua_space *sp)
{
	ua_protect_unlock(sp);
}

void t_guest_end(struct ua_space *sp)
{
	ua_protect_lock(sp);
}
