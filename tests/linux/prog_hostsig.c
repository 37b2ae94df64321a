// SPDX-License-Identifier: MIT
/*
 * Signals from outside: the runner (run_programs.py, mode hostsig) waits
 * for "ready" on stdout, then sends signals to the process, natively and
 * to uarun; the output and the end must be the same.
 *
 *   term     SIGTERM and SIGINT handlers, waits in pause()
 *   spin     the same handlers, waits in a loop without syscalls
 *   read     the same handlers, waits in a read() of a pipe that stays
 *            empty (a host call the monitor makes for the program)
 *   ignore   SIGHUP ignored, then a SIGUSR1 handler that exits 0
 *   default  no handler: killed by SIGTERM
 *   blocked  SIGTERM blocked: pending (sigpending), delivered on unblock
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got;

/*
 * The sender is the runner, this program's parent: compared, not
 * printed.  One write(), no stdio: the handler may interrupt stdio.
 */
static void report(int sig, const siginfo_t *si)
{
	char buf[200];
	int n = snprintf(buf, sizeof(buf),
			 "handler got %d\nsi_code SI_USER: %s\n"
			 "si_pid is the sender: %s\nsi_uid is ours: %s\n",
			 sig, si->si_code == SI_USER ? "yes" : "no",
			 si->si_pid == getppid() ? "yes" : "no",
			 si->si_uid == getuid() ? "yes" : "no");

	if (write(1, buf, (size_t)n) != n)
		_exit(1);
}

static void on_sig(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	report(sig, si);
	got = sig;
}

static void on_exit_sig(int sig, siginfo_t *si, void *uc)
{
	on_sig(sig, si, uc);
	exit(3);
}

static void handle(int sig, void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO;
	sigaction(sig, &sa, NULL);
}

static void ready(void)
{
	if (write(1, "ready\n", 6) != 6)
		_exit(1);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "term";
	struct timespec ms = { 0, 1000000 };
	sigset_t set, pend;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(how, "term") || !strcmp(how, "read")) {
		handle(SIGTERM, on_exit_sig);
		handle(SIGINT, on_exit_sig);
		ready();
		if (!strcmp(how, "read")) {
			int p[2];
			char c;

			if (pipe(p))
				return 1;
			/* The write end stays open: only a signal ends it. */
			printf("read: %zd\n", read(p[0], &c, 1));
		}
		for (;;)
			pause();
	}
	if (!strcmp(how, "spin")) {
		volatile unsigned long n = 0;

		handle(SIGTERM, on_sig);
		handle(SIGINT, on_sig);
		ready();
		/* No syscall: only an interrupt gets the handler in. */
		while (!got)
			n++;
		printf("after the loop: got %d\n", (int)got);
		return 3;
	}
	if (!strcmp(how, "ignore")) {
		signal(SIGHUP, SIG_IGN);
		handle(SIGUSR1, on_exit_sig);
		ready();
		for (;;)
			pause();
	}
	if (!strcmp(how, "default")) {
		ready();
		for (;;)
			pause();
	}
	if (!strcmp(how, "blocked")) {
		handle(SIGTERM, on_exit_sig);
		sigemptyset(&set);
		sigaddset(&set, SIGTERM);
		sigprocmask(SIG_BLOCK, &set, NULL);
		ready();
		do {
			nanosleep(&ms, NULL);
			sigpending(&pend);
		} while (!sigismember(&pend, SIGTERM));
		printf("pending: yes\n");
		/* Delivered on the way out of this call: exits 3. */
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		printf("not reached\n");
		return 1;
	}
	return 2;
}
