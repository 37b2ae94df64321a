// SPDX-License-Identifier: MIT
/*
 * usercopy: the price of touching guest memory through the library.
 *
 * For each size, three methods side by side: "checked" (one call, one
 * window each: ua_copy_from_user, ua_copy_to_user, ua_get_user,
 * ua_put_user), "window" (--batch operations of ua_unsafe_* inside one
 * window, as a signal frame is written field by field in block mode) and
 * the plain monitor-memory operation (memcpy, load, store) as the
 * reference.  Then constant vs run-time sizes in the unsafe copy (constant
 * sizes up to 64 become inline moves), and a loop of ua_unsafe_get_user in
 * one window against the same loop of plain loads.
 */
#include <stdlib.h>
#include <string.h>

#include "uabench.h"

#define UC_MAX 65536
#define LOAD_SPAN 4096 /* bytes the load loop walks: stays in L1 */

struct uc_arg {
	char *gsrc, *gdst; /* guest */
	uint64_t *gchain;  /* guest: LOAD_SPAN / 8 indices, a cycle */
	char *msrc, *mdst; /* monitor */
	size_t size;
	uint64_t batch;
};

static void __attribute__((noreturn)) unexpected_fault(void)
{
	bench_die("usercopy: unexpected fault on mapped guest memory");
}

static void from_checked(void *p, uint64_t n)
{
	struct uc_arg *a = p;
	size_t sz = a->size;

	for (uint64_t i = 0; i < n; i++) {
		if (ua_copy_from_user(a->mdst, a->gsrc, sz))
			unexpected_fault();
		bench_barrier();
	}
}

static void from_window(void *p, uint64_t n)
{
	struct uc_arg *a = p;
	char *dst = a->mdst, *src = a->gsrc;
	size_t sz = a->size;

	while (n) {
		uint64_t k = n < a->batch ? n : a->batch;

		n -= k;
		if (!ua_user_read_access_begin(src, sz))
			unexpected_fault();
		while (k--) {
			ua_unsafe_copy_from_user(dst, src, sz, fault);
			bench_barrier();
		}
		ua_user_read_access_end();
	}
	return;
fault:
	ua_user_read_access_end();
	unexpected_fault();
}

static void to_checked(void *p, uint64_t n)
{
	struct uc_arg *a = p;
	size_t sz = a->size;

	for (uint64_t i = 0; i < n; i++) {
		if (ua_copy_to_user(a->gdst, a->msrc, sz))
			unexpected_fault();
		bench_barrier();
	}
}

static void to_window(void *p, uint64_t n)
{
	struct uc_arg *a = p;
	char *dst = a->gdst, *src = a->msrc;
	size_t sz = a->size;

	while (n) {
		uint64_t k = n < a->batch ? n : a->batch;

		n -= k;
		if (!ua_user_write_access_begin(dst, sz))
			unexpected_fault();
		while (k--) {
			ua_unsafe_copy_to_user(dst, src, sz, fault);
			bench_barrier();
		}
		ua_user_write_access_end();
	}
	return;
fault:
	ua_user_write_access_end();
	unexpected_fault();
}

static void plain_memcpy(void *p, uint64_t n)
{
	struct uc_arg *a = p;
	size_t sz = a->size;

	for (uint64_t i = 0; i < n; i++) {
		memcpy(a->mdst, a->msrc, sz);
		bench_barrier();
	}
}

/* get and put per type: checked, batched unsafe in one window, plain. */
#define DEF_GET_PUT(T)                                                    \
	static void get_checked_##T(void *p, uint64_t n)                  \
	{                                                                 \
		const T *g = (const T *)((struct uc_arg *)p)->gsrc;       \
		uint64_t sum = 0;                                         \
		T x;                                                      \
		for (uint64_t i = 0; i < n; i++) {                        \
			if (ua_get_user(x, g))                            \
				unexpected_fault();                       \
			sum += x;                                         \
		}                                                         \
		bench_opaque(sum);                                        \
	}                                                                 \
	static void get_window_##T(void *p, uint64_t n)                   \
	{                                                                 \
		struct uc_arg *a = p;                                     \
		const T *g = (const T *)a->gsrc;                          \
		uint64_t sum = 0;                                         \
		T x;                                                      \
		while (n) {                                               \
			uint64_t k = n < a->batch ? n : a->batch;         \
			n -= k;                                           \
			if (!ua_user_read_access_begin(g, sizeof(T)))     \
				unexpected_fault();                       \
			while (k--) {                                     \
				ua_unsafe_get_user(x, g, fault);          \
				sum += x;                                 \
			}                                                 \
			ua_user_read_access_end();                        \
		}                                                         \
		bench_opaque(sum);                                        \
		return;                                                   \
fault:                                                                    \
		ua_user_read_access_end();                                \
		unexpected_fault();                                       \
	}                                                                 \
	static void get_plain_##T(void *p, uint64_t n)                    \
	{                                                                 \
		const volatile T *m =                                     \
			(const volatile T *)((struct uc_arg *)p)->msrc;   \
		uint64_t sum = 0;                                         \
		for (uint64_t i = 0; i < n; i++)                          \
			sum += *m;                                        \
		bench_opaque(sum);                                        \
	}                                                                 \
	static void put_checked_##T(void *p, uint64_t n)                  \
	{                                                                 \
		T *g = (T *)((struct uc_arg *)p)->gdst;                   \
		for (uint64_t i = 0; i < n; i++) {                        \
			if (ua_put_user((T)i, g))                         \
				unexpected_fault();                       \
		}                                                         \
	}                                                                 \
	static void put_window_##T(void *p, uint64_t n)                   \
	{                                                                 \
		struct uc_arg *a = p;                                     \
		T *g = (T *)a->gdst;                                      \
		while (n) {                                               \
			uint64_t k = n < a->batch ? n : a->batch;         \
			n -= k;                                           \
			if (!ua_user_write_access_begin(g, sizeof(T)))    \
				unexpected_fault();                       \
			while (k--)                                       \
				ua_unsafe_put_user((T)k, g, fault);       \
			ua_user_write_access_end();                       \
		}                                                         \
		return;                                                   \
fault:                                                                    \
		ua_user_write_access_end();                               \
		unexpected_fault();                                       \
	}                                                                 \
	static void put_plain_##T(void *p, uint64_t n)                    \
	{                                                                 \
		volatile T *m = (volatile T *)((struct uc_arg *)p)->mdst; \
		for (uint64_t i = 0; i < n; i++)                          \
			*m = (T)i;                                        \
	}

DEF_GET_PUT(uint8_t)
DEF_GET_PUT(uint16_t)
DEF_GET_PUT(uint32_t)
DEF_GET_PUT(uint64_t)

struct gp_fns {
	size_t size;
	void (*get[3])(void *, uint64_t);
	void (*put[3])(void *, uint64_t);
};

#define GP_FNS(T)                                                              \
	{                                                                      \
		sizeof(T), { get_checked_##T, get_window_##T, get_plain_##T }, \
		{                                                              \
			put_checked_##T, put_window_##T, put_plain_##T         \
		}                                                              \
	}

static const struct gp_fns gp_table[] = {
	GP_FNS(uint8_t),
	GP_FNS(uint16_t),
	GP_FNS(uint32_t),
	GP_FNS(uint64_t),
};

/* The unsafe copy with a size the compiler sees as a constant. */
#define DEF_CONST_COPY(N)                                                     \
	static void from_const_##N(void *p, uint64_t n)                       \
	{                                                                     \
		struct uc_arg *a = p;                                         \
		char *dst = a->mdst, *src = a->gsrc;                          \
		while (n) {                                                   \
			uint64_t k = n < a->batch ? n : a->batch;             \
			n -= k;                                               \
			if (!ua_user_read_access_begin(src, N))               \
				unexpected_fault();                           \
			while (k--) {                                         \
				ua_unsafe_copy_from_user(dst, src, N, fault); \
				bench_barrier();                              \
			}                                                     \
			ua_user_read_access_end();                            \
		}                                                             \
		return;                                                       \
fault:                                                                        \
		ua_user_read_access_end();                                    \
		unexpected_fault();                                           \
	}

DEF_CONST_COPY(1)
DEF_CONST_COPY(2)
DEF_CONST_COPY(4)
DEF_CONST_COPY(8)
DEF_CONST_COPY(16)
DEF_CONST_COPY(32)
DEF_CONST_COPY(64)

static void (*const const_fns[])(void *, uint64_t) = {
	from_const_1,  from_const_2,  from_const_4,  from_const_8,
	from_const_16, from_const_32, from_const_64,
};

/*
 * Two shapes of load loop, each as ua_unsafe_get_user in one window and as
 * plain loads of the same guest memory inside the same window, so only
 * the accessor differs, not the memory or its placement.  "load" sums
 * independent loads (throughput: the loop is a couple of cycles, so code
 * layout shows); "load_chain" follows a chain of indices (latency: each
 * load waits for the previous one).  volatile keeps the plain loops from
 * being vectorised or folded, and BENCH_NO_UNROLL (uabench.h) from being
 * unrolled.
 */
static void load_window(void *p, uint64_t n)
{
	const uint64_t *g = (const uint64_t *)((struct uc_arg *)p)->gsrc;
	uint64_t sum = 0, x;

	if (!ua_user_read_access_begin(g, LOAD_SPAN))
		unexpected_fault();
	BENCH_NO_UNROLL
	for (uint64_t i = 0; i < n; i++) {
		ua_unsafe_get_user(x, &g[i % (LOAD_SPAN / 8)], fault);
		sum += x;
	}
	ua_user_read_access_end();
	bench_opaque(sum);
	return;
fault:
	ua_user_read_access_end();
	unexpected_fault();
}

static void load_plain(void *p, uint64_t n)
{
	const volatile uint64_t *g =
		(const volatile uint64_t *)((struct uc_arg *)p)->gsrc;
	uint64_t sum = 0;

	if (!ua_user_read_access_begin((const void *)g, LOAD_SPAN))
		unexpected_fault();
	BENCH_NO_UNROLL
	for (uint64_t i = 0; i < n; i++)
		sum += g[i % (LOAD_SPAN / 8)];
	ua_user_read_access_end();
	bench_opaque(sum);
}

static void chain_window(void *p, uint64_t n)
{
	const uint64_t *g = ((struct uc_arg *)p)->gchain;
	uint64_t x = 0;

	if (!ua_user_read_access_begin(g, LOAD_SPAN))
		unexpected_fault();
	BENCH_NO_UNROLL
	for (uint64_t i = 0; i < n; i++)
		ua_unsafe_get_user(x, &g[x % (LOAD_SPAN / 8)], fault);
	ua_user_read_access_end();
	bench_opaque(x);
	return;
fault:
	ua_user_read_access_end();
	unexpected_fault();
}

static void chain_plain(void *p, uint64_t n)
{
	const volatile uint64_t *g = ((struct uc_arg *)p)->gchain;
	uint64_t x = 0;

	if (!ua_user_read_access_begin((const void *)g, LOAD_SPAN))
		unexpected_fault();
	BENCH_NO_UNROLL
	for (uint64_t i = 0; i < n; i++)
		x = g[x % (LOAD_SPAN / 8)];
	ua_user_read_access_end();
	bench_opaque(x);
}

/* A cycle through every slot, a cache line apart (stride 9 is odd). */
static void chain_init(struct uc_arg *a)
{
	uint64_t next[LOAD_SPAN / 8];

	for (size_t i = 0; i < LOAD_SPAN / 8; i++)
		next[i] = (i + 9) % (LOAD_SPAN / 8);
	if (ua_copy_to_user(a->gchain, next, sizeof(next)))
		unexpected_fault();
}

static void uc_defaults(struct bench_opts *o, bool in_report, bool quick)
{
	if (!o->reps)
		o->reps = quick ? 5 : in_report ? 15 : 21;
	if (!o->rep_us)
		o->rep_us = quick ? 100 : 1000;
	if (!o->max_size)
		o->max_size = UC_MAX;
	if (!o->batch)
		o->batch = 16;
}

static void set3(struct bench_case *c, const char *names[3],
		 void (*fns[3])(void *, uint64_t), void *arg)
{
	c->nmeth = 3;
	c->ref = 2;
	for (int i = 0; i < 3; i++) {
		c->m[i].name = names[i];
		c->m[i].fn = fns[i];
		c->m[i].arg = arg;
	}
}

static const char *const size_labels[] = {
	"1",   "2",    "4",    "8",    "16",   "32",	"64",	 "128",	  "256",
	"512", "1024", "2048", "4096", "8192", "16384", "32768", "65536",
};

static void run_copies(struct bench_ctx *ctx, struct bench_doc *doc,
		       struct uc_arg *a, const char *be)
{
	static const char *names[3] = { "checked", "window", "memcpy" };
	void (*from[3])(void *, uint64_t) = { from_checked, from_window,
					      plain_memcpy };
	void (*to[3])(void *, uint64_t) = { to_checked, to_window,
					    plain_memcpy };

	for (int dir = 0; dir < 2; dir++) {
		for (int k = 0; (1ull << k) <= ctx->opts.max_size; k++) {
			struct bench_case c = {
				.group = dir ? "copy_to" : "copy_from",
				.backend = be,
				.label = size_labels[k],
				.size = 1ull << k,
			};

			a->size = (size_t)c.size;
			c.ops_multiple = ctx->opts.batch;
			set3(&c, names, dir ? to : from, a);
			bench_run_case(ctx, &c, doc);
		}
	}
}

static void run_get_put(struct bench_ctx *ctx, struct bench_doc *doc,
			struct uc_arg *a, const char *be)
{
	static const char *names[3] = { "checked", "window", "plain" };

	for (int put = 0; put < 2; put++) {
		for (size_t k = 0; k < 4; k++) {
			const struct gp_fns *g = &gp_table[k];
			struct bench_case c = {
				.group = put ? "put" : "get",
				.backend = be,
				.label = size_labels[k],
				.size = g->size,
			};
			void (*fns[3])(void *, uint64_t);

			memcpy(fns, put ? g->put : g->get, sizeof(fns));
			c.ops_multiple = ctx->opts.batch;
			set3(&c, names, fns, a);
			bench_run_case(ctx, &c, doc);
		}
	}
}

static void run_const(struct bench_ctx *ctx, struct bench_doc *doc,
		      struct uc_arg *a, const char *be)
{
	for (int k = 0; k < 7 && (1ull << k) <= ctx->opts.max_size; k++) {
		struct bench_case c = {
			.group = "copy_const",
			.backend = be,
			.label = size_labels[k],
			.size = 1ull << k,
			.nmeth = 2,
			.ref = 0,
			.ops_multiple = ctx->opts.batch,
			.m = { { "runtime", from_window, a, NULL, NULL },
			       { "constant", const_fns[k], a, NULL, NULL } },
		};
		int idx;

		a->size = (size_t)c.size;
		idx = bench_run_case(ctx, &c, doc);
		if (k == 3)
			bench_ratio_add(doc, idx, "constant", "runtime", NULL,
					false,
					"ua_unsafe_copy_from_user, constant "
					"vs run-time size (8 B)");
	}
}

static void run_load(struct bench_ctx *ctx, struct bench_doc *doc,
		     struct uc_arg *a, const char *be)
{
	struct bench_case c = {
		.group = "load",
		.backend = be,
		.label = "8",
		.size = 8,
		.nmeth = 2,
		.ref = 0,
		.m = { { "plain", load_plain, a, NULL, NULL },
		       { "unsafe_get_user", load_window, a, NULL, NULL } },
	};
	int idx = bench_run_case(ctx, &c, doc);

	/* Judged in `compilers`, beside a clang-19 build of these loops. */
	bench_ratio_add(doc, idx, "unsafe_get_user", "plain", NULL, false,
			"ua_unsafe_get_user in a window vs plain load "
			"(independent)");
	c.group = "load_chain";
	c.m[0].fn = chain_plain;
	c.m[1].fn = chain_window;
	idx = bench_run_case(ctx, &c, doc);
	bench_ratio_add(doc, idx, "unsafe_get_user", "plain", NULL, false,
			"ua_unsafe_get_user in a window vs plain load "
			"(dependent)");
}

static int run_backend(struct bench_ctx *ctx, struct bench_doc *doc,
		       enum ua_protect p, struct uc_arg *a)
{
	struct bench_space s;
	size_t half =
		ctx->opts.max_size < LOAD_SPAN ? LOAD_SPAN : ctx->opts.max_size;
	const char *be;
	int err = bench_space_open(&s, p, 2 * half + LOAD_SPAN);

	if (err)
		bench_die("usercopy: cannot create a %s space: %s",
			  ua_protect_name(p), strerror(-err));
	be = ua_protect_name(s.protect);
	a->gsrc = s.buf;
	a->gdst = s.buf + half;
	a->gchain = (uint64_t *)(s.buf + 2 * half);
	/*
	 * Written once so the source is real memory: an untouched anonymous
	 * page reads as the one shared zero page, which flatters big copies.
	 */
	if (ua_copy_to_user(s.buf, a->msrc, half) ||
	    ua_copy_to_user(s.buf + half, a->msrc, half))
		unexpected_fault();
	chain_init(a);
	run_copies(ctx, doc, a, be);
	run_get_put(ctx, doc, a, be);
	run_const(ctx, doc, a, be);
	run_load(ctx, doc, a, be);
	bench_space_close(&s);
	return 0;
}

static int uc_run(struct bench_ctx *ctx, struct bench_doc *doc)
{
	unsigned set = bench_backends_selected(&ctx->opts);
	struct uc_arg a = { .batch = ctx->opts.batch };
	unsigned nb = 0, sizes = 0;

	while ((1ull << sizes) <= ctx->opts.max_size)
		sizes++;
	for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY; p++)
		nb += !!(set & BENCH_BACKEND_BIT(p));
	ctx->cases_total += nb * (2 * sizes + 8 + (sizes < 7 ? sizes : 7) + 2);
	a.msrc = aligned_alloc(64, UC_MAX);
	a.mdst = aligned_alloc(64, UC_MAX);
	if (!a.msrc || !a.mdst)
		bench_die("out of memory");
	memset(a.msrc, 0x5a, UC_MAX);
	memset(a.mdst, 0, UC_MAX);
	bench_doc_note(doc,
		       "window: %llu operations per window (--batch); "
		       "checked: one window per operation",
		       (unsigned long long)ctx->opts.batch);
	for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY; p++) {
		if (set & BENCH_BACKEND_BIT(p))
			run_backend(ctx, doc, p, &a);
	}
	free(a.msrc);
	free(a.mdst);
	return 0;
}

const struct bench_cmd bench_cmd_usercopy = {
	.name = "usercopy",
	.summary = "get/put/copy 1..65536 B: checked vs one window vs memcpy",
	.usage = "  --protect LIST     backends, comma-separated: none, "
		 "mprotect, pkey,\n"
		 "                     auto, all (default: all available)\n"
		 "  --max-size N       largest copy size, a power of two "
		 "(default 65536)\n"
		 "  --batch N          operations per window for the 'window' "
		 "method (16)\n",
	.opts = BOPT_PROTECT | BOPT_SIZE | BOPT_BATCH,
	.defaults = uc_defaults,
	.run = uc_run,
	.in_report = true,
};
