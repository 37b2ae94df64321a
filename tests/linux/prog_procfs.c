// SPDX-License-Identifier: MIT
/*
 * A program's own /proc entries: cmdline, environ and auxv under
 * /proc/self, /proc/<pid> and /proc/thread-self say what the program
 * was started with; exe and fd/N lead to its file and descriptors; maps
 * names its code, heap, stack and the files it maps, split and moved as
 * the kernel splits and moves vmas; fdinfo/N describes descriptor N;
 * mem reads and writes the program's memory and nothing else; smaps
 * counts what maps lists; a child finds its parent's cmdline, environ,
 * auxv, exe, stat, status, maps and fdinfo as its own.  Run natively and under uarun (with arguments), the
 * output must be the same; under uarun the host's files would name the
 * monitor.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <cpuid.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/*
 * The whole file at path, its length in *len, and a NUL after it; NULL
 * if it cannot be read.
 */
static char *slurp(const char *path, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	ssize_t got;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || !buf) {
		free(buf);
		return NULL;
	}
	while ((got = read(fd, buf + n, cap - n)) > 0) {
		n += (size_t)got;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	close(fd);
	buf[n] = 0; /* n < cap: the loop grows buf when it fills */
	*len = n;
	return buf;
}

/* The strings of v, each with its NUL, one after another. */
static char *joined(char *const *v, size_t *len)
{
	size_t n = 0, off = 0;
	char *buf;

	for (size_t i = 0; v[i]; i++)
		n += strlen(v[i]) + 1;
	buf = malloc(n + 1);
	for (size_t i = 0; v[i]; i++) {
		memcpy(buf + off, v[i], strlen(v[i]) + 1);
		off += strlen(v[i]) + 1;
	}
	*len = n;
	return buf;
}

static int same(const char *path, const char *want, size_t want_len)
{
	size_t len;
	char *got = slurp(path, &len);
	int ok = got && len == want_len && !memcmp(got, want, len);

	free(got);
	return ok;
}

static void test_strings(char **argv, char **envp)
{
	char path[64], *args, *env;
	size_t alen, elen;

	args = joined(argv, &alen);
	env = joined(envp, &elen);
	printf("/proc/self/cmdline is argv: %d\n",
	       same("/proc/self/cmdline", args, alen));
	snprintf(path, sizeof(path), "/proc/%d/cmdline", getpid());
	printf("/proc/<pid>/cmdline is argv: %d\n", same(path, args, alen));
	printf("/proc/thread-self/cmdline is argv: %d\n",
	       same("/proc/thread-self/cmdline", args, alen));
	printf("/proc/self/environ is envp: %d\n",
	       same("/proc/self/environ", env, elen));
	free(args);
	free(env);
}

/*
 * Every entry agrees with getauxval(), but AT_HWCAP, which glibc answers
 * with bits of its own on x86-64: the kernel's is CPUID 1's EDX.
 * AT_NULL ends it; nothing after.
 */
static void test_auxv(void)
{
	size_t len, n, bad = 0;
	uint64_t *v = (uint64_t *)slurp("/proc/self/auxv", &len), hwcap = 0;
	unsigned int a = 0, b = 0, c = 0, d = 0;

	if (!v) {
		printf("/proc/self/auxv: cannot read\n");
		return;
	}
	n = len / 16;
	__get_cpuid(1, &a, &b, &c, &d);
	for (size_t i = 0; i + 1 < n; i++) {
		if (v[2 * i] == AT_HWCAP)
			hwcap = v[2 * i + 1];
		else if (!v[2 * i] || getauxval(v[2 * i]) != v[2 * i + 1])
			bad++;
	}
	/* The kernel may clear bits it does not trust, never add one. */
	printf("/proc/self/auxv: AT_HWCAP within CPUID 1 EDX, with its FPU "
	       "bit %d\n",
	       !(hwcap & ~(uint64_t)d) && (hwcap & 1));
	printf("/proc/self/auxv: whole entries %d, ends with AT_NULL %d, "
	       "entries agreeing with getauxval %d, AT_PAGESZ and AT_ENTRY "
	       "present %d\n",
	       len % 16 == 0, n && !v[2 * n - 2] && !v[2 * n - 1], !bad,
	       getauxval(AT_PAGESZ) == (unsigned long)sysconf(_SC_PAGESIZE) &&
		       getauxval(AT_ENTRY) != 0);
	free(v);
}

/*
 * setproctitle(3)'s trick: the last argument's NUL overwritten, the
 * title runs on into the environment, and cmdline shows it from the
 * first argument up to the next NUL (fs/proc/base.c, get_mm_proctitle()).
 */
static void test_proctitle(int argc, char **argv)
{
	char *last = argv[argc - 1], *nul = last + strlen(last);
	size_t len, want;
	char *got;

	*nul = '=';
	want = strlen(argv[0]);
	got = slurp("/proc/self/cmdline", &len);
	printf("proctitle: the first argument on to its NUL %d, "
	       "that NUL included %d\n",
	       got && len >= want && !memcmp(got, argv[0], want),
	       got && len == want + 1 && !got[want]);
	*nul = 0;
	free(got);
}

/* Files for reading only; a directory they are not. */
static void test_open_flags(void)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_DIRECTORY);

	printf("cmdline with O_DIRECTORY: %s\n",
	       fd < 0 && errno == ENOTDIR ? "ENOTDIR" : "opened");
	if (fd >= 0)
		close(fd);
	fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
	printf("environ O_CLOEXEC: %d\n",
	       fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC));
	if (fd >= 0)
		close(fd);
}

/* readlink(path) as a string ("" on error, with errno printed). */
static const char *link_of(const char *path)
{
	static char buf[4096];
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);

	if (n < 0)
		snprintf(buf, sizeof(buf), "<%s>", strerror(errno));
	else
		buf[n] = 0;
	return buf;
}

static void test_links(const char *argv0)
{
	char path[64], want[4096], got[16];
	char *abs = realpath(argv0, NULL);
	int fd = open("/etc/hostname", O_RDONLY), fd2;

	printf("exe is the program: %d\n",
	       abs && !strcmp(link_of("/proc/self/exe"), abs));
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)getpid());
	printf("pid exe is the program: %d\n",
	       abs && !strcmp(link_of(path), abs));
	printf("thread-self exe is the program: %d\n",
	       abs && !strcmp(link_of("/proc/thread-self/exe"), abs));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	printf("fd link: %s\n", link_of(path));
	printf("bad fd link: %s\n", link_of("/proc/self/fd/999"));
	printf("exe link of a file: %s\n", link_of("/proc/self/cmdline"));
	/* Opening the link opens the file afresh: its own offset. */
	if (read(fd, got, 2) != 2)
		printf("read failed\n");
	fd2 = open(path, O_RDONLY);
	printf("reopened from the start: %d\n",
	       fd2 >= 0 && read(fd2, want, 2) == 2 && !memcmp(want, got, 2));
	close(fd2);
	fd2 = open("/proc/self/exe", O_RDONLY);
	printf("exe opens as ELF: %d\n", fd2 >= 0 && read(fd2, want, 4) == 4 &&
						 !memcmp(want, "\177ELF", 4));
	close(fd2);
	close(fd);
	free(abs);
}

/*
 * The maps line holding addr: its permissions, offset and name (the
 * addresses differ between runs and are left out), or "none", in out.
 */
struct map_line {
	char s[4200];
};

static struct map_line map_of(const void *addr)
{
	struct map_line out;
	size_t len;
	char *maps = slurp("/proc/self/maps", &len), *line, *save;
	uintptr_t a = (uintptr_t)addr;

	snprintf(out.s, sizeof(out.s), "none");
	if (!maps)
		return out;
	maps[len] = 0; /* slurp leaves room past the end */
	for (line = strtok_r(maps, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long lo, hi, off, ino;
		char perms[8], dev[16];
		int name = 0;

		if (sscanf(line, "%lx-%lx %7s %lx %15s %lu %n", &lo, &hi, perms,
			   &off, dev, &ino, &name) < 6 ||
		    a < lo || a >= hi)
			continue;
		snprintf(out.s, sizeof(out.s), "%s %lx %s", perms, off,
			 line + name);
		/* A name starts at column 73 at the earliest. */
		if (line[name] && name < 73)
			snprintf(out.s, sizeof(out.s), "misaligned name");
		break;
	}
	free(maps);
	return out;
}

/* Does the maps line at addr name the file path? */
static int named(const void *addr, const char *path)
{
	return strstr(map_of(addr).s, path) != NULL;
}

static void test_maps(const char *argv0)
{
	char tmpl[] = "/tmp/uaccess-maps-XXXXXX", page[4096], *abs;
	int fd = mkstemp(tmpl), local = 0;
	long pg = sysconf(_SC_PAGESIZE);
	char *p, *q, *m = malloc(100);

	memset(page, 'x', sizeof(page));
	for (int i = 0; i < 4; i++)
		if (write(fd, page, sizeof(page)) != (ssize_t)sizeof(page))
			printf("write failed\n");
	abs = realpath(argv0, NULL);
	printf("code is the program's: %d %.4s\n",
	       abs && named((void *)test_maps, abs),
	       map_of((void *)test_maps).s);
	printf("stack: %s\n", map_of(&local).s);
	/* glibc's malloc takes small blocks from the break ([heap]). */
	printf("heap: %s\n", map_of(m).s);
	/* Room of its own to move a page into: 8 pages, then the map. */
	q = mmap(NULL, 11 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	p = mmap(q + 8 * pg, 3 * pg, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd,
		 pg);
	printf("file map: %d %.8s\n", named(p, tmpl), map_of(p + pg).s);
	mprotect(p + pg, pg, PROT_NONE);
	printf("split: %.6s | %.6s | %.6s, named %d %d %d\n", map_of(p).s,
	       map_of(p + pg).s, map_of(p + 2 * pg).s, named(p, tmpl),
	       named(p + pg, tmpl), named(p + 2 * pg, tmpl));
	munmap(q, 8 * pg);
	q = mremap(p + 2 * pg, pg, pg, MREMAP_MAYMOVE | MREMAP_FIXED,
		   p - 4 * pg);
	printf("moved: %.6s %d, old: %s\n", map_of(q).s, named(q, tmpl),
	       map_of(p + 2 * pg).s);
	munmap(p, 2 * pg);
	/* The hole may be reused at once (musl's malloc does): no name. */
	printf("unmapped: %d\n", named(p, tmpl));
	munmap(q, pg);
	q = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		 -1, 0);
	printf("shared anonymous: %.4s %d\n", map_of(q).s,
	       named(q, "/dev/zero (deleted)"));
	q = mmap(q, pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	printf("replaced: %.4s %d\n", map_of(q).s, named(q, "/dev/zero"));
	munmap(q, pg);
	close(fd);
	unlink(tmpl);
	free(abs);
	free(m);
}

/*
 * fdinfo/N of one descriptor: the names of its lines in order, pos and
 * flags, and of an epoll's watched descriptors the number, events and
 * data (their inode and device differ from run to run).
 */
static void show_fdinfo(const char *what, int fd)
{
	char path[64], keys[256] = "", *p, *line;
	long long pos = -1;
	unsigned int flags = 0, events;
	unsigned long long data;
	size_t len;
	int tfd;
	char *buf;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	buf = slurp(path, &len);
	if (!buf) {
		printf("fdinfo %s: %s\n", what, strerror(errno));
		return;
	}
	for (line = strtok_r(buf, "\n", &p); line;
	     line = strtok_r(NULL, "\n", &p)) {
		size_t k = strcspn(line, ":");

		snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys),
			 " %.*s", (int)k, line);
		sscanf(line, "pos: %lld", &pos);
		sscanf(line, "flags: %o", &flags);
		if (sscanf(line, "tfd: %d events: %x data: %llx", &tfd, &events,
			   &data) == 3)
			printf("fdinfo %s: tfd %d events %x data %llx\n", what,
			       tfd, events, data);
		if (!strncmp(line, "sigmask:", 8))
			printf("fdinfo %s: %s\n", what, line);
	}
	printf("fdinfo %s:%s; pos %lld flags 0%o\n", what, keys, pos, flags);
	free(buf);
}

/* The name exec gave the process: the file's, at most 15 bytes. */
static void test_comm(void)
{
	char name[17] = "";
	size_t len;
	char *comm = slurp("/proc/self/comm", &len);
	int r;

	prctl(PR_GET_NAME, name);
	printf("comm: %s", comm ? comm : "(none)\n");
	printf("PR_GET_NAME: %s\n", name);
	free(comm);
	printf("PR_SET_NAME: %d\n",
	       prctl(PR_SET_NAME, "a name longer than fifteen bytes"));
	comm = slurp("/proc/thread-self/comm", &len);
	prctl(PR_GET_NAME, name);
	printf("renamed: %s %s", name, comm ? comm : "(none)\n");
	free(comm);
	errno = 0;
	r = prctl(PR_SET_NAME, (char *)8);
	printf("PR_SET_NAME bad pointer: %d %s\n", r, strerror(errno));
	errno = 0;
	r = prctl(PR_GET_NAME, (char *)8);
	printf("PR_GET_NAME bad pointer: %d %s\n", r, strerror(errno));
}

static void test_fdinfo(void)
{
	char tmpl[] = "/tmp/uaccess-fdinfo-XXXXXX", path[64], *self;
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 0x1234 };
	int p[2], fd = mkstemp(tmpl), null, ep, sfd;
	sigset_t set;
	size_t len;

	if (fd < 0 || pipe2(p, 0))
		return;
	show_fdinfo("pipe read end", p[0]);
	show_fdinfo("pipe write end", p[1]);
	fcntl(p[0], F_SETFD, FD_CLOEXEC);
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	show_fdinfo("pipe, cloexec", p[0]);
	show_fdinfo("pipe, nonblock", p[1]);
	close(fd);
	fd = open(tmpl, O_RDWR | O_APPEND | O_CLOEXEC);
	write(fd, "hello", 5);
	lseek(fd, 3, SEEK_SET);
	show_fdinfo("file at 3", fd);
	null = open("/dev/null", O_WRONLY);
	show_fdinfo("/dev/null", null);
	ep = epoll_create1(EPOLL_CLOEXEC);
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
	show_fdinfo("epoll", ep);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sfd = signalfd(-1, &set, SFD_NONBLOCK);
	show_fdinfo("signalfd", sfd);
	close(null);
	show_fdinfo("closed", null);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	self = slurp(path, &len);
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", getpid(), fd);
	printf("fdinfo by pid: %d\n", self && same(path, self, len));
	free(self);
	close(sfd);
	close(ep);
	close(fd);
	close(p[0]);
	close(p[1]);
	unlink(tmpl);
}

/* A directory's entries in the order readdir gives them, with types. */
static void show_dir(const char *what, DIR *d)
{
	struct dirent *e;

	printf("%s:", what);
	while ((e = readdir(d)))
		printf(" %s/%d", e->d_name, e->d_type);
	printf("\n");
}

static void list_dir(const char *what, const char *path)
{
	DIR *d = opendir(path);

	if (!d) {
		printf("%s: opendir %s\n", what, strerror(errno));
		return;
	}
	show_dir(what, d);
	closedir(d);
}

/*
 * fd/, fdinfo/ and task/ list the process's own descriptors and threads
 * (the monitor's are not the program's), at the kernel's positions.
 */
static void test_dirs(void)
{
	char path[64], buf[20];
	int p[2], fd;
	long pos, n;
	struct dirent *e;
	DIR *d;

	list_dir("fd", "/proc/self/fd");
	list_dir("fd/", "/proc/self/fd/");
	if (pipe2(p, O_CLOEXEC))
		return;
	dup2(p[1], 40);
	list_dir("fd, a pipe and 40", "/proc/self/fd");
	list_dir("fdinfo", "/proc/self/fdinfo");
	close(p[0]);
	list_dir("fd, one end closed", "/proc/self/fd");
	snprintf(path, sizeof(path), "/proc/%d/fd", getpid());
	list_dir("fd by pid", path);
	d = opendir("/proc/thread-self/fd");
	if (!d)
		return;
	for (int i = 0; i < 3; i++)
		readdir(d);
	pos = telldir(d);
	show_dir("fd after three", d);
	seekdir(d, pos);
	e = readdir(d);
	printf("seekdir back: %s at %ld\n", e ? e->d_name : "-", pos);
	rewinddir(d);
	show_dir("rewound", d);
	fd = dirfd(d);
	lseek(fd, 0, SEEK_SET);
	n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
	printf("getdents64 of 20 bytes: %ld %s\n", n,
	       n < 0 ? strerror(errno) : "");
	closedir(d);
	d = opendir("/proc/self/task");
	if (!d)
		return;
	n = 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && atol(e->d_name) == getpid())
			n += e->d_type == DT_DIR ? 1 : 100;
		else if (e->d_name[0] != '.')
			n += 10000;
	printf("task: %ld\n", n);
	closedir(d);
	close(40);
	close(p[1]);
}

static void on_hup(int sig)
{
	(void)sig;
}

/*
 * status's thread count and signal lines are the program's: its mask,
 * what it ignores and catches, what is pending for it.
 */
/* A look-up of name: its result, and whether it found file fd's inode. */
static void show_lookup(const char *how, const char *name, int fd)
{
	struct stat st, want;
	int r;

	fstat(fd, &want);
	if (!strcmp(how, "lstat"))
		r = lstat(name, &st);
	else
		r = stat(name, &st);
	if (r) {
		printf("%s %s: %s\n", how, name, strerror(errno));
		return;
	}
	if (S_ISLNK(st.st_mode))
		printf("%s %s: a link, mode %o\n", how, name,
		       (unsigned)st.st_mode & 0777);
	else
		printf("%s %s: the file %d\n", how, name,
		       st.st_ino == want.st_ino && st.st_dev == want.st_dev);
}

/*
 * The descriptor links as names: /proc/self/fd/N and the /dev links into
 * it (bash's process substitution gives commands /dev/fd/63), looked up,
 * opened and read as the kernel does for the program's own descriptors,
 * whatever the monitor holds at those numbers.
 */
static void test_fd_names(void)
{
	char name[64], buf[32];
	int p[2], fd, closed;
	ssize_t n;

	if (pipe(p))
		return;
	/* Numbers the monitor is likely to hold: high ones. */
	fd = fcntl(p[0], F_DUPFD, 60);
	closed = fcntl(p[1], F_DUPFD, 61);
	close(p[0]);
	close(closed);
	write(p[1], "piped", 5);
	close(p[1]);
	snprintf(name, sizeof(name), "/dev/fd/%d", fd);
	show_lookup("stat", name, fd);
	printf("access %s: %d\n", name, access(name, R_OK));
	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	show_lookup("stat", name, fd);
	show_lookup("lstat", name, fd);
	snprintf(name, sizeof(name), "/proc/self/fd/%d", closed);
	show_lookup("stat", name, fd);
	snprintf(name, sizeof(name), "/dev/fd/%d", closed);
	show_lookup("lstat", name, fd);
	show_lookup("stat", "/dev/stdin", 0);
	show_lookup("lstat", "/dev/stdin", 0);
	/* The devices the monitor serves itself: links with the mode. */
	for (int i = 0; i < 3; i++) {
		int flags[] = { O_RDONLY, O_WRONLY, O_RDWR };
		int d = open(i == 1 ? "/dev/zero" : "/dev/null", flags[i]);

		snprintf(name, sizeof(name), "/proc/self/fd/%d", d);
		show_lookup("lstat", name, d);
		show_lookup("stat", name, d);
		close(d);
	}
	n = readlink("/dev/stdin", buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	printf("readlink /dev/stdin: %s\n", buf);
	snprintf(name, sizeof(name), "/dev/fd/%d", fd);
	p[0] = open(name, O_RDONLY);
	n = p[0] < 0 ? -1 : read(p[0], buf, sizeof(buf));
	printf("open %s and read: %.*s\n", name, (int)(n > 0 ? n : 0), buf);
	if (p[0] >= 0)
		close(p[0]);
	close(fd);
}

/* Field k (1-based, as proc(5) counts) of /proc/self/stat. */
static unsigned long long stat_field(const char *st, int k)
{
	const char *p = strrchr(st, ')');

	for (int i = 2; p && i < k; i++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : ~0ull;
}

static int within(unsigned long long lo, const void *p, unsigned long long hi)
{
	return lo <= (uintptr_t)p && (uintptr_t)p < hi;
}

/*
 * stat's thread count and signal bitmaps, and where its bounds of the
 * arguments, the environment and the heap fall (their values differ
 * from run to run).
 */
static void show_stat(char **argv, char **envp)
{
	size_t len;
	char *st = slurp("/proc/self/stat", &len);

	if (!st) {
		printf("stat: %s\n", strerror(errno));
		return;
	}
	printf("stat threads %llu signal %llx blocked %llx ignored %llx "
	       "caught %llx\n",
	       stat_field(st, 20), stat_field(st, 31), stat_field(st, 32),
	       stat_field(st, 33), stat_field(st, 34));
	printf("stat args hold argv[0] %d, end at the environment %d, "
	       "environment holds envp[0] %d, heap start below the break %d\n",
	       within(stat_field(st, 48), argv[0], stat_field(st, 49)),
	       stat_field(st, 49) == stat_field(st, 50),
	       within(stat_field(st, 50), envp[0], stat_field(st, 51)),
	       stat_field(st, 47) <= (uintptr_t)sbrk(0) &&
		       stat_field(st, 47) + (256u << 20) > (uintptr_t)sbrk(0));
	printf("stat ends with a newline %d\n", len && st[len - 1] == '\n');
	free(st);
}

static void test_status(char **argv, char **envp)
{
	static const char *const keys[] = { "Threads:", "SigPnd:", "ShdPnd:",
					    "SigBlk:",	"SigIgn:", "SigCgt:" };
	struct sigaction sa = { .sa_handler = on_hup };
	sigset_t set, old;
	size_t len;
	char *st, *line;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGRTMIN + 3);
	sigprocmask(SIG_BLOCK, &set, &old);
	signal(SIGUSR2, SIG_IGN);
	sigaction(SIGHUP, &sa, NULL);
	/*
	 * Thread-directed: a process with one thread keeps what kill()
	 * sends it with its own too (shown as SigPnd, not the kernel's
	 * ShdPnd: doc/uarun.md).
	 */
	raise(SIGTERM);
	raise(SIGRTMIN + 3);
	st = slurp("/proc/self/status", &len);
	for (line = st ? strtok(st, "\n") : NULL; line;
	     line = strtok(NULL, "\n"))
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strncmp(line, keys[i], strlen(keys[i])))
				printf("status %s\n", line);
	free(st);
	show_stat(argv, envp);
	/* What is pending goes with SIG_IGN, before the mask is put back. */
	signal(SIGTERM, SIG_IGN);
	signal(SIGRTMIN + 3, SIG_IGN);
	sigprocmask(SIG_SETMASK, &old, NULL);
	signal(SIGUSR2, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGRTMIN + 3, SIG_DFL);
}

/* A call's result as the test prints it: the count, or <error>. */
static const char *res(ssize_t r)
{
	static char buf[64];

	if (r < 0)
		snprintf(buf, sizeof(buf), "<%s>", strerror(errno));
	else
		snprintf(buf, sizeof(buf), "%zd", r);
	return buf;
}

static char mem_data[64] = "guest data";
static char maps_self[1 << 16], maps_task[1 << 16];

/* path's contents into buf, read without allocating anything. */
static void read_raw(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY);
	size_t n = 0;
	ssize_t got;

	while (fd >= 0 && n < cap - 1 &&
	       (got = read(fd, buf + n, cap - 1 - n)) > 0)
		n += (size_t)got;
	buf[n] = 0;
	if (fd >= 0)
		close(fd);
}

static int in_maps(const char *maps, unsigned long a)
{
	unsigned long s, e;

	for (const char *l = maps; *l; l = strchr(l, '\n') + 1) {
		if (sscanf(l, "%lx-%lx", &s, &e) == 2 && a >= s && a < e)
			return 1;
		if (!strchr(l, '\n'))
			break;
	}
	return 0;
}

/*
 * What the thread's own task/<tid>/maps lists beyond the process's maps
 * (nothing natively; the monitor's memory where its task/ entries are
 * the host's) must not be readable through mem.
 */
static void mem_outside(int fd)
{
	char path[64], c;
	unsigned long s, e;
	int readable = 0;

	/*
	 * "//": a spelling that procfs under uarun leaves to the host, so
	 * there the host's maps, the monitor's mappings among them;
	 * natively the same file as /proc/self/maps.
	 */
	snprintf(path, sizeof(path), "/proc//self/task/%ld/maps",
		 (long)syscall(SYS_gettid));
	for (int i = 0; i < 2; i++) { /* the second pass allocates nothing */
		read_raw("/proc/self/maps", maps_self, sizeof(maps_self));
		read_raw(path, maps_task, sizeof(maps_task));
	}
	for (const char *l = maps_task; *l; l = strchr(l, '\n') + 1) {
		if (sscanf(l, "%lx-%lx", &s, &e) == 2 && s < (1ul << 47) &&
		    !in_maps(maps_self, s) && pread(fd, &c, 1, (off_t)s) >= 0)
			readable++;
		if (!strchr(l, '\n'))
			break;
	}
	printf("mem beyond the maps: %s\n", readable ? "readable" : "EIO");
}

/*
 * stat's size is the maps' (but [vsyscall], which is no vma); its code
 * bounds hold the program's code, its data bounds its initialised data,
 * its stack start is where argc was.  Read without allocating, so that
 * nothing maps between the two reads.
 */
static void test_stat_bounds(char **argv)
{
	static char st[4096];
	unsigned long s, e, sum = 0;

	for (int i = 0; i < 2; i++) {
		read_raw("/proc/self/stat", st, sizeof(st));
		read_raw("/proc/self/maps", maps_self, sizeof(maps_self));
	}
	for (const char *l = maps_self; *l; l = strchr(l, '\n') + 1) {
		const char *v = strstr(l, "[vsyscall]");
		const char *nl = strchr(l, '\n');

		if (sscanf(l, "%lx-%lx", &s, &e) == 2 && (!v || (nl && v > nl)))
			sum += e - s;
		if (!nl)
			break;
	}
	printf("stat size is the maps' %d\n", stat_field(st, 23) == sum);
	printf("stat code holds the code %d, data the data %d, stack starts "
	       "at argc %d\n",
	       within(stat_field(st, 26), (void *)test_stat_bounds,
		      stat_field(st, 27)),
	       within(stat_field(st, 45), mem_data, stat_field(st, 46)),
	       stat_field(st, 28) == (uintptr_t)(argv - 1));
}

/*
 * /proc/self/mem: reads and writes at addresses, as far as the
 * mappings go; FOLL_FORCE reaches read-only and PROT_NONE pages (or
 * not, as the host's proc_mem.force_override says: the same both ways).
 */
static void test_mem(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	int fd = open("/proc/self/mem", O_RDWR);
	char buf[64] = { 0 }, *two, *ro, *none, *volatile bad = (char *)8;
	off_t at;

	printf("mem open: %s\n", res(fd));
	if (fd < 0)
		return;
	printf("mem pread: %s ", res(pread(fd, buf, 10, (off_t)mem_data)));
	printf("'%s'\n", buf);
	printf("mem pwrite: %s ", res(pwrite(fd, "GUEST", 5, (off_t)mem_data)));
	printf("'%s'\n", mem_data);
	two = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(two + pg, pg);
	printf("mem to a hole: %s\n", res(pread(fd, maps_self, 2 * pg,
						  (off_t)two)));
	printf("mem in a hole: %s\n", res(pread(fd, buf, 8,
						  (off_t)(two + pg))));
	ro = mmap(NULL, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	printf("mem write read-only: %s ", res(pwrite(fd, "ro", 2, (off_t)ro)));
	printf("'%.2s'\n", ro);
	none = mmap(NULL, pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	printf("mem read PROT_NONE: %s\n",
	       res(pread(fd, buf, 8, (off_t)none)));
	at = lseek(fd, (off_t)mem_data, SEEK_SET);
	printf("mem lseek: %d\n", at == (off_t)mem_data);
	memset(buf, 0, sizeof(buf));
	printf("mem read: %s '%s' ", res(read(fd, buf, 8)), buf);
	printf("then at +%ld\n", (long)(lseek(fd, 0, SEEK_CUR) - at));
	printf("mem read EFAULT: %s ", res(read(fd, bad, 8)));
	printf("then at +%ld\n", (long)(lseek(fd, 0, SEEK_CUR) - at));
	printf("mem SEEK_END: %s\n", res(lseek(fd, 0, SEEK_END) < 0 ? -1 : 0));
	printf("mem pread at -1: %s\n", res(pread(fd, buf, 16, -1)));
	/* Positions are addresses: lseek gives the top page's as it is. */
	printf("mem top: %d ", lseek(fd, -(off_t)pg, SEEK_SET) == -(off_t)pg);
	printf("%s ", res(read(fd, buf, 16)));
	printf("%s\n", res(read(fd, maps_self, 2 * pg)));
	printf("mem sendfile: %s\n",
	       res(sendfile(1, fd, &(off_t){ (off_t)mem_data }, 4)));
	mem_outside(fd);
	munmap(two, pg);
	munmap(ro, pg);
	munmap(none, pg);
	close(fd);
}

/*
 * The mem file however it is spelt or reached: relative to a descriptor
 * of /proc/self, with "//" or "/./", through the thread's directory.
 */
static void test_mem_spellings(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	int dir = open("/proc/self", O_RDONLY | O_DIRECTORY);
	char *two = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char task[64], buf[8];
	const char *names[] = { "openat mem", "//", "/./", "openat task" };
	int fds[4];

	munmap(two + pg, pg);
	snprintf(task, sizeof(task), "task/%ld/mem", (long)syscall(SYS_gettid));
	fds[0] = openat(dir, "mem", O_RDONLY);
	fds[1] = open("/proc//self/mem", O_RDONLY);
	fds[2] = open("/proc/./self/mem", O_RDONLY);
	fds[3] = openat(dir, task, O_RDONLY);
	for (int i = 0; i < 4; i++) {
		printf("mem as %s: %s, ", names[i], res(fds[i]));
		if (fds[i] < 0)
			continue;
		printf("hole %s, ",
		       res(pread(fds[i], buf, 8, (off_t)(two + pg))));
		mem_outside(fds[i]);
		close(fds[i]);
	}
	munmap(two, pg);
	close(dir);
}

static int task_pipe[2], task_ready[2];
static long task_tid;

/* A second thread with a mask of its own, until the main one is done. */
static void *task_thread(void *arg)
{
	sigset_t set;
	char c = 0;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGWINCH);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	task_tid = (long)syscall(SYS_gettid);
	if (write(task_ready[1], &c, 1) != 1 || read(task_pipe[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

/* The line of path that starts with key, or <error>. */
static const char *line_of(const char *path, const char *key)
{
	static char out[256];
	size_t len;
	char *all = slurp(path, &len), *l;

	snprintf(out, sizeof(out), "<%s>", strerror(errno));
	for (l = all ? strtok(all, "\n") : NULL; l; l = strtok(NULL, "\n"))
		if (!strncmp(l, key, strlen(key)))
			snprintf(out, sizeof(out), "%s", l);
	free(all);
	return out;
}

/*
 * /proc/self/task/<tid>/: each thread's own status and stat (its mask),
 * the process's cmdline, exe and fd/, its memory through mem; an id
 * that is no thread of the program's has no entry.
 */
static void test_task(const char *argv0)
{
	char path[96], self[96], c = 0, buf[8];
	long me = (long)syscall(SYS_gettid), pg = sysconf(_SC_PAGESIZE);
	pthread_t th;
	char *hole;
	size_t a, b;
	char *x, *y;
	int fd;

	if (pipe(task_pipe) || pipe(task_ready) ||
	    pthread_create(&th, NULL, task_thread, NULL) ||
	    read(task_ready[0], &c, 1) != 1)
		return;
	snprintf(path, sizeof(path), "/proc/self/task/%ld/status", task_tid);
	printf("task other %s\n", line_of(path, "SigBlk:"));
	snprintf(path, sizeof(path), "/proc/self/task/%ld/status", me);
	printf("task mine %s\n", line_of(path, "SigBlk:"));
	printf("thread-self %s\n", line_of("/proc/thread-self/status",
					   "SigBlk:"));
	snprintf(path, sizeof(path), "/proc/%d/task/%ld/status", getpid(),
		 task_tid);
	printf("task by pid: %s\n", line_of(path, "Threads:"));
	snprintf(path, sizeof(path), "/proc/self/task/%ld/cmdline", task_tid);
	x = slurp(path, &a);
	y = slurp("/proc/self/cmdline", &b);
	printf("task cmdline same: %d\n", x && y && a == b && !memcmp(x, y, a));
	free(x);
	free(y);
	snprintf(path, sizeof(path), "/proc/self/task/%ld/exe", task_tid);
	snprintf(self, sizeof(self), "%s", link_of("/proc/self/exe"));
	printf("task exe same: %d\n", !strcmp(link_of(path), self));
	fd = open(argv0, O_RDONLY);
	snprintf(path, sizeof(path), "/proc/self/task/%ld/fd/%d", task_tid, fd);
	printf("task fd same: %d\n", !strcmp(link_of(path), self));
	close(fd);
	snprintf(path, sizeof(path), "/proc/self/task/%ld/mem", task_tid);
	fd = open(path, O_RDONLY);
	printf("task mem: %s ", res(pread(fd, buf, 4, (off_t)mem_data)));
	printf("'%.4s'\n", buf);
	hole = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(hole + pg, pg);
	printf("task mem in a hole: %s\n",
	       res(pread(fd, buf, 4, (off_t)(hole + pg))));
	munmap(hole, pg);
	close(fd);
	snprintf(path, sizeof(path), "/proc/self/task/%d/status", 0x3ffffff0);
	printf("task none: %s\n", res(open(path, O_RDONLY)));
	if (write(task_pipe[1], &c, 1) == 1)
		pthread_join(th, NULL);
}

static char smaps_buf[1 << 20];

/* The smaps block whose range holds a, or NULL. */
static const char *smaps_block(const char *sm, unsigned long a)
{
	unsigned long s, e;

	for (const char *l = sm; l && *l; l = strchr(l, '\n')) {
		l += *l == '\n';
		if (sscanf(l, "%lx-%lx ", &s, &e) == 2 && a >= s && a < e)
			return l;
	}
	return NULL;
}

/* The value of field name in block b (up to the next header), or -1. */
static long smaps_field(const char *b, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = b ? strchr(b, '\n') : NULL; l && l[1];) {
		l++;
		if ((*l >= '0' && *l <= '9') || (*l >= 'a' && *l <= 'f'))
			break;
		if (!strncmp(l, name, n) && l[n] == ':')
			return strtol(l + n + 1, NULL, 10);
		l = strchr(l, '\n');
	}
	return -1;
}

/* Which of rd wr ex sh mr mw me block b's VmFlags holds. */
static void smaps_flags(const char *b)
{
	static const char *const fl[] = { "rd", "wr", "ex", "sh",
					  "mr", "mw", "me" };
	const char *v = b ? strstr(b, "VmFlags:") : NULL;
	size_t end = v ? strcspn(v, "\n") : 0;

	printf(" flags");
	for (int i = 0; i < 7; i++) {
		const char *f = v;

		while (f && (f = strstr(f + 1, fl[i])) && f < v + end &&
		       (f[-1] != ' ' || f[2] != ' '))
			;
		if (f && f < v + end)
			printf(" %s", fl[i]);
	}
	printf("\n");
}

/* Are the headers of smaps, in order, the lines of maps? */
static int smaps_headers_are(const char *sm, const char *maps)
{
	size_t at = 0;

	for (const char *l = sm; *l; l = strchr(l, '\n') + 1) {
		size_t n = strcspn(l, "\n") + 1;

		if (((*l >= '0' && *l <= '9') || (*l >= 'a' && *l <= 'f'))) {
			if (strncmp(maps + at, l, n))
				return 0;
			at += n;
		}
		if (!l[n - 1])
			break;
	}
	return !maps[at];
}

static char rollup_buf[1 << 12];

/* The sum of field name over the blocks of smaps sm. */
static long smaps_sum(const char *sm, const char *name)
{
	size_t n = strlen(name);
	long sum = 0;

	for (const char *l = sm; *l; l = strchr(l, '\n') + 1) {
		if (!strncmp(l, name, n) && l[n] == ':')
			sum += strtol(l + n + 1, NULL, 10);
		if (!strchr(l, '\n'))
			break;
	}
	return sum;
}

/*
 * smaps_rollup: one block, [rollup], of the sums over smaps' (read
 * right after it, into buffers already faulted in, so that nothing
 * changes between the two).
 */
static void test_rollup(void)
{
	const char *head;
	long parts;

	memset(smaps_buf, 0, sizeof(smaps_buf));
	memset(rollup_buf, 0, sizeof(rollup_buf));
	read_raw("/proc/self/smaps", smaps_buf, sizeof(smaps_buf));
	read_raw("/proc/self/smaps_rollup", rollup_buf, sizeof(rollup_buf));
	head = strstr(rollup_buf, " [rollup]\n");
	printf("rollup: %s",
	       head && head + 9 == strchr(rollup_buf, '\n') ? "[rollup]" : "?");
	printf(", Rss the sum %d, Anonymous the sum %d, Swap the sum %d\n",
	       smaps_field(rollup_buf, "Rss") == smaps_sum(smaps_buf, "Rss"),
	       smaps_field(rollup_buf, "Anonymous") ==
		       smaps_sum(smaps_buf, "Anonymous"),
	       smaps_field(rollup_buf, "Swap") == smaps_sum(smaps_buf, "Swap"));
	/* Each part is rounded down on its own: up to 2 kB apart. */
	parts = smaps_field(rollup_buf, "Pss_Anon") +
		smaps_field(rollup_buf, "Pss_File") +
		smaps_field(rollup_buf, "Pss_Shmem");
	printf("rollup Pss parts add up: %d\n",
	       labs(parts - smaps_field(rollup_buf, "Pss")) <= 2);
	printf("rollup fields:");
	for (const char *l = strchr(rollup_buf, '\n'); l && l[1];
	     l = strchr(l, '\n')) {
		l++;
		printf(" %.*s", (int)strcspn(l, ":"), l);
	}
	printf("\n");
}

/*
 * smaps: each line of maps followed by the kernel's counts of that
 * range.  A mapping of eight pages, three of them written and the last
 * two made read-only, shows as two blocks with their sizes, resident
 * and anonymous pages; under uarun its guard may sit right above the
 * stack, which the host then holds in the same vma.  The field names and
 * their order are the host kernel's, natively and under uarun alike.
 */
static void test_smaps(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *g = mmap(NULL, 10 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	char *p = g + pg;
	const char *rw, *ro, *st;
	int local = 0;

	/* Guard pages around it: no neighbour merges with it. */
	mprotect(p, 8 * pg, PROT_READ | PROT_WRITE);
	memset(p, 1, 3 * pg);
	mprotect(p + 6 * pg, 2 * pg, PROT_READ);
	read_raw("/proc/self/maps", maps_self, sizeof(maps_self));
	read_raw("/proc/self/smaps", smaps_buf, sizeof(smaps_buf));
	printf("smaps headers are the maps: %d\n",
	       smaps_headers_are(smaps_buf, maps_self));
	rw = smaps_block(smaps_buf, (unsigned long)p);
	ro = smaps_block(smaps_buf, (unsigned long)(p + 6 * pg));
	printf("smaps rw part: Size %ld Rss %ld Anonymous %ld Private_Dirty "
	       "%ld Swap %ld",
	       smaps_field(rw, "Size"), smaps_field(rw, "Rss"),
	       smaps_field(rw, "Anonymous"), smaps_field(rw, "Private_Dirty"),
	       smaps_field(rw, "Swap"));
	smaps_flags(rw);
	printf("smaps ro part: Size %ld Rss %ld", smaps_field(ro, "Size"),
	       smaps_field(ro, "Rss"));
	smaps_flags(ro);
	st = smaps_block(smaps_buf, (unsigned long)&local);
	printf("smaps stack: %s, resident %d\n",
	       st && strstr(st, "[stack]") < strchr(st, '\n') ? "[stack]" : "?",
	       smaps_field(st, "Rss") > 0);
	printf("smaps fields:");
	for (const char *l = strchr(rw, '\n'); l && l[1]; l = strchr(l, '\n')) {
		l++;
		if ((*l >= '0' && *l <= '9') || (*l >= 'a' && *l <= 'f'))
			break;
		printf(" %.*s", (int)strcspn(l, ":"), l);
	}
	printf("\n");
	read_raw("/proc/thread-self/smaps", smaps_buf, sizeof(smaps_buf));
	printf("thread-self smaps headers are the maps: %d\n",
	       smaps_headers_are(smaps_buf, maps_self));
	munmap(g, 10 * pg);
	test_rollup();
}

/* Are the two files the same, bytes and length? */
static int same_file(const char *a, const char *b)
{
	size_t la, lb;
	char *x = slurp(a, &la), *y = slurp(b, &lb);
	int same = x && y && la && la == lb && !memcmp(x, y, la);

	free(x);
	free(y);
	return same;
}

/*
 * The names a /proc directory lists but the dots, ascending by number,
 * one per line in out; how many.  skip_own: leave out the descriptor of
 * the listing itself (in /proc/self/fd).
 */
static int dir_names(const char *path, int skip_own, char *out, size_t size)
{
	DIR *d = opendir(path);
	struct dirent *e;
	long v[256];
	int n = 0;
	size_t used = 0;

	*out = 0;
	if (!d)
		return -1;
	while ((e = readdir(d)) && n < 256) {
		if (e->d_name[0] == '.' ||
		    (skip_own > 0 && atoi(e->d_name) == dirfd(d)))
			continue;
		v[n++] = atol(e->d_name);
	}
	closedir(d);
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (v[j] < v[i]) {
				long x = v[i];

				v[i] = v[j];
				v[j] = x;
			}
	for (int i = 0; i < n && used < size; i++)
		used += (size_t)snprintf(out + used, size - used, "%ld\n", v[i]);
	return n;
}

/* Is the line of a that starts with key the same in b? */
static int same_lines(const char *a, const char *b, const char *key)
{
	const char *x = strstr(a, key), *y = strstr(b, key);
	size_t n = x ? strcspn(x, "\n") : 0;

	return x && y && n == strcspn(y, "\n") && !memcmp(x, y, n);
}

/*
 * Another process's entries (the parent's, read by a child, which
 * shares its memory's contents and its mm's bounds right after fork):
 * the same as the child's own.  Under uarun another process's entries
 * are the host's, which would name uarun, but for ua_linux_host_proc()
 * (and the monitor's reading of exe from what it told the host).
 */
static void test_parent_view(void)
{
	static const int fields[] = { 26, 27, 28, 45, 46 };
	static char mine[65536], theirs[65536];
	char path[64];
	int st, same = 1;
	pid_t pid = fork();

	if (pid < 0)
		return;
	if (pid) {
		waitpid(pid, &st, 0);
		return;
	}
	pid = getppid();
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	printf("parent's cmdline is the child's %d\n",
	       same_file(path, "/proc/self/cmdline"));
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	printf("parent's environ is the child's %d\n",
	       same_file(path, "/proc/self/environ"));
	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	printf("parent's auxv is the child's %d\n",
	       same_file(path, "/proc/self/auxv"));
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	snprintf(mine, sizeof(mine), "%s", link_of("/proc/self/exe"));
	printf("parent's exe is the child's %d\n",
	       *mine != '<' && !strcmp(link_of(path), mine));
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	read_raw(path, theirs, sizeof(theirs));
	read_raw("/proc/self/stat", mine, sizeof(mine));
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		same &= stat_field(mine, fields[i]) ==
			stat_field(theirs, fields[i]);
	printf("parent's stat code, data and stack bounds are the child's "
	       "%d\n", same);
	/* What only the parent's monitor knows: its guest's view. */
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	read_raw(path, theirs, sizeof(theirs));
	read_raw("/proc/self/maps", mine, sizeof(mine));
	printf("parent's maps are the child's %d\n",
	       *mine && !strcmp(mine, theirs));
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	read_raw(path, theirs, sizeof(theirs));
	read_raw("/proc/self/smaps_rollup", mine, sizeof(mine));
	printf("parent's smaps_rollup spans the child's %d\n",
	       *mine && !strncmp(mine, theirs, strcspn(mine, "\n")));
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	read_raw(path, theirs, sizeof(theirs));
	read_raw("/proc/self/status", mine, sizeof(mine));
	/*
	 * Not SigBlk: a C library's fork() blocks every signal around the
	 * call (musl's), and the parent may not have its mask back yet.
	 */
	printf("parent's status threads and signals are the child's %d\n",
	       same_lines(mine, theirs, "Threads:") &&
		       same_lines(mine, theirs, "SigIgn:") &&
		       same_lines(mine, theirs, "SigCgt:"));
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	read_raw(path, theirs, sizeof(theirs));
	read_raw("/proc/self/stat", mine, sizeof(mine));
	same = 1;
	for (int k = 33; k <= 34; k++)
		same &= stat_field(mine, k) == stat_field(theirs, k);
	printf("parent's stat threads and signals are the child's %d\n",
	       same && stat_field(mine, 20) == stat_field(theirs, 20));
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	printf("parent's task/ lists the parent alone %d\n",
	       dir_names(path, -1, theirs, sizeof(theirs)) == 1 &&
		       atoi(theirs) == (int)pid);
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	dir_names(path, -1, theirs, sizeof(theirs));
	printf("parent's fd/ lists the child's descriptors %d\n",
	       dir_names("/proc/self/fd", 1, mine, sizeof(mine)) > 2 &&
		       !strcmp(mine, theirs));
	snprintf(path, sizeof(path), "/proc/%d/fd/1", (int)pid);
	snprintf(mine, sizeof(mine), "%s", link_of("/proc/self/fd/1"));
	printf("parent's fd/1 link is the child's %d\n",
	       *mine != '<' && !strcmp(link_of(path), mine));
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/1", (int)pid);
	read_raw(path, theirs, sizeof(theirs));
	read_raw("/proc/self/fdinfo/1", mine, sizeof(mine));
	printf("parent's fdinfo/1 is the child's %d\n",
	       *mine && !strcmp(mine, theirs));
	fflush(stdout);
	_exit(0);
}

/*
 * The same the other way, of a child asleep in pause(): under uarun
 * a sleep the monitor keeps, from which its monitor must wake to answer.
 */
static void test_child_view(void)
{
	static char mine[65536], theirs[65536];
	char path[64], c;
	int p[2], st;
	pid_t pid;

	if (pipe(p))
		return;
	pid = fork();
	if (pid < 0)
		return;
	if (!pid) {
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	if (read(p[0], &c, 1) == 1) {
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
		read_raw(path, theirs, sizeof(theirs));
		read_raw("/proc/self/maps", mine, sizeof(mine));
		printf("sleeping child's maps are the parent's %d\n",
		       *mine && !strcmp(mine, theirs));
		/*
		 * Asleep once in pause(): its stat and status say so, not
		 * that its monitor ran to answer.
		 */
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		for (int i = 0; i < 200; i++) {
			read_raw(path, theirs, sizeof(theirs));
			if (strstr(theirs, ") S "))
				break;
			usleep(10000);
		}
		printf("sleeping child's stat state S %d",
		       !!strstr(theirs, ") S "));
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
		read_raw(path, theirs, sizeof(theirs));
		printf(", status %d\n",
		       !!strstr(theirs, "\nState:\tS (sleeping)\n"));
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	close(p[0]);
	close(p[1]);
}

int main(int argc, char **argv, char **envp)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("argc: %d\n", argc);
	test_strings(argv, envp);
	test_auxv();
	test_open_flags();
	test_links(argv[0]);
	test_maps(argv[0]);
	test_proctitle(argc, argv);
	test_fdinfo();
	test_comm();
	test_dirs();
	test_status(argv, envp);
	test_fd_names();
	test_mem();
	test_mem_spellings();
	test_stat_bounds(argv);
	test_task(argv[0]);
	test_smaps();
	test_parent_view();
	test_child_view();
	printf("done\n");
	return 0;
}
