// SPDX-License-Identifier: MIT
/*
 * Nested fault recovery: a signal handler that runs a nofault copy (which
 * may fault itself) in the middle of a copy that is about to fault must
 * leave the interrupted copy's recovery intact.  The portable primitives
 * keep one recovery point per thread, so each copy has to put back the one
 * it found; the x86-64 primitives use the exception table and pass by
 * construction.  A 50 us SIGALRM timer interrupts the main thread's copies
 * across a hole many times; every count, in the handler and outside it,
 * must be exact.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "tsupport.h"
#include "tregress.h"

#define PAGES 16
#define TAIL 4096 /* bytes asked for beyond the mapping */

static struct t_env env;
static char *mon;        /* two monitor pages, the second one unmapped */
static size_t pagesz;
static volatile sig_atomic_t h_runs, h_bad;

static void alarm_handler(int sig)
{
	uint64_t v = 0;
	char buf[16];
	int saved = errno;

	(void)sig;
	/* One copy that succeeds and one that runs into the unmapped page. */
	if (ua_copy_from_kernel_nofault(&v, mon, sizeof(v)) != 0 ||
	    v != 0x0123456789abcdefULL)
		h_bad++;
	memset(buf, 0x55, sizeof(buf));
	if (ua_copy_from_kernel_nofault(buf, mon + pagesz - 8, 16) != -EFAULT)
		h_bad++;
	h_runs++;
	errno = saved;
}

static void setup(void)
{
	pagesz = (size_t)sysconf(_SC_PAGESIZE);
	t_env_setup(&env, PAGES);
	mon = mmap(NULL, 2 * pagesz, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(mon, MAP_FAILED);
	cr_assert_eq(munmap(mon + pagesz, pagesz), 0);
	*(uint64_t *)mon = 0x0123456789abcdefULL;
}

static void teardown(void)
{
	t_env_teardown(&env);
}

TestSuite(nested_recovery, .init = setup, .fini = teardown);

static void start_timer(void)
{
	struct itimerval it = { { 0, 50 }, { 0, 50 } };

	t_sigaction(SIGALRM, NULL, alarm_handler, SA_RESTART);
	cr_assert_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
}

static void stop_timer(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 0 } };

	setitimer(ITIMER_REAL, &it, NULL);
	signal(SIGALRM, SIG_IGN);
}

Test(nested_recovery, handler_nofault_inside_faulting_copy)
{
	static char dst[PAGES * 4096 + TAIL];
	size_t len = env.len + TAIL, left;
	long copies = 0, wrong = 0;

	cr_assert_leq(env.len + TAIL, sizeof(dst));
	t_fill(env.buf, 0x7e, env.len);
	start_timer();
	/* Many interrupted copies, then a fixed number more. */
	while (h_runs < 2000 || copies < 200) {
		memset(dst, 1, sizeof(dst));
		left = ua_copy_from_user(dst, env.buf, len);
		if (left != TAIL || dst[0] != 0x7e ||
		    dst[env.len - 1] != 0x7e || dst[env.len] != 0 ||
		    dst[len - 1] != 0)
			wrong++;
		copies++;
	}
	stop_timer();
	cr_assert_eq(wrong, 0, "%ld of %ld copies had a wrong count or data",
		     wrong, copies);
	cr_assert_eq(h_bad, 0, "%d of %d handler copies were wrong",
		     (int)h_bad, (int)h_runs);
	cr_assert_geq(h_runs, 2000);
}

/* The same with a nofault copy across a monitor hole in the main thread. */
Test(nested_recovery, handler_nofault_inside_faulting_nofault)
{
	static char dst[16];
	long copies = 0, wrong = 0;

	start_timer();
	while (h_runs < 2000) {
		if (ua_copy_from_kernel_nofault(dst, mon + pagesz - 8, 16) !=
		    -EFAULT)
			wrong++;
		copies++;
	}
	stop_timer();
	cr_assert_eq(wrong, 0, "%ld of %ld copies were wrong", wrong, copies);
	cr_assert_eq(h_bad, 0, "%d of %d handler copies were wrong",
		     (int)h_bad, (int)h_runs);
}
