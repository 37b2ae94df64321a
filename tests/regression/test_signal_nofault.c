// SPDX-License-Identifier: MIT
/*
 * The nofault accessors and a window with unsafe accessors, used from a
 * real signal handler (a profiler's SIGPROF handler, doc/design.md §4.5): the
 * handler runs at a point the interrupted code did not choose, reads
 * monitor memory that may be unmapped and guest memory that may fault, and
 * every result is exact.  Triggered synchronously (raise) and by a real
 * profiling timer.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>

#include <criterion/criterion.h>

#include "tsupport.h"
#include "tregress.h"

static struct t_env env;
static char *noaccess; /* a PROT_NONE monitor page */
static const uint64_t monitor_word = 0x5eed5eed01020304ULL;
static const uint64_t guest_words[2] = { 0x1111222233334444ULL,
					 0x5555666677778888ULL };

/* What one run of the handler saw. */
struct probe {
	int k_ok, k_unmapped, k_noaccess, k_guest;
	uint64_t k_val, k_untouched;
	long s_len;
	char s_buf[16];
	int win_ok;
	uint64_t g_val;
	uint32_t g_half;
	int hole_before, hole_after, hole_label;
	uint64_t hole_val;
	long u_ok, u_hole;
	uint64_t u_val;
	uint64_t fixups, windows;
};

static struct probe probes[8];
static volatile sig_atomic_t runs;
/* Set while the interrupted code has its own window open. */
static volatile sig_atomic_t outer_window;

static void probe_guest(struct probe *p)
{
	const uint64_t *hole = (const uint64_t *)env.hole;
	uint64_t v;

	if (ua_user_read_access_begin(env.buf, 16)) {
		ua_unsafe_get_user(p->g_val, (const uint64_t *)env.buf, out);
		ua_unsafe_get_user(p->g_half, (const uint32_t *)(env.buf + 8),
				   out);
		p->win_ok = 1;
out:
		ua_user_read_access_end();
	}
	/* A window across the end of the mapping: the second load faults. */
	if (ua_user_read_access_begin(hole - 1, 16)) {
		ua_unsafe_get_user(v, hole - 1, hole_fault);
		p->hole_before = 1;
		p->hole_val = v;
		ua_unsafe_get_user(v, hole, hole_fault);
		p->hole_after = 1;
hole_fault:
		p->hole_label = 1;
		ua_user_read_access_end();
	}
}

static void prof_handler(int sig, siginfo_t *si, void *uc)
{
	struct probe *p = &probes[runs < 8 ? runs : 7];
	struct ua_stats before, after;
	uint64_t v = 0xaaaa;

	(void)sig;
	(void)si;
	(void)uc;
	ua_stats_get(&before);
	p->k_ok = ua_get_kernel_nofault(p->k_val, &monitor_word);
	p->k_unmapped = ua_get_kernel_nofault(v, (uint64_t *)T_BAD_ADDR);
	p->k_noaccess = ua_get_kernel_nofault(v, (uint64_t *)noaccess);
	p->k_guest = ua_get_kernel_nofault(v, (uint64_t *)env.buf);
	p->k_untouched = v;
	p->s_len = ua_strncpy_from_kernel_nofault(p->s_buf, "profiler",
						  sizeof(p->s_buf));
	if (!outer_window)
		probe_guest(p);
	p->u_ok = ua_copy_from_user_nofault(&p->u_val, env.buf, 8);
	p->u_hole = ua_copy_from_user_nofault(&v, env.hole - 4, 8);
	ua_stats_get(&after);
	p->fixups = after.fixups - before.fixups;
	p->windows = after.windows - before.windows;
	runs++;
}

static void check_probe(const struct probe *p)
{
	cr_assert_eq(p->k_ok, 0);
	cr_assert_eq(p->k_val, monitor_word);
	cr_assert_eq(p->k_unmapped, -EFAULT);
	cr_assert_eq(p->k_noaccess, -EFAULT);
	cr_assert_eq(p->k_guest, -ERANGE);
	cr_assert_eq(p->k_untouched, 0xaaaa, "failed reads must not assign");
	cr_assert_eq(p->s_len, 9);
	cr_assert_str_eq(p->s_buf, "profiler");
	cr_assert_eq(p->win_ok, 1);
	cr_assert_eq(p->g_val, guest_words[0]);
	cr_assert_eq(p->g_half, (uint32_t)guest_words[1]);
	cr_assert_eq(p->hole_before, 1);
	cr_assert_eq(p->hole_val, 0x4242424242424242ULL);
	cr_assert_eq(p->hole_after, 0, "a load of an unmapped page succeeded");
	cr_assert_eq(p->hole_label, 1);
	cr_assert_eq(p->u_ok, 0);
	cr_assert_eq(p->u_val, guest_words[0]);
	cr_assert_eq(p->u_hole, -EFAULT);
	/* Unmapped, PROT_NONE, the hole load, the nofault user copy. */
	cr_assert_eq(p->fixups, 4, "fixups %llu",
		     (unsigned long long)p->fixups);
	cr_assert_eq(p->windows, 4, "windows %llu",
		     (unsigned long long)p->windows);
}

static void setup(void)
{
	t_env_setup(&env, 1);
	t_poke(env.buf, guest_words, sizeof(guest_words));
	t_fill(env.hole - 8, 0x42, 8);
	noaccess = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	cr_assert_neq(noaccess, MAP_FAILED);
	memset(probes, 0, sizeof(probes));
	runs = 0;
	outer_window = 0;
	t_sigaction(SIGPROF, prof_handler, NULL, SA_RESTART);
}

static void teardown(void)
{
	signal(SIGPROF, SIG_IGN);
	munmap(noaccess, 4096);
	t_env_teardown(&env);
}

TestSuite(signal_nofault, .init = setup, .fini = teardown);

Test(signal_nofault, raised_sigprof)
{
	raise(SIGPROF);
	cr_assert_eq(runs, 1);
	check_probe(&probes[0]);
	/* The interrupted thread's state is intact: no window left open. */
	cr_assert(ua_user_read_access_begin(env.buf, 8));
	ua_user_read_access_end();
}

Test(signal_nofault, profiling_timer)
{
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	volatile unsigned long spin = 0;

	cr_assert_eq(setitimer(ITIMER_PROF, &it, NULL), 0);
	/* Burn CPU time until the timer has fired three times. */
	while (runs < 3)
		spin++;
	setitimer(ITIMER_PROF, &off, NULL);
	for (int i = 0; i < 3; i++)
		check_probe(&probes[i]);
}

/*
 * The interrupted code has a read window open: the handler's nofault
 * user copy must not borrow or close it (it returns -EFAULT), and the
 * window still works once the handler is done.
 */
Test(signal_nofault, interrupts_an_open_window)
{
	const struct probe *p = &probes[0];
	uint64_t v = 0;

	cr_assert(ua_user_read_access_begin(env.buf, 16));
	outer_window = 1;
	raise(SIGPROF);
	ua_unsafe_get_user(v, (const uint64_t *)(env.buf + 8), fault);
	ua_user_read_access_end();
	cr_assert_eq(v, guest_words[1]);
	cr_assert_eq(runs, 1);
	cr_assert_eq(p->k_ok, 0);
	cr_assert_eq(p->k_val, monitor_word);
	cr_assert_eq(p->k_unmapped, -EFAULT);
	cr_assert_eq(p->k_guest, -ERANGE);
	cr_assert_eq(p->u_hole, -EFAULT);
	cr_assert_eq(p->u_ok, -EFAULT, "borrowed the interrupted window");
	cr_assert_eq(p->windows, 0);
	return;
fault:
	ua_user_read_access_end();
	cr_assert_fail("the interrupted window was closed under it");
}
