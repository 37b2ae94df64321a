// SPDX-License-Identifier: MIT
/*
 * A module loaded with dlopen() by test_dlopen.c.  It uses the inline
 * accessors, so it carries its own ua_extable section, registered by the
 * constructor <uaccess/extable.h> emits into it and unregistered on
 * dlclose().  Linked against the shared libuaccess, like the test.
 */
#include <errno.h>

#include <uaccess.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT int uamod_get_u64(const uint64_t *uptr, uint64_t *out)
{
	uint64_t v;

	if (!ua_user_read_access_begin(uptr, sizeof(*uptr)))
		return -EFAULT;
	ua_unsafe_get_user(v, uptr, efault);
	ua_user_read_access_end();
	*out = v;
	return 0;
efault:
	ua_user_read_access_end();
	return -EFAULT;
}

EXPORT int uamod_put_u32(uint32_t *uptr, uint32_t v)
{
	ua_scoped_user_write_access(uptr, efault) {
		ua_unsafe_put_user(v, uptr, efault);
	}
	return 0;
efault:
	return -EFAULT;
}

/* A constant 16-byte copy: two inline 8-byte moves, each with an entry. */
EXPORT int uamod_copy_in16(void *dst, const void *uptr)
{
	ua_scoped_user_read_access_size(uptr, 16, efault) {
		ua_unsafe_copy_from_user(dst, uptr, 16, efault);
	}
	return 0;
efault:
	return -EFAULT;
}

EXPORT int uamod_get_kernel(const uint64_t *p, uint64_t *out)
{
	return ua_get_kernel_nofault(*out, p);
}

/* The module's own table, so the test can check its registration. */
EXPORT void uamod_extable(const struct ua_extable_entry **start,
			  const struct ua_extable_entry **end)
{
	*start = __start_ua_extable;
	*end = __stop_ua_extable;
}
