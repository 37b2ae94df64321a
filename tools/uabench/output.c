// SPDX-License-Identifier: MIT
/*
 * Output: the terminal tables, the JSON of uabench.schema.json and the
 * Markdown summary.  Ratios are speeds relative to a reference measured
 * in the same repetitions (reference time / time): 2.00x is twice as
 * fast as the reference, 0.50x half as fast.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "uabench.h"

/* ---- formatting ---- */

const char *bench_fmt_ratio(char *b, size_t n, double v)
{
	if (isnan(v))
		snprintf(b, n, "n/a");
	else if (v >= 100)
		snprintf(b, n, "%.0fx", v);
	else if (v >= 10)
		snprintf(b, n, "%.1fx", v);
	else if (v >= 0.1)
		snprintf(b, n, "%.2fx", v);
	else
		snprintf(b, n, "%.2gx", v);
	return b;
}

#define fmt_ratio bench_fmt_ratio

/* 1234567 as "1,234,567" (rounded to an integer); "-" for NAN. */
const char *bench_fmt_thousands(char *b, size_t n, double v)
{
	char digits[32];
	size_t len, k = 0;

	if (isnan(v) || v < 0 || v >= 1e18) {
		snprintf(b, n, "-");
		return b;
	}
	len = (size_t)snprintf(digits, sizeof(digits), "%.0f", v);
	for (size_t i = 0; i < len && k + 2 < n; i++) {
		if (i && (len - i) % 3 == 0)
			b[k++] = ',';
		b[k++] = digits[i];
	}
	b[k] = 0;
	return b;
}

static const char *fmt_ns(char *b, size_t n, double v)
{
	if (isnan(v))
		snprintf(b, n, "-");
	else if (v >= 1000)
		snprintf(b, n, "%.0f", v);
	else if (v >= 10)
		snprintf(b, n, "%.1f", v);
	else
		snprintf(b, n, "%.2f", v);
	return b;
}

static double per_op(uint64_t count, uint64_t ops)
{
	return ops ? (double)count / (double)ops : NAN;
}

/*
 * A count per operation: 2, 0.125 and 0.0625 print exactly; a count far
 * below one per operation (one window around a whole loop) prints as the
 * fraction itself, "2/1048576".
 */
const char *bench_fmt_count(char *b, size_t n, uint64_t count, uint64_t ops)
{
	if (!ops)
		snprintf(b, n, "-");
	else if (count && count * 1000 < ops)
		snprintf(b, n, "%llu/%llu", (unsigned long long)count,
			 (unsigned long long)ops);
	else
		snprintf(b, n, "%.4g", (double)count / (double)ops);
	return b;
}

#define fmt_count bench_fmt_count

const char *bench_target_status(const struct bench_ratio *r)
{
	const struct bench_target *t;
	bool met;

	if (!r->target_key)
		return "informative";
	if (r->skipped[0])
		return "skipped";
	if (isnan(r->value))
		return r->not_run ? "not run" : "not measured";
	if (!r->target_applies)
		return "reported";
	t = bench_target_find(r->target_key);
	met = t->at_most ? r->value <= t->threshold : r->value >= t->threshold;
	return met ? "met" : "not met";
}

/* The status as a table shows it: a row not run says why. */
static const char *status_text(char *b, size_t n, const struct bench_ratio *r)
{
	const char *s = bench_target_status(r);

	if (r->skipped[0]) {
		snprintf(b, n, "skipped: %s", r->skipped);
		return b;
	}
	if (strcmp(s, "not run") || !r->not_run)
		return s;
	snprintf(b, n, "not run: %s", r->not_run);
	return b;
}

/* A latency in microseconds: "0.85us", "12.3us", "456us"; "n/a" for NAN. */
static const char *fmt_us(char *b, size_t n, double v)
{
	if (isnan(v))
		snprintf(b, n, "n/a");
	else if (v >= 100)
		snprintf(b, n, "%.0fus", v);
	else if (v >= 10)
		snprintf(b, n, "%.1fus", v);
	else
		snprintf(b, n, "%.2fus", v);
	return b;
}

/*
 * A ratio's value: "5.00x", for a count per operation "5" / "2/3", for a
 * latency "12.3us".
 */
static const char *fmt_value(char *b, size_t n, const struct bench_ratio *r,
			     const struct bench_doc *doc)
{
	const struct bench_meas *m;

	if (r->kind == BENCH_RATIO_LATENCY)
		return fmt_us(b, n, r->value);
	if (r->kind != BENCH_RATIO_COUNT)
		return fmt_ratio(b, n, r->value);
	m = &doc->cases[r->case_idx].m[r->num];
	return fmt_count(b, n, m->counts.switches, m->counts.ops);
}

/* Status of a target over every ratio tied to it. */
static const char *target_status(const struct bench_target *t,
				 struct bench_doc *const *docs, int ndocs)
{
	bool any = false, applies = false, missed = false, unmeasured = false;
	bool skipped_only = true;
	bool not_run = false;

	for (int d = 0; d < ndocs; d++) {
		for (int i = 0; i < docs[d]->nratios; i++) {
			const struct bench_ratio *r = &docs[d]->ratios[i];
			const char *s;

			if (!r->target_key || strcmp(r->target_key, t->key))
				continue;
			any = true;
			s = bench_target_status(r);
			if (!strcmp(s, "not measured"))
				unmeasured = true;
			if (strcmp(s, "skipped"))
				skipped_only = false;
			if (!strcmp(s, "not run") && r->target_applies)
				not_run = true;
			if (!strcmp(s, "met") || !strcmp(s, "not met"))
				applies = true;
			if (!strcmp(s, "not met"))
				missed = true;
		}
	}
	if (!any)
		return t->pending ? "pending" : "not run";
	if (missed)
		return "not met";
	if (applies)
		return "met";
	if (not_run)
		return "not run";
	if (skipped_only)
		return "skipped";
	return unmeasured ? "not measured" : "reported";
}

/* ---- terminal tables ---- */

static bool same_block(const struct bench_case_res *a,
		       const struct bench_case_res *b)
{
	return !strcmp(a->group, b->group) && !strcmp(a->backend, b->backend);
}

static void print_block_head(FILE *f, const struct bench_case_res *c)
{
	fprintf(f, "\n%s%s%s%s: ns per operation (speed vs %s)\n  %-9s",
		c->group, c->backend[0] ? " [" : "", c->backend,
		c->backend[0] ? "]" : "", c->m[c->ref].method, "");
	for (int i = 0; i < c->nmeth; i++)
		fprintf(f, " %-20.20s", c->m[i].method);
	fprintf(f, " switches/op\n");
}

static void print_case_row(FILE *f, const struct bench_case_res *c)
{
	char a[48], b[32], cell[64];

	fprintf(f, "  %-9s", c->label);
	for (int i = 0; i < c->nmeth; i++) {
		const struct bench_meas *m = &c->m[i];

		if (m->unavailable)
			snprintf(cell, sizeof(cell), "unavailable");
		else if (i == c->ref)
			snprintf(cell, sizeof(cell), "%s",
				 fmt_ns(a, sizeof(a), m->ns_med));
		else
			snprintf(cell, sizeof(cell), "%s (%s)",
				 fmt_ns(a, sizeof(a), m->ns_med),
				 fmt_ratio(b, sizeof(b), m->ratio));
		fprintf(f, " %-20s", cell);
	}
	for (int i = 0; i < c->nmeth; i++)
		fprintf(f, "%s%s", i ? "/" : " ",
			fmt_count(a, sizeof(a), c->m[i].counts.switches,
				  c->m[i].counts.ops));
	fputc('\n', f);
}

/* The quartiles of a ratio over repetitions, "0.91-1.02". */
static const char *fmt_spread(char *b, size_t n, const struct bench_ratio *r)
{
	char lo[16], hi[16];

	if (isnan(r->q1) || isnan(r->q3))
		return snprintf(b, n, "-"), b;
	fmt_ratio(lo, sizeof(lo), r->q1);
	fmt_ratio(hi, sizeof(hi), r->q3);
	lo[strlen(lo) - 1] = 0; /* one "x" is enough */
	snprintf(b, n, "%s-%s", lo, hi);
	return b;
}

static void print_ratios(FILE *f, const struct bench_doc *doc)
{
	char v[32], q[40], st[300];

	if (!doc->nratios)
		return;
	fprintf(f, "\nratios (speed vs reference; median and quartiles "
		   "where paired by repetition):\n");
	for (int i = 0; i < doc->nratios; i++) {
		const struct bench_ratio *r = &doc->ratios[i];
		const struct bench_target *t =
			r->target_key ? bench_target_find(r->target_key) : NULL;

		fprintf(f, "  %-62.62s %-9s %8s %-13s", r->what,
			r->backend[0] ? r->backend : "",
			fmt_value(v, sizeof(v), r, doc),
			fmt_spread(q, sizeof(q), r));
		if (t)
			fprintf(f, "  target %s: %s", t->target,
				status_text(st, sizeof(st), r));
		else if (r->not_run && isnan(r->value))
			fprintf(f, "  not run: %s", r->not_run);
		fputc('\n', f);
	}
}

void bench_print_table(FILE *f, const struct bench_doc *doc)
{
	if (!strcmp(doc->subcommand, "signal1"))
		fprintf(f, "uabench signal1 (sampled by wall time)\n");
	else if (!strcmp(doc->subcommand, "async"))
		fprintf(f, "uabench async (latency samples, %u rounds)\n",
			doc->opts.reps);
	else
		fprintf(f, "uabench %s (reps %u, %s clock)\n", doc->subcommand,
			doc->opts.reps, bench_clock_name());
	if (doc->print_cases)
		doc->print_cases(f, doc, false);
	for (int i = 0; i < doc->ncases && !doc->print_cases; i++) {
		const struct bench_case_res *c = &doc->cases[i];

		if (!i || !same_block(c, c - 1))
			print_block_head(f, c);
		print_case_row(f, c);
	}
	print_ratios(f, doc);
	for (int i = 0; i < doc->nnotes; i++)
		fprintf(f, "%snote: %s\n", i ? "" : "\n", doc->notes[i]);
}

static void target_row(FILE *f, bool md, const char *what, const char *be,
		       const char *val, const char *spread, const char *target,
		       const char *status)
{
	if (md)
		fprintf(f, "| %s | %s | %s | %s | %s | %s |\n", what, be, val,
			spread, target, status);
	else
		fprintf(f, "%-62.62s %-9s %8s %-13s %-34s %s\n", what, be, val,
			spread, target, status);
}

/* The doc/design.md §5 table: one row per measured ratio, or per target. */
void bench_print_targets(FILE *f, struct bench_doc *const *docs, int ndocs,
			 bool md)
{
	char v[32], q[40], st[300], kind[160];

	bench_host_kind_str(kind, sizeof(kind));
	fprintf(f, md ? "Host: %s.\n\n" : "host: %s\n", kind);
	if (md)
		fprintf(f, "| measure | backend | ratio or count | quartiles | "
			   "target | status |\n|---|---|---|---|---|---|\n");
	else
		/* One more column: the section sign takes two bytes. */
		fprintf(f, "%-63s %-9s %8s %-13s %-34s %s\n",
			"measure (doc/design.md §5)", "backend", "ratio",
			"quartiles", "target", "status");
	for (const struct bench_target *t = bench_targets; t->key; t++) {
		bool any = false;

		for (int d = 0; d < ndocs; d++) {
			for (int i = 0; i < docs[d]->nratios; i++) {
				const struct bench_ratio *r =
					&docs[d]->ratios[i];

				if (!r->target_key ||
				    strcmp(r->target_key, t->key))
					continue;
				any = true;
				target_row(f, md, r->what,
					   r->backend[0] ? r->backend : "-",
					   fmt_value(v, sizeof(v), r, docs[d]),
					   fmt_spread(q, sizeof(q), r),
					   t->target,
					   status_text(st, sizeof(st), r));
			}
		}
		if (!any)
			target_row(f, md, t->measure, "-", "-", "-", t->target,
				   t->pending ? t->pending :
						target_status(t, docs, ndocs));
	}
}

/* ---- JSON ---- */

struct jw {
	FILE *f;
	int depth;
	bool first[16];
};

/* The writer subcommands see (uabench.h) is this one. */
struct bench_json {
	struct jw w;
};

static void jw_indent(struct jw *w)
{
	fputc('\n', w->f);
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->f);
}

static void jw_str_raw(struct jw *w, const char *s)
{
	fputc('"', w->f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(w->f, "\\%c", c);
		else if (c < 0x20)
			fprintf(w->f, "\\u%04x", c);
		else
			fputc(c, w->f);
	}
	fputc('"', w->f);
}

static void jw_key(struct jw *w, const char *key)
{
	if (!w->first[w->depth])
		fputc(',', w->f);
	w->first[w->depth] = false;
	if (w->depth)
		jw_indent(w);
	if (key) {
		jw_str_raw(w, key);
		fputs(": ", w->f);
	}
}

static void jw_open(struct jw *w, const char *key, char c)
{
	jw_key(w, key);
	fputc(c, w->f);
	w->first[++w->depth] = true;
}

static void jw_close(struct jw *w, char c)
{
	bool empty = w->first[w->depth];

	w->depth--;
	if (!empty)
		jw_indent(w);
	fputc(c, w->f);
}

static void jw_str(struct jw *w, const char *key, const char *v)
{
	jw_key(w, key);
	if (v)
		jw_str_raw(w, v);
	else
		fputs("null", w->f);
}

static void jw_num(struct jw *w, const char *key, double v)
{
	jw_key(w, key);
	if (isnan(v) || isinf(v))
		fputs("null", w->f);
	else
		fprintf(w->f, "%.6g", v);
}

static void jw_uint(struct jw *w, const char *key, uint64_t v)
{
	jw_key(w, key);
	fprintf(w->f, "%llu", (unsigned long long)v);
}

static void jw_uint_or_null(struct jw *w, const char *key, uint64_t v)
{
	if (v)
		jw_uint(w, key, v);
	else
		jw_str(w, key, NULL);
}

static void jw_bool(struct jw *w, const char *key, bool v)
{
	jw_key(w, key);
	fputs(v ? "true" : "false", w->f);
}

void bench_json_open(struct bench_json *w, const char *key, char c)
{
	jw_open(&w->w, key, c);
}

void bench_json_close(struct bench_json *w, char c)
{
	jw_close(&w->w, c);
}

void bench_json_str(struct bench_json *w, const char *key, const char *v)
{
	jw_str(&w->w, key, v);
}

void bench_json_num(struct bench_json *w, const char *key, double v)
{
	jw_num(&w->w, key, v);
}

void bench_json_uint(struct bench_json *w, const char *key, uint64_t v)
{
	jw_uint(&w->w, key, v);
}

void bench_json_bool(struct bench_json *w, const char *key, bool v)
{
	jw_bool(&w->w, key, v);
}

static void cpu_model(char *buf, size_t n)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(buf, n, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !c)
			continue;
		c += 1 + (c[1] == ' ');
		c[strcspn(c, "\n")] = 0;
		snprintf(buf, n, "%s", c);
		break;
	}
	fclose(f);
}

static void jw_backends(struct jw *w, const char *key, unsigned set)
{
	jw_open(w, key, '[');
	for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY; p++) {
		if (set & BENCH_BACKEND_BIT(p))
			jw_str(w, NULL, ua_protect_name(p));
	}
	jw_close(w, ']');
}

static void jw_machine(struct jw *w)
{
	struct utsname u;
	struct bench_host h;
	char cpu[160], kind[160];
	const char *why = NULL;
	double load[1];

	cpu_model(cpu, sizeof(cpu));
	if (uname(&u))
		strcpy(u.release, "unknown");
	jw_open(w, "machine", '{');
	jw_str(w, "cpu", cpu);
	jw_uint(w, "cpus_online", (uint64_t)sysconf(_SC_NPROCESSORS_ONLN));
	jw_str(w, "kernel", u.release);
	jw_str(w, "compiler", __VERSION__);
	jw_num(w, "loadavg_1min", getloadavg(load, 1) == 1 ? load[0] : NAN);
	jw_bool(w, "tsc_invariant", bench_tsc_invariant());
	jw_num(w, "tsc_ghz", bench_tsc_ghz() ? bench_tsc_ghz() : NAN);
	jw_str(w, "host_kind", bench_host_kind_str(kind, sizeof(kind)));
	bench_host_kind(&h);
	jw_bool(w, "pku", h.ospke);
	jw_bool(w, "fsgsbase", h.fsgsbase);
	jw_bool(w, "avx512", h.avx512);
	if (h.pti < 0)
		jw_str(w, "pti", NULL);
	else
		jw_bool(w, "pti", h.pti);
	jw_backends(w, "backends_available", bench_backends_available());
	if (!ua_protect_available(UA_PROTECT_PKEY, &why))
		jw_str(w, "pkey_unavailable_reason", why);
	else
		jw_str(w, "pkey_unavailable_reason", NULL);
	jw_close(w, '}');
}

/* The backends a document has results for. */
static unsigned doc_backends(const struct bench_doc *doc)
{
	unsigned set = 0;

	for (int i = 0; i < doc->ncases; i++) {
		for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY;
		     p++) {
			if (!strcmp(doc->cases[i].backend, ua_protect_name(p)))
				set |= BENCH_BACKEND_BIT(p);
		}
	}
	return set;
}

static void jw_params(struct jw *w, const struct bench_doc *doc)
{
	const struct bench_opts *o = &doc->opts;

	jw_open(w, "params", '{');
	jw_uint(w, "reps", o->reps);
	jw_uint_or_null(w, "count", o->count);
	jw_uint(w, "rep_time_us", o->rep_us);
	jw_str(w, "clock", bench_clock_name());
	jw_backends(w, "backends", doc_backends(doc));
	jw_uint_or_null(w, "max_size", o->max_size);
	jw_uint_or_null(w, "batch", o->batch);
	jw_bool(w, "quick", o->quick);
	jw_close(w, '}');
}

static void jw_meas(struct jw *w, const struct bench_case_res *c,
		    const struct bench_meas *m)
{
	jw_open(w, NULL, '{');
	jw_str(w, "method", m->method);
	jw_bool(w, "available", !m->unavailable);
	jw_str(w, "unavailable_reason", m->unavailable);
	jw_uint(w, "ops_per_rep", m->ops);
	jw_uint(w, "reps", m->reps);
	jw_open(w, "ns_per_op", '{');
	jw_num(w, "median", m->ns_med);
	jw_num(w, "min", m->ns_min);
	jw_num(w, "max", m->ns_max);
	jw_close(w, '}');
	jw_open(w, "samples_ns", '[');
	for (unsigned r = 0; r < m->reps; r++)
		jw_num(w, NULL, m->ns[r]);
	jw_close(w, ']');
	jw_num(w, "bytes_per_sec",
	       c->size && !m->unavailable ? (double)c->size * 1e9 / m->ns_med :
					    NAN);
	jw_num(w, "speed_vs_reference", m->ratio);
	jw_num(w, "instructions_per_op", m->insns);
	jw_open(w, "counts", '{');
	jw_uint(w, "ops", m->counts.ops);
	jw_uint(w, "switches", m->counts.switches);
	jw_uint(w, "windows", m->counts.windows);
	jw_uint(w, "fixups", m->counts.fixups);
	jw_close(w, '}');
	jw_open(w, "per_op", '{');
	jw_num(w, "switches", per_op(m->counts.switches, m->counts.ops));
	jw_num(w, "windows", per_op(m->counts.windows, m->counts.ops));
	jw_num(w, "fixups", per_op(m->counts.fixups, m->counts.ops));
	jw_close(w, '}');
	jw_close(w, '}');
}

static void jw_case(struct jw *w, const struct bench_case_res *c)
{
	jw_open(w, NULL, '{');
	jw_str(w, "group", c->group);
	jw_str(w, "backend", c->backend[0] ? c->backend : NULL);
	jw_str(w, "label", c->label);
	jw_uint_or_null(w, "size", c->size);
	jw_str(w, "reference", c->m[c->ref].method);
	jw_open(w, "methods", '[');
	for (int i = 0; i < c->nmeth; i++)
		jw_meas(w, c, &c->m[i]);
	jw_close(w, ']');
	jw_close(w, '}');
}

static void jw_ratio(struct jw *w, const struct bench_doc *doc,
		     const struct bench_ratio *r)
{
	const struct bench_case_res *c = &doc->cases[r->case_idx];

	static const char *const kinds[] = { "speed", "count", "instructions",
					     "latency" };

	jw_open(w, NULL, '{');
	jw_str(w, "name", r->name);
	jw_str(w, "kind", kinds[r->kind]);
	jw_str(w, "what", r->what);
	jw_str(w, "group", c->group);
	jw_str(w, "backend", r->backend[0] ? r->backend : NULL);
	jw_str(w, "label", c->label);
	jw_str(w, "method", c->m[r->num].method);
	jw_str(w, "reference", c->m[r->den].method);
	jw_num(w, "value", r->value);
	jw_num(w, "q1", r->q1);
	jw_num(w, "q3", r->q3);
	jw_str(w, "target", r->target_key);
	jw_str(w, "status", bench_target_status(r));
	if (r->skipped[0])
		jw_str(w, "skipped_reason", r->skipped);
	jw_close(w, '}');
}

static void jw_targets(struct jw *w, struct bench_doc *const *docs, int ndocs,
		       bool all)
{
	jw_open(w, "targets", '[');
	for (const struct bench_target *t = bench_targets; t->key; t++) {
		const char *st = target_status(t, docs, ndocs);

		if (!all && (!strcmp(st, "pending") || !strcmp(st, "not run")))
			continue;
		jw_open(w, NULL, '{');
		jw_str(w, "key", t->key);
		jw_str(w, "measure", t->measure);
		jw_str(w, "target", t->target);
		jw_num(w, "threshold", t->threshold ? t->threshold : NAN);
		jw_bool(w, "at_most", t->at_most);
		jw_str(w, "status", st);
		jw_str(w, "pending_reason", t->pending);
		jw_open(w, "values", '[');
		for (int d = 0; d < ndocs; d++) {
			for (int i = 0; i < docs[d]->nratios; i++) {
				const struct bench_ratio *r =
					&docs[d]->ratios[i];

				if (r->target_key &&
				    !strcmp(r->target_key, t->key))
					jw_str(w, NULL, r->name);
			}
		}
		jw_close(w, ']');
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

static void jw_head(struct jw *w, const char *sub)
{
	jw_str(w, "schema", "uabench/1");
	jw_str(w, "tool", "uabench");
	jw_str(w, "version", UA_VERSION);
	jw_str(w, "subcommand", sub);
}

static void jw_doc(struct jw *w, struct bench_doc *doc, bool top)
{
	struct bench_doc *one[1] = { doc };

	jw_open(w, NULL, '{');
	jw_head(w, doc->subcommand);
	if (top)
		jw_machine(w);
	jw_params(w, doc);
	jw_num(w, "wall_seconds", doc->wall_s);
	jw_open(w, "notes", '[');
	for (int i = 0; i < doc->nnotes; i++)
		jw_str(w, NULL, doc->notes[i]);
	jw_close(w, ']');
	jw_open(w, "cases", '[');
	for (int i = 0; i < doc->ncases; i++)
		jw_case(w, &doc->cases[i]);
	jw_close(w, ']');
	jw_open(w, "ratios", '[');
	for (int i = 0; i < doc->nratios; i++)
		jw_ratio(w, doc, &doc->ratios[i]);
	jw_close(w, ']');
	jw_targets(w, one, 1, false);
	if (doc->json_extra) {
		jw_open(w, "extra", '{');
		doc->json_extra((struct bench_json *)w, doc);
		jw_close(w, '}');
	}
	jw_close(w, '}');
}

/* One subcommand's document, or (report) the documents of a whole run. */
int bench_write_json(FILE *f, struct bench_doc *const *docs, int ndocs,
		     const struct bench_opts *report)
{
	struct jw w = { .f = f, .first = { true } };
	double wall = 0;

	if (!report) {
		jw_doc(&w, docs[0], true);
	} else {
		jw_open(&w, NULL, '{');
		jw_head(&w, "report");
		jw_machine(&w);
		jw_open(&w, "params", '{');
		jw_bool(&w, "quick", report->quick);
		jw_str(&w, "output_dir", report->outdir);
		jw_close(&w, '}');
		for (int i = 0; i < ndocs; i++)
			wall += docs[i]->wall_s;
		jw_num(&w, "wall_seconds", wall);
		jw_open(&w, "runs", '[');
		for (int i = 0; i < ndocs; i++)
			jw_doc(&w, docs[i], false);
		jw_close(&w, ']');
		jw_targets(&w, docs, ndocs, true);
		jw_close(&w, '}');
	}
	fputc('\n', f);
	return ferror(f) ? BENCH_EXIT_FAIL : 0;
}

/* ---- Markdown ---- */

/* Rows labelled by their size in bytes, not by a name ("mapped"). */
static bool label_is_size(const struct bench_case_res *c)
{
	char b[32];

	snprintf(b, sizeof(b), "%llu", (unsigned long long)c->size);
	return c->size && !strcmp(b, c->label);
}

static void md_block(FILE *f, const struct bench_doc *doc, int from, int to)
{
	const struct bench_case_res *c0 = &doc->cases[from];
	char v[48];

	fprintf(f,
		"\n### %s%s%s%s\n\nSpeed relative to `%s` (same "
		"repetitions); switches per operation exact.\n\n| %s |",
		c0->group, c0->backend[0] ? " — " : "", c0->backend,
		c0->backend[0] ? " backend" : "", c0->m[c0->ref].method,
		label_is_size(c0) ? "size (B)" : "case");
	for (int i = 0; i < c0->nmeth; i++)
		fprintf(f, " %s |", c0->m[i].method);
	fprintf(f, " switches/op |");
	if (!strcmp(c0->group, "nofault"))
		fprintf(f, " fixups/op |");
	fprintf(f, "\n|---|");
	for (int i = 0; i <= c0->nmeth; i++)
		fprintf(f, "---|");
	if (!strcmp(c0->group, "nofault"))
		fprintf(f, "---|");
	fputc('\n', f);
	for (int k = from; k < to; k++) {
		const struct bench_case_res *c = &doc->cases[k];

		fprintf(f, "| %s |", c->label);
		for (int i = 0; i < c->nmeth; i++)
			fprintf(f, " %s |",
				c->m[i].unavailable ?
					"unavailable" :
					fmt_ratio(v, sizeof(v), c->m[i].ratio));
		fputc(' ', f);
		for (int i = 0; i < c->nmeth; i++)
			fprintf(f, "%s%s", i ? " / " : "",
				fmt_count(v, sizeof(v), c->m[i].counts.switches,
					  c->m[i].counts.ops));
		fprintf(f, " |");
		if (!strcmp(c0->group, "nofault")) {
			fputc(' ', f);
			for (int i = 0; i < c->nmeth; i++)
				fprintf(f, "%s%s", i ? " / " : "",
					fmt_count(v, sizeof(v),
						  c->m[i].counts.fixups,
						  c->m[i].counts.ops));
			fprintf(f, " |");
		}
		fputc('\n', f);
	}
}

void bench_write_markdown(FILE *f, struct bench_doc *const *docs, int ndocs)
{
	struct utsname u;
	char cpu[160];
	double wall = 0;

	cpu_model(cpu, sizeof(cpu));
	if (uname(&u))
		strcpy(u.release, "unknown");
	for (int i = 0; i < ndocs; i++)
		wall += docs[i]->wall_s;
	fprintf(f,
		"# uabench report\n\n%s, %ld CPUs online, Linux %s; clock "
		"%s; uaccess %s; %.0f s of measurement.\n\n"
		"Every figure is a speed ratio to the reference measured in "
		"the same repetitions (reference time / time, median over "
		"repetitions): above 1 is faster than the reference; "
		"protection switch counts are exact counts per operation. "
		"Absolute times are in results.json.\n\n"
		"## Targets (doc/design.md §5)\n\n",
		cpu, sysconf(_SC_NPROCESSORS_ONLN), u.release,
		bench_clock_name(), UA_VERSION, wall);
	bench_print_targets(f, docs, ndocs, true);
	for (int d = 0; d < ndocs; d++) {
		const struct bench_doc *doc = docs[d];
		int from = 0;

		fprintf(f, "\n## %s\n\n", doc->subcommand);
		/* signal1 samples by time; its own table says how. */
		if (!strcmp(doc->subcommand, "signal1"))
			fprintf(f, "will-it-scale sampling (below).\n");
		else if (!strcmp(doc->subcommand, "async"))
			fprintf(f, "latency samples (below).\n");
		else if (doc->opts.count)
			fprintf(f,
				"repetitions: %u per method; %llu operations "
				"per repetition.\n",
				doc->opts.reps,
				(unsigned long long)doc->opts.count);
		else
			fprintf(f,
				"repetitions: %u per method; operations per "
				"repetition calibrated to about %llu us, then "
				"fixed.\n",
				doc->opts.reps,
				(unsigned long long)doc->opts.rep_us);
		for (int i = 0; i < doc->nnotes; i++)
			fprintf(f, "%s- %s\n", i ? "" : "\n", doc->notes[i]);
		if (doc->print_cases) {
			doc->print_cases(f, doc, true);
			continue;
		}
		for (int i = 1; i <= doc->ncases; i++) {
			if (i < doc->ncases &&
			    same_block(&doc->cases[i], &doc->cases[from]))
				continue;
			md_block(f, doc, from, i);
			from = i;
		}
	}
}
