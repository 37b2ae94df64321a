// SPDX-License-Identifier: MIT
/*
 * Guest code that gets its signals wrong cannot take the monitor down:
 * a handler that scribbles over its own frame, a guest that overflows its
 * stack (caught by a SIGSEGV handler on an alternate stack), and a
 * restorer that points nowhere.  Each task ends with SIGSEGV or in its
 * own handler; the monitor carries on.
 *
 *   cc signal_crash.c $(pkg-config --cflags --libs uaccess)
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <uaccess.h>

static char *altstack; /* guest memory, mapped by the monitor */

static void scribbler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	/* The saved registers, the FP pointer, the mask: all garbage now. */
	memset(uc, 0xa5, 304);
}

static void scribble(void *arg)
{
	struct sigaction sa = { .sa_sigaction = scribbler,
				.sa_flags = SA_SIGINFO };

	(void)arg;
	ua_sys_sigaction(SIGUSR1, &sa, NULL);
	ua_sys_raise(SIGUSR1);
	ua_sys_exit(0); /* not reached: rt_sigreturn finds a bad frame */
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	/* On the alternate stack: the task's own stack is used up (its
	 * guard page reports SEGV_MAPERR, as the kernel's guard gap). */
	ua_sys_exit(sig == SIGSEGV && si->si_code == SEGV_MAPERR ? 42 : 1);
}

static volatile int limit = 1 << 30; /* far beyond any stack */

static int recurse(int n)
{
	volatile char pad[512];

	pad[0] = (char)n;
	if (n >= limit)
		return 0;
	return recurse(n + 1) + pad[0];
}

static void overflow(void *arg)
{
	struct sigaction sa = { .sa_sigaction = on_segv,
				.sa_flags = SA_SIGINFO | SA_ONSTACK };
	stack_t ss = { .ss_sp = altstack, .ss_size = 65536 };

	(void)arg;
	ua_sys_sigaltstack(&ss, NULL);
	ua_sys_sigaction(SIGSEGV, &sa, NULL);
	recurse(0);
}

static void nowhere(int sig)
{
	(void)sig;
}

static void bad_restorer(void *arg)
{
	struct sigaction sa = { .sa_handler = nowhere };

	(void)arg;
	/* A restorer of our own (SA_RESTORER, glibc's private flag). */
	sa.sa_flags = 0x04000000;
	sa.sa_restorer = (void (*)(void))16;
	ua_sys_sigaction(SIGUSR1, &sa, NULL);
	ua_sys_raise(SIGUSR1);
	ua_sys_exit(0); /* not reached: the handler returns to address 16 */
}

static void run(struct ua_space *sp, const char *name, void (*fn)(void *))
{
	struct ua_task *t = ua_task_create(sp, fn, NULL, NULL);
	int st = ua_task_run(t);

	if (WIFSIGNALED(st))
		printf("%s: killed by signal %d%s\n", name, WTERMSIG(st),
		       WCOREDUMP(st) ? " (core)" : "");
	else
		printf("%s: exited with status %d\n", name, WEXITSTATUS(st));
	ua_task_destroy(t);
}

int main(void)
{
	struct ua_space *sp = ua_space_create(8 << 20, NULL);

	if (!sp) {
		perror("ua_space_create");
		return 1;
	}
	altstack = ua_map(sp, NULL, 65536, PROT_READ | PROT_WRITE);
	run(sp, "scribbled frame", scribble);
	run(sp, "stack overflow", overflow);
	run(sp, "bad restorer", bad_restorer);
	run(sp, "scribbled frame again", scribble);
	printf("the monitor is still here\n");
	ua_space_destroy(sp);
	return 0;
}
