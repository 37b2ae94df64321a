// SPDX-License-Identifier: MIT
/*
 * A program's own /proc entries: cmdline, environ and auxv under
 * /proc/self, /proc/<pid> and /proc/thread-self say what the program
 * was started with.  Run natively and under uarun (with arguments), the
 * output must be the same; under uarun the host's files would name the
 * monitor.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

extern char **environ;

/* The whole file at path, its length in *len; NULL if it cannot be read. */
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

int main(int argc, char **argv, char **envp)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("argc: %d\n", argc);
	test_strings(argv, envp);
	test_auxv();
	test_open_flags();
	test_proctitle(argc, argv);
	printf("done\n");
	return 0;
}
