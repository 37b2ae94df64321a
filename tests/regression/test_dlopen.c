// SPDX-License-Identifier: MIT
/*
 * Per-object exception tables (doc/design.md §4.6): the inline accessors of a
 * module loaded with dlopen() are recovered through the module's own table,
 * which goes away with dlclose() and comes back with the next dlopen().
 * UA_TEST_MODULE names the module (set by meson).  Linked against the
 * shared libuaccess, as the module is: one copy of the library.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tsupport.h"
#include "tregress.h"

struct mod {
	void *h;
	int (*get_u64)(const uint64_t *uptr, uint64_t *out);
	int (*put_u32)(uint32_t *uptr, uint32_t v);
	int (*copy_in16)(void *dst, const void *uptr);
	int (*get_kernel)(const uint64_t *p, uint64_t *out);
	void (*extable)(const struct ua_extable_entry **start,
			const struct ua_extable_entry **end);
};

static struct t_env env;
static const uint64_t pattern = 0xfeedfacecafebeefULL;

static void *sym(void *h, const char *name)
{
	void *p = dlsym(h, name);

	cr_assert_not_null(p, "dlsym %s: %s", name, dlerror());
	return p;
}

static void mod_open(struct mod *m)
{
	const char *path = getenv("UA_TEST_MODULE");

	cr_assert_not_null(path, "UA_TEST_MODULE is not set");
	m->h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	cr_assert_not_null(m->h, "dlopen: %s", dlerror());
	*(void **)&m->get_u64 = sym(m->h, "uamod_get_u64");
	*(void **)&m->put_u32 = sym(m->h, "uamod_put_u32");
	*(void **)&m->copy_in16 = sym(m->h, "uamod_copy_in16");
	*(void **)&m->get_kernel = sym(m->h, "uamod_get_kernel");
	*(void **)&m->extable = sym(m->h, "uamod_extable");
}

static void mod_close(struct mod *m)
{
	cr_assert_eq(dlclose(m->h), 0, "dlclose: %s", dlerror());
	memset(m, 0, sizeof(*m));
}

static void setup(void)
{
	t_env_setup(&env, 1);
	t_poke(env.buf, &pattern, sizeof(pattern));
}

static void teardown(void)
{
	t_env_teardown(&env);
}

TestSuite(dlopen, .init = setup, .fini = teardown);

/* Every accessor of the module, faulting and not; exact results. */
static void exercise(const struct mod *m)
{
	struct ua_stats st;
	uint64_t v = 0, out[2] = { 1, 1 };
	uint32_t w = 0;

	ua_stats_reset();
	cr_assert_eq(m->get_u64((uint64_t *)env.buf, &v), 0);
	cr_assert_eq(v, pattern);
	v = 7;
	cr_assert_eq(m->get_u64((uint64_t *)env.hole, &v), -EFAULT);
	cr_assert_eq(v, 7);

	cr_assert_eq(m->put_u32((uint32_t *)(env.buf + 8), 0xa5a5a5a5u), 0);
	t_peek(&w, env.buf + 8, sizeof(w));
	cr_assert_eq(w, 0xa5a5a5a5u);
	cr_assert_eq(m->put_u32((uint32_t *)env.hole, 1), -EFAULT);

	cr_assert_eq(m->copy_in16(out, env.buf), 0);
	cr_assert_eq(out[0], pattern);
	cr_assert_eq(out[1], 0xa5a5a5a5u);
	/* The second 8-byte move faults: the first one's bytes stay. */
	memset(out, 0, sizeof(out));
	cr_assert_eq(m->copy_in16(out, env.hole - 8), -EFAULT);

	cr_assert_eq(m->get_kernel(&pattern, &v), 0);
	cr_assert_eq(v, pattern);
	cr_assert_eq(m->get_kernel((uint64_t *)T_BAD_ADDR, &v), -EFAULT);
	cr_assert_eq(m->get_kernel((uint64_t *)env.buf, &v), -ERANGE);

	ua_stats_get(&st);
	/* get_u64, put_u32, copy_in16 and the nofault read faulted once each. */
	cr_assert_eq(st.fixups, 4, "fixups %llu",
		     (unsigned long long)st.fixups);
}

Test(dlopen, faults_in_module_recovered)
{
	struct mod m;

	mod_open(&m);
	exercise(&m);
	mod_close(&m);
}

/* Absolute addresses of a table's instructions and fixups. */
static size_t decode(const struct mod *m, uintptr_t *insn, uintptr_t *fix,
		     size_t max)
{
	const struct ua_extable_entry *s, *e;
	size_t n = 0;

	m->extable(&s, &e);
	for (; s < e && n < max; s++, n++) {
		insn[n] = (uintptr_t)&s->insn + (intptr_t)s->insn;
		fix[n] = (uintptr_t)&s->fixup + (intptr_t)s->fixup;
	}
	return n;
}

Test(dlopen, table_registered_until_dlclose)
{
	uintptr_t insn[64], fix[64], got;
	struct mod m;
	size_t n;

	if (!UA_ARCH_HAS_INLINE_ACCESSORS)
		cr_skip_test("the portable arch emits no table entries");
	mod_open(&m);
	n = decode(&m, insn, fix, 64);
	/*
	 * get_u64: 1, put_u32: 1, copy_in16: 2 (two 8-byte moves); more
	 * when ua_get_kernel_nofault() is inline too.
	 */
	cr_assert_geq(n, 4, "module has %zu entries", n);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(ua_extable_search(insn[i], &got), UA_EX_TYPE_DEFAULT);
		cr_assert_eq(got, fix[i]);
	}
	mod_close(&m);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(ua_extable_search(insn[i], &got), 0,
			     "entry %zu still registered after dlclose", i);

	mod_open(&m);
	n = decode(&m, insn, fix, 64);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(ua_extable_search(insn[i], &got), UA_EX_TYPE_DEFAULT);
	exercise(&m);
	mod_close(&m);
}

/* More cycles than the registry has slots: unregistering frees them. */
Test(dlopen, many_dlopen_dlclose_cycles)
{
	struct mod m;
	uint64_t v;

	for (int i = 0; i < 300; i++) {
		mod_open(&m);
		v = 0;
		cr_assert_eq(m.get_u64((uint64_t *)env.hole, &v), -EFAULT,
			     "cycle %d", i);
		cr_assert_eq(m.get_u64((uint64_t *)env.buf, &v), 0);
		cr_assert_eq(v, pattern);
		mod_close(&m);
	}
}
