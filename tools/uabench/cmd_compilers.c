// SPDX-License-Identifier: MIT
/*
 * compilers: the accessor benchmarks as each compiler builds them, side
 * by side.  ua_unsafe_get_user is an inline asm statement in the caller,
 * so its code is the calling compiler's: with asm goto with outputs
 * (GCC 14 and later, Clang 17 and later; include/uaccess/arch/x86_64.h)
 * the load is one instruction whose fault jumps to the caller's label;
 * without it (GCC 12 and 13, which miscompile that form) the fixup sets
 * an error register that a branch after every load tests.
 *
 * Each compiler's row is a uabench built by it: this one, measured in
 * this process, and a clang-19 build (tools/run-bench makes one in
 * build-clang19 and names it in UABENCH_CLANG19), run as a child in
 * measuring mode (UABENCH_COMPILERS_CHILD=1) that prints its samples,
 * one tab-separated line per method, for this process to merge.  The
 * cases are usercopy's load loops (independent and dependent loads of
 * ua_unsafe_get_user in one window vs plain loads in the same window),
 * the independent loop again against a plain load kept in a register
 * (the best an asm load can be), and zero's iov_iter_zero of 512-byte
 * blocks vs memset; the case label names the compiler and the load form.  A compiler that is not there
 * is a row that says why: never a silent gap.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uabench.h"

#define SPAN 4096 /* bytes the load loops walk: stays in L1 */
#define BLOCK 512
#define CHILD_ENV "UABENCH_COMPILERS_CHILD"
#define PEER_ENV "UABENCH_CLANG19"
#define PEER_NAME "clang-19"

extern char **environ;

struct acc_arg {
	uint64_t *gload, *gchain; /* guest: SPAN bytes each */
	char *gblock;		  /* guest: BLOCK bytes */
	char *mblock;		  /* monitor */
};

static void __attribute__((noreturn)) unexpected_fault(void)
{
	bench_die("compilers: unexpected fault on mapped guest memory");
}

static void load_window(void *p, uint64_t n)
{
	const uint64_t *g = ((struct acc_arg *)p)->gload;
	uint64_t sum = 0, x;

	if (!ua_user_read_access_begin(g, SPAN))
		unexpected_fault();
	BENCH_NO_UNROLL
	for (uint64_t i = 0; i < n; i++) {
		ua_unsafe_get_user(x, &g[i % (SPAN / 8)], fault);
		sum += x;
	}
	ua_user_read_access_end();
	bench_opaque(sum);
	return;
fault:
	ua_user_read_access_end();
	unexpected_fault();
}

static void load_plain(void *p, uint64_t n)
{
	const volatile uint64_t *g = ((struct acc_arg *)p)->gload;
	uint64_t sum = 0;

	if (!ua_user_read_access_begin((const void *)g, SPAN))
		unexpected_fault();
	BENCH_NO_UNROLL
	for (uint64_t i = 0; i < n; i++)
		sum += g[i % (SPAN / 8)];
	ua_user_read_access_end();
	bench_opaque(sum);
}

/*
 * load_plain with its load kept out of the add: the empty asm makes the
 * loaded value a register operand, so this is the loop an accessor loop
 * is at best.  A plain load may fold into the add that uses it (`add
 * mem, reg`, one operation); an asm statement's output is always a
 * register, so every inline-asm load, ua_unsafe_get_user's one move
 * included, is a move and then an add.  Both loads are the same move.
 */
static void load_plain_reg(void *p, uint64_t n)
{
	const volatile uint64_t *g = ((struct acc_arg *)p)->gload;
	uint64_t sum = 0, x;

	if (!ua_user_read_access_begin((const void *)g, SPAN))
		unexpected_fault();
	BENCH_NO_UNROLL
	for (uint64_t i = 0; i < n; i++) {
		x = g[i % (SPAN / 8)];
		bench_opaque(x);
		sum += x;
	}
	ua_user_read_access_end();
	bench_opaque(sum);
}

static void chain_window(void *p, uint64_t n)
{
	const uint64_t *g = ((struct acc_arg *)p)->gchain;
	uint64_t x = 0;

	if (!ua_user_read_access_begin(g, SPAN))
		unexpected_fault();
	BENCH_NO_UNROLL
	for (uint64_t i = 0; i < n; i++)
		ua_unsafe_get_user(x, &g[x % (SPAN / 8)], fault);
	ua_user_read_access_end();
	bench_opaque(x);
	return;
fault:
	ua_user_read_access_end();
	unexpected_fault();
}

static void chain_plain(void *p, uint64_t n)
{
	const volatile uint64_t *g = ((struct acc_arg *)p)->gchain;
	uint64_t x = 0;

	if (!ua_user_read_access_begin((const void *)g, SPAN))
		unexpected_fault();
	BENCH_NO_UNROLL
	for (uint64_t i = 0; i < n; i++)
		x = g[x % (SPAN / 8)];
	ua_user_read_access_end();
	bench_opaque(x);
}

/*
 * zero's iov_iter_zero method and its memset reference, here always the
 * C library's memset called through a pointer the compiler cannot see
 * through: GCC 12 inlines memset(p, 0, 512) as `rep stosq` (about 15 ns
 * on an AMD EPYC VM), Clang calls glibc's vector memset (about 3 ns),
 * so a plain memset() call would make each compiler's reference a
 * different piece of code.
 */
static void *(*volatile libc_memset)(void *, int, size_t) = memset;

static void zero_memset(void *p, uint64_t n)
{
	char *m = ((struct acc_arg *)p)->mblock;
	void *(*fn)(void *, int, size_t) = libc_memset;

	for (uint64_t i = 0; i < n; i++) {
		fn(m, 0, BLOCK);
		bench_barrier();
	}
}

static void zero_iter(void *p, uint64_t n)
{
	char *g = ((struct acc_arg *)p)->gblock;

	for (uint64_t i = 0; i < n; i++) {
		struct ua_iov_iter it;

		if (ua_iov_iter_ubuf(&it, UA_ITER_DEST, g, BLOCK))
			bench_die("compilers: ua_iov_iter_ubuf failed");
		if (ua_iov_iter_zero(BLOCK, &it) != BLOCK)
			bench_die("compilers: ua_iov_iter_zero was short");
		bench_barrier();
	}
}

/* "gcc-12 fixup", "clang-19 asm goto": the compiler and its load form. */
static const char *self_label(void)
{
	static char label[32];
#if defined(UA__ARCH_ASM_GOTO_OUTPUT)
	const char *form = UA__ARCH_ASM_GOTO_OUTPUT ? "asm goto" : "fixup";
#else
	const char *form = "generic";
#endif

#if defined(__clang__)
	snprintf(label, sizeof(label), "clang-%d %s", __clang_major__, form);
#elif defined(__GNUC__)
	snprintf(label, sizeof(label), "gcc-%d %s", __GNUC__, form);
#else
	snprintf(label, sizeof(label), "cc %s", form);
#endif
	return label;
}

static bool self_is_peer(void)
{
#if defined(__clang__)
	return __clang_major__ == 19;
#else
	return false;
#endif
}

static void acc_defaults(struct bench_opts *o, bool in_report, bool quick)
{
	if (!o->reps)
		o->reps = quick ? 5 : in_report ? 15 : 21;
	if (!o->rep_us)
		o->rep_us = quick ? 100 : 1000;
}

/*
 * The cases: a reference and the accessor loop it is compared with.
 * "load_reg" is "load" against the register form of a plain load (see
 * load_plain_reg): what is left of "load" beyond it is the fold.
 */
static const struct acc_group {
	const char *name, *ref, *acc;
	const char *what;   /* the ratio's row */
	const char *target; /* its targets.c key, if any */
	void (*ref_fn)(void *arg, uint64_t n);
	void (*acc_fn)(void *arg, uint64_t n);
	size_t size;
} groups[] = {
	{ "load", "plain", "unsafe_get_user",
	  "unsafe_get_user vs plain load, independent", "unsafe_load",
	  load_plain, load_window, 8 },
	{ "load_chain", "plain", "unsafe_get_user",
	  "unsafe_get_user vs plain load, dependent", "unsafe_load",
	  chain_plain, chain_window, 8 },
	{ "zero", "memset", "iov_iter_zero",
	  "iov_iter_zero 512 B vs libc memset", "zero_vs_memset", zero_memset,
	  zero_iter, BLOCK },
	{ "load_reg", "plain_reg", "unsafe_get_user",
	  "unsafe_get_user vs plain load to register", NULL, load_plain_reg,
	  load_window, 8 },
};

#define NGROUPS ((int)(sizeof(groups) / sizeof(groups[0])))

static void measure_backend(struct bench_ctx *ctx, struct bench_doc *doc,
			    enum ua_protect p, char *mblock)
{
	struct acc_arg a = { .mblock = mblock };
	uint64_t next[SPAN / 8];
	struct bench_space s;
	int err = bench_space_open(&s, p, 2 * SPAN + 4096);
	struct bench_case c = {
		.backend = NULL,
		.label = self_label(),
		.nmeth = 2,
		.ref = 0,
	};

	if (err)
		bench_die("compilers: cannot create a %s space: %s",
			  ua_protect_name(p), strerror(-err));
	a.gload = (uint64_t *)s.buf;
	a.gchain = (uint64_t *)(s.buf + SPAN);
	a.gblock = s.buf + 2 * SPAN;
	/* A cycle through every slot, a cache line apart (stride 9). */
	for (size_t i = 0; i < SPAN / 8; i++)
		next[i] = (i + 9) % (SPAN / 8);
	if (ua_copy_to_user(a.gchain, next, sizeof(next)) ||
	    ua_copy_to_user(a.gload, next, sizeof(next)))
		unexpected_fault();
	c.backend = ua_protect_name(s.protect);
	for (int g = 0; g < NGROUPS; g++) {
		const struct acc_group *grp = &groups[g];

		c.group = grp->name;
		c.size = grp->size;
		c.m[0] = (struct bench_method){ grp->ref, grp->ref_fn, &a, NULL,
						NULL };
		c.m[1] = (struct bench_method){ grp->acc, grp->acc_fn, &a, NULL,
						NULL };
		bench_run_case(ctx, &c, doc);
	}
	bench_space_close(&s);
}

static void measure_self(struct bench_ctx *ctx, struct bench_doc *doc)
{
	static char mblock[BLOCK] __attribute__((aligned(64)));
	unsigned set = bench_backends_selected(&ctx->opts);

	for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY; p++) {
		if (set & BENCH_BACKEND_BIT(p))
			measure_backend(ctx, doc, p, mblock);
	}
}

/*
 * The child's side: every case as tab-separated lines,
 *   case GROUP BACKEND LABEL
 *   meth NAME OPS REPS SWITCHES WINDOWS FIXUPS NS...
 */
static void print_samples(const struct bench_doc *doc)
{
	for (int i = 0; i < doc->ncases; i++) {
		const struct bench_case_res *c = &doc->cases[i];

		printf("case\t%s\t%s\t%s\n", c->group, c->backend, c->label);
		for (int k = 0; k < c->nmeth; k++) {
			const struct bench_meas *m = &c->m[k];

			printf("meth\t%s\t%llu\t%u\t%llu\t%llu\t%llu", m->method,
			       (unsigned long long)m->ops, m->reps,
			       (unsigned long long)m->counts.switches,
			       (unsigned long long)m->counts.windows,
			       (unsigned long long)m->counts.fixups);
			for (unsigned r = 0; r < m->reps; r++)
				printf("\t%.6g", m->ns[r]);
			putchar('\n');
		}
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The summary figures the engine gives its own cases. */
static void summarise(struct bench_case_res *c)
{
	for (int k = 0; k < c->nmeth; k++) {
		struct bench_meas *m = &c->m[k], *ref = &c->m[c->ref];
		double s[BENCH_MAX_REPS], v[BENCH_MAX_REPS];
		unsigned n = m->reps < ref->reps ? m->reps : ref->reps;

		m->insns = NAN;
		if (!m->reps) {
			m->ns_med = m->ns_min = m->ns_max = m->ratio = NAN;
			continue;
		}
		memcpy(s, m->ns, m->reps * sizeof(*s));
		qsort(s, m->reps, sizeof(*s), cmp_double);
		m->ns_min = s[0];
		m->ns_max = s[m->reps - 1];
		m->ns_med = (s[(m->reps - 1) / 2] + s[m->reps / 2]) / 2;
		for (unsigned r = 0; r < n; r++)
			v[r] = ref->ns[r] / m->ns[r];
		qsort(v, n, sizeof(*v), cmp_double);
		m->ratio = n ? (v[(n - 1) / 2] + v[n / 2]) / 2 : NAN;
	}
}

static int parse_meth(struct bench_case_res *c, char **save)
{
	struct bench_meas *m = &c->m[c->nmeth];
	const char *name = strtok_r(NULL, "\t\n", save);
	unsigned long long v[5];

	if (!name || c->nmeth == BENCH_MAX_METH)
		return -1;
	memset(m, 0, sizeof(*m));
	snprintf(m->method, sizeof(m->method), "%s", name);
	for (int i = 0; i < 5; i++) {
		const char *t = strtok_r(NULL, "\t\n", save);

		if (!t)
			return -1;
		v[i] = strtoull(t, NULL, 10);
	}
	m->ops = v[0];
	m->reps = v[1] > BENCH_MAX_REPS ? BENCH_MAX_REPS : (unsigned)v[1];
	m->counts = (struct bench_counts){ v[0], v[2], v[3], v[4] };
	for (unsigned r = 0; r < m->reps; r++) {
		const char *t = strtok_r(NULL, "\t\n", save);

		if (!t)
			return -1;
		m->ns[r] = strtod(t, NULL);
	}
	c->nmeth++;
	return 0;
}

/* Merge the child's lines into @doc; the number of cases, or -1. */
static int merge_samples(struct bench_doc *doc, char *text)
{
	struct bench_case_res *c = NULL;
	char *lsave = NULL;
	int n = 0;

	for (char *l = strtok_r(text, "\n", &lsave); l;
	     l = strtok_r(NULL, "\n", &lsave)) {
		char *save = NULL, *kind = strtok_r(l, "\t", &save);

		if (kind && !strcmp(kind, "case")) {
			const char *f[3];

			for (int i = 0; i < 3; i++)
				f[i] = strtok_r(NULL, "\t", &save);
			if (!f[2])
				return -1;
			if (c)
				summarise(c);
			c = bench_case_add(doc);
			snprintf(c->group, sizeof(c->group), "%s", f[0]);
			snprintf(c->backend, sizeof(c->backend), "%s", f[1]);
			snprintf(c->label, sizeof(c->label), "%s", f[2]);
			n++;
		} else if (kind && !strcmp(kind, "meth") && c) {
			if (parse_meth(c, &save))
				return -1;
		}
	}
	if (c)
		summarise(c);
	return n;
}

/* Run the peer in measuring mode; its stdout in @out (malloc'd). */
static int run_peer(struct bench_ctx *ctx, const char *peer, char **out,
		    char *why, size_t wlen)
{
	char reps[16], rep_us[24], count[24], prot[64] = "";
	const char *argv[16];
	size_t len = 0, cap = 1 << 16;
	posix_spawn_file_actions_t fa;
	int pipefd[2], k = 0, rc, st;
	pid_t pid;

	snprintf(reps, sizeof(reps), "%u", ctx->opts.reps);
	snprintf(rep_us, sizeof(rep_us), "%llu",
		 (unsigned long long)ctx->opts.rep_us);
	argv[k++] = peer;
	argv[k++] = "compilers";
	argv[k++] = "-r";
	argv[k++] = reps;
	argv[k++] = "-T";
	argv[k++] = rep_us;
	argv[k++] = "--clock";
	argv[k++] = bench_clock_name();
	if (ctx->opts.count) {
		snprintf(count, sizeof(count), "%llu",
			 (unsigned long long)ctx->opts.count);
		argv[k++] = "-n";
		argv[k++] = count;
	}
	for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY; p++) {
		if (!(ctx->opts.backends & BENCH_BACKEND_BIT(p)))
			continue;
		snprintf(prot + strlen(prot), sizeof(prot) - strlen(prot),
			 "%s%s", prot[0] ? "," : "", ua_protect_name(p));
	}
	if (prot[0]) {
		argv[k++] = "--protect";
		argv[k++] = prot;
	}
	argv[k] = NULL;
	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	setenv(CHILD_ENV, "1", 1);
	rc = posix_spawn(&pid, peer, &fa, NULL, (char *const *)argv, environ);
	unsetenv(CHILD_ENV);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (rc) {
		close(pipefd[0]);
		snprintf(why, wlen, "cannot start %.120s: %s", peer,
			 strerror(rc));
		return -1;
	}
	*out = malloc(cap);
	for (;;) {
		ssize_t got;

		if (len + 1 == cap)
			*out = realloc(*out, cap *= 2);
		if (!*out)
			bench_die("out of memory");
		got = read(pipefd[0], *out + len, cap - 1 - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	(*out)[len] = 0;
	close(pipefd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && !WEXITSTATUS(st))
		return 0;
	snprintf(why, wlen, "the %s build (%.120s) failed: wait status %#x",
		 PEER_NAME, peer, (unsigned)st);
	return -1;
}

/* Rows of a compiler that did not run, each with the reason. */
static void peer_not_run(struct bench_ctx *ctx, struct bench_doc *doc,
			 const char *why)
{
	unsigned set = bench_backends_selected(&ctx->opts);
	char *reason = malloc(strlen(why) + 1);

	if (!reason)
		bench_die("out of memory");
	strcpy(reason, why);
	/* The document's reasons point here: freed with it. */
	doc->priv = reason;
	doc->priv_free = free;
	for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY; p++) {
		if (!(set & BENCH_BACKEND_BIT(p)))
			continue;
		for (int g = 0; g < NGROUPS; g++) {
			struct bench_case_res *c = bench_case_add(doc);

			snprintf(c->group, sizeof(c->group), "%s",
				 groups[g].name);
			snprintf(c->backend, sizeof(c->backend), "%s",
				 ua_protect_name(p));
			snprintf(c->label, sizeof(c->label), "%s", PEER_NAME);
			c->size = groups[g].size;
			c->nmeth = 2;
			snprintf(c->m[0].method, sizeof(c->m[0].method), "%s",
				 groups[g].ref);
			snprintf(c->m[1].method, sizeof(c->m[1].method), "%s",
				 groups[g].acc);
			for (int k = 0; k < 2; k++) {
				c->m[k].unavailable = reason;
				c->m[k].ns_med = c->m[k].ns_min = NAN;
				c->m[k].ns_max = c->m[k].ratio = NAN;
				c->m[k].insns = NAN;
			}
		}
	}
}

static void measure_peer(struct bench_ctx *ctx, struct bench_doc *doc)
{
	const char *peer = getenv(PEER_ENV);
	char why[240], path[4096], *out = NULL;
	int before = doc->ncases;

	if (self_is_peer())
		return;
	if (!peer || !*peer) {
		if (!bench_find_on_path(PEER_NAME, path, sizeof(path)))
			snprintf(why, sizeof(why),
				 "%s not installed (Debian's clang-19; "
				 "tools/install-deps installs it)",
				 PEER_NAME);
		else
			snprintf(why, sizeof(why),
				 "no %s build of uabench: tools/run-bench "
				 "makes one in build-clang19 (or set %s)",
				 PEER_NAME, PEER_ENV);
		peer_not_run(ctx, doc, why);
		return;
	}
	bench_progress_line(ctx, "compilers: " PEER_NAME " build");
	if (run_peer(ctx, peer, &out, why, sizeof(why))) {
		peer_not_run(ctx, doc, why);
	} else if (merge_samples(doc, out) <= 0) {
		doc->ncases = before; /* nothing half-merged */
		snprintf(why, sizeof(why),
			 "the %s build (%.120s) printed no samples", PEER_NAME,
			 peer);
		peer_not_run(ctx, doc, why);
	}
	free(out);
}

/* The case's group in groups[], or NGROUPS. */
static int group_of(const struct bench_case_res *c)
{
	int g;

	for (g = 0; g < NGROUPS && strcmp(c->group, groups[g].name); g++)
		;
	return g;
}

static void add_ratios(struct bench_doc *doc)
{
	for (int i = 0; i < doc->ncases; i++) {
		const struct bench_case_res *c = &doc->cases[i];
		bool none = !strcmp(c->backend, "none");
		bool goto_form = strstr(c->label, "asm goto") != NULL;
		const struct acc_group *grp;
		int g = group_of(c);
		const char *key;
		char what[160];
		bool judged;

		if (g == NGROUPS)
			continue;
		grp = &groups[g];
		key = none ? grp->target : NULL;
		/*
		 * The load targets are judged on the one-instruction form;
		 * the fixup form is reported (the GCC 12 figure).
		 */
		judged = grp->size == BLOCK || goto_form;
		snprintf(what, sizeof(what), "%s [%s]", grp->what, c->label);
		bench_ratio_add(doc, i, grp->acc, grp->ref, key, judged, what);
	}
}

/* The compilers of @doc's cases, in order; how many. */
static int doc_labels(const struct bench_doc *doc, char labels[4][32])
{
	int nl = 0;

	for (int i = 0; i < doc->ncases && nl < 4; i++) {
		bool seen = false;

		for (int k = 0; k < nl; k++)
			seen |= !strcmp(labels[k], doc->cases[i].label);
		if (!seen)
			snprintf(labels[nl++], 32, "%s", doc->cases[i].label);
	}
	return nl;
}

/*
 * One row per case and backend, one column per compiler: the speed
 * ratio and, in brackets, the reference's and the accessor's ns per
 * operation; "not run" where that compiler's build is missing.
 */
static void print_cases(FILE *f, const struct bench_doc *doc, bool md)
{
	char labels[4][32], cell[4][64];
	int nl = doc_labels(doc, labels);

	if (md) {
		fprintf(f, "\n| case |");
		for (int k = 0; k < nl; k++)
			fprintf(f, " %s |", labels[k]);
		fprintf(f, "\n|---|");
		for (int k = 0; k < nl; k++)
			fprintf(f, "---|");
		fputc('\n', f);
	} else {
		fprintf(f, "\nspeed vs reference (reference ns / accessor ns "
			   "per operation)\n  %-22s", "case");
		for (int k = 0; k < nl; k++)
			fprintf(f, " %-26s", labels[k]);
		fputc('\n', f);
	}
	for (int i = 0; i < doc->ncases; i++) {
		const struct bench_case_res *c = &doc->cases[i];
		char row[64], r[32];
		bool first = true;

		/* A row per group and backend, at its first compiler. */
		for (int j = 0; j < i; j++)
			first &= strcmp(doc->cases[j].group, c->group) ||
				 strcmp(doc->cases[j].backend, c->backend);
		if (!first)
			continue;
		for (int k = 0; k < nl; k++)
			snprintf(cell[k], sizeof(cell[k]), "-");
		for (int j = i; j < doc->ncases; j++) {
			const struct bench_case_res *d = &doc->cases[j];
			int k;

			if (strcmp(d->group, c->group) ||
			    strcmp(d->backend, c->backend))
				continue;
			for (k = 0; k < nl && strcmp(labels[k], d->label); k++)
				;
			if (k == nl)
				continue;
			if (d->m[1].unavailable)
				snprintf(cell[k], sizeof(cell[k]), "not run");
			else
				snprintf(cell[k], sizeof(cell[k]),
					 "%s (%.3g / %.3g)",
					 bench_fmt_ratio(r, sizeof(r),
							 d->m[1].ratio),
					 d->m[0].ns_med, d->m[1].ns_med);
		}
		snprintf(row, sizeof(row), "%s [%s]", c->group, c->backend);
		if (md)
			fprintf(f, "| %s |", row);
		else
			fprintf(f, "  %-22s", row);
		for (int k = 0; k < nl; k++)
			fprintf(f, md ? " %s |" : " %-26s", cell[k]);
		fputc('\n', f);
	}
}

static int acc_run(struct bench_ctx *ctx, struct bench_doc *doc)
{
	unsigned set = bench_backends_selected(&ctx->opts);

	for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY; p++)
		ctx->cases_total += NGROUPS * !!(set & BENCH_BACKEND_BIT(p));
	measure_self(ctx, doc);
	if (getenv(CHILD_ENV)) {
		/* Measuring mode for a parent uabench: samples only. */
		print_samples(doc);
		fflush(stdout);
		bench_doc_free(doc);
		exit(ferror(stdout) ? BENCH_EXIT_FAIL : 0);
	}
	measure_peer(ctx, doc);
	add_ratios(doc);
	doc->print_cases = print_cases;
	bench_doc_note(doc,
		       "label: the compiler that built the accessor loops and "
		       "its ua_unsafe_get_user form (asm goto: one "
		       "instruction per load; fixup: a load, then a test and "
		       "a branch)");
	return 0;
}

const struct bench_cmd bench_cmd_compilers = {
	.name = "compilers",
	.summary = "accessor loops as gcc and clang-19 build them, side by side",
	.usage = "  --protect LIST     backends, comma-separated: none, "
		 "mprotect, pkey,\n"
		 "                     auto, all (default: all available)\n"
		 "  " PEER_ENV "    environment: a uabench built with "
		 "clang-19 (tools/run-bench\n"
		 "                     builds build-clang19 and sets it)\n",
	.opts = BOPT_PROTECT,
	.defaults = acc_defaults,
	.run = acc_run,
	.in_report = true,
};

/*
 * compilers.svg for report: per case and backend, each compiler's speed
 * relative to its reference (1: as fast as a plain load or libc's
 * memset).  Returns 1 with a plot written, 0 with nothing, or -errno.
 */
int bench_plot_compilers(FILE *gp, const char *dir,
			 struct bench_doc *const *docs, int ndocs)
{
	const struct bench_doc *doc = NULL;
	char labels[4][32], path[4096], rest[256] = "";
	int nl = 0, rows = 0;
	FILE *f;

	for (int d = 0; d < ndocs; d++) {
		if (!strcmp(docs[d]->subcommand, "compilers"))
			doc = docs[d];
	}
	if (!doc)
		return 0;
	/* The compilers measured, in the order they came. */
	for (int i = 0; i < doc->ncases && nl < 4; i++) {
		const struct bench_case_res *c = &doc->cases[i];
		bool seen = false;

		for (int k = 0; k < nl; k++)
			seen |= !strcmp(labels[k], c->label);
		if (!seen && !isnan(c->m[1].ratio))
			snprintf(labels[nl++], sizeof(labels[0]), "%s",
				 c->label);
	}
	snprintf(path, sizeof(path), "%s/data/compilers.dat", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "case");
	for (int k = 0; k < nl; k++)
		fprintf(f, " \"%s\"", labels[k]);
	fputc('\n', f);
	for (int g = 0; g < NGROUPS; g++) {
		for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY;
		     p++) {
			const char *be = ua_protect_name(p);
			double v[4];
			bool any = false;

			for (int k = 0; k < nl; k++) {
				v[k] = NAN;
				for (int i = 0; i < doc->ncases; i++) {
					const struct bench_case_res *c =
						&doc->cases[i];

					if (!strcmp(c->group, groups[g].name) &&
					    !strcmp(c->backend, be) &&
					    !strcmp(c->label, labels[k]))
						v[k] = c->m[1].ratio;
				}
				any |= !isnan(v[k]);
			}
			if (!any)
				continue;
			fprintf(f, "\"%s [%s]\"", groups[g].name, be);
			for (int k = 0; k < nl; k++)
				fprintf(f, isnan(v[k]) ? " ?" : " %.6g", v[k]);
			fputc('\n', f);
			rows++;
		}
	}
	fclose(f);
	if (!rows)
		return 0;
	/* One xtic column only: a label per cluster, not one per bar. */
	for (int k = 3; k <= nl + 1; k++)
		snprintf(rest + strlen(rest), sizeof(rest) - strlen(rest),
			 ", '' using %d title columnheader(%d)", k, k);
	fprintf(gp,
		"set terminal svg size 900,560 noenhanced font 'sans,12' "
		"background rgb 'white'\n"
		"set output 'compilers.svg'\nunset logscale\n"
		"set title 'accessor loops by compiler: speed relative to a "
		"plain load (load, load_chain; load_reg: one kept in a "
		"register) or libc memset (zero)'\n"
		"set xlabel ''\nset ylabel 'speed ratio (log)'\n"
		"set logscale y 10\nset grid ytics\nset key left top\n"
		"set datafile missing '?'\nset style data histograms\n"
		"set style histogram clustered\n"
		"set style fill solid 0.7 border -1\n"
		"set format y '%%g'\nset xtics rotate by 30 right\n"
		"set bmargin 8\n"
		"plot 'data/compilers.dat' using 2:xtic(1) title columnheader(2)"
		"%s, 1 with lines lw 2 notitle\nset format y\n"
		"set xtics norotate\nset bmargin -1\nset key default\n",
		rest);
	return 1;
}
