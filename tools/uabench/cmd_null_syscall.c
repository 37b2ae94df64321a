// SPDX-License-Identifier: MIT
/*
 * null_syscall: the round trip guest -> monitor -> guest of ua_sys_nop()
 * against the host's cheapest real system call, getppid() (glibc does
 * not cache it: every call enters the kernel), measured in the same run.
 *
 * The whole case runs inside one guest task: the engine itself is guest
 * code there, so each timed ua_sys_nop() is a real syscall of a running
 * task (entry, dispatch, lock/unlock, fast return) and no task start or
 * exit is inside any timed loop.  getppid() is called from the same guest
 * code on the same stack.  Switch counts come out exact: 2 per null
 * syscall (lock on entry, unlock on exit), 0 for getppid.
 *
 * Self-contained: register it with one line in bench_cmds[] (main.c), its
 * extern in uabench.h, and the file in meson.build.  Instruction counts
 * (callgrind) are taken by tests/task/null_count.c; see doc/tasks.md.
 */
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uabench.h"

extern const struct bench_cmd bench_cmd_null_syscall;

/* The engine and stdio (progress line) run on this stack. */
#define GUEST_STACK ((size_t)1 << 20)

static void ns_getppid(void *p, uint64_t n)
{
	pid_t sum = 0;

	(void)p;
	for (uint64_t i = 0; i < n; i++) {
		pid_t r = getppid();

		bench_opaque(r);
		sum += r;
	}
	bench_opaque(sum);
}

static void ns_nop(void *p, uint64_t n)
{
	(void)p;
	for (uint64_t i = 0; i < n; i++) {
		if (ua_unlikely(ua_sys_nop() != 0))
			bench_die("null_syscall: ua_sys_nop failed: %s",
				  strerror(errno));
		bench_barrier();
	}
}

struct ns_guest {
	struct bench_ctx *ctx;
	const struct bench_case *c;
	struct bench_doc *doc;
	int idx;
};

/* Guest code: the measurement, then exit. */
static void ns_guest_main(void *p)
{
	struct ns_guest *g = p;

	g->idx = bench_run_case(g->ctx, g->c, g->doc);
	ua_sys_exit(0);
}

static void ns_defaults(struct bench_opts *o, bool in_report, bool quick)
{
	if (!o->reps)
		o->reps = quick ? 5 : in_report ? 21 : 31;
	if (!o->rep_us)
		o->rep_us = quick ? 100 : 1000;
}

static void run_backend(struct bench_ctx *ctx, struct bench_doc *doc,
			enum ua_protect p)
{
	struct bench_case c = {
		.group = "null_syscall",
		.label = "round trip",
		.nmeth = 2,
		.ref = 0,
		.m = { { "getppid", ns_getppid, NULL, NULL },
		       { "ua_sys_nop", ns_nop, NULL, NULL } },
	};
	struct ua_space_opts so = { .protect = p };
	struct ua_task_opts to = { .stack_size = GUEST_STACK };
	struct ns_guest g = { ctx, &c, doc, -1 };
	struct ua_space *sp = ua_space_create(GUEST_STACK + (64 << 10), &so);
	struct ua_task *t;
	int status;

	if (!sp)
		bench_die("null_syscall: cannot create a %s space: %s",
			  ua_protect_name(p), strerror(errno));
	t = ua_task_create(sp, ns_guest_main, &g, &to);
	if (!t)
		bench_die("null_syscall: cannot create a task: %s",
			  strerror(errno));
	c.backend = ua_protect_name(ua_space_protect(sp));
	status = ua_task_run(t);
	if (status != 0 || g.idx < 0)
		bench_die("null_syscall: the guest task ended with status %#x",
			  status);
	ua_task_destroy(t);
	ua_space_destroy(sp);
	/*
	 * Under mprotect every lock and unlock is an mprotect() system call
	 * of its own, so that backend cannot beat one system call: reported,
	 * not judged.
	 */
	bench_ratio_add(doc, g.idx, "ua_sys_nop", "getppid",
			"null_syscall_vs_getppid", p != UA_PROTECT_MPROTECT,
			"ua_sys_nop round trip vs host getppid()");
}

static int ns_run(struct bench_ctx *ctx, struct bench_doc *doc)
{
	unsigned set = bench_backends_selected(&ctx->opts);

	for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY; p++)
		ctx->cases_total += !!(set & BENCH_BACKEND_BIT(p));
	bench_doc_note(doc, "the engine runs as guest code of one task: "
			    "every timed ua_sys_nop() is a full syscall "
			    "round trip, no task start or exit is timed");
	for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY; p++) {
		if (set & BENCH_BACKEND_BIT(p))
			run_backend(ctx, doc, p);
	}
	return 0;
}

const struct bench_cmd bench_cmd_null_syscall = {
	.name = "null_syscall",
	.summary = "guest null syscall round trip vs host getppid()",
	.usage = "  --protect LIST     backends, comma-separated: none, "
		 "mprotect, pkey,\n"
		 "                     auto, all (default: all available)\n",
	.opts = BOPT_PROTECT,
	.defaults = ns_defaults,
	.run = ns_run,
	.in_report = true,
};
