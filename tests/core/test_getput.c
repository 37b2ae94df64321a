// SPDX-License-Identifier: MIT
/*
 * ua_get_user() / ua_put_user(): every size and several types, faults at
 * every byte offset of an access that crosses into an unmapped page, the
 * space's limits, and monitor pointers (rejected, never dereferenced).
 */
#include <errno.h>
#include <stdbool.h>

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

TestSuite(getput, .init = setup, .fini = teardown);

struct opaque;
enum colour { RED = 1, GREEN = 0x7fffffff };

/* Round-trip one value and check its bytes in guest memory. */
#define ROUNDTRIP(type, val)                                        \
	do {                                                        \
		typedef type __t;                                   \
		__t *__p = (__t *)(env.buf + 24);                   \
		__t __in = (val), __out;                            \
		unsigned char __g[sizeof(__t)];                     \
		memset(&__out, 0x5c, sizeof(__out));                \
		cr_assert_eq(ua_put_user(__in, __p), 0, #type);     \
		t_peek(__g, __p, sizeof(type));                     \
		cr_assert_eq(memcmp(__g, &__in, sizeof(type)), 0,   \
			     #type " bytes in guest memory");       \
		cr_assert_eq(ua_get_user(__out, __p), 0, #type);    \
		cr_assert(__out == __in, #type " value read back"); \
	} while (0)

Test(getput, roundtrip_every_type)
{
	int local;

	ROUNDTRIP(uint8_t, 0x5a);
	ROUNDTRIP(uint8_t, 0xff);
	ROUNDTRIP(int8_t, -128);
	ROUNDTRIP(int8_t, -1);
	ROUNDTRIP(char, 'q');
	ROUNDTRIP(unsigned char, 0x80);
	ROUNDTRIP(bool, true);
	ROUNDTRIP(uint16_t, 0x5a5b);
	ROUNDTRIP(int16_t, -32768);
	ROUNDTRIP(int16_t, -2);
	ROUNDTRIP(uint32_t, 0x5a5b5c5d);
	ROUNDTRIP(uint32_t, 0xffffffffu);
	ROUNDTRIP(int32_t, INT32_MIN);
	ROUNDTRIP(int32_t, -5);
	ROUNDTRIP(enum colour, GREEN);
	ROUNDTRIP(uint64_t, 0x5a5b5c5d6a6b6c6dull);
	ROUNDTRIP(uint64_t, UINT64_MAX);
	ROUNDTRIP(int64_t, INT64_MIN);
	ROUNDTRIP(int64_t, -3);
	ROUNDTRIP(long, -1234567890123L);
	ROUNDTRIP(unsigned long, 0x8000000000000001ul);
	ROUNDTRIP(void *, (void *)&local);
	ROUNDTRIP(const char *, "guest string pointer");
	ROUNDTRIP(struct opaque *, (struct opaque *)0xdeadbeef0ul);
	ROUNDTRIP(void *, NULL);
}

Test(getput, sign_and_zero_extension)
{
	int8_t s8;
	uint8_t u8;
	int16_t s16;
	int32_t s32;
	int64_t s64 = 0;
	uint64_t u64;

	t_fill(env.buf, 0xff, 8);
	cr_assert_eq(ua_get_user(s8, (int8_t *)env.buf), 0);
	cr_assert_eq(s8, -1);
	cr_assert_eq(ua_get_user(u8, (uint8_t *)env.buf), 0);
	cr_assert_eq(u8, 0xff);
	cr_assert_eq(ua_get_user(s16, (int16_t *)env.buf), 0);
	cr_assert_eq(s16, -1);
	cr_assert_eq(ua_get_user(s32, (int32_t *)env.buf), 0);
	cr_assert_eq(s32, -1);
	/* A narrow read into a wide lvalue converts the value, as C does. */
	cr_assert_eq(ua_get_user(s64, (int32_t *)env.buf), 0);
	cr_assert_eq(s64, -1);
	cr_assert_eq(ua_get_user(u64, (uint8_t *)env.buf), 0);
	cr_assert_eq(u64, 0xff);
	/* A put of a wide value truncates to the pointer's type. */
	u64 = 0x1122334455667788ull;
	cr_assert_eq(ua_put_user(u64, (uint16_t *)env.buf), 0);
	cr_assert_eq(ua_get_user(u64, (uint64_t *)env.buf), 0);
	cr_assert_eq(u64, 0xffffffffffff7788ull);
}

Test(getput, const_pointer_and_single_evaluation)
{
	const uint32_t *cp = (const uint32_t *)env.buf;
	uint32_t *p = (uint32_t *)env.buf;
	uint32_t out[3] = { 0 };
	int i = 0, n = 0;

	cr_assert_eq(ua_put_user(11, p + n++), 0);
	cr_assert_eq(ua_put_user(22 + n++, p + 1), 0);
	cr_assert_eq(n, 2, "ua_put_user evaluates each argument once");
	cr_assert_eq(ua_get_user(out[i++], cp++), 0);
	cr_assert_eq(ua_get_user(out[i++], cp++), 0);
	cr_assert_eq(i, 2, "ua_get_user evaluates each argument once");
	cr_assert_eq(cp, (const uint32_t *)env.buf + 2);
	cr_assert_eq(out[0], 11);
	cr_assert_eq(out[1], 23);
	cr_assert_eq(out[2], 0);
}

Test(getput, unaligned_success)
{
	unsigned char pat[64];

	t_pat_fill(pat, sizeof(pat), 0);
	t_poke(env.buf, pat, sizeof(pat));
	for (size_t off = 0; off < 16; off++) {
		uint64_t v64, e64;
		uint32_t v32, e32;
		uint16_t v16, e16;

		memcpy(&e64, pat + off, 8);
		memcpy(&e32, pat + off, 4);
		memcpy(&e16, pat + off, 2);
		cr_assert_eq(ua_get_user(v64, (uint64_t *)(env.buf + off)), 0);
		cr_assert_eq(v64, e64, "u64 at offset %zu", off);
		cr_assert_eq(ua_get_user(v32, (uint32_t *)(env.buf + off)), 0);
		cr_assert_eq(v32, e32, "u32 at offset %zu", off);
		cr_assert_eq(ua_get_user(v16, (uint16_t *)(env.buf + off)), 0);
		cr_assert_eq(v16, e16, "u16 at offset %zu", off);
	}
}

/*
 * An access of size sz at hole - k: it faults for every k < sz (the value
 * straddles the unmapped page or lies in it) and succeeds for k == sz.
 */
#define CROSSING(type)                                                        \
	do {                                                                  \
		for (size_t k = 0; k <= sizeof(type); k++) {                  \
			type *p = (type *)(env.hole - k);                     \
			type v = (type)0x5c5c5c5c5c5c5c5cull;                 \
			unsigned char g[8], pat[8];                           \
			bool ok = k == sizeof(type);                          \
			t_pat_fill(pat, 8, k);                                \
			t_poke(env.hole - 8, pat, 8);                         \
			cr_assert_eq(ua_get_user(v, p), ok ? 0 : -EFAULT,     \
				     #type " get at hole - %zu", k);          \
			if (!ok)                                              \
				cr_assert_eq(v, 0, "x is 0 after a fault");   \
			else                                                  \
				cr_assert_eq(memcmp(&v, pat + 8 - k, k), 0);  \
			cr_assert_eq(ua_put_user((type)-1, p),                \
				     ok ? 0 : -EFAULT,                        \
				     #type " put at hole - %zu", k);          \
			t_peek(g, env.hole - 8, 8);                           \
			cr_assert_eq(memcmp(g, pat, 8 - k), 0,                \
				     "bytes before the access untouched");    \
			if (ok)                                               \
				cr_assert_eq(t_first_not(g + 8 - k, 0xff, k), \
					     k);                              \
			else                                                  \
				cr_assert_eq(memcmp(g, pat, 8), 0,            \
					     "a failed put writes nothing");  \
		}                                                             \
	} while (0)

Test(getput, fault_at_every_offset)
{
	CROSSING(uint8_t);
	CROSSING(int16_t);
	CROSSING(uint32_t);
	CROSSING(int64_t);
	CROSSING(void *);
}

Test(getput, unmapped_inside_space)
{
	char *base = ua_space_base(env.sp);
	uint64_t v = 1;

	cr_assert_eq(ua_get_user(v, (uint64_t *)base), -EFAULT);
	cr_assert_eq(v, 0);
	cr_assert_eq(ua_put_user(v, (uint64_t *)base), -EFAULT);
	cr_assert_eq(ua_get_user(v, (uint64_t *)(env.buf - 8)), -EFAULT);
	cr_assert_eq(ua_put_user(v, (uint32_t *)(env.buf - 2)), -EFAULT);
}

Test(getput, limit)
{
	char *lim = t_map_last_page(&env);
	uint64_t v64 = 1;
	uint8_t v8 = 1;

	cr_assert_eq(ua_put_user(0x0102030405060708ull, (uint64_t *)(lim - 8)),
		     0, "ending exactly at the limit");
	cr_assert_eq(ua_get_user(v64, (uint64_t *)(lim - 8)), 0);
	cr_assert_eq(v64, 0x0102030405060708ull);
	cr_assert_eq(ua_put_user(9, (uint8_t *)(lim - 1)), 0);
	cr_assert_eq(ua_get_user(v8, (uint8_t *)(lim - 1)), 0);
	cr_assert_eq(v8, 9);
	/* One byte past the limit: refused by the range check. */
	ua_stats_reset();
	cr_assert_eq(ua_get_user(v64, (uint64_t *)(lim - 7)), -EFAULT);
	cr_assert_eq(v64, 0);
	cr_assert_eq(ua_put_user(v64, (uint64_t *)(lim - 7)), -EFAULT);
	cr_assert_eq(ua_get_user(v8, (uint8_t *)lim), -EFAULT);
	cr_assert_eq(v8, 0);
	cr_assert_eq(ua_put_user(v8, (uint8_t *)lim), -EFAULT);
	t_assert_stats(0, 0, 0, "nothing past the limit is opened");
	cr_assert_eq(ua_get_user(v64, (uint64_t *)(lim - 8)), 0);
	cr_assert_eq(v64, 0x0902030405060708ull, "bytes at the limit intact");
}

Test(getput, wrapping_and_below_base)
{
	char *base = ua_space_base(env.sp);
	uint64_t v = 1;
	uint16_t h = 1;

	ua_stats_reset();
	cr_assert_eq(ua_get_user(v, (uint64_t *)(UINTPTR_MAX - 3)), -EFAULT);
	cr_assert_eq(v, 0);
	cr_assert_eq(ua_put_user(v, (uint64_t *)(UINTPTR_MAX - 3)), -EFAULT);
	cr_assert_eq(ua_get_user(h, (uint16_t *)UINTPTR_MAX), -EFAULT);
	cr_assert_eq(h, 0);
	cr_assert_eq(ua_get_user(v, (uint64_t *)(base - 4)), -EFAULT);
	cr_assert_eq(ua_put_user(v, (uint64_t *)(base - 4)), -EFAULT);
	cr_assert_eq(ua_get_user(v, (uint64_t *)NULL), -EFAULT);
	cr_assert_eq(ua_put_user(v, (uint64_t *)NULL), -EFAULT);
	t_assert_stats(0, 0, 0);
}

Test(getput, monitor_pointer_rejected)
{
	uint64_t mon = 0x1122334455667788ull, v = 1;
	uint8_t mb = 0x77, b = 1;
	char *none = t_noaccess_page();

	ua_stats_reset();
	cr_assert_eq(ua_get_user(v, &mon), -EFAULT);
	cr_assert_eq(v, 0, "the monitor value is not read");
	cr_assert_eq(ua_put_user(0, &mon), -EFAULT);
	cr_assert_eq(mon, 0x1122334455667788ull, "monitor memory untouched");
	cr_assert_eq(ua_get_user(b, &mb), -EFAULT);
	cr_assert_eq(b, 0);
	cr_assert_eq(ua_put_user(0, &mb), -EFAULT);
	cr_assert_eq(mb, 0x77);
	cr_assert_eq(ua_get_user(v, (uint64_t *)none), -EFAULT);
	cr_assert_eq(ua_put_user(v, (uint32_t *)(none + 8)), -EFAULT);
	t_assert_stats(0, 0, 0, "rejected before any window or access");
	munmap(none, T_PG);
}

Test(getput, no_current_space)
{
	uint32_t v = 1;

	ua_space_use(NULL);
	ua_stats_reset();
	cr_assert_eq(ua_get_user(v, (uint32_t *)env.buf), -EFAULT);
	cr_assert_eq(v, 0);
	cr_assert_eq(ua_put_user(v, (uint32_t *)env.buf), -EFAULT);
	t_assert_stats(0, 0, 0);
	ua_space_use(env.sp);
	cr_assert_eq(ua_get_user(v, (uint32_t *)env.buf), 0);
}
