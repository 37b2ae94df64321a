// SPDX-License-Identifier: MIT
/*
 * The run-time half of the block copies' monitor-buffer size check (the
 * kernel's check_copy_size()/copy_overflow()): a length the compiler does
 * not know, or a buffer whose size is known only at run time, larger than
 * the monitor buffer: reported on stderr, nothing copied, the copy
 * returns n and neither the buffer nor guest memory changes.  Copies that
 * fit are not touched by the check.  The compile-time half is
 * tests/regression/check_copy_size.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

TestSuite(copy_size, .init = setup, .fini = teardown);

static int saved_fd2 = -1;
static FILE *capture;

static void capture_begin(void)
{
	fflush(stderr);
	capture = tmpfile();
	cr_assert_not_null(capture);
	saved_fd2 = dup(2);
	dup2(fileno(capture), 2);
}

static char *capture_end(void)
{
	static char buf[8192];
	size_t n;

	fflush(stderr);
	dup2(saved_fd2, 2);
	close(saved_fd2);
	rewind(capture);
	n = fread(buf, 1, sizeof(buf) - 1, capture);
	buf[n] = 0;
	fclose(capture);
	return buf;
}

/* A length the compiler cannot see through. */
static size_t opaque(size_t n)
{
	volatile size_t v = n;

	return v;
}

/* A fixed-size array, a length known only at run time. */
Test(copy_size, from_user_into_array_runtime_length)
{
	struct {
		char buf[16];
		char canary[16];
	} d;
	size_t n = opaque(24);
	char *msg;
	size_t left;

	t_fill(env.buf, 0x5a, 64);
	memset(&d, 0x11, sizeof(d));
	capture_begin();
	left = ua_copy_from_user(d.buf, env.buf, n);
	msg = capture_end();
	/* The object is d (type 0, as the kernel): 32 bytes, 24 fit. */
	cr_assert_eq(left, 0);
	cr_assert_str_empty(msg);

	n = opaque(33);
	memset(&d, 0x11, sizeof(d));
	capture_begin();
	left = ua_copy_from_user(d.buf, env.buf, n);
	msg = capture_end();
	cr_assert_eq(left, 33);
	for (size_t i = 0; i < sizeof(d); i++)
		cr_assert_eq(((unsigned char *)&d)[i], 0x11, "byte %zu", i);
	cr_assert(strstr(msg, "uaccess: ua_copy_from_user: buffer overflow "
			      "detected: the destination has 32 bytes, 33 "
			      "were asked for; nothing copied"),
		  "message: %s", msg);
}

/* A heap buffer whose size is known only at run time. */
Test(copy_size, from_user_into_heap_runtime_size)
{
	size_t size = opaque(40), n = opaque(41);
	unsigned char *p = malloc(size);
	char *msg;
	size_t left;

	cr_assert_not_null(p);
	if (__builtin_object_size(p, 0) == (size_t)-1 &&
	    ua__object_size(p) == (size_t)-1)
		cr_skip_test("the compiler does not track malloc() sizes "
			     "at run time here");
	memset(p, 0x22, size);
	t_fill(env.buf, 0x5a, 64);
	capture_begin();
	left = ua_copy_from_user(p, env.buf, n);
	msg = capture_end();
	cr_assert_eq(left, 41);
	for (size_t i = 0; i < size; i++)
		cr_assert_eq(p[i], 0x22, "byte %zu", i);
	cr_assert(strstr(msg, "the destination has 40 bytes, 41 were asked"),
		  "message: %s", msg);
	cr_assert_eq(ua_copy_from_user(p, env.buf, size), 0);
	cr_assert_eq(p[39], 0x5a);
	free(p);
}

/* The source of a copy to the guest: no monitor bytes past it leak. */
Test(copy_size, to_user_from_short_source)
{
	char src[8] = "secret!";
	unsigned char back[16];
	size_t n = opaque(16);
	char *msg;
	size_t left;

	t_fill(env.buf, 0x33, 16);
	capture_begin();
	left = ua_copy_to_user(env.buf, src, n);
	msg = capture_end();
	cr_assert_eq(left, 16);
	cr_assert(strstr(msg, "uaccess: ua_copy_to_user: buffer overflow "
			      "detected: the source has 8 bytes, 16 were "
			      "asked for; nothing copied"),
		  "message: %s", msg);
	t_peek(back, env.buf, 16);
	for (size_t i = 0; i < 16; i++)
		cr_assert_eq(back[i], 0x33, "byte %zu", i);
}

/* Lengths above INT_MAX keep their own rule: refused quietly, untouched. */
Test(copy_size, huge_length_is_not_an_overflow_report)
{
	char buf[16];
	char *msg;

	memset(buf, 0x44, sizeof(buf));
	capture_begin();
	cr_assert_eq(ua_copy_from_user(buf, env.buf, (size_t)INT_MAX + 1),
		     (size_t)INT_MAX + 1);
	msg = capture_end();
	cr_assert_str_empty(msg);
	cr_assert_eq(buf[0], 0x44);
}
