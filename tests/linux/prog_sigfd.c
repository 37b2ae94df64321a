// SPDX-License-Identifier: MIT
/*
 * signalfd, run natively and under uarun by run_programs.py (the same
 * bytes): the kernel's errors, reads with and without a signal pending,
 * the records of tkill, sigqueue and SIGCHLD, poll and epoll readiness,
 * a new mask, dup, a blocking read woken by another process and one a
 * handler interrupts, a thread's blocking read of a signal sent to the
 * process, a forked child's own signalfd, and a signalfd kept across
 * execve with its signal still pending.  Also the waits that take a
 * signal mask of their own (ppoll, pselect, epoll_pwait): a signal the
 * mask lets in, pending before or sent meanwhile, ends them and its
 * handler runs; the thread's mask is back afterwards.  And waits that
 * nothing for the waiter interrupts (a child's ignored SIGCHLD) go on,
 * as does a thread's read a handler with SA_RESTART interrupts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define SSI sizeof(struct signalfd_siginfo)

static long sfd4(int fd, const void *mask, size_t size, int flags)
{
	long r = syscall(SYS_signalfd4, fd, mask, size, flags);

	return r < 0 ? -errno : r;
}

static sigset_t set_of(int a, int b)
{
	sigset_t s;

	sigemptyset(&s);
	if (a)
		sigaddset(&s, a);
	if (b)
		sigaddset(&s, b);
	return s;
}

static int ready(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 ? p.revents : 0;
}

static long rd(int fd, struct signalfd_siginfo *si, size_t n)
{
	long r = read(fd, si, n);

	return r < 0 ? -errno : r;
}

static void errors(void)
{
	uint64_t m = 1ull << (SIGUSR1 - 1);
	int nul = open("/dev/null", O_RDONLY);

	printf("errors: size %ld flags %ld badfd %ld notsfd %ld fault %ld "
	       "negfd %ld\n",
	       sfd4(-1, &m, 4, 0), sfd4(-1, &m, 8, 1), sfd4(77, &m, 8, 0),
	       sfd4(nul, &m, 8, 0), sfd4(-1, (void *)8, 8, 0),
	       sfd4(-2, &m, 8, 0));
	close(nul);
}

static void records(void)
{
	sigset_t s = set_of(SIGUSR1, SIGRTMIN);
	struct signalfd_siginfo si[3];
	union sigval v;
	char link[64], target[64];
	int fd, fd2;
	long r;

	sigprocmask(SIG_BLOCK, &s, NULL);
	fd = signalfd(-1, &s, SFD_NONBLOCK | SFD_CLOEXEC);
	printf("new: fd>2 %d cloexec %d nonblock %d\n", fd > 2,
	       fcntl(fd, F_GETFD) == FD_CLOEXEC,
	       !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	r = readlink(link, target, sizeof(target) - 1);
	target[r > 0 ? r : 0] = 0;
	printf("link: %s\n", target);
	printf("empty: ready %d", ready(fd));
	printf(" read %ld\n", rd(fd, si, SSI));
	raise(SIGUSR1);
	printf("raised: ready %d\n", ready(fd));
	r = rd(fd, si, sizeof(si));
	printf("read %ld: signo %u code %d pid ok %d uid ok %d\n", r,
	       si[0].ssi_signo, si[0].ssi_code,
	       si[0].ssi_pid == (uint32_t)getpid(),
	       si[0].ssi_uid == getuid());
	printf("after: ready %d", ready(fd));
	printf(" read %ld\n", rd(fd, si, SSI));
	v.sival_int = 42;
	sigqueue(getpid(), SIGRTMIN, v);
	v.sival_int = 43;
	sigqueue(getpid(), SIGRTMIN, v);
	printf("short read %ld\n", rd(fd, si, SSI - 1));
	r = rd(fd, si, sizeof(si));
	printf("queued %ld: %d %d code %d %d\n", r, si[0].ssi_int,
	       si[1].ssi_int, si[0].ssi_code, si[1].ssi_code);
	printf("write %ld", write(fd, si, SSI) < 0 ? -errno : 0L);
	printf(" pread %ld\n", pread(fd, si, SSI, 0) < 0 ? -errno : 0L);

	/* A new mask: SIGUSR2 only; a SIGUSR1 stays pending. */
	s = set_of(SIGUSR2, 0);
	sigprocmask(SIG_BLOCK, &s, NULL);
	printf("remask: %d\n", signalfd(fd, &s, 0) == fd);
	raise(SIGUSR1);
	printf("usr1 with usr2 mask: ready %d\n", ready(fd));
	raise(SIGUSR2);
	fd2 = dup(fd);
	close(fd);
	printf("dup: ready %d", ready(fd2));
	r = rd(fd2, si, SSI);
	printf(" read %ld signo %u\n", r, si[0].ssi_signo);
	sigpending(&s);
	printf("usr1 still pending %d\n", sigismember(&s, SIGUSR1));
	{
		int sig;

		s = set_of(SIGUSR1, 0);
		sigwait(&s, &sig);
		printf("sigwait %d\n", sig);
	}
	close(fd2);
}

static void epoll(void)
{
	sigset_t s = set_of(SIGUSR1, 0);
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 7 };
	struct signalfd_siginfo si;
	int fd, ep, n;
	long r;

	sigprocmask(SIG_BLOCK, &s, NULL);
	fd = signalfd(-1, &s, SFD_NONBLOCK);
	ep = epoll_create1(0);
	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	printf("epoll empty %d\n", epoll_wait(ep, &ev, 1, 0));
	kill(getpid(), SIGUSR1);
	ev.data.u64 = 0;
	n = epoll_wait(ep, &ev, 1, 1000);
	printf("epoll %d data %llu in %d\n", n,
	       (unsigned long long)ev.data.u64, !!(ev.events & EPOLLIN));
	r = rd(fd, &si, SSI);
	printf("kill: read %ld code %d\n", r, si.ssi_code);
	printf("epoll drained %d\n", epoll_wait(ep, &ev, 1, 0));
	close(ep);
	close(fd);
}

/* A blocking read woken by another process's kill; then SIGCHLD. */
static void blocking(void)
{
	sigset_t s = set_of(SIGUSR1, SIGCHLD);
	struct signalfd_siginfo si;
	pid_t pid;
	long r;
	int fd;

	sigprocmask(SIG_BLOCK, &s, NULL);
	fd = signalfd(-1, &s, 0);
	pid = fork();
	if (!pid) {
		usleep(50000);
		kill(getppid(), SIGUSR1);
		_exit(7);
	}
	r = rd(fd, &si, SSI);
	printf("blocking: %ld signo %u from child %d\n", r, si.ssi_signo,
	       si.ssi_pid == (uint32_t)pid);
	r = rd(fd, &si, SSI);
	printf("chld: %ld signo %u code %d status %d from child %d\n", r,
	       si.ssi_signo, si.ssi_code, si.ssi_status,
	       si.ssi_pid == (uint32_t)pid);
	waitpid(pid, NULL, 0);
	close(fd);
}

static void on_alrm(int sig)
{
	(void)sig;
}

/* A handler without SA_RESTART ends a blocking read with EINTR. */
static void interrupted(void)
{
	sigset_t s = set_of(SIGUSR2, 0);
	struct sigaction sa = { .sa_handler = on_alrm };
	struct itimerval it = { .it_value.tv_usec = 50000 };
	struct signalfd_siginfo si;
	int fd;

	sigaction(SIGALRM, &sa, NULL);
	sigprocmask(SIG_BLOCK, &s, NULL);
	fd = signalfd(-1, &s, 0);
	setitimer(ITIMER_REAL, &it, NULL);
	printf("interrupted: %ld\n", rd(fd, &si, SSI));
	close(fd);
}

static void *reader(void *arg)
{
	struct signalfd_siginfo si;
	long r = rd(*(int *)arg, &si, SSI);

	printf("thread: read %ld signo %u code %d\n", r, si.ssi_signo,
	       si.ssi_code);
	return NULL;
}

/* Another thread sleeps in read; kill() to the process wakes it. */
static void threaded(void)
{
	sigset_t s = set_of(SIGUSR1, 0);
	pthread_t th;
	int fd;

	sigprocmask(SIG_BLOCK, &s, NULL);
	fd = signalfd(-1, &s, 0);
	pthread_create(&th, NULL, reader, &fd);
	usleep(50000);
	kill(getpid(), SIGUSR1);
	pthread_join(th, NULL);
	printf("threaded: ready %d\n", ready(fd));
	close(fd);
}

/* A forked child's signalfd reads the child's signals, not its parent's. */
static void forked(void)
{
	sigset_t s = set_of(SIGUSR1, 0);
	struct signalfd_siginfo si;
	int fd, st;
	pid_t pid;

	sigprocmask(SIG_BLOCK, &s, NULL);
	fd = signalfd(-1, &s, SFD_NONBLOCK);
	fflush(stdout);
	pid = fork();
	if (!pid) {
		printf("child: ready %d\n", ready(fd));
		raise(SIGUSR1);
		printf("child: ready %d", ready(fd));
		printf(" read %ld\n", rd(fd, &si, SSI));
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	printf("parent: ready %d", ready(fd));
	printf(" read %ld\n", rd(fd, &si, SSI));
	close(fd);
}

/* The signalfd and its pending signal survive execve. */
static void exec_keep(const char *self)
{
	sigset_t s = set_of(SIGUSR1, 0);
	char arg[16];
	int fd;

	sigprocmask(SIG_BLOCK, &s, NULL);
	fd = signalfd(-1, &s, SFD_NONBLOCK);
	raise(SIGUSR1);
	snprintf(arg, sizeof(arg), "%d", fd);
	fflush(stdout);
	execl(self, self, "execed", arg, (char *)NULL);
	printf("execl: %s\n", strerror(errno));
}

static void execed(int fd)
{
	struct signalfd_siginfo si;
	long r;

	printf("execed: ready %d", ready(fd));
	r = rd(fd, &si, SSI);
	printf(" read %ld signo %u\n", r, si.ssi_signo);
	printf("execed: ready %d\n", ready(fd));
}

static volatile sig_atomic_t got;

static void on_usr1(int sig)
{
	got = sig;
}

static long masked_wait(int how, int ep, const sigset_t *mask)
{
	struct epoll_event ev;
	long r;

	if (how == 0)
		r = ppoll(NULL, 0, NULL, mask);
	else if (how == 1)
		r = pselect(0, NULL, NULL, NULL, NULL, mask);
	else
		r = epoll_pwait(ep, &ev, 1, -1, mask);
	return r < 0 ? -errno : r;
}

static void masked_waits(void)
{
	static const char *const name[] = { "ppoll", "pselect", "epoll_pwait" };
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigset_t usr1 = set_of(SIGUSR1, 0), none, cur;
	int ep = epoll_create1(0);
	long r;

	sigemptyset(&none);
	sigaction(SIGUSR1, &sa, NULL);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	for (int how = 0; how < 3; how++) {
		pid_t pid;

		got = 0;
		raise(SIGUSR1);
		r = masked_wait(how, ep, &none);
		sigprocmask(SIG_BLOCK, NULL, &cur);
		printf("%s, pending before: %ld got %d blocked again %d\n",
		       name[how], r, got, sigismember(&cur, SIGUSR1));
		got = 0;
		pid = fork();
		if (!pid) {
			usleep(50000);
			kill(getppid(), SIGUSR1);
			_exit(0);
		}
		r = masked_wait(how, ep, &none);
		sigprocmask(SIG_BLOCK, NULL, &cur);
		printf("%s, sent meanwhile: %ld got %d blocked again %d\n",
		       name[how], r, got, sigismember(&cur, SIGUSR1));
		waitpid(pid, NULL, 0);
	}
	/* A mask that keeps it blocked: the timeout ends the wait. */
	got = 0;
	raise(SIGUSR1);
	r = ppoll(NULL, 0, &(struct timespec){ 0, 20000000 }, &usr1);
	printf("ppoll, still blocked: %ld got %d\n", r, got);
	sigprocmask(SIG_UNBLOCK, &usr1, NULL);
	printf("unblocked: got %d\n", got);
	close(ep);
}

/*
 * A wait pipe fd ends when a grandchild writes to it, while the child
 * that forked it has ended: its SIGCHLD, which the process ignores
 * (SIG_DFL), wakes nothing (sig_ignored(): never queued).  The timeout
 * is far beyond the grandchild's 0.1 s: it only ends a wait that lost
 * its wake-up (0 then).  With 5 s, one CI run (suites side by side on
 * two cores) saw 0 under uarun, which 320 loaded reruns did not repeat.
 */
static long wait_orphan(int how, int ep)
{
	struct pollfd pfd;
	struct epoll_event ev = { .events = EPOLLIN };
	int p[2];
	long r;
	pid_t pid;
	char c;

	if (pipe(p))
		return -errno;
	pid = fork();
	if (!pid) {
		if (!fork()) {
			usleep(100000);
			write(p[1], "x", 1);
		}
		_exit(0);
	}
	close(p[1]);
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
	r = how ? epoll_wait(ep, &ev, 1, 60000) : poll(&pfd, 1, 60000);
	r = r < 0 ? -errno : r;
	read(p[0], &c, 1);
	waitpid(pid, NULL, 0);
	close(p[0]);
	return r;
}

static void *restarted_read(void *arg)
{
	int fd = *(int *)arg;
	char c = 0;
	long n = read(fd, &c, 1);

	printf("thread's read under SA_RESTART: %ld %c\n", n < 0 ? -errno : n,
	       c);
	return NULL;
}

/* Interrupts with no signal for the waiter, and one with SA_RESTART. */
static void quiet_waits(void)
{
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
	sigset_t usr1 = set_of(SIGUSR1, 0);
	int ep = epoll_create1(0), p[2];
	pthread_t th;

	printf("poll, a child ends: %ld\n", wait_orphan(0, ep));
	printf("epoll_wait, a child ends: %ld\n", wait_orphan(1, ep));
	close(ep);
	sigaction(SIGUSR1, &sa, NULL);
	sigprocmask(SIG_UNBLOCK, &usr1, NULL);
	if (pipe(p))
		return;
	got = 0;
	pthread_create(&th, NULL, restarted_read, p);
	usleep(50000);
	pthread_kill(th, SIGUSR1);
	usleep(50000);
	write(p[1], "y", 1);
	pthread_join(th, NULL);
	printf("handler ran: %d\n", got);
	close(p[0]);
	close(p[1]);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "execed")) {
		execed(atoi(argv[2]));
		return 0;
	}
	errors();
	records();
	epoll();
	blocking();
	interrupted();
	threaded();
	masked_waits();
	quiet_waits();
	forked();
	exec_keep(argv[0]);
	return 1;
}
