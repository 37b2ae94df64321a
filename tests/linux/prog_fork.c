// SPDX-License-Identifier: MIT
/*
 * Processes: fork, vfork, wait4/waitpid/waitid and SIGCHLD, the reaping
 * rules of an ignored SIGCHLD, SA_NOCLDWAIT and SA_NOCLDSTOP, the
 * parent-death signal, a terminal's foreground group and signals to a
 * process group, as a program sees them.  Everything printed is the same
 * natively and under uarun (pids are printed only as relations).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* include/uapi/linux/futex.h, which musl's headers lack: shared forms. */
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1

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

static atomic_int spin_stop;

/* Calls that change the monitor's shared state, without a pause. */
static void *spinner(void *arg)
{
	(void)arg;
	while (!atomic_load(&spin_stop)) {
		void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m != MAP_FAILED)
			munmap(m, 4096);
		syscall(SYS_getppid);
	}
	return NULL;
}

/* waitpid() of a child that must end at once: 0 if it did not in 10 s. */
static int reap_soon(pid_t pid, int *st)
{
	for (int ms = 0; ms < 10000; ms++) {
		if (waitpid(pid, st, WNOHANG) == pid)
			return 1;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, st, 0);
	return 0;
}

/*
 * Forks while another thread is inside the monitor: only the forking
 * thread goes on in a child, and nothing the other one held (a lock of
 * the monitor's) may stay held there.
 */
static void test_threaded_fork(void)
{
	int hung = 0, bad = 0, st;
	sigset_t chld, old;
	pthread_t th;

	/*
	 * Its SIGCHLDs are not counted: two of them may merge into one,
	 * whose status is either child's, natively too.  Both threads block
	 * it; the one left pending is taken before it is let in again.
	 */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, &old);
	atomic_store(&spin_stop, 0);
	if (pthread_create(&th, NULL, spinner, NULL)) {
		printf("threaded fork: no thread\n");
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return;
	}
	for (int i = 0; i < 100; i++) {
		pid_t pid = fork();

		if (!pid)
			_exit(i % 100);
		if (pid < 0) {
			bad++;
			continue;
		}
		if (!reap_soon(pid, &st))
			hung++;
		else if (!WIFEXITED(st) || WEXITSTATUS(st) != i % 100)
			bad++;
	}
	atomic_store(&spin_stop, 1);
	pthread_join(th, NULL);
	sigtimedwait(&chld, NULL, &(struct timespec){ 0, 0 });
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	printf("threaded fork: 100 children, hung %d, wrong statuses %d\n",
	       hung, bad);
}

static void *ends_at_once(void *arg)
{
	return arg;
}

/*
 * Forks right after a join: the joined thread's guest side has ended,
 * while what the monitor does for it after (leaving the group, freeing
 * its task, the C library's thread exit) may still hold locks that a
 * child would inherit held.  The child allocates, as a child does.
 */
static void test_join_then_fork(void)
{
	int hung = 0, bad = 0, st;
	sigset_t chld, old;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, &old);
	for (int i = 0; i < 100; i++) {
		pthread_t th;
		pid_t pid;

		if (pthread_create(&th, NULL, ends_at_once, NULL) ||
		    pthread_join(th, NULL)) {
			bad++;
			continue;
		}
		pid = fork();
		if (!pid) {
			free(malloc(64));
			_exit(7);
		}
		if (pid < 0)
			bad++;
		else if (!reap_soon(pid, &st))
			hung++;
		else if (!WIFEXITED(st) || WEXITSTATUS(st) != 7)
			bad++;
	}
	sigtimedwait(&chld, NULL, &(struct timespec){ 0, 0 });
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	printf("join then fork: 100 children, hung %d, wrong %d\n", hung,
	       bad);
}

/* The SIGCHLD of the reaping tests: which si_codes came, and the last. */
static volatile sig_atomic_t seen_codes, seen_status;

static void on_chld_codes(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code >= CLD_EXITED && si->si_code <= CLD_CONTINUED)
		seen_codes |= 1 << si->si_code;
	seen_status = si->si_status;
}

static void block_chld(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, old);
}

/* A call's result, with its errno when it failed (the kernel's numbers). */
static void say(const char *what, long ret)
{
	if (ret < 0)
		printf("%s: -1 errno %d\n", what, errno);
	else
		printf("%s: %ld\n", what, ret);
}

/*
 * Neither a zombie nor a child any more: gone from /proc as well.  A
 * child reaped on its own is released just after its parent's wait may
 * already see no child (kernel/exit.c: exit_notify() marks it EXIT_DEAD,
 * which do_wait() skips, before release_task()), so give it 2 s; a
 * zombie would stay.
 */
static int gone(pid_t pid)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 200; i++) {
		if (access(path, F_OK) && errno == ENOENT)
			return 1;
		nanosleep(&ts, NULL);
	}
	return 0;
}

/*
 * SIGCHLD ignored: the child is reaped as it ends, and a wait for it
 * waits for it to end, then fails with ECHILD (kernel/exit.c).
 */
static void test_ignored(void)
{
	struct sigaction sa, old;
	siginfo_t si;
	int p[2], st;
	pid_t pid;
	char c = 0;

	if (pipe(p))
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGCHLD, &sa, &old);
	pid = fork();
	if (!pid) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(9);
		_exit(4);
	}
	close(p[0]);
	if (write(p[1], &c, 1) != 1)
		return;
	close(p[1]);
	say("SIG_IGN: waitpid", waitpid(pid, NULL, 0));
	printf("SIG_IGN: gone %d\n", gone(pid));
	pid = fork();
	if (!pid)
		_exit(5);
	say("SIG_IGN: wait", wait(NULL));
	printf("SIG_IGN: gone %d\n", gone(pid));
	memset(&si, 0, sizeof(si));
	say("SIG_IGN: waitid WNOHANG",
	    waitid(P_ALL, 0, &si, WEXITED | WNOHANG));
	sigaction(SIGCHLD, &old, NULL);
}

/* After execve: an ignored SIGCHLD stays ignored, children still reaped. */
static int exec_ignored_side(void)
{
	struct sigaction sa;
	pid_t pid;

	sigaction(SIGCHLD, NULL, &sa);
	printf("after execve: SIGCHLD ignored %d\n", sa.sa_handler == SIG_IGN);
	pid = fork();
	if (!pid)
		_exit(7);
	say("after execve: wait", wait(NULL));
	printf("after execve: gone %d\n", gone(pid));
	return 0;
}

static void test_exec_ignored(void)
{
	char *av[] = { "prog_fork", "exec-ignored", NULL };
	char *ev[] = { NULL };
	pid_t pid;
	int st;

	pid = fork();
	if (!pid) {
		signal(SIGCHLD, SIG_IGN);
		execve("/proc/self/exe", av, ev);
		_exit(99);
	}
	waitpid(pid, &st, 0);
	printf("the execed child: exited %d, status %d\n", WIFEXITED(st),
	       WEXITSTATUS(st));
}

/* SA_NOCLDWAIT with a handler: reaped, and the handler still runs. */
static void test_nocldwait(void)
{
	struct sigaction sa, old;
	sigset_t mask, wait_mask;
	pid_t pid;

	block_chld(&mask);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_chld_codes;
	sa.sa_flags = SA_SIGINFO | SA_NOCLDWAIT;
	sigaction(SIGCHLD, &sa, &old);
	seen_codes = 0;
	pid = fork();
	if (!pid)
		_exit(6);
	say("SA_NOCLDWAIT: waitpid", waitpid(pid, NULL, 0));
	printf("SA_NOCLDWAIT: gone %d\n", gone(pid));
	wait_mask = mask;
	sigdelset(&wait_mask, SIGCHLD);
	sigsuspend(&wait_mask);
	printf("SA_NOCLDWAIT: handler saw CLD_EXITED %d, status %d\n",
	       seen_codes == 1 << CLD_EXITED, seen_status);
	sigaction(SIGCHLD, &old, NULL);
	sigprocmask(SIG_SETMASK, &mask, NULL);
}

/*
 * SA_NOCLDSTOP: a child stopped and continued sends nothing; its death
 * does.  SIGCHLD stays blocked throughout, so the one pending is the
 * first sent (a standard signal does not queue twice): a stop notice
 * would show as CLD_STOPPED.
 */
static void test_nocldstop(void)
{
	struct sigaction sa, old;
	sigset_t mask, wait_mask;
	pid_t pid;
	int st;

	block_chld(&mask);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_chld_codes;
	sa.sa_flags = SA_SIGINFO | SA_NOCLDSTOP | SA_RESTART;
	sigaction(SIGCHLD, &sa, &old);
	seen_codes = 0;
	pid = fork();
	if (!pid) {
		for (;;)
			pause();
	}
	kill(pid, SIGSTOP);
	waitpid(pid, &st, WUNTRACED);
	printf("SA_NOCLDSTOP: stopped %d by %d\n", WIFSTOPPED(st),
	       WSTOPSIG(st));
	kill(pid, SIGCONT);
	waitpid(pid, &st, WCONTINUED);
	printf("SA_NOCLDSTOP: continued %d\n", WIFCONTINUED(st));
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	printf("SA_NOCLDSTOP: killed by %d\n", WTERMSIG(st));
	wait_mask = mask;
	sigdelset(&wait_mask, SIGCHLD);
	sigsuspend(&wait_mask);
	printf("SA_NOCLDSTOP: handler saw CLD_KILLED %d, CLD_STOPPED %d, "
	       "CLD_CONTINUED %d\n",
	       !!(seen_codes & 1 << CLD_KILLED),
	       !!(seen_codes & 1 << CLD_STOPPED),
	       !!(seen_codes & 1 << CLD_CONTINUED));
	sigaction(SIGCHLD, &old, NULL);
	sigprocmask(SIG_SETMASK, &mask, NULL);
}

/* PR_SET_PDEATHSIG and PR_GET_PDEATHSIG; fork does not pass it on. */
static void test_pdeath_value(void)
{
	int sig = -1, st;
	pid_t pid;

	say("PR_SET_PDEATHSIG SIGUSR2", prctl(PR_SET_PDEATHSIG, SIGUSR2));
	prctl(PR_GET_PDEATHSIG, &sig);
	printf("PR_GET_PDEATHSIG: SIGUSR2 %d\n", sig == SIGUSR2);
	pid = fork();
	if (!pid) {
		sig = -1;
		prctl(PR_GET_PDEATHSIG, &sig);
		_exit(sig == 0 ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	printf("a forked child's: 0 %d\n", WEXITSTATUS(st) == 0);
	say("PR_SET_PDEATHSIG 65", prctl(PR_SET_PDEATHSIG, 65));
	prctl(PR_SET_PDEATHSIG, 0);
	sig = -1;
	prctl(PR_GET_PDEATHSIG, &sig);
	printf("PR_GET_PDEATHSIG after 0: %d\n", sig);
	say("PR_GET_PDEATHSIG to a bad pointer",
	    prctl(PR_GET_PDEATHSIG, (int *)8));
}

/* The grandchild's side: SIGUSR1 when its parent, the middle child, ends. */
static void pdeath_grandchild(int out, int ready)
{
	struct timespec ts = { 20, 0 };
	pid_t parent = getppid();
	sigset_t set;
	siginfo_t si;
	char buf[160];
	int sig = -1, got, n;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	prctl(PR_SET_PDEATHSIG, SIGUSR1);
	prctl(PR_GET_PDEATHSIG, &sig);
	if (write(ready, "r", 1) != 1)
		_exit(1);
	memset(&si, 0, sizeof(si));
	got = sigtimedwait(&set, &si, &ts);
	n = snprintf(buf, sizeof(buf),
		     "grandchild: PR_GET_PDEATHSIG SIGUSR1 "
		     "%d, got SIGUSR1 %d, SI_USER %d, from the parent %d, "
		     "reparented %d\n",
		     sig == SIGUSR1, got == SIGUSR1, si.si_code == SI_USER,
		     si.si_pid == parent, getppid() != parent);
	if (write(out, buf, (size_t)n) != n)
		_exit(1);
	_exit(0);
}

static void test_pdeath(void)
{
	int out[2], ready[2], st;
	char buf[256], c;
	pid_t mid;
	ssize_t n;

	if (pipe(out) || pipe(ready))
		return;
	mid = fork();
	if (!mid) {
		close(out[0]);
		if (!fork())
			pdeath_grandchild(out[1], ready[1]);
		close(out[1]);
		close(ready[1]);
		/* The grandchild is armed: its parent goes. */
		_exit(read(ready[0], &c, 1) == 1 ? 0 : 1);
	}
	close(out[1]);
	close(ready[1]);
	close(ready[0]);
	waitpid(mid, &st, 0);
	printf("middle child: exited %d\n", WEXITSTATUS(st));
	while ((n = read(out[0], buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	close(out[0]);
}

/*
 * In a new session whose controlling terminal is the pty's slave: the
 * foreground group moves to another group of the session, and comes back
 * from the background with SIGTTOU blocked, then ignored (a background
 * tcsetpgrp() that neither blocks nor ignores SIGTTOU is stopped by it:
 * drivers/tty/tty_jobctrl.c, __tty_check_change()).
 */
static void tty_session(const char *name)
{
	int s, go[2], st;
	sigset_t set, old;
	char c = 0;
	pid_t g;

	if (setsid() < 0 || pipe(go))
		_exit(10);
	s = open(name, O_RDWR | O_NOCTTY);
	if (s < 0)
		_exit(11);
	say("TIOCSCTTY", ioctl(s, TIOCSCTTY, 0));
	printf("tcgetsid is the session %d, tcgetpgrp is ours %d\n",
	       tcgetsid(s) == getsid(0), tcgetpgrp(s) == getpgrp());
	g = fork();
	if (!g) {
		setpgid(0, 0);
		_exit(read(go[0], &c, 1) == 1 ? 0 : 1);
	}
	setpgid(g, g);
	say("tcsetpgrp to the other group", tcsetpgrp(s, g));
	printf("tcgetpgrp is it %d\n", tcgetpgrp(s) == g);
	sigemptyset(&set);
	sigaddset(&set, SIGTTOU);
	sigprocmask(SIG_BLOCK, &set, &old);
	say("back with SIGTTOU blocked", tcsetpgrp(s, getpgrp()));
	printf("tcgetpgrp is ours %d\n", tcgetpgrp(s) == getpgrp());
	sigprocmask(SIG_SETMASK, &old, NULL);
	say("to the other group again", tcsetpgrp(s, g));
	signal(SIGTTOU, SIG_IGN);
	say("back with SIGTTOU ignored", tcsetpgrp(s, getpgrp()));
	printf("tcgetpgrp is ours %d\n", tcgetpgrp(s) == getpgrp());
	say("tcsetpgrp -1", tcsetpgrp(s, -1));
	say("tcsetpgrp to a group of another session", tcsetpgrp(s, getppid()));
	say("tcgetpgrp of a pipe", tcgetpgrp(go[0]));
	if (write(go[1], &c, 1) != 1)
		_exit(12);
	waitpid(g, &st, 0);
	_exit(WEXITSTATUS(st));
}

/* tcsetpgrp() and tcgetpgrp() on a pseudo-terminal of our own. */
static void test_tty(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY), st;
	char *name;
	pid_t pid;

	if (m < 0 || grantpt(m) || unlockpt(m) || !(name = ptsname(m))) {
		printf("no pseudo-terminal here\n");
		return;
	}
	pid = fork();
	if (!pid)
		tty_session(name);
	waitpid(pid, &st, 0);
	printf("the session's leader: exited %d, status %d\n", WIFEXITED(st),
	       WEXITSTATUS(st));
	close(m);
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

static volatile sig_atomic_t grp_got, grp_from_leader;
static volatile pid_t grp_leader;

static void on_grp(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	grp_got++;
	grp_from_leader += si->si_code == SI_USER && si->si_pid == grp_leader;
}

/*
 * One signal to the leader's group by each way of naming it, and a
 * member that waits for it in sigsuspend: both must take it, the sender
 * before its call returns (a signal to oneself is delivered on the way
 * back to user mode), the member with the sender's pid.
 */
static void group_round(const char *how, int sig)
{
	sigset_t block, none;
	int ready[2], st;
	pid_t m;
	long ret;
	char c;

	sigemptyset(&block);
	sigaddset(&block, sig);
	sigprocmask(SIG_BLOCK, &block, NULL);
	if (pipe(ready))
		return;
	grp_got = grp_from_leader = 0;
	m = fork();
	if (m == 0) {
		sigemptyset(&none);
		write(ready[1], "r", 1);
		while (!grp_got)
			sigsuspend(&none);
		_exit(10 * grp_got + grp_from_leader);
	}
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	read(ready[0], &c, 1);
	if (!strcmp(how, "kill(0)"))
		ret = kill(0, sig);
	else if (!strcmp(how, "killpg"))
		ret = killpg(getpgrp(), sig);
	else
		ret = syscall(SYS_kill, -getpgrp(), sig);
	printf("  %s %d: %ld, sender took it before the return %d from "
	       "itself %d\n", how, sig, ret, grp_got, grp_from_leader);
	waitpid(m, &st, 0);
	printf("  member: exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	close(ready[0]);
	close(ready[1]);
}

/*
 * kill(0), killpg() and kill(-pgrp) reach every process of the group,
 * the sender too.  In a group of its own, so that nothing else the test
 * runs beside gets the signals.
 */
static void test_groups(void)
{
	struct sigaction sa;
	pid_t l;
	int st;

	printf("process group signals:\n");
	l = fork();
	if (l == 0) {
		setpgid(0, 0);
		grp_leader = getpid();
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_grp;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGUSR1, &sa, NULL);
		sigaction(SIGUSR2, &sa, NULL);
		sigaction(SIGRTMIN + 1, &sa, NULL);
		printf("  kill(0, 0): %d\n", kill(0, 0));
		group_round("kill(0)", SIGUSR1);
		group_round("killpg", SIGUSR2);
		group_round("kill(-pgrp)", SIGRTMIN + 1);
		group_round("kill(0)", SIGRTMIN + 1);
		_exit(0);
	}
	waitpid(l, &st, 0);
	printf("  leader: exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/*
 * Shared anonymous memory, and /dev/zero mapped shared, are shared with
 * a forked child, and so are the futexes in them: the child's sem_post
 * of a process-shared semaphore ends the parent's sem_timedwait, its
 * FUTEX_WAKE (no PRIVATE flag) the parent's FUTEX_WAIT.  The child
 * waits first so the parent sleeps; a lost wake-up times out (10 s).
 */
static void test_shared(void)
{
	struct shm {
		sem_t sem;
		_Atomic uint32_t word;
		char text[16];
	} *m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int zfd = open("/dev/zero", O_RDWR), r, st;
	char *z = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, zfd, 0);
	struct timespec ts;
	pid_t pid;

	if (m == MAP_FAILED || z == MAP_FAILED || sem_init(&m->sem, 1, 0))
		return;
	pid = fork();
	if (!pid) {
		strcpy(m->text, "from child");
		strcpy(z, "zero shared");
		usleep(50000);
		sem_post(&m->sem);
		usleep(50000);
		atomic_store(&m->word, 1);
		syscall(SYS_futex, &m->word, FUTEX_WAKE, 1, NULL, NULL, 0);
		_exit(0);
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	r = sem_timedwait(&m->sem, &ts);
	printf("shared semaphore: %d '%s' '%s'\n", r, m->text, z);
	r = 0;
	while (!atomic_load(&m->word) && !r)
		r = (int)syscall(SYS_futex, &m->word, FUTEX_WAIT, 0,
				 &(struct timespec){ 10, 0 }, NULL, 0) &&
		    errno == ETIMEDOUT;
	printf("shared futex: word %u timed out %d\n", atomic_load(&m->word),
	       r);
	waitpid(pid, &st, 0);
	sem_destroy(&m->sem);
	munmap(m, sizeof(*m));
	munmap(z, 4096);
	close(zfd);
}

int main(int argc, char **argv)
{
	struct sigaction sa;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && !strcmp(argv[1], "exec-ignored"))
		return exec_ignored_side();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_chld;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGCHLD, &sa, NULL);
	test_pipe();
	test_killed();
	test_nohang();
	test_offset();
	test_many();
	test_ignored();
	test_exec_ignored();
	test_nocldwait();
	test_nocldstop();
	test_pdeath_value();
	test_pdeath();
	test_tty();
	test_vfork();
	test_shared();
	test_groups();
	test_threaded_fork();
	test_join_then_fork();
	printf("SIGCHLD seen: %d, last CLD_EXITED %d, status %d\n", chld > 0,
	       chld_code == CLD_EXITED, chld_status);
	return 0;
}
