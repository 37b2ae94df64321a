// SPDX-License-Identifier: MIT
/*
 * The cost of one WRPKRU, and the rows that put it next to the pkey null
 * syscall and pkey clear_user: WRPKRU per operation (exact, the pkey
 * backend's switch count of ua_stats: one WRPKRU per switch) and the share
 * of the operation's time they take (count x cost / time per operation).
 */
#include <cpuid.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "uabench.h"

#define PAIRS 100000 /* WRPKRU pairs per repetition */
#define REPS 11

/* NULL when the OS has enabled protection keys, else why not (CPUID). */
static const char *no_ospke(void)
{
	unsigned a, b, c, d;

	if (__get_cpuid_max(0, NULL) < 7)
		return "CPUID has no leaf 7: no protection keys";
	__cpuid_count(7, 0, a, b, c, d);
	if (!(c & (1u << 3)))
		return "CPUID.(EAX=7,ECX=0):ECX.PKU[bit 3] = 0: the CPU has "
		       "no protection keys";
	if (!(c & (1u << 4)))
		return "CPUID.(EAX=7,ECX=0):ECX.OSPKE[bit 4] = 0: the OS has "
		       "not enabled protection keys";
	return NULL;
}

static inline uint32_t rdpkru(void)
{
	uint32_t a, d;

	asm volatile(".byte 0x0f,0x01,0xee" : "=a"(a), "=d"(d) : "c"(0));
	return a;
}

static inline void wrpkru(uint32_t v)
{
	asm volatile(".byte 0x0f,0x01,0xef"
		     :
		     : "a"(v), "c"(0), "d"(0)
		     : "memory");
}

static double thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * n WRPKRUs alternating the current PKRU and the same with access to key
 * 15 disabled, PKRU left as it was; no memory is touched between the
 * writes, so the toggled key never matters.  Only call with OSPKE set.
 */
void bench_wrpkru_toggle(uint64_t n)
{
	uint32_t v0 = rdpkru(), v1 = v0 ^ (1u << 30);

	for (uint64_t i = 0; i < n; i += 2) {
		wrpkru(v1);
		wrpkru(v0);
	}
}

/* Median ns (thread CPU time) per WRPKRU over a tight toggling loop. */
static double wrpkru_ns(void)
{
	double ns[REPS];

	for (int r = 0; r < REPS; r++) {
		double t0 = thread_cpu_ns();

		bench_wrpkru_toggle(2 * PAIRS);
		ns[r] = (thread_cpu_ns() - t0) / (2.0 * PAIRS);
	}
	qsort(ns, REPS, sizeof(ns[0]), cmp_double);
	return ns[REPS / 2];
}

static int pkey_case(const struct bench_doc *doc, const char *group)
{
	for (int i = 0; i < doc->ncases; i++) {
		if (!strcmp(doc->cases[i].group, group) &&
		    !strcmp(doc->cases[i].backend, "pkey"))
			return i;
	}
	return -1;
}

void bench_wrpkru_row(struct bench_doc *doc, const char *group,
		      const char *method, const char *op)
{
	int idx = pkey_case(doc, group), k;
	const char *why = no_ospke();
	const struct bench_meas *m;
	struct bench_ratio *r;
	char what[160];
	double each, per_op;

	if (idx < 0 || why) {
		/*
		 * A row even so, on the first case (which has @method):
		 * no value, the reason.
		 */
		if (!doc->ncases)
			return;
		if (!why)
			why = ua_protect_available(UA_PROTECT_PKEY, &why) ?
				      "the pkey backend was not selected" :
				      why;
		if (!why)
			why = "the pkey backend is not available";
		snprintf(what, sizeof(what), "pkey %s: WRPKRU per op, cost",
			 op);
		bench_ratio_set(doc, 0, method, NULL, BENCH_RATIO_SPEED, NAN,
				"pkey_wrpkru", false, what);
		r = &doc->ratios[doc->nratios - 1];
		snprintf(r->skipped, sizeof(r->skipped), "%s", why);
	} else {
		k = bench_meas_index(&doc->cases[idx], method);
		if (k < 0)
			bench_die("internal: no method %s in %s", method,
				  group);
		m = &doc->cases[idx].m[k];
		each = wrpkru_ns();
		per_op = m->counts.ops ? (double)m->counts.switches /
						 (double)m->counts.ops :
					 NAN;
		snprintf(what, sizeof(what),
			 "pkey %s: WRPKRU per op, %.1f ns each, %.0f%% of op",
			 op, each, 100.0 * per_op * each / m->ns_med);
		bench_ratio_set(doc, idx, method, NULL, BENCH_RATIO_COUNT,
				per_op, "pkey_wrpkru", false, what);
		r = &doc->ratios[doc->nratios - 1];
	}
	snprintf(r->name, sizeof(r->name), "%s/wrpkru/%s", doc->subcommand,
		 method);
	snprintf(r->backend, sizeof(r->backend), "pkey");
}
