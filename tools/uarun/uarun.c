// SPDX-License-Identifier: MIT
/*
 * uarun - run an unmodified Linux x86-64 program as a guest task.
 *
 * A thin tool over ua_task_exec(): options, a space where the program
 * fits, --trace and --stats, and an exit that repeats the guest's: the
 * same status, or death by the same signal (without a core file).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uaccess.h>

/*
 * The space is address space only: one PROT_NONE, MAP_NORESERVE
 * reservation, committed page by page as the program maps it, so its
 * size costs no memory and is what a process may map, not what it uses.
 */
#define SPACE_DEFAULT ((size_t)64 << 30)
#define SPACE_MIN ((size_t)16 << 20)
/* Address space left to the monitor itself under a finite RLIMIT_AS. */
#define MONITOR_ROOM ((size_t)256 << 20)
/*
 * --trap=rewrite maps its trampoline's tail at one of a few low
 * addresses (src/task/trap_rewrite.c) once the space exists: an ET_EXEC
 * program's 64 GiB space from its link address covers them all, so the
 * default stays at the 1 GiB that leaves them free.
 */
#define SPACE_REWRITE ((size_t)1 << 30)

extern char **environ;

/*
 * A guest's execve starts this program again (ua_linux_set_exec()): the
 * options as given, then --exec-state=FD with the new image.  The host
 * environment is the monitor's, not the guest's.
 */
#define MAX_AGAIN 16
static char *again_argv[MAX_AGAIN + 2];
static int again_argc;

static void again_add(char *arg)
{
	if (again_argc < MAX_AGAIN)
		again_argv[again_argc++] = arg;
}

static int exec_again(int state_fd, void *arg)
{
	char opt[32];

	(void)arg;
	snprintf(opt, sizeof(opt), "--exec-state=%d", state_fd);
	again_argv[again_argc] = opt;
	again_argv[again_argc + 1] = NULL;
	fflush(NULL);
	execve("/proc/self/exe", again_argv, environ);
	return -errno;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: uarun [--protect=none|mprotect|pkey] "
		"[--frames=block|per-access]\n"
		"             [--trap=patch|sud|rewrite] [--patch-after=N|auto]\n"
		"             [--space-size=SIZE] [--stats] [--trace]\n"
		"             PROGRAM [ARG...]\n"
		"\n"
		"Runs a Linux x86-64 PROGRAM (static, static-pie, dynamically "
		"linked, or a\n#! script) in a guest space of the uaccess "
		"engine: its syscalls are\ntrapped and served through the "
		"library's accessors.  Exits as the program\ndid.\n"
		"\n"
		"  --protect=P  protection backend (default: UA_PROTECT, else "
		"pkey, else none)\n"
		"  --frames=F   signal frame mode (default: UA_FRAME_MODE, "
		"else block)\n"
		"  --trap=T     syscall trap mechanism (default: UA_TRAP, else "
		"patch): patch\n               makes a trapped site jump to "
		"a trampoline, sud traps\n               every syscall, "
		"rewrite turns trapped sites into calls to a\n"
		"               page-0 trampoline (uses the red zone; needs "
		"page 0)\n"
		"  --patch-after=N  under patch, patch a code section's "
		"sites once they\n               have trapped N times "
		"through sud (1: at once; default:\n               "
		"UA_PATCH_AFTER, else auto: when the traps have cost about "
		"what\n               finding the sites does, one trap per "
		"1024 bytes of the section)\n"
		"  --space-size=SIZE  address space the program may map, "
		"in bytes or with a\n               K, M, G or T suffix "
		"(default 64G, less where RLIMIT_AS or\n"
		"               the host's address space cannot give it); "
		"reserved, not\n               committed: memory is used only "
		"as the program maps it\n"
		"  --trace      print each syscall on stderr, strace-style\n"
		"  --stats      print syscalls by name, signals, protection "
		"switches,\n               windows and fixups on stderr at "
		"exit\n"
		"  --help       this text\n");
}

/* --patch-after: auto, whatever UA_PATCH_AFTER says, or a count from 1. */
static int parse_patch_after(const char *s, unsigned int *after)
{
	unsigned long n;
	char *end;

	if (!strcmp(s, "auto")) {
		*after = UA_PATCH_AFTER_AUTO;
		return 0;
	}
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || !*s || s[0] == '-' || n < 1 || n > 1000000000)
		return -1;
	*after = (unsigned int)n;
	return 0;
}

static int bad_usage(const char *what, const char *arg)
{
	fprintf(stderr, "uarun: %s '%s'\n", what, arg);
	usage(stderr);
	return 2;
}

/* PROGRAM without a slash is looked up in PATH, as execvp() does. */
static const char *find_program(const char *name, char *buf, size_t size)
{
	const char *path = getenv("PATH");

	if (strchr(name, '/') || !path)
		return name;
	while (*path) {
		size_t len = strcspn(path, ":");

		snprintf(buf, size, "%.*s/%s", (int)len, len ? path : ".",
			 name);
		if (!access(buf, X_OK))
			return buf;
		path += len + (path[len] == ':');
	}
	return name;
}

/* SIZE[KMGT]: bytes, binary multiples; 0 for a malformed or zero size. */
static size_t parse_size(const char *s)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (*end || v > (~0ull >> shift))
		return 0;
	return (size_t)(v << shift);
}

/* The process's mapped address space now (/proc/self/statm, in pages). */
static size_t vm_size(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/*
 * The default reservation, within a finite RLIMIT_AS: the reservation
 * counts against it like any mapping (PROT_NONE included), so leave the
 * monitor room for its own.
 */
static size_t default_space_size(void)
{
	size_t size = SPACE_DEFAULT, used, room;
	struct rlimit rl;

	if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return size;
	used = vm_size() + MONITOR_ROOM;
	room = rl.rlim_cur > used ? (size_t)rl.rlim_cur - used : 0;
	room &= ~(((size_t)1 << 20) - 1);
	if (room < SPACE_MIN)
		room = SPACE_MIN;
	return room < size ? room : size;
}

/*
 * A space of the size asked for, or by default the largest the host
 * gives, halving from 64 GiB: an address space that cannot hold the
 * reservation (a small vm.max_map_count does not matter, a 47-bit user
 * space always can, an rlimit or something mapped at an ET_EXEC program's
 * link address may not) gets a smaller space rather than none.
 */
static struct ua_space *make_space(size_t size, bool asked,
				   const struct ua_space_opts *so)
{
	struct ua_space *sp;

	for (;;) {
		sp = ua_space_create(size, so);
		if (sp || asked || (errno != ENOMEM && errno != EEXIST) ||
		    size / 2 < SPACE_MIN)
			return sp;
		size /= 2;
	}
}

/*
 * Protection keys where the host has them, else none: the mprotect
 * backend makes each window two host mprotect() calls, which leaves a
 * program that reads files 20-50x slower than natively (doc/uarun.md,
 * "Protection"), so it is a tool for finding monitor bugs, asked for by
 * name.  UA_PROTECT in the environment decides first, as in the library.
 */
static enum ua_protect default_protect(void)
{
	const char *v = getenv("UA_PROTECT");

	if (v && *v && strcmp(v, "auto"))
		return UA_PROTECT_AUTO;
	return ua_protect_available(UA_PROTECT_PKEY, NULL) ? UA_PROTECT_PKEY :
							     UA_PROTECT_NONE;
}

/* Die the way the guest died: its signal, no core file. */
static pid_t first_pid;

static void exit_like(int status)
{
	struct rlimit no_core = { 0, 0 };
	sigset_t set;
	int sig;

	/*
	 * The monitor of a guest's forked child is a fork of this one: the
	 * exit handlers are the parent's (a sanitizer's leak check among
	 * them, which would look for threads that exist only there).
	 */
	if (WIFEXITED(status) && getpid() != first_pid) {
		fflush(NULL);
		_exit(WEXITSTATUS(status));
	}
	if (WIFEXITED(status))
		exit(WEXITSTATUS(status));
	sig = WTERMSIG(status);
	fflush(NULL);
	setrlimit(RLIMIT_CORE, &no_core);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	exit(128 + sig);
}

/* Is a debugger attached (TracerPid in /proc/self/status)? */
static bool traced(void)
{
	char buf[1024], *at;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return true; /* cannot tell: keep the text */
	buf[n] = 0;
	at = strstr(buf, "TracerPid:");
	return !at || strtol(at + 10, NULL, 10) != 0;
}

/*
 * As the kernel frees its __init memory once it has booted: the option
 * parsing, the loader and the ELF reading have run, but their pages
 * stay in uarun's page tables (a fault maps the file's cached pages in
 * whole 64 KiB runs around it) and count in the program's peak resident
 * set, python's 1.2x target among them (doc/benchmarks.md).
 * MADV_DONTNEED takes the text out of the page tables only: the page
 * cache keeps it, and what the monitor runs from here on faults back in,
 * a minor fault per run.  Not under a debugger, whose breakpoints are
 * private copies of text pages that this would drop.
 */
static void drop_startup_text(void)
{
	extern char __executable_start[], etext[];
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)__executable_start & ~(pg - 1);
	uintptr_t e = ((uintptr_t)etext + pg - 1) & ~(pg - 1);

	if (!traced())
		madvise((void *)a, e - a, MADV_DONTNEED);
}

static void print_stats(struct ua_task *t, struct ua_space *sp,
			const struct ua_stats *st)
{
	fflush(stdout);
	ua_linux_print_stats(t, 2);
	fprintf(stderr, "%-24s %12s\n", "protection backend",
		ua_protect_name(ua_space_protect(sp)));
	fprintf(stderr, "%-24s %12llu\n%-24s %12llu\n%-24s %12llu\n",
		"protection switches", (unsigned long long)st->switches,
		"windows", (unsigned long long)st->windows, "fixups",
		(unsigned long long)st->fixups);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "protect", required_argument, NULL, 'p' },
		{ "frames", required_argument, NULL, 'f' },
		{ "trap", required_argument, NULL, 't' },
		{ "patch-after", required_argument, NULL, 'A' },
		{ "stats", no_argument, NULL, 's' },
		{ "trace", no_argument, NULL, 'T' },
		{ "space-size", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "exec-state", required_argument, NULL, 'E' },
		{ NULL, 0, NULL, 0 },
	};
	struct ua_space_opts so = { 0 };
	struct ua_task_opts to = { 0 };
	bool stats = false, trace = false;
	size_t space_size = 0;
	struct ua_exec_state *image = NULL;
	struct ua_space *sp;
	struct ua_task *t;
	struct ua_stats st;
	char pathbuf[4096];
	const char *prog;
	int c, status, prev = 1;

	again_add(argv[0]);
	while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		/* Every option but the state again, as it was written. */
		if (c != 'E' && c != '?' && c != 'h')
			for (int i = prev; i < optind; i++)
				again_add(argv[i]);
		prev = optind;
		switch (c) {
		case 'p':
			if (!strcmp(optarg, "none"))
				so.protect = UA_PROTECT_NONE;
			else if (!strcmp(optarg, "mprotect"))
				so.protect = UA_PROTECT_MPROTECT;
			else if (!strcmp(optarg, "pkey"))
				so.protect = UA_PROTECT_PKEY;
			else
				return bad_usage("unknown protection", optarg);
			break;
		case 'f':
			if (!strcmp(optarg, "block"))
				to.frame_mode = UA_FRAME_BLOCK;
			else if (!strcmp(optarg, "per-access"))
				to.frame_mode = UA_FRAME_PER_ACCESS;
			else
				return bad_usage("unknown frame mode", optarg);
			break;
		case 't':
			if (!strcmp(optarg, "sud"))
				to.trap = UA_TRAP_SUD;
			else if (!strcmp(optarg, "patch"))
				to.trap = UA_TRAP_PATCH;
			else if (!strcmp(optarg, "rewrite"))
				to.trap = UA_TRAP_REWRITE;
			else
				return bad_usage("unknown trap mechanism",
						 optarg);
			break;
		case 'S':
			space_size = parse_size(optarg);
			if (!space_size)
				return bad_usage("bad space size", optarg);
			break;
		case 'A':
			if (parse_patch_after(optarg, &to.patch_after))
				return bad_usage("bad --patch-after count",
						 optarg);
			break;
		case 's':
			stats = true;
			break;
		case 'T':
			trace = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'E':
			image = ua_exec_state_read(atoi(optarg));
			if (!image) {
				fprintf(stderr, "uarun: --exec-state=%s: %s\n",
					optarg, strerror(errno));
				return 126;
			}
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (so.protect == UA_PROTECT_AUTO)
		so.protect = default_protect();
	if (optind >= argc && !image) {
		fprintf(stderr, "uarun: no program given\n");
		usage(stderr);
		return 2;
	}
	first_pid = getpid();
	ua_linux_set_exec(exec_again, NULL);
	prog = image ? ua_exec_state_path(image) :
		       find_program(argv[optind], pathbuf, sizeof(pathbuf));
	so.addr = (void *)ua_exec_space_addr(prog);
	if (!space_size && (to.trap == UA_TRAP_REWRITE ||
			    (to.trap == UA_TRAP_DEFAULT && getenv("UA_TRAP") &&
			     !strcmp(getenv("UA_TRAP"), "rewrite"))))
		space_size = SPACE_REWRITE;
	sp = make_space(space_size ? space_size : default_space_size(),
			space_size, &so);
	if (!sp) {
		fprintf(stderr, "uarun: cannot create a space%s: %s\n",
			so.addr ? " at the program's link address" : "",
			strerror(errno));
		return 127;
	}
	t = image ? ua_task_exec_state(sp, image, &to) :
		    ua_task_exec(sp, prog, argv + optind, environ, &to);
	if (!t && image) {
		/* Past exec's point of no return: the kernel's SIGSEGV. */
		fprintf(stderr, "uarun: the new image of an execve cannot "
			"be loaded: %s\n", strerror(errno));
		exit_like(SIGSEGV);
	}
	ua_exec_state_free(image);
	/*
	 * The guest gets EPIPE and its own SIGPIPE; the monitor stays.  Not
	 * before the program took the dispositions this process inherited.
	 */
	signal(SIGPIPE, SIG_IGN);
	if (!t) {
		/* The library has said why for the refusals of a file. */
		if (errno != ENOEXEC && errno != ELIBBAD && errno != EISDIR &&
		    errno != ENOENT && errno != EACCES && errno != ERANGE &&
		    errno != ENOSYS)
			fprintf(stderr, "uarun: %s: %s\n", argv[optind],
				strerror(errno));
		ua_space_destroy(sp);
		return errno == ENOENT ? 127 : 126;
	}
	if (trace)
		ua_linux_trace(t, 2);
	/* The program stands for this process: its signals are the program's. */
	c = ua_task_forward_host_signals(t);
	if (c)
		fprintf(stderr, "uarun: host signals are not forwarded to the "
			"program: %s\n", strerror(-c));
	/*
	 * ps, a shell's jobs and the other guest processes name the program,
	 * not uarun.  A kernel without PR_SET_MM_MAP keeps uarun's: the
	 * program's own /proc/self is the guest's either way.
	 */
	ua_linux_host_proc(t);
	ua_stats_reset();
	drop_startup_text();
	status = ua_task_run(t);
	ua_stats_get(&st);
	ua_task_forward_host_signals(NULL);
	if (status < 0) {
		fprintf(stderr, "uarun: cannot run %s: %s\n", prog,
			strerror(-status));
		return 126;
	}
	if (stats)
		print_stats(t, sp, &st);
	ua_task_destroy(t);
	ua_space_destroy(sp);
	exit_like(status);
}
