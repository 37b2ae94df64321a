// SPDX-License-Identifier: MIT
/*
 * Protection backends: what locks a guest space against the monitor
 * outside access windows, the way SMAP/PAN/KUAP lock user memory against
 * the kernel.  The same monitor bug -- a plain store to guest memory with
 * no window open -- runs under each backend in a child process:
 *   none      bookkeeping only; the stray store goes through
 *   mprotect  the space is PROT_NONE when locked; the store faults and the
 *             library reports it like the kernel's KUAP oops, then aborts
 *   pkey      the same with protection keys (where the CPU has them)
 * Accessors behave identically under all of them, and count the same
 * protection switches.  UA_PROTECT picks the backend of spaces created
 * with UA_PROTECT_AUTO.
 *
 *   cc protect.c $(pkg-config --cflags --libs uaccess)
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uaccess.h>

/* The first line of the child's report, with the address taken out. */
static void print_report(const char *buf)
{
	const char *at = strstr(buf, "guest address ");
	const char *nl = strchr(buf, '\n');
	const char *rest;

	if (!at || !nl || at > nl) {
		printf("  no report\n");
		return;
	}
	at += strlen("guest address ");
	rest = at + strspn(at, "0123456789abcdefx");
	printf("  report: \"%.*s<address>%.*s\"\n", (int)(at - buf), buf,
	       (int)(strcspn(rest, "(\n") - 1), rest);
}

/* Run the stray store in a child; return its wait status. */
static int stray_store(char *guest, char *report, size_t size)
{
	int fds[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe(fds))
		exit(1);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 2);
		((volatile char *)guest)[0] = 'X'; /* the bug */
		_exit(0);
	}
	close(fds[1]);
	while ((n = read(fds[0], report + got, size - 1 - (size_t)got)) > 0)
		got += n;
	report[got] = 0;
	close(fds[0]);
	waitpid(pid, &status, 0);
	return status;
}

static void run(enum ua_protect p)
{
	struct ua_space_opts o = { .protect = p };
	const char *why = NULL;
	struct ua_space *sp;
	struct ua_stats st;
	char report[8192];
	char *g;
	int status;

	printf("%s:", ua_protect_name(p));
	if (!ua_protect_available(p, &why)) {
		printf(" not available here (%s)\n", why);
		return;
	}
	sp = ua_space_create(1 << 20, &o);
	if (!sp) {
		perror("ua_space_create");
		exit(1);
	}
	ua_space_use(sp);
	g = ua_map(sp, NULL, 4096, PROT_READ | PROT_WRITE);
	if (!g)
		exit(1);
	ua_stats_reset();
	printf(" ua_put_user %d,", ua_put_user('A', g));
	ua_stats_get(&st);
	printf(" %llu switches\n", (unsigned long long)st.switches);

	status = stray_store(g, report, sizeof(report));
	if (WIFEXITED(status)) {
		printf("  stray store: went through (exit %d)\n",
		       WEXITSTATUS(status));
	} else {
		printf("  stray store: killed by %s\n",
		       WTERMSIG(status) == SIGABRT ? "SIGABRT" :
						     strsignal(WTERMSIG(status)));
		print_report(report);
	}
	ua_space_use(NULL);
	ua_space_destroy(sp);
}

int main(void)
{
	struct ua_space *sp;
	const char *env = getenv("UA_PROTECT");

	run(UA_PROTECT_NONE);
	run(UA_PROTECT_MPROTECT);
	run(UA_PROTECT_PKEY);

	sp = ua_space_create(1 << 20, NULL);
	if (!sp) {
		perror("ua_space_create");
		return 1;
	}
	printf("UA_PROTECT=%s: a default space uses %s\n", env ? env : "",
	       ua_protect_name(ua_space_protect(sp)));
	ua_space_destroy(sp);
	return 0;
}
