// SPDX-License-Identifier: MIT
/*
 * raise: the loop the kernel series measured with `perf stat` (task-clock
 * of 100,000 raise(SIGUSR1) with an empty handler), here per
 * configuration in one run: the host kernel's own delivery, and the
 * engine with per-access and block frames under each backend.  Every
 * configuration is a method of one case, so repetitions interleave and
 * each ratio is paired; thread CPU time is the task-clock of the one
 * thread doing the work.
 *
 * An engine repetition runs in a fresh guest task on a space kept per
 * configuration: the guest installs the handler, warms up, then times its
 * own loop and takes the exact ua_stats delta of that loop alone, so task
 * start and exit are neither timed nor counted.
 */
#include <errno.h>
#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <uaccess/signal.h>

#include "uabench.h"

#define RAISE_SIG SIGUSR1
#define RAISE_DEFAULT_COUNT 100000
#define WARM_RAISES 16
/*
 * Raises per instruction count run (and twice that).  The counts repeat
 * exactly from run to run, so a small count loses nothing, and keeps the
 * slowest configuration short under callgrind.
 */
#define INSN_COUNT 100
/* With -n, a repetition of a slow configuration runs fewer raises. */
#define CAP_REP_US 500000
/* The floor method (floors.c): a frame's bytes and nothing else. */
#define FRAME_FLOOR "frame_floor"

struct raise_cfg {
	char name[32];
	enum ua_frame_mode mode;
	enum ua_protect p;
	struct ua_space *sp;
};

/* What a guest repetition reports back (monitor memory). */
struct raise_priv {
	struct raise_cfg cfg[BENCH_MAX_METH];
	int ncfg, case_idx;
	enum bench_insn_source insn_src;
	const char *insn_why;
};

static void empty_handler(int sig)
{
	(void)sig;
}

/* ---- host ---- */

/* The host's C library and version, for the report's note. */
static const char *libc_name(void)
{
#if defined(__GLIBC__)
	static char name[40];

	snprintf(name, sizeof(name), "glibc %s", gnu_get_libc_version());
	return name;
#else
	return "not glibc";
#endif
}

static void host_raise(void *p, uint64_t n)
{
	(void)p;
	for (uint64_t i = 0; i < n; i++) {
		if (ua_unlikely(raise(RAISE_SIG)))
			bench_die("raise: raise() failed: %s", strerror(errno));
	}
}

/*
 * The kernel's part alone: raise() adds the C library's calls around it
 * (glibc 2.36: gettid and getpid; musl and glibc 2.31: an rt_sigprocmask
 * on each side).
 */
static void host_tgkill(void *p, uint64_t n)
{
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);

	(void)p;
	for (uint64_t i = 0; i < n; i++) {
		if (ua_unlikely(syscall(SYS_tgkill, pid, tid, RAISE_SIG)))
			bench_die("raise: tgkill failed: %s", strerror(errno));
	}
}

static int host_handler(struct sigaction *old)
{
	struct sigaction sa;

	/* will-it-scale's signal1: a zeroed sigaction, no flags. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = empty_handler;
	return sigaction(RAISE_SIG, &sa, old);
}

/* ---- engine ---- */

static void guest_main(void *p)
{
	struct bench_job *j = p;
	struct sigaction sa; /* guest memory: on the guest stack */
	struct ua_stats a;
	double t0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = empty_handler;
	if (ua_sys_sigaction(RAISE_SIG, &sa, NULL))
		goto fail;
	for (int i = 0; i < WARM_RAISES; i++) {
		if (ua_sys_raise(RAISE_SIG))
			goto fail;
	}
	ua_stats_get(&a);
	t0 = bench_now_ns();
	for (uint64_t i = 0; i < j->n; i++) {
		if (ua_unlikely(ua_sys_raise(RAISE_SIG)))
			goto fail;
	}
	j->ns = bench_now_ns() - t0;
	bench_stats_since(&a, &j->st);
	ua_sys_exit(0);
fail:
	j->err = errno ? errno : EIO;
	ua_sys_exit(1);
}

static double engine_timed(void *p, uint64_t n, struct ua_stats *st)
{
	struct raise_cfg *c = p;
	struct bench_job j = { .n = n };

	return bench_job_run("raise", c->name, c->sp, c->mode, guest_main, &j,
			     st);
}

static int cfg_open(struct raise_cfg *c, enum ua_frame_mode mode,
		    enum ua_protect p)
{
	struct ua_space_opts so = { .protect = p };

	c->mode = mode;
	c->p = p;
	snprintf(c->name, sizeof(c->name), "%s_%s",
		 mode == UA_FRAME_BLOCK ? "block" : "per_access",
		 ua_protect_name(p));
	/* Room for the stack, its guard page and nothing else. */
	c->sp = ua_space_create(BENCH_JOB_STACK + (64 << 10), &so);
	return c->sp ? 0 : -errno;
}

static void raise_priv_free(void *p)
{
	struct raise_priv *rp = p;

	for (int i = 0; rp && i < rp->ncfg; i++)
		ua_space_destroy(rp->cfg[i].sp);
	free(rp);
}

/* ---- output ---- */

static const char *cfg_title(char *b, size_t n, const char *method)
{
	if (!strcmp(method, "host"))
		snprintf(b, n, "host raise()");
	else if (!strcmp(method, "host_tgkill"))
		snprintf(b, n, "host tgkill()");
	else if (!strcmp(method, FRAME_FLOOR))
		snprintf(b, n, "floor: frame write + read");
	else if (!strncmp(method, "block_", 6))
		snprintf(b, n, "engine block %s", method + 6);
	else
		snprintf(b, n, "engine per-access %s", method + 11);
	return b;
}

/* The engine run with the none backend in the same frame mode. */
static int none_of(const struct bench_case_res *c, const char *method)
{
	char name[48];

	if (!strncmp(method, "host", 4) || !strcmp(method, FRAME_FLOOR))
		return -1;
	snprintf(name, sizeof(name), "%s_none",
		 !strncmp(method, "block_", 6) ? "block" : "per_access");
	return bench_meas_index(c, name);
}

static void raise_print(FILE *f, const struct bench_doc *doc, bool md)
{
	const struct raise_priv *rp = doc->priv;
	const struct bench_case_res *c = &doc->cases[rp->case_idx];
	bool capped = false;
	char t[48], a[32], b[32], d[32], e[32], g[32], sw[32];

	fprintf(f,
		"\n%sraise -> empty handler -> rt_sigreturn, thread CPU time "
		"(task-clock),\nmedian of %u repetitions; vs host: paired by "
		"repetition; vs none: ratio of\nmedians; switches exact; "
		"instructions: %s%s%s\n\n",
		md ? "" : "raise: ", doc->opts.reps,
		bench_insns_source_name(rp->insn_src), rp->insn_why ? ", " : "",
		rp->insn_why ? rp->insn_why : "");
	if (md)
		fprintf(f, "| configuration | ms per 100,000 | ns per round "
			   "trip | vs host raise() | vs none, same mode | "
			   "switches per round trip | instructions per round "
			   "trip |\n|---|---|---|---|---|---|---|\n");
	else
		fprintf(f, "  %-27s %12s %10s %8s %8s %9s %13s\n",
			"configuration", "ms/100,000", "ns/trip", "vs host",
			"vs none", "switches", "instructions");
	for (int i = 0; i < c->nmeth; i++) {
		const struct bench_meas *m = &c->m[i];
		int k = none_of(c, m->method);
		double vs_none = NAN;

		if (m->unavailable)
			continue;
		if (k >= 0) {
			/* ratio is paired against the host; this is not. */
			vs_none = c->m[k].ns_med / m->ns_med;
		}
		capped |= doc->opts.count && m->ops < doc->opts.count;
		snprintf(a, sizeof(a), "%.1f%s", m->ns_med / 10.0,
			 doc->opts.count && m->ops < doc->opts.count ? "*" :
								       "");
		snprintf(b, sizeof(b), "%.0f", m->ns_med);
		bench_fmt_ratio(d, sizeof(d), m->ratio);
		if (isnan(vs_none))
			snprintf(e, sizeof(e), "-");
		else
			bench_fmt_ratio(e, sizeof(e), vs_none);
		bench_fmt_thousands(g, sizeof(g), m->insns);
		cfg_title(t, sizeof(t), m->method);
		bench_fmt_count(sw, sizeof(sw), m->counts.switches,
				m->counts.ops);
		if (md)
			fprintf(f, "| %s | %s | %s | %s | %s | %s | %s |\n", t,
				a, b, d, e, sw, g);
		else
			fprintf(f, "  %-27s %12s %10s %8s %8s %9s %13s\n", t, a,
				b, d, e, sw, g);
	}
	if (capped)
		fprintf(f,
			"%s* fewer raises per repetition than -n (a repetition "
			"is capped at %.1f s); scaled to 100,000\n",
			md ? "\n" : "  ", CAP_REP_US / 1e6);
}

static void raise_json(struct bench_json *w, const struct bench_doc *doc)
{
	const struct raise_priv *rp = doc->priv;

	bench_json_str(w, "instructions_source",
		       bench_insns_source_name(rp->insn_src));
	bench_json_str(w, "instructions_unavailable_reason", rp->insn_why);
	bench_json_uint(w, "instructions_ops", INSN_COUNT);
	bench_json_bool(w, "instructions_include_kernel",
			rp->insn_src == BENCH_INSNS_PERF);
}

/* ---- ratios ---- */

static void set_backend(struct bench_doc *doc, const char *be)
{
	snprintf(doc->ratios[doc->nratios - 1].backend,
		 sizeof(doc->ratios[0].backend), "%s", be);
}

static double per_op(const struct bench_meas *m)
{
	return m->counts.ops ? (double)m->counts.switches / m->counts.ops : NAN;
}

static void add_ratios(struct bench_doc *doc, int idx, unsigned set)
{
	const struct bench_case_res *c = &doc->cases[idx];
	const struct bench_meas *pa, *bl;
	char a[48], b[48], what[160];

	bench_ratio_add(doc, idx, "block_none", "host", "sig_vs_host", true,
			"signal round trip, engine block (none) vs host "
			"raise()");
	set_backend(doc, "none");
	bench_ratio_add(doc, idx, "per_access_none", "host", NULL, false,
			"signal round trip, engine per-access (none) vs host");
	set_backend(doc, "none");
	bench_ratio_add(doc, idx, "block_none", FRAME_FLOOR, "sig_vs_floor",
			true,
			"signal round trip, engine block (none) vs the frame "
			"floor");
	set_backend(doc, "none");
	bench_ratio_add(
		doc, idx, "block_none", "host_tgkill", NULL, false,
		"engine block (none) vs host tgkill() (no sigprocmask)");
	set_backend(doc, "none");
	bench_ratio_add(doc, idx, "block_none", "per_access_none", NULL, false,
			"block frames vs per-access frames (none)");
	set_backend(doc, "none");
	for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY; p++) {
		const char *be = ua_protect_name(p);

		if (!(set & BENCH_BACKEND_BIT(p)))
			continue;
		snprintf(a, sizeof(a), "block_%s", be);
		snprintf(b, sizeof(b), "per_access_%s", be);
		if (p != UA_PROTECT_NONE) {
			/*
			 * the design's 0.90 is for pkey (a WRPKRU per switch);
			 * an mprotect switch is a system call: reported.
			 */
			bench_ratio_add(doc, idx, a, "block_none",
					"sig_backend_vs_none",
					p == UA_PROTECT_PKEY,
					"signal round trip, block mode, real "
					"backend vs none");
			set_backend(doc, be);
			bench_ratio_add(doc, idx, b, "per_access_none", NULL,
					false,
					"signal round trip, per-access, real "
					"backend vs none");
			set_backend(doc, be);
			bench_ratio_add(doc, idx, a, b, NULL, false,
					"block frames vs per-access frames");
			set_backend(doc, be);
		}
		bench_ratio_set(doc, idx, a, NULL, BENCH_RATIO_COUNT,
				per_op(&c->m[bench_meas_index(c, a)]),
				"sig_switches_block", true,
				"switches per round trip, block frames");
		set_backend(doc, be);
		pa = &c->m[bench_meas_index(c, b)];
		bl = &c->m[bench_meas_index(c, a)];
		snprintf(what, sizeof(what),
			 "switches per round trip, per-access frames (%.3gx "
			 "block)",
			 per_op(pa) / per_op(bl));
		bench_ratio_set(doc, idx, b, NULL, BENCH_RATIO_COUNT,
				per_op(pa), "sig_switches_per_access", false,
				what);
		set_backend(doc, be);
	}
}

static void add_insns(struct bench_ctx *ctx, struct bench_doc *doc,
		      struct raise_priv *rp)
{
	struct bench_case_res *c = &doc->cases[rp->case_idx];
	struct bench_insn_job jobs[BENCH_MAX_METH];
	int host, bn;

	rp->insn_src = bench_insns_source(&rp->insn_why);
	if (ctx->opts.no_insns) {
		rp->insn_src = BENCH_INSNS_NONE;
		rp->insn_why = "not counted (--no-insns)";
	}
	if (rp->insn_src == BENCH_INSNS_NONE)
		return;
	for (int i = 0; i < c->nmeth; i++)
		jobs[i] = (struct bench_insn_job){ c->m[i].method, INSN_COUNT,
						   NAN };
	bench_count_insns(ctx, "raise", jobs, c->nmeth, &rp->insn_why);
	for (int i = 0; i < c->nmeth; i++)
		c->m[i].insns = jobs[i].per_op;
	host = bench_meas_index(c, "host");
	bn = bench_meas_index(c, "block_none");
	if (!isnan(c->m[host].insns) && !isnan(c->m[bn].insns)) {
		bench_ratio_set(doc, rp->case_idx, "block_none", "host",
				BENCH_RATIO_INSNS,
				c->m[host].insns / c->m[bn].insns, NULL, false,
				rp->insn_src == BENCH_INSNS_PERF ?
					"instructions, host raise() / engine "
					"block (none)" :
					"user-space instructions, host raise() "
					"/ engine block (none)");
		set_backend(doc, "none");
	}
}

/* ---- the subcommand ---- */

static void raise_defaults(struct bench_opts *o, bool in_report, bool quick)
{
	if (!o->reps)
		o->reps = quick ? 5 : in_report ? 15 : 5;
	/* Standalone: the kernel series' 100,000 raises per repetition. */
	if (!in_report && !o->count && !o->rep_us)
		o->count = RAISE_DEFAULT_COUNT;
	if (!o->rep_us)
		o->rep_us = quick ? 300 : 2000;
	if (quick)
		o->no_insns = true;
}

static int raise_run(struct bench_ctx *ctx, struct bench_doc *doc)
{
	unsigned set = bench_backends_selected(&ctx->opts);
	struct raise_priv *rp = calloc(1, sizeof(*rp));
	struct bench_case c = {
		.group = "raise",
		.label = "round trip",
		.ref = 0,
		.cap_rep_us = CAP_REP_US,
		.m = { { "host", host_raise, NULL, NULL, NULL },
		       { "host_tgkill", host_tgkill, NULL, NULL, NULL },
		       { FRAME_FLOOR, bench_frame_floor, NULL, NULL, NULL } },
	};
	struct sigaction old;
	int n = 3;

	if (!rp)
		bench_die("out of memory");
	doc->priv = rp;
	doc->priv_free = raise_priv_free;
	doc->print_cases = raise_print;
	doc->json_extra = raise_json;
	/* The none backend is every ratio's reference: always measured. */
	set |= BENCH_BACKEND_BIT(UA_PROTECT_NONE);
	for (enum ua_frame_mode md = UA_FRAME_PER_ACCESS; md >= UA_FRAME_BLOCK;
	     md--) {
		for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY;
		     p++) {
			struct raise_cfg *cf = &rp->cfg[rp->ncfg];
			int err;

			if (!(set & BENCH_BACKEND_BIT(p)))
				continue;
			err = cfg_open(cf, md, p);
			if (err)
				bench_die("raise: cannot create a %s space: %s",
					  ua_protect_name(p), strerror(-err));
			rp->ncfg++;
			c.m[n++] = (struct bench_method){ cf->name, NULL, cf,
							  NULL, engine_timed };
		}
	}
	c.nmeth = n;
	ctx->cases_total = 1;
	if (host_handler(&old))
		bench_die("raise: sigaction: %s", strerror(errno));
	rp->case_idx = bench_run_case(ctx, &c, doc);
	sigaction(RAISE_SIG, &old, NULL);
	bench_doc_note(doc,
		       "host raise() is %s's (glibc 2.36: gettid, getpid, tgkill; "
		       "musl: rt_sigprocmask around tkill), then delivery "
		       "and rt_sigreturn; host_tgkill is the bare tgkill",
		       libc_name());
	bench_doc_note(doc,
		       "each engine repetition is a fresh guest task "
		       "that times its own loop after %d warm-up "
		       "raises: task start and exit are not timed",
		       WARM_RAISES);
	add_ratios(doc, rp->case_idx, set);
	add_insns(ctx, doc, rp);
	return 0;
}

/* _count raise METHOD N: METHOD's loop, untimed (insns.c). */
static int raise_count_child(const char *method, uint64_t n)
{
	struct raise_cfg cf;
	struct ua_stats st;

	if (!strcmp(method, "host") || !strcmp(method, "host_tgkill")) {
		if (host_handler(NULL))
			return BENCH_EXIT_FAIL;
		(method[4] ? host_tgkill : host_raise)(NULL, n);
		return 0;
	}
	if (!strcmp(method, FRAME_FLOOR)) {
		bench_frame_floor(NULL, n);
		return 0;
	}
	for (enum ua_frame_mode md = UA_FRAME_BLOCK; md <= UA_FRAME_PER_ACCESS;
	     md++) {
		for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY;
		     p++) {
			char name[48];

			snprintf(name, sizeof(name), "%s_%s",
				 md == UA_FRAME_BLOCK ? "block" : "per_access",
				 ua_protect_name(p));
			if (strcmp(name, method))
				continue;
			if (cfg_open(&cf, md, p))
				return BENCH_EXIT_FAIL;
			engine_timed(&cf, n, &st);
			ua_space_destroy(cf.sp);
			return 0;
		}
	}
	return BENCH_EXIT_USAGE;
}

const struct bench_cmd bench_cmd_raise = {
	.name = "raise",
	.summary = "100,000-raise loop: host vs engine frames, task-clock",
	.usage = "  --protect LIST     backends, comma-separated: none, "
		 "mprotect, pkey,\n"
		 "                     auto, all (default: all available; "
		 "none is always run)\n"
		 "  --no-insns         do not count instructions\n"
		 "  (-n defaults to 100000 raises per repetition, at most "
		 "0.5 s each)\n",
	.opts = BOPT_PROTECT | BOPT_INSNS,
	.defaults = raise_defaults,
	.run = raise_run,
	.in_report = true,
	.count_child = raise_count_child,
};
