// SPDX-License-Identifier: MIT
/* Spaces: creation, mapping, unmapping, current space, bad arguments. */
#include <errno.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tsupport.h"

TestSuite(space, .init = t_skip_if_unavailable);

Test(space, create_and_destroy)
{
	struct ua_space *sp = ua_space_create(100000, NULL);

	cr_assert_not_null(sp);
	cr_assert_eq(ua_space_size(sp), 102400, "size rounds up to a page");
	cr_assert_eq((uintptr_t)ua_space_base(sp) % 4096, 0);
	cr_assert_eq((char *)ua_space_limit(sp),
		     (char *)ua_space_base(sp) + 102400);
	cr_assert_eq(ua_space_find(ua_space_base(sp)), sp);
	cr_assert_eq(ua_space_find((char *)ua_space_limit(sp) - 1), sp);
	cr_assert_eq(ua_space_find(ua_space_limit(sp)), sp, "guard gap");
	cr_assert_null(ua_space_find(&sp));
	ua_space_destroy(sp);
}

Test(space, zero_size_is_einval)
{
	errno = 0;
	cr_assert_null(ua_space_create(0, NULL));
	cr_assert_eq(errno, EINVAL);
}

Test(space, bad_protect_is_einval)
{
	struct ua_space_opts o = { .protect = (enum ua_protect)42 };

	errno = 0;
	cr_assert_null(ua_space_create(4096, &o));
	cr_assert_eq(errno, EINVAL);
}

Test(space, current_space_is_per_thread_value)
{
	struct ua_space *a = ua_space_create(4096, NULL);
	struct ua_space *b = ua_space_create(4096, NULL);

	cr_assert_null(ua_current_space());
	cr_assert_null(ua_space_use(a));
	cr_assert_eq(ua_current_space(), a);
	cr_assert_eq(ua_space_use(b), a);
	cr_assert_eq(ua_space_use(NULL), b);
	ua_space_destroy(a);
	ua_space_destroy(b);
}

Test(space, map_anywhere_and_fixed)
{
	struct ua_space *sp = ua_space_create(1 << 20, NULL);
	char *base = ua_space_base(sp);
	char *a = ua_map(sp, NULL, 4096, PROT_READ | PROT_WRITE);
	char *b = ua_map(sp, base + 65536, 100, PROT_READ);

	cr_assert_eq(a, base, "first fit starts at the base");
	cr_assert_eq(b, base + 65536);
	cr_assert_eq(ua_map(sp, NULL, 4096, PROT_READ), base + 4096);
	ua_space_destroy(sp);
}

Test(space, map_errors)
{
	struct ua_space *sp = ua_space_create(1 << 20, NULL);
	char *base = ua_space_base(sp);

	errno = 0;
	cr_assert_null(ua_map(sp, base + 1, 4096, PROT_READ));
	cr_assert_eq(errno, EINVAL, "unaligned");
	errno = 0;
	cr_assert_null(ua_map(sp, base, 0, PROT_READ));
	cr_assert_eq(errno, EINVAL, "zero length");
	errno = 0;
	cr_assert_null(ua_map(sp, base, 4096, 0x100));
	cr_assert_eq(errno, EINVAL, "bad prot");
	errno = 0;
	cr_assert_null(ua_map(sp, base + (1 << 20), 4096, PROT_READ));
	cr_assert_eq(errno, ERANGE, "at the limit");
	errno = 0;
	cr_assert_null(ua_map(sp, base + (1 << 20) - 4096, 8192, PROT_READ));
	cr_assert_eq(errno, ERANGE, "crosses the limit");
	errno = 0;
	cr_assert_null(ua_map(sp, base - 4096, 4096, PROT_READ));
	cr_assert_eq(errno, ERANGE, "below the base");
	cr_assert_not_null(ua_map(sp, base + 8192, 8192, PROT_READ));
	errno = 0;
	cr_assert_null(ua_map(sp, base + 12288, 4096, PROT_READ));
	cr_assert_eq(errno, EEXIST, "overlap");
	errno = 0;
	cr_assert_null(ua_map(sp, base + 4096, 8192, PROT_READ));
	cr_assert_eq(errno, EEXIST, "overlap at the start");
	ua_space_destroy(sp);
}

Test(space, unmap_makes_pages_fault)
{
	struct t_env e;
	long v = 1;

	t_env_setup(&e, 3);
	cr_assert_eq(ua_put_user(7L, (long *)(e.buf + 4096)), 0);
	cr_assert_eq(ua_unmap(e.sp, e.buf + 4096, 4096), 0);
	cr_assert_eq(ua_get_user(v, (long *)(e.buf + 4096)), -EFAULT);
	cr_assert_eq(v, 0);
	cr_assert_eq(ua_put_user(7L, (long *)e.buf), 0);
	cr_assert_eq(ua_put_user(7L, (long *)(e.buf + 8192)), 0);
	/* The hole can be mapped again, and comes back zeroed. */
	cr_assert_eq(ua_map(e.sp, e.buf + 4096, 4096, PROT_READ | PROT_WRITE),
		     e.buf + 4096);
	cr_assert_eq(ua_get_user(v, (long *)(e.buf + 4096)), 0);
	cr_assert_eq(v, 0);
	t_env_teardown(&e);
}

Test(space, unmap_errors)
{
	struct ua_space *sp = ua_space_create(1 << 20, NULL);
	char *base = ua_space_base(sp);

	cr_assert_eq(ua_unmap(sp, base + 1, 4096), -EINVAL);
	cr_assert_eq(ua_unmap(sp, base, 0), -EINVAL);
	cr_assert_eq(ua_unmap(sp, base + (1 << 20), 4096), -ERANGE);
	cr_assert_eq(ua_unmap(sp, base - 4096, 4096), -ERANGE);
	cr_assert_eq(ua_unmap(sp, base, 4096), 0, "unmapping a hole is fine");
	ua_space_destroy(sp);
}

Test(space, guard_gap_is_never_mapped)
{
	struct ua_space *sp = ua_space_create(1 << 20, NULL);
	char *lim = ua_space_limit(sp);
	long v = 1;

	cr_assert_not_null(ua_map(sp, lim - 4096, 4096, PROT_READ | PROT_WRITE));
	ua_space_use(sp);
	/* The guard cannot be reached through the accessors nor mapped. */
	cr_assert_eq(ua_get_user(v, (long *)lim), -EFAULT);
	cr_assert_null(ua_map(sp, lim, 4096, PROT_READ));
	cr_assert_eq(ua_copy_from_kernel_nofault(&v, lim, 8), -ERANGE);
	ua_space_destroy(sp);
}
