// SPDX-License-Identifier: MIT
/*
 * Choosing a backend: ua_space_opts.protect, and UA_PROTECT for
 * UA_PROTECT_AUTO.  Unknown values fail with EINVAL and a message naming
 * the accepted ones; an explicit request that cannot be met fails with
 * EOPNOTSUPP and says why, never downgrading.  Runs once (it sets
 * UA_PROTECT itself); where protection keys exist, the pkey cases check
 * that pkey is used instead.
 */
#include "tprotect.h"

TestSuite(select);

static bool have_pkey(const char **why)
{
	return ua_protect_available(UA_PROTECT_PKEY, why);
}

/* Create with opts and UA_PROTECT=env (NULL: unset); capture stderr. */
static struct ua_space *create(enum ua_protect p, const char *env, int *err,
			       struct t_capture *cap)
{
	struct ua_space_opts o = { .protect = p };
	struct ua_space *sp;

	if (env)
		setenv("UA_PROTECT", env, 1);
	else
		unsetenv("UA_PROTECT");
	t_capture_begin(cap);
	errno = 0;
	sp = ua_space_create(1 << 16, &o);
	*err = errno;
	t_capture_end(cap);
	return sp;
}

static void expect_backend(enum ua_protect p, const char *env,
			   enum ua_protect want)
{
	struct t_capture cap;
	struct ua_space *sp;
	int err;

	sp = create(p, env, &err, &cap);
	cr_assert_not_null(sp, "protect=%d UA_PROTECT=%s: errno %d, %s", p,
			   env ? env : "(unset)", err, cap.text);
	cr_assert_eq(ua_space_protect(sp), want, "protect=%d UA_PROTECT=%s", p,
		     env ? env : "(unset)");
	cr_assert_eq(cap.text[0], 0, "no message: %s", cap.text);
	ua_space_destroy(sp);
}

Test(select, explicit_requests)
{
	expect_backend(UA_PROTECT_NONE, NULL, UA_PROTECT_NONE);
	expect_backend(UA_PROTECT_MPROTECT, NULL, UA_PROTECT_MPROTECT);
	/* An explicit request wins over the environment, even a bad one. */
	expect_backend(UA_PROTECT_NONE, "mprotect", UA_PROTECT_NONE);
	expect_backend(UA_PROTECT_MPROTECT, "none", UA_PROTECT_MPROTECT);
	expect_backend(UA_PROTECT_MPROTECT, "bogus", UA_PROTECT_MPROTECT);
}

Test(select, environment_for_auto)
{
	enum ua_protect best =
		have_pkey(NULL) ? UA_PROTECT_PKEY : UA_PROTECT_MPROTECT;

	expect_backend(UA_PROTECT_AUTO, "none", UA_PROTECT_NONE);
	expect_backend(UA_PROTECT_AUTO, "mprotect", UA_PROTECT_MPROTECT);
	expect_backend(UA_PROTECT_AUTO, NULL, best);
	expect_backend(UA_PROTECT_AUTO, "", best);
	expect_backend(UA_PROTECT_AUTO, "auto", best);
}

Test(select, null_opts_is_auto)
{
	struct ua_space *sp;

	setenv("UA_PROTECT", "none", 1);
	sp = ua_space_create(4096, NULL);
	cr_assert_not_null(sp);
	cr_assert_eq(ua_space_protect(sp), UA_PROTECT_NONE);
	ua_space_destroy(sp);
}

static void expect_bad_env(const char *value)
{
	struct t_capture cap;
	char want[128];
	int err;

	cr_assert_null(create(UA_PROTECT_AUTO, value, &err, &cap), "%s", value);
	cr_assert_eq(err, EINVAL, "UA_PROTECT=%s", value);
	snprintf(want, sizeof(want),
		 "uaccess: UA_PROTECT='%s' is not one of: auto, none, "
		 "mprotect, pkey\n",
		 value);
	cr_assert_str_eq(cap.text, want);
}

Test(select, unknown_UA_PROTECT_is_einval_naming_the_values)
{
	expect_bad_env("bogus");
	expect_bad_env("PKEY");
	expect_bad_env("mprotect ");
	expect_bad_env("none,pkey");
}

Test(select, unknown_opts_value_is_einval)
{
	struct t_capture cap;
	int err;

	cr_assert_null(create((enum ua_protect)4, NULL, &err, &cap));
	cr_assert_eq(err, EINVAL);
	cr_assert_null(create((enum ua_protect) - 1, NULL, &err, &cap));
	cr_assert_eq(err, EINVAL);
}

static void expect_pkey_request(enum ua_protect p, const char *env)
{
	struct t_capture cap;
	struct ua_space *sp;
	const char *why;
	char want[256];
	int err;

	if (have_pkey(&why)) {
		expect_backend(p, env, UA_PROTECT_PKEY);
		return;
	}
	sp = create(p, env, &err, &cap);
	cr_assert_null(sp, "never a silent downgrade");
	cr_assert_eq(err, EOPNOTSUPP);
	cr_assert_not_null(why);
	snprintf(want, sizeof(want),
		 "uaccess: protection backend 'pkey' requested but not "
		 "available: %s\n",
		 why);
	cr_assert_str_eq(cap.text, want);
}

Test(select, pkey_where_there_are_no_keys)
{
	expect_pkey_request(UA_PROTECT_PKEY, NULL);
	expect_pkey_request(UA_PROTECT_PKEY, "none");
	expect_pkey_request(UA_PROTECT_AUTO, "pkey");
}

Test(select, availability)
{
	const char *why = "unset";
	bool pk;

	cr_assert(ua_protect_available(UA_PROTECT_NONE, &why));
	cr_assert_null(why);
	cr_assert(ua_protect_available(UA_PROTECT_MPROTECT, &why));
	cr_assert_null(why);
	cr_assert_not(ua_protect_available(UA_PROTECT_AUTO, &why));
	cr_assert_not_null(why);
	pk = ua_protect_available(UA_PROTECT_PKEY, &why);
	cr_assert_eq(pk, why == NULL, "a reason exactly when unavailable");
	cr_assert_eq(ua_protect_available(UA_PROTECT_PKEY, NULL), pk);
	cr_assert_str_eq(ua_protect_name(UA_PROTECT_AUTO), "auto");
	cr_assert_str_eq(ua_protect_name(UA_PROTECT_NONE), "none");
	cr_assert_str_eq(ua_protect_name(UA_PROTECT_MPROTECT), "mprotect");
	cr_assert_str_eq(ua_protect_name(UA_PROTECT_PKEY), "pkey");
}
