// SPDX-License-Identifier: MIT
/*
 * The two ways to run a body of the signal suites: on the host under
 * real signals, or as guest code of an engine task.
 */
#include <cpuid.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tsig.h"

struct t_entry t_entry;
t_handler_fn t_handlers[65];
struct t_regs t_landed;
uint64_t t_redir_save[2];
const struct t_ops *ops;
struct t_run *t_cur;

unsigned char t_have_xsave;
bool t_have_pkru;
uint32_t t_pkru_off;
int t_host_fresh_ss_flags;

static uint64_t xcr0(void)
{
	uint32_t lo, hi;

	asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

uint32_t t_xstate_size(void)
{
	unsigned int a, b, c, d;
	uint64_t feat;
	uint32_t size = 576;

	if (!t_have_xsave)
		return 512;
	feat = xcr0() & ~(1ull << 18);
	for (int i = 2; i < 63; i++) {
		if (!(feat & (1ull << i)))
			continue;
		__cpuid_count(0xd, i, a, b, c, d);
		if (!(c & 1) && a + b > size)
			size = a + b;
	}
	return size;
}

uint32_t t_fpu_frame_size(void)
{
	return t_have_xsave ? t_xstate_size() + 4 : 512;
}

uint32_t t_rdpkru(void)
{
	uint32_t eax, edx;

	if (!t_have_pkru)
		return 0;
	asm volatile(".byte 0x0f, 0x01, 0xee" : "=a"(eax), "=d"(edx) : "c"(0));
	return eax;
}

void t_wrpkru(uint32_t v)
{
	if (t_have_pkru)
		asm volatile(".byte 0x0f, 0x01, 0xef"
			     :
			     : "a"(v), "c"(0), "d"(0)
			     : "memory");
}

static void fresh_handler(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	(void)si;
	t_host_fresh_ss_flags = ((ucontext_t *)ucv)->uc_stack.ss_flags;
}

/* Before anything in the process sets an altstack or a handler. */
__attribute__((constructor)) static void tsig_machine(void)
{
	unsigned int a, b, c, d;
	struct sigaction sa, old;
	sigset_t usr2, mask;

	__cpuid(1, a, b, c, d);
	t_have_xsave = (c >> 27) & 1;
	if (t_have_xsave && __get_cpuid_max(0, NULL) >= 7) {
		__cpuid_count(7, 0, a, b, c, d);
		t_have_pkru = (c & (1u << 4)) && (xcr0() & (1u << 9));
	}
	if (t_have_pkru) {
		__cpuid_count(0xd, 9, a, b, c, d);
		t_pkru_off = b;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fresh_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR2, &sa, &old);
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	sigprocmask(SIG_UNBLOCK, &usr2, &mask);
	raise(SIGUSR2);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	sigaction(SIGUSR2, &old, NULL);
}

/* The ids a raise names: this thread or this task. */
static pid_t run_pid, run_tid;

/* ---- host ops ---- */

static int host_sigprocmask(int how, const sigset_t *set, sigset_t *oset)
{
	/* The raw call: glibc's wrapper edits sets that name its own
	 * signals; the suites compare the kernel's 64-bit mask. */
	uint64_t s = set ? t_sigset64(set) : 0, o = 0;
	long r = syscall(SYS_rt_sigprocmask, how, set ? &s : NULL,
			 oset ? &o : NULL, 8);

	if (!r && oset)
		t_sigset_from64(oset, o);
	return (int)r;
}

static pid_t host_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

const struct t_ops t_host_ops = {
	.name = "host",
	.engine = false,
	.tgkill = t_host_tgkill,
	.tgkill_df = t_host_tgkill_df,
	.kill = t_host_kill,
	.sigaction = sigaction,
	.sigprocmask = host_sigprocmask,
	.sigaltstack = sigaltstack,
	.sigsuspend = sigsuspend,
	.sigpending = sigpending,
	.getpid = getpid,
	.gettid = host_gettid,
	.exit = _exit,
};

/* ---- engine ops ---- */

const struct t_ops t_eng_ops = {
	.name = "engine",
	.engine = true,
	.tgkill = t_eng_tgkill,
	.tgkill_df = t_eng_tgkill_df,
	.kill = t_eng_kill,
	.sigaction = ua_sys_sigaction,
	.sigprocmask = ua_sys_sigprocmask,
	.sigaltstack = ua_sys_sigaltstack,
	.sigsuspend = ua_sys_sigsuspend,
	.sigpending = ua_sys_sigpending,
	.getpid = ua_sys_getpid,
	.gettid = ua_sys_gettid,
	.exit = ua_sys_exit,
};

long t_stub_pid(void)
{
	return run_pid;
}

long t_stub_tid(void)
{
	return run_tid;
}

void *t_raise_stub(void)
{
	return (void *)ops->tgkill;
}

long t_raise(int sig)
{
	return ops->tgkill(run_pid, run_tid, sig);
}

/* What glibc's sigqueue() puts in. */
static void queue_info(siginfo_t *info, int sig, int value)
{
	memset(info, 0, sizeof(*info));
	info->si_signo = sig;
	info->si_code = SI_QUEUE;
	info->si_pid = run_pid;
	info->si_uid = getuid();
	info->si_value.sival_int = value;
}

static void *queue_stub(void)
{
	return ops->engine ? (void *)t_eng_sigqueue : (void *)t_host_sigqueue;
}

long t_queue(int sig, int value)
{
	siginfo_t info;

	queue_info(&info, sig, value);
	return ((long (*)(long, long, long, siginfo_t *))queue_stub())(
		run_pid, run_tid, sig, &info);
}

long t_raise_aligned(int sig, long below)
{
	return t_call_aligned((void *)ops->tgkill, run_pid, run_tid, sig, 0,
			      below);
}

long t_queue_aligned(int sig, int value, long below)
{
	siginfo_t info;

	queue_info(&info, sig, value);
	return t_call_aligned(queue_stub(), run_pid, run_tid, sig,
			      (long)&info, below);
}

long t_kill_aligned(int sig, long below)
{
	return t_call_aligned((void *)ops->kill, run_pid, sig, 0, 0, below);
}

uint64_t t_sigset64(const sigset_t *s)
{
	uint64_t m;

	memcpy(&m, s, 8);
	return m;
}

void t_sigset_from64(sigset_t *s, uint64_t m)
{
	sigemptyset(s);
	memcpy(s, &m, 8);
}

int t_install(int sig, t_handler_fn fn, int flags, uint64_t mask)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	t_handlers[sig] = fn;
	sa.sa_sigaction = t_tramp;
	sa.sa_flags = flags | SA_SIGINFO;
	t_sigset_from64(&sa.sa_mask, mask);
	return ops->sigaction(sig, &sa, NULL);
}

void t_setmask(uint64_t mask)
{
	sigset_t s;

	t_sigset_from64(&s, mask);
	ops->sigprocmask(SIG_SETMASK, &s, NULL);
}

uint64_t t_getmask(void)
{
	sigset_t s;

	sigemptyset(&s);
	ops->sigprocmask(SIG_BLOCK, NULL, &s);
	return t_sigset64(&s);
}

enum ua_frame_mode t_frame_mode(void)
{
	const char *v = getenv("UA_FRAME_MODE");

	return v && !strcmp(v, "per-access") ? UA_FRAME_PER_ACCESS :
					       UA_FRAME_BLOCK;
}

/* ---- running ---- */

struct host_saved {
	struct sigaction act[65];
	sigset_t mask;
	stack_t alt;
};

static bool host_sig_ok(int sig)
{
	return sig != SIGKILL && sig != SIGSTOP && (sig < 32 || sig >= SIGRTMIN);
}

static void host_save(struct host_saved *s)
{
	for (int sig = 1; sig <= 64; sig++)
		if (host_sig_ok(sig))
			sigaction(sig, NULL, &s->act[sig]);
	sigprocmask(SIG_BLOCK, NULL, &s->mask);
	sigaltstack(NULL, &s->alt);
}

static void host_restore(const struct host_saved *s)
{
	stack_t alt = s->alt;

	sigprocmask(SIG_SETMASK, &s->mask, NULL);
	for (int sig = 1; sig <= 64; sig++)
		if (host_sig_ok(sig))
			sigaction(sig, &s->act[sig], NULL);
	if (alt.ss_flags & SS_DISABLE)
		alt.ss_size = 0;
	alt.ss_flags &= ~SS_ONSTACK;
	sigaltstack(&alt, NULL);
	t_set_fpctl(MXCSR_DEFAULT, FCW_DEFAULT);
}

static void host_prepare(struct t_run *r, t_body body)
{
	stack_t off = { .ss_flags = SS_DISABLE };

	(void)body;
	ops = &t_host_ops;
	t_cur = r;
	run_pid = getpid();
	run_tid = host_gettid();
	/* Start as a fresh task does: no altstack, nothing blocked. */
	sigaltstack(&off, NULL);
	t_setmask(0);
}

/* T_MEM bytes with an unmapped page after them. */
static char *host_mem(void)
{
	char *p = mmap(NULL, T_MEM + 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert_neq(p, MAP_FAILED);
	munmap(p + T_MEM, 4096);
	return p;
}

int t_run_host(t_body body, void *arg)
{
	static struct host_saved saved;
	struct t_run r = { .arg = arg, .body = body };

	r.mem = host_mem();
	host_save(&saved);
	host_prepare(&r, body);
	body(&r);
	host_restore(&saved);
	munmap(r.mem, T_MEM);
	t_cur = NULL;
	return 0;
}

int t_run_host_child(t_body body, void *arg)
{
	int status = -1;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct t_run r = { .arg = arg, .body = body };

		struct rlimit core = { 0, 0 };

		setrlimit(RLIMIT_CORE, &core);
		r.mem = host_mem();
		/* Default dispositions, as a fresh process has them (the
		 * library and sanitizers catch faults in this one). */
		for (int sig = 1; sig < 32; sig++)
			if (sig != SIGKILL && sig != SIGSTOP)
				signal(sig, SIG_DFL);
		host_prepare(&r, body);
		body(&r);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	return status;
}

static void guest_main(void *arg)
{
	struct t_run *r = arg;

	r->body(r);
}

int t_run_engine(t_body body, void *arg, ua_syscall_hook_t hook,
		 void *hook_data)
{
	struct ua_task_opts o = { .stack_size = 256 << 10 };
	struct t_run r = { .arg = arg, .body = body, .hook = hook,
			   .hook_data = hook_data };
	int status;

	t_skip_if_unavailable();
	r.sp = ua_space_create((size_t)8 << 20, NULL);
	cr_assert_not_null(r.sp, "ua_space_create: errno %d", errno);
	r.mem = ua_map(r.sp, NULL, T_MEM + 4096, PROT_READ | PROT_WRITE);
	cr_assert_not_null(r.mem);
	/* Too small a gap for the task's stack to land in. */
	cr_assert_eq(ua_unmap(r.sp, r.mem + T_MEM, 4096), 0);
	r.task = ua_task_create(r.sp, guest_main, &r, &o);
	cr_assert_not_null(r.task, "ua_task_create: errno %d", errno);
	if (hook)
		ua_task_set_syscall_hook(r.task, hook, hook_data);
	ops = &t_eng_ops;
	t_cur = &r;
	run_pid = getpid();
	run_tid = ua_task_tid(r.task);
	status = ua_task_run(r.task);
	t_cur = NULL;
	ua_task_destroy(r.task);
	ua_space_destroy(r.sp);
	return status;
}

void t_wait_blocked_in_futex(pid_t tid)
{
	char path[64], buf[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	for (;;) {
		int fd = open(path, O_RDONLY);
		ssize_t n;

		cr_assert_geq(fd, 0, "open %s: errno %d", path, errno);
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		cr_assert_gt(n, 0);
		buf[n] = 0;
		/* "202 0x..." while blocked in futex(2). */
		if (!strncmp(buf, "202 ", 4))
			return;
		sched_yield();
	}
}
