// SPDX-License-Identifier: MIT
/*
 * signal1: will-it-scale's signal1 (an empty SIGUSR1 handler set with a
 * zeroed sigaction; the loop is raise() then one more iteration counted),
 * with its sampling and output: -t tasks, each counting into its own
 * cache lines, all started together; one sample per second of per-task
 * deltas (min, max, total), warm-up samples first, then -s measured
 * samples and their integer mean as "average:".  will-it-scale itself
 * takes 5 warm-up samples plus one it does not count; -w sets how many
 * here (default 1, to keep runs short).
 *
 * It runs once per configuration: the host kernel's own signals
 * (sigaction + raise() in the process, one thread per task), then the
 * engine with per-access and with block frames under each backend, each
 * thread running its own guest task on its own space.  Last comes the
 * table of the kernel series' cover letters: one row per configuration,
 * its average, the ratio to the engine without protection in the same
 * frame mode and to the host, and the protection switches per round trip,
 * counted exactly (ua_stats) over a separate run of raises.
 *
 * Then the scaling check: engine block frames without protection, run
 * with one task and right after with -t tasks (two when -t is 1).  Each
 * task thread's CPU time (CLOCK_THREAD_CPUTIME_ID through
 * pthread_getcpuclockid) divides its round trips: round trips per task per
 * CPU-second of the task threads, many tasks over one.  A lock shared by
 * the tasks shows as lost throughput per CPU-second (contended cache
 * lines, futex calls); wall time cannot tell that from a busy VM's steal.
 * CPU time cannot tell it from the hardware, though: two vCPUs that are
 * sibling threads of one core, or a host that slows both when both run,
 * cost each task throughput whatever the code does.  So each round also
 * runs a control, a loop of thread-private work that shares nothing,
 * with one and with -t threads bound the same way, and the scaling is
 * also given over the control's: what is left is the code's own.
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

#include <uaccess/signal.h>

#include "uabench.h"

#define S1_SIG SIGUSR1
#define GUEST_STACK ((size_t)64 << 10)
/* Raises of the exact switch count, before the timed loop. */
#define COUNT_RAISES 64
/* will-it-scale's MAX_CACHELINE_SIZE: each task's counter on its own. */
#define LINE 256
#define MAX_WARMUP 30
#define MAX_CFG BENCH_MAX_METH
/* How long a last sample waits for a first round trip (seconds). */
#define S1_STARVED_S 30

struct s1_counter {
	_Alignas(LINE) _Atomic uint64_t n;
};

struct s1_sample {
	uint64_t min, max, total; /* per second, across tasks */
};

/* One configuration's results. */
struct s1_cfg {
	char name[32];
	bool host;
	enum ua_frame_mode mode;
	enum ua_protect p;
	struct s1_sample warm[MAX_WARMUP], meas[BENCH_MAX_REPS];
	uint64_t average;
	uint64_t ops;	    /* round trips counted over the measurement */
	double cpu_s;	    /* CPU time of all tasks over the measurement */
	struct ua_stats st; /* over COUNT_RAISES round trips (task 0) */
	unsigned tasks;	    /* 0: the run's -t */
	bool control;	    /* the scaling control loop, not signals */
};

/*
 * Scaling rounds: one task, then many, again and again, each pair a
 * ratio; the median of the pairs, with quartiles, so that one slice of
 * a noisy machine does not decide the target.
 */
#define SCALE_ROUNDS 5
/* A scaling round: engine one task, many; the control one, many. */
enum { SC_ONE, SC_MANY, SC_CTL_ONE, SC_CTL_MANY, SC_N };

struct s1_priv {
	unsigned threads;
	double seconds, interval;
	int nwarm, nmeas;
	struct s1_cfg cfg[MAX_CFG];
	int ncfg, case_idx;
	/* block none: one task, then many, in alternating rounds */
	struct s1_cfg scale[SCALE_ROUNDS][SC_N];
};

/* What the tasks of one run share. */
struct s1_shared {
	const struct s1_cfg *cfg;
	struct s1_counter *counters;
	pthread_barrier_t start;
	atomic_bool stop;
};

struct s1_worker {
	pthread_t th;
	struct s1_shared *sh;
	unsigned idx;
	int err; /* an errno value, or -1: the task died (status) */
	int status;
	bool arrived; /* reached the start barrier */
	struct ua_stats st;
};

static void empty_handler(int sig)
{
	(void)sig;
}

static void count_one(_Atomic uint64_t *c)
{
	/* One writer: a relaxed load and store, as will-it-scale's ++. */
	atomic_store_explicit(c,
			      atomic_load_explicit(c, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/* Task i on the i-th allowed CPU, modulo their number (will-it-scale). */
static void bind_cpu(pthread_t th, unsigned idx)
{
	cpu_set_t allowed, one;
	int n, k = -1;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return;
	n = CPU_COUNT(&allowed);
	if (n <= 0)
		return;
	for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; cpu++) {
		if (CPU_ISSET(cpu, &allowed) &&
		    seen++ == (int)(idx % (unsigned)n)) {
			k = cpu;
			break;
		}
	}
	if (k < 0)
		return;
	CPU_ZERO(&one);
	CPU_SET(k, &one);
	pthread_setaffinity_np(th, sizeof(one), &one);
}

/* ---- the tasks ---- */

static void host_loop(struct s1_worker *w)
{
	_Atomic uint64_t *c = &w->sh->counters[w->idx].n;

	w->arrived = true;
	pthread_barrier_wait(&w->sh->start);
	while (!atomic_load_explicit(&w->sh->stop, memory_order_relaxed)) {
		if (ua_unlikely(raise(S1_SIG))) {
			w->err = errno;
			return;
		}
		count_one(c);
	}
}

/*
 * The scaling control: a round trip's kind of work without the engine, a
 * frame-sized buffer of the thread's own written and read back, counted
 * like a round trip.  Nothing is shared but what the tasks share anyway
 * (the stop flag, read-only, and each one's own counter line).
 */
static void control_loop(struct s1_worker *w)
{
	_Atomic uint64_t *c = &w->sh->counters[w->idx].n;
	uint64_t frame[128], sum = 0;

	w->arrived = true;
	pthread_barrier_wait(&w->sh->start);
	while (!atomic_load_explicit(&w->sh->stop, memory_order_relaxed)) {
		for (unsigned k = 0; k < 128; k++)
			frame[k] = sum + k;
		asm volatile("" : : "r"(frame) : "memory");
		for (unsigned k = 0; k < 128; k++)
			sum += frame[k];
		count_one(c);
	}
	bench_opaque(sum);
}

/* Guest code: the handler, the exact count, then the loop. */
static void guest_main(void *p)
{
	struct s1_worker *w = p;
	_Atomic uint64_t *c = &w->sh->counters[w->idx].n;
	struct sigaction sa; /* guest memory: on the guest stack */
	struct ua_stats a;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = empty_handler;
	if (ua_sys_sigaction(S1_SIG, &sa, NULL)) {
		w->err = errno;
	} else {
		ua_stats_get(&a);
		for (int i = 0; i < COUNT_RAISES && !w->err; i++) {
			if (ua_sys_raise(S1_SIG))
				w->err = errno;
		}
		bench_stats_since(&a, &w->st);
	}
	w->arrived = true;
	pthread_barrier_wait(&w->sh->start);
	while (!w->err &&
	       !atomic_load_explicit(&w->sh->stop, memory_order_relaxed)) {
		if (ua_unlikely(ua_sys_raise(S1_SIG))) {
			w->err = errno;
			break;
		}
		count_one(c);
	}
	ua_sys_exit(w->err ? 1 : 0);
}

static void engine_task(struct s1_worker *w)
{
	const struct s1_cfg *cf = w->sh->cfg;
	struct ua_space_opts so = { .protect = cf->p };
	struct ua_task_opts to = { .stack_size = GUEST_STACK,
				   .frame_mode = cf->mode };
	struct ua_space *sp = ua_space_create(GUEST_STACK + (64 << 10), &so);
	struct ua_task *t = NULL;

	if (sp)
		t = ua_task_create(sp, guest_main, w, &to);
	if (!t) {
		w->err = errno ? errno : ENOMEM;
	} else {
		w->status = ua_task_run(t);
		if (w->status && !w->err)
			w->err = -1;
	}
	/* A task that ended early must not leave the others waiting. */
	if (!w->arrived) {
		w->arrived = true;
		pthread_barrier_wait(&w->sh->start);
	}
	ua_task_destroy(t);
	ua_space_destroy(sp);
}

static void *worker(void *p)
{
	struct s1_worker *w = p;

	if (w->sh->cfg->control)
		control_loop(w);
	else if (w->sh->cfg->host)
		host_loop(w);
	else
		engine_task(w);
	return NULL;
}

/* ---- sampling ---- */

static double wall_s(void)
{
	return bench_wall_ns() / 1e9;
}

static void sleep_until(double t)
{
	struct timespec ts = { (time_t)t,
			       (long)((t - (double)(time_t)t) * 1e9) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

/*
 * One sample: per-task deltas since @prev, per second of the wall time
 * that really passed (will-it-scale prints the raw deltas of a sleep(1);
 * scaling only matters when the sleep overran).
 */
static struct s1_sample sample(struct s1_shared *sh, unsigned n, uint64_t *prev,
			       double dt, uint64_t *ops)
{
	struct s1_sample s = { UINT64_MAX, 0, 0 };

	for (unsigned i = 0; i < n; i++) {
		uint64_t v = atomic_load_explicit(&sh->counters[i].n,
						  memory_order_relaxed);
		uint64_t d = v - prev[i], r = (uint64_t)llround((double)d / dt);

		prev[i] = v;
		*ops += d;
		s.min = r < s.min ? r : s.min;
		s.max = r > s.max ? r : s.max;
		s.total += r;
	}
	return s;
}

/* Round trips done since @prev, over every task. */
static uint64_t pending_ops(struct s1_shared *sh, unsigned n,
			    const uint64_t *prev)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < n; i++)
		sum += atomic_load_explicit(&sh->counters[i].n,
					    memory_order_relaxed) -
		       prev[i];
	return sum;
}

static double threads_cpu_s(const struct s1_worker *w, unsigned n)
{
	double sum = 0;

	for (unsigned i = 0; i < n; i++) {
		clockid_t id;
		struct timespec ts;

		if (pthread_getcpuclockid(w[i].th, &id) ||
		    clock_gettime(id, &ts))
			return NAN;
		sum += (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	}
	return sum;
}

static void die_worker(const struct s1_cfg *cf, const struct s1_worker *w)
{
	if (w->err > 0)
		bench_die("signal1: %s: task %u: %s", cf->name, w->idx,
			  strerror(w->err));
	bench_die("signal1: %s: task %u ended with status %#x", cf->name,
		  w->idx, w->status);
}

static void run_cfg(struct bench_ctx *ctx, struct s1_priv *pv,
		    struct s1_cfg *cf)
{
	unsigned n = cf->tasks ? cf->tasks : pv->threads;
	struct s1_shared sh = { .cfg = cf };
	struct s1_worker *w = calloc(n, sizeof(*w));
	uint64_t *prev = calloc(n, sizeof(*prev)), ops = 0, sum = 0;
	struct sigaction sa, old;
	double t0, t, cpu0 = 0;
	int total = pv->nwarm + pv->nmeas;
	char what[64];

	sh.counters = aligned_alloc(LINE, n * sizeof(*sh.counters));
	if (!w || !prev || !sh.counters)
		bench_die("out of memory");
	memset(sh.counters, 0, n * sizeof(*sh.counters));
	pthread_barrier_init(&sh.start, NULL, n + 1);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = empty_handler;
	if (cf->host && sigaction(S1_SIG, &sa, &old))
		bench_die("signal1: sigaction: %s", strerror(errno));
	snprintf(what, sizeof(what), "signal1 %s", cf->name);
	bench_progress_line(ctx, what);
	for (unsigned i = 0; i < n; i++) {
		w[i].sh = &sh;
		w[i].idx = i;
		errno = pthread_create(&w[i].th, NULL, worker, &w[i]);
		if (errno)
			bench_die("signal1: cannot start a thread: %s",
				  strerror(errno));
		bind_cpu(w[i].th, i);
	}
	pthread_barrier_wait(&sh.start);
	t0 = t = wall_s();
	for (int k = 0; k < total; k++) {
		double now;

		if (k == pv->nwarm) {
			cpu0 = threads_cpu_s(w, n);
			ops = 0;
		}
		sleep_until(t0 + (k + 1) * pv->interval);
		/*
		 * A loaded machine can keep every task off the CPU for a
		 * whole short (--quick) measurement: the last sample waits
		 * for a round trip, or a ratio of nothing would follow.
		 */
		while (k == total - 1 && !ops && !pending_ops(&sh, n, prev) &&
		       wall_s() - t0 < total * pv->interval + S1_STARVED_S)
			sleep_until(wall_s() + pv->interval);
		now = wall_s();
		if (k < pv->nwarm)
			cf->warm[k] = sample(&sh, n, prev, now - t, &ops);
		else
			cf->meas[k - pv->nwarm] =
				sample(&sh, n, prev, now - t, &ops);
		t = now;
		bench_progress_line(ctx, what);
	}
	cf->cpu_s = threads_cpu_s(w, n) - cpu0;
	cf->ops = ops;
	atomic_store(&sh.stop, true);
	for (unsigned i = 0; i < n; i++)
		pthread_join(w[i].th, NULL);
	if (cf->host)
		sigaction(S1_SIG, &old, NULL);
	for (unsigned i = 0; i < n; i++) {
		if (w[i].err)
			die_worker(cf, &w[i]);
	}
	cf->st = w[0].st;
	for (int k = 0; k < pv->nmeas; k++)
		sum += cf->meas[k].total;
	cf->average = sum / (uint64_t)pv->nmeas;
	pthread_barrier_destroy(&sh.start);
	free(sh.counters);
	free(prev);
	free(w);
}

/* ---- results ---- */

static void fill_case(struct s1_priv *pv, struct bench_doc *doc)
{
	struct bench_case_res *res = bench_case_add(doc);

	pv->case_idx = doc->ncases - 1;
	snprintf(res->group, sizeof(res->group), "signal1");
	snprintf(res->label, sizeof(res->label), "%u thread%s", pv->threads,
		 pv->threads == 1 ? "" : "s");
	res->nmeth = pv->ncfg;
	res->ref = 0;
	for (int i = 0; i < pv->ncfg; i++) {
		const struct s1_cfg *cf = &pv->cfg[i];
		struct bench_meas *m = &res->m[i];

		snprintf(m->method, sizeof(m->method), "%s", cf->name);
		m->reps = (unsigned)pv->nmeas;
		m->ops = cf->ops / (uint64_t)pv->nmeas;
		for (int k = 0; k < pv->nmeas; k++) {
			/* Per task: ns per round trip in that sample. */
			m->ns[k] = cf->meas[k].total ?
					   1e9 * pv->threads /
						   (double)cf->meas[k].total :
					   NAN;
		}
		m->ns_med = cf->average ?
				    1e9 * pv->threads / (double)cf->average :
				    NAN;
		m->ns_min = m->ns_max = m->ns[0];
		for (int k = 1; k < pv->nmeas; k++) {
			m->ns_min = fmin(m->ns_min, m->ns[k]);
			m->ns_max = fmax(m->ns_max, m->ns[k]);
		}
		m->ratio = pv->cfg[0].average ?
				   (double)cf->average /
					   (double)pv->cfg[0].average :
				   NAN;
		m->counts.ops = COUNT_RAISES;
		m->counts.switches = cf->st.switches;
		m->counts.windows = cf->st.windows;
		m->counts.fixups = cf->st.fixups;
		m->insns = NAN;
	}
}

static double avg_ratio(const struct s1_cfg *a, const struct s1_cfg *b)
{
	return b->average ? (double)a->average / (double)b->average : NAN;
}

static const struct s1_cfg *none_of(const struct s1_priv *pv,
				    const struct s1_cfg *cf)
{
	for (int i = 0; i < pv->ncfg; i++) {
		const struct s1_cfg *o = &pv->cfg[i];

		if (!o->host && o->mode == cf->mode && o->p == UA_PROTECT_NONE)
			return o;
	}
	return NULL;
}

static void add_ratios(struct s1_priv *pv, struct bench_doc *doc)
{
	for (int i = 1; i < pv->ncfg; i++) {
		const struct s1_cfg *cf = &pv->cfg[i], *nn = none_of(pv, cf);
		const char *mode = bench_frame_name(cf->mode);
		char what[160];
		struct bench_ratio *r;

		snprintf(what, sizeof(what),
			 "signal1 average, engine %s %s vs host", mode,
			 ua_protect_name(cf->p));
		bench_ratio_set(doc, pv->case_idx, cf->name, "host",
				BENCH_RATIO_SPEED, avg_ratio(cf, &pv->cfg[0]),
				NULL, false, what);
		r = &doc->ratios[doc->nratios - 1];
		snprintf(r->backend, sizeof(r->backend), "%s",
			 ua_protect_name(cf->p));
		if (!nn || nn == cf)
			continue;
		snprintf(what, sizeof(what),
			 "signal1 average, engine %s %s vs none", mode,
			 ua_protect_name(cf->p));
		bench_ratio_set(doc, pv->case_idx, cf->name, nn->name,
				BENCH_RATIO_SPEED, avg_ratio(cf, nn), NULL,
				false, what);
		r = &doc->ratios[doc->nratios - 1];
		snprintf(r->backend, sizeof(r->backend), "%s",
			 ua_protect_name(cf->p));
	}
}

static const char *cfg_title(char *b, size_t n, const struct s1_cfg *cf)
{
	if (cf->host)
		snprintf(b, n, "host kernel (raise)");
	else
		snprintf(b, n, "engine %s %s",
			 bench_frame_name(cf->mode),
			 ua_protect_name(cf->p));
	return b;
}

static void print_wis(FILE *f, const struct s1_priv *pv)
{
	char t[48];

	for (int i = 0; i < pv->ncfg; i++) {
		const struct s1_cfg *cf = &pv->cfg[i];

		fprintf(f, "\ntestcase:signal delivery [%s]\nwarmup\n",
			cfg_title(t, sizeof(t), cf));
		for (int k = 0; k < pv->nwarm; k++)
			fprintf(f, "min:%llu max:%llu total:%llu\n",
				(unsigned long long)cf->warm[k].min,
				(unsigned long long)cf->warm[k].max,
				(unsigned long long)cf->warm[k].total);
		fprintf(f, "measurement\n");
		for (int k = 0; k < pv->nmeas; k++)
			fprintf(f, "min:%llu max:%llu total:%llu\n",
				(unsigned long long)cf->meas[k].min,
				(unsigned long long)cf->meas[k].max,
				(unsigned long long)cf->meas[k].total);
		fprintf(f, "average:%llu\n", (unsigned long long)cf->average);
	}
}

static void print_scaling(FILE *f, const struct s1_priv *pv, bool md);
static void json_scaling(struct bench_json *w, const struct s1_priv *pv);

static void s1_print(FILE *f, const struct bench_doc *doc, bool md)
{
	const struct s1_priv *pv = doc->priv;
	char t[48], a[32], c[32], h[32], nn[32], sw[32];

	if (!md)
		print_wis(f, pv);
	fprintf(f,
		"\n%s%u task%s, %d sample%s of %.3g s after %d warm-up; "
		"average: round trips\nper second, all tasks (will-it-scale's "
		"figure); per CPU-s: per second of the tasks'\nCPU time; "
		"ratios "
		"of averages (runs one after another, not paired);\nswitches "
		"per round trip exact\n\n",
		md ? "" : "signal1: ", pv->threads, pv->threads == 1 ? "" : "s",
		pv->nmeas, pv->nmeas == 1 ? "" : "s", pv->interval, pv->nwarm);
	if (md)
		fprintf(f, "| configuration | average | per CPU-s | vs none, "
			   "same mode | vs host | switches per round trip "
			   "|\n|---|---|---|---|---|---|\n");
	else
		fprintf(f, "  %-27s %12s %12s %8s %8s %9s\n", "configuration",
			"average", "per CPU-s", "vs none", "vs host",
			"switches");
	for (int i = 0; i < pv->ncfg; i++) {
		const struct s1_cfg *cf = &pv->cfg[i], *no = none_of(pv, cf);

		bench_fmt_thousands(a, sizeof(a), (double)cf->average);
		bench_fmt_thousands(
			c, sizeof(c),
			cf->cpu_s > 0 ? (double)cf->ops / cf->cpu_s : NAN);
		bench_fmt_ratio(h, sizeof(h), avg_ratio(cf, &pv->cfg[0]));
		if (cf->host)
			snprintf(nn, sizeof(nn), "-");
		else
			bench_fmt_ratio(nn, sizeof(nn),
					no ? avg_ratio(cf, no) : NAN);
		bench_fmt_count(sw, sizeof(sw), cf->st.switches, COUNT_RAISES);
		cfg_title(t, sizeof(t), cf);
		if (md)
			fprintf(f, "| %s | %s | %s | %s | %s | %s |\n", t, a, c,
				nn, h, sw);
		else
			fprintf(f, "  %-27s %12s %12s %8s %8s %9s\n", t, a, c,
				nn, h, sw);
	}
	print_scaling(f, pv, md);
}

static void json_samples(struct bench_json *w, const char *key,
			 const struct s1_sample *s, int n)
{
	bench_json_open(w, key, '[');
	for (int k = 0; k < n; k++) {
		bench_json_open(w, NULL, '{');
		bench_json_uint(w, "min", s[k].min);
		bench_json_uint(w, "max", s[k].max);
		bench_json_uint(w, "total", s[k].total);
		bench_json_close(w, '}');
	}
	bench_json_close(w, ']');
}

static void s1_json(struct bench_json *w, const struct bench_doc *doc)
{
	const struct s1_priv *pv = doc->priv;

	bench_json_str(w, "testcase", "signal delivery");
	bench_json_uint(w, "threads", pv->threads);
	bench_json_num(w, "seconds", pv->seconds);
	bench_json_num(w, "sample_seconds", pv->interval);
	bench_json_uint(w, "warmup_samples", (uint64_t)pv->nwarm);
	bench_json_open(w, "configs", '[');
	for (int i = 0; i < pv->ncfg; i++) {
		const struct s1_cfg *cf = &pv->cfg[i];

		bench_json_open(w, NULL, '{');
		bench_json_str(w, "name", cf->name);
		bench_json_str(w, "kind", cf->host ? "host" : "engine");
		bench_json_str(w, "frame_mode",
			       cf->host ? NULL : bench_frame_name(cf->mode));
		bench_json_str(w, "backend",
			       cf->host ? NULL : ua_protect_name(cf->p));
		json_samples(w, "warmup", cf->warm, pv->nwarm);
		json_samples(w, "measurement", cf->meas, pv->nmeas);
		bench_json_uint(w, "average", cf->average);
		bench_json_uint(w, "round_trips", cf->ops);
		bench_json_num(w, "cpu_seconds", cf->cpu_s);
		bench_json_num(w, "per_cpu_second",
			       cf->cpu_s > 0 ? (double)cf->ops / cf->cpu_s :
					       NAN);
		bench_json_uint(w, "switches_per_round_trip_ops", COUNT_RAISES);
		bench_json_uint(w, "switches", cf->st.switches);
		bench_json_close(w, '}');
	}
	bench_json_close(w, ']');
	json_scaling(w, pv);
}

/* ---- scaling: one task vs many, per CPU-second of the task threads ---- */

/* Round trips per task per CPU-second of the task threads. */
static double per_cpu_s(const struct s1_cfg *cf)
{
	return cf->cpu_s > 0 ? (double)cf->ops / cf->cpu_s : NAN;
}

static void run_scaling(struct bench_ctx *ctx, struct s1_priv *pv)
{
	unsigned many = pv->threads > 1 ? pv->threads : 2;

	for (int r = 0; r < SCALE_ROUNDS; r++) {
		for (int i = 0; i < SC_N; i++) {
			struct s1_cfg *cf = &pv->scale[r][i];
			bool ctl = i >= SC_CTL_ONE;

			cf->mode = UA_FRAME_BLOCK;
			cf->p = UA_PROTECT_NONE;
			cf->control = ctl;
			cf->tasks = i == SC_ONE || i == SC_CTL_ONE ? 1 : many;
			snprintf(cf->name, sizeof(cf->name), "%s%u_task%s",
				 ctl ? "control_" : "", cf->tasks,
				 cf->tasks == 1 ? "" : "s");
			run_cfg(ctx, pv, cf);
		}
	}
	ctx->cases_done += 2;
}

/* The median over the rounds of one side's round trips per CPU-second. */
static double scale_median(const struct s1_priv *pv, int i)
{
	double v[SCALE_ROUNDS];

	for (int r = 0; r < SCALE_ROUNDS; r++)
		v[r] = per_cpu_s(&pv->scale[r][i]);
	return bench_median(v, SCALE_ROUNDS);
}

/* Many / one in round r: the engine's, or the control's. */
static double round_scaling(const struct s1_priv *pv, int r, bool ctl)
{
	const struct s1_cfg *c = pv->scale[r];

	return ctl ? per_cpu_s(&c[SC_CTL_MANY]) / per_cpu_s(&c[SC_CTL_ONE]) :
		     per_cpu_s(&c[SC_MANY]) / per_cpu_s(&c[SC_ONE]);
}

/*
 * The median of the rounds' ratios (the ratio table's): many / one, of
 * the engine or of the control, or the engine's over the control's.
 */
enum scale_of { SCALE_ENGINE, SCALE_CONTROL, SCALE_OVER_CONTROL };

static double scale_ratio(const struct s1_priv *pv, enum scale_of of)
{
	double v[SCALE_ROUNDS];

	for (int r = 0; r < SCALE_ROUNDS; r++) {
		v[r] = round_scaling(pv, r, of == SCALE_CONTROL);
		if (of == SCALE_OVER_CONTROL)
			v[r] /= round_scaling(pv, r, true);
	}
	return bench_median(v, SCALE_ROUNDS);
}

/*
 * Task CPU time per round trip of side i (SC_ONE, SC_MANY) in round r;
 * over_control: times the control's one-thread time over its own on side
 * i's threads, the hardware's slowdown of that side taken out (1 for the
 * one-task side).
 */
static double scale_ns(const struct s1_priv *pv, int r, int i,
		       bool over_control)
{
	double ns = 1e9 / per_cpu_s(&pv->scale[r][i]);

	if (over_control && i == SC_MANY)
		ns *= round_scaling(pv, r, true);
	return ns;
}

/*
 * A case of its own: ns of task CPU time per round trip, per task, one
 * repetition per round, and the paired ratio of the rounds; over_control,
 * the same with each round's many-task side corrected by the control.
 */
static void add_scaling_case(struct s1_priv *pv, struct bench_doc *doc,
			     bool over_control)
{
	struct bench_case_res *res = bench_case_add(doc);
	int idx = doc->ncases - 1;
	const struct s1_cfg *one = &pv->scale[0][SC_ONE],
			    *many = &pv->scale[0][SC_MANY];
	char what[160];

	snprintf(res->group, sizeof(res->group), "%s",
		 over_control ? "signal1_scaling_control" : "signal1_scaling");
	snprintf(res->backend, sizeof(res->backend), "none");
	snprintf(res->label, sizeof(res->label), "block");
	res->nmeth = 2;
	res->ref = 0;
	for (int i = 0; i < 2; i++) {
		const struct s1_cfg *cf = i ? many : one;
		struct bench_meas *m = &res->m[i];
		double lo = INFINITY, hi = 0;

		snprintf(m->method, sizeof(m->method), "%s", cf->name);
		m->reps = SCALE_ROUNDS;
		m->ops = cf->ops;
		for (int r = 0; r < SCALE_ROUNDS; r++) {
			m->ns[r] = scale_ns(pv, r, i, over_control);
			lo = fmin(lo, m->ns[r]);
			hi = fmax(hi, m->ns[r]);
		}
		m->ns_med = bench_median(m->ns, SCALE_ROUNDS);
		m->ns_min = lo;
		m->ns_max = hi;
		m->counts.ops = COUNT_RAISES;
		m->counts.switches = cf->st.switches;
		m->counts.windows = cf->st.windows;
		m->counts.fixups = cf->st.fixups;
		m->insns = NAN;
	}
	res->m[0].ratio = 1;
	res->m[1].ratio = res->m[0].ns_med / res->m[1].ns_med;
	if (over_control)
		snprintf(what, sizeof(what),
			 "signal1 %u tasks / 1, over a control loop's %u / 1 "
			 "(block none)",
			 many->tasks, many->tasks);
	else
		snprintf(what, sizeof(what),
			 "signal1 per task per thread-CPU-s, %u tasks / 1 "
			 "(block none)",
			 many->tasks);
	bench_ratio_add(doc, idx, many->name, one->name,
			over_control ? "signal1_scaling_control" :
				       "signal1_scaling",
			true, what);
}

static void add_scaling(struct s1_priv *pv, struct bench_doc *doc)
{
	add_scaling_case(pv, doc, false);
	add_scaling_case(pv, doc, true);
}

static void print_scaling(FILE *f, const struct s1_priv *pv, bool md)
{
	double a = scale_median(pv, SC_ONE), b = scale_median(pv, SC_MANY);
	double ca = scale_median(pv, SC_CTL_ONE),
	       cb = scale_median(pv, SC_CTL_MANY);
	unsigned tasks = pv->scale[0][SC_MANY].tasks;
	char x[32], y[32], r[32], cx[32], cy[32], cr[32], o[32];

	bench_fmt_thousands(x, sizeof(x), a);
	bench_fmt_thousands(y, sizeof(y), b);
	bench_fmt_thousands(cx, sizeof(cx), ca);
	bench_fmt_thousands(cy, sizeof(cy), cb);
	bench_fmt_ratio(r, sizeof(r), scale_ratio(pv, SCALE_ENGINE));
	bench_fmt_ratio(cr, sizeof(cr), scale_ratio(pv, SCALE_CONTROL));
	bench_fmt_ratio(o, sizeof(o), scale_ratio(pv, SCALE_OVER_CONTROL));
	fprintf(f,
		"\n%sscaling, engine block none: round trips per task per "
		"CPU-second of the task\nthreads (CLOCK_THREAD_CPUTIME_ID of "
		"each task thread, not wall time), medians of\n%d alternating "
		"rounds: 1 task %s, %u tasks %s; %u tasks / 1 task = %s\n(the "
		"median of the rounds' ratios; target >= 0.9: no lock shared "
		"between tasks)\n"
		"control (thread-private work, nothing shared, the same CPUs): "
		"1 thread %s,\n%u threads %s per CPU-second; %u / 1 = %s; the "
		"engine's scaling over the\ncontrol's = %s (the median of the "
		"rounds'; target >= 0.9)\n",
		md ? "" : "signal1: ", SCALE_ROUNDS, x, tasks, y, tasks, r, cx,
		tasks, cy, tasks, cr, o);
}

static void json_runs(struct bench_json *w, const struct s1_priv *pv,
		      const char *key, int one, int many)
{
	bench_json_open(w, key, '[');
	for (int r = 0; r < SCALE_ROUNDS; r++) {
		for (int i = one; i <= many; i++) {
			const struct s1_cfg *cf = &pv->scale[r][i];

			bench_json_open(w, NULL, '{');
			bench_json_uint(w, "round", (uint64_t)r);
			bench_json_uint(w, "tasks", cf->tasks);
			bench_json_uint(w, "round_trips", cf->ops);
			bench_json_num(w, "cpu_seconds", cf->cpu_s);
			bench_json_num(w, "per_task_per_cpu_second",
				       per_cpu_s(cf));
			bench_json_close(w, '}');
		}
	}
	bench_json_close(w, ']');
}

static void json_scaling(struct bench_json *w, const struct s1_priv *pv)
{
	bench_json_open(w, "scaling", '{');
	bench_json_str(w, "clock",
		       "CLOCK_THREAD_CPUTIME_ID of each task thread");
	bench_json_str(w, "frame_mode", "block");
	bench_json_str(w, "backend", "none");
	json_runs(w, pv, "runs", SC_ONE, SC_MANY);
	bench_json_num(w, "ratio", scale_ratio(pv, SCALE_ENGINE));
	json_runs(w, pv, "control_runs", SC_CTL_ONE, SC_CTL_MANY);
	bench_json_num(w, "control_ratio", scale_ratio(pv, SCALE_CONTROL));
	bench_json_num(w, "ratio_over_control",
		       scale_ratio(pv, SCALE_OVER_CONTROL));
	bench_json_close(w, '}');
}

/* ---- the subcommand ---- */

static void s1_defaults(struct bench_opts *o, bool in_report, bool quick)
{
	if (!o->threads)
		o->threads = 1;
	if (!(o->seconds > 0))
		o->seconds = quick ? 0.2 : in_report ? 1 : 5;
	if (o->warmup < 0)
		o->warmup = 1;
	/* The common options do not apply; the schema wants them set. */
	if (!o->reps)
		o->reps = 1;
	if (!o->rep_us)
		o->rep_us = 1000000;
}

static void add_cfg(struct s1_priv *pv, bool host, enum ua_frame_mode mode,
		    enum ua_protect p)
{
	struct s1_cfg *cf = &pv->cfg[pv->ncfg++];

	cf->host = host;
	cf->mode = mode;
	cf->p = p;
	if (host)
		snprintf(cf->name, sizeof(cf->name), "host");
	else
		snprintf(cf->name, sizeof(cf->name), "%s_%s",
			 mode == UA_FRAME_BLOCK ? "block" : "per_access",
			 ua_protect_name(p));
}

static int s1_run(struct bench_ctx *ctx, struct bench_doc *doc)
{
	unsigned set = bench_backends_selected(&ctx->opts) |
		       BENCH_BACKEND_BIT(UA_PROTECT_NONE);
	struct s1_priv *pv = calloc(1, sizeof(*pv));
	const struct bench_opts *o = &ctx->opts;

	if (!pv)
		bench_die("out of memory");
	doc->priv = pv;
	doc->priv_free = free;
	doc->print_cases = s1_print;
	doc->json_extra = s1_json;
	pv->threads = o->threads;
	pv->seconds = o->seconds;
	/* Whole seconds: one sample each; less: one sample of that long. */
	pv->nmeas = (int)lround(o->seconds);
	if (pv->nmeas < 1)
		pv->nmeas = 1;
	pv->interval = o->seconds / pv->nmeas;
	pv->nwarm = o->warmup;
	add_cfg(pv, true, UA_FRAME_DEFAULT, UA_PROTECT_NONE);
	for (enum ua_frame_mode md = UA_FRAME_PER_ACCESS; md >= UA_FRAME_BLOCK;
	     md--) {
		for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY;
		     p++) {
			if (set & BENCH_BACKEND_BIT(p))
				add_cfg(pv, false, md, p);
		}
	}
	ctx->cases_total = (unsigned)pv->ncfg + 2;
	for (int i = 0; i < pv->ncfg; i++) {
		run_cfg(ctx, pv, &pv->cfg[i]);
		ctx->cases_done++;
	}
	run_scaling(ctx, pv);
	fill_case(pv, doc);
	add_ratios(pv, doc);
	add_scaling(pv, doc);
	bench_doc_note(doc,
		       "task i is bound to the i-th allowed CPU modulo their "
		       "number, as will-it-scale binds; each engine task runs "
		       "on its own space");
	bench_doc_note(doc, "samples are scaled to a second of measured wall "
			    "time; on a loaded machine the per-CPU-second "
			    "column is the steadier one");
	return 0;
}

const struct bench_cmd bench_cmd_signal1 = {
	.name = "signal1",
	.summary = "will-it-scale signal1: host vs engine frames and backends",
	.usage = "  -t, --threads N    tasks, 1..1024 (default 1)\n"
		 "  -s, --seconds S    measured seconds, in (0, 31]; one "
		 "sample per second,\n"
		 "                     or one sample of S when S < 1 "
		 "(default 5)\n"
		 "  -w, --warmup N     warm-up samples, 0..30 (default 1; "
		 "will-it-scale: 6)\n"
		 "  --protect LIST     backends, comma-separated: none, "
		 "mprotect, pkey,\n"
		 "                     auto, all (default: all available; "
		 "none is always run)\n",
	.opts = BOPT_WIS | BOPT_PROTECT,
	.defaults = s1_defaults,
	.run = s1_run,
	.in_report = true,
};
