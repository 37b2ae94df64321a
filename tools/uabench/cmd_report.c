// SPDX-License-Identifier: MIT
/*
 * report: every subcommand marked in_report, with modest defaults, into
 * one directory: results.json (the report form of the schema),
 * summary.md, SVG plots; the doc/design.md §5 table on stdout.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "uabench.h"

#define MAX_DOCS 24

static void report_defaults(struct bench_opts *o, bool in_report, bool quick)
{
	/* Each subcommand fills in its own defaults when report runs it. */
	(void)in_report;
	(void)quick;
	if (!o->outdir)
		o->outdir = "bench-report";
}

static int write_file(const char *dir, const char *name,
		      struct bench_doc *const *docs, int ndocs,
		      const struct bench_opts *ro)
{
	char path[4096];
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "uabench report: %s: %s\n", path,
			strerror(errno));
		return BENCH_EXIT_FAIL;
	}
	if (!strcmp(name, "results.json"))
		rc = bench_write_json(f, docs, ndocs, ro);
	else
		bench_write_markdown(f, docs, ndocs);
	if (fclose(f) || rc) {
		fprintf(stderr, "uabench report: cannot write %s\n", path);
		return BENCH_EXIT_FAIL;
	}
	return 0;
}

static int run_sub(struct bench_ctx *ctx, const struct bench_cmd *cmd,
		   struct bench_doc *doc)
{
	struct bench_ctx sub = *ctx;
	double t0 = bench_wall_ns();
	int rc;

	/* What the user gave report applies to each run; the rest defaults. */
	sub.opts.json = false;
	sub.opts.outdir = NULL;
	if (!(cmd->opts & BOPT_PROTECT))
		sub.opts.backends = 0;
	cmd->defaults(&sub.opts, true, ctx->opts.quick);
	sub.prog_name = "report";
	memset(doc, 0, sizeof(*doc));
	doc->subcommand = cmd->name;
	doc->opts = sub.opts;
	rc = cmd->run(&sub, doc);
	doc->wall_s = (bench_wall_ns() - t0) / 1e9;
	ctx->progress_shown |= sub.progress_shown;
	ctx->cases_done = sub.cases_done;
	ctx->cases_total = sub.cases_total;
	return rc;
}

static int report_run(struct bench_ctx *ctx)
{
	struct bench_doc store[MAX_DOCS], *docs[MAX_DOCS];
	const char *dir = ctx->opts.outdir;
	const char *gnuplot = bench_find_gnuplot();
	int ndocs = 0, nplots = 0, rc = 0, err;

	/* Fail before minutes of measuring, not after. */
	if (!gnuplot) {
		fprintf(stderr,
			"uabench report: gnuplot not found on PATH: the plots "
			"need it.\nInstall Debian's gnuplot-nox (tools/install-"
			"deps does) and run again.\n");
		return BENCH_EXIT_FAIL;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "uabench report: mkdir %s: %s\n", dir,
			strerror(errno));
		return BENCH_EXIT_FAIL;
	}
	for (int i = 0; bench_cmds[i] && !rc; i++) {
		if (!bench_cmds[i]->in_report || ndocs == MAX_DOCS)
			continue;
		docs[ndocs] = &store[ndocs];
		rc = run_sub(ctx, bench_cmds[i], docs[ndocs]);
		ndocs++;
	}
	bench_progress_done(ctx);
	if (!rc)
		rc = write_file(dir, "results.json", docs, ndocs, &ctx->opts);
	if (!rc)
		rc = write_file(dir, "summary.md", docs, ndocs, &ctx->opts);
	if (!rc) {
		err = bench_plot(dir, gnuplot, docs, ndocs, &nplots);
		if (err < 0)
			fprintf(stderr, "uabench report: plots: %s\n",
				strerror(-err));
		else if (err)
			fprintf(stderr,
				"uabench report: gnuplot failed; see "
				"%s/data/gnuplot.log\n",
				dir);
		if (err)
			rc = BENCH_EXIT_FAIL;
	}
	if (!rc && ctx->opts.json) {
		rc = bench_write_json(stdout, docs, ndocs, &ctx->opts);
	} else if (!rc) {
		bench_print_targets(stdout, docs, ndocs, false);
		printf("\nwrote %s/: results.json, summary.md, %d SVG plot%s\n",
		       dir, nplots, nplots == 1 ? "" : "s");
	}
	for (int i = 0; i < ndocs; i++)
		bench_doc_free(docs[i]);
	return rc;
}

const struct bench_cmd bench_cmd_report = {
	.name = "report",
	.summary = "run the suite, write bench-report/, print the targets",
	.usage = "  --quick            smallest useful run (a few seconds)\n"
		 "  -o, --output DIR   report directory (default "
		 "bench-report)\n"
		 "  --protect LIST     backends for every subcommand but "
		 "nofault (default:\n"
		 "                     all available)\n"
		 "  --no-insns         do not count instructions (raise, "
		 "null_syscall)\n",
	.opts = BOPT_QUICK | BOPT_OUTPUT | BOPT_PROTECT | BOPT_INSNS,
	.defaults = report_defaults,
	.run_all = report_run,
	.in_report = false,
};
