// SPDX-License-Identifier: MIT
/*
 * Processes: fork, vfork, wait4/waitpid/waitid and SIGCHLD, as a program
 * sees them.  Everything printed is the same natively and under uarun
 * (pids are printed only as relations).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t chld;
static volatile int chld_code, chld_status;

static void on_chld(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	chld++;
	chld_code = si->si_code;
	chld_status = si->si_status;
}

/* A child writes through a pipe; its memory writes stay its own. */
static void test_pipe(void)
{
	int p[2], st, x = 5;
	char buf[64];
	pid_t pid, parent = getpid();
	ssize_t n;

	if (pipe(p))
		return;
	pid = fork();
	if (!pid) {
		x = 7;
		close(p[0]);
		n = snprintf(buf, sizeof(buf), "child: ppid is parent %d, "
			     "pid new %d, x %d\n", getppid() == parent,
			     getpid() != parent, x);
		if (write(p[1], buf, (size_t)n) != n)
			_exit(2);
		_exit(42);
	}
	close(p[1]);
	while ((n = read(p[0], buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	close(p[0]);
	printf("waitpid = child: %d\n", waitpid(pid, &st, 0) == pid);
	printf("exited %d, status %d, x still %d\n", WIFEXITED(st),
	       WEXITSTATUS(st), x);
}

/* Statuses and siginfo of a child killed by a signal. */
static void test_killed(void)
{
	struct rusage ru;
	siginfo_t si;
	pid_t pid;
	int st;

	pid = fork();
	if (!pid) {
		raise(SIGTERM);
		_exit(1);
	}
	memset(&si, 0, sizeof(si));
	printf("waitid: %d\n", waitid(P_PID, pid, &si, WEXITED | WNOWAIT));
	printf("si_code CLD_KILLED %d, si_status %d, si_pid ok %d, "
	       "si_signo %d\n", si.si_code == CLD_KILLED, si.si_status,
	       si.si_pid == pid, si.si_signo);
	printf("wait4 = child: %d\n", wait4(pid, &st, 0, &ru) == pid);
	printf("signaled %d, termsig %d, core %d\n", WIFSIGNALED(st),
	       WTERMSIG(st), WCOREDUMP(st));
	printf("no child left: %d\n", wait(&st) == -1);
	memset(&si, 0, sizeof(si));
	printf("waitid WNOHANG without children: %d\n",
	       waitid(P_ALL, 0, &si, WEXITED | WNOHANG));
}

/* A child still running: WNOHANG says 0, then it is reaped. */
static void test_nohang(void)
{
	int p[2], st;
	pid_t pid;
	char c;

	if (pipe(p))
		return;
	pid = fork();
	if (!pid) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(9);
		_exit(c);
	}
	close(p[0]);
	printf("WNOHANG while it runs: %d\n", waitpid(pid, &st, WNOHANG));
	c = 11;
	if (write(p[1], &c, 1) != 1)
		return;
	close(p[1]);
	pid = waitpid(pid, &st, 0) == pid;
	printf("then reaped: %d, status %d\n", pid, WEXITSTATUS(st));
}

/* A shared descriptor keeps one offset for both processes. */
static void test_offset(void)
{
	char path[] = "/tmp/prog_fork.XXXXXX", buf[32];
	int fd = mkstemp(path), st;
	pid_t pid;
	ssize_t n;

	if (fd < 0)
		return;
	unlink(path);
	if (write(fd, "abc", 3) != 3)
		return;
	pid = fork();
	if (!pid)
		_exit(write(fd, "def", 3) == 3 ? 0 : 1);
	waitpid(pid, &st, 0);
	printf("offset after the child's write: %ld\n",
	       (long)lseek(fd, 0, SEEK_CUR));
	n = pread(fd, buf, sizeof(buf), 0);
	printf("file: %.*s\n", (int)(n > 0 ? n : 0), buf);
	close(fd);
}

static void test_many(void)
{
	int bad = 0, st;

	for (int i = 0; i < 50; i++) {
		pid_t pid = fork();

		if (!pid)
			_exit(i);
		if (waitpid(pid, &st, 0) != pid || WEXITSTATUS(st) != i)
			bad++;
	}
	printf("50 children, wrong statuses: %d\n", bad);
}

static void test_vfork(void)
{
	pid_t pid = vfork();
	int st;

	if (!pid)
		_exit(3);
	pid = waitpid(pid, &st, 0) == pid;
	printf("vfork: reaped %d, status %d\n", pid, WEXITSTATUS(st));
}

int main(void)
{
	struct sigaction sa;

	setvbuf(stdout, NULL, _IONBF, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_chld;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGCHLD, &sa, NULL);
	test_pipe();
	test_killed();
	test_nohang();
	test_offset();
	test_many();
	test_vfork();
	printf("SIGCHLD seen: %d, last CLD_EXITED %d, status %d\n", chld > 0,
	       chld_code == CLD_EXITED, chld_status);
	return 0;
}
