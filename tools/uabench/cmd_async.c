// SPDX-License-Identifier: MIT
/*
 * async: the latency of an asynchronous signal, from the send on one
 * thread to the first instruction of the handler in a task that spins on
 * another thread without making a system call.  The engine rows send with
 * ua_task_kill() from the monitor to a guest task (the library kicks the
 * task's thread with its interrupt signal and delivers at the interrupted
 * instruction with a full-context frame); the host row, for context,
 * sends with pthread_kill() to a native thread spinning in the same loop
 * with a real handler.
 *
 * One sample: the sender waits until the spinning code has seen the
 * previous handler return (so the target is back in its loop, in guest
 * mode), reads the clock, sends; the handler reads the same clock first
 * thing.  Two CPUs' readings are compared, so the clock is the TSC only
 * where the kernel keeps time with it (it is invariant, and the kernel has
 * found it synchronised across CPUs), else CLOCK_MONOTONIC; --clock tsc
 * or monotonic chooses.  The samples of a configuration are split
 * over -r rounds, and each round runs every configuration once, the order
 * rotated, so a change in the machine's load hits every row alike; the
 * median and the p99 are over all samples of a configuration.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef __x86_64__
#include <x86intrin.h>
#endif

#include <uaccess/signal.h>

#include "uabench.h"

#define ASYNC_SIG SIGUSR1
#define GUEST_STACK ((size_t)64 << 10)
#define DEFAULT_SAMPLES 10000
#define QUICK_SAMPLES 500
#define MAX_SAMPLES 10000000
/*
 * A round of a configuration stops after -T microseconds of wall time
 * (default 0.4 s: 2 s per configuration over the 5 rounds), so a slow
 * configuration on a busy machine takes fewer samples, not minutes.
 */
#define DEFAULT_ROUND_US 400000
#define QUICK_ROUND_US 100000
/* A send whose handler has not run after this long is a lost signal. */
#define LOST_NS 10e9
/*
 * The sender spins this long for the handler, then yields the CPU at each
 * look: the spinning target may share its CPU, and must get it.
 */
#define SPIN_NS 100000.0
#define MAX_CFG (BENCH_MAX_METH - 1)

/* What the spinning thread and the sender share (monitor memory). */
struct async_job {
	_Atomic uint64_t handled; /* handler entries */
	_Atomic uint64_t ack;	  /* handled, as the loop last saw it */
	_Atomic int ready, stop;
	volatile uint64_t t_entry; /* clock at the last handler entry */
	int err;
	struct ua_stats st; /* engine: over the deliveries alone */
};

struct async_cfg {
	char name[32];
	bool host;
	enum ua_frame_mode mode;
	enum ua_protect p;
	struct ua_space *sp;
	const char *unavailable;
	double *lat;	    /* ns, one per sample taken */
	uint64_t n;	    /* samples taken */
	struct ua_stats st; /* over every delivery of every round */
	double q[5];	    /* min, median, p90, p99, max (ns) */
	double round_med[BENCH_MAX_REPS];
	unsigned rounds;
};

struct async_priv {
	struct async_cfg cfg[MAX_CFG];
	int ncfg, case_idx;
	bool tsc;
	double ns_per_tick;
	uint64_t samples; /* asked for, per configuration */
	unsigned rounds;
	double round_ns; /* a round's cap */
	int irq_sig;
};

/* The job the handler reports to: one configuration runs at a time. */
static struct async_job *volatile cur_job;
static bool use_tsc;

static inline uint64_t lat_now(void)
{
#ifdef __x86_64__
	if (use_tsc)
		return __rdtsc();
#endif
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Guest (or host) handler: the clock first, then the count. */
static void async_handler(int sig)
{
	uint64_t t = lat_now();
	struct async_job *j = cur_job;

	(void)sig;
	j->t_entry = t;
	atomic_fetch_add_explicit(&j->handled, 1, memory_order_release);
}

/* The loop a signal interrupts: loads and stores, no system call. */
static void spin(struct async_job *j)
{
	uint64_t seen = 0;

	while (!atomic_load_explicit(&j->stop, memory_order_relaxed)) {
		uint64_t h =
			atomic_load_explicit(&j->handled, memory_order_acquire);

		if (h != seen) {
			seen = h;
			atomic_store_explicit(&j->ack, h, memory_order_release);
		}
	}
}

/* ---- the spinning side ---- */

static void *host_spinner(void *p)
{
	struct async_job *j = p;

	atomic_store_explicit(&j->ready, 1, memory_order_release);
	spin(j);
	return NULL;
}

static void guest_main(void *p)
{
	struct async_job *j = p;
	struct sigaction sa; /* guest memory: on the guest stack */
	struct ua_stats a;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = async_handler;
	if (ua_sys_sigaction(ASYNC_SIG, &sa, NULL)) {
		j->err = errno ? errno : EIO;
		atomic_store_explicit(&j->ready, -1, memory_order_release);
		ua_sys_exit(1);
	}
	ua_stats_get(&a);
	atomic_store_explicit(&j->ready, 1, memory_order_release);
	spin(j);
	bench_stats_since(&a, &j->st);
	ua_sys_exit(0);
}

struct guest_run {
	struct ua_task *t;
	int status;
};

static void *guest_runner(void *p)
{
	struct guest_run *g = p;

	g->status = ua_task_run(g->t);
	return NULL;
}

/* ---- the sender ---- */

static bool wait_for(_Atomic uint64_t *v, uint64_t want, double t0)
{
	for (;;) {
		double el;

		if (atomic_load_explicit(v, memory_order_acquire) >= want)
			return true;
		el = bench_wall_ns() - t0;
		if (el > LOST_NS)
			return false;
		if (el > SPIN_NS)
			sched_yield();
#ifdef __x86_64__
		else
			_mm_pause();
#endif
	}
}

static void wait_ready(struct async_job *j, const char *name)
{
	double t0 = bench_wall_ns();

	while (!atomic_load_explicit(&j->ready, memory_order_acquire)) {
		if (bench_wall_ns() - t0 > LOST_NS)
			bench_die("async: %s: the spinning thread never "
				  "started",
				  name);
		sched_yield();
	}
}

/*
 * @n samples into cf->lat, sending with ua_task_kill() (@t) or
 * pthread_kill() (@th); stops early once the configuration's time is up.
 */
static void sample(struct async_priv *ap, struct async_cfg *cf,
		   struct async_job *j, struct ua_task *t, pthread_t th,
		   uint64_t n)
{
	double start = bench_wall_ns();

	for (uint64_t i = 0; i < n; i++) {
		uint64_t t0, t1;
		double now = bench_wall_ns();
		int err;

		/*
		 * At least one sample: on a loaded machine the thread may
		 * lose the CPU for longer than the round between the two
		 * clock reads, and a round with none would be no measure.
		 */
		if (i && now - start > ap->round_ns)
			break;
		t0 = lat_now();
		err = t ? ua_task_kill(t, ASYNC_SIG) :
			  pthread_kill(th, ASYNC_SIG);
		if (err)
			bench_die("async: %s: send: %s", cf->name,
				  strerror(err < 0 ? -err : err));
		if (!wait_for(&j->handled, i + 1, now) ||
		    !wait_for(&j->ack, i + 1, now))
			bench_die("async: %s: signal %llu not handled after "
				  "%.0f s",
				  cf->name, (unsigned long long)i + 1,
				  LOST_NS / 1e9);
		t1 = j->t_entry;
		cf->lat[cf->n++] = (double)(int64_t)(t1 - t0) *
				   (ap->tsc ? ap->ns_per_tick : 1.0);
	}
}

static void round_host(struct async_priv *ap, struct async_cfg *cf, uint64_t n)
{
	struct async_job j = { 0 };
	struct sigaction sa, old;
	pthread_t th;
	int err;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = async_handler;
	if (sigaction(ASYNC_SIG, &sa, &old))
		bench_die("async: sigaction: %s", strerror(errno));
	cur_job = &j;
	err = pthread_create(&th, NULL, host_spinner, &j);
	if (err)
		bench_die("async: pthread_create: %s", strerror(err));
	wait_ready(&j, cf->name);
	sample(ap, cf, &j, NULL, th, n);
	atomic_store_explicit(&j.stop, 1, memory_order_relaxed);
	pthread_join(th, NULL);
	cur_job = NULL;
	sigaction(ASYNC_SIG, &old, NULL);
}

static void round_engine(struct async_priv *ap, struct async_cfg *cf,
			 uint64_t n)
{
	struct ua_task_opts to = { .stack_size = GUEST_STACK,
				   .frame_mode = cf->mode };
	struct async_job j = { 0 };
	struct guest_run g = { 0 };
	pthread_t th;
	int err;

	g.t = ua_task_create(cf->sp, guest_main, &j, &to);
	if (!g.t)
		bench_die("async: cannot create a task: %s", strerror(errno));
	cur_job = &j;
	err = pthread_create(&th, NULL, guest_runner, &g);
	if (err)
		bench_die("async: pthread_create: %s", strerror(err));
	wait_ready(&j, cf->name);
	/* The handler is in place once a task has run (ua_task_run()). */
	if (atomic_load(&j.ready) > 0 && !ua_interrupt_signal())
		cf->unavailable = "no interrupt signal (UA_INTERRUPT_SIGNAL="
				  "none, or the program handles it): a "
				  "spinning guest is not interrupted";
	if (atomic_load(&j.ready) > 0 && !cf->unavailable)
		sample(ap, cf, &j, g.t, 0, n);
	atomic_store_explicit(&j.stop, 1, memory_order_relaxed);
	pthread_join(th, NULL);
	cur_job = NULL;
	ua_task_destroy(g.t);
	if (g.status != 0 || j.err)
		bench_die("async: %s: the guest task ended with status %#x "
			  "(%s)",
			  cf->name, g.status, strerror(j.err));
	cf->st.switches += j.st.switches;
	cf->st.windows += j.st.windows;
	cf->st.fixups += j.st.fixups;
}

/* ---- statistics ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The q-quantile of sorted s[0..n), linear between ranks. */
static double quantile(const double *s, uint64_t n, double q)
{
	double pos;
	uint64_t k;

	if (!n)
		return NAN;
	pos = q * (double)(n - 1);
	k = (uint64_t)pos;
	if (k + 1 >= n)
		return s[n - 1];
	return s[k] + (pos - (double)k) * (s[k + 1] - s[k]);
}

static double median_of(double *v, uint64_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return quantile(v, n, 0.5);
}

/* ---- set-up ---- */

/*
 * The kernel keeps time with the TSC only while its checks find the TSC
 * synchronised across CPUs (arch/x86/kernel/tsc_sync.c, and the
 * clocksource watchdog, which marks it unstable otherwise).
 */
static bool kernel_clock_is_tsc(void)
{
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/"
			"current_clocksource",
			"r");
	char buf[32] = "";
	bool tsc;

	if (!f)
		return false;
	tsc = fgets(buf, sizeof(buf), f) && !strcmp(buf, "tsc\n");
	fclose(f);
	return tsc;
}

#ifdef __x86_64__
static double tsc_ns_per_tick(void)
{
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	double t0 = bench_wall_ns(), t1;
	uint64_t c0 = __rdtsc(), c1;

	nanosleep(&nap, NULL);
	t1 = bench_wall_ns();
	c1 = __rdtsc();
	return (t1 - t0) / (double)(c1 - c0);
}
#else
static double tsc_ns_per_tick(void)
{
	return 1.0;
}
#endif

static void cfg_engine(struct async_cfg *cf, enum ua_frame_mode md,
		       enum ua_protect p)
{
	struct ua_space_opts so = { .protect = p };
	const char *why = NULL;

	cf->mode = md;
	cf->p = p;
	snprintf(cf->name, sizeof(cf->name), "%s_%s",
		 md == UA_FRAME_BLOCK ? "block" : "per_access",
		 ua_protect_name(p));
	if (!ua_protect_available(p, &why)) {
		cf->unavailable = why ? why : "not available";
		return;
	}
	cf->sp = ua_space_create(GUEST_STACK + (64 << 10), &so);
	if (!cf->sp)
		bench_die("async: cannot create a %s space: %s",
			  ua_protect_name(p), strerror(errno));
}

static void add_cfgs(struct async_priv *ap, const struct bench_opts *o)
{
	unsigned set = bench_backends_selected(o);

	set |= BENCH_BACKEND_BIT(UA_PROTECT_NONE);
	snprintf(ap->cfg[0].name, sizeof(ap->cfg[0].name), "host");
	ap->cfg[0].host = true;
	ap->ncfg = 1;
	for (enum ua_frame_mode md = UA_FRAME_PER_ACCESS; md >= UA_FRAME_BLOCK;
	     md--) {
		for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY;
		     p++) {
			if (o->backends && !(set & BENCH_BACKEND_BIT(p)))
				continue;
			if (ap->ncfg == MAX_CFG)
				return;
			cfg_engine(&ap->cfg[ap->ncfg++], md, p);
		}
	}
}

static void measure(struct bench_ctx *ctx, struct async_priv *ap)
{
	for (int i = 0; i < ap->ncfg; i++) {
		ap->cfg[i].lat = calloc(ap->samples, sizeof(double));
		if (!ap->cfg[i].lat)
			bench_die("out of memory");
	}
	for (unsigned r = 0; r < ap->rounds; r++) {
		uint64_t n = ap->samples / ap->rounds +
			     (r < ap->samples % ap->rounds);

		for (int k = 0; k < ap->ncfg; k++) {
			struct async_cfg *cf =
				&ap->cfg[(k + r) % (unsigned)ap->ncfg];
			uint64_t from = cf->n;
			char what[64];

			if (cf->unavailable)
				continue;
			snprintf(what, sizeof(what), "%s round %u", cf->name,
				 r + 1);
			bench_progress_line(ctx, what);
			if (cf->host)
				round_host(ap, cf, n);
			else
				round_engine(ap, cf, n);
			if (cf->n > from) {
				double *tmp =
					malloc((cf->n - from) * sizeof(double));

				if (!tmp)
					bench_die("out of memory");
				memcpy(tmp, cf->lat + from,
				       (cf->n - from) * sizeof(double));
				cf->round_med[cf->rounds++] =
					median_of(tmp, cf->n - from);
				free(tmp);
			}
		}
	}
}

static void summarise(struct async_cfg *cf)
{
	static const double qs[5] = { 0, 0.5, 0.9, 0.99, 1 };

	qsort(cf->lat, cf->n, sizeof(double), cmp_double);
	for (int i = 0; i < 5; i++)
		cf->q[i] = quantile(cf->lat, cf->n, qs[i]);
}

/* The configurations as one case: ns per "operation" is the latency. */
static void fill_case(struct async_priv *ap, struct bench_doc *doc)
{
	struct bench_case_res *res = bench_case_add(doc);

	ap->case_idx = doc->ncases - 1;
	snprintf(res->group, sizeof(res->group), "async");
	snprintf(res->label, sizeof(res->label), "send to handler entry");
	res->nmeth = ap->ncfg;
	res->ref = 0;
	for (int i = 0; i < ap->ncfg; i++) {
		struct async_cfg *cf = &ap->cfg[i];
		struct bench_meas *m = &res->m[i];

		snprintf(m->method, sizeof(m->method), "%s", cf->name);
		m->insns = NAN;
		m->unavailable = cf->unavailable;
		if (!cf->n && !cf->unavailable)
			m->unavailable = "no sample taken";
		if (m->unavailable) {
			m->ns_med = m->ns_min = m->ns_max = m->ratio = NAN;
			continue;
		}
		summarise(cf);
		m->reps = cf->rounds;
		m->ops = cf->n / cf->rounds;
		memcpy(m->ns, cf->round_med, cf->rounds * sizeof(double));
		m->ns_med = cf->q[1];
		m->ns_min = cf->q[0];
		m->ns_max = cf->q[4];
		m->ratio = ap->cfg[0].n ? ap->cfg[0].q[1] / cf->q[1] : NAN;
		m->counts.ops = cf->n;
		m->counts.switches = cf->st.switches;
		m->counts.windows = cf->st.windows;
		m->counts.fixups = cf->st.fixups;
	}
}

static void set_backend(struct bench_doc *doc, const char *be)
{
	snprintf(doc->ratios[doc->nratios - 1].backend,
		 sizeof(doc->ratios[0].backend), "%s", be);
}

static void add_ratios(struct async_priv *ap, struct bench_doc *doc)
{
	const struct bench_case_res *c = &doc->cases[ap->case_idx];
	char what[160];

	snprintf(what, sizeof(what),
		 "async p99, pthread_kill -> host handler (median %.0f us)",
		 ap->cfg[0].q[1] / 1e3);
	bench_ratio_set(doc, ap->case_idx, "host", NULL, BENCH_RATIO_LATENCY,
			ap->cfg[0].n ? ap->cfg[0].q[3] / 1e3 : NAN, NULL, false,
			what);
	for (int i = 1; i < ap->ncfg; i++) {
		const struct async_cfg *cf = &ap->cfg[i];
		const char *mode = bench_frame_name(cf->mode);

		/* Skipped: its table row says why. */
		if (c->m[i].unavailable)
			continue;
		if (cf->n)
			snprintf(what, sizeof(what),
				 "async p99, send -> guest handler, %s "
				 "(median %.0f us)",
				 mode, cf->q[1] / 1e3);
		else
			snprintf(what, sizeof(what),
				 "async p99, send -> guest handler, %s", mode);
		/* The engine's own latency is judged; a backend's reported. */
		bench_ratio_set(doc, ap->case_idx, cf->name, NULL,
				BENCH_RATIO_LATENCY,
				cf->n ? cf->q[3] / 1e3 : NAN, "async_p99",
				cf->p == UA_PROTECT_NONE, what);
		set_backend(doc, ua_protect_name(cf->p));
		snprintf(what, sizeof(what),
			 "async latency, host/engine (round medians), %s",
			 mode);
		bench_ratio_add(doc, ap->case_idx, cf->name, "host", NULL,
				false, what);
		set_backend(doc, ua_protect_name(cf->p));
	}
}

/* ---- output ---- */

static const char *cfg_title(char *b, size_t n, const struct async_cfg *cf)
{
	if (cf->host)
		snprintf(b, n, "host (pthread_kill)");
	else
		snprintf(b, n, "engine %s %s",
			 bench_frame_name(cf->mode),
			 ua_protect_name(cf->p));
	return b;
}

static void async_print(FILE *f, const struct bench_doc *doc, bool md)
{
	const struct async_priv *ap = doc->priv;
	const struct bench_case_res *c = &doc->cases[ap->case_idx];
	char t[48], q[5][24], sw[32];

	fprintf(f,
		"\n%ssend (ua_task_kill / pthread_kill) -> handler entry in a "
		"task spinning\nwithout syscalls; %llu samples per "
		"configuration over %u rounds, %s clock;\nlatencies in us; "
		"switches per delivery exact\n\n",
		md ? "" : "async: ", (unsigned long long)ap->samples,
		ap->rounds, ap->tsc ? "TSC" : "CLOCK_MONOTONIC");
	if (md)
		fprintf(f, "| configuration | samples | min | median | p90 | "
			   "p99 | max | switches per delivery |\n"
			   "|---|---|---|---|---|---|---|---|\n");
	else
		fprintf(f, "  %-27s %7s %8s %8s %8s %8s %9s %9s\n",
			"configuration", "samples", "min", "median", "p90",
			"p99", "max", "switches");
	for (int i = 0; i < ap->ncfg; i++) {
		const struct async_cfg *cf = &ap->cfg[i];
		const struct bench_meas *m = &c->m[i];

		cfg_title(t, sizeof(t), cf);
		if (m->unavailable) {
			if (md)
				fprintf(f, "| %s | skipped: %s | | | | | | |\n",
					t, m->unavailable);
			else
				fprintf(f, "  %-27s skipped: %s\n", t,
					m->unavailable);
			continue;
		}
		for (int k = 0; k < 5; k++)
			snprintf(q[k], sizeof(q[k]), "%.1f", cf->q[k] / 1e3);
		bench_fmt_count(sw, sizeof(sw), cf->st.switches, cf->n);
		if (md)
			fprintf(f,
				"| %s | %llu%s | %s | %s | %s | %s | %s | %s "
				"|\n",
				t, (unsigned long long)cf->n,
				cf->n < ap->samples ? "*" : "", q[0], q[1],
				q[2], q[3], q[4], sw);
		else
			fprintf(f, "  %-27s %6llu%s %8s %8s %8s %8s %9s %9s\n",
				t, (unsigned long long)cf->n,
				cf->n < ap->samples ? "*" : " ", q[0], q[1],
				q[2], q[3], q[4], sw);
	}
	for (int i = 0; i < ap->ncfg; i++) {
		if (!ap->cfg[i].unavailable && ap->cfg[i].n < ap->samples) {
			fprintf(f,
				"%s* fewer samples than asked: a round of a "
				"configuration samples for at most %.3g s "
				"(-T)\n",
				md ? "\n" : "  ", ap->round_ns / 1e9);
			break;
		}
	}
}

static void async_json(struct bench_json *w, const struct bench_doc *doc)
{
	const struct async_priv *ap = doc->priv;
	static const char *const qn[5] = { "min_ns", "median_ns", "p90_ns",
					   "p99_ns", "max_ns" };

	bench_json_str(w, "latency_clock", ap->tsc ? "tsc" : "monotonic");
	bench_json_uint(w, "signal", ASYNC_SIG);
	bench_json_uint(w, "interrupt_signal", (uint64_t)ap->irq_sig);
	bench_json_uint(w, "samples", ap->samples);
	bench_json_uint(w, "rounds", ap->rounds);
	bench_json_open(w, "configs", '[');
	for (int i = 0; i < ap->ncfg; i++) {
		const struct async_cfg *cf = &ap->cfg[i];
		const struct bench_meas *m = &doc->cases[ap->case_idx].m[i];

		bench_json_open(w, NULL, '{');
		bench_json_str(w, "name", cf->name);
		bench_json_str(w, "kind", cf->host ? "host" : "engine");
		bench_json_str(w, "frame_mode",
			       cf->host ? NULL : bench_frame_name(cf->mode));
		bench_json_str(w, "backend",
			       cf->host ? NULL : ua_protect_name(cf->p));
		bench_json_str(w, "unavailable_reason", m->unavailable);
		bench_json_uint(w, "samples", m->unavailable ? 0 : cf->n);
		for (int k = 0; k < 5; k++)
			bench_json_num(w, qn[k],
				       m->unavailable ? NAN : cf->q[k]);
		bench_json_close(w, '}');
	}
	bench_json_close(w, ']');
}

static void async_priv_free(void *p)
{
	struct async_priv *ap = p;

	for (int i = 0; ap && i < ap->ncfg; i++) {
		ua_space_destroy(ap->cfg[i].sp);
		free(ap->cfg[i].lat);
	}
	free(ap);
}

/* ---- the subcommand ---- */

static void async_defaults(struct bench_opts *o, bool in_report, bool quick)
{
	(void)in_report;
	if (!o->reps)
		o->reps = quick ? 2 : 5;
	if (!o->count)
		o->count = quick ? QUICK_SAMPLES : DEFAULT_SAMPLES;
	if (!o->rep_us)
		o->rep_us = quick ? QUICK_ROUND_US : DEFAULT_ROUND_US;
}

static int async_run(struct bench_ctx *ctx, struct bench_doc *doc)
{
	struct async_priv *ap;

	/* Every latency is kept for the quantiles: 8 bytes a sample. */
	if (ctx->opts.count > MAX_SAMPLES)
		return bench_usage_error(&bench_cmd_async,
					 "-n: at most %d samples", MAX_SAMPLES);
	ap = calloc(1, sizeof(*ap));
	if (!ap)
		bench_die("out of memory");
	doc->priv = ap;
	doc->priv_free = async_priv_free;
	doc->print_cases = async_print;
	doc->json_extra = async_json;
	ap->samples = ctx->opts.count;
	ap->rounds = ctx->opts.reps;
	ap->round_ns = (double)ctx->opts.rep_us * 1e3;
	if ((uint64_t)ap->rounds > ap->samples)
		ap->rounds = (unsigned)ap->samples;
	/* --clock chooses; by default the TSC where the kernel trusts it. */
	if (ctx->opts.clock == BENCH_CLOCK_CPUTIME)
		ap->tsc = bench_tsc_invariant() && kernel_clock_is_tsc();
	else
		ap->tsc = ctx->opts.clock == BENCH_CLOCK_TSC;
	use_tsc = ap->tsc;
	if (ap->tsc)
		ap->ns_per_tick = tsc_ns_per_tick();
	add_cfgs(ap, &ctx->opts);
	ctx->cases_total = 0;
	measure(ctx, ap);
	ap->irq_sig = ua_interrupt_signal();
	fill_case(ap, doc);
	add_ratios(ap, doc);
	bench_doc_note(doc, "host: a native thread spinning in the same loop "
			    "with a real SIGUSR1 handler, sent pthread_kill(); "
			    "engine: a guest task, sent ua_task_kill() from "
			    "the monitor");
	bench_doc_note(doc,
		       "each sample waits until the spinning loop has seen "
		       "the previous handler return, so every signal "
		       "interrupts the loop itself");
	return 0;
}

const struct bench_cmd bench_cmd_async = {
	.name = "async",
	.summary = "send -> handler latency, guest spinning without "
		   "syscalls",
	.usage = "  --protect LIST     backends, comma-separated: none, "
		 "mprotect, pkey,\n"
		 "                     auto, all (default: every backend; "
		 "one not available\n"
		 "                     here is a row skipped with the reason; "
		 "none is always run)\n"
		 "  (-n: samples per configuration, default 10000; -r: the "
		 "rounds they are\n"
		 "   split over, default 5; -T: a round's time limit, default "
		 "400000 us;\n"
		 "   the clock is the TSC where it is invariant and the "
		 "kernel's clocksource,\n"
		 "   else CLOCK_MONOTONIC; --clock tsc or monotonic "
		 "chooses)\n",
	.opts = BOPT_PROTECT,
	.defaults = async_defaults,
	.run = async_run,
	.in_report = true,
};
