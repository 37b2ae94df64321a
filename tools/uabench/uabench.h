/* SPDX-License-Identifier: MIT */
/*
 * uabench: the benchmark suite of doc/design.md §5.
 *
 * A subcommand is one entry of the table in main.c (struct bench_cmd)
 * living in its own cmd_<name>.c.  It builds cases (struct bench_case: a
 * few methods doing the same work, one of them the reference), hands them
 * to the engine (engine.c), which runs the methods interleaved and records
 * medians, paired ratios and exact ua_stats counts into a document
 * (struct bench_doc).  The document is printed as a table, as JSON
 * (uabench.schema.json) or, by `report`, as Markdown and SVG plots.
 *
 * Adding a subcommand (doc/benchmarks.md): a cmd_<name>.c with its
 * struct bench_cmd, a line in bench_cmds[] and in meson.build, its name in
 * the schema's "subcommand" enum, its ratios tied to bench_targets[] keys
 * (whose "pending" reason it then drops).  Options of its own are a new
 * BOPT_* group in main.c; data of its own goes in the schema's "extra".
 */
#ifndef UABENCH_H
#define UABENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <uaccess.h>

#define BENCH_MAX_METH 10
#define BENCH_MAX_REPS 31
#define BENCH_MAX_THREADS 1024 /* signal1 -t, will-it-scale's older cap */

/* Exit codes: 2 is a usage error, as getopt-style tools do. */
#define BENCH_EXIT_FAIL 1
#define BENCH_EXIT_USAGE 2

/* Option groups a subcommand accepts besides the common ones. */
#define BOPT_PROTECT (1u << 0) /* --protect LIST */
#define BOPT_SIZE (1u << 1)    /* --max-size N */
#define BOPT_BATCH (1u << 2)   /* --batch N */
#define BOPT_OUTPUT (1u << 3)  /* -o DIR */
#define BOPT_QUICK (1u << 4)   /* --quick */
#define BOPT_WIS (1u << 5)     /* -t THREADS, -s SECONDS, -w WARMUP */
#define BOPT_INSNS (1u << 6)   /* --no-insns */

enum bench_clock {
	BENCH_CLOCK_CPUTIME, /* CLOCK_THREAD_CPUTIME_ID, the default */
	BENCH_CLOCK_TSC,     /* rdtsc; only with an invariant TSC */
	BENCH_CLOCK_MONOTONIC,
};

/* Backends as a bit set, indexed by enum ua_protect. */
#define BENCH_BACKEND_BIT(p) (1u << (p))

/**
 * struct bench_opts - parsed options (0 means "not given": the
 * subcommand's default applies)
 */
struct bench_opts {
	bool json;
	bool quick;
	unsigned reps;
	uint64_t count;	   /* fixed operations per repetition */
	uint64_t rep_us;   /* target microseconds per repetition */
	unsigned backends; /* BENCH_BACKEND_BIT set; 0: all available */
	enum bench_clock clock;
	uint64_t max_size;
	uint64_t batch;
	const char *outdir;
	unsigned threads; /* signal1 -t */
	double seconds;	  /* signal1 -s */
	int warmup;	  /* signal1 -w; -1: not given */
	bool no_insns;	  /* --no-insns: no instruction counts */
};

struct bench_doc;

/**
 * struct bench_ctx - what a subcommand runs with
 * @opts: the options, defaults filled in by the subcommand
 * @progress: show a progress line on stderr (stdout is a terminal)
 * @prog_name: what the progress line calls the running subcommand
 * @start_ns: bench_wall_ns() at the start
 */
struct bench_ctx {
	struct bench_opts opts;
	bool progress;
	const char *prog_name;
	double start_ns;
	bool progress_shown;
	unsigned cases_done, cases_total;
};

/**
 * struct bench_cmd - one subcommand
 * @name: the word after `uabench`
 * @summary: one line for the usage message
 * @usage: its options, one per line, for the usage message
 * @opts: BOPT_* groups it accepts
 * @defaults: fill unset options (@report_quick: running inside
 *	`report --quick`; @in_report: running inside `report`)
 * @run: measure into @doc; 0 or a BENCH_EXIT_* code
 * @run_all: instead of @run, for a subcommand that does its own output
 * @in_report: `report` runs it
 * @count_child: `uabench _count <name> METHOD N` (insns.c): run METHOD's
 *	work N times, untimed, for an instruction count of the whole process
 */
struct bench_cmd {
	const char *name;
	const char *summary;
	const char *usage;
	unsigned opts;
	void (*defaults)(struct bench_opts *o, bool in_report,
			 bool report_quick);
	int (*run)(struct bench_ctx *ctx, struct bench_doc *doc);
	int (*run_all)(struct bench_ctx *ctx);
	bool in_report;
	int (*count_child)(const char *method, uint64_t n);
};

extern const struct bench_cmd bench_cmd_usercopy;
extern const struct bench_cmd bench_cmd_zero;
extern const struct bench_cmd bench_cmd_nofault;
extern const struct bench_cmd bench_cmd_signal1;
extern const struct bench_cmd bench_cmd_raise;
extern const struct bench_cmd bench_cmd_null_syscall;
extern const struct bench_cmd bench_cmd_trap;
extern const struct bench_cmd bench_cmd_fault;
extern const struct bench_cmd bench_cmd_async;
extern const struct bench_cmd bench_cmd_compilers;
extern const struct bench_cmd bench_cmd_real_getppid;
extern const struct bench_cmd bench_cmd_real_signal1;
extern const struct bench_cmd bench_cmd_real_dd;
extern const struct bench_cmd bench_cmd_real_futex;
extern const struct bench_cmd bench_cmd_real_find;
extern const struct bench_cmd bench_cmd_real_tar;
extern const struct bench_cmd bench_cmd_real_sha256;
extern const struct bench_cmd bench_cmd_real_gzip;
extern const struct bench_cmd bench_cmd_real_spawn;
extern const struct bench_cmd bench_cmd_real_python;
extern const struct bench_cmd bench_cmd_report;
extern const struct bench_cmd bench_cmd_floors;

/* The kind of host (floors.c): what moves the figures between hosts. */
struct bench_host {
	bool pku, ospke; /* CPUID 7:ECX: the CPU has keys, the OS on */
	bool fsgsbase;   /* the kernel enables FSGSBASE (AT_HWCAP2) */
	bool avx512;     /* AVX-512F, its state enabled in XCR0 */
	int pti;         /* page-table isolation: 1 on, 0 off, -1 unknown */
};
void bench_host_kind(struct bench_host *h);
const char *bench_host_kind_str(char *buf, size_t n);
/* Floor methods that other subcommands time beside the engine. */
void bench_floor_stub_loop(void *p, uint64_t n);
void bench_frame_floor(void *p, uint64_t n);
/* n WRPKRUs that each change PKRU (wrpkru.c); only with OSPKE. */
void bench_wrpkru_toggle(uint64_t n);
size_t bench_frame_floor_bytes(void);

/* The table of subcommands, NULL-terminated (main.c). */
extern const struct bench_cmd *const bench_cmds[];

/*
 * One way of doing a case's work: @fn performs @n operations.  Work that
 * needs a context of its own set up first (a guest task) gives @timed
 * instead: it performs @n operations, returns their bench_now_ns() time
 * and stores the exact ua_stats delta of those operations alone in @st,
 * so neither the set-up's time nor its switches are counted.
 */
struct bench_method {
	const char *name;
	void (*fn)(void *arg, uint64_t n);
	void *arg;
	const char *unavailable; /* set: not run, the reason why */
	double (*timed)(void *arg, uint64_t n, struct ua_stats *st);
};

/**
 * struct bench_case - methods measured side by side
 * @group: what is measured ("copy_from", "zero", ...)
 * @backend: protection backend name, or NULL when it does not apply
 * @label: the row label ("64", "mapped", ...)
 * @size: bytes per operation, 0 when not meaningful
 * @ref: index of the reference method in @m
 * @ops_multiple: calibrated operation counts are a multiple of this (a
 *	method's batch), so per-operation counts come out exact
 * @cap_rep_us: with a fixed count (-n), a method whose repetition would
 *	take longer than this runs fewer operations (0: no cap)
 */
struct bench_case {
	const char *group;
	const char *backend;
	const char *label;
	uint64_t size;
	int nmeth;
	int ref;
	uint64_t ops_multiple;
	uint64_t cap_rep_us;
	struct bench_method m[BENCH_MAX_METH];
};

/* Exact ua_stats deltas over one repetition of @ops operations. */
struct bench_counts {
	uint64_t ops, switches, windows, fixups;
};

/* Results of one method of one case. */
struct bench_meas {
	char method[48];
	const char *unavailable;
	uint64_t ops; /* per repetition */
	unsigned reps;
	double ns[BENCH_MAX_REPS]; /* ns per operation, per repetition */
	double ns_med, ns_min, ns_max;
	double ratio; /* median over reps of ref time / this time */
	struct bench_counts counts;
	double insns; /* instructions per operation; NAN: not counted */
};

struct bench_case_res {
	char group[32];
	char backend[16]; /* "" when not applicable */
	char label[32];
	uint64_t size;
	int nmeth, ref;
	struct bench_meas m[BENCH_MAX_METH];
};

/* A doc/design.md §5 target (targets.c). */
struct bench_target {
	const char *key;
	const char *measure;
	const char *target;
	double threshold;    /* met when ratio >= threshold */
	const char *pending; /* set: not measurable yet, why */
	bool at_most;	     /* a count: met when value <= threshold */
};

extern const struct bench_target bench_targets[];
const struct bench_target *bench_target_find(const char *key);

/*
 * What a struct bench_ratio holds: a speed ratio (reference time / time),
 * an exact count per operation of one method (switches per signal round
 * trip), an instruction ratio (reference instructions / instructions), or
 * a latency of one method in microseconds (async's p99; judged by an
 * at_most target).
 */
enum bench_ratio_kind {
	BENCH_RATIO_SPEED,
	BENCH_RATIO_COUNT,
	BENCH_RATIO_INSNS,
	BENCH_RATIO_LATENCY,
};

/* A ratio between two methods of one case, optionally against a target. */
struct bench_ratio {
	char name[96];
	char what[160];
	char backend[16];
	int case_idx, num, den;
	double value;  /* median over repetitions */
	double q1, q3; /* its quartiles: the spread a reader should see */
	const char *target_key; /* NULL: informative only */
	bool target_applies;	/* false: "reported" (e.g. mprotect rows) */
	enum bench_ratio_kind kind;
	const char *not_run; /* a method was not run: why (its reason) */
	char skipped[160]; /* set: not measured here, why ("skipped") */
};

struct bench_json;

/**
 * struct bench_doc - everything one subcommand measured
 * @notes: free-form remarks carried into JSON and Markdown
 * @print_cases: set: prints the cases instead of the generic per-case
 *	tables (terminal, or Markdown when @md)
 * @json_extra: set: writes the members of the run's "extra" object
 * @priv: the subcommand's own data for those two, freed by @priv_free
 */
struct bench_doc {
	const char *subcommand;
	struct bench_opts opts;
	struct bench_case_res *cases;
	int ncases, cap_cases;
	struct bench_ratio *ratios;
	int nratios, cap_ratios;
	char notes[8][240];
	int nnotes;
	double wall_s;
	void (*print_cases)(FILE *f, const struct bench_doc *doc, bool md);
	void (*json_extra)(struct bench_json *w, const struct bench_doc *doc);
	void *priv;
	void (*priv_free)(void *priv);
};

/*
 * A guest task's timed loop (raise, fault): the repetition's count in;
 * its time, the thread's counters over the loop, and errno on failure
 * out.
 */
/* Frames carry at most the whole XSAVE image (a few KiB); the rest is
 * head room. */
#define BENCH_JOB_STACK ((size_t)64 << 10)

struct bench_job {
	uint64_t n;
	double ns;
	struct ua_stats st;
	int err;
};

/* engine.c */
void bench_clock_init(enum bench_clock kind);
double bench_now_ns(void);  /* the clock repetitions are timed with */
double bench_wall_ns(void); /* CLOCK_MONOTONIC */
/* "block" or "per-access", as tables, plots and the JSON name frame modes. */
const char *bench_frame_name(enum ua_frame_mode mode);
/* *out = the calling thread's counters now, less *since. */
void bench_stats_since(const struct ua_stats *since, struct ua_stats *out);
/*
 * Run main(j) as a task in sp with frame mode @mode on a BENCH_JOB_STACK;
 * exit naming cmd and cfg if it cannot be created or does not end with
 * status 0 and j->err 0.  *st = j->st; returns j->ns.
 */
double bench_job_run(const char *cmd, const char *cfg, struct ua_space *sp,
		     enum ua_frame_mode mode, void (*main)(void *),
		     struct bench_job *j, struct ua_stats *st);
const char *bench_clock_name(void);
double bench_tsc_ghz(void); /* 0 when the TSC is not used */
bool bench_tsc_invariant(void);
int bench_run_case(struct bench_ctx *ctx, const struct bench_case *c,
		   struct bench_doc *doc);
void bench_ratio_add(struct bench_doc *doc, int case_idx, const char *num,
		     const char *den, const char *target_key,
		     bool target_applies, const char *what);
/* The median of v[0..n) (NAN when n is 0); n <= BENCH_MAX_REPS. */
double bench_median(const double *v, unsigned n);
void bench_ratio_set(struct bench_doc *doc, int case_idx, const char *num,
		     const char *den, enum bench_ratio_kind kind, double value,
		     const char *target_key, bool target_applies,
		     const char *what);
void bench_progress_done(struct bench_ctx *ctx);
void bench_progress_line(struct bench_ctx *ctx, const char *what);
void bench_doc_note(struct bench_doc *doc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void bench_doc_free(struct bench_doc *doc);
int bench_meas_index(const struct bench_case_res *c, const char *method);
/* A new, zeroed case result for a subcommand that measures on its own. */
struct bench_case_res *bench_case_add(struct bench_doc *doc);

/* Keeps the compiler from folding away or merging benchmark operations. */
#define bench_barrier() asm volatile("" ::: "memory")
#define bench_opaque(x) asm volatile("" : "+r"(x))

/*
 * Keeps a load loop a loop of one load: compared with an accessor loop,
 * an unrolled plain loop would measure two loop shapes, not two loads.
 * Clang unrolls the plain loop (volatile loads may be unrolled) but not
 * one holding an asm goto, and its loop vectorizer interleaves the plain
 * loop four times even where it cannot vectorize it, which "GCC unroll 1"
 * does not stop (clang-19: four loads an iteration against one); its own
 * pragma turns off both.  GCC unrolls neither at -O2.
 */
#if defined(__clang__)
#define BENCH_NO_UNROLL \
	_Pragma("clang loop unroll(disable) interleave_count(1)")
#else
#define BENCH_NO_UNROLL _Pragma("GCC unroll 1")
#endif

/* guest.c: a space per backend */
struct bench_space {
	struct ua_space *sp;
	enum ua_protect protect;
	char *buf;
	size_t len;
};
int bench_space_open(struct bench_space *s, enum ua_protect p, size_t len);
void bench_space_close(struct bench_space *s);
unsigned bench_backends_available(void);
unsigned bench_backends_selected(const struct bench_opts *o);
void __attribute__((noreturn, format(printf, 1, 2)))
bench_die(const char *fmt, ...);

/* output.c */
void bench_print_table(FILE *f, const struct bench_doc *doc);
void bench_print_targets(FILE *f, struct bench_doc *const *docs, int ndocs,
			 bool markdown);
int bench_write_json(FILE *f, struct bench_doc *const *docs, int ndocs,
		     const struct bench_opts *report);
void bench_write_markdown(FILE *f, struct bench_doc *const *docs, int ndocs);
const char *bench_target_status(const struct bench_ratio *r);
const char *bench_fmt_ratio(char *b, size_t n, double v);
const char *bench_fmt_count(char *b, size_t n, uint64_t count, uint64_t ops);
const char *bench_fmt_thousands(char *b, size_t n, double v);

/* output.c: the JSON writer, for a subcommand's "extra" members */
void bench_json_open(struct bench_json *w, const char *key, char c);
void bench_json_close(struct bench_json *w, char c);
void bench_json_str(struct bench_json *w, const char *key, const char *v);
void bench_json_num(struct bench_json *w, const char *key, double v);
void bench_json_uint(struct bench_json *w, const char *key, uint64_t v);
void bench_json_bool(struct bench_json *w, const char *key, bool v);

/*
 * insns.c: instructions per operation, counted in child processes
 * (`uabench _count SUB METHOD N`) with the CPU's counter through
 * perf_event_open when the kernel offers it, else under
 * valgrind --tool=callgrind; a run of 2N less a run of N leaves N
 * operations exactly, without start-up and set-up.
 */
struct bench_insn_job {
	const char *method; /* as count_child knows it */
	uint64_t n;
	double per_op; /* out: NAN when not counted */
};

enum bench_insn_source {
	BENCH_INSNS_NONE,
	BENCH_INSNS_PERF,      /* user and kernel instructions */
	BENCH_INSNS_PERF_USER, /* user space only (perf_event_paranoid) */
	BENCH_INSNS_CALLGRIND, /* user space only */
};

enum bench_insn_source bench_insns_source(const char **why);
const char *bench_insns_source_name(enum bench_insn_source s);
int bench_count_insns(struct bench_ctx *ctx, const char *sub,
		      struct bench_insn_job *jobs, int njobs, const char **why);
int bench_count_child_main(int argc, char **argv);

/*
 * wrpkru.c: after @group's pkey case ran, a row "pkey_wrpkru": WRPKRU per
 * operation of @method and their share of its time; without protection
 * keys a skipped row with the reason (CPUID OSPKE).  @op names it.
 */
void bench_wrpkru_row(struct bench_doc *doc, const char *group,
		      const char *method, const char *op);

/* plot.c; bench_plot: 0, a negative errno, or 1 when gnuplot failed */
/* Search PATH for an executable; its path in buf, or NULL. */
const char *bench_find_on_path(const char *prog, char *buf, size_t len);
const char *bench_find_gnuplot(void);
/* Plots of cmd_compilers.c and cmd_real.c: 1 written, 0 none, -errno. */
int bench_plot_compilers(FILE *gp, const char *dir,
			 struct bench_doc *const *docs, int ndocs);
int bench_plot_real(FILE *gp, const char *dir, struct bench_doc *const *docs,
		    int ndocs);
int bench_plot(const char *dir, const char *gnuplot,
	       struct bench_doc *const *docs, int ndocs, int *nplots);

/*
 * cmd_real.c, for cmd_real_work.c: uarun ($UABENCH_UARUN, beside
 * uabench, PATH; NULL: none), and a static busybox on PATH (NULL and the
 * reason in @why when there is none).
 */
const char *bench_find_uarun(void);
const char *bench_find_busybox(char *buf, size_t len, char *why, size_t wlen);
/* The counts of uarun --stats found in @text (which it cuts up) into @st. */
void bench_uarun_stats(char *text, struct ua_stats *st);

/* main.c */
int bench_usage_error(const struct bench_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* UABENCH_H */
