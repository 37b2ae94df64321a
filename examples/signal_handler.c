// SPDX-License-Identifier: MIT
/*
 * Signals in a guest task: a handler written for Linux (SA_SIGINFO,
 * siginfo_t, ucontext_t from <signal.h>) runs on a real x86-64
 * rt_sigframe that the engine builds on the guest stack.  The monitor
 * queues a value, the guest raises a signal itself, a handler rewrites
 * the interrupted registers, and the protection switches of one round
 * trip are counted in both frame modes.
 *
 *   cc signal_handler.c $(pkg-config --cflags --libs uaccess)
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uaccess.h>

/* What the guest saw; guest code may write monitor globals directly. */
static struct {
	int sig, code, value, same_pid;
	unsigned long uc_flags, aligned, mask;
} seen[4];
static int nseen;
static long skipped;
static unsigned long long round_trip;

static void handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	char here;

	seen[nseen].sig = sig;
	seen[nseen].code = si->si_code;
	seen[nseen].value = si->si_value.sival_int;
	seen[nseen].same_pid = si->si_pid == getpid();
	seen[nseen].uc_flags = uc->uc_flags;
	seen[nseen].mask = uc->uc_sigmask.__val[0];
	/* The frame sits just above this handler's locals. */
	seen[nseen].aligned = ((unsigned long)uc & 15) == 0 && &here < (char *)uc;
	nseen++;
}

/* SIGUSR2's handler edits the interrupted registers: the ua_sys_raise()
 * it interrupted returns 42 instead of 0. */
static void skipper(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	(void)si;
	uc->uc_mcontext.gregs[REG_RAX] = 42;
}

static void guest(void *arg)
{
	struct sigaction sa;
	struct ua_stats a, b;

	(void)arg;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO;
	sigaddset(&sa.sa_mask, SIGTERM);
	ua_sys_sigaction(SIGUSR1, &sa, NULL);
	ua_sys_sigaction(SIGRTMIN, &sa, NULL);
	sa.sa_sigaction = skipper;
	ua_sys_sigaction(SIGUSR2, &sa, NULL);

	/* The monitor queues SIGRTMIN while it serves this null syscall
	 * (monitor_side below): the handler runs on the way out.  Then a
	 * signal of our own. */
	ua_sys_nop();
	ua_stats_get(&a);
	ua_sys_raise(SIGUSR1);
	ua_stats_get(&b);
	round_trip = b.switches - a.switches;
	skipped = ua_sys_raise(SIGUSR2);
}

/* A syscall hook: monitor code, run on each syscall's entry. */
static bool monitor_side(struct ua_task *t, struct ua_pt_regs *regs,
			 void *data)
{
	(void)data;
	if (regs->orig_rax != UA_NR_nop)
		return false;
	ua_task_sigqueue(t, SIGRTMIN, (union sigval){ .sival_int = 1234 });
	/* Done: without a hook, rt_sigreturn folds its entry into its read
	 * window (a hook runs with the space locked, so it cannot). */
	ua_task_set_syscall_hook(t, NULL, NULL);
	return false; /* and serve the syscall as usual */
}

static int run(enum ua_frame_mode mode, const char *name)
{
	struct ua_task_opts opts = { .frame_mode = mode };
	struct ua_space *sp = ua_space_create(8 << 20, NULL);
	struct ua_task *t = sp ? ua_task_create(sp, guest, NULL, &opts) : NULL;
	int status;

	if (!t) {
		perror("ua_space_create/ua_task_create");
		return 1;
	}

	nseen = 0;
	ua_task_set_syscall_hook(t, monitor_side, NULL);
	status = ua_task_run(t);
	if (WIFEXITED(status))
		printf("%s: task exited with status %d\n", name,
		       WEXITSTATUS(status));
	else
		printf("%s: task killed by signal %d\n", name, WTERMSIG(status));
	for (int i = 0; i < nseen; i++)
		printf("%s: signal %s, si_code %s, value %d, sender is the "
		       "monitor: %s, uc_flags %#lx, frame aligned: %s, "
		       "mask in frame %#lx\n",
		       name, seen[i].sig == SIGUSR1 ? "SIGUSR1" : "SIGRTMIN",
		       seen[i].code == SI_TKILL ? "SI_TKILL" :
		       seen[i].code == SI_QUEUE ? "SI_QUEUE" : "other",
		       seen[i].code == SI_QUEUE ? seen[i].value : 0,
		       seen[i].same_pid ? "yes" : "no", seen[i].uc_flags,
		       seen[i].aligned ? "yes" : "no", seen[i].mask);
	printf("%s: ua_sys_raise(SIGUSR2) returned %ld (the handler set RAX)\n",
	       name, skipped);
	printf("%s: %llu protection switches for raise -> handler -> "
	       "sigreturn\n",
	       name, round_trip);
	ua_task_destroy(t);
	ua_space_destroy(sp);
	return 0;
}

int main(void)
{
	return run(UA_FRAME_BLOCK, "block") ||
	       run(UA_FRAME_PER_ACCESS, "per-access");
}
