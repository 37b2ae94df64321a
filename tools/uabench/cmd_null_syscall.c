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
 * Instructions per call are counted in child processes (insns.c): the
 * CPU's counter where there is one, else callgrind, which sees user space
 * only (getppid()'s kernel side is invisible to it).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uabench.h"

/* Calls per instruction count run (and twice that): counts are exact. */
#define INSN_COUNT 200

struct ns_priv {
	enum bench_insn_source insn_src;
	const char *insn_why;
};

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
	if (quick)
		o->no_insns = true;
}

static struct ua_space *ns_space(enum ua_protect p)
{
	struct ua_space_opts so = { .protect = p };
	struct ua_space *sp = ua_space_create(GUEST_STACK + (64 << 10), &so);

	if (!sp)
		bench_die("null_syscall: cannot create a %s space: %s",
			  ua_protect_name(p), strerror(errno));
	return sp;
}

static void run_backend(struct bench_ctx *ctx, struct bench_doc *doc,
			enum ua_protect p)
{
	struct bench_case c = {
		.group = "null_syscall",
		.label = "round trip",
		.nmeth = 3,
		.ref = 0,
		.m = { { "getppid", ns_getppid, NULL, NULL, NULL },
		       { "ua_sys_nop", ns_nop, NULL, NULL, NULL },
		       { "floor_stub", bench_floor_stub_loop, NULL, NULL,
			 NULL } },
	};
	struct ua_task_opts to = { .stack_size = GUEST_STACK };
	struct ns_guest g = { ctx, &c, doc, -1 };
	struct ua_space *sp = ns_space(p);
	struct ua_task *t;
	int status;

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
	/* The floor has no protection switch: judged for none alone. */
	bench_ratio_add(doc, g.idx, "ua_sys_nop", "floor_stub",
			"null_syscall_vs_floor", p == UA_PROTECT_NONE,
			"ua_sys_nop round trip vs the empty entry/exit stub");
}

static void ns_print(FILE *f, const struct bench_doc *doc, bool md)
{
	const struct ns_priv *np = doc->priv;
	char a[32], b[32], sw[32], in[32], name[48];

	fprintf(f,
		"\n%sround trip guest -> monitor -> guest vs the host's "
		"getppid(), %s clock,\nmedian of %u repetitions, speed paired "
		"by repetition; switches exact;\ninstructions: %s%s%s\n\n",
		md ? "" : "null_syscall: ", bench_clock_name(), doc->opts.reps,
		bench_insns_source_name(np->insn_src), np->insn_why ? ", " : "",
		np->insn_why ? np->insn_why : "");
	if (md)
		fprintf(f,
			"| call | backend | ns per call | speed vs getppid | "
			"switches per call | instructions per call |\n"
			"|---|---|---|---|---|---|\n");
	else
		fprintf(f, "  %-22s %-9s %10s %9s %9s %13s\n", "call",
			"backend", "ns/call", "vs getppid", "switches",
			"instructions");
	for (int i = 0; i < doc->ncases; i++) {
		const struct bench_case_res *c = &doc->cases[i];

		for (int k = 0; k < c->nmeth; k++) {
			const struct bench_meas *m = &c->m[k];

			snprintf(name, sizeof(name), "%s()", m->method);
			snprintf(a, sizeof(a),
				 m->ns_med >= 100 ? "%.0f" : "%.1f", m->ns_med);
			bench_fmt_ratio(b, sizeof(b), m->ratio);
			bench_fmt_count(sw, sizeof(sw), m->counts.switches,
					m->counts.ops);
			bench_fmt_thousands(in, sizeof(in), m->insns);
			if (md)
				fprintf(f, "| %s | %s | %s | %s | %s | %s |\n",
					name, c->backend, a, b, sw, in);
			else
				fprintf(f, "  %-22s %-9s %10s %9s %9s %13s\n",
					name, c->backend, a, b, sw, in);
		}
	}
}

static void ns_json(struct bench_json *w, const struct bench_doc *doc)
{
	const struct ns_priv *np = doc->priv;

	bench_json_str(w, "instructions_source",
		       bench_insns_source_name(np->insn_src));
	bench_json_str(w, "instructions_unavailable_reason", np->insn_why);
	bench_json_uint(w, "instructions_ops", INSN_COUNT);
	bench_json_bool(w, "instructions_include_kernel",
			np->insn_src == BENCH_INSNS_PERF);
}

/* Instructions of getppid() and of ua_sys_nop() under each backend. */
static void ns_insns(struct bench_ctx *ctx, struct bench_doc *doc,
		     struct ns_priv *np)
{
	struct bench_insn_job jobs[1 + UA_PROTECT_PKEY + 1];
	char names[UA_PROTECT_PKEY + 1][32];
	int nj = 0;

	np->insn_src = bench_insns_source(&np->insn_why);
	if (ctx->opts.no_insns) {
		np->insn_src = BENCH_INSNS_NONE;
		np->insn_why = "not counted (--no-insns)";
	}
	if (np->insn_src == BENCH_INSNS_NONE)
		return;
	jobs[nj++] = (struct bench_insn_job){ "getppid", INSN_COUNT, NAN };
	for (int i = 0; i < doc->ncases; i++) {
		snprintf(names[i], sizeof(names[i]), "nop_%s",
			 doc->cases[i].backend);
		jobs[nj++] =
			(struct bench_insn_job){ names[i], INSN_COUNT, NAN };
	}
	bench_count_insns(ctx, "null_syscall", jobs, nj, &np->insn_why);
	for (int i = 0; i < doc->ncases; i++) {
		struct bench_case_res *c = &doc->cases[i];

		c->m[bench_meas_index(c, "getppid")].insns = jobs[0].per_op;
		c->m[bench_meas_index(c, "ua_sys_nop")].insns =
			jobs[i + 1].per_op;
	}
}

static int ns_run(struct bench_ctx *ctx, struct bench_doc *doc)
{
	unsigned set = bench_backends_selected(&ctx->opts);
	struct ns_priv *np = calloc(1, sizeof(*np));

	if (!np)
		bench_die("out of memory");
	doc->priv = np;
	doc->priv_free = free;
	doc->print_cases = ns_print;
	doc->json_extra = ns_json;

	for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY; p++)
		ctx->cases_total += !!(set & BENCH_BACKEND_BIT(p));
	bench_doc_note(doc, "the engine runs as guest code of one task: "
			    "every timed ua_sys_nop() is a full syscall "
			    "round trip, no task start or exit is timed");
	for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY; p++) {
		if (set & BENCH_BACKEND_BIT(p))
			run_backend(ctx, doc, p);
	}
	bench_wrpkru_row(doc, "null_syscall", "ua_sys_nop", "null syscall");
	ns_insns(ctx, doc, np);
	return 0;
}

struct count_job {
	uint64_t n;
	int bad;
};

static void count_guest(void *p)
{
	struct count_job *j = p;

	for (uint64_t i = 0; i < j->n; i++)
		j->bad |= ua_sys_nop() != 0;
	ua_sys_exit(j->bad);
}

/* _count null_syscall getppid|nop_<backend> N (insns.c). */
static int ns_count_child(const char *method, uint64_t n)
{
	struct ua_task_opts to = { .stack_size = GUEST_STACK };
	struct count_job j = { n, 0 };
	struct ua_space *sp;
	struct ua_task *t;
	int status;

	if (!strcmp(method, "getppid")) {
		ns_getppid(NULL, n);
		return 0;
	}
	for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY; p++) {
		if (strncmp(method, "nop_", 4) ||
		    strcmp(method + 4, ua_protect_name(p)))
			continue;
		sp = ns_space(p);
		t = ua_task_create(sp, count_guest, &j, &to);
		if (!t)
			return BENCH_EXIT_FAIL;
		status = ua_task_run(t);
		ua_task_destroy(t);
		ua_space_destroy(sp);
		return status ? BENCH_EXIT_FAIL : 0;
	}
	return BENCH_EXIT_USAGE;
}

const struct bench_cmd bench_cmd_null_syscall = {
	.name = "null_syscall",
	.summary = "guest null syscall round trip vs host getppid()",
	.usage = "  --protect LIST     backends, comma-separated: none, "
		 "mprotect, pkey,\n"
		 "                     auto, all (default: all available)\n"
		 "  --no-insns         do not count instructions\n",
	.opts = BOPT_PROTECT | BOPT_INSNS,
	.defaults = ns_defaults,
	.run = ns_run,
	.in_report = true,
	.count_child = ns_count_child,
};
