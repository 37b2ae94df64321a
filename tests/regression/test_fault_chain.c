// SPDX-License-Identifier: MIT
/*
 * The library's SIGSEGV/SIGBUS handler and the dispositions that were
 * there before it (doc/design.md §4.6): faults that are not the library's reach
 * the application's handler with the kernel's semantics (SA_SIGINFO, plain,
 * sa_mask, SA_NODEFER, SA_RESETHAND, SIG_DFL, SIG_IGN), while the library
 * keeps recovering its own.  Every test installs its disposition before
 * ua_init(); Criterion runs each test in a fresh process, so the library
 * has not been initialised yet when the test starts.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "tsupport.h"
#include "tregress.h"

static struct t_env env;
static sigjmp_buf jb;
static volatile sig_atomic_t got_sig, got_code, calls;
static void *volatile got_addr;

/* Set in the handler: was SIGUSR1 / the signal itself blocked there? */
static volatile sig_atomic_t usr1_blocked, self_blocked;

static void record_mask(int sig)
{
	sigset_t cur;

	pthread_sigmask(SIG_SETMASK, NULL, &cur);
	usr1_blocked = sigismember(&cur, SIGUSR1);
	self_blocked = sigismember(&cur, sig);
}

static void app_info(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	calls++;
	got_sig = sig;
	got_code = si->si_code;
	got_addr = si->si_addr;
	record_mask(sig);
	siglongjmp(jb, 1);
}

static void app_plain(int sig)
{
	calls++;
	got_sig = sig;
	record_mask(sig);
	siglongjmp(jb, 1);
}

/* A library fault: a guest read of the unmapped page after env.buf. */
static void assert_library_recovers(void)
{
	struct ua_stats st;
	uint64_t v = 0x1234;
	int saved_calls = calls;

	ua_stats_reset();
	cr_assert_eq(ua_get_user(v, (uint64_t *)env.hole), -EFAULT);
	cr_assert_eq(v, 0);
	ua_stats_get(&st);
	cr_assert_eq(st.fixups, 1, "fixups %llu",
		     (unsigned long long)st.fixups);
	cr_assert_eq(calls, saved_calls, "a library fault reached the app");
}

/* A fault of the application's own: it must reach its handler. */
static void assert_app_gets_fault(void)
{
	int saved_calls = calls;

	got_sig = 0;
	if (!sigsetjmp(jb, 1)) {
		(void)t_read_bad();
		cr_assert_fail("the bad read did not fault");
	}
	cr_assert_eq(calls, saved_calls + 1);
	cr_assert_eq(got_sig, SIGSEGV);
}

/*
 * For tests that end by dying of a signal: Criterion counts a skipped
 * test that expected a signal as failed, so where the backend cannot run
 * the library-side half is left out and the rest still runs.
 */
static bool env_if_available(void)
{
	if (t_backend_unavailable())
		return false;
	t_env_setup(&env, 1);
	return true;
}

static void setup(void)
{
	calls = 0;
	got_sig = 0;
}

static void teardown(void)
{
	if (env.sp)
		t_env_teardown(&env);
	env.sp = NULL;
}

TestSuite(chain, .init = setup, .fini = teardown);

Test(chain, siginfo_handler_before_init)
{
	t_sigaction(SIGSEGV, app_info, NULL, 0);
	cr_assert_eq(ua_init(), 0);
	t_env_setup(&env, 1);

	assert_library_recovers();
	assert_app_gets_fault();
	cr_assert_eq(got_code, SEGV_MAPERR);
	cr_assert_eq(got_addr, (void *)T_BAD_ADDR);
	/* Delivered as the kernel would: the signal blocked, no sa_mask. */
	cr_assert_eq(self_blocked, 1);
	cr_assert_eq(usr1_blocked, 0);
	/* And the library is still in place after the app's siglongjmp. */
	assert_library_recovers();
	assert_app_gets_fault();
	cr_assert_eq(calls, 2);
}

Test(chain, plain_handler_before_init)
{
	t_sigaction(SIGSEGV, NULL, app_plain, 0);
	cr_assert_eq(ua_init(), 0);
	t_env_setup(&env, 1);

	assert_library_recovers();
	assert_app_gets_fault();
	assert_library_recovers();
	assert_app_gets_fault();
	cr_assert_eq(calls, 2);
}

Test(chain, handler_sa_mask_and_nodefer)
{
	struct sigaction sa = { 0 };

	sa.sa_sigaction = app_info;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR1);
	sigaction(SIGSEGV, &sa, NULL);
	cr_assert_eq(ua_init(), 0);
	t_env_setup(&env, 1);

	assert_app_gets_fault();
	cr_assert_eq(usr1_blocked, 1, "the old handler's sa_mask was lost");
	cr_assert_eq(self_blocked, 0, "SA_NODEFER was not honoured");
	/* siglongjmp restored the mask saved by sigsetjmp. */
	record_mask(SIGSEGV);
	cr_assert_eq(usr1_blocked, 0);
	cr_assert_eq(self_blocked, 0);
	assert_library_recovers();
}

Test(chain, resethand_second_fault_dies, .signal = SIGSEGV)
{
	t_no_core();
	t_sigaction(SIGSEGV, app_info, NULL, SA_RESETHAND);
	cr_assert_eq(ua_init(), 0);
	env_if_available();

	assert_app_gets_fault();
	/* The library's own handler stays; only the old one was one-shot. */
	if (env.sp)
		assert_library_recovers();
	(void)t_read_bad();
	cr_assert_fail("survived a fault after SA_RESETHAND");
}

/*
 * A crash reporter: its SIGSEGV handler (SA_NODEFER) reads memory around
 * the fault with the nofault accessors while handling the fault.
 */
static volatile long crash_near, crash_ok;
static const uint64_t crash_word = 0x0123456789abcdefULL;

static void crash_reporter(int sig, siginfo_t *si, void *uc)
{
	uint64_t v = 0;

	(void)uc;
	calls++;
	got_sig = sig;
	crash_near = ua_get_kernel_nofault(v, (const uint64_t *)si->si_addr);
	crash_ok = ua_get_kernel_nofault(v, &crash_word);
	if (v != crash_word)
		crash_ok = -1000;
	siglongjmp(jb, 1);
}

Test(chain, nofault_inside_chained_nodefer_handler)
{
	t_sigaction(SIGSEGV, crash_reporter, NULL, SA_NODEFER);
	cr_assert_eq(ua_init(), 0);
	t_env_setup(&env, 1);

	assert_app_gets_fault();
	cr_assert_eq(crash_near, -EFAULT);
	cr_assert_eq(crash_ok, 0);
	assert_library_recovers();
}

/*
 * A handler that repairs the fault and returns: the faulting read runs
 * again and succeeds, through the context the library passed along.
 */
static char *repair_page;

static void repair(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	calls++;
	got_addr = si->si_addr;
	mprotect(repair_page, 4096, PROT_READ | PROT_WRITE);
	repair_page[8] = 42;
}

Test(chain, handler_that_returns_resumes_the_access)
{
	volatile char *p;

	repair_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
	cr_assert_neq(repair_page, MAP_FAILED);
	t_sigaction(SIGSEGV, repair, NULL, 0);
	cr_assert_eq(ua_init(), 0);
	t_env_setup(&env, 1);

	p = repair_page + 8;
	cr_assert_eq(*p, 42);
	cr_assert_eq(calls, 1);
	cr_assert_eq(got_addr, repair_page + 8);
	assert_library_recovers();
	munmap(repair_page, 4096);
}

Test(chain, sig_dfl_real_fault_dies, .signal = SIGSEGV)
{
	t_no_core();
	signal(SIGSEGV, SIG_DFL);
	cr_assert_eq(ua_init(), 0);
	if (env_if_available())
		assert_library_recovers();
	(void)t_read_bad();
	cr_assert_fail("survived a real fault under SIG_DFL");
}

Test(chain, sig_dfl_sent_signal_dies, .signal = SIGSEGV)
{
	t_no_core();
	signal(SIGSEGV, SIG_DFL);
	cr_assert_eq(ua_init(), 0);
	kill(getpid(), SIGSEGV);
	cr_assert_fail("survived kill(SIGSEGV) under SIG_DFL");
}

Test(chain, sig_ign_sent_signal_is_ignored)
{
	signal(SIGSEGV, SIG_IGN);
	cr_assert_eq(ua_init(), 0);
	t_env_setup(&env, 1);

	cr_assert_eq(kill(getpid(), SIGSEGV), 0);
	cr_assert_eq(raise(SIGSEGV), 0);
	assert_library_recovers();
}

Test(chain, sig_ign_real_fault_dies, .signal = SIGSEGV)
{
	t_no_core();
	signal(SIGSEGV, SIG_IGN);
	cr_assert_eq(ua_init(), 0);
	if (env_if_available())
		assert_library_recovers();
	(void)t_read_bad();
	cr_assert_fail("survived a real fault under SIG_IGN");
}

Test(chain, errno_preserved_across_recovered_fault)
{
	char buf[64];

	t_sigaction(SIGSEGV, app_info, NULL, 0);
	cr_assert_eq(ua_init(), 0);
	t_env_setup(&env, 1);

	errno = EDOM;
	assert_library_recovers();
	cr_assert_eq(errno, EDOM);
	errno = ENOTTY;
	cr_assert_eq(ua_copy_from_user(buf, env.hole - 10, sizeof(buf)), 54);
	cr_assert_eq(errno, ENOTTY);
	errno = EILSEQ;
	cr_assert_eq(ua_copy_from_kernel_nofault(buf, (void *)T_BAD_ADDR, 8),
		     -EFAULT);
	cr_assert_eq(errno, EILSEQ);
}

/* A program that takes SIGSEGV over after the library and asks it first. */
static volatile sig_atomic_t lib_handled, errno_changed;

static void after_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	errno = EBADF;
	if (ua_handle_fault(sig, si, uc)) {
		errno_changed |= errno != EBADF;
		lib_handled++;
		errno = saved;
		return;
	}
	errno_changed |= errno != EBADF;
	errno = saved;
	app_info(sig, si, uc);
}

Test(chain, handler_installed_after_calls_ua_handle_fault)
{
	cr_assert_eq(ua_init(), 0);
	t_env_setup(&env, 1);
	t_sigaction(SIGSEGV, after_handler, NULL, 0);
	t_sigaction(SIGBUS, after_handler, NULL, 0);

	assert_library_recovers();
	cr_assert_eq(lib_handled, 1);
	assert_app_gets_fault();
	cr_assert_eq(got_addr, (void *)T_BAD_ADDR);
	cr_assert_eq(lib_handled, 1);
	assert_library_recovers();
	cr_assert_eq(lib_handled, 2);
	cr_assert_eq(errno_changed, 0, "ua_handle_fault changed errno");
}

/*
 * A handler that runs inside the library's clear (the fault the clear
 * recovers from reaches the program's handler first) finds the clear's
 * window open, a lean one under none: its nofault read of guest memory
 * and a window of its own are refused, and the clear still ends with the
 * exact count and its own counts.
 */
static volatile sig_atomic_t clear_calls, clear_lent;

static void clear_handler(int sig, siginfo_t *si, void *uc)
{
	uint64_t v;

	clear_calls++;
	if (ua_copy_from_user_nofault(&v, env.buf, 8) != -EFAULT)
		clear_lent++;
	if (ua_user_read_access_begin(env.buf, 8)) {
		clear_lent++;
		ua_user_read_access_end();
	}
	if (!ua_handle_fault(sig, si, uc))
		app_info(sig, si, uc);
}

Test(chain, handler_inside_a_clear_finds_its_window)
{
	struct ua_stats st;
	uint64_t v;

	cr_assert_eq(ua_init(), 0);
	t_env_setup(&env, 1);
	t_sigaction(SIGSEGV, clear_handler, NULL, 0);
	t_sigaction(SIGBUS, clear_handler, NULL, 0);

	ua_stats_reset();
	cr_assert_eq(ua_clear_user(env.hole - 100, 612), 512);
	ua_stats_get(&st);
	cr_assert_gt(clear_calls, 0);
	cr_assert_eq(clear_lent, 0, "a window was lent to the handler");
	cr_assert_eq(calls, 0, "the clear's fault reached the program");
	cr_assert_eq(st.windows, 1);
	cr_assert_eq(st.switches, 2);
	cr_assert_eq(st.fixups, (uint64_t)clear_calls);
	/* Closed again: the same calls now succeed. */
	cr_assert_eq(ua_copy_from_user_nofault(&v, env.buf, 8), 0);
	cr_assert(ua_user_read_access_begin(env.buf, 8));
	ua_user_read_access_end();
}

Test(chain, ua_handle_fault_declines_what_is_not_a_fault)
{
	siginfo_t si = { 0 };
	ucontext_t uc = { 0 };

	cr_assert_eq(ua_init(), 0);
	si.si_code = SI_USER;
	cr_assert_not(ua_handle_fault(SIGSEGV, &si, &uc));
	si.si_code = SEGV_MAPERR;
	cr_assert_not(ua_handle_fault(SIGUSR1, &si, &uc));
	/* A fault at a PC with no table entry (here: PC 0). */
	si.si_addr = (void *)T_BAD_ADDR;
	cr_assert_not(ua_handle_fault(SIGSEGV, &si, &uc));
}

/*
 * SIGBUS: a read past the end of a file mapping.  A memfd of one page is
 * mapped over two; the second page has no file behind it.
 */
static char *bus_page(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	int fd = memfd_create("ua-sigbus", 0);
	char *m;

	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, pg), 0);
	m = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 0);
	close(fd);
	cr_assert_neq(m, MAP_FAILED);
	m[0] = 'x';
	return m + pg;
}

Test(chain, sigbus_nofault_recovered_and_real_one_chained)
{
	char *past = bus_page();
	uint64_t v = 5;
	char buf[16];

	t_sigaction(SIGBUS, app_info, NULL, 0);
	cr_assert_eq(ua_init(), 0);

	ua_stats_reset();
	cr_assert_eq(ua_copy_from_kernel_nofault(buf, past, sizeof(buf)),
		     -EFAULT);
	cr_assert_eq(ua_get_kernel_nofault(v, (uint64_t *)past), -EFAULT);
	cr_assert_eq(v, 5, "a failed nofault read must not assign");
	/* The page before is backed: a copy across the boundary faults. */
	cr_assert_eq(ua_copy_from_kernel_nofault(buf, past - 8, sizeof(buf)),
		     -EFAULT);
	cr_assert_eq(ua_copy_from_kernel_nofault(buf, past - 8, 8), 0);
	cr_assert_eq(buf[0], 0);
	cr_assert_eq(calls, 0);

	if (!sigsetjmp(jb, 1)) {
		(void)*(volatile char *)past;
		cr_assert_fail("no SIGBUS");
	}
	cr_assert_eq(calls, 1);
	cr_assert_eq(got_sig, SIGBUS);
	cr_assert_eq(got_code, BUS_ADRERR);
	cr_assert_eq(got_addr, past);
	/* Still recovered after the application's own SIGBUS. */
	cr_assert_eq(ua_copy_from_kernel_nofault(buf, past, 1), -EFAULT);
}

Test(chain, sigbus_dfl_real_fault_dies, .signal = SIGBUS)
{
	char *past;
	char c;

	t_no_core();
	signal(SIGBUS, SIG_DFL);
	cr_assert_eq(ua_init(), 0);
	past = bus_page();
	cr_assert_eq(ua_copy_from_kernel_nofault(&c, past, 1), -EFAULT);
	(void)*(volatile char *)past;
	cr_assert_fail("survived SIGBUS under SIG_DFL");
}
