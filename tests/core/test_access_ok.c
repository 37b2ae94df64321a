// SPDX-License-Identifier: MIT
/*
 * ua_access_ok() and ua_mask_user_address() (doc/design.md §4.2; the
 * kernel's __access_ok()): overflow-safe, a zero length at the limit is
 * fine, a monitor pointer is never accepted, the answer depends on the
 * calling thread's space, and masking sends anything out of range to the
 * guard gap where it faults.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "tcore.h"

static struct t_env env;

static void setup(void)
{
	t_env_setup(&env, T_PAGES);
}

static void teardown(void)
{
	t_env_teardown(&env);
}

TestSuite(access_ok, .init = setup, .fini = teardown);

Test(access_ok, inside_and_at_the_edges)
{
	char *base = ua_space_base(env.sp), *lim = ua_space_limit(env.sp);
	size_t size = ua_space_size(env.sp);

	cr_assert(ua_access_ok(env.buf, 1));
	cr_assert(ua_access_ok(env.hole, 16), "mapping is not checked");
	cr_assert(ua_access_ok(base, size), "the whole space");
	cr_assert(ua_access_ok(base, 0));
	cr_assert(ua_access_ok(lim - 1, 1), "the last byte");
	cr_assert(ua_access_ok(lim - 100, 100), "ends exactly at the limit");
	cr_assert(ua_access_ok(lim, 0), "zero length at the limit");
	cr_assert_not(ua_access_ok(lim, 1));
	cr_assert_not(ua_access_ok(lim - 100, 101));
	cr_assert_not(ua_access_ok(lim + 1, 0), "zero length past the limit");
	cr_assert_not(ua_access_ok(base, size + 1));
	cr_assert_not(ua_access_ok(base + 1, size));
	cr_assert_not(ua_access_ok(base - 1, 1));
	cr_assert_not(ua_access_ok(base - 1, 0), "zero length below base");
	cr_assert_not(ua_access_ok(base - 1, 2), "straddles the base");
}

Test(access_ok, overflow_safe)
{
	char *base = ua_space_base(env.sp), *lim = ua_space_limit(env.sp);

	cr_assert_not(ua_access_ok(env.buf, SIZE_MAX));
	cr_assert_not(ua_access_ok(env.buf, SIZE_MAX - (uintptr_t)env.buf + 1),
		      "ptr + len wraps to exactly 0");
	cr_assert_not(ua_access_ok(env.buf, SIZE_MAX - (uintptr_t)env.buf + 10),
		      "ptr + len wraps into low memory");
	cr_assert_not(ua_access_ok(lim - 1, SIZE_MAX));
	cr_assert_not(ua_access_ok((void *)UINTPTR_MAX, 1));
	cr_assert_not(ua_access_ok((void *)UINTPTR_MAX, 0));
	cr_assert_not(ua_access_ok((void *)(UINTPTR_MAX - 7), 8));
	cr_assert_not(ua_access_ok((void *)(UINTPTR_MAX - 7), 9));
	/* A range from below the base whose end wraps into the space. */
	cr_assert_not(ua_access_ok((void *)((uintptr_t)base - (1ul << 40)),
				   (1ul << 40) + 16));
	cr_assert_not(ua_access_ok(NULL, (uintptr_t)base + 16));
}

Test(access_ok, monitor_pointers_never)
{
	char stack[16] = { 0 };
	char *heap = malloc(64);
	static char data[16];

	cr_assert_not(ua_access_ok(stack, sizeof(stack)));
	cr_assert_not(ua_access_ok(stack, 0), "not even empty");
	cr_assert_not(ua_access_ok(heap, 64));
	cr_assert_not(ua_access_ok(data, 1));
	cr_assert_not(ua_access_ok(NULL, 0));
	cr_assert_not(ua_access_ok(NULL, 1));
	cr_assert_not(ua_access_ok((void *)&ua_access_ok, 1), "code");
	free(heap);
}

Test(access_ok, depends_on_the_current_space)
{
	struct ua_space *other = ua_space_create(1 << 20, NULL);
	char *ob = ua_space_base(other);

	cr_assert_not_null(other);
	cr_assert_not(ua_access_ok(ob, 8), "another space's memory");
	ua_space_use(other);
	cr_assert(ua_access_ok(ob, 8));
	cr_assert_not(ua_access_ok(env.buf, 8));
	ua_space_use(NULL);
	cr_assert_not(ua_access_ok(ob, 8), "no current space");
	cr_assert_not(ua_access_ok(env.buf, 0));
	ua_space_use(env.sp);
	cr_assert(ua_access_ok(env.buf, 8));
	ua_space_destroy(other);
}

static void *thread_check(void *arg)
{
	bool *r = arg;

	r[0] = ua_access_ok(env.buf, 8);
	ua_space_use(env.sp);
	r[1] = ua_access_ok(env.buf, 8);
	ua_space_use(NULL);
	return NULL;
}

Test(access_ok, per_thread)
{
	bool r[2] = { true, false };
	pthread_t t;

	cr_assert_eq(pthread_create(&t, NULL, thread_check, r), 0);
	cr_assert_eq(pthread_join(t, NULL), 0);
	cr_assert_not(r[0], "a new thread has no current space");
	cr_assert(r[1]);
	cr_assert(ua_access_ok(env.buf, 8), "ours is unchanged");
}

Test(access_ok, mask_user_address)
{
	char *base = ua_space_base(env.sp), *lim = ua_space_limit(env.sp);
	char stack[8] = { 0 };

	cr_assert_eq(ua_mask_user_address(env.buf), env.buf);
	cr_assert_eq(ua_mask_user_address(base), base);
	cr_assert_eq(ua_mask_user_address(lim - 1), lim - 1);
	cr_assert_eq(ua_mask_user_address(lim), lim);
	cr_assert_eq(ua_mask_user_address(lim + 1), lim);
	cr_assert_eq(ua_mask_user_address(base - 1), lim);
	cr_assert_eq(ua_mask_user_address(NULL), lim);
	cr_assert_eq(ua_mask_user_address((void *)UINTPTR_MAX), lim);
	cr_assert_eq(ua_mask_user_address(stack), lim);
	ua_space_use(NULL);
	cr_assert_eq(ua_mask_user_address(env.buf), (void *)UINTPTR_MAX,
		     "without a space: an address that always faults");
	ua_space_use(env.sp);
}

/*
 * The masking pattern: open a window over the whole space, mask the
 * pointer and access it.  A monitor pointer turns into a guard-gap address
 * whose access faults to the label instead of reading monitor memory.
 */
static int masked_read(const uint64_t *p, uint64_t *out)
{
	const uint64_t *m = ua_mask_user_address(p);

	if (!ua_user_read_access_begin(ua_space_base(env.sp),
				       ua_space_size(env.sp)))
		return -EFAULT;
	ua_unsafe_get_user(*out, m, fault);
	ua_user_read_access_end();
	return 0;
fault:
	ua_user_read_access_end();
	return -EFAULT;
}

Test(access_ok, masked_pointer_faults)
{
	uint64_t mon = 0x1234, v = 0, g = 0x5678;

	t_poke(env.buf, &g, 8);
	cr_assert_eq(masked_read((uint64_t *)env.buf, &v), 0);
	cr_assert_eq(v, g);
	ua_stats_reset();
	v = 0;
	cr_assert_eq(masked_read(&mon, &v), -EFAULT);
	cr_assert_eq(v, 0, "the monitor value was not read");
	t_assert_stats(2, 1, 1, "the access faulted in the guard gap");
}
