// SPDX-License-Identifier: MIT
/*
 * zero: the `dd if=/dev/zero of=/dev/null bs=512` analogue.  Each read()
 * of /dev/zero is read_iter_zero() -> iov_iter_zero() into the caller's
 * buffer; here each 512-byte block goes into a guest buffer, either by
 * ua_clear_user(), or by ua_iov_iter_zero() over an iterator set up per
 * block as read() sets up its single-buffer ITER_UBUF (ua_iov_iter_ubuf:
 * a range check, no window), or, as readv() would, over a one-entry guest
 * iovec imported per block (informative: the copy of the iovec is one
 * more window).  The reference is memset() of a monitor buffer of the
 * same size.
 */
#include <string.h>
#include <sys/uio.h>

#include "uabench.h"

#define BLOCK 512

struct zero_arg {
	char *gbuf;		  /* guest block */
	const struct iovec *giov; /* guest iovec describing it */
	char *mbuf;		  /* monitor block */
};

static void zero_memset(void *p, uint64_t n)
{
	char *m = ((struct zero_arg *)p)->mbuf;

	for (uint64_t i = 0; i < n; i++) {
		memset(m, 0, BLOCK);
		bench_barrier();
	}
}

static void zero_clear_user(void *p, uint64_t n)
{
	char *g = ((struct zero_arg *)p)->gbuf;

	for (uint64_t i = 0; i < n; i++) {
		if (ua_clear_user(g, BLOCK))
			bench_die("zero: ua_clear_user faulted");
		bench_barrier();
	}
}

static void zero_iter(void *p, uint64_t n)
{
	char *g = ((struct zero_arg *)p)->gbuf;

	for (uint64_t i = 0; i < n; i++) {
		struct ua_iov_iter it;

		if (ua_iov_iter_ubuf(&it, UA_ITER_DEST, g, BLOCK))
			bench_die("zero: ua_iov_iter_ubuf failed");
		if (ua_iov_iter_zero(BLOCK, &it) != BLOCK)
			bench_die("zero: ua_iov_iter_zero was short");
		bench_barrier();
	}
}

static void zero_iovec(void *p, uint64_t n)
{
	const struct iovec *giov = ((struct zero_arg *)p)->giov;

	for (uint64_t i = 0; i < n; i++) {
		struct ua_iov_iter it;

		if (ua_import_iovec(&it, UA_ITER_DEST, giov, 1) != BLOCK)
			bench_die("zero: ua_import_iovec failed");
		if (ua_iov_iter_zero(BLOCK, &it) != BLOCK)
			bench_die("zero: ua_iov_iter_zero was short");
		ua_iov_iter_release(&it);
		bench_barrier();
	}
}

static void zero_defaults(struct bench_opts *o, bool in_report, bool quick)
{
	if (!o->reps)
		o->reps = quick ? 5 : in_report ? 21 : 31;
	if (!o->rep_us)
		o->rep_us = quick ? 100 : 1000;
}

/* The guest block and, after it, a guest iovec that describes it. */
static void guest_setup(struct bench_space *s, struct zero_arg *a)
{
	struct iovec iov = { .iov_base = s->buf, .iov_len = BLOCK };

	a->gbuf = s->buf;
	a->giov = (const struct iovec *)(s->buf + 2048);
	if (ua_copy_to_user((void *)a->giov, &iov, sizeof(iov)))
		bench_die("zero: cannot write the guest iovec");
}

static void run_backend(struct bench_ctx *ctx, struct bench_doc *doc,
			enum ua_protect p, char *mbuf)
{
	struct zero_arg a = { .mbuf = mbuf };
	struct bench_case c = {
		.group = "zero",
		.label = "512",
		.size = BLOCK,
		.nmeth = 4,
		.ref = 0,
		.m = { { "memset", zero_memset, &a, NULL, NULL },
		       { "clear_user", zero_clear_user, &a, NULL, NULL },
		       { "iov_iter_zero", zero_iter, &a, NULL, NULL },
		       { "iovec_iter_zero", zero_iovec, &a, NULL, NULL } },
	};
	struct bench_space s;
	bool target;
	int err = bench_space_open(&s, p, 4096), idx;

	if (err)
		bench_die("zero: cannot create a %s space: %s",
			  ua_protect_name(p), strerror(-err));
	guest_setup(&s, &a);
	c.backend = ua_protect_name(s.protect);
	idx = bench_run_case(ctx, &c, doc);
	/*
	 * the design gives the 0.8 target for cheap windows (the kernel's
	 * stac/clac); an mprotect window is two system calls per block, so
	 * that backend is reported, not judged.
	 */
	target = s.protect != UA_PROTECT_MPROTECT;
	bench_ratio_add(doc, idx, "clear_user", "memset", "zero_vs_memset",
			target, "ua_clear_user 512 B blocks vs memset");
	bench_ratio_add(doc, idx, "iov_iter_zero", "memset", "zero_vs_memset",
			target,
			"ua_iov_iter_ubuf + ua_iov_iter_zero 512 B blocks vs "
			"memset");
	bench_ratio_add(doc, idx, "iovec_iter_zero", "memset", NULL, false,
			"ua_import_iovec + ua_iov_iter_zero 512 B (readv) vs "
			"memset");
	bench_space_close(&s);
}

static int zero_run(struct bench_ctx *ctx, struct bench_doc *doc)
{
	unsigned set = bench_backends_selected(&ctx->opts);
	static char mbuf[BLOCK] __attribute__((aligned(64)));

	for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY; p++)
		ctx->cases_total += !!(set & BENCH_BACKEND_BIT(p));
	bench_doc_note(doc, "iov_iter_zero sets up a single-buffer iterator "
			    "per block, as read() does (one window per block, "
			    "like clear_user); iovec_iter_zero imports a "
			    "one-entry guest iovec per block, as readv() does "
			    "(two windows)");
	for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY; p++) {
		if (set & BENCH_BACKEND_BIT(p))
			run_backend(ctx, doc, p, mbuf);
	}
	bench_wrpkru_row(doc, "zero", "clear_user", "clear_user");
	return 0;
}

const struct bench_cmd bench_cmd_zero = {
	.name = "zero",
	.summary = "dd bs=512 analogue: clear_user, iov_iter_zero vs memset",
	.usage = "  --protect LIST     backends, comma-separated: none, "
		 "mprotect, pkey,\n"
		 "                     auto, all (default: all available)\n",
	.opts = BOPT_PROTECT,
	.defaults = zero_defaults,
	.run = zero_run,
	.in_report = true,
};
