// SPDX-License-Identifier: MIT
/*
 * The measurement engine.  Machines running this are small and shared, so
 * no figure is an absolute time taken alone: the methods of a case run
 * with fixed operation counts, interleaved repetition by repetition (the
 * order rotated each time so none always runs first), and a ratio is the
 * median over repetitions of the two methods' times in the same
 * repetition.  Protection switches, windows and fixups come from ua_stats
 * and are exact.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef __x86_64__
#include <cpuid.h>
#include <x86intrin.h>
#endif

#include "uabench.h"

/*
 * The clock repetitions are timed with.  By default the thread's CPU time:
 * on a small shared machine a repetition may be descheduled, and CPU time
 * leaves those gaps out (system time in the kernel, as in process_vm_readv
 * or mprotect, is still counted).  --clock tsc or monotonic give wall time.
 */
static enum bench_clock clock_kind;
static bool tsc_invariant;
static double ns_per_tick;

static double ts_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double bench_wall_ns(void)
{
	return ts_ns(CLOCK_MONOTONIC);
}

#ifdef __x86_64__
/*
 * CPUID 0x80000007 EDX bit 8, "invariant TSC" (Intel SDM vol. 3,
 * "Invariant TSC"; AMD APM "TscInvariant"): the TSC ticks at one rate in
 * every P-, C- and T-state, so it is a clock and cheap to read.  Without
 * it the TSC may stop or change speed, and --clock tsc is refused.
 */
static bool cpu_tsc_invariant(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return false;
	__get_cpuid(0x80000007, &a, &b, &c, &d);
	return d & (1u << 8);
}

static inline uint64_t tsc_read(void)
{
	/* lfence: rdtsc must not start before earlier work has finished. */
	_mm_lfence();
	return __rdtsc();
}

/* TSC ticks per ns against CLOCK_MONOTONIC over 20 ms. */
static void tsc_calibrate(void)
{
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	double t0, t1;
	uint64_t c0, c1;

	t0 = bench_wall_ns();
	c0 = tsc_read();
	nanosleep(&nap, NULL);
	t1 = bench_wall_ns();
	c1 = tsc_read();
	ns_per_tick = (t1 - t0) / (double)(c1 - c0);
}
#else
static bool cpu_tsc_invariant(void)
{
	return false;
}

static inline uint64_t tsc_read(void)
{
	return 0;
}

static void tsc_calibrate(void)
{
}
#endif

bool bench_tsc_invariant(void)
{
	return tsc_invariant;
}

void bench_clock_init(enum bench_clock kind)
{
	tsc_invariant = cpu_tsc_invariant();
	clock_kind = kind;
	if (kind == BENCH_CLOCK_TSC)
		tsc_calibrate();
}

double bench_now_ns(void)
{
	switch (clock_kind) {
	case BENCH_CLOCK_TSC:
		return (double)tsc_read() * ns_per_tick;
	case BENCH_CLOCK_MONOTONIC:
		return ts_ns(CLOCK_MONOTONIC);
	default:
		return ts_ns(CLOCK_THREAD_CPUTIME_ID);
	}
}

const char *bench_clock_name(void)
{
	static const char *const names[] = { "cputime", "tsc", "monotonic" };

	return names[clock_kind];
}

double bench_tsc_ghz(void)
{
	return clock_kind == BENCH_CLOCK_TSC ? 1.0 / ns_per_tick : 0;
}

void bench_die(const char *fmt, ...)
{
	va_list ap;

	fputs("uabench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(BENCH_EXIT_FAIL);
}

const char *bench_frame_name(enum ua_frame_mode mode)
{
	return mode == UA_FRAME_BLOCK ? "block" : "per-access";
}

void bench_stats_since(const struct ua_stats *since, struct ua_stats *out)
{
	struct ua_stats now;

	ua_stats_get(&now);
	out->switches = now.switches - since->switches;
	out->windows = now.windows - since->windows;
	out->fixups = now.fixups - since->fixups;
}

double bench_job_run(const char *cmd, const char *cfg, struct ua_space *sp,
		     enum ua_frame_mode mode, void (*main)(void *),
		     struct bench_job *j, struct ua_stats *st)
{
	struct ua_task_opts to = { .stack_size = BENCH_JOB_STACK,
				   .frame_mode = mode };
	struct ua_task *t = ua_task_create(sp, main, j, &to);
	int status;

	if (!t)
		bench_die("%s: cannot create a task: %s", cmd, strerror(errno));
	status = ua_task_run(t);
	ua_task_destroy(t);
	if (status != 0 || j->err)
		bench_die("%s: %s: the guest task ended with status %#x (%s)",
			  cmd, cfg, status, strerror(j->err));
	*st = j->st;
	return j->ns;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The q-quantile of v[0..n) by linear interpolation (q = 0.5: median). */
static double quantile(const double *v, unsigned n, double q)
{
	double s[BENCH_MAX_REPS], pos;
	unsigned k;

	if (!n)
		return NAN;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	pos = q * (n - 1);
	k = (unsigned)pos;
	if (k + 1 >= n)
		return s[n - 1];
	return s[k] + (pos - k) * (s[k + 1] - s[k]);
}

double bench_median(const double *v, unsigned n)
{
	return quantile(v, n, 0.5);
}

/*
 * den's time / num's time in each repetition (num's speed-up); the
 * median, and the quartiles when q1/q3 are given.
 */
static double paired_ratio(const struct bench_meas *num,
			   const struct bench_meas *den, double *q1, double *q3)
{
	double v[BENCH_MAX_REPS];
	unsigned n = num->reps < den->reps ? num->reps : den->reps;

	if (num->unavailable || den->unavailable)
		n = 0;
	for (unsigned r = 0; r < n; r++)
		v[r] = den->ns[r] / num->ns[r];
	if (q1)
		*q1 = quantile(v, n, 0.25);
	if (q3)
		*q3 = quantile(v, n, 0.75);
	return bench_median(v, n);
}

static double time_run(const struct bench_method *m, uint64_t n)
{
	struct ua_stats st;
	double t0;

	if (m->timed)
		return m->timed(m->arg, n, &st);
	t0 = bench_now_ns();
	m->fn(m->arg, n);
	return bench_now_ns() - t0;
}

/*
 * Operations that take about target_ns, a multiple of @mult.  The first
 * run only warms up (page faults, caches, branch predictors): it is not
 * a measurement.
 */
static uint64_t calibrate(const struct bench_method *m, double target_ns,
			  uint64_t mult)
{
	uint64_t n = mult;

	time_run(m, n);
	for (;;) {
		double t = time_run(m, n), mul;

		if (t >= target_ns / 2 || n >= (1ull << 36)) {
			double k = t > 0 ? target_ns / t : 1;
			uint64_t r = (uint64_t)((double)n * k);

			r = (r + mult - 1) / mult * mult;
			return r ? r : mult;
		}
		mul = t > 0 ? target_ns / t : 1000;
		mul = mul < 2 ? 2 : mul > 1000 ? 1000 : mul;
		n = (uint64_t)((double)n * mul);
	}
}

/* A progress line naming @what; cases_done/cases_total when known. */
void bench_progress_line(struct bench_ctx *ctx, const char *what)
{
	double el;

	if (!ctx->progress)
		return;
	el = (bench_wall_ns() - ctx->start_ns) / 1e9;
	/* Short runs stay quiet: a progress line only after a second. */
	if (el < 1.0)
		return;
	fprintf(stderr, "\r\033[K%s: %s", ctx->prog_name, what);
	if (ctx->cases_total)
		fprintf(stderr, " [%u/%u]", ctx->cases_done + 1,
			ctx->cases_total);
	fprintf(stderr, " %.0fs", el);
	fflush(stderr);
	ctx->progress_shown = true;
}

static void progress(struct bench_ctx *ctx, const struct bench_case *c)
{
	char what[128];

	snprintf(what, sizeof(what), "%s%s%s %s", c->group,
		 c->backend ? " " : "", c->backend ? c->backend : "", c->label);
	bench_progress_line(ctx, what);
}

void bench_progress_done(struct bench_ctx *ctx)
{
	if (ctx->progress_shown)
		fputs("\r\033[K", stderr);
	ctx->progress_shown = false;
}

struct bench_case_res *bench_case_add(struct bench_doc *doc)
{
	if (doc->ncases == doc->cap_cases) {
		int cap = doc->cap_cases ? doc->cap_cases * 2 : 32;
		void *p = realloc(doc->cases, cap * sizeof(*doc->cases));

		if (!p)
			bench_die("out of memory");
		doc->cases = p;
		doc->cap_cases = cap;
	}
	memset(&doc->cases[doc->ncases], 0, sizeof(*doc->cases));
	return &doc->cases[doc->ncases++];
}

static void count_run(const struct bench_method *m, struct bench_meas *r)
{
	struct ua_stats st;

	if (m->timed) {
		m->timed(m->arg, r->ops, &st);
	} else {
		ua_stats_reset();
		m->fn(m->arg, r->ops);
		ua_stats_get(&st);
	}
	r->counts.ops = r->ops;
	r->counts.switches = st.switches;
	r->counts.windows = st.windows;
	r->counts.fixups = st.fixups;
}

static void summarise(struct bench_case_res *res)
{
	for (int i = 0; i < res->nmeth; i++) {
		struct bench_meas *r = &res->m[i];

		if (r->unavailable) {
			r->ns_med = r->ns_min = r->ns_max = r->ratio = NAN;
			continue;
		}
		r->ns_med = bench_median(r->ns, r->reps);
		r->ns_min = r->ns_max = r->ns[0];
		for (unsigned k = 1; k < r->reps; k++) {
			r->ns_min = fmin(r->ns_min, r->ns[k]);
			r->ns_max = fmax(r->ns_max, r->ns[k]);
		}
		r->ratio = paired_ratio(r, &res->m[res->ref], NULL, NULL);
	}
}

/*
 * The operations per repetition: calibrated to @target ns, or -n, capped
 * for a case with cap_rep_us by a 20 ms calibration scaled up to the cap.
 */
static uint64_t fixed_ops(const struct bench_opts *o,
			  const struct bench_case *c,
			  const struct bench_method *m, double target)
{
	uint64_t mult = c->ops_multiple ? c->ops_multiple : 1, cap;
	double probe = 20e6, cap_ns = (double)c->cap_rep_us * 1e3;

	if (!o->count)
		return calibrate(m, target, mult);
	if (!c->cap_rep_us)
		return o->count;
	if (probe > cap_ns)
		probe = cap_ns;
	cap = (uint64_t)((double)calibrate(m, probe, mult) * (cap_ns / probe));
	cap = cap / mult * mult;
	if (!cap)
		cap = mult;
	return cap < o->count ? cap : o->count;
}

int bench_run_case(struct bench_ctx *ctx, const struct bench_case *c,
		   struct bench_doc *doc)
{
	const struct bench_opts *o = &ctx->opts;
	struct bench_case_res *res = bench_case_add(doc);
	double target = (double)o->rep_us * 1000.0;
	unsigned reps = o->reps;

	progress(ctx, c);
	snprintf(res->group, sizeof(res->group), "%s", c->group);
	snprintf(res->backend, sizeof(res->backend), "%s",
		 c->backend ? c->backend : "");
	snprintf(res->label, sizeof(res->label), "%s", c->label);
	res->size = c->size;
	res->nmeth = c->nmeth;
	res->ref = c->ref;
	for (int i = 0; i < c->nmeth; i++) {
		struct bench_meas *r = &res->m[i];

		snprintf(r->method, sizeof(r->method), "%s", c->m[i].name);
		r->unavailable = c->m[i].unavailable;
		r->insns = NAN;
		if (r->unavailable)
			continue;
		r->ops = fixed_ops(o, c, &c->m[i], target);
		r->reps = reps;
		count_run(&c->m[i], r);
	}
	for (unsigned k = 0; k < reps; k++) {
		for (int j = 0; j < c->nmeth; j++) {
			int i = (int)((j + k) % (unsigned)c->nmeth);
			struct bench_meas *r = &res->m[i];

			if (r->unavailable)
				continue;
			r->ns[k] = time_run(&c->m[i], r->ops) / (double)r->ops;
		}
	}
	summarise(res);
	ctx->cases_done++;
	return doc->ncases - 1;
}

int bench_meas_index(const struct bench_case_res *c, const char *method)
{
	for (int i = 0; i < c->nmeth; i++) {
		if (!strcmp(c->m[i].method, method))
			return i;
	}
	return -1;
}

static struct bench_ratio *ratio_new(struct bench_doc *doc)
{
	struct bench_ratio *r;

	if (doc->nratios == doc->cap_ratios) {
		int cap = doc->cap_ratios ? doc->cap_ratios * 2 : 16;
		void *p = realloc(doc->ratios, cap * sizeof(*doc->ratios));

		if (!p)
			bench_die("out of memory");
		doc->ratios = p;
		doc->cap_ratios = cap;
	}
	r = &doc->ratios[doc->nratios++];
	memset(r, 0, sizeof(*r));
	return r;
}

void bench_ratio_add(struct bench_doc *doc, int case_idx, const char *num,
		     const char *den, const char *target_key,
		     bool target_applies, const char *what)
{
	const struct bench_case_res *c = &doc->cases[case_idx];
	struct bench_ratio *r;
	int a = bench_meas_index(c, num), b = bench_meas_index(c, den);

	if (a < 0 || b < 0)
		bench_die("internal: no method %s or %s in %s", num, den,
			  c->group);
	r = ratio_new(doc);
	snprintf(r->name, sizeof(r->name), "%s/%s%s%s/%s/%s_vs_%s",
		 doc->subcommand, c->group, c->backend[0] ? "/" : "",
		 c->backend, c->label, num, den);
	snprintf(r->what, sizeof(r->what), "%s", what);
	snprintf(r->backend, sizeof(r->backend), "%s", c->backend);
	r->case_idx = case_idx;
	r->num = a;
	r->den = b;
	r->value = paired_ratio(&c->m[a], &c->m[b], &r->q1, &r->q3);
	r->target_key = target_key;
	r->target_applies = target_applies;
	r->not_run = c->m[a].unavailable ? c->m[a].unavailable :
					   c->m[b].unavailable;
}

/*
 * A figure the subcommand computed itself: a speed ratio of unpaired runs
 * (signal1's averages), an instruction ratio, or, with @den NULL, an
 * exact count per operation of @num (BENCH_RATIO_COUNT) or a latency of
 * @num in microseconds (BENCH_RATIO_LATENCY).  No quartiles.
 */
void bench_ratio_set(struct bench_doc *doc, int case_idx, const char *num,
		     const char *den, enum bench_ratio_kind kind, double value,
		     const char *target_key, bool target_applies,
		     const char *what)
{
	const struct bench_case_res *c = &doc->cases[case_idx];
	int a = bench_meas_index(c, num),
	    b = den ? bench_meas_index(c, den) : a;
	static const char *const suffix[] = { "", "_per_op", "_insns",
					      "_p99_us" };
	struct bench_ratio *r;

	if (a < 0 || b < 0)
		bench_die("internal: no method %s or %s in %s", num,
			  den ? den : "-", c->group);
	r = ratio_new(doc);
	if (den)
		snprintf(r->name, sizeof(r->name), "%s/%s%s%s/%s/%s_vs_%s%s",
			 doc->subcommand, c->group, c->backend[0] ? "/" : "",
			 c->backend, c->label, num, den, suffix[kind]);
	else
		snprintf(r->name, sizeof(r->name), "%s/%s%s%s/%s/%s%s%s",
			 doc->subcommand, c->group, c->backend[0] ? "/" : "",
			 c->backend, c->label, num,
			 kind == BENCH_RATIO_COUNT ? "_switches" : "",
			 suffix[kind]);
	snprintf(r->what, sizeof(r->what), "%s", what);
	snprintf(r->backend, sizeof(r->backend), "%s", c->backend);
	r->case_idx = case_idx;
	r->num = a;
	r->den = b;
	r->kind = kind;
	r->value = value;
	r->q1 = r->q3 = NAN;
	r->target_key = target_key;
	r->target_applies = target_applies;
}

void bench_doc_note(struct bench_doc *doc, const char *fmt, ...)
{
	va_list ap;

	if (doc->nnotes == (int)(sizeof(doc->notes) / sizeof(doc->notes[0])))
		return;
	va_start(ap, fmt);
	vsnprintf(doc->notes[doc->nnotes++], sizeof(doc->notes[0]), fmt, ap);
	va_end(ap);
}

void bench_doc_free(struct bench_doc *doc)
{
	free(doc->cases);
	free(doc->ratios);
	if (doc->priv_free)
		doc->priv_free(doc->priv);
	doc->cases = NULL;
	doc->ratios = NULL;
	doc->priv = NULL;
}
