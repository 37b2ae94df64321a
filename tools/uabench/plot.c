// SPDX-License-Identifier: MIT
/*
 * SVG plots for `report`, rendered by gnuplot (Debian's gnuplot-nox).
 * The data files and the script stay in <dir>/data so a plot can be
 * re-rendered or restyled by hand.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uabench.h"

const char *bench_find_on_path(const char *prog, char *buf, size_t len)
{
	const char *env = getenv("PATH");
	char *dirs, *save = NULL;

	if (!env)
		return NULL;
	dirs = strdup(env);
	if (!dirs)
		return NULL;
	for (char *d = strtok_r(dirs, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		snprintf(buf, len, "%s/%s", *d ? d : ".", prog);
		if (!access(buf, X_OK)) {
			free(dirs);
			return buf;
		}
	}
	free(dirs);
	return NULL;
}

const char *bench_find_gnuplot(void)
{
	static char path[4096];

	return bench_find_on_path("gnuplot", path, sizeof(path));
}

static FILE *open_in(const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return fopen(path, "w");
}

static const struct bench_doc *doc_named(struct bench_doc *const *docs,
					 int ndocs, const char *name)
{
	for (int i = 0; i < ndocs; i++) {
		if (!strcmp(docs[i]->subcommand, name))
			return docs[i];
	}
	return NULL;
}

static const char *const terminal =
	"set terminal svg size 900,560 noenhanced font 'sans,12' "
	"background rgb 'white'\n";
/* The targets plot: a bar per judged figure, each with a long label. */
static const char *const terminal_wide =
	"set terminal svg size 1200,720 noenhanced font 'sans,12' "
	"background rgb 'white'\n";

/* Throughput vs size, one line per backend and method. */
static int plot_copies(FILE *gp, const char *dir, const struct bench_doc *doc,
		       const char *group, const char *title)
{
	static const char *methods[] = { "checked", "window", "memcpy" };
	char name[160];
	bool first = true, have_ref = false;

	fprintf(gp,
		"%sset output '%s-%s.svg'\nset title '%s'\n"
		"set xlabel 'size (bytes)'\nset ylabel 'MB/s (median)'\n"
		"set logscale x 2\nset logscale y 10\nset grid\n"
		"set key left top\nset style data linespoints\nplot ",
		terminal, doc->subcommand, group, title);
	for (int b = UA_PROTECT_NONE; b <= UA_PROTECT_PKEY; b++) {
		const char *be = ua_protect_name(b);

		for (int m = 0; m < 3; m++) {
			FILE *f;
			int rows = 0;

			/* The reference is the same work under every backend. */
			if (m == 2 && have_ref)
				continue;
			snprintf(name, sizeof(name), "data/%s-%s-%s.dat", group,
				 be, methods[m]);
			f = open_in(dir, name);
			if (!f)
				return -errno;
			for (int i = 0; i < doc->ncases; i++) {
				const struct bench_case_res *c = &doc->cases[i];
				int k = bench_meas_index(c, methods[m]);

				if (strcmp(c->group, group) ||
				    strcmp(c->backend, be) || k < 0)
					continue;
				fprintf(f, "%llu %.6g\n",
					(unsigned long long)c->size,
					(double)c->size * 1e3 / c->m[k].ns_med);
				rows++;
			}
			fclose(f);
			if (!rows) {
				char path[4096];

				snprintf(path, sizeof(path), "%s/%s", dir,
					 name);
				unlink(path);
				continue;
			}
			have_ref |= m == 2;
			fprintf(gp, "%s'%s' using 1:2 title '%s%s%s%s'",
				first ? "" : ", \\\n     ", name, methods[m],
				m == 2 ? "" : " [", m == 2 ? "" : be,
				m == 2 ? "" : "]");
			first = false;
		}
	}
	fputc('\n', gp);
	return first ? 0 : 1;
}

/* Speed of each nofault method relative to process_vm_readv. */
static int plot_nofault(FILE *gp, const char *dir, const struct bench_doc *doc)
{
	const struct bench_case_res *mapped = NULL, *unmapped = NULL;
	FILE *f;

	for (int i = 0; i < doc->ncases; i++) {
		if (!strcmp(doc->cases[i].label, "mapped"))
			mapped = &doc->cases[i];
		if (!strcmp(doc->cases[i].label, "unmapped"))
			unmapped = &doc->cases[i];
	}
	if (!mapped || !unmapped)
		return 0;
	f = open_in(dir, "data/nofault.dat");
	if (!f)
		return -errno;
	for (int i = 0; i < mapped->nmeth; i++) {
		int k = bench_meas_index(unmapped, mapped->m[i].method);
		double a = mapped->m[i].ratio;
		double b = k < 0 ? NAN : unmapped->m[k].ratio;

		fprintf(f, "%s ", mapped->m[i].method);
		fprintf(f, isnan(a) ? "? " : "%.6g ", a);
		fprintf(f, isnan(b) ? "?\n" : "%.6g\n", b);
	}
	fclose(f);
	fprintf(gp,
		"%sset output 'nofault.svg'\nunset logscale\n"
		"set title 'read 8 bytes if mapped: speed relative to "
		"process_vm_readv'\nset xlabel ''\n"
		"set ylabel 'speed ratio (log)'\nset logscale y 10\n"
		"set grid ytics\nset key left top\nset datafile missing '?'\n"
		"set style data histograms\nset style histogram clustered\n"
		"set style fill solid 0.7 border -1\nset xtics rotate by 30 "
		"right\nset bmargin 10\n"
		"plot 'data/nofault.dat' using 2:xtic(1) title 'mapped', "
		"'' using 3 title 'unmapped'\nset xtics norotate\nset bmargin "
		"-1\n",
		terminal);
	return 1;
}

/* Each raise configuration's speed relative to the host's raise(). */
static int plot_raise(FILE *gp, const char *dir, const struct bench_doc *doc)
{
	const struct bench_case_res *c;
	FILE *f;

	if (!doc->ncases)
		return 0;
	c = &doc->cases[0];
	f = open_in(dir, "data/raise.dat");
	if (!f)
		return -errno;
	for (int i = 0; i < c->nmeth; i++) {
		if (c->m[i].unavailable || isnan(c->m[i].ratio))
			continue;
		fprintf(f, "%s %.6g\n", c->m[i].method, c->m[i].ratio);
	}
	fclose(f);
	fprintf(gp,
		"%sset output 'raise.svg'\nunset logscale\n"
		"set title 'signal round trip (raise, empty handler, "
		"sigreturn): speed relative to host raise()'\n"
		"set xlabel ''\nset ylabel 'speed ratio (log)'\n"
		"set logscale y 10\nset grid ytics\nset key off\n"
		"set style data histograms\nset style fill solid 0.7 border "
		"-1\nset xtics rotate by 45 right\nset bmargin 12\n"
		"plot 'data/raise.dat' using 2:xtic(1), 1 with lines lw 2\n"
		"set xtics norotate\nset bmargin -1\n",
		terminal);
	return 1;
}

/* Each fault configuration's host time / engine time: 1 is the target. */
static int plot_fault(FILE *gp, const char *dir, const struct bench_doc *doc)
{
	const struct bench_case_res *c;
	double top = 1;
	FILE *f;
	int rows = 0;

	if (!doc->ncases)
		return 0;
	c = &doc->cases[0];
	f = open_in(dir, "data/fault.dat");
	if (!f)
		return -errno;
	for (int i = 0; i < c->nmeth; i++) {
		if (i == c->ref || c->m[i].unavailable || isnan(c->m[i].ratio))
			continue;
		fprintf(f, "%s %.6g\n", c->m[i].method, c->m[i].ratio);
		top = fmax(top, c->m[i].ratio);
		rows++;
	}
	fclose(f);
	if (!rows)
		return 0;
	/* Room above the bars and the line at 1, which a ratio nears. */
	fprintf(gp,
		"%sset output 'fault.svg'\nunset logscale\n"
		"set title 'guest SIGFPE round trip: host time / engine time "
		"(>= 1: engine at least as fast)'\n"
		"set xlabel ''\nset ylabel 'host time / engine time (log)'\n"
		"set logscale y 10\nset yrange [*:%.3g]\nset grid ytics\n"
		"set key off\nset style data histograms\n"
		"set style fill solid 0.7 border -1\n"
		"set xtics rotate by 45 right\nset bmargin 12\n"
		"plot 'data/fault.dat' using 2:xtic(1), 1 with lines lw 2\n"
		"set xtics norotate\nset bmargin -1\nset yrange [*:*]\n",
		terminal, top * 3);
	return 1;
}

/* async: median and p99 latency per configuration, the 1 ms line. */
static int plot_async(FILE *gp, const char *dir, const struct bench_doc *doc)
{
	FILE *f;
	int rows = 0;

	f = open_in(dir, "data/async.dat");
	if (!f)
		return -errno;
	for (int i = 0; i < doc->nratios; i++) {
		const struct bench_ratio *r = &doc->ratios[i];
		const struct bench_meas *m;

		if (r->kind != BENCH_RATIO_LATENCY || isnan(r->value))
			continue;
		m = &doc->cases[r->case_idx].m[r->num];
		fprintf(f, "%s %.6g %.6g\n", m->method, m->ns_med / 1e3,
			r->value);
		rows++;
	}
	fclose(f);
	if (!rows)
		return 0;
	fprintf(gp,
		"%sset output 'async.svg'\nunset logscale\n"
		"set title 'async signal: send to handler entry, task spinning "
		"without syscalls (target: p99 < 1 ms)'\n"
		"set xlabel ''\nset ylabel 'latency, us (log)'\n"
		"set logscale y 10\nset grid ytics\nset key left top\n"
		"set style data histograms\nset style histogram clustered\n"
		"set style fill solid 0.7 border -1\n"
		"set xtics rotate by 45 right\nset bmargin 12\n"
		"plot 'data/async.dat' using 2:xtic(1) title 'median', "
		"'' using 3 title 'p99', 1000 with lines lw 2 title '1 ms'\n"
		"set xtics norotate\nset bmargin -1\n",
		terminal);
	return 1;
}

/* Each judged ratio as a fraction of its target: 1 is the line to reach. */
static int plot_targets(FILE *gp, const char *dir,
			struct bench_doc *const *docs, int ndocs)
{
	FILE *f = open_in(dir, "data/targets.dat");
	int rows = 0;

	if (!f)
		return -errno;
	for (int d = 0; d < ndocs; d++) {
		for (int i = 0; i < docs[d]->nratios; i++) {
			const struct bench_ratio *r = &docs[d]->ratios[i];
			const struct bench_case_res *c =
				&docs[d]->cases[r->case_idx];
			const struct bench_target *t;

			if (!r->target_key || !r->target_applies ||
			    isnan(r->value))
				continue;
			t = bench_target_find(r->target_key);
			if (r->kind == BENCH_RATIO_LATENCY ||
			    r->kind == BENCH_RATIO_COUNT) {
				/* At most the threshold: 1 is met. */
				fprintf(f, "\"%s %s%s%s%s\" %.6g\n",
					c->m[r->num].method,
					r->kind == BENCH_RATIO_COUNT ?
						"switches" :
						"p99 latency",
					r->backend[0] ? " [" : "", r->backend,
					r->backend[0] ? "]" : "",
					r->value > 0 ? t->threshold / r->value :
						       1);
				rows++;
				continue;
			}
			/* fault's names are raise's: say which it is. */
			fprintf(f, "\"%s%s vs %s%s%s%s\" %.6g\n",
				strcmp(c->group, "fault") ? "" : "fault ",
				c->m[r->num].method, c->m[r->den].method,
				r->backend[0] ? " [" : "", r->backend,
				r->backend[0] ? "]" : "",
				r->value / t->threshold);
			rows++;
		}
	}
	fclose(f);
	if (!rows)
		return 0;
	fprintf(gp,
		"%sset output 'targets.svg'\nunset logscale\n"
		"set title 'measured ratio / design target (>= 1: met)'\n"
		"set xlabel ''\nset ylabel 'fraction of target (log)'\n"
		"set logscale y 10\nset grid ytics\nset key off\n"
		"set style data histograms\nset style fill solid 0.7 border "
		"-1\n"
		"set xtics rotate by 45 right font ',10'\nset bmargin 22\n"
		"plot 'data/targets.dat' using 2:xtic(1), 1 with lines lw 2\n"
		"set xtics norotate font ''\nset bmargin -1\n",
		terminal_wide);
	return 1;
}

static int run_gnuplot(const char *gnuplot, const char *dir)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		int log;

		if (chdir(dir))
			_exit(127);
		log = open("data/gnuplot.log",
			   O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (log >= 0) {
			dup2(log, STDOUT_FILENO);
			dup2(log, STDERR_FILENO);
		}
		execl(gnuplot, "gnuplot", "data/plots.gp", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	/* Positive: gnuplot itself failed; its messages are in the log. */
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : 1;
}

/* Count a plot in; 0, or the negative errno of a plot that failed. */
static int add_plot(int *n, int r)
{
	if (r > 0)
		*n += r;
	return r < 0 ? r : 0;
}

int bench_plot(const char *dir, const char *gnuplot,
	       struct bench_doc *const *docs, int ndocs, int *nplots)
{
	const struct bench_doc *uc = doc_named(docs, ndocs, "usercopy");
	const struct bench_doc *nf = doc_named(docs, ndocs, "nofault");
	const struct bench_doc *rs = doc_named(docs, ndocs, "raise");
	const struct bench_doc *fl = doc_named(docs, ndocs, "fault");
	const struct bench_doc *as = doc_named(docs, ndocs, "async");
	char sub[4096];
	FILE *gp;
	int n = 0, r;

	snprintf(sub, sizeof(sub), "%s/data", dir);
	if (mkdir(sub, 0755) && errno != EEXIST)
		return -errno;
	gp = open_in(dir, "data/plots.gp");
	if (!gp)
		return -errno;
	fprintf(gp, "# uabench report plots; run from the report directory: "
		    "gnuplot data/plots.gp\n");
	r = 0;
	if (uc)
		r = add_plot(&n, plot_copies(gp, dir, uc, "copy_from",
					     "copy from guest memory: "
					     "throughput vs size"));
	if (uc && !r)
		r = add_plot(&n, plot_copies(gp, dir, uc, "copy_to",
					     "copy to guest memory: "
					     "throughput vs size"));
	if (nf && !r)
		r = add_plot(&n, plot_nofault(gp, dir, nf));
	if (rs && !r)
		r = add_plot(&n, plot_raise(gp, dir, rs));
	if (fl && !r)
		r = add_plot(&n, plot_fault(gp, dir, fl));
	if (as && !r)
		r = add_plot(&n, plot_async(gp, dir, as));
	if (!r)
		r = add_plot(&n, bench_plot_compilers(gp, dir, docs, ndocs));
	if (!r)
		r = add_plot(&n, bench_plot_real(gp, dir, docs, ndocs));
	if (!r)
		r = add_plot(&n, plot_targets(gp, dir, docs, ndocs));
	if (fclose(gp) && !r)
		r = -errno;
	*nplots = n;
	if (r)
		return r;
	return n ? run_gnuplot(gnuplot, dir) : 0;
}
