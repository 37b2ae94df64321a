// SPDX-License-Identifier: MIT
/*
 * Compiled by check_copy_size (never linked): with BAD_FROM or BAD_TO the
 * build must fail with the size check's message; without either it must
 * build cleanly under -Wall -Wextra -Werror (copies that fit exactly,
 * into arrays, struct members and whole structs, and lengths the
 * compiler does not know).
 */
#include <string.h>

#include <uaccess.h>

struct rec {
	char name[8];
	uint64_t id;
};

size_t copies(void *guest, size_t len);

size_t copies(void *guest, size_t len)
{
	char buf[16];
	struct rec r;
	size_t left = 0;

	memset(buf, 0, sizeof(buf));
	memset(&r, 0, sizeof(r));
#if defined(BAD_FROM)
	left += ua_copy_from_user(buf, guest, 17);
#elif defined(BAD_TO)
	left += ua_copy_to_user(guest, &r, sizeof(r) + 1);
#endif
	left += ua_copy_from_user(buf, guest, sizeof(buf));
	left += ua_copy_from_user(&r, guest, sizeof(r));
	left += ua_copy_from_user(r.name, guest, sizeof(r));
	left += ua_copy_to_user(guest, &r, sizeof(r));
	left += ua_copy_to_user(guest, buf, len);
	left += ua_copy_from_user(buf, guest, len);
	return left + (size_t)buf[3] + r.id;
}
