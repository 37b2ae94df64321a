// SPDX-License-Identifier: MIT
/*
 * A thread created inside a window starts with every space locked.  Under
 * pkey a new thread inherits its creator's PKRU, so a thread created in a
 * read window would start with the space readable; the library's
 * pthread_create() resets the keys of its spaces first thing in the new
 * thread.  The PKRU check needs protection keys (skipped elsewhere); the
 * computation, and the wrapper's pass-through of arguments, results and
 * attributes, are checked everywhere.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tsupport.h"

/* Library-internal (src/protect/pkey.c), linked from the static library. */
uint32_t ua__pkru_locked_all(uint32_t pkru, uint32_t keys);

static struct t_env env;

static void setup(void)
{
	t_env_setup(&env, 1);
}

static void teardown(void)
{
	t_env_teardown(&env);
}

TestSuite(thread_start, .init = setup, .fini = teardown);

#define AD(k) (1u << (2 * (k)))
#define WD(k) (1u << (2 * (k) + 1))

Test(thread_start, locked_pkru_computation)
{
	/* The kernel's init PKRU with key 3 opened by a window. */
	uint32_t open3 = 0x55555554u & ~(AD(3) | WD(3));
	/* A read window on key 5: write-disable only. */
	uint32_t read5 = (0x55555554u & ~AD(5)) | WD(5);

	cr_assert_eq(ua__pkru_locked_all(open3, 1u << 3),
		     open3 | AD(3) | WD(3));
	cr_assert_eq(ua__pkru_locked_all(read5, 1u << 5),
		     read5 | AD(5));
	/* Keys that are not the library's keep their bits, key 0 too. */
	cr_assert_eq(ua__pkru_locked_all(0, (1u << 2) | (1u << 15)),
		     AD(2) | WD(2) | AD(15) | WD(15));
	cr_assert_eq(ua__pkru_locked_all(0x0000000cu, 0), 0x0000000cu);
}

static void *echo(void *arg)
{
	return (char *)arg + 1;
}

Test(thread_start, wrapper_passes_arguments_and_results)
{
	static char x[2];
	pthread_attr_t attr;
	pthread_t th;
	void *ret;

	cr_assert_eq(pthread_create(&th, NULL, echo, x), 0);
	cr_assert_eq(pthread_join(th, &ret), 0);
	cr_assert_eq(ret, x + 1);
	/* Attributes reach the C library: a detached thread cannot be joined. */
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	cr_assert_eq(pthread_create(&th, &attr, echo, x), 0);
	pthread_attr_destroy(&attr);
	/* And so do its errors. */
	pthread_attr_init(&attr);
	cr_assert_eq(pthread_attr_setstacksize(&attr, 1), EINVAL);
	pthread_attr_destroy(&attr);
}

#if defined(__x86_64__)
static uint32_t rdpkru(void)
{
	uint32_t eax, edx;

	__asm__ volatile(".byte 0x0f, 0x01, 0xee"
			 : "=a"(eax), "=d"(edx)
			 : "c"(0));
	return eax;
}

static void *read_pkru(void *arg)
{
	*(uint32_t *)arg = rdpkru();
	return NULL;
}

Test(thread_start, thread_created_in_a_window_starts_locked)
{
	uint32_t before, inside, child = 0, bits;
	pthread_t th;

	if (ua_space_protect(env.sp) != UA_PROTECT_PKEY)
		cr_skip_test("PKRU is a pkey matter; this run uses %s",
			     ua_protect_name(ua_space_protect(env.sp)));
	before = rdpkru();
	cr_assert(ua_user_read_access_begin(env.buf, 8));
	inside = rdpkru();
	cr_assert_eq(pthread_create(&th, NULL, read_pkru, &child), 0);
	pthread_join(th, NULL);
	ua_user_read_access_end();
	/* The space's key: the bits the window changed (AD cleared). */
	bits = before ^ inside;
	cr_assert_neq(bits, 0, "the window changed no PKRU bit");
	cr_assert_eq(child & bits, before & bits,
		     "new thread PKRU %#x: the window (%#x) is open in it",
		     child, inside);
}
#endif
