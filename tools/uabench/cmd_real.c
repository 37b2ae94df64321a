// SPDX-License-Identifier: MIT
/*
 * real_getppid, real_signal1, real_dd, real_futex: unmodified static programs run
 * natively and under uarun in one run, side by side (doc/benchmarks.md).
 *
 *   real_getppid  a static glibc loop of syscall(SYS_getppid)
 *   real_signal1  will-it-scale's signal1 testcase as a static glibc
 *                 program: raise(SIGUSR1) with an empty handler; and
 *                 the same source built with musl-gcc, whose raise()
 *                 blocks signals around its tkill (informative rows)
 *   real_dd       busybox dd if=/dev/zero of=/dev/null bs=512 count=N,
 *                 the benchmark of the kernel's set_fs removal
 *   real_futex    two threads of a static glibc program handing a word
 *                 back and forth with FUTEX_WAIT and FUTEX_WAKE (an
 *                 operation: one round trip, two hand-offs)
 *
 * A case is one trap path (sud, patch, rewrite); its methods are the native run
 * (the reference) and uarun under each backend and frame mode.  An
 * operation is one iteration of the program's loop (one getppid, one
 * raise and its handler, one 512-byte block).  A timed run is a child
 * process: its CPU time (user + system, from wait4) of a run of N
 * iterations less that of a run of none, so exec, loading and exit
 * cancel and the machine's other load does not count.  The engine runs
 * the methods interleaved with fixed counts, and each ratio is native
 * time / uarun time per iteration within a repetition: above 1, the
 * program runs faster under uarun than on the host kernel.  uarun's
 * --stats gives the exact protection switches, windows and fixups of the
 * N iterations the same way (N's less none's).
 *
 * A configuration that cannot run here is a row that says why: pkey
 * without protection keys, a trap path uarun refuses (its own message),
 * a missing uarun or program.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uabench.h"

#ifndef UABENCH_LIBEXECDIR
#define UABENCH_LIBEXECDIR "/usr/local/libexec/uaccess"
#endif

extern char **environ;

/* The first calibration run's iterations. */
#define REAL_OPS_MULTIPLE 64
#define REAL_REASON_LEN 200

enum real_kind {
	REAL_GETPPID,
	REAL_SIGNAL1,
	REAL_SIGNAL1_MUSL,
	REAL_DD,
	REAL_FUTEX,
};

struct real_prog {
	enum real_kind kind;
	const char *group;  /* case group and what the rows call it */
	const char *target; /* bench_targets[] key; NULL: informative */
	const char *title;  /* for the ratio lines */
	const char *file;   /* progs/uabench-FILE; NULL: busybox */
	const char *cc;     /* the compiler that builds it */
	bool reported;      /* its target is a figure to report, not meet */
};

static const struct real_prog real_progs[] = {
	[REAL_GETPPID] = { REAL_GETPPID, "getppid", "real_getppid",
			   "getppid loop", "getppid", "gcc", false },
	[REAL_SIGNAL1] = { REAL_SIGNAL1, "signal1", "real_signal1",
			   "signal1 raise loop", "signal1", "gcc", false },
	[REAL_SIGNAL1_MUSL] = { REAL_SIGNAL1_MUSL, "signal1_musl", NULL,
				"musl signal1 raise loop", "signal1-musl",
				"musl-gcc", false },
	[REAL_DD] = { REAL_DD, "dd", "real_dd", "busybox dd bs=512", NULL,
		      NULL, false },
	[REAL_FUTEX] = { REAL_FUTEX, "futex", "real_futex",
			 "futex round trip between two threads", "futex",
			 "gcc", true },
};

/* The programs that take signals get per-access frame rows too. */
static bool takes_signals(const struct real_prog *p)
{
	return p->kind == REAL_SIGNAL1 || p->kind == REAL_SIGNAL1_MUSL;
}

/* patch is uarun's default and the judged one; rewrite is opt-in. */
static const char *const trap_paths[] = { "sud", "patch", "rewrite" };
#define NTRAPS 3
static const char *const frame_names[] = { "block", "per-access" };

/* One way of running the program: natively, or under one uarun setup. */
struct real_cfg {
	const struct real_prog *prog;
	const char *uarun; /* NULL: natively */
	const char *path;  /* the program (busybox for dd) */
	const char *protect, *frames, *trap;
	char name[48];
	char unavailable[REAL_REASON_LEN];
};

/* Where uabench's own files are: the directory of this executable. */
static const char *self_dir(void)
{
	static char dir[PATH_MAX];
	ssize_t n;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n <= 0)
		return strcpy(dir, ".");
	dir[n] = 0;
	*strrchr(dir, '/') = 0;
	return dir;
}

static bool is_exec(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

/* The first of @cands that is an executable file, copied to @buf. */
static const char *first_exec(char *buf, size_t len, const char *const *cands,
			      int n)
{
	for (int i = 0; i < n; i++) {
		if (cands[i] && is_exec(cands[i])) {
			snprintf(buf, len, "%s", cands[i]);
			return buf;
		}
	}
	return NULL;
}

/*
 * uarun: $UABENCH_UARUN, else beside uabench in the build tree
 * (tools/uarun/uarun) or installed (bin/uarun), else PATH.
 */
const char *bench_find_uarun(void)
{
	static char path[PATH_MAX];
	char a[PATH_MAX], b[PATH_MAX];
	const char *cands[3];

	snprintf(a, sizeof(a), "%s/../uarun/uarun", self_dir());
	snprintf(b, sizeof(b), "%s/uarun", self_dir());
	cands[0] = getenv("UABENCH_UARUN");
	cands[1] = a;
	cands[2] = b;
	if (first_exec(path, sizeof(path), cands, 3))
		return path;
	return bench_find_on_path("uarun", path, sizeof(path));
}

/* A program of tools/uabench/progs: progs/ in the build tree, or libexec. */
static const char *find_prog(const char *name, char *buf, size_t len)
{
	char a[PATH_MAX], b[PATH_MAX];
	const char *cands[2] = { a, b };

	snprintf(a, sizeof(a), "%s/progs/uabench-%s", self_dir(), name);
	snprintf(b, sizeof(b), "%s/uabench-%s", UABENCH_LIBEXECDIR, name);
	return first_exec(buf, len, cands, 2);
}

/* Whether an ELF file has a PT_INTERP header, i.e. is dynamically linked. */
static bool elf_dynamic(const char *path)
{
	unsigned char h[64], ph[56];
	bool dyn = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t off;
	uint16_t num, size;

	if (fd < 0)
		return false;
	if (pread(fd, h, sizeof(h), 0) != sizeof(h) || memcmp(h, "\177ELF", 4))
		goto out;
	memcpy(&off, h + 32, 8);
	memcpy(&size, h + 54, 2);
	memcpy(&num, h + 56, 2);
	for (unsigned i = 0; i < num && size >= sizeof(ph); i++) {
		uint32_t type;

		if (pread(fd, ph, sizeof(ph), (off_t)(off + (uint64_t)i * size)) !=
		    sizeof(ph))
			break;
		memcpy(&type, ph, 4);
		if (type == 3) /* PT_INTERP */
			dyn = true;
	}
out:
	close(fd);
	return dyn;
}

/* A static busybox on PATH, or why there is none. */
const char *bench_find_busybox(char *buf, size_t len, char *why, size_t wlen)
{
	char tmp[PATH_MAX];

	if (!bench_find_on_path("busybox", tmp, sizeof(tmp))) {
		snprintf(why, wlen,
			 "busybox not installed (Debian's "
			 "busybox-static; tools/install-deps installs it)");
		return NULL;
	}
	if (elf_dynamic(tmp)) {
		snprintf(why, wlen,
			 "%.150s is dynamically linked (install "
			 "busybox-static)",
			 tmp);
		return NULL;
	}
	snprintf(buf, len, "%s", tmp);
	return buf;
}

/* The program a case runs, or why there is none. */
static const char *prog_path(const struct real_prog *p, char *buf, size_t len,
			     char *why, size_t wlen)
{
	if (p->file) {
		if (find_prog(p->file, buf, len))
			return buf;
		snprintf(why, wlen,
			 "uabench-%s not found in %s/progs or %s "
			 "(built with uabench when %s is installed)",
			 p->file, self_dir(), UABENCH_LIBEXECDIR, p->cc);
		return NULL;
	}
	return bench_find_busybox(buf, len, why, wlen);
}

struct real_result {
	int status;	     /* wait4's */
	double cpu_ns;	     /* the child's user + system time */
	struct ua_stats st;  /* from uarun --stats; 0 natively */
	char first_err[160]; /* the first line of its stderr */
};

/* "protection switches   670" and the like, from uarun --stats. */
void bench_uarun_stats(char *text, struct ua_stats *st)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "protection switches", offsetof(struct ua_stats, switches) },
		{ "windows", offsetof(struct ua_stats, windows) },
		{ "fixups", offsetof(struct ua_stats, fixups) },
	};
	char *save = NULL;

	for (char *l = strtok_r(text, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			size_t n = strlen(keys[k].key);
			char *end;
			unsigned long long v;

			if (strncmp(l, keys[k].key, n) || l[n] != ' ')
				continue;
			v = strtoull(l + n, &end, 10);
			if (*end == 0)
				*(uint64_t *)((char *)st + keys[k].off) = v;
		}
	}
}

/* The argument vector of @c for @n iterations. */
static void build_argv(const struct real_cfg *c, uint64_t n, char *count,
		       size_t clen, char *opts[3], size_t olen, const char **argv)
{
	int k = 0;

	if (c->uarun) {
		argv[k++] = c->uarun;
		snprintf(opts[0], olen, "--protect=%s", c->protect);
		snprintf(opts[1], olen, "--frames=%s", c->frames);
		snprintf(opts[2], olen, "--trap=%s", c->trap);
		argv[k++] = opts[0];
		argv[k++] = opts[1];
		argv[k++] = opts[2];
		/*
		 * Sites patched at their first trap, in the run of none as
		 * in the run of N: with uarun's default (a sweep only once a
		 * section's traps paid for it) the N run alone would pay a
		 * thousand sud traps first, which N's less none's does not
		 * cancel.  The row is the cost of a patched call; what the
		 * wait costs whole programs is real_*'s (cmd_real_work.c).
		 */
		if (!strcmp(c->trap, "patch"))
			argv[k++] = "--patch-after=1";
		argv[k++] = "--stats";
	}
	argv[k++] = c->path;
	if (c->prog->kind == REAL_DD) {
		snprintf(count, clen, "count=%llu", (unsigned long long)n);
		argv[k++] = "dd";
		argv[k++] = "if=/dev/zero";
		argv[k++] = "of=/dev/null";
		argv[k++] = "bs=512";
	} else {
		snprintf(count, clen, "%llu", (unsigned long long)n);
	}
	argv[k++] = count;
	argv[k] = NULL;
}

/*
 * Run @c once for @n iterations: stdin and stdout /dev/null, stderr
 * read (uarun's --stats; the program's own messages).  0, or a negative
 * errno when the child could not be started.
 */
static int run_child(const struct real_cfg *c, uint64_t n,
		     struct real_result *r)
{
	char count[48], o0[64], o1[64], o2[64], *opts[3] = { o0, o1, o2 };
	const char *argv[16];
	char err[8192];
	size_t got = 0;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	struct rusage ru;
	int pipefd[2], rc;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	build_argv(c, n, count, sizeof(count), opts, sizeof(o0), argv);
	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK |
					      POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawn(&pid, argv[0], &fa, &at, (char *const *)argv,
			 environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(pipefd[1]);
	if (rc) {
		close(pipefd[0]);
		return -rc;
	}
	for (;;) {
		ssize_t k = read(pipefd[0], err + got, sizeof(err) - 1 - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
		if (got == sizeof(err) - 1) /* keep the head, drain the rest */
			got = 0;
	}
	err[got] = 0;
	close(pipefd[0]);
	while (wait4(pid, &r->status, 0, &ru) < 0 && errno == EINTR)
		;
	r->cpu_ns = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
		    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
	snprintf(r->first_err, sizeof(r->first_err), "%.*s",
		 (int)strcspn(err, "\n"), err);
	if (c->uarun)
		bench_uarun_stats(err, &r->st);
	return 0;
}

static bool ended_well(const struct real_result *r)
{
	return WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
}

static void die_run(const struct real_cfg *c, const struct real_result *r)
{
	bench_die("real_%s: %s (%s) did not end with status 0 (wait status "
		  "%#x): %s",
		  c->prog->group, c->name, c->path, (unsigned)r->status,
		  r->first_err);
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* CPU time of a run of @n less a run of none; the counts likewise. */
static double real_timed_once(const struct real_cfg *c, uint64_t n,
			      struct ua_stats *st)
{
	struct real_result r0, rn;
	int err = run_child(c, 0, &r0);

	if (!err)
		err = run_child(c, n, &rn);
	if (err)
		bench_die("real_%s: cannot start %s: %s", c->prog->group,
			  c->uarun ? c->uarun : c->path, strerror(-err));
	if (!ended_well(&r0))
		die_run(c, &r0);
	if (!ended_well(&rn))
		die_run(c, &rn);
	st->switches = sub0(rn.st.switches, r0.st.switches);
	st->windows = sub0(rn.st.windows, r0.st.windows);
	st->fixups = sub0(rn.st.fixups, r0.st.fixups);
	return rn.cpu_ns - r0.cpu_ns;
}

/*
 * The engine's timed method.  Start-up varies by a few ms on a loaded
 * machine: a difference that comes out negative (a short loop hidden in
 * that noise) is measured again, up to three times.
 */
static double real_timed(void *arg, uint64_t n, struct ua_stats *st)
{
	double t = 0;

	for (int k = 0; k < 3 && t <= 0; k++)
		t = real_timed_once(arg, n, st);
	return t > 1 ? t : 1;
}

/*
 * Whether uarun runs the program on trap path @trap at all: a run of no
 * iterations under the none backend.  Otherwise the reason, uarun's own
 * words ("uaccess: trap mechanism 'rewrite' is not implemented yet").
 */
static bool trap_usable(const struct real_cfg *probe, char *why, size_t len)
{
	struct real_result r;
	int err = run_child(probe, 0, &r);

	if (err) {
		snprintf(why, len, "cannot start %.120s: %s",
			 probe->uarun, strerror(-err));
		return false;
	}
	if (ended_well(&r))
		return true;
	snprintf(why, len, "uarun refuses --trap=%s: %s", probe->trap,
		 r.first_err[0] ? r.first_err : "no reason given");
	return false;
}

/*
 * Inside `report` the programs that take no signal run block frames only
 * (per-access frames run the very same code for them; standalone, both
 * are measured to show it): a child process costs tens of ms of wall
 * time on a loaded machine, and report's time is kept modest.
 */
static bool real_in_report;

/*
 * Iterations for about @target ns: from 64, at most 16 times more per
 * run (a start-up that varies can make a short run look free), until a
 * run takes a quarter of the target.
 */
static uint64_t calibrate(const struct bench_method *m, double target)
{
	uint64_t n = REAL_OPS_MULTIPLE;
	struct ua_stats st;

	for (;;) {
		double t = m->timed(m->arg, n, &st), mul;

		if (t >= target / 4 || n >= (1ull << 26))
			return (uint64_t)((double)n * target / t);
		mul = target / 2 / t;
		mul = mul < 2 ? 2 : mul > 16 ? 16 : mul;
		n = (uint64_t)((double)n * mul);
	}
}

/*
 * The engine's way (fixed counts, interleaved repetitions, the order
 * rotated each time, paired ratios) with fewer child processes: the
 * count of each method comes from a few growing runs (calibrate(); -n
 * fixes it outright) with no warm-up of its own, and the exact counts
 * come from the first repetition, not a run of their own.  Every timed
 * run is two children.
 */
static int real_run_case(struct bench_ctx *ctx, const struct bench_case *c,
			 struct bench_doc *doc)
{
	const struct bench_opts *o = &ctx->opts;
	struct bench_case_res *res = bench_case_add(doc);
	double target = (double)o->rep_us * 1000.0;
	char what[96];

	snprintf(what, sizeof(what), "real %s %s", c->group, c->label);
	bench_progress_line(ctx, what);
	snprintf(res->group, sizeof(res->group), "%s", c->group);
	snprintf(res->label, sizeof(res->label), "%s", c->label);
	res->nmeth = c->nmeth;
	res->ref = c->ref;
	for (int i = 0; i < c->nmeth; i++) {
		struct bench_meas *r = &res->m[i];

		snprintf(r->method, sizeof(r->method), "%s", c->m[i].name);
		r->unavailable = c->m[i].unavailable;
		r->insns = NAN;
		if (r->unavailable)
			continue;
		r->reps = o->reps;
		if (o->count) {
			r->ops = o->count;
			continue;
		}
		/* A slow configuration may run fewer than the first 64. */
		r->ops = calibrate(&c->m[i], target);
		if (!r->ops)
			r->ops = 1;
	}
	for (unsigned k = 0; k < o->reps; k++) {
		for (int j = 0; j < c->nmeth; j++) {
			int i = (int)((j + k) % (unsigned)c->nmeth);
			struct bench_meas *r = &res->m[i];
			struct ua_stats st;

			if (r->unavailable)
				continue;
			r->ns[k] = c->m[i].timed(c->m[i].arg, r->ops, &st) /
				   (double)r->ops;
			if (k)
				continue;
			r->counts = (struct bench_counts){ r->ops, st.switches,
							   st.windows,
							   st.fixups };
		}
	}
	for (int i = 0; i < c->nmeth; i++) {
		struct bench_meas *r = &res->m[i], *ref = &res->m[res->ref];
		double v[BENCH_MAX_REPS];

		if (r->unavailable || ref->unavailable) {
			r->ns_med = r->ns_min = r->ns_max = r->ratio = NAN;
			if (!r->unavailable)
				r->ns_med = bench_median(r->ns, r->reps);
			continue;
		}
		r->ns_med = bench_median(r->ns, r->reps);
		r->ns_min = r->ns_max = r->ns[0];
		for (unsigned k = 0; k < r->reps; k++) {
			r->ns_min = fmin(r->ns_min, r->ns[k]);
			r->ns_max = fmax(r->ns_max, r->ns[k]);
			v[k] = ref->ns[k] / r->ns[k];
		}
		r->ratio = bench_median(v, r->reps);
	}
	ctx->cases_done++;
	return doc->ncases - 1;
}

static void real_defaults(struct bench_opts *o, bool in_report, bool quick)
{
	real_in_report = in_report;
	if (!o->reps)
		o->reps = quick ? 3 : in_report ? 5 : 7;
	if (!o->rep_us)
		o->rep_us = quick ? 10000 : in_report ? 20000 : 50000;
}

/* A case nothing of which can run: every row names its reason. */
static int case_not_run(struct bench_doc *doc, const struct bench_case *c)
{
	struct bench_case_res *res = bench_case_add(doc);

	snprintf(res->group, sizeof(res->group), "%s", c->group);
	snprintf(res->label, sizeof(res->label), "%s", c->label);
	res->nmeth = c->nmeth;
	res->ref = c->ref;
	for (int i = 0; i < c->nmeth; i++) {
		struct bench_meas *m = &res->m[i];

		snprintf(m->method, sizeof(m->method), "%s", c->m[i].name);
		m->unavailable = c->m[i].unavailable ?
					 c->m[i].unavailable :
					 "no uarun configuration of "
					 "this case can run here";
		m->ns_med = m->ns_min = m->ns_max = m->ratio = NAN;
		m->insns = NAN;
	}
	return doc->ncases - 1;
}

/*
 * Which rows the headline table shows: each backend's block frames, and
 * for signal1 (the one program that delivers signals) per-access frames
 * under none too; of those not run, only none with block frames (the
 * judged row), which says why.  The rest are in the subcommand's table.
 */
static bool headline(const struct real_prog *p, const struct real_cfg *c)
{
	bool none = !strcmp(c->protect, "none");
	bool block = !strcmp(c->frames, "block");

	if (c->unavailable[0] && !(none && block))
		return false;
	return block || (takes_signals(p) && none);
}

static void add_ratios(struct bench_doc *doc, int idx,
		       const struct real_prog *p, int trap,
		       struct real_cfg *cfgs, int ncfg)
{
	for (int i = 1; i < ncfg; i++) {
		struct real_cfg *c = &cfgs[i];
		bool none_block = !strcmp(c->protect, "none") &&
				  !strcmp(c->frames, "block");
		char what[160];
		struct bench_ratio *r;

		snprintf(what, sizeof(what), "%s, uarun %s (%s) vs native",
			 p->title, c->trap, c->frames);
		bench_ratio_add(doc, idx, c->name, "native",
				headline(p, c) ? p->target : NULL,
				p->target && !p->reported && trap == 1 &&
					none_block,
				what);
		/* The case spans backends; each row names its own. */
		r = &doc->ratios[doc->nratios - 1];
		snprintf(r->backend, sizeof(r->backend), "%s", c->protect);
	}
}

static int run_trap(struct bench_ctx *ctx, struct bench_doc *doc,
		    const struct real_prog *p, int slot, int trap,
		    const char *path, const char *path_why, const char *uarun)
{
	/* The document keeps the reasons: they live as long as it does. */
	struct real_cfg *cfgs = (struct real_cfg *)doc->priv +
				(NTRAPS * slot + trap) * BENCH_MAX_METH;
	struct bench_case c = {
		.group = p->group,
		.label = trap_paths[trap],
		.ref = 0,
		.ops_multiple = REAL_OPS_MULTIPLE,
	};
	unsigned set = bench_backends_selected(&ctx->opts);
	char trap_why[REAL_REASON_LEN] = "";
	bool any = false;
	int n = 0, idx;

	cfgs[n] = (struct real_cfg){ .prog = p, .path = path };
	snprintf(cfgs[n].name, sizeof(cfgs[n].name), "native");
	n++;
	if (path && uarun) {
		struct real_cfg probe = { .prog = p, .uarun = uarun,
					  .path = path, .protect = "none",
					  .frames = "block",
					  .trap = trap_paths[trap] };

		trap_usable(&probe, trap_why, sizeof(trap_why));
	}
	for (int f = 0; f < 2; f++) {
		if (f && real_in_report && !takes_signals(p))
			break;
		for (enum ua_protect b = UA_PROTECT_NONE; b <= UA_PROTECT_PKEY;
		     b++) {
			struct real_cfg *cf = &cfgs[n];
			const char *why = NULL;

			/* pkey is a row (skipped, with why) unless excluded. */
			if (!(set & BENCH_BACKEND_BIT(b)) &&
			    (ctx->opts.backends || b != UA_PROTECT_PKEY))
				continue;
			*cf = (struct real_cfg){ .prog = p, .uarun = uarun,
						 .path = path,
						 .protect = ua_protect_name(b),
						 .frames = frame_names[f],
						 .trap = trap_paths[trap] };
			snprintf(cf->name, sizeof(cf->name), "%s_%s",
				 f ? "per_access" : "block", cf->protect);
			if (!path)
				snprintf(cf->unavailable,
					 sizeof(cf->unavailable), "%s",
					 path_why);
			else if (!uarun)
				snprintf(cf->unavailable,
					 sizeof(cf->unavailable),
					 "uarun not found (built with "
					 "uabench where tasks are supported)");
			else if (!ua_protect_available(b, &why))
				snprintf(cf->unavailable,
					 sizeof(cf->unavailable),
					 "pkey: %s", why);
			else if (trap_why[0])
				snprintf(cf->unavailable,
					 sizeof(cf->unavailable), "%s",
					 trap_why);
			n++;
		}
	}
	if (!path)
		snprintf(cfgs[0].unavailable, sizeof(cfgs[0].unavailable), "%s",
			 path_why);
	c.nmeth = n;
	for (int i = 0; i < n; i++) {
		c.m[i].name = cfgs[i].name;
		c.m[i].timed = real_timed;
		c.m[i].arg = &cfgs[i];
		c.m[i].unavailable =
			cfgs[i].unavailable[0] ? cfgs[i].unavailable : NULL;
		any |= i > 0 && !c.m[i].unavailable;
	}
	if (any && !c.m[0].unavailable)
		idx = real_run_case(ctx, &c, doc);
	else
		idx = case_not_run(doc, &c);
	add_ratios(doc, idx, p, trap, cfgs, n);
	return 0;
}

/* Each of @progs (one case per trap path each) into one document. */
static int real_run(struct bench_ctx *ctx, struct bench_doc *doc,
		    const enum real_kind *kinds, int nprogs)
{
	const char *uarun = bench_find_uarun();
	/* The configurations point at these until the document is done. */
	static char path[2][PATH_MAX];

	if (nprogs > 2)
		bench_die("real: %d programs in one subcommand", nprogs);
	ctx->cases_total += NTRAPS * nprogs;
	/* Every case's configurations (run_trap), freed with the doc. */
	doc->priv = calloc((size_t)(NTRAPS * nprogs * BENCH_MAX_METH),
			   sizeof(struct real_cfg));
	if (!doc->priv)
		bench_die("out of memory");
	doc->priv_free = free;
	bench_doc_note(doc,
		       "operation: one iteration of the program's loop; time: "
		       "the child's CPU time (user + system) of a run of N "
		       "less a run of none; ratio: native time / uarun time "
		       "(above 1: faster under uarun)");
	if (uarun)
		bench_doc_note(doc, "uarun: %s", uarun);
	for (int i = 0; i < nprogs; i++) {
		const struct real_prog *p = &real_progs[kinds[i]];
		char why[REAL_REASON_LEN] = "";
		const char *prog = prog_path(p, path[i], sizeof(path[i]), why,
					     sizeof(why));

		if (prog)
			bench_doc_note(doc, "program: %s", prog);
		for (int t = 0; t < NTRAPS; t++)
			run_trap(ctx, doc, p, i, t, prog, why, uarun);
	}
	return 0;
}

static int run_getppid(struct bench_ctx *ctx, struct bench_doc *doc)
{
	static const enum real_kind k[] = { REAL_GETPPID };

	return real_run(ctx, doc, k, 1);
}

/* glibc's raise() is tgkill alone; musl's blocks signals around tkill. */
static int run_signal1(struct bench_ctx *ctx, struct bench_doc *doc)
{
	static const enum real_kind k[] = { REAL_SIGNAL1, REAL_SIGNAL1_MUSL };

	return real_run(ctx, doc, k, 2);
}

static int run_dd(struct bench_ctx *ctx, struct bench_doc *doc)
{
	static const enum real_kind k[] = { REAL_DD };

	return real_run(ctx, doc, k, 1);
}

static int run_futex(struct bench_ctx *ctx, struct bench_doc *doc)
{
	static const enum real_kind k[] = { REAL_FUTEX };

	return real_run(ctx, doc, k, 1);
}

#define REAL_USAGE                                                        \
	"  --protect LIST     backends, comma-separated: none, mprotect, "  \
	"pkey,\n"                                                         \
	"                     auto, all (default: all available; pkey is " \
	"a\n"                                                             \
	"                     'not run' row where it is missing)\n"        \
	"  UABENCH_UARUN      environment: the uarun to use (default: "    \
	"beside\n"                                                        \
	"                     uabench, then PATH)\n"

const struct bench_cmd bench_cmd_real_getppid = {
	.name = "real_getppid",
	.summary = "static getppid loop: native vs uarun (sud, patch, rewrite)",
	.usage = REAL_USAGE,
	.opts = BOPT_PROTECT,
	.defaults = real_defaults,
	.run = run_getppid,
	.in_report = true,
};

const struct bench_cmd bench_cmd_real_signal1 = {
	.name = "real_signal1",
	.summary = "will-it-scale signal1 program: native vs uarun",
	.usage = REAL_USAGE,
	.opts = BOPT_PROTECT,
	.defaults = real_defaults,
	.run = run_signal1,
	.in_report = true,
};

const struct bench_cmd bench_cmd_real_dd = {
	.name = "real_dd",
	.summary = "busybox dd zero->null bs=512: native vs uarun",
	.usage = REAL_USAGE,
	.opts = BOPT_PROTECT,
	.defaults = real_defaults,
	.run = run_dd,
	.in_report = true,
};

const struct bench_cmd bench_cmd_real_futex = {
	.name = "real_futex",
	.summary = "futex wake/wait round trip between two threads: native "
		   "vs uarun",
	.usage = REAL_USAGE,
	.opts = BOPT_PROTECT,
	.defaults = real_defaults,
	.run = run_futex,
	.in_report = true,
};

/*
 * real.svg for report: per program and trap path, each uarun
 * configuration's speed relative to the native run (log scale; the line
 * at 1 is the native speed).  A configuration not run is left out.
 * Returns 1 with a plot written, 0 with nothing to plot, or -errno.
 */
int bench_plot_real(FILE *gp, const char *dir, struct bench_doc *const *docs,
		    int ndocs)
{
	static const char *const cols[] = { "block_none", "per_access_none",
					    "block_mprotect",
					    "per_access_mprotect",
					    "block_pkey", "per_access_pkey" };
	const int ncols = (int)(sizeof(cols) / sizeof(cols[0]));
	char path[4096], rest[512] = "";
	int rows = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/data/real.dat", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "case");
	for (int k = 0; k < ncols; k++)
		fprintf(f, " %s", cols[k]);
	fputc('\n', f);
	for (int d = 0; d < ndocs; d++) {
		if (strncmp(docs[d]->subcommand, "real_", 5))
			continue;
		for (int i = 0; i < docs[d]->ncases; i++) {
			const struct bench_case_res *c = &docs[d]->cases[i];
			bool any = false;

			for (int k = 0; k < ncols; k++) {
				int m = bench_meas_index(c, cols[k]);

				any |= m >= 0 && !isnan(c->m[m].ratio);
			}
			if (!any)
				continue;
			fprintf(f, "\"%s %s\"", c->group, c->label);
			for (int k = 0; k < ncols; k++) {
				int m = bench_meas_index(c, cols[k]);

				if (m < 0 || isnan(c->m[m].ratio))
					fprintf(f, " ?");
				else
					fprintf(f, " %.6g", c->m[m].ratio);
			}
			fputc('\n', f);
			rows++;
		}
	}
	fclose(f);
	if (!rows)
		return 0;
	/* One xtic column only: a label per cluster, not one per bar. */
	for (int k = 3; k <= ncols + 1; k++)
		snprintf(rest + strlen(rest), sizeof(rest) - strlen(rest),
			 ", '' using %d title columnheader(%d)", k, k);
	fprintf(gp,
		"set terminal svg size 1000,560 noenhanced font 'sans,12' "
		"background rgb 'white'\n"
		"set output 'real.svg'\nunset logscale\n"
		"set title 'static programs under uarun: speed relative to "
		"the native run (> 1: faster under uarun)'\n"
		"set xlabel ''\nset ylabel 'native time / uarun time (log)'\n"
		"set logscale y 10\nset grid ytics\nset key outside right\n"
		"set datafile missing '?'\nset style data histograms\n"
		"set style histogram clustered\n"
		"set style fill solid 0.7 border -1\n"
		"set format y '%%g'\nset xtics rotate by 30 right\n"
		"set bmargin 8\n"
		"plot 'data/real.dat' using 2:xtic(1) title columnheader(2)"
		"%s, 1 with lines lw 2 notitle\nset format y\n"
		"set xtics norotate\nset bmargin -1\nset key default\n",
		rest);
	return 1;
}
