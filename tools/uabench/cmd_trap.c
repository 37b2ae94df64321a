// SPDX-License-Identifier: MIT
/*
 * trap: the cost of a trapped `syscall` instruction (getppid) under
 * Syscall User Dispatch, per backend and frame mode, against the host's
 * own getppid() measured in the same run.
 *
 * The trapped calls are made by the guest code of a task created with
 * trap_syscalls: each one is a SIGSYS, the monitor's entry and exit and
 * the Linux table's getppid.  The native getppid() cannot run inside that
 * task (it would be trapped too), so each repetition runs a task made
 * beforehand, untimed, whose guest code makes the N calls; the timed part
 * is ua_task_run(), i.e. the N trapped calls plus one task entry and exit
 * (amortised over N, which a repetition of several milliseconds makes
 * small).  Frame mode does not change a call that delivers no signal: it
 * is measured to show exactly that.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uabench.h"

#define GUEST_STACK ((size_t)64 << 10)

struct trap_arg {
	enum ua_protect protect;
	enum ua_frame_mode frames;
};

static void native_getppid(void *p, uint64_t n)
{
	(void)p;
	for (uint64_t i = 0; i < n; i++) {
		long r = syscall(SYS_getppid);

		bench_opaque(r);
	}
}

struct trap_job {
	uint64_t n;
	long bad;
};

static void trap_guest(void *p)
{
	struct trap_job *j = p;

	for (uint64_t i = 0; i < j->n; i++) {
		long r;

		asm volatile("syscall"
			     : "=a"(r)
			     : "a"((long)SYS_getppid)
			     : "rcx", "r11", "memory");
		j->bad |= r < 0;
	}
}

static double trapped_getppid(void *p, uint64_t n, struct ua_stats *st)
{
	const struct trap_arg *a = p;
	struct ua_space_opts so = { .protect = a->protect };
	struct ua_task_opts to = { .stack_size = GUEST_STACK,
				   .frame_mode = a->frames,
				   .trap_syscalls = true,
				   .trap = UA_TRAP_SUD };
	struct trap_job j = { n, 0 };
	struct ua_space *sp = ua_space_create(GUEST_STACK + (64 << 10), &so);
	struct ua_task *t;
	double t0, t1;
	int status;

	if (!sp)
		bench_die("trap: cannot create a %s space: %s",
			  ua_protect_name(a->protect), strerror(errno));
	t = ua_task_create(sp, trap_guest, &j, &to);
	if (!t)
		bench_die("trap: cannot create a task: %s", strerror(errno));
	ua_stats_reset();
	t0 = bench_now_ns();
	status = ua_task_run(t);
	t1 = bench_now_ns();
	ua_stats_get(st);
	if (status != 0 || j.bad)
		bench_die("trap: the guest ended with status %#x", status);
	ua_task_destroy(t);
	ua_space_destroy(sp);
	return t1 - t0;
}

static void trap_defaults(struct bench_opts *o, bool in_report, bool quick)
{
	(void)in_report;
	if (!o->reps)
		o->reps = quick ? 3 : 11;
	if (!o->rep_us)
		o->rep_us = quick ? 2000 : 20000;
	o->no_insns = true;
}

static void run_backend(struct bench_ctx *ctx, struct bench_doc *doc,
			enum ua_protect p, struct trap_arg args[2])
{
	struct bench_case c = {
		.group = "trap",
		.label = "getppid",
		.nmeth = 3,
		.ref = 0,
		.m = { { "getppid", native_getppid, NULL, NULL, NULL },
		       { "sud block", NULL, &args[0], NULL, trapped_getppid },
		       { "sud per-access", NULL, &args[1], NULL,
			 trapped_getppid } },
	};
	int idx;

	args[0] = (struct trap_arg){ p, UA_FRAME_BLOCK };
	args[1] = (struct trap_arg){ p, UA_FRAME_PER_ACCESS };
	c.backend = ua_protect_name(p);
	idx = bench_run_case(ctx, &c, doc);
	bench_ratio_add(doc, idx, "sud block", "getppid", "trap_sud_vs_native",
			false, "trapped getppid (sud, block) vs host getppid");
}

static int trap_run(struct bench_ctx *ctx, struct bench_doc *doc)
{
	unsigned set = bench_backends_selected(&ctx->opts);
	static struct trap_arg args[UA_PROTECT_PKEY + 1][2];

	for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY; p++)
		ctx->cases_total += !!(set & BENCH_BACKEND_BIT(p));
	bench_doc_note(doc, "each trapped call pays one host signal "
			    "(SIGSYS) and its sigreturn; timed per repetition "
			    "is ua_task_run() of a task made beforehand");
	for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY; p++) {
		if (set & BENCH_BACKEND_BIT(p))
			run_backend(ctx, doc, p, args[p]);
	}
	return 0;
}

const struct bench_cmd bench_cmd_trap = {
	.name = "trap",
	.summary = "trapped syscall (Syscall User Dispatch) vs host getppid()",
	.usage = "  --protect LIST     backends, comma-separated: none, "
		 "mprotect, pkey,\n"
		 "                     auto, all (default: all available)\n",
	.opts = BOPT_PROTECT,
	.defaults = trap_defaults,
	.run = trap_run,
	.in_report = false,
};
