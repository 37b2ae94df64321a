// SPDX-License-Identifier: MIT
/*
 * fault: a CPU exception's signal round trip.  The code divides by zero
 * (idiv, #DE), the SIGFPE handler moves RIP past the instruction through
 * uc_mcontext, returns, and rt_sigreturn resumes the code after it: the
 * host kernel's own round trip in this process (a real SIGFPE handler,
 * installed only while the host loop runs), and the engine's with
 * per-access and with block frames under each backend, where the host's
 * SIGFPE reaches the library, which builds a full-context frame in the
 * guest task and restores the whole state on the guest's rt_sigreturn.
 * Guest code, handler and loop are the same code on both sides.
 *
 * As in raise, every configuration is a method of one case, so
 * repetitions interleave and each ratio is paired; an engine repetition
 * runs in a fresh guest task that installs the handler, warms up, then
 * times its own loop and takes the exact ua_stats delta of that loop.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include <uaccess/signal.h>

#include "uabench.h"

#define WARM_FAULTS 16
/* With -n, a repetition of a slow configuration runs fewer faults. */
#define CAP_REP_US 500000

/*
 * void bench_fault_div(void): one idiv by zero.  The handler resumes at
 * bench_fault_next; any other RIP is not this benchmark's fault.
 */
extern const char bench_fault_insn[], bench_fault_next[];
void bench_fault_div(void);
__asm__(".text\n"
	".p2align 6\n"
	".globl bench_fault_div\n"
	".type bench_fault_div, @function\n"
	"bench_fault_div:\n"
	"	xorl %ecx, %ecx\n"
	"	movl $1, %eax\n"
	"	cltd\n"
	".globl bench_fault_insn\n"
	"bench_fault_insn:\n"
	"	idivl %ecx\n"
	".globl bench_fault_next\n"
	"bench_fault_next:\n"
	"	ret\n"
	".size bench_fault_div, . - bench_fault_div\n");

struct fault_cfg {
	char name[32];
	enum ua_frame_mode mode;
	enum ua_protect p;
	struct ua_space *sp;
	const char *unavailable;
};

/* What a guest repetition reports back (monitor memory). */
struct fault_priv {
	struct fault_cfg cfg[BENCH_MAX_METH];
	int ncfg, case_idx;
};

/* Round trips completed by the handler: the loop checks every one. */
static volatile uint64_t handled;

static void fault_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	static const char msg[] = "uabench fault: a SIGFPE that is not the "
				  "benchmark's idiv\n";

	if (sig != SIGFPE || si->si_code != FPE_INTDIV ||
	    uc->uc_mcontext.gregs[REG_RIP] != (greg_t)bench_fault_insn) {
		/* Not ours: nothing sensible to resume; say so and stop. */
		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
			_exit(BENCH_EXIT_FAIL);
		_exit(BENCH_EXIT_FAIL);
	}
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)bench_fault_next;
	handled++;
}

static void fault_loop(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		bench_fault_div();
}

static void fault_sigaction(struct sigaction *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sa_sigaction = fault_handler;
	sa->sa_flags = SA_SIGINFO;
}

/* ---- host ---- */

/*
 * The kernel's round trip: the library's SIGFPE handler (installed at
 * ua_init()) gives way to the benchmark's for the loop alone.
 */
static double host_timed(void *p, uint64_t n, struct ua_stats *st)
{
	struct sigaction sa, old;
	uint64_t h0;
	double t0, ns;

	(void)p;
	fault_sigaction(&sa);
	if (sigaction(SIGFPE, &sa, &old))
		bench_die("fault: sigaction: %s", strerror(errno));
	fault_loop(WARM_FAULTS);
	h0 = handled;
	t0 = bench_now_ns();
	fault_loop(n);
	ns = bench_now_ns() - t0;
	if (handled - h0 != n)
		bench_die("fault: host: %llu faults handled of %llu",
			  (unsigned long long)(handled - h0),
			  (unsigned long long)n);
	sigaction(SIGFPE, &old, NULL);
	memset(st, 0, sizeof(*st));
	return ns;
}

/* ---- engine ---- */

static void guest_main(void *p)
{
	struct bench_job *j = p;
	struct sigaction sa; /* guest memory: on the guest stack */
	struct ua_stats a;
	uint64_t h0;
	double t0;

	fault_sigaction(&sa);
	if (ua_sys_sigaction(SIGFPE, &sa, NULL))
		goto fail;
	fault_loop(WARM_FAULTS);
	h0 = handled;
	ua_stats_get(&a);
	t0 = bench_now_ns();
	fault_loop(j->n);
	j->ns = bench_now_ns() - t0;
	bench_stats_since(&a, &j->st);
	if (handled - h0 != j->n) {
		errno = EPROTO;
		goto fail;
	}
	ua_sys_exit(0);
fail:
	j->err = errno ? errno : EIO;
	ua_sys_exit(1);
}

static double engine_timed(void *p, uint64_t n, struct ua_stats *st)
{
	struct fault_cfg *c = p;
	struct bench_job j = { .n = n };

	return bench_job_run("fault", c->name, c->sp, c->mode, guest_main, &j,
			     st);
}

static void cfg_name(struct fault_cfg *c, enum ua_frame_mode mode,
		     enum ua_protect p)
{
	c->mode = mode;
	c->p = p;
	snprintf(c->name, sizeof(c->name), "%s_%s",
		 mode == UA_FRAME_BLOCK ? "block" : "per_access",
		 ua_protect_name(p));
}

static int cfg_open(struct fault_cfg *c)
{
	struct ua_space_opts so = { .protect = c->p };

	/* Room for the stack, its guard page and nothing else. */
	c->sp = ua_space_create(BENCH_JOB_STACK + (64 << 10), &so);
	return c->sp ? 0 : -errno;
}

static void fault_priv_free(void *p)
{
	struct fault_priv *fp = p;

	for (int i = 0; fp && i < fp->ncfg; i++)
		ua_space_destroy(fp->cfg[i].sp);
	free(fp);
}

/* ---- output ---- */

static const char *cfg_title(char *b, size_t n, const char *method)
{
	if (!strcmp(method, "host"))
		snprintf(b, n, "host kernel (SIGFPE)");
	else if (!strncmp(method, "block_", 6))
		snprintf(b, n, "engine block %s", method + 6);
	else
		snprintf(b, n, "engine per-access %s", method + 11);
	return b;
}

static void fault_print(FILE *f, const struct bench_doc *doc, bool md)
{
	const struct fault_priv *fp = doc->priv;
	const struct bench_case_res *c = &doc->cases[fp->case_idx];
	char t[48], a[32], b[32], sw[32], w[32];

	fprintf(f,
		"\n%sidiv by zero -> SIGFPE handler (RIP += insn) -> "
		"rt_sigreturn, thread CPU\ntime, median of %u repetitions; "
		"host/engine: host time / engine time,\npaired by repetition "
		"(>= 1: the engine is at least as fast); counts exact\n\n",
		md ? "" : "fault: ", doc->opts.reps);
	if (md)
		fprintf(f, "| configuration | ns per round trip | host/engine "
			   "| switches per round trip | windows per round "
			   "trip |\n|---|---|---|---|---|\n");
	else
		fprintf(f, "  %-27s %10s %11s %9s %8s\n", "configuration",
			"ns/trip", "host/engine", "switches", "windows");
	for (int i = 0; i < c->nmeth; i++) {
		const struct bench_meas *m = &c->m[i];

		cfg_title(t, sizeof(t), m->method);
		if (m->unavailable) {
			if (md)
				fprintf(f, "| %s | skipped: %s | | | |\n", t,
					m->unavailable);
			else
				fprintf(f, "  %-27s skipped: %s\n", t,
					m->unavailable);
			continue;
		}
		snprintf(a, sizeof(a), "%.0f", m->ns_med);
		bench_fmt_ratio(b, sizeof(b), m->ratio);
		bench_fmt_count(sw, sizeof(sw), m->counts.switches,
				m->counts.ops);
		bench_fmt_count(w, sizeof(w), m->counts.windows, m->counts.ops);
		if (md)
			fprintf(f, "| %s | %s | %s | %s | %s |\n", t, a,
				i == c->ref ? "-" : b, sw, w);
		else
			fprintf(f, "  %-27s %10s %11s %9s %8s\n", t, a,
				i == c->ref ? "-" : b, sw, w);
	}
}

/* ---- ratios ---- */

static void add_ratios(struct bench_doc *doc, const struct fault_priv *fp)
{
	for (int i = 0; i < fp->ncfg; i++) {
		const struct fault_cfg *cf = &fp->cfg[i];
		bool judged = cf->p == UA_PROTECT_NONE;
		char what[160];

		/* Skipped: its table row says why. */
		if (cf->unavailable)
			continue;
		/*
		 * The target is the engine's own cost (none); a real
		 * backend adds its switches: reported beside it.
		 */
		snprintf(what, sizeof(what),
			 "guest SIGFPE round trip, host/engine, %s frames",
			 bench_frame_name(cf->mode));
		bench_ratio_add(doc, fp->case_idx, cf->name, "host",
				"fault_vs_host", judged, what);
		snprintf(doc->ratios[doc->nratios - 1].backend,
			 sizeof(doc->ratios[0].backend), "%s",
			 ua_protect_name(cf->p));
	}
}

/* ---- the subcommand ---- */

static void fault_defaults(struct bench_opts *o, bool in_report, bool quick)
{
	if (!o->reps)
		o->reps = quick ? 5 : in_report ? 15 : 11;
	if (!o->rep_us)
		o->rep_us = quick ? 300 : 2000;
}

/* Each frame mode × backend: measured, or skipped with the reason. */
static void add_cfgs(struct fault_priv *fp, const struct bench_opts *o)
{
	unsigned set = bench_backends_selected(o);

	set |= BENCH_BACKEND_BIT(UA_PROTECT_NONE);
	for (enum ua_frame_mode md = UA_FRAME_PER_ACCESS; md >= UA_FRAME_BLOCK;
	     md--) {
		for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY;
		     p++) {
			struct fault_cfg *cf = &fp->cfg[fp->ncfg];
			const char *why = NULL;
			int err;

			/* Not chosen with --protect: not a row at all. */
			if (o->backends && !(set & BENCH_BACKEND_BIT(p)))
				continue;
			cfg_name(cf, md, p);
			fp->ncfg++;
			if (!ua_protect_available(p, &why)) {
				cf->unavailable = why ? why : "not available";
				continue;
			}
			err = cfg_open(cf);
			if (err)
				bench_die("fault: cannot create a %s space: %s",
					  ua_protect_name(p), strerror(-err));
		}
	}
}

static int fault_run(struct bench_ctx *ctx, struct bench_doc *doc)
{
	struct fault_priv *fp = calloc(1, sizeof(*fp));
	struct bench_case c = {
		.group = "fault",
		.label = "SIGFPE round trip",
		.ref = 0,
		.cap_rep_us = CAP_REP_US,
		.m = { { "host", NULL, NULL, NULL, host_timed } },
	};

	if (!fp)
		bench_die("out of memory");
	doc->priv = fp;
	doc->priv_free = fault_priv_free;
	doc->print_cases = fault_print;
	add_cfgs(fp, &ctx->opts);
	for (int i = 0; i < fp->ncfg; i++)
		c.m[i + 1] = (struct bench_method){ fp->cfg[i].name, NULL,
						    &fp->cfg[i],
						    fp->cfg[i].unavailable,
						    engine_timed };
	c.nmeth = fp->ncfg + 1;
	ctx->cases_total = 1;
	fp->case_idx = bench_run_case(ctx, &c, doc);
	bench_doc_note(doc, "host: this process with its own SIGFPE handler "
			    "(SA_SIGINFO) in place of the library's while "
			    "its loop runs; the same handler and idiv code "
			    "run as guest code in the engine rows");
	bench_doc_note(doc,
		       "each engine repetition is a fresh guest task that "
		       "times its own loop after %d warm-up faults: task "
		       "start and exit are not timed",
		       WARM_FAULTS);
	add_ratios(doc, fp);
	return 0;
}

const struct bench_cmd bench_cmd_fault = {
	.name = "fault",
	.summary = "guest SIGFPE round trip (idiv by zero) vs the host "
		   "kernel's",
	.usage = "  --protect LIST     backends, comma-separated: none, "
		 "mprotect, pkey,\n"
		 "                     auto, all (default: every backend; "
		 "one not available\n"
		 "                     here is a row skipped with the reason; "
		 "none is always run)\n",
	.opts = BOPT_PROTECT,
	.defaults = fault_defaults,
	.run = fault_run,
	.in_report = true,
};
