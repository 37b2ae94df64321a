// SPDX-License-Identifier: MIT
/*
 * Backend details under each backend: the backend in force follows
 * UA_PROTECT; mappings made or removed while a window is open or in guest
 * mode get that mode's protection; adjacent mappings of different
 * protection each keep their own; the protection-key budget (ENOSPC with
 * a message, keys returned on destroy); PKRU is monitor state (guest-mode
 * changes to it do not survive the next lock).
 */
#include "tprotect.h"

static struct t_env env;

static void setup(void)
{
	t_env_setup(&env, 1);
	ua_stats_reset();
}

static void teardown(void)
{
	t_env_teardown(&env);
}

TestSuite(backend, .init = setup, .fini = teardown);

#define RW (PROT_READ | PROT_WRITE)

Test(backend, backend_in_force_follows_UA_PROTECT)
{
	const char *want = getenv("UA_PROTECT");

	cr_assert_not_null(want);
	cr_assert_str_eq(ua_protect_name(ua_space_protect(env.sp)), want);
}

/* Four adjacent pages: rw, r, rw, none; then each mode. */
Test(backend, adjacent_mappings_keep_their_own_protection)
{
	static const int prots[4] = { RW, PROT_READ, RW, PROT_NONE };
	static const enum t_mode modes[] = { T_LOCKED, T_READWIN, T_WRITEWIN,
					     T_RWWIN, T_GUEST };
	char *base = (char *)ua_space_base(env.sp) + 32 * T_PG;

	for (int i = 0; i < 4; i++)
		cr_assert_eq(ua_map(env.sp, base + i * T_PG, T_PG, prots[i]),
			     base + i * T_PG);
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		bool ok = true;

		switch (modes[m]) {
		case T_READWIN:
			ok = ua_user_read_access_begin(base, 1);
			break;
		case T_WRITEWIN:
			ok = ua_user_write_access_begin(base, 1);
			break;
		case T_RWWIN:
			ok = ua_user_access_begin(base, 1);
			break;
		case T_GUEST:
			ua_protect_unlock(env.sp);
			break;
		default:
			break;
		}
		cr_assert(ok);
		for (int i = 0; i < 4; i++)
			t_assert_probe(base + i * T_PG + 17,
				       t_expect(env.sp, modes[m], prots[i]),
				       "mode %d, page %d", modes[m], i);
		switch (modes[m]) {
		case T_READWIN:
			ua_user_read_access_end();
			break;
		case T_WRITEWIN:
			ua_user_write_access_end();
			break;
		case T_RWWIN:
			ua_user_access_end();
			break;
		case T_GUEST:
			ua_protect_lock(env.sp);
			break;
		default:
			break;
		}
		for (int i = 0; i < 4; i++)
			t_assert_probe(base + i * T_PG + 17,
				       t_expect(env.sp, T_LOCKED, prots[i]),
				       "after mode %d, page %d", modes[m], i);
	}
}

/* A mapping made inside a window gets the window's protection, then locks. */
Test(backend, map_inside_a_window)
{
	char *p;

	cr_assert(ua_user_read_access_begin(env.buf, 8));
	p = ua_map(env.sp, NULL, T_PG, RW);
	cr_assert_not_null(p);
	t_assert_probe(p, t_expect(env.sp, T_READWIN, RW));
	ua_user_read_access_end();
	t_assert_probe(p, t_expect(env.sp, T_LOCKED, RW));
	cr_assert(ua_user_write_access_begin(env.buf, 8));
	t_assert_probe(p, t_expect(env.sp, T_WRITEWIN, RW));
	cr_assert_eq(ua_unmap(env.sp, p, T_PG), 0);
	t_assert_probe(p, 0, "unmapped inside the window");
	ua_user_write_access_end();
	t_assert_probe(env.buf, t_expect(env.sp, T_LOCKED, RW));
}

Test(backend, map_in_guest_mode)
{
	char *p;

	ua_protect_unlock(env.sp);
	p = ua_map(env.sp, NULL, T_PG, PROT_READ);
	cr_assert_not_null(p);
	t_assert_probe(p, T_R);
	ua_protect_lock(env.sp);
	t_assert_probe(p, t_expect(env.sp, T_LOCKED, PROT_READ));
}

/*
 * Every pkey space holds a key: ENOSPC, with a message, when none is
 * left, and destroying spaces gives them back.  The other backends have
 * no such limit.
 */
#define MAX_TRY 40

Test(backend, key_budget)
{
	struct ua_space *sp[MAX_TRY];
	struct t_capture cap;
	const char *msg;
	int n = 0, err = 0;

	t_capture_begin(&cap);
	for (; n < MAX_TRY; n++) {
		errno = 0;
		sp[n] = ua_space_create(1 << 16, NULL);
		if (!sp[n]) {
			err = errno;
			break;
		}
	}
	msg = t_capture_end(&cap);
	if (!t_is(env.sp, UA_PROTECT_PKEY)) {
		cr_assert_eq(n, MAX_TRY, "no key budget under %s",
			     ua_protect_name(ua_space_protect(env.sp)));
		cr_assert_eq(msg[0], 0, "%s", msg);
	} else {
		/* x86 has 15 keys for user space; env.sp holds one. */
		cr_assert(n >= 1 && n <= 14, "%d pkey spaces", n);
		cr_assert_eq(err, ENOSPC);
		cr_assert_not_null(strstr(msg,
					  "uaccess: no protection key left "
					  "for a new pkey space"),
				   "%s", msg);
		cr_assert_not_null(strstr(msg, "UA_PROTECT_MPROTECT"), "%s",
				   msg);
	}
	for (int i = 0; i < n; i++)
		ua_space_destroy(sp[i]);
	/* The keys came back: as many spaces again. */
	for (int i = 0; i < n; i++) {
		sp[i] = ua_space_create(1 << 16, NULL);
		cr_assert_not_null(sp[i], "space %d of %d after destroy", i, n);
		char *p = ua_map(sp[i], NULL, T_PG, RW);

		cr_assert_not_null(p);
		t_assert_probe(p, t_expect(sp[i], T_LOCKED, RW), "space %d", i);
	}
	for (int i = 0; i < n; i++)
		ua_space_destroy(sp[i]);
}

/* A space made where a destroyed one was starts locked all the same. */
Test(backend, recreated_space_is_locked)
{
	for (int i = 0; i < 20; i++) {
		struct ua_space *sp = ua_space_create(1 << 16, NULL);
		char *p;

		cr_assert_not_null(sp);
		p = ua_map(sp, NULL, T_PG, RW);
		cr_assert_not_null(p);
		t_assert_probe(p, t_expect(sp, T_LOCKED, RW), "round %d", i);
		ua_protect_unlock(sp);
		t_assert_probe(p, T_RW, "round %d", i);
		ua_protect_lock(sp);
		ua_space_destroy(sp);
	}
}

#if defined(__x86_64__)
static uint32_t rdpkru(void)
{
	uint32_t eax, edx;

	asm volatile(".byte 0x0f, 0x01, 0xee" : "=a"(eax), "=d"(edx) : "c"(0));
	return eax;
}

static void wrpkru(uint32_t v)
{
	asm volatile(".byte 0x0f, 0x01, 0xef"
		     :
		     : "a"(v), "c"(0), "d"(0)
		     : "memory");
}
#endif

/*
 * PKRU is monitor state: guest code that opens every key (another space
 * included) loses that at the next lock, which restores the monitor's
 * PKRU as it was at the unlock.
 */
Test(backend, pkey_guest_changes_to_pkru_do_not_survive_lock)
{
#if defined(__x86_64__)
	struct ua_space *other;
	uint32_t before;
	char *o;

	if (!t_is(env.sp, UA_PROTECT_PKEY))
		cr_skip_test("pkey only: PKRU is the pkey backend's state");
	other = ua_space_create(1 << 16, NULL);
	cr_assert_not_null(other);
	o = ua_map(other, NULL, T_PG, RW);
	cr_assert_not_null(o);
	t_assert_probe(o, 0);
	before = rdpkru();
	ua_protect_unlock(env.sp);
	cr_assert_neq(rdpkru(), before, "the space's key was opened");
	wrpkru(0);
	t_assert_probe(o, T_RW, "guest code opened every key");
	ua_protect_lock(env.sp);
	cr_assert_eq(rdpkru(), before);
	t_assert_probe(o, 0, "the other space is locked again");
	t_assert_probe(env.buf, 0);
	ua_space_destroy(other);
#else
	cr_skip_test("protection keys are x86-64 only here");
#endif
}

/* A read window on a pkey space sets exactly that key's write-disable. */
Test(backend, pkey_pkru_bits_per_mode)
{
#if defined(__x86_64__)
	uint32_t locked, k;

	if (!t_is(env.sp, UA_PROTECT_PKEY))
		cr_skip_test("pkey only: PKRU is the pkey backend's state");
	locked = rdpkru();
	ua_protect_unlock(env.sp);
	k = locked ^ rdpkru(); /* the key's two bits, both set when locked */
	ua_protect_lock(env.sp);
	cr_assert(k && __builtin_ctz(k) % 2 == 0 && k == 3u << __builtin_ctz(k),
		  "one key's AD and WD bits: PKRU %#x vs %#x", locked,
		  locked ^ k);
	cr_assert_eq(locked & k, k, "locked = access- and write-disable");
	cr_assert(ua_user_read_access_begin(env.buf, 1));
	cr_assert_eq(rdpkru(), locked & ~(k & 0x55555555u),
		     "read window = write-disable only");
	ua_user_read_access_end();
	cr_assert_eq(rdpkru(), locked);
	cr_assert(ua_user_write_access_begin(env.buf, 1));
	cr_assert_eq(rdpkru(), locked & ~k, "write window = both clear");
	ua_user_write_access_end();
	cr_assert(ua_user_access_begin(env.buf, 1));
	cr_assert_eq(rdpkru(), locked & ~k, "rw window = both clear");
	ua_user_access_end();
	cr_assert_eq(rdpkru(), locked);
#else
	cr_skip_test("protection keys are x86-64 only here");
#endif
}
