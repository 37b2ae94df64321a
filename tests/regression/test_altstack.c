// SPDX-License-Identifier: MIT
/*
 * Faults taken while running on an alternate signal stack (doc/design.md §4.6:
 * the handler is installed with SA_ONSTACK): recovered inside a signal
 * handler that runs on the altstack, the library's handler itself running
 * there when a fault is not its own, and the same in a second thread with
 * its own altstack, including a stack overflow, the case altstacks exist for.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "tsupport.h"
#include "tregress.h"

#define ALT_SIZE ((size_t)256 << 10)

static struct t_env env;

struct alt {
	char *lo;
	size_t size;
};

static void alt_setup(struct alt *a)
{
	stack_t ss = { 0 };

	a->size = ALT_SIZE;
	a->lo = mmap(NULL, a->size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ss.ss_sp = a->lo;
	ss.ss_size = a->size;
	if (a->lo == MAP_FAILED || sigaltstack(&ss, NULL))
		a->lo = NULL;
}

static void alt_teardown(struct alt *a)
{
	stack_t ss = { .ss_flags = SS_DISABLE };

	sigaltstack(&ss, NULL);
	munmap(a->lo, a->size);
}

/*
 * Is the caller running on the altstack @a, and does the kernel say so
 * too?  Compared as integers: the compiler may assume that pointers to
 * distinct objects never compare inside one another's bounds.
 */
static bool __attribute__((noinline)) on_alt(const struct alt *a)
{
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	uintptr_t lo = (uintptr_t)a->lo;
	stack_t cur;

	if (sigaltstack(NULL, &cur) || !(cur.ss_flags & SS_ONSTACK))
		return false;
	return sp >= lo && sp < lo + a->size;
}

/* What a handler observed; checked by the test once it is back. */
struct seen {
	int on_alt;
	int get_hole, get_ok, nofault_bad;
	uint64_t value;
	size_t copy_left;
	uint64_t fixups;
	int app_calls, app_sig, app_on_alt;
};

/* Volatile: the handlers read them, the compiler cannot see when. */
static __thread struct alt *volatile my_alt;
static __thread struct seen *volatile my_seen;
static __thread sigjmp_buf my_jb;

/* Accesses that fault and are recovered, done on whatever stack we are. */
static void do_accesses(struct seen *s)
{
	struct ua_stats st;
	uint64_t v = 9;
	char buf[8];

	ua_stats_reset();
	s->get_hole = ua_get_user(v, (uint64_t *)env.hole);
	s->get_ok = ua_get_user(s->value, (uint64_t *)env.buf);
	s->copy_left = ua_copy_from_user(buf, env.hole - 3, sizeof(buf));
	s->nofault_bad = ua_get_kernel_nofault(v, (uint64_t *)T_BAD_ADDR);
	ua_stats_get(&st);
	s->fixups = st.fixups;
	(void)v;
}

static void usr1_on_alt(int sig)
{
	(void)sig;
	my_seen->on_alt = on_alt(my_alt);
	do_accesses(my_seen);
}

/* The application's SIGSEGV handler, installed before ua_init(). */
static void app_segv(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	my_seen->app_calls++;
	my_seen->app_sig = sig;
	my_seen->app_on_alt = on_alt(my_alt);
	siglongjmp(my_jb, 1);
}

static void expect_recovered(const struct seen *s)
{
	cr_assert_eq(s->get_hole, -EFAULT);
	cr_assert_eq(s->get_ok, 0);
	cr_assert_eq(s->value, 0x1122334455667788ULL);
	cr_assert_eq(s->copy_left, 5);
	cr_assert_eq(s->nofault_bad, -EFAULT);
	/* The guest read, the guest copy and the nofault read. */
	cr_assert_eq(s->fixups, 3, "fixups %llu",
		     (unsigned long long)s->fixups);
}

static void setup(void)
{
	uint64_t v = 0x1122334455667788ULL;

	/* No SA_ONSTACK here: the library's handler chooses the stack. */
	t_sigaction(SIGSEGV, app_segv, NULL, 0);
	t_sigaction(SIGUSR1, NULL, usr1_on_alt, SA_ONSTACK);
	cr_assert_eq(ua_init(), 0);
	t_env_setup(&env, 1);
	t_poke(env.buf, &v, sizeof(v));
}

static void teardown(void)
{
	t_env_teardown(&env);
}

TestSuite(altstack, .init = setup, .fini = teardown);

Test(altstack, faults_recovered_in_handler_on_altstack)
{
	struct alt a;
	struct seen s = { 0 };

	alt_setup(&a);
	cr_assert_not_null(a.lo);
	my_alt = &a;
	my_seen = &s;
	raise(SIGUSR1);
	cr_assert_eq(s.on_alt, 1, "SIGUSR1 handler did not run on the altstack");
	expect_recovered(&s);
	cr_assert_eq(s.app_calls, 0);
	alt_teardown(&a);
}

Test(altstack, library_handler_runs_on_altstack)
{
	struct alt a;
	struct seen s = { 0 };

	alt_setup(&a);
	cr_assert_not_null(a.lo);
	my_alt = &a;
	my_seen = &s;
	if (!sigsetjmp(my_jb, 1)) {
		(void)t_read_bad();
		cr_assert_fail("no fault");
	}
	cr_assert_eq(s.app_calls, 1);
	cr_assert_eq(s.app_sig, SIGSEGV);
	/* The app's handler has no SA_ONSTACK: only ours put it there. */
	cr_assert_eq(s.app_on_alt, 1);
	/* And recovery still works on the ordinary stack afterwards. */
	do_accesses(&s);
	expect_recovered(&s);
	alt_teardown(&a);
}

/* Never true, but the compiler cannot know: keeps the recursion finite. */
static volatile int depth_limit = -1;

static int __attribute__((noinline)) overflow(int n)
{
	volatile char pad[512];

	pad[0] = (char)n;
	if (n == depth_limit)
		return 0;
	return overflow(n + 1) + pad[0];
}

static void *thread_main(void *arg)
{
	struct seen *s = arg;
	struct alt a;

	alt_setup(&a);
	if (!a.lo)
		return NULL;
	my_alt = &a;
	my_seen = s;
	ua_space_use(env.sp);
	/* Faults recovered on the thread's own stack. */
	do_accesses(&s[0]);
	/* In a handler on this thread's altstack. */
	my_seen = &s[1];
	pthread_kill(pthread_self(), SIGUSR1);
	/* The thread's stack overflows: not ours, passed on, on the altstack. */
	my_seen = &s[2];
	if (!sigsetjmp(my_jb, 1))
		overflow(0);
	/* Still recovering after that. */
	do_accesses(&s[3]);
	ua_space_use(NULL);
	alt_teardown(&a);
	return NULL;
}

Test(altstack, second_thread_with_its_own_altstack)
{
	struct seen s[4];
	struct alt main_alt;
	pthread_attr_t attr;
	pthread_t t;

	memset(s, 0, sizeof(s));
	/* The main thread has an altstack too; the thread must not use it. */
	alt_setup(&main_alt);
	cr_assert_not_null(main_alt.lo);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, (size_t)512 << 10);
	cr_assert_eq(pthread_create(&t, &attr, thread_main, s), 0);
	pthread_join(t, NULL);
	pthread_attr_destroy(&attr);

	expect_recovered(&s[0]);
	cr_assert_eq(s[1].on_alt, 1, "not on the thread's own altstack");
	expect_recovered(&s[1]);
	cr_assert_eq(s[0].app_calls + s[1].app_calls, 0);
	cr_assert_eq(s[2].app_calls, 1, "stack overflow not passed on");
	cr_assert_eq(s[2].app_sig, SIGSEGV);
	cr_assert_eq(s[2].app_on_alt, 1);
	expect_recovered(&s[3]);
	alt_teardown(&main_alt);
}
