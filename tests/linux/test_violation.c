// SPDX-License-Identifier: MIT
/*
 * The protection discipline holds while an unmodified program runs: a
 * monitor access to the program's memory outside a window, made at a
 * trapped syscall's entry (where the Linux syscall table runs), is
 * reported and aborts under mprotect and pkey, and goes through under
 * none.  The access is a syscall hook that reads the second write()'s
 * buffer with a plain load, the bug the accessors exist to prevent; with
 * UA_TRAP=rewrite that write comes through a rewritten site.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include <uaccess.h>

#include "tsupport.h"

static const char *busybox(void)
{
	static const char *const paths[] = { "/bin/busybox",
					     "/usr/bin/busybox" };

	for (size_t i = 0; i < 2; i++)
		if (!access(paths[i], X_OK))
			return paths[i];
	return NULL;
}

__attribute__((noinline)) int t_plain_read(const volatile char *p)
{
	return *p;
}

static volatile int seen, writes;

static bool bad_hook(struct ua_task *t, struct ua_pt_regs *r, void *data)
{
	(void)t;
	(void)data;
	if (r->orig_rax == SYS_write && ++writes == 2)
		seen += t_plain_read((const char *)r->rsi);
	return false;
}

/* Child: run two echos with the hook; exits as the guest did. */
static void run_guest(const char *bb)
{
	char *argv[] = { "busybox", "sh", "-c", "echo a; echo b", NULL };
	struct ua_space_opts o = { .addr = (void *)ua_exec_space_addr(bb) };
	struct ua_space *sp = ua_space_create((size_t)1 << 30, &o);
	struct ua_task *t;
	int status;

	if (!sp)
		_exit(90);
	t = ua_task_exec(sp, bb, argv, NULL, NULL);
	if (!t)
		_exit(91);
	ua_task_set_syscall_hook(t, bad_hook, NULL);
	status = ua_task_run(t);
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 92);
}

Test(exec, monitor_access_outside_a_window_in_a_syscall)
{
	const char *bb = busybox();
	const char *prot = getenv("UA_PROTECT");
	char err[8192] = "";
	int pfd[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	if (!bb)
		cr_skip_test("busybox-static is not installed");
	if (t_backend_unavailable())
		cr_skip_test("%s", t_backend_unavailable());
	cr_assert_eq(pipe(pfd), 0);
	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		dup2(pfd[1], 2);
		dup2(open("/dev/null", O_WRONLY), 1);
		run_guest(bb);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], err + got, sizeof(err) - 1 - (size_t)got)) > 0)
		got += n;
	err[got] = 0;
	waitpid(pid, &status, 0);
	if (prot && !strcmp(prot, "none")) {
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			  "status %#x: %s", status, err);
		cr_assert_null(strstr(err, "monitor attempted"), "%s", err);
		return;
	}
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
		  "must abort (status %#x): %s", status, err);
	cr_assert_not_null(strstr(err, "uaccess: monitor attempted to read "
				       "guest address"), "%s", err);
	cr_assert_not_null(strstr(err, "outside an access window"), "%s",
			   err);
	cr_assert_not_null(strstr(err, "t_plain_read"), "%s", err);
}
