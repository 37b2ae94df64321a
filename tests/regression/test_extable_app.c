// SPDX-License-Identifier: MIT
/*
 * Inline accessors compiled into the application itself are recovered
 * through the application's own exception table.  Built twice by meson:
 * linked against libuaccess.a (the library's entries and the program's
 * share one section) and against libuaccess.so (two objects, two tables).
 * T_LINK_SHARED says which.
 */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tsupport.h"

static struct t_env env;

static void setup(void)
{
	static const char pat[16] = "0123456789abcdef";

	t_env_setup(&env, 1);
	t_poke(env.buf, pat, sizeof(pat));
}

static void teardown(void)
{
	t_env_teardown(&env);
}

TestSuite(app_extable, .init = setup, .fini = teardown);

Test(app_extable, linked_as_intended)
{
	Dl_info di;

	cr_assert_neq(dladdr((void *)ua_extable_search, &di), 0);
	if (T_LINK_SHARED)
		cr_assert_not_null(strstr(di.dli_fname, "libuaccess.so"),
				   "library code in %s", di.dli_fname);
	else
		cr_assert_null(strstr(di.dli_fname, "libuaccess"),
			       "library code in %s", di.dli_fname);
}

static __attribute__((noinline)) int read_u16(const uint16_t *p, uint16_t *out)
{
	uint16_t v;

	ua_scoped_user_read_access(p, efault) {
		ua_unsafe_get_user(v, p, efault);
		*out = v;
	}
	return 0;
efault:
	return -EFAULT;
}

static __attribute__((noinline)) int write_u64(uint64_t *p, uint64_t v)
{
	if (!ua_user_write_access_begin(p, sizeof(*p)))
		return -EFAULT;
	ua_unsafe_put_user(v, p, efault);
	ua_user_write_access_end();
	return 0;
efault:
	ua_user_write_access_end();
	return -EFAULT;
}

static __attribute__((noinline)) int copy_in(char *dst, const char *uptr)
{
	/* A constant 7 bytes: 4 + 2 + 1 inline moves. */
	ua_scoped_user_read_access_size(uptr, 7, efault) {
		ua_unsafe_copy_from_user(dst, uptr, 7, efault);
	}
	return 0;
efault:
	return -EFAULT;
}

Test(app_extable, inline_faults_recovered)
{
	struct ua_stats st;
	uint16_t h = 0;
	char s[8] = { 0 };
	uint64_t q = 0;

	ua_stats_reset();
	cr_assert_eq(read_u16((uint16_t *)env.buf, &h), 0);
	cr_assert_eq(h, '0' | '1' << 8);
	cr_assert_eq(read_u16((uint16_t *)env.hole, &h), -EFAULT);
	cr_assert_eq(write_u64((uint64_t *)(env.buf + 16), 42), 0);
	t_peek(&q, env.buf + 16, sizeof(q));
	cr_assert_eq(q, 42);
	cr_assert_eq(write_u64((uint64_t *)env.hole, 1), -EFAULT);
	cr_assert_eq(copy_in(s, env.buf + 3), 0);
	cr_assert_str_eq(s, "3456789");
	/* The 2-byte move faults; the 4 bytes before it were copied. */
	memset(s, 0, sizeof(s));
	t_poke(env.hole - 4, "WXYZ", 4);
	cr_assert_eq(copy_in(s, env.hole - 4), -EFAULT);
	cr_assert_str_eq(s, "WXYZ");
	/* The library's own table, alongside: an out-of-line copy. */
	cr_assert_eq(ua_copy_from_user(s, env.hole - 2, 4), 2);
	ua_stats_get(&st);
	cr_assert_eq(st.fixups, 4, "fixups %llu",
		     (unsigned long long)st.fixups);
}

Test(app_extable, own_entries_registered)
{
	const struct ua_extable_entry *e = __start_ua_extable;
	uintptr_t fix;
	size_t n = 0;

	if (!UA_ARCH_HAS_INLINE_ACCESSORS)
		cr_skip_test("the portable arch emits no table entries");
	cr_assert_not_null(e, "the program has no ua_extable section");
	for (; e < __stop_ua_extable; e++, n++) {
		uintptr_t insn = (uintptr_t)&e->insn + (intptr_t)e->insn;

		cr_assert_eq(ua_extable_search(insn, &fix), UA_EX_TYPE_DEFAULT);
		cr_assert_eq(fix, (uintptr_t)&e->fixup + (intptr_t)e->fixup);
	}
	/*
	 * This file emits 1 + 1 + 3 entries (the three functions are not
	 * inlined, so each body exists once); statically linked, the
	 * library's own (copy.S and its inline uses) join them.
	 */
	if (T_LINK_SHARED)
		cr_assert_eq(n, 5, "%zu entries", n);
	else
		cr_assert_gt(n, 5, "%zu entries", n);
	/* An address near them but not an entry is not found. */
	cr_assert_eq(ua_extable_search((uintptr_t)__start_ua_extable, &fix), 0);
}
