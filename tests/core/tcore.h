/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the core accessor suites.  The layout every suite uses (from
 * t_env_setup): a 1 MiB space, nothing mapped in its first 64 KiB, then
 * T_PAGES read-write pages at env.buf and an unmapped page at env.hole, so
 * an access that runs up to env.hole faults at an exact, known byte.
 */
#ifndef UA_TCORE_H
#define UA_TCORE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <criterion/criterion.h>

#include "tsupport.h"

#define T_PG 4096
#define T_PAGES 3

/* Longest run length of the every-offset loops, and the page-plus-one one. */
#define T_MAXLEN 256
#define T_BIGLEN (T_PG + 1)

/* A byte pattern that is never zero: strings and "non-zero" tests use it. */
static inline unsigned char t_pat(size_t i)
{
	return (unsigned char)(i % 251 + 1);
}

static inline void t_pat_fill(void *p, size_t n, size_t seed)
{
	for (size_t i = 0; i < n; i++)
		((unsigned char *)p)[i] = t_pat(i + seed);
}

/* Index of the first byte of p[0..n) that differs from c, or n. */
static inline size_t t_first_not(const void *p, int c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (((const unsigned char *)p)[i] != (unsigned char)c)
			return i;
	return n;
}

/* Index of the first byte where p and t_pat(seed + i) differ, or n. */
static inline size_t t_first_not_pat(const void *p, size_t n, size_t seed)
{
	for (size_t i = 0; i < n; i++)
		if (((const unsigned char *)p)[i] != t_pat(i + seed))
			return i;
	return n;
}

/*
 * Assert the calling thread's counters since the last ua_stats_reset().
 * The optional trailing arguments are a format and its values, appended
 * to each message.
 */
#define t_assert_stats(sw, win, fx, ...) \
	t__assert_stats(sw, win, fx, false, "" __VA_ARGS__)

/*
 * The same where a block copy faulted: how many faults one bulk copy takes
 * to find the exact byte belongs to the copy routine (a fast path may
 * fault, then finish byte by byte into the same fault), so only "none"
 * versus "at least one" is fixed.
 */
#define t_assert_stats_faulted(sw, win, faulted, ...) \
	t__assert_stats(sw, win, faulted, true, "" __VA_ARGS__)

#define t__assert_stats(sw, win, fx, any, fmt, ...)                     \
	do {                                                            \
		struct ua_stats __st;                                   \
		uint64_t __fx = (uint64_t)(fx);                         \
		ua_stats_get(&__st);                                    \
		cr_assert_eq(__st.switches, (uint64_t)(sw),             \
			     "switches %llu, expected %llu. " fmt,      \
			     (unsigned long long)__st.switches,         \
			     (unsigned long long)(sw), ##__VA_ARGS__);  \
		cr_assert_eq(__st.windows, (uint64_t)(win),             \
			     "windows %llu, expected %llu. " fmt,       \
			     (unsigned long long)__st.windows,          \
			     (unsigned long long)(win), ##__VA_ARGS__); \
		cr_assert((any) ? (__st.fixups != 0) == (__fx != 0) :   \
				  __st.fixups == __fx,                  \
			  "fixups %llu, expected %s%llu. " fmt,         \
			  (unsigned long long)__st.fixups,              \
			  (any) && __fx ? "at least " : "",             \
			  (unsigned long long)__fx, ##__VA_ARGS__);     \
	} while (0)

/*
 * A monitor page with no access at all: if an accessor ever dereferenced a
 * pointer into it, the fault would be recovered through the exception
 * table and counted in fixups, so "fixups == 0" proves it was never read.
 */
static inline void *t_noaccess_page(void)
{
	void *p =
		mmap(NULL, T_PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert_neq(p, MAP_FAILED);
	return p;
}

/* Map the last page of the space so a range can end exactly at the limit. */
static inline char *t_map_last_page(struct t_env *e)
{
	char *lim = ua_space_limit(e->sp);

	cr_assert_eq(ua_map(e->sp, lim - T_PG, T_PG, PROT_READ | PROT_WRITE),
		     lim - T_PG);
	return lim;
}

#endif
