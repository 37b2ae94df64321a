// SPDX-License-Identifier: MIT
/*
 * null_count WHAT N: run N iterations of WHAT from guest code of one task,
 * for counting instructions under valgrind --tool=callgrind (doc/tasks.md):
 * the difference between a run of 2N and one of N is N iterations exactly,
 * without start-up, task creation or exit.
 *
 *   nop      ua_sys_nop(), the null syscall round trip
 *   raw      ua_syscall(UA_NR_nop, ...), without the libc-style wrapper
 *   getppid  the host's getppid() system call (user-space side only:
 *            callgrind does not see kernel instructions)
 *   loop     nothing: the loop's own cost
 *
 * The signal layer is linked in (as in the shared library): its check for
 * pending work runs on every syscall exit and belongs in the count.
 *
 * Prints the iterations run and the thread's switch count, and fails when
 * that count is not exact.  UA_PROTECT selects the backend as everywhere.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uaccess.h>

struct job {
	const char *what;
	unsigned long n;
	int bad;
};

static void guest(void *p)
{
	struct job *j = p;
	unsigned long n = j->n;

	if (!strcmp(j->what, "nop")) {
		for (unsigned long i = 0; i < n; i++)
			j->bad |= ua_sys_nop() != 0;
	} else if (!strcmp(j->what, "raw")) {
		for (unsigned long i = 0; i < n; i++)
			j->bad |= ua_syscall(UA_NR_nop, 0, 0, 0, 0, 0) != 0;
	} else if (!strcmp(j->what, "getppid")) {
		for (unsigned long i = 0; i < n; i++)
			j->bad |= getppid() <= 0;
	} else {
		for (unsigned long i = 0; i < n; i++)
			__asm__ volatile("" ::: "memory");
	}
	ua_sys_exit(j->bad);
}

int main(int argc, char **argv)
{
	struct job j = { 0 };
	struct ua_space *sp;
	struct ua_task *t;
	struct ua_stats st;
	unsigned long long want;
	int status;

	/* Pull the signal layer out of the static library. */
	void *volatile sig_layer = (void *)ua_task_kill;

	(void)sig_layer;
	if (argc != 3) {
		fprintf(stderr, "usage: null_count nop|raw|getppid|loop N\n");
		return 2;
	}
	j.what = argv[1];
	j.n = strtoul(argv[2], NULL, 0);
	sp = ua_space_create(1 << 20, NULL);
	if (!sp) {
		perror("ua_space_create");
		return 1;
	}
	t = ua_task_create(sp, guest, &j, NULL);
	if (!t) {
		perror("ua_task_create");
		return 1;
	}
	ua_stats_reset();
	status = ua_task_run(t);
	ua_stats_get(&st);
	ua_task_destroy(t);
	ua_space_destroy(sp);
	printf("%s %lu iterations, status %d, switches %llu\n", j.what, j.n,
	       status, (unsigned long long)st.switches);
	/* Start and exit: 1 each; a null syscall: 2 (lock, unlock). */
	want = 2 + (strcmp(j.what, "nop") && strcmp(j.what, "raw") ? 0 :
								  2 * j.n);
	if (st.switches != want) {
		fprintf(stderr, "null_count: %llu switches, expected %llu\n",
			(unsigned long long)st.switches,
			(unsigned long long)want);
		return 1;
	}
	return status != 0;
}
