// SPDX-License-Identifier: MIT
/*
 * A tiny sandbox on guest tasks: the monitor gives guest code a stack and
 * an input page inside a space, serves one syscall of its own (a "write"
 * that copies guest bytes out with the checked accessor, as a kernel
 * would), and survives a guest that crashes.
 *
 *   cc task_sandbox.c $(pkg-config --cflags --libs uaccess)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <uaccess.h>

/* The sandbox's own syscall: write(buf, len) to the monitor's stdout. */
#define NR_WRITE 100

static long guest_write(const void *buf, size_t len)
{
	return ua_syscall(NR_WRITE, (long)buf, (long)len, 0, 0, 0);
}

/* Monitor side: runs on syscall entry, the space locked. */
static bool sandbox_syscall(struct ua_task *t, struct ua_pt_regs *regs,
			    void *data)
{
	char buf[256];
	size_t len = regs->rdx;

	(void)t;
	(void)data;
	if (regs->orig_rax != NR_WRITE)
		return false; /* the task layer's own syscalls */
	if (len > sizeof(buf)) {
		regs->rax = (uint64_t)-EINVAL;
		return true;
	}
	/* Guest pointers are never dereferenced: a bad one is -EFAULT. */
	if (ua_copy_from_user(buf, (const void *)regs->rsi, len)) {
		regs->rax = (uint64_t)-EFAULT;
		return true;
	}
	printf("guest says: %.*s\n", (int)len, buf);
	regs->rax = len;
	return true;
}

/* ---- guest code: runs on the task's stack, enters only via syscalls ---- */

struct input {
	int n;
	int values[16];
};

static void guest_sum(void *arg)
{
	const struct input *in = arg; /* guest memory: plain loads are fine */
	char msg[64];
	int sum = 0;

	for (int i = 0; i < in->n; i++)
		sum += in->values[i];
	/* msg is on the task's stack, inside the space. */
	snprintf(msg, sizeof(msg), "the sum is %d", sum);
	guest_write(msg, strlen(msg));
	/*
	 * Pointers outside the space are refused: a wild one, and even this
	 * program's own string literals (they live in the binary, not in
	 * the space).
	 */
	if (guest_write((void *)16, 8) == -EFAULT &&
	    guest_write("literal", 7) == -EFAULT) {
		strcpy(msg, "two bad pointers refused");
		guest_write(msg, strlen(msg));
	}
	ua_sys_exit(sum & 0xff);
}

static void guest_crash(void *arg)
{
	char msg[] = "about to crash"; /* on the stack: in the space */

	(void)arg;
	guest_write(msg, strlen(msg));
	__asm__ volatile("movl $1, (%0)" ::"r"(0L) : "memory");
}

static void report(const char *name, int status)
{
	if (WIFEXITED(status))
		printf("%s: exited with status %d\n", name, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		printf("%s: killed by signal %d%s\n", name, WTERMSIG(status),
		       WCOREDUMP(status) ? " (core)" : "");
}

static int run(struct ua_space *sp, const char *name, void (*fn)(void *),
	       void *arg)
{
	struct ua_task *t = ua_task_create(sp, fn, arg, NULL);
	struct ua_stats st;
	int status;

	if (!t) {
		perror("ua_task_create");
		return -1;
	}
	ua_task_set_syscall_hook(t, sandbox_syscall, NULL);
	ua_stats_reset();
	status = ua_task_run(t);
	ua_stats_get(&st);
	fflush(stdout);
	report(name, status);
	printf("%s: %llu protection switches\n", name,
	       (unsigned long long)st.switches);
	ua_task_destroy(t);
	return status;
}

int main(void)
{
	struct input in = { .n = 5, .values = { 3, 5, 7, 11, 13 } };
	struct ua_space *sp = ua_space_create(4 << 20, NULL);
	struct input *gin;

	if (!sp) {
		perror("ua_space_create");
		return 1;
	}
	/* The input page lives in the space; the monitor fills it. */
	gin = ua_map(sp, NULL, 4096, PROT_READ | PROT_WRITE);
	ua_space_use(sp);
	if (!gin || ua_copy_to_user(gin, &in, sizeof(in))) {
		fprintf(stderr, "cannot set up the input page\n");
		return 1;
	}
	ua_space_use(NULL);
	if (run(sp, "sum", guest_sum, gin) < 0)
		return 1;
	if (run(sp, "crash", guest_crash, NULL) < 0)
		return 1;
	/* The monitor goes on after a crash: the space is still usable. */
	if (run(sp, "sum again", guest_sum, gin) < 0)
		return 1;
	ua_space_destroy(sp);
	return 0;
}
