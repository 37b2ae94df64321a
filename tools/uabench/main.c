// SPDX-License-Identifier: MIT
/*
 * uabench: command line, the table of subcommands, and the output of a
 * single subcommand.  A new subcommand is a cmd_<name>.c defining a
 * struct bench_cmd, one line in bench_cmds[] and one in meson.build.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uabench.h"

const struct bench_cmd *const bench_cmds[] = {
	&bench_cmd_usercopy,
	&bench_cmd_zero,
	&bench_cmd_nofault,
	&bench_cmd_signal1,
	&bench_cmd_raise,
	&bench_cmd_null_syscall,
	&bench_cmd_trap,
	&bench_cmd_fault,
	&bench_cmd_async,
	&bench_cmd_compilers,
	&bench_cmd_real_getppid,
	&bench_cmd_real_signal1,
	&bench_cmd_real_dd,
	&bench_cmd_real_futex,
	&bench_cmd_real_find,
	&bench_cmd_real_tar,
	&bench_cmd_real_sha256,
	&bench_cmd_real_gzip,
	&bench_cmd_real_spawn,
	&bench_cmd_real_python,
	&bench_cmd_floors,
	&bench_cmd_report,
	NULL,
};

static const char common_usage[] =
	"  --json             machine-readable output (uabench.schema.json)\n"
	"  -r, --reps N       repetitions per method, 1..31; medians and\n"
	"                     ratios are taken over them\n"
	"  -n, --count N      fixed operations per repetition (default:\n"
	"                     calibrated to the repetition time, then fixed)\n"
	"  -T, --rep-time US  target microseconds per repetition\n"
	"  --clock CLOCK      cputime (thread CPU time, the default), tsc\n"
	"                     (needs an invariant TSC) or monotonic\n"
	"  -h, --help         this message\n";

static void print_usage(FILE *f, const struct bench_cmd *cmd)
{
	if (!cmd) {
		fputs("usage: uabench <subcommand> [options]\n\nsubcommands:\n",
		      f);
		for (int i = 0; bench_cmds[i]; i++)
			fprintf(f, "  %-10s %s\n", bench_cmds[i]->name,
				bench_cmds[i]->summary);
		fprintf(f,
			"\ncommon options:\n%s\nRun 'uabench <subcommand> "
			"--help' for its own options.\n",
			common_usage);
		return;
	}
	fprintf(f, "usage: uabench %s [options]\n  %s\n\noptions:\n%s%s",
		cmd->name, cmd->summary, common_usage,
		cmd->usage ? cmd->usage : "");
}

int bench_usage_error(const struct bench_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("uabench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n\n", stderr);
	print_usage(stderr, cmd);
	return BENCH_EXIT_USAGE;
}

/* A positive decimal count in [min, max]: no sign, no suffix, no blanks. */
static bool parse_count(const char *s, uint64_t min, uint64_t max,
			uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

/*
 * Seconds as signal1's -s takes them: a decimal number, no sign or
 * exponent, in (0, max].
 */
static bool parse_seconds(const char *s, double max, double *out)
{
	double v;
	char *end;

	if (!isdigit((unsigned char)s[0]) || strpbrk(s, "eExXpPiInN"))
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !(v > 0) || v > max)
		return false;
	*out = v;
	return true;
}

/* What UA_PROTECT_AUTO picks here (the UA_PROTECT variable, pkey, mprotect). */
static int resolve_auto(enum ua_protect *p)
{
	struct ua_space_opts so = { .protect = UA_PROTECT_AUTO };
	struct ua_space *sp = ua_space_create(4096, &so);

	if (!sp)
		return -errno;
	*p = ua_space_protect(sp);
	ua_space_destroy(sp);
	return 0;
}

static int parse_protect(const struct bench_cmd *cmd, const char *arg,
			 struct bench_opts *o)
{
	char buf[128], *save = NULL;

	if (strlen(arg) >= sizeof(buf))
		return bench_usage_error(cmd, "--protect: list too long");
	strcpy(buf, arg);
	for (char *w = strtok_r(buf, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		enum ua_protect p = UA_PROTECT_AUTO;
		const char *why = "";
		bool known = false;

		if (!strcmp(w, "all")) {
			o->backends |= bench_backends_available();
			continue;
		}
		for (enum ua_protect k = UA_PROTECT_AUTO; k <= UA_PROTECT_PKEY;
		     k++) {
			if (!strcmp(w, ua_protect_name(k))) {
				p = k;
				known = true;
			}
		}
		if (!known)
			return bench_usage_error(
				cmd,
				"--protect: unknown backend '%s' (none, "
				"mprotect, pkey, auto, all)",
				w);
		if (p == UA_PROTECT_AUTO && resolve_auto(&p))
			return bench_usage_error(
				cmd, "--protect auto: no backend usable here");
		if (!ua_protect_available(p, &why))
			return bench_usage_error(
				cmd,
				"--protect %s: backend not available here: %s",
				w, why);
		o->backends |= BENCH_BACKEND_BIT(p);
	}
	if (!o->backends)
		return bench_usage_error(cmd, "--protect: empty list");
	return 0;
}

static int parse_clock(const struct bench_cmd *cmd, const char *arg,
		       struct bench_opts *o)
{
	if (!strcmp(arg, "cputime")) {
		o->clock = BENCH_CLOCK_CPUTIME;
	} else if (!strcmp(arg, "monotonic")) {
		o->clock = BENCH_CLOCK_MONOTONIC;
	} else if (!strcmp(arg, "tsc")) {
		bench_clock_init(BENCH_CLOCK_CPUTIME);
		if (!bench_tsc_invariant())
			return bench_usage_error(cmd, "--clock tsc: this CPU "
						      "has no invariant TSC");
		o->clock = BENCH_CLOCK_TSC;
	} else {
		return bench_usage_error(cmd,
					 "--clock: unknown clock '%s' "
					 "(cputime, tsc, monotonic)",
					 arg);
	}
	return 0;
}

enum {
	OPT_JSON = 256,
	OPT_PROTECT,
	OPT_MAX_SIZE,
	OPT_BATCH,
	OPT_QUICK,
	OPT_CLOCK,
	OPT_NO_INSNS,
};

static const struct option long_opts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "reps", required_argument, NULL, 'r' },
	{ "count", required_argument, NULL, 'n' },
	{ "rep-time", required_argument, NULL, 'T' },
	{ "help", no_argument, NULL, 'h' },
	{ "protect", required_argument, NULL, OPT_PROTECT },
	{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "quick", no_argument, NULL, OPT_QUICK },
	{ "output", required_argument, NULL, 'o' },
	{ "clock", required_argument, NULL, OPT_CLOCK },
	{ "threads", required_argument, NULL, 't' },
	{ "seconds", required_argument, NULL, 's' },
	{ "warmup", required_argument, NULL, 'w' },
	{ "no-insns", no_argument, NULL, OPT_NO_INSNS },
	{ NULL, 0, NULL, 0 },
};

/* The option group a long-only or short option belongs to (0: common). */
static unsigned opt_group(int c)
{
	switch (c) {
	case OPT_PROTECT:
		return BOPT_PROTECT;
	case OPT_MAX_SIZE:
		return BOPT_SIZE;
	case OPT_BATCH:
		return BOPT_BATCH;
	case OPT_QUICK:
		return BOPT_QUICK;
	case 'o':
		return BOPT_OUTPUT;
	case 't':
	case 's':
	case 'w':
		return BOPT_WIS;
	case OPT_NO_INSNS:
		return BOPT_INSNS;
	default:
		return 0;
	}
}

static int parse_one(const struct bench_cmd *cmd, int c, const char *arg,
		     struct bench_opts *o)
{
	uint64_t v;

	switch (c) {
	case OPT_JSON:
		o->json = true;
		return 0;
	case OPT_QUICK:
		o->quick = true;
		return 0;
	case OPT_NO_INSNS:
		o->no_insns = true;
		return 0;
	case 't':
		if (!parse_count(arg, 1, BENCH_MAX_THREADS, &v))
			return bench_usage_error(cmd,
						 "-t: '%s' is not a count of "
						 "threads in 1..%d",
						 arg, BENCH_MAX_THREADS);
		o->threads = (unsigned)v;
		return 0;
	case 's':
		if (!parse_seconds(arg, BENCH_MAX_REPS, &o->seconds))
			return bench_usage_error(cmd,
						 "-s: '%s' is not a number of "
						 "seconds in (0, %d]",
						 arg, BENCH_MAX_REPS);
		return 0;
	case 'w':
		if (!parse_count(arg, 0, 30, &v))
			return bench_usage_error(cmd,
						 "-w: '%s' is not a count of "
						 "warm-up samples in 0..30",
						 arg);
		o->warmup = (int)v;
		return 0;
	case 'o':
		o->outdir = arg;
		return 0;
	case OPT_PROTECT:
		return parse_protect(cmd, arg, o);
	case OPT_CLOCK:
		return parse_clock(cmd, arg, o);
	case 'r':
		if (!parse_count(arg, 1, BENCH_MAX_REPS, &v))
			return bench_usage_error(cmd,
						 "--reps: '%s' is not a count "
						 "in 1..%d",
						 arg, BENCH_MAX_REPS);
		o->reps = (unsigned)v;
		return 0;
	case 'n':
		if (!parse_count(arg, 1, 1000000000000ull, &o->count))
			return bench_usage_error(
				cmd, "--count: '%s' is not a positive count",
				arg);
		return 0;
	case 'T':
		if (!parse_count(arg, 1, 10000000, &o->rep_us))
			return bench_usage_error(
				cmd,
				"--rep-time: '%s' is not a count of "
				"microseconds in 1..10000000",
				arg);
		return 0;
	case OPT_MAX_SIZE:
		if (!parse_count(arg, 1, 65536, &v) || (v & (v - 1)))
			return bench_usage_error(
				cmd,
				"--max-size: '%s' is not a power of two in "
				"1..65536",
				arg);
		o->max_size = v;
		return 0;
	case OPT_BATCH:
		if (!parse_count(arg, 1, 1000000, &o->batch))
			return bench_usage_error(
				cmd,
				"--batch: '%s' is not a count in 1..1000000",
				arg);
		return 0;
	}
	return bench_usage_error(cmd, "internal: option %d", c);
}

/*
 * Returns 0, BENCH_EXIT_USAGE, or -1 after printing the help (exit 0).
 * argv[0] is the subcommand's name.
 */
static int parse_args(const struct bench_cmd *cmd, int argc, char **argv,
		      struct bench_opts *o)
{
	char shorts[32] = ":hr:n:T:";
	int c, err;

	if (cmd->opts & BOPT_OUTPUT)
		strcat(shorts, "o:");
	if (cmd->opts & BOPT_WIS)
		strcat(shorts, "t:s:w:");
	memset(o, 0, sizeof(*o));
	o->warmup = -1;
	opterr = 0;
	optind = 0; /* glibc: 0 restarts the scan from scratch */
	while ((c = getopt_long(argc, argv, shorts, long_opts, NULL)) != -1) {
		if (c == 'h') {
			print_usage(stdout, cmd);
			return -1;
		}
		if (c == '?')
			return bench_usage_error(cmd, "unknown option '%s'",
						 argv[optind - 1]);
		if (c == ':')
			return bench_usage_error(cmd,
						 "option '%s' needs a "
						 "value",
						 argv[optind - 1]);
		if (opt_group(c) && !(cmd->opts & opt_group(c)))
			return bench_usage_error(cmd, "unknown option '%s'",
						 argv[optind - 1]);
		err = parse_one(cmd, c, optarg, o);
		if (err)
			return err;
	}
	if (optind < argc)
		return bench_usage_error(cmd, "unexpected argument '%s'",
					 argv[optind]);
	return 0;
}

static const struct bench_cmd *find_cmd(const char *name)
{
	for (int i = 0; bench_cmds[i]; i++) {
		if (!strcmp(bench_cmds[i]->name, name))
			return bench_cmds[i];
	}
	return NULL;
}

static int run_one(const struct bench_cmd *cmd, struct bench_ctx *ctx)
{
	struct bench_doc doc = { .subcommand = cmd->name };
	struct bench_doc *docs[1] = { &doc };
	int rc;

	doc.opts = ctx->opts;
	rc = cmd->run(ctx, &doc);
	bench_progress_done(ctx);
	doc.wall_s = (bench_wall_ns() - ctx->start_ns) / 1e9;
	if (!rc && ctx->opts.json)
		rc = bench_write_json(stdout, docs, 1, NULL);
	else if (!rc)
		bench_print_table(stdout, &doc);
	bench_doc_free(&doc);
	return rc;
}

int main(int argc, char **argv)
{
	const struct bench_cmd *cmd;
	struct bench_ctx ctx = { 0 };
	int rc, err;

	if (argc < 2)
		return bench_usage_error(NULL, "missing subcommand");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		print_usage(stdout, NULL);
		return 0;
	}
	/* The child of an instruction count (insns.c); not for users. */
	if (!strcmp(argv[1], "_count")) {
		err = ua_init();
		if (err)
			bench_die("ua_init: %s", strerror(-err));
		return bench_count_child_main(argc - 2, argv + 2);
	}
	cmd = find_cmd(argv[1]);
	if (!cmd)
		return bench_usage_error(NULL, "unknown subcommand '%s'",
					 argv[1]);
	err = ua_init();
	if (err)
		bench_die("ua_init: %s", strerror(-err));
	rc = parse_args(cmd, argc - 1, argv + 1, &ctx.opts);
	if (rc)
		return rc < 0 ? 0 : rc;
	cmd->defaults(&ctx.opts, false, false);
	ctx.progress = isatty(STDOUT_FILENO) && !ctx.opts.json;
	ctx.prog_name = cmd->name;
	bench_clock_init(ctx.opts.clock);
	ctx.start_ns = bench_wall_ns();
	if (cmd->run_all)
		return cmd->run_all(&ctx);
	return run_one(cmd, &ctx);
}
