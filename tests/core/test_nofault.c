// SPDX-License-Identifier: MIT
/*
 * Nofault accessors (doc/design.md §4.5; the kernel's mm/maccess.c): monitor
 * addresses that may be unmapped give -EFAULT, never a crash; any address
 * inside a guest space (guard gap included) gives -ERANGE before anything is
 * read, even for size 0; strncpy_from_kernel_nofault terminates at a fault;
 * and copy_from_user_nofault returns 0/-EFAULT with no zero-fill.  Also used
 * from inside a real signal handler.
 */
#include <errno.h>
#include <signal.h>

#include "tcore.h"

static struct t_env env;
static unsigned char *mon;   /* two monitor pages, the second PROT_NONE */
static unsigned char *mhole; /* the PROT_NONE page */

static void setup(void)
{
	t_env_setup(&env, T_PAGES);
	mon = mmap(NULL, 2 * T_PG, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq((void *)mon, MAP_FAILED);
	mhole = mon + T_PG;
	cr_assert_eq(mprotect(mhole, T_PG, PROT_NONE), 0);
	t_pat_fill(mon, T_PG, 0);
}

static void teardown(void)
{
	munmap(mon, 2 * T_PG);
	t_env_teardown(&env);
}

TestSuite(nofault, .init = setup, .fini = teardown);

#define CANARY 0xa5
#define SLACK 16

Test(nofault, get_kernel_nofault)
{
	uint64_t q = 0x0102030405060708ull, vq = 0;
	int32_t l = -9, vl = 0;
	uint8_t b = 0xfe, vb = 0;
	void *p = &q, *vp = NULL;

	ua_stats_reset();
	cr_assert_eq(ua_get_kernel_nofault(vq, &q), 0);
	cr_assert_eq(vq, q);
	cr_assert_eq(ua_get_kernel_nofault(vl, &l), 0);
	cr_assert_eq(vl, -9);
	cr_assert_eq(ua_get_kernel_nofault(vb, &b), 0);
	cr_assert_eq(vb, 0xfe);
	cr_assert_eq(ua_get_kernel_nofault(vp, &p), 0);
	cr_assert_eq(vp, &q);
	t_assert_stats(0, 0, 0, "no window for monitor memory");
	/* Unmapped: -EFAULT and x untouched. */
	vq = 77;
	cr_assert_eq(ua_get_kernel_nofault(vq, (uint64_t *)mhole), -EFAULT);
	cr_assert_eq(ua_get_kernel_nofault(vq, (uint64_t *)(mhole - 4)),
		     -EFAULT);
	cr_assert_eq(vq, 77);
	t_assert_stats(0, 0, 2);
}

Test(nofault, guest_space_is_erange)
{
	char *base = ua_space_base(env.sp), *lim = ua_space_limit(env.sp);
	char *ptrs[] = { env.buf, env.buf + 100, env.hole,  base,
			 lim - 1, lim,		 lim + 4096 };
	unsigned char d[16];
	char s[16];
	uint64_t v = 5;

	t_fill(env.buf, 0x11, 128);
	memset(d, CANARY, sizeof(d));
	memset(s, 'x', sizeof(s));
	ua_stats_reset();
	for (size_t i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++) {
		char *g = ptrs[i];

		cr_assert_eq(ua_get_kernel_nofault(v, (uint64_t *)g), -ERANGE,
			     "ptr %zu", i);
		cr_assert_eq(ua_get_kernel_nofault(v, (uint8_t *)g), -ERANGE);
		cr_assert_eq(ua_copy_from_kernel_nofault(d, g, 16), -ERANGE);
		cr_assert_eq(ua_copy_from_kernel_nofault(d, g, 0), -ERANGE,
			     "size 0 is refused too, ptr %zu", i);
		cr_assert_eq(ua_copy_to_kernel_nofault(g, s, 16), -ERANGE);
		cr_assert_eq(ua_copy_to_kernel_nofault(g, s, 0), -ERANGE);
		cr_assert_eq(ua_strncpy_from_kernel_nofault((char *)d, g, 16),
			     -ERANGE);
	}
	/* A monitor range that reaches into the space is refused too. */
	cr_assert_eq(ua_copy_from_kernel_nofault(d, base - 8, 16), -ERANGE);
	cr_assert_eq(ua_copy_to_kernel_nofault(base - 8, s, 16), -ERANGE);
	t_assert_stats(0, 0, 0, "nothing read, nothing opened");
	cr_assert_eq(v, 5);
	cr_assert_eq(t_first_not(d, CANARY, sizeof(d)), sizeof(d));
	t_peek(d, env.buf, 16);
	cr_assert_eq(t_first_not(d, 0x11, 16), 16, "guest untouched");
}

/*
 * Addresses nothing can map: the top of the address space (a range that
 * wraps) and a non-canonical one, whose access raises #GP rather than a
 * page fault.  Both are -EFAULT, recovered, never a crash.
 */
Test(nofault, wrapping_and_noncanonical)
{
	unsigned char d[16];
	char s[16] = { 0 };
	char *top = (char *)(UINTPTR_MAX - 3);
	char *nc = (char *)0x8000000000000000ull;
	uint64_t v = 9;

	memset(d, CANARY, sizeof(d));
	cr_assert_eq(ua_copy_from_kernel_nofault(d, top, 8), -EFAULT);
	cr_assert_eq(ua_copy_from_kernel_nofault(d, nc, 8), -EFAULT);
	cr_assert_eq(ua_copy_to_kernel_nofault(top, s, 8), -EFAULT);
	cr_assert_eq(ua_copy_to_kernel_nofault(nc, s, 8), -EFAULT);
	cr_assert_eq(ua_get_kernel_nofault(v, (uint64_t *)nc), -EFAULT);
	cr_assert_eq(ua_strncpy_from_kernel_nofault((char *)d, nc, 8), -EFAULT);
	cr_assert_eq(d[0], 0, "terminated at the fault");
	cr_assert_eq(t_first_not(d + 1, CANARY, sizeof(d) - 1), sizeof(d) - 1);
	cr_assert_eq(v, 9);
	cr_assert_eq(ua_copy_from_user_nofault(d, nc, 8), -EFAULT);
}

/* Zero length on monitor memory (even unmapped) is a no-op success. */
Test(nofault, zero_length)
{
	unsigned char d[4] = { 1, 2, 3, 4 };

	ua_stats_reset();
	cr_assert_eq(ua_copy_from_kernel_nofault(d, mhole, 0), 0);
	cr_assert_eq(ua_copy_to_kernel_nofault(mhole, d, 0), 0);
	cr_assert_eq(ua_copy_from_kernel_nofault(d, NULL, 0), 0);
	cr_assert_eq(ua_strncpy_from_kernel_nofault((char *)d, mhole, 0), 0);
	cr_assert_eq(ua_strncpy_from_kernel_nofault((char *)d, mhole, -3), 0);
	t_assert_stats(0, 0, 0);
	cr_assert_eq(d[0] + d[1] + d[2] + d[3], 10);
}

/* Copies from and to monitor memory that run into the PROT_NONE page. */
static void kernel_copy_every_offset(size_t len, unsigned char *d,
				     const unsigned char *s)
{
	for (size_t k = 0; k <= len; k++) {
		unsigned char *p = mhole - k;
		long r;

		memset(d, CANARY, len + SLACK);
		r = ua_copy_from_kernel_nofault(d, p, len);
		cr_assert_eq(r, k < len ? -EFAULT : 0, "len %zu, k %zu", len,
			     k);
		cr_assert_eq(t_first_not_pat(d, k, T_PG - k), k);
		cr_assert_eq(t_first_not(d + k, CANARY, len - k + SLACK),
			     len - k + SLACK, "no zero-fill");
		r = ua_copy_to_kernel_nofault(p, s, len);
		cr_assert_eq(r, k < len ? -EFAULT : 0, "len %zu, k %zu", len,
			     k);
		cr_assert_eq(memcmp(p, s, k), 0, "written prefix");
		cr_assert_eq(
			t_first_not_pat(p - SLACK, SLACK, T_PG - k - SLACK),
			SLACK, "bytes before untouched");
		t_pat_fill(p, k, T_PG - k);
	}
}

Test(nofault, copy_kernel_fault_at_every_offset)
{
	static unsigned char d[T_BIGLEN + SLACK], s[T_BIGLEN];

	t_pat_fill(s, sizeof(s), 77);
	for (size_t len = 1; len <= T_MAXLEN; len++)
		kernel_copy_every_offset(len, d, s);
	/* 4097 bytes cannot end at the page: start one page lower. */
	{
		unsigned char *big =
			mmap(NULL, 3 * T_PG, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		cr_assert_neq((void *)big, MAP_FAILED);
		cr_assert_eq(mprotect(big + 2 * T_PG, T_PG, PROT_NONE), 0);
		for (size_t k = 0; k <= T_BIGLEN; k++) {
			unsigned char *p = big + 2 * T_PG - k;

			memset(d, CANARY, sizeof(d));
			cr_assert_eq(
				ua_copy_from_kernel_nofault(d, p, T_BIGLEN),
				k < T_BIGLEN ? -EFAULT : 0);
			cr_assert_eq(t_first_not(d + k, CANARY,
						 T_BIGLEN - k + SLACK),
				     T_BIGLEN - k + SLACK);
			cr_assert_eq(ua_copy_to_kernel_nofault(p, s, T_BIGLEN),
				     k < T_BIGLEN ? -EFAULT : 0);
			cr_assert_eq(memcmp(p, s, k), 0);
		}
		munmap(big, 3 * T_PG);
	}
}

Test(nofault, strncpy_from_kernel)
{
	static const char str[] = "kernel";
	char d[16];

	memset(d, CANARY, sizeof(d));
	cr_assert_eq(ua_strncpy_from_kernel_nofault(d, str, 16), 7,
		     "length including the NUL");
	cr_assert_str_eq(d, "kernel");
	cr_assert_eq((unsigned char)d[7], CANARY);
	memset(d, CANARY, sizeof(d));
	cr_assert_eq(ua_strncpy_from_kernel_nofault(d, str, 7), 7);
	cr_assert_str_eq(d, "kernel");
	/* Truncation: count returned, the last byte forced to NUL. */
	memset(d, CANARY, sizeof(d));
	cr_assert_eq(ua_strncpy_from_kernel_nofault(d, str, 4), 4);
	cr_assert_str_eq(d, "ker");
	cr_assert_eq((unsigned char)d[4], CANARY);
	cr_assert_eq(ua_strncpy_from_kernel_nofault(d, str, 1), 1);
	cr_assert_eq(d[0], 0);
	cr_assert_eq(ua_strncpy_from_kernel_nofault(d, "", 5), 1);
	cr_assert_eq(d[0], 0);
}

/*
 * Non-zero bytes up to the PROT_NONE page: for count > k the copy faults
 * after k bytes, and the partial string is terminated at the fault.
 */
Test(nofault, strncpy_from_kernel_terminates_at_fault)
{
	char d[T_MAXLEN + SLACK];

	for (long count = 1; count <= T_MAXLEN; count++) {
		for (long k = 0; k <= count; k++) {
			const unsigned char *src = mhole - k;
			long r;

			memset(d, CANARY, sizeof(d));
			r = ua_strncpy_from_kernel_nofault(d, src, count);
			if (k < count) {
				cr_assert_eq(r, -EFAULT, "count %ld k %ld: %ld",
					     count, k, r);
				cr_assert_eq(t_first_not_pat(d, (size_t)k,
							     T_PG - (size_t)k),
					     (size_t)k);
				cr_assert_eq(d[k], 0, "NUL at the fault");
				cr_assert_eq(
					t_first_not(d + k + 1, CANARY, SLACK),
					SLACK);
			} else {
				cr_assert_eq(r, count, "count %ld k %ld", count,
					     k);
				cr_assert_eq(d[count - 1], 0);
				cr_assert_eq(t_first_not_pat(d,
							     (size_t)count - 1,
							     T_PG - (size_t)k),
					     (size_t)count - 1);
				cr_assert_eq(
					t_first_not(d + count, CANARY, SLACK),
					SLACK);
			}
		}
	}
}

Test(nofault, copy_from_user_nofault)
{
	unsigned char d[64 + SLACK], pat[64];

	t_pat_fill(pat, 64, 3);
	t_poke(env.buf, pat, 64);
	ua_stats_reset();
	memset(d, CANARY, sizeof(d));
	cr_assert_eq(ua_copy_from_user_nofault(d, env.buf, 64), 0);
	cr_assert_eq(memcmp(d, pat, 64), 0);
	cr_assert_eq(t_first_not(d + 64, CANARY, SLACK), SLACK);
	t_assert_stats(2, 1, 0, "one window like a checked accessor");
	cr_assert_eq(ua_copy_from_user_nofault(d, env.buf, 0), 0);
	cr_assert_eq(ua_copy_from_user_nofault(d, ua_space_limit(env.sp), 0), 0,
		     "zero length at the limit");
}

Test(nofault, copy_from_user_nofault_limit)
{
	char *lim = t_map_last_page(&env);
	unsigned char d[16], pat[16];

	t_pat_fill(pat, sizeof(pat), 0);
	t_poke(lim - 16, pat, 16);
	cr_assert_eq(ua_copy_from_user_nofault(d, lim - 16, 16), 0,
		     "ends exactly at the limit");
	cr_assert_eq(memcmp(d, pat, 16), 0);
	memset(d, CANARY, sizeof(d));
	cr_assert_eq(ua_copy_from_user_nofault(d, lim - 15, 16), -EFAULT);
	cr_assert_eq(t_first_not(d, CANARY, sizeof(d)), sizeof(d));
}

Test(nofault, copy_from_user_nofault_every_offset)
{
	static unsigned char d[T_BIGLEN + SLACK], pat[T_PAGES * T_PG];

	t_pat_fill(pat, sizeof(pat), 0);
	t_poke(env.buf, pat, sizeof(pat));
	for (size_t len = 1; len <= T_BIGLEN;
	     len += (len < T_MAXLEN ? 1 : T_BIGLEN - T_MAXLEN)) {
		for (size_t k = 0; k <= len; k++) {
			const char *src = env.hole - k;

			memset(d, CANARY, len + SLACK);
			ua_stats_reset();
			cr_assert_eq(ua_copy_from_user_nofault(d, src, len),
				     k < len ? -EFAULT : 0, "len %zu k %zu",
				     len, k);
			t_assert_stats_faulted(2, 1, k < len);
			cr_assert_eq(
				t_first_not_pat(d, k, (size_t)(src - env.buf)),
				k);
			cr_assert_eq(
				t_first_not(d + k, CANARY, len - k + SLACK),
				len - k + SLACK, "no zero-fill");
		}
	}
}

Test(nofault, copy_from_user_nofault_bad_ranges)
{
	unsigned char d[32], m[32];
	char *lim = ua_space_limit(env.sp);

	memset(m, 0x66, sizeof(m));
	memset(d, CANARY, sizeof(d));
	ua_stats_reset();
	cr_assert_eq(ua_copy_from_user_nofault(d, m, sizeof(m)), -EFAULT,
		     "monitor pointer");
	cr_assert_eq(ua_copy_from_user_nofault(d, m, 0), -EFAULT,
		     "monitor pointer, size 0");
	cr_assert_eq(ua_copy_from_user_nofault(d, mhole, 8), -EFAULT);
	cr_assert_eq(ua_copy_from_user_nofault(d, lim - 4, 8), -EFAULT);
	cr_assert_eq(ua_copy_from_user_nofault(d, (void *)(UINTPTR_MAX - 3), 8),
		     -EFAULT);
	cr_assert_eq(ua_copy_from_user_nofault(d, env.buf, SIZE_MAX), -EFAULT);
	t_assert_stats(0, 0, 0);
	cr_assert_eq(t_first_not(d, CANARY, sizeof(d)), sizeof(d));
}

/* Inside an open window the interrupted code owns it: refuse, as NMI. */
Test(nofault, copy_from_user_nofault_inside_window)
{
	uint32_t v = 0;
	unsigned char d[8];

	t_fill(env.buf, 0x21, 8);
	cr_assert(ua_user_read_access_begin(env.buf, 8));
	ua_stats_reset();
	cr_assert_eq(ua_copy_from_user_nofault(d, env.buf, 8), -EFAULT);
	t_assert_stats(0, 0, 0);
	ua_unsafe_get_user(v, (uint32_t *)env.buf, fault);
	ua_user_read_access_end();
	cr_assert_eq(v, 0x21212121);
	return;
fault:
	ua_user_read_access_end();
	cr_assert_fail("the window must still be open");
}

Test(nofault, errno_preserved)
{
	uint64_t v;

	v = 0;
	errno = 4321;
	cr_assert_eq(ua_get_kernel_nofault(v, (uint64_t *)mhole), -EFAULT);
	cr_assert_eq(errno, 4321);
	cr_assert_eq(ua_get_user(v, (uint64_t *)env.hole), -EFAULT);
	cr_assert_eq(errno, 4321);
	cr_assert_eq(v, 0);
}

/*
 * A real signal handler (a profiler's, say) reading monitor and guest
 * memory through the nofault paths and an unsafe accessor in a window.
 */
static struct {
	long kn_ok, kn_fault, kn_guest, un_ok, un_fault;
	uint64_t kval, uval, wval;
	int win_fault, calls;
	bool no_windows;
} hs;

static void handler(int sig)
{
	uint64_t v = 0;

	(void)sig;
	hs.calls++;
	hs.kn_ok = ua_get_kernel_nofault(hs.kval, (uint64_t *)mon);
	hs.kn_fault = ua_get_kernel_nofault(v, (uint64_t *)mhole);
	hs.kn_guest = ua_get_kernel_nofault(v, (uint64_t *)env.buf);
	hs.un_ok = ua_copy_from_user_nofault(&hs.uval, env.buf, 8);
	hs.un_fault = ua_copy_from_user_nofault(&v, env.hole - 4, 8);
	hs.win_fault = 0;
	/*
	 * Opening a window of its own would clobber one the interrupted
	 * code holds (there is no user_access_save/restore).
	 */
	if (hs.no_windows || !ua_user_read_access_begin(env.buf, 8))
		return;
	ua_unsafe_get_user(hs.wval, (uint64_t *)env.buf, fault);
	ua_user_read_access_end();
	if (!ua_user_read_access_begin(env.hole - 4, 8))
		return;
	ua_unsafe_get_user(v, (uint64_t *)(env.hole - 4), fault);
	ua_user_read_access_end();
	return;
fault:
	hs.win_fault++;
	ua_user_read_access_end();
}

Test(nofault, inside_a_signal_handler)
{
	struct sigaction sa = { .sa_handler = handler };
	uint64_t m, g = 0x1122334455667788ull;

	memcpy(&m, mon, 8);
	t_poke(env.buf, &g, 8);
	sigemptyset(&sa.sa_mask);
	cr_assert_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	ua_stats_reset();
	cr_assert_eq(raise(SIGUSR1), 0);
	cr_assert_eq(hs.calls, 1);
	cr_assert_eq(hs.kn_ok, 0);
	cr_assert_eq(hs.kval, m);
	cr_assert_eq(hs.kn_fault, -EFAULT);
	cr_assert_eq(hs.kn_guest, -ERANGE);
	cr_assert_eq(hs.un_ok, 0);
	cr_assert_eq(hs.uval, g);
	cr_assert_eq(hs.un_fault, -EFAULT);
	cr_assert_eq(hs.wval, g);
	cr_assert_eq(hs.win_fault, 1);
	/* 2 nofault user copies + 2 windows; 3 recovered faults. */
	t_assert_stats(8, 4, 3);
}

/* The handler interrupts an open window: its user copy is refused. */
Test(nofault, signal_handler_interrupting_a_window)
{
	struct sigaction sa = { .sa_handler = handler };
	uint64_t v = 0, g = 0x0a0b0c0d0e0f1011ull;

	t_poke(env.buf, &g, 8);
	sigemptyset(&sa.sa_mask);
	cr_assert_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	hs.no_windows = true;
	cr_assert(ua_user_read_access_begin(env.buf, 16));
	cr_assert_eq(raise(SIGUSR1), 0);
	/* The interrupted window is still usable. */
	ua_unsafe_get_user(v, (uint64_t *)env.buf, fault);
	ua_user_read_access_end();
	cr_assert_eq(v, g);
	cr_assert_eq(hs.calls, 1);
	cr_assert_eq(hs.kn_ok, 0, "monitor reads still work");
	cr_assert_eq(hs.un_ok, -EFAULT, "a user copy would steal the window");
	return;
fault:
	ua_user_read_access_end();
	cr_assert_fail("the window was lost");
}
