// SPDX-License-Identifier: MIT
/*
 * Window discipline checks.  A library built with -Ddebug_windows=true
 * checks every unsafe access and every begin/end at run time; a program
 * can turn the checks on for its own code by defining UA_DEBUG_WINDOWS to
 * 1 before including <uaccess.h>, as this file does.  Each misuse below
 * runs in a child process, which the check stops with a report naming the
 * file and line of the mistake (and of the begin it relates to).
 *
 *   cc debug_windows.c $(pkg-config --cflags --libs uaccess)
 */
#define UA_DEBUG_WINDOWS 1
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uaccess.h>

static char *g; /* a mapped guest page */

static void correct(void)
{
	uint32_t v = 0;

	if (!ua_user_read_access_begin(g, sizeof(v)))
		return;
	ua_unsafe_get_user(v, (uint32_t *)g, out);
out:
	ua_user_read_access_end();
}

static void access_outside_window(void)
{
	uint32_t v;

	ua_unsafe_get_user(v, (uint32_t *)g, out);
	(void)v;
out:
	return;
}

static void outside_the_range(void)
{
	uint64_t v;

	if (!ua_user_read_access_begin(g, 4))
		return;
	ua_unsafe_get_user(v, (uint64_t *)g, out); /* 8 bytes, 4 opened */
	(void)v;
out:
	ua_user_read_access_end();
}

static void write_in_read_window(void)
{
	if (!ua_user_read_access_begin(g, 4))
		return;
	ua_unsafe_put_user(1, (uint32_t *)g, out);
out:
	ua_user_read_access_end();
}

static void nested_begin(void)
{
	if (!ua_user_read_access_begin(g, 4))
		return;
	if (ua_user_write_access_begin(g + 8, 4))
		ua_user_write_access_end();
	ua_user_read_access_end();
}

static void end_without_begin(void)
{
	ua_user_write_access_end();
}

static void mismatched_end(void)
{
	if (!ua_user_write_access_begin(g, 4))
		return;
	ua_user_read_access_end();
}

/*
 * Print the report's first line with the directory part of file names
 * and the addresses taken out, so the output does not depend on where
 * the file was built.
 */
static void print_report(char *r)
{
	char *nl = strchr(r, '\n'), *p;

	if (nl)
		*nl = 0;
	while ((p = strstr(r, "/debug_windows.c"))) {
		char *start = p;

		while (start > r && start[-1] != ' ' && start[-1] != '\n')
			start--;
		memmove(start, p + 1, strlen(p + 1) + 1);
	}
	while ((p = strstr(r, "0x"))) {
		size_t hex = 2 + strspn(p + 2, "0123456789abcdef");

		memmove(p + 4, p + hex, strlen(p + hex) + 1);
		memcpy(p, "ADDR", 4);
	}
	printf("  %s\n", r);
}

static void try(const char *name, void (*fn)(void))
{
	char report[4096];
	int fds[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	printf("%s:\n", name);
	if (pipe(fds))
		exit(1);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 2);
		fn();
		_exit(0);
	}
	close(fds[1]);
	while ((n = read(fds[0], report + got, sizeof(report) - 1 -
					       (size_t)got)) > 0)
		got += n;
	report[got] = 0;
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (WIFEXITED(status)) {
		printf("  ok\n");
		return;
	}
	print_report(report);
	printf("  (child killed by %s)\n",
	       WTERMSIG(status) == SIGABRT ? "SIGABRT" : "another signal");
}

int main(void)
{
	struct ua_space *sp = ua_space_create(1 << 20, NULL);

	if (!sp) {
		perror("ua_space_create");
		return 1;
	}
	ua_space_use(sp);
	g = ua_map(sp, NULL, 4096, PROT_READ | PROT_WRITE);
	if (!g)
		return 1;
	try("correct use", correct);
	try("unsafe access with no window", access_outside_window);
	try("access beyond the range given to begin", outside_the_range);
	try("store in a read window", write_in_read_window);
	try("begin inside an open window", nested_begin);
	try("end without begin", end_without_begin);
	try("write window closed as a read window", mismatched_end);
	ua_space_use(NULL);
	ua_space_destroy(sp);
	return 0;
}
