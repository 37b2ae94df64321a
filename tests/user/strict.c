// SPDX-License-Identifier: MIT
/*
 * Every public macro and inline of <uaccess.h>, used the way a program
 * built with its own flags uses them: fields of every scalar type of a
 * guest struct (integers, pointers, float, double, an 8-byte struct),
 * struct copies of constant and variable size, the scoped windows, the
 * nofault read.  tools/check-headers compiles it with -Wall -Wextra -O2 -Werror and
 * strict aliasing (no -fno-strict-aliasing), with GCC and Clang, with
 * and without the window checks; then runs it.  The values must come back
 * bit for bit: a double read through ua_get_user is the stored double,
 * not its bits converted to a number.
 *
 * Prints "strict: N checks passed" and exits 0, or names the first
 * failure and exits 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uaccess.h>

static int checks;

#define CHECK(cond)                                                        \
	do {                                                               \
		checks++;                                                  \
		if (!(cond)) {                                             \
			fprintf(stderr, "strict: %s:%d: check failed: %s\n", \
				__FILE__, __LINE__, #cond);                \
			exit(1);                                           \
		}                                                          \
	} while (0)

struct pair {
	int32_t a, b;
};

struct rec {
	struct pair pr;
	double d;
	float f;
	int32_t i;
	int64_t l;
	void *p;
	const char *s;
	uint16_t h;
	int8_t c;
	unsigned char uc;
};

/* Same bytes: compares NaN payloads and -0.0 exactly. */
#define SAME(a, b) (memcmp(&(a), &(b), sizeof(a)) == 0)

static const struct rec model = {
	.pr = { -1, 0x7eadbeef },
	.d = -1.0e300,
	.f = 3.25f,
	.i = -123456,
	.l = -0x123456789abLL,
	.p = (void *)&checks,
	.s = "string",
	.h = 0xbeef,
	.c = -7,
	.uc = 0xfe,
};

/* The checked accessors, one call per field each way. */
static void checked(struct rec *u)
{
	struct rec k;
	double nz = -0.0;

	memset(&k, 0, sizeof(k));
	CHECK(ua_put_user(model.pr, &u->pr) == 0);
	CHECK(ua_put_user(model.d, &u->d) == 0);
	CHECK(ua_put_user(model.f, &u->f) == 0);
	CHECK(ua_put_user(model.i, &u->i) == 0);
	CHECK(ua_put_user(model.l, &u->l) == 0);
	CHECK(ua_put_user(model.p, &u->p) == 0);
	CHECK(ua_put_user(model.s, &u->s) == 0);
	CHECK(ua_put_user(model.h, &u->h) == 0);
	CHECK(ua_put_user(model.c, &u->c) == 0);
	CHECK(ua_put_user(model.uc, &u->uc) == 0);
	CHECK(ua_get_user(k.pr, &u->pr) == 0 && SAME(k.pr, model.pr));
	CHECK(ua_get_user(k.d, &u->d) == 0 && SAME(k.d, model.d));
	CHECK(ua_get_user(k.f, &u->f) == 0 && SAME(k.f, model.f));
	CHECK(ua_get_user(k.i, &u->i) == 0 && k.i == model.i);
	CHECK(ua_get_user(k.l, &u->l) == 0 && k.l == model.l);
	CHECK(ua_get_user(k.p, &u->p) == 0 && k.p == model.p);
	CHECK(ua_get_user(k.s, &u->s) == 0 && k.s == model.s);
	CHECK(ua_get_user(k.h, &u->h) == 0 && k.h == model.h);
	CHECK(ua_get_user(k.c, &u->c) == 0 && k.c == model.c);
	CHECK(ua_get_user(k.uc, &u->uc) == 0 && k.uc == model.uc);
	/* A value of another type is converted to the field's type first. */
	CHECK(ua_put_user(2, &u->d) == 0);
	CHECK(ua_get_user(k.d, &u->d) == 0 && k.d == 2.0);
	CHECK(ua_put_user(nz, &u->d) == 0);
	CHECK(ua_get_user(k.d, &u->d) == 0 && SAME(k.d, nz));
	/* Into a variable of another type: the field's value, converted. */
	{
		long asl = 0;

		CHECK(ua_get_user(asl, &u->d) == 0 && asl == 0);
		CHECK(ua_put_user(7.75, &u->d) == 0);
		CHECK(ua_get_user(asl, &u->d) == 0 && asl == 7);
	}
	CHECK(ua_copy_to_user(u, &model, sizeof(model)) == 0);
	CHECK(ua_copy_from_user(&k, u, sizeof(k)) == 0 && SAME(k, model));
}

/* The unsafe accessors in an explicit window, every field each way. */
static int unsafe_rw(struct rec *u, struct rec *k)
{
	if (!ua_user_access_begin(u, sizeof(*u)))
		return -EFAULT;
	ua_unsafe_put_user(model.pr, &u->pr, efault);
	ua_unsafe_put_user(model.d, &u->d, efault);
	ua_unsafe_put_user(model.f, &u->f, efault);
	ua_unsafe_put_user(model.i, &u->i, efault);
	ua_unsafe_put_user(model.l, &u->l, efault);
	ua_unsafe_put_user(model.p, &u->p, efault);
	ua_unsafe_put_user(model.s, &u->s, efault);
	ua_unsafe_put_user(model.h, &u->h, efault);
	ua_unsafe_put_user(model.c, &u->c, efault);
	ua_unsafe_put_user(model.uc, &u->uc, efault);
	ua_unsafe_get_user(k->pr, &u->pr, efault);
	ua_unsafe_get_user(k->d, &u->d, efault);
	ua_unsafe_get_user(k->f, &u->f, efault);
	ua_unsafe_get_user(k->i, &u->i, efault);
	ua_unsafe_get_user(k->l, &u->l, efault);
	ua_unsafe_get_user(k->p, &u->p, efault);
	ua_unsafe_get_user(k->s, &u->s, efault);
	ua_unsafe_get_user(k->h, &u->h, efault);
	ua_unsafe_get_user(k->c, &u->c, efault);
	ua_unsafe_get_user(k->uc, &u->uc, efault);
	ua_unsafe_op_wrap(0, efault);
	ua_user_access_end();
	return 0;
efault:
	ua_user_access_end();
	return -EFAULT;
}

/* Constant-size copies (inline moves) and a variable-size one. */
static int unsafe_copies(struct rec *u, struct rec *k, size_t n)
{
	if (!ua_user_write_access_begin(u, sizeof(*u)))
		return -EFAULT;
	ua_unsafe_copy_to_user(u, &model, sizeof(model), wfault);
	ua_user_write_access_end();

	if (!ua_user_read_access_begin(u, sizeof(*u)))
		return -EFAULT;
	ua_unsafe_copy_from_user(k, u, sizeof(*k), rfault);
	ua_unsafe_copy_from_user(&k->f, &u->f, sizeof(k->f), rfault);
	ua_unsafe_copy_from_user((char *)k + 3, (char *)u + 3, 13, rfault);
	ua_unsafe_copy_from_user(k, u, n, rfault);
	ua_user_read_access_end();
	return 0;
wfault:
	ua_user_write_access_end();
	return -EFAULT;
rfault:
	ua_user_read_access_end();
	return -EFAULT;
}

/* Every scoped form. */
static int scoped(struct rec *u, struct rec *k)
{
	ua_scoped_user_write_access(&u->d, efault)
		ua_unsafe_put_user(model.d, &u->d, efault);
	ua_scoped_user_read_access(&u->d, efault)
		ua_unsafe_get_user(k->d, &u->d, efault);
	ua_scoped_user_rw_access(&u->f, efault) {
		ua_unsafe_put_user(model.f, &u->f, efault);
		ua_unsafe_get_user(k->f, &u->f, efault);
	}
	ua_scoped_user_write_access_size(u, sizeof(*u), efault)
		ua_unsafe_put_user(model.p, &u->p, efault);
	ua_scoped_user_read_access_size(u, sizeof(*u), efault)
		ua_unsafe_get_user(k->p, &u->p, efault);
	ua_scoped_user_rw_access_size(u, sizeof(*u), efault) {
		ua_unsafe_put_user(model.h, &u->h, efault);
		ua_unsafe_get_user(k->h, &u->h, efault);
	}
	return 0;
efault:
	return -EFAULT;
}

static void nofault_and_iter(struct rec *u)
{
	struct rec k;
	struct ua_iov_iter it;
	double d = 0;
	const char *s = NULL;
	float f = 0;

	memset(&k, 0, sizeof(k));
	CHECK(ua_get_kernel_nofault(d, &model.d) == 0 && SAME(d, model.d));
	CHECK(ua_get_kernel_nofault(f, &model.f) == 0 && SAME(f, model.f));
	CHECK(ua_get_kernel_nofault(s, &model.s) == 0 && s == model.s);
	CHECK(ua_get_kernel_nofault(k.pr, &model.pr) == 0 &&
	      SAME(k.pr, model.pr));
	CHECK(ua_get_kernel_nofault(k.d, &u->d) == -ERANGE);

	CHECK(ua_iov_iter_ubuf(&it, UA_ITER_DEST, u, sizeof(*u)) == 0);
	CHECK(ua_iov_iter_count(&it) == sizeof(*u));
	CHECK(ua_copy_to_iter(&model, sizeof(model), &it) == sizeof(model));
	CHECK(ua_iov_iter_count(&it) == 0);
	ua_iov_iter_release(&it);
	CHECK(ua_copy_from_user(&k, u, sizeof(k)) == 0 && SAME(k, model));
}

int main(void)
{
	struct ua_space *sp;
	struct rec k, *u;
	struct ua_space_opts o = { .protect = UA_PROTECT_MPROTECT };

	if (ua_likely(ua_init() != 0))
		return 1;
	sp = ua_space_create(1 << 20, &o);
	CHECK(sp != NULL);
	ua_space_use(sp);
	u = ua_map(sp, NULL, 4096, PROT_READ | PROT_WRITE);
	CHECK(u != NULL);

	checked(u);

	memset(&k, 0, sizeof(k));
	CHECK(unsafe_rw(u, &k) == 0 && SAME(k, model));

	memset(&k, 0, sizeof(k));
	CHECK(unsafe_copies(u, &k, sizeof(k) - 1) == 0 && SAME(k, model));

	memset(&k, 0, sizeof(k));
	CHECK(scoped(u, &k) == 0);
	CHECK(SAME(k.d, model.d) && SAME(k.f, model.f) && k.p == model.p &&
	      k.h == model.h);

	nofault_and_iter(u);

	/* Out of range: refused, nothing opened. */
	CHECK(unsafe_rw(u + 4096, &k) == -EFAULT);
	CHECK(scoped((struct rec *)&k, &k) == -EFAULT);

	ua_space_use(NULL);
	ua_space_destroy(sp);
	printf("strict: %d checks passed\n", checks);
	return 0;
}
