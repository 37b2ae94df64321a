// SPDX-License-Identifier: MIT
/*
 * real_find, real_tar, real_sha256, real_gzip, real_spawn: whole runs of
 * Debian's static busybox doing real work, natively and under uarun, side
 * by side (doc/benchmarks.md).
 *
 *   real_find    find /usr/share -name '*.h'        (metadata: stat, getdents)
 *   real_tar     tar cf - /usr/include > /dev/null  (open, stat, sendfile)
 *   real_sha256  sha256sum of 2000 files of 1-8 KiB (open, read, write)
 *   real_gzip    gzip -c of 20 MiB of text          (compute)
 *   real_spawn   sh loop running 200 external commands (fork, exec)
 *   real_python  python3 -c 'import this'           (dynamic loading)
 *
 * The methods are the native run (the reference), uarun with its
 * defaults (the default trap mechanism: whatever uarun picks without
 * --trap), and uarun --trap=sud.  These programs have no loop whose
 * iterations could be counted: an operation is one whole run of the
 * workload, and its time is the child's CPU time (user + system, from
 * wait4, its own children included) less that of `busybox true` run the
 * same way, so exec, loading, uarun's set-up and exit cancel (but for
 * real_python, whose start-up is what it measures: its whole run, and
 * the peak RSS of each run, wait4's ru_maxrss, monitor included).  CPU time,
 * not wall time: on a shared machine wall time counts the waits for a CPU
 * that other jobs hold, and once the first run has warmed the page cache
 * every one of these workloads is CPU-bound.  The wall time is kept in
 * the JSON for reference.
 *
 * Before anything is timed, each method runs the workload once with its
 * output hashed: uarun's must exit with status 0 and print the very bytes
 * the native run printed, or the method is a row that says what went
 * wrong in uarun's own words.  That run also warms the caches.  Then the
 * methods run interleaved, the order rotated each repetition, and each
 * ratio is the median over repetitions of native time / uarun time.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uabench.h"

extern char **environ;

#define WORK_REASON_LEN 240
#define WORK_NCFG 3
/* The input tree of real_sha256: this many files to a directory. */
#define WORK_PER_DIR 100
/* uarun's words and busybox's, then the files of real_sha256 at most. */
#define WORK_MAX_ARGS 2100

enum work_kind {
	WORK_FIND,
	WORK_TAR,
	WORK_SHA256,
	WORK_GZIP,
	WORK_SPAWN,
	WORK_PYTHON
};

struct work {
	enum work_kind kind;
	const char *group;  /* case group */
	const char *target; /* bench_targets[] key */
	bool judged;	    /* the default trap's row is held to the target */
	bool whole;	    /* no baseline: the whole run is the operation */
};

static const struct work works[] = {
	[WORK_FIND] = { WORK_FIND, "find", "real_find", true, false },
	[WORK_TAR] = { WORK_TAR, "tar", "real_tar", true, false },
	[WORK_SHA256] = { WORK_SHA256, "sha256", "real_sha256", true, false },
	[WORK_GZIP] = { WORK_GZIP, "gzip", "real_gzip", true, false },
	[WORK_SPAWN] = { WORK_SPAWN, "spawn", "real_spawn", false, false },
	[WORK_PYTHON] = { WORK_PYTHON, "python", "real_python", true, true },
};

/* real_python's program: Debian's, not a user's wrapper on PATH. */
#define WORK_PYTHON3 "/usr/bin/python3"
/* issue 24: uarun's peak RSS within 1.2x of the native run's. */
#define WORK_RSS_TARGET 1.2

/* One way of running the workload. */
struct work_cfg {
	const char *name;
	bool uarun;
	const char *trap; /* --trap=; NULL: uarun's default */
	char unavailable[WORK_REASON_LEN];
	double wall_ns[BENCH_MAX_REPS];
	double rss_kib[BENCH_MAX_REPS]; /* peak RSS of a run */
	uint64_t out_bytes; /* of the checking run */
	bool out_same;	    /* the same bytes as the native run */
};

/* Everything of one subcommand's run; the document's priv. */
struct work_state {
	const struct work *w;
	bool quick;
	char busybox[PATH_MAX]; /* the program run: busybox, or python3 */
	const char *uarun;
	char title[64];	     /* what the rows call the workload */
	char command[200];   /* what runs, for the notes */
	char label[32];	     /* the case's label: the workload's size */
	const char **argv;   /* the workload's arguments after busybox */
	char *strs;	     /* what argv points into, when allocated */
	char spawn_cmd[600]; /* real_spawn's shell program */
	const char *backend; /* what uarun's default protection is here */
	int case_idx;
	struct work_cfg cfg[WORK_NCFG];
};

/* ---- input files, removed at exit whatever happens ---- */

/* The temporary directory of this run: "" when none. */
static char work_dir[PATH_MAX];
static unsigned work_dir_files, work_dir_subdirs;

static void work_dir_path(char *buf, size_t len, unsigned i)
{
	if (work_dir_subdirs)
		snprintf(buf, len, "%s/d%02u/f%04u", work_dir, i / WORK_PER_DIR,
			 i);
	else
		snprintf(buf, len, "%s/input", work_dir);
}

static void work_dir_remove(void)
{
	char p[PATH_MAX + 32];

	if (!work_dir[0])
		return;
	for (unsigned i = 0; i < work_dir_files; i++) {
		work_dir_path(p, sizeof(p), i);
		unlink(p);
	}
	for (unsigned d = 0; d < work_dir_subdirs; d++) {
		snprintf(p, sizeof(p), "%s/d%02u", work_dir, d);
		rmdir(p);
	}
	rmdir(work_dir);
	work_dir[0] = 0;
}

static void work_dir_create(void)
{
	static bool registered;
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(work_dir, sizeof(work_dir), "%s/uabench-work-XXXXXX", tmp);
	if (!mkdtemp(work_dir))
		bench_die("mkdtemp %s: %s", work_dir, strerror(errno));
	work_dir_files = work_dir_subdirs = 0;
	if (!registered && !atexit(work_dir_remove))
		registered = true;
}

/* xorshift64*: the inputs are the same bytes on every machine and run. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static void write_all(int fd, const void *buf, size_t len, const char *path)
{
	const char *p = buf;

	while (len) {
		ssize_t k = write(fd, p, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			bench_die("write %s: %s", path,
				  k < 0 ? strerror(errno) : "short write");
		p += k;
		len -= (size_t)k;
	}
}

static int create_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (fd < 0)
		bench_die("create %s: %s", path, strerror(errno));
	return fd;
}

/* @n files of 1-8 KiB of pseudo-random bytes, WORK_PER_DIR a directory. */
static void make_tree(unsigned n)
{
	unsigned char buf[8192];
	uint64_t s = 0x5eed5a256ull;
	char p[PATH_MAX + 32];

	work_dir_subdirs = (n + WORK_PER_DIR - 1) / WORK_PER_DIR;
	for (unsigned d = 0; d < work_dir_subdirs; d++) {
		snprintf(p, sizeof(p), "%s/d%02u", work_dir, d);
		if (mkdir(p, 0755))
			bench_die("mkdir %s: %s", p, strerror(errno));
	}
	for (unsigned i = 0; i < n; i++) {
		size_t len = 1024 + (size_t)(rng_next(&s) % (7 * 1024 + 1));
		int fd;

		for (size_t k = 0; k < len; k += 8) {
			uint64_t v = rng_next(&s);

			memcpy(buf + k, &v, len - k < 8 ? len - k : 8);
		}
		work_dir_path(p, sizeof(p), i);
		fd = create_file(p);
		work_dir_files = i + 1;
		write_all(fd, buf, len, p);
		close(fd);
	}
}

/*
 * @bytes of text: words of a fixed vocabulary, the frequent ones far
 * more often than the rest, in lines of a few words.  It compresses
 * about as well as prose or source (gzip -6: a third or so); random
 * bytes would not exercise the matcher, and a repeated block would
 * leave it nothing to do.
 */
static void make_text(uint64_t bytes)
{
	enum { NWORDS = 2048 };
	static char words[NWORDS][12];
	char buf[65536], p[PATH_MAX + 32];
	uint64_t s = 0x7e57da7aull, done = 0;
	size_t fill = 0;
	int fd;

	for (int i = 0; i < NWORDS; i++) {
		int len = 2 + (int)(rng_next(&s) % 9);

		for (int k = 0; k < len; k++)
			words[i][k] = (char)('a' + rng_next(&s) % 26);
		words[i][len] = 0;
	}
	work_dir_path(p, sizeof(p), 0);
	fd = create_file(p);
	work_dir_files = 1;
	while (done < bytes) {
		uint64_t r = rng_next(&s);
		/* The product of two uniform picks: small indices dominate. */
		unsigned w = (unsigned)(((r & 0xffff) % NWORDS) *
					((r >> 16 & 0xffff) % NWORDS) / NWORDS);
		size_t len = strlen(words[w]);

		if (fill + len + 2 > sizeof(buf)) {
			size_t n = fill;

			if (n > bytes - done)
				n = (size_t)(bytes - done);
			write_all(fd, buf, n, p);
			done += n;
			fill = 0;
		}
		memcpy(buf + fill, words[w], len);
		fill += len;
		buf[fill++] = (r >> 40) % 9 ? ' ' : '\n';
	}
	close(fd);
}

/* ---- running one child ---- */

struct out_hash {
	uint64_t h, n;
	unsigned char part[8];
	unsigned npart;
};

static void hash_word(struct out_hash *o, uint64_t w)
{
	o->h = (o->h ^ w) * 0x100000001b3ull;
	o->h ^= o->h >> 29;
}

/* 8 bytes a step, however read() splits the stream. */
static void hash_add(struct out_hash *o, const unsigned char *p, size_t len)
{
	o->n += len;
	while (o->npart && len) {
		o->part[o->npart++] = *p++;
		len--;
		if (o->npart == 8) {
			uint64_t w;

			memcpy(&w, o->part, 8);
			hash_word(o, w);
			o->npart = 0;
		}
	}
	/* Every byte went into a word still partial: keep it so. */
	if (o->npart)
		return;
	for (; len >= 8; p += 8, len -= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		hash_word(o, w);
	}
	memcpy(o->part, p, len);
	o->npart = (unsigned)len;
}

static uint64_t hash_end(struct out_hash *o)
{
	uint64_t w = 0;

	memcpy(&w, o->part, o->npart);
	hash_word(o, w);
	hash_word(o, o->n);
	return o->h;
}

struct work_run {
	int status;
	double cpu_ns, wall_ns;
	long maxrss_kib;
	struct ua_stats st;
	uint64_t out_bytes, out_hash;
	char why[200]; /* the line of its stderr that says most */
};

/*
 * stderr: its head for the message (the program's or uarun's), its
 * tail for --stats, which uarun prints last.
 */
struct err_buf {
	char head[2048], tail[8192];
	size_t nhead, ntail;
};

static void err_add(struct err_buf *e, const char *p, size_t len)
{
	size_t k = sizeof(e->head) - 1 - e->nhead;

	if (k > len)
		k = len;
	memcpy(e->head + e->nhead, p, k);
	e->nhead += k;
	if (len > sizeof(e->tail) - 1) {
		p += len - (sizeof(e->tail) - 1);
		len = sizeof(e->tail) - 1;
	}
	if (e->ntail + len > sizeof(e->tail) - 1) {
		size_t drop = e->ntail + len - (sizeof(e->tail) - 1);

		memmove(e->tail, e->tail + drop, e->ntail - drop);
		e->ntail -= drop;
	}
	memcpy(e->tail + e->ntail, p, len);
	e->ntail += len;
}

/* uarun's and the engine's own words first, else the first line. */
static void err_why(struct err_buf *e, char *why, size_t len)
{
	char *pick = e->head;

	e->head[e->nhead] = 0;
	for (char *l = e->head; *l;) {
		size_t end = strcspn(l, "\n");

		if (!strncmp(l, "uaccess:", 8) || !strncmp(l, "uarun:", 6)) {
			pick = l;
			break;
		}
		l += end + (l[end] != 0);
	}
	snprintf(why, len, "%.*s", (int)strcspn(pick, "\n"), pick);
}

/*
 * Run the workload (@baseline: `busybox true`) under @c once: stdin
 * /dev/null, stdout /dev/null or, with @hash, read and hashed; stderr
 * read.  0, or a negative errno when it could not be started.
 */
static int run_child(const struct work_state *ws, const struct work_cfg *c,
		     bool baseline, bool hash, struct work_run *r)
{
	const char *argv[WORK_MAX_ARGS];
	char trap[32];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	struct err_buf *e;
	struct out_hash oh = { .h = 0xcbf29ce484222325ull };
	struct rusage ru;
	struct pollfd pf[2];
	int outp[2] = { -1, -1 }, errp[2], rc, k = 0;
	double t0;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (c->uarun) {
		argv[k++] = ws->uarun;
		if (c->trap) {
			snprintf(trap, sizeof(trap), "--trap=%s", c->trap);
			argv[k++] = trap;
		}
		argv[k++] = "--stats";
	}
	argv[k++] = ws->busybox;
	if (baseline) {
		argv[k++] = "true";
	} else {
		for (int i = 0; ws->argv[i]; i++) {
			if (k == (int)(sizeof(argv) / sizeof(argv[0])) - 1)
				bench_die("internal: argument vector too long");
			argv[k++] = ws->argv[i];
		}
	}
	argv[k] = NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		bench_die("out of memory");
	if (pipe2(errp, O_CLOEXEC) || (hash && pipe2(outp, O_CLOEXEC)))
		bench_die("pipe: %s", strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (hash)
		posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
	else
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY,
						 0);
	posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK |
					      POSIX_SPAWN_SETSIGDEF);
	t0 = bench_wall_ns();
	rc = posix_spawn(&pid, argv[0], &fa, &at, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(errp[1]);
	if (hash)
		close(outp[1]);
	pf[0] = (struct pollfd){ .fd = errp[0], .events = POLLIN };
	pf[1] = (struct pollfd){ .fd = hash ? outp[0] : -1, .events = POLLIN };
	while (!rc && (pf[0].fd >= 0 || pf[1].fd >= 0)) {
		unsigned char buf[65536];

		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			bench_die("poll: %s", strerror(errno));
		}
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (pf[i].fd < 0 || !pf[i].revents)
				continue;
			n = read(pf[i].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				pf[i].fd = -1;
				continue;
			}
			if (i)
				hash_add(&oh, buf, (size_t)n);
			else
				err_add(e, (char *)buf, (size_t)n);
		}
	}
	close(errp[0]);
	if (hash)
		close(outp[0]);
	if (rc) {
		free(e);
		return -rc;
	}
	while (wait4(pid, &r->status, 0, &ru) < 0 && errno == EINTR)
		;
	r->wall_ns = bench_wall_ns() - t0;
	r->cpu_ns = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
		    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
	r->maxrss_kib = ru.ru_maxrss;
	r->out_bytes = oh.n;
	r->out_hash = hash_end(&oh);
	err_why(e, r->why, sizeof(r->why));
	if (c->uarun) {
		e->tail[e->ntail] = 0;
		bench_uarun_stats(e->tail, &r->st);
	}
	free(e);
	return 0;
}

static bool ended_well(const struct work_run *r)
{
	return WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
}

/* "exits with status 2", "killed by signal 11 (Segmentation fault)". */
static void how_ended(const struct work_run *r, char *buf, size_t len)
{
	if (WIFEXITED(r->status))
		snprintf(buf, len, "exits with status %d",
			 WEXITSTATUS(r->status));
	else if (WIFSIGNALED(r->status))
		snprintf(buf, len, "killed by signal %d (%s)",
			 WTERMSIG(r->status), strsignal(WTERMSIG(r->status)));
	else
		snprintf(buf, len, "wait status %#x", (unsigned)r->status);
}

static void run_or_die(const struct work_state *ws, const struct work_cfg *c,
		       bool baseline, struct work_run *r)
{
	char how[64];
	int err = run_child(ws, c, baseline, false, r);

	if (err)
		bench_die("real_%s: cannot start %s: %s", ws->w->group,
			  c->uarun ? ws->uarun : ws->busybox, strerror(-err));
	if (ended_well(r))
		return;
	how_ended(r, how, sizeof(how));
	/* It passed the check run: a failure now is not a row, it is news. */
	bench_die("real_%s: %s %s%s%s", ws->w->group, c->name, how,
		  r->why[0] ? ": " : "", r->why);
}

/*
 * The check run of each method, which also warms the caches: the native
 * run must end well; each uarun one must too and print what it printed.
 */
static void check_methods(struct work_state *ws)
{
	struct work_run nat = { 0 }, r;
	char how[64];

	for (int i = 0; i < WORK_NCFG; i++) {
		struct work_cfg *c = &ws->cfg[i];
		int err;

		if (c->unavailable[0])
			continue;
		if (i && ws->cfg[0].unavailable[0]) {
			snprintf(c->unavailable, sizeof(c->unavailable),
				 "not run: %.200s", ws->cfg[0].unavailable);
			continue;
		}
		err = run_child(ws, c, false, true, &r);
		if (err) {
			snprintf(c->unavailable, sizeof(c->unavailable),
				 "cannot start %.150s: %s",
				 c->uarun ? ws->uarun : ws->busybox,
				 strerror(-err));
			continue;
		}
		c->out_bytes = r.out_bytes;
		if (!ended_well(&r)) {
			how_ended(&r, how, sizeof(how));
			snprintf(c->unavailable, sizeof(c->unavailable),
				 "%s %.60s%s%.120s",
				 c->uarun ? "fails under uarun:" :
					    "fails natively:",
				 how, r.why[0] ? ": " : "", r.why);
			continue;
		}
		if (!i) {
			nat = r;
			c->out_same = true;
			continue;
		}
		c->out_same = r.out_bytes == nat.out_bytes &&
			      r.out_hash == nat.out_hash;
		if (!c->out_same)
			snprintf(c->unavailable, sizeof(c->unavailable),
				 "output under uarun differs from the "
				 "native run's (%llu bytes vs %llu)",
				 (unsigned long long)r.out_bytes,
				 (unsigned long long)nat.out_bytes);
	}
}

/* ---- the workloads ---- */

static void setup_workload(struct work_state *ws)
{
	static const char *find_argv[] = { "find", NULL, "-name", "*.h", NULL };
	static const char *tar_argv[] = { "tar", "cf", "-", NULL, NULL };
	static const char *gzip_argv[4], *spawn_argv[4], *py_argv[3];
	const char *dir;
	unsigned n = 0;

	switch (ws->w->kind) {
	case WORK_FIND:
		/*
		 * /usr itself is 1.1 s of find natively here and nearly
		 * twice that under uarun's sud: 25 s a report for one row.
		 * /usr/share is the same kind of tree, a third of it.
		 */
		dir = ws->quick ? "/usr/include" : "/usr/share";
		find_argv[1] = dir;
		ws->argv = find_argv;
		snprintf(ws->title, sizeof(ws->title), "find %s -name '*.h'",
			 dir);
		snprintf(ws->label, sizeof(ws->label), "%s", dir);
		break;
	case WORK_TAR:
		dir = ws->quick ? "/usr/include/linux" : "/usr/include";
		tar_argv[3] = dir;
		ws->argv = tar_argv;
		snprintf(ws->title, sizeof(ws->title), "tar cf - %s", dir);
		snprintf(ws->label, sizeof(ws->label), "%s", dir);
		break;
	case WORK_SHA256: {
		char *p;

		n = ws->quick ? 200 : 2000;
		work_dir_create();
		make_tree(n);
		ws->argv = calloc(n + 2, sizeof(*ws->argv));
		ws->strs = p = malloc((size_t)n * (strlen(work_dir) + 16));
		if (!ws->argv || !p)
			bench_die("out of memory");
		ws->argv[0] = "sha256sum";
		for (unsigned i = 0; i < n; i++) {
			work_dir_path(p, strlen(work_dir) + 16, i);
			ws->argv[i + 1] = p;
			p += strlen(p) + 1;
		}
		snprintf(ws->title, sizeof(ws->title),
			 "sha256sum of %u files of 1-8 KiB", n);
		snprintf(ws->label, sizeof(ws->label), "%u files", n);
		break;
	}
	case WORK_GZIP: {
		char p[PATH_MAX + 32];

		n = ws->quick ? 2 : 20;
		work_dir_create();
		make_text((uint64_t)n << 20);
		work_dir_path(p, sizeof(p), 0);
		ws->strs = strdup(p);
		if (!ws->strs)
			bench_die("out of memory");
		gzip_argv[0] = "gzip";
		gzip_argv[1] = "-c";
		gzip_argv[2] = ws->strs;
		ws->argv = gzip_argv;
		snprintf(ws->title, sizeof(ws->title),
			 "gzip -c of %u MiB of text", n);
		snprintf(ws->label, sizeof(ws->label), "%u MiB", n);
		break;
	}
	case WORK_PYTHON:
		py_argv[0] = "-c";
		py_argv[1] = "import this";
		ws->argv = py_argv;
		snprintf(ws->title, sizeof(ws->title),
			 "python3 -c 'import this'");
		snprintf(ws->label, sizeof(ws->label), "import this");
		break;
	case WORK_SPAWN:
		/*
		 * A path, so that sh forks and execs rather than its builtin.
		 * Each command is a new monitor image under uarun (tens of ms
		 * each under the mprotect backend): 200, not 1000.
		 */
		n = ws->quick ? 20 : 200;
		snprintf(ws->spawn_cmd, sizeof(ws->spawn_cmd),
			 "i=0; while [ $i -lt %u ]; do '%.400s' echo $i; "
			 "i=$((i + 1)); done",
			 n, ws->busybox);
		spawn_argv[0] = "sh";
		spawn_argv[1] = "-c";
		spawn_argv[2] = ws->spawn_cmd;
		ws->argv = spawn_argv;
		snprintf(ws->title, sizeof(ws->title),
			 "sh loop of %u external commands", n);
		snprintf(ws->label, sizeof(ws->label), "%u commands", n);
		break;
	}
	if (ws->w->kind == WORK_SHA256)
		snprintf(ws->command, sizeof(ws->command),
			 "busybox sha256sum %s/d*/f* (%u files)", work_dir, n);
	else if (ws->w->kind == WORK_SPAWN)
		snprintf(ws->command, sizeof(ws->command),
			 "busybox sh -c \"%.170s\"", ws->spawn_cmd);
	else if (ws->w->kind == WORK_PYTHON)
		snprintf(ws->command, sizeof(ws->command),
			 "%.150s -c 'import this'", ws->busybox);
	else {
		size_t k = (size_t)snprintf(ws->command, sizeof(ws->command),
					    "busybox");

		for (int i = 0; ws->argv[i] && k < sizeof(ws->command); i++)
			k += (size_t)snprintf(ws->command + k,
					      sizeof(ws->command) - k, " %s",
					      ws->argv[i]);
	}
}

/*
 * What uarun protects with when not told (tools/uarun/uarun.c,
 * default_protect()): UA_PROTECT as the library reads it, else pkey,
 * else none.
 */
static const char *default_backend(void)
{
	struct ua_space_opts so = { .protect = UA_PROTECT_AUTO };
	const char *v = getenv("UA_PROTECT");
	struct ua_space *sp;
	enum ua_protect p;

	if (!v || !*v || !strcmp(v, "auto"))
		return ua_protect_available(UA_PROTECT_PKEY, NULL) ? "pkey" :
								     "none";
	sp = ua_space_create(4096, &so);
	if (!sp)
		return NULL;
	p = ua_space_protect(sp);
	ua_space_destroy(sp);
	return ua_protect_name(p);
}

static void work_free(void *priv)
{
	struct work_state *ws = priv;

	if (ws->w->kind == WORK_SHA256)
		free(ws->argv);
	free(ws->strs);
	free(ws);
}

static void work_json(struct bench_json *w, const struct bench_doc *doc)
{
	const struct work_state *ws = doc->priv;
	const struct bench_case_res *c = &doc->cases[ws->case_idx];

	bench_json_str(w, "command", ws->command);
	bench_json_str(w, "baseline", ws->w->whole ? NULL : "busybox true");
	bench_json_str(w, "time",
		       ws->w->whole ? "CPU time (user + system, wait4) of a "
				      "whole run" :
				      "CPU time (user + system, wait4) of a "
				      "run less the baseline's");
	bench_json_open(w, "configs", '[');
	for (int i = 0; i < WORK_NCFG; i++) {
		const struct work_cfg *cf = &ws->cfg[i];
		const struct bench_meas *m = &c->m[i];
		const char *trap = cf->trap ? cf->trap : "default";
		bool run = !m->unavailable;

		bench_json_open(w, NULL, '{');
		bench_json_str(w, "name", cf->name);
		bench_json_str(w, "trap", cf->uarun ? trap : NULL);
		bench_json_str(w, "unavailable_reason", m->unavailable);
		bench_json_uint(w, "output_bytes", cf->out_bytes);
		bench_json_bool(w, "output_same", cf->out_same);
		bench_json_num(w, "wall_ns_median",
			       run ? bench_median(cf->wall_ns, m->reps) : NAN);
		bench_json_num(w, "peak_rss_kib_median",
			       run ? bench_median(cf->rss_kib, m->reps) : NAN);
		bench_json_close(w, '}');
	}
	bench_json_close(w, ']');
}

/* ---- the run ---- */

static void measure(struct bench_ctx *ctx, struct work_state *ws,
		    struct bench_case_res *res)
{
	const struct bench_opts *o = &ctx->opts;
	uint64_t n = o->count ? o->count : 1;

	for (unsigned k = 0; k < o->reps; k++) {
		for (int j = 0; j < WORK_NCFG; j++) {
			int i = (int)((j + k) % WORK_NCFG);
			struct work_cfg *c = &ws->cfg[i];
			struct bench_meas *m = &res->m[i];
			struct work_run base = { 0 }, r;
			double cpu = 0, wall = 0, rss = 0;
			struct ua_stats st = { 0 };

			if (m->unavailable)
				continue;
			if (!ws->w->whole)
				run_or_die(ws, c, true, &base);
			for (uint64_t x = 0; x < n; x++) {
				run_or_die(ws, c, false, &r);
				cpu += r.cpu_ns - base.cpu_ns;
				wall += r.wall_ns - base.wall_ns;
				rss = fmax(rss, (double)r.maxrss_kib);
				st.switches += r.st.switches;
				st.windows += r.st.windows;
				st.fixups += r.st.fixups;
			}
			/* A run cheaper than none: noise; keep it positive. */
			m->ns[k] = fmax(cpu / (double)n, 1);
			c->wall_ns[k] = wall / (double)n;
			c->rss_kib[k] = rss;
			if (k)
				continue;
			m->counts = (struct bench_counts){
				n, st.switches - n * base.st.switches,
				st.windows - n * base.st.windows,
				st.fixups - n * base.st.fixups
			};
		}
	}
}

/* The program the workload runs: busybox, or Debian's python3. */
static bool find_program(struct work_state *ws, char *why, size_t len)
{
	if (ws->w->kind != WORK_PYTHON)
		return bench_find_busybox(ws->busybox, sizeof(ws->busybox), why,
					  len) != NULL;
	if (access(WORK_PYTHON3, X_OK)) {
		snprintf(why, len,
			 "%s not installed (Debian's python3; "
			 "tools/install-deps installs it)",
			 WORK_PYTHON3);
		return false;
	}
	snprintf(ws->busybox, sizeof(ws->busybox), "%s", WORK_PYTHON3);
	return true;
}

/*
 * The peak RSS of uarun's default run against the native run's, medians
 * of the repetitions (wait4's ru_maxrss: the monitor's pages count, and
 * the C library mapped twice, the monitor's and the program's).
 */
static void rss_note(struct bench_doc *doc, const struct work_state *ws,
		     const struct bench_case_res *res)
{
	double nat, ua, r;

	if (res->m[0].unavailable || res->m[1].unavailable)
		return;
	nat = bench_median(ws->cfg[0].rss_kib, res->m[0].reps);
	ua = bench_median(ws->cfg[1].rss_kib, res->m[1].reps);
	r = nat > 0 ? ua / nat : NAN;
	bench_doc_note(doc,
		       "peak RSS: native %.0f KiB, uarun %.0f KiB: %.2fx "
		       "(target <= %.1fx: %s)",
		       nat, ua, r, WORK_RSS_TARGET,
		       r <= WORK_RSS_TARGET ? "met" : "not met");
}

static int work_run(struct bench_ctx *ctx, struct bench_doc *doc,
		    enum work_kind kind)
{
	struct work_state *ws = calloc(1, sizeof(*ws));
	struct bench_case_res *res;
	char why[WORK_REASON_LEN] = "", what[160];
	bool any = false;

	if (!ws)
		bench_die("out of memory");
	doc->priv = ws;
	doc->priv_free = work_free;
	doc->json_extra = work_json;
	ws->w = &works[kind];
	ws->quick = ctx->opts.quick;
	ws->uarun = bench_find_uarun();
	ws->backend = default_backend();
	ws->cfg[0] = (struct work_cfg){ .name = "native" };
	ws->cfg[1] = (struct work_cfg){ .name = "uarun", .uarun = true };
	ws->cfg[2] = (struct work_cfg){ .name = "uarun_sud",
					.uarun = true,
					.trap = "sud" };
	ctx->cases_total++;
	if (!find_program(ws, why, sizeof(why))) {
		for (int i = 0; i < WORK_NCFG; i++)
			snprintf(ws->cfg[i].unavailable, WORK_REASON_LEN, "%s",
				 why);
		snprintf(ws->title, sizeof(ws->title), "%s %s",
			 kind == WORK_PYTHON ? "python3" : "busybox",
			 ws->w->group);
		snprintf(ws->label, sizeof(ws->label), "not run");
		snprintf(ws->command, sizeof(ws->command), "-");
	} else {
		setup_workload(ws);
	}
	for (int i = 1; i < WORK_NCFG && !ws->uarun; i++)
		snprintf(ws->cfg[i].unavailable, WORK_REASON_LEN,
			 "uarun not found (built with uabench where tasks "
			 "are supported)");
	snprintf(what, sizeof(what), "real %s %s", ws->w->group, ws->label);
	bench_progress_line(ctx, what);
	if (ws->busybox[0])
		check_methods(ws);
	for (int i = 1; i < WORK_NCFG; i++)
		any |= !ws->cfg[i].unavailable[0];
	/* Nothing to compare with: the native run is not timed either. */
	if (!any && !ws->cfg[0].unavailable[0])
		snprintf(ws->cfg[0].unavailable, WORK_REASON_LEN,
			 "not timed: no uarun configuration of this case "
			 "runs here");

	res = bench_case_add(doc);
	ws->case_idx = doc->ncases - 1;
	snprintf(res->group, sizeof(res->group), "%s", ws->w->group);
	snprintf(res->backend, sizeof(res->backend), "%s",
		 ws->backend ? ws->backend : "");
	snprintf(res->label, sizeof(res->label), "%s", ws->label);
	res->nmeth = WORK_NCFG;
	res->ref = 0;
	for (int i = 0; i < WORK_NCFG; i++) {
		struct bench_meas *m = &res->m[i];

		snprintf(m->method, sizeof(m->method), "%s", ws->cfg[i].name);
		m->unavailable = ws->cfg[i].unavailable[0] ?
					 ws->cfg[i].unavailable :
					 NULL;
		m->insns = NAN;
		m->ns_med = m->ns_min = m->ns_max = m->ratio = NAN;
		if (!m->unavailable) {
			m->reps = ctx->opts.reps;
			m->ops = ctx->opts.count ? ctx->opts.count : 1;
		}
	}
	measure(ctx, ws, res);
	for (int i = 0; i < WORK_NCFG; i++) {
		struct bench_meas *m = &res->m[i], *ref = &res->m[0];
		double v[BENCH_MAX_REPS];

		if (m->unavailable)
			continue;
		m->ns_med = bench_median(m->ns, m->reps);
		m->ns_min = m->ns_max = m->ns[0];
		for (unsigned k = 0; k < m->reps; k++) {
			m->ns_min = fmin(m->ns_min, m->ns[k]);
			m->ns_max = fmax(m->ns_max, m->ns[k]);
			v[k] = ref->ns[k] / m->ns[k];
		}
		if (!ref->unavailable)
			m->ratio = bench_median(v, m->reps);
	}
	ctx->cases_done++;

	snprintf(what, sizeof(what), "%s, uarun vs native", ws->title);
	bench_ratio_add(doc, ws->case_idx, "uarun", "native", ws->w->target,
			ws->w->judged, what);
	snprintf(what, sizeof(what), "%s, uarun --trap=sud vs native",
		 ws->title);
	bench_ratio_add(doc, ws->case_idx, "uarun_sud", "native", NULL, false,
			what);

	if (ws->w->whole)
		bench_doc_note(doc,
			       "operation: one whole run, start-up included; "
			       "time: the child's CPU time (user + system); "
			       "ratio: native time / uarun time (0.67x: 1.5 "
			       "times the native time)");
	else
		bench_doc_note(doc,
			       "operation: one whole run of the workload; "
			       "time: the child's CPU time (user + system, "
			       "its children included) less that of `busybox "
			       "true` run the same way; ratio: native time / "
			       "uarun time (below 1: slower under uarun)");
	if (ws->w->whole)
		rss_note(doc, ws, res);
	bench_doc_note(doc, "workload: %.200s", ws->command);
	bench_doc_note(doc,
		       "methods: native; uarun with its defaults (trap: "
		       "UA_TRAP, else uarun's default; protection: %s); "
		       "uarun --trap=sud",
		       ws->backend ? ws->backend : "?");
	if (ws->uarun)
		bench_doc_note(doc, "uarun: %.200s", ws->uarun);
	work_dir_remove();
	return 0;
}

static int run_python(struct bench_ctx *ctx, struct bench_doc *doc)
{
	return work_run(ctx, doc, WORK_PYTHON);
}

static int run_find(struct bench_ctx *ctx, struct bench_doc *doc)
{
	return work_run(ctx, doc, WORK_FIND);
}

static int run_tar(struct bench_ctx *ctx, struct bench_doc *doc)
{
	return work_run(ctx, doc, WORK_TAR);
}

static int run_sha256(struct bench_ctx *ctx, struct bench_doc *doc)
{
	return work_run(ctx, doc, WORK_SHA256);
}

static int run_gzip(struct bench_ctx *ctx, struct bench_doc *doc)
{
	return work_run(ctx, doc, WORK_GZIP);
}

static int run_spawn(struct bench_ctx *ctx, struct bench_doc *doc)
{
	return work_run(ctx, doc, WORK_SPAWN);
}

/*
 * Five pairs at least, as a median of fewer moves with one slow run; a
 * quick run only shows that the rows work.
 */
static void work_defaults(struct bench_opts *o, bool in_report, bool quick)
{
	/* report's -n counts the loops' operations: a run here is one. */
	if (in_report)
		o->count = 0;
	quick |= o->quick;
	if (!o->reps)
		o->reps = quick ? 3 : 5;
	if (!o->rep_us)
		o->rep_us = 1; /* not used: a repetition is whole runs */
	if (quick)
		o->quick = true;
}

#define WORK_USAGE                                                        \
	"  -n, --count N      whole runs per repetition (default 1)\n"    \
	"  --quick            smaller workloads (a few seconds in all)\n" \
	"  UABENCH_UARUN      environment: the uarun to use (default: "   \
	"beside\n"                                                        \
	"                     uabench, then PATH)\n"

const struct bench_cmd bench_cmd_real_find = {
	.name = "real_find",
	.summary = "busybox find /usr/share: native vs uarun (default, sud)",
	.usage = WORK_USAGE,
	.opts = BOPT_QUICK,
	.defaults = work_defaults,
	.run = run_find,
	.in_report = true,
};

const struct bench_cmd bench_cmd_real_tar = {
	.name = "real_tar",
	.summary = "busybox tar cf - /usr/include: native vs uarun",
	.usage = WORK_USAGE,
	.opts = BOPT_QUICK,
	.defaults = work_defaults,
	.run = run_tar,
	.in_report = true,
};

const struct bench_cmd bench_cmd_real_sha256 = {
	.name = "real_sha256",
	.summary = "busybox sha256sum of 2000 small files: native vs uarun",
	.usage = WORK_USAGE,
	.opts = BOPT_QUICK,
	.defaults = work_defaults,
	.run = run_sha256,
	.in_report = true,
};

const struct bench_cmd bench_cmd_real_gzip = {
	.name = "real_gzip",
	.summary = "busybox gzip -c of 20 MiB of text: native vs uarun",
	.usage = WORK_USAGE,
	.opts = BOPT_QUICK,
	.defaults = work_defaults,
	.run = run_gzip,
	.in_report = true,
};

const struct bench_cmd bench_cmd_real_spawn = {
	.name = "real_spawn",
	.summary = "busybox sh loop of 200 commands: native vs uarun",
	.usage = WORK_USAGE,
	.opts = BOPT_QUICK,
	.defaults = work_defaults,
	.run = run_spawn,
	.in_report = true,
};

const struct bench_cmd bench_cmd_real_python = {
	.name = "real_python",
	.summary = "python3 -c 'import this', start-up and peak RSS: native "
		   "vs uarun",
	.usage = WORK_USAGE,
	.opts = BOPT_QUICK,
	.defaults = work_defaults,
	.run = run_python,
	.in_report = true,
};
