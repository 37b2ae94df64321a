// SPDX-License-Identifier: MIT
/*
 * execve and execveat, natively and under uarun (run_programs.py compares
 * the output byte for byte): the kernel's errors before the point of no
 * return, what a new image keeps (descriptors without close-on-exec,
 * ignored signals, the mask, pending signals, the alarm) and loses
 * (handlers, close-on-exec descriptors), `#!` scripts and their depth,
 * execveat relative to a directory and of a descriptor, vfork and
 * posix_spawn.  Paths under the test's own temporary folder print as $T.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prog_res.h"

extern char **environ;

static char self[4096];
static char tmp[64] = "/tmp/prog_exec.XXXXXX";

/* s with the temporary folder as $T and this program as $SELF. */
static void show(const char *what, const char *s)
{
	size_t n = strlen(tmp);

	if (!s) {
		printf("%s: (null)\n", what);
		return;
	}
	if (!strcmp(s, self)) {
		printf("%s: $SELF\n", what);
		return;
	}
	if (!strncmp(s, tmp, n)) {
		printf("%s: $T%s\n", what, s + n);
		return;
	}
	printf("%s: %s\n", what, s);
}

static void status(const char *what, int st)
{
	if (WIFEXITED(st))
		printf("%s: exit %d\n", what, WEXITSTATUS(st));
	else
		printf("%s: signal %d\n", what, WTERMSIG(st));
	fflush(stdout);
}

static void report(const char *what, long r)
{
	printf("%s: %ld %s\n", what, r, r < 0 ? errno_name(errno) : "");
	fflush(stdout);
}

static void write_file(const char *name, const char *text, mode_t mode)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		perror(path);
	close(fd);
	chmod(path, mode);
}

static const char *in_tmp(const char *name)
{
	static char path[4][4200];
	static int next;
	char *p = path[next++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", tmp, name);
	return p;
}

/* The new image: what it was given and what it kept. */
static int after(int argc, char **argv)
{
	struct sigaction sa;
	sigset_t set;
	char buf[4096], z[4] = { 1, 1, 1, 1 };
	ssize_t n;

	if (getenv("PROG_EXEC_T"))
		snprintf(tmp, sizeof(tmp), "%s", getenv("PROG_EXEC_T"));
	for (int i = 0; i < argc; i++) {
		char what[32];

		snprintf(what, sizeof(what), "argv[%d]", i);
		show(what, argv[i]);
	}
	show("AT_EXECFN", (const char *)getauxval(AT_EXECFN));
	show("FOO", getenv("FOO"));
	n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	show("exe", buf);
	if (argc < 2 || strcmp(argv[1], "kept"))
		return 3;
	printf("fd 7: %d\n", fcntl(7, F_GETFD));
	if (write(7, "via fd 7\n", 9) != 9)
		printf("write fd 7: %s\n", errno_name(errno));
	n = fcntl(8, F_GETFD);
	printf("fd 8 (close-on-exec): %zd %s\n", n, errno_name(errno));
	printf("fd 9 /dev/zero: %zd %d%d%d%d\n", read(9, z, 4), z[0], z[1],
	       z[2], z[3]);
	sigaction(SIGUSR2, NULL, &sa);
	printf("SIGUSR2 ignored: %d\n", sa.sa_handler == SIG_IGN);
	sigaction(SIGUSR1, NULL, &sa);
	printf("SIGUSR1 default: %d flags %#x\n", sa.sa_handler == SIG_DFL,
	       (unsigned)sa.sa_flags);
	sigprocmask(SIG_SETMASK, NULL, &set);
	printf("SIGHUP blocked: %d\n", sigismember(&set, SIGHUP));
	sigpending(&set);
	printf("SIGHUP pending: %d, SIGUSR1 pending %d\n",
	       sigismember(&set, SIGHUP), sigismember(&set, SIGUSR1));
	n = alarm(0);
	printf("alarm kept: %d\n", n > 90 && n <= 100);
	int pd = -1;
	prctl(PR_GET_PDEATHSIG, &pd);
	printf("parent-death signal: %d\n", pd);
	stack_t ss;
	sigaltstack(NULL, &ss);
	printf("altstack: flags %d size %zu\n", ss.ss_flags, ss.ss_size);
	fflush(stdout);
	return 5;
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* The old image sets up what the new one must find, then execs. */
static void keep(void)
{
	static char altstack[65536];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	char *av[] = { "renamed", "kept", "two words", NULL };
	char *ev[] = { "FOO=bar baz", "X=1", NULL };
	int pfd[2], st;
	char buf[64];
	sigset_t set;
	pid_t pid;
	ssize_t n;

	if (pipe(pfd))
		return;
	pid = fork();
	if (!pid) {
		close(pfd[0]);
		dup2(pfd[1], 7);
		close(pfd[1]);
		dup2(open("/dev/null", O_RDONLY | O_CLOEXEC), 8);
		fcntl(8, F_SETFD, FD_CLOEXEC);
		dup2(open("/dev/zero", O_RDONLY), 9);
		signal(SIGUSR2, SIG_IGN);
		signal(SIGUSR1, on_usr1);
		sigaltstack(&ss, NULL);
		sigemptyset(&set);
		sigaddset(&set, SIGHUP);
		sigprocmask(SIG_BLOCK, &set, NULL);
		raise(SIGHUP);
		alarm(100);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execve("/proc/self/exe", av, ev);
		_exit(99);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], buf, sizeof(buf))) > 0)
		printf("parent read: %.*s", (int)n, buf);
	close(pfd[0]);
	waitpid(pid, &st, 0);
	status("kept child", st);
}

static void try_exec(const char *what, const char *path, char *const av[],
		     char *const ev[])
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		execve(path, av, ev);
		printf("%s: %s\n", what, errno_name(errno));
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		status(what, st);
}

static void errors(void)
{
	char *av[] = { "x", "after", NULL };
	char *ev[] = { "FOO=1", NULL };
	char *bad_ev[] = { "FOO=1", (char *)8, NULL };
	char *big[] = { "x", NULL, NULL };
	char **volatile bad_av = (char **)8;
	char link[4200];

	write_file("plain", "hello\n", 0644);
	write_file("junk", "not a program\n", 0755);
	write_file("noint", "#!/nonexistent/interp\n", 0755);
	write_file("blank", "#!   \n", 0755);
	snprintf(link, sizeof(link), "%s/link", tmp);
	symlink(self, link);
	try_exec("missing", "/nonexistent/prog", av, ev);
	try_exec("directory", "/", av, ev);
	try_exec("not executable", in_tmp("plain"), av, ev);
	try_exec("not a program", in_tmp("junk"), av, ev);
	try_exec("empty path", "", av, ev);
	try_exec("bad path", (char *)8, av, ev);
	try_exec("bad argv", self, bad_av, ev);
	try_exec("bad envp string", self, av, bad_ev);
	try_exec("missing interpreter", in_tmp("noint"), av, ev);
	try_exec("no interpreter name", in_tmp("blank"), av, ev);
	big[1] = malloc(200 << 10);
	memset(big[1], 'a', (200 << 10) - 1);
	big[1][(200 << 10) - 1] = 0;
	try_exec("200 KiB argument", self, big, ev);
	free(big[1]);
	fflush(stdout);
	if (!fork()) {
		syscall(SYS_execveat, AT_FDCWD, self, av, ev, 0x8000);
		printf("execveat bad flags: %s\n", errno_name(errno));
		fflush(stdout);
		syscall(SYS_execveat, AT_FDCWD, link, av, ev,
			AT_SYMLINK_NOFOLLOW);
		printf("execveat nofollow symlink: %s\n", errno_name(errno));
		fflush(stdout);
		syscall(SYS_execveat, 12345, "rel", av, ev, 0);
		printf("execveat bad dirfd, relative path: %s\n",
		       errno_name(errno));
		fflush(stdout);
		/* An absolute path needs no dirfd: this one runs. */
		syscall(SYS_execveat, 12345, self, av, ev, 0);
		printf("execveat bad dirfd, absolute path: %s\n",
		       errno_name(errno));
		fflush(stdout);
		_exit(0);
	}
	wait(NULL);
}

/* A chain of depth scripts, each naming the next, the last this program. */
static void chain(int depth)
{
	char *av[] = { "chain", "after", NULL };
	char name[32], text[4300], what[32];

	for (int i = depth; i >= 1; i--) {
		snprintf(name, sizeof(name), "chain%d", i);
		if (i == depth)
			snprintf(text, sizeof(text), "#!%s\n", self);
		else
			snprintf(text, sizeof(text), "#!%s/chain%d\n", tmp,
				 i + 1);
		write_file(name, text, 0755);
	}
	snprintf(what, sizeof(what), "chain of %d", depth);
	try_exec(what, in_tmp("chain1"), av, environ);
}

static void scripts(void)
{
	char *av[] = { "script-argv0", "after", NULL };
	char text[4300];

	snprintf(text, sizeof(text), "#! %s  after  with space \t\nbody\n",
		 self);
	write_file("script", text, 0755);
	try_exec("script", in_tmp("script"), av, environ);
	snprintf(text, sizeof(text), "#!%s", self);
	write_file("nonewline", text, 0755);
	try_exec("no newline", in_tmp("nonewline"), av, environ);
	for (int d = 4; d <= 7; d++)
		chain(d);
}

static void at_calls(void)
{
	char *av[] = { "at", "after", NULL };
	char dir[4096], *slash;
	int fd, dfd;
	pid_t pid;
	int st;

	snprintf(dir, sizeof(dir), "%s", self);
	slash = strrchr(dir, '/');
	*slash = 0;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		fd = open(self, O_RDONLY);
		dup2(fd, 20);
		syscall(SYS_execveat, 20, "", av, environ, AT_EMPTY_PATH);
		printf("fexecve: %s\n", errno_name(errno));
		_exit(1);
	}
	waitpid(pid, &st, 0);
	status("execveat AT_EMPTY_PATH", st);
	pid = fork();
	if (!pid) {
		dfd = open(dir, O_RDONLY | O_DIRECTORY);
		dup2(dfd, 21);
		syscall(SYS_execveat, 21, slash + 1, av, environ, 0);
		printf("execveat dirfd: %s\n", errno_name(errno));
		_exit(1);
	}
	waitpid(pid, &st, 0);
	status("execveat dirfd", st);
}

static void spawns(void)
{
	char *av[] = { "spawned", "after", NULL };
	pid_t pid;
	int st;

	fflush(stdout);
	pid = vfork();
	if (!pid) {
		execve(self, av, environ);
		_exit(127);
	}
	/* Whether the new image prints first is a race: say it after. */
	waitpid(pid, &st, 0);
	printf("vfork parent goes on\n");
	status("vfork child", st);
	if (posix_spawn(&pid, self, NULL, NULL, av, environ)) {
		printf("posix_spawn failed\n");
		return;
	}
	waitpid(pid, &st, 0);
	status("posix_spawn child", st);
}

static void cleanup(void)
{
	static const char *const names[] = { "plain", "junk", "noint",
		"blank", "link", "script", "nonewline", "chain1", "chain2",
		"chain3", "chain4", "chain5", "chain6", "chain7" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(in_tmp(names[i]));
	rmdir(tmp);
}

int main(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "after") ||
			 !strcmp(argv[1], "kept")))
		return after(argc, argv);
	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], "after", 5))
			return after(argc, argv);
	if (!realpath(argv[0], self) || !mkdtemp(tmp)) {
		perror("setup");
		return 1;
	}
	setenv("PROG_EXEC_T", tmp, 1);
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	errors();
	keep();
	scripts();
	at_calls();
	spawns();
	cleanup();
	return 0;
}
