// SPDX-License-Identifier: MIT
/*
 * Signals as a libc uses them; run natively and under uarun, the output
 * and the end must be the same.  "abort" as argument: ends in abort().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <ucontext.h>
#endif

static volatile sig_atomic_t hits, last_sig;
static volatile int values[8], nvalues;

static void on_sig(int sig)
{
	hits++;
	last_sig = sig;
}

static void on_info(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	last_sig = sig;
	if (nvalues < 8)
		values[nvalues++] = si->si_value.sival_int;
	if (si->si_code != SI_QUEUE)
		values[0] = -1;
}

/* fn with SA_SIGINFO and nothing else, for each of sigs (0-ended). */
static void install_si(void (*fn)(int, siginfo_t *, void *), const int *sigs)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO;
	for (; *sigs; sigs++)
		sigaction(*sigs, &sa, NULL);
}

static void install(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static void test_handler(void)
{
	hits = 0;
	install(SIGUSR1, on_sig, 0);
	raise(SIGUSR1);
	kill(getpid(), SIGUSR1);
	printf("handler: hits=%d sig=%d\n", (int)hits, (int)last_sig);
}

static void test_siginfo_queue(void)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_info;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGRTMIN + 1, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN + 1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (int i = 1; i <= 3; i++)
		sigqueue(getpid(), SIGRTMIN + 1,
			 (union sigval){ .sival_int = i * 10 });
	printf("queued: delivered before unblock=%d\n", nvalues);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	printf("queued: n=%d values=%d,%d,%d\n", nvalues, values[0],
	       values[1], values[2]);
}

static void test_pending(void)
{
	sigset_t set, pend;

	hits = 0;
	install(SIGUSR2, on_sig, 0);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	raise(SIGUSR2);
	raise(SIGUSR2);
	sigpending(&pend);
	printf("pending: member=%d hits=%d\n", sigismember(&pend, SIGUSR2),
	       (int)hits);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	printf("pending: after unblock hits=%d\n", (int)hits);
}

static char altstack[65536];
static volatile int on_alt;

static void on_alt_sig(int sig)
{
	char here;

	(void)sig;
	on_alt = &here >= altstack && &here < altstack + sizeof(altstack);
}

static void test_altstack(void)
{
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) }, old;

	sigaltstack(&ss, NULL);
	install(SIGUSR1, on_alt_sig, SA_ONSTACK);
	raise(SIGUSR1);
	sigaltstack(NULL, &old);
	printf("altstack: on=%d flags=%d size=%zu\n", (int)on_alt,
	       old.ss_flags, old.ss_size);
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
}

static void test_resethand(void)
{
	struct sigaction cur;

	hits = 0;
	install(SIGUSR1, on_sig, SA_RESETHAND);
	raise(SIGUSR1);
	sigaction(SIGUSR1, NULL, &cur);
	printf("resethand: hits=%d dfl=%d\n", (int)hits,
	       cur.sa_handler == SIG_DFL);
}

#ifdef __GLIBC__
static ucontext_t main_uc, co_uc;
static char co_stack[65536];

static void coroutine(int n)
{
	for (int i = 0; i < n; i++) {
		printf("swapcontext: coroutine %d\n", i);
		swapcontext(&co_uc, &main_uc);
	}
}

static void test_swapcontext(void)
{
	getcontext(&co_uc);
	co_uc.uc_stack.ss_sp = co_stack;
	co_uc.uc_stack.ss_size = sizeof(co_stack);
	co_uc.uc_link = &main_uc;
	makecontext(&co_uc, (void (*)(void))coroutine, 1, 2);
	for (int i = 0; i < 3; i++) {
		swapcontext(&main_uc, &co_uc);
		printf("swapcontext: main %d\n", i);
	}
}
#endif

static char *volatile page;
static volatile int segv_hits;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	segv_hits++;
	if ((char *)si->si_addr >= page && (char *)si->si_addr < page + 4096)
		mprotect(page, 4096, PROT_READ | PROT_WRITE);
	else
		_exit(99);
}

static void test_segv_retry(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	page[100] = 7;
	printf("segv: hits=%d value=%d\n", segv_hits, page[100]);
	munmap(page, 4096);
}

static sigjmp_buf fpe_jmp;

static void on_fpe(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	last_sig = sig;
	values[0] = si->si_code;
	siglongjmp(fpe_jmp, 1);
}

static void test_fpe(void)
{
	struct sigaction sa;
	volatile int zero = 0, r = 1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fpe;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGFPE, &sa, NULL);
	if (!sigsetjmp(fpe_jmp, 1))
		r = r / zero;
	printf("fpe: sig=%d code=%d\n", (int)last_sig, values[0]);
	/* The mask came back with siglongjmp: a second one works too. */
	if (!sigsetjmp(fpe_jmp, 1))
		r = r / zero;
	printf("fpe: again sig=%d r=%d\n", (int)last_sig, r);
}

static void test_itimer_pause(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 20000 } };

	hits = 0;
	install(SIGALRM, on_sig, 0);
	setitimer(ITIMER_REAL, &it, NULL);
	pause();
	printf("itimer+pause: hits=%d sig=%d\n", (int)hits, (int)last_sig);
}

static void test_sigsuspend(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 20000 } };
	sigset_t block, empty;

	hits = 0;
	install(SIGALRM, on_sig, 0);
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	sigprocmask(SIG_BLOCK, &block, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	sigemptyset(&empty);
	int r = sigsuspend(&empty);
	printf("sigsuspend: r=%d errno=%s hits=%d\n", r,
	       errno == EINTR ? "EINTR" : "?", (int)hits);
	sigprocmask(SIG_UNBLOCK, &block, NULL);
}

static void test_sigtimedwait(void)
{
	struct timespec ts = { 0, 10000000 };
	sigset_t set;
	siginfo_t si;
	int r;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	r = sigtimedwait(&set, &si, &ts);
	printf("sigtimedwait: empty r=%d errno=%s\n", r,
	       errno == EAGAIN ? "EAGAIN" : "?");
	raise(SIGUSR1);
	r = sigtimedwait(&set, &si, &ts);
	printf("sigtimedwait: r=%d signo=%d code_tkill=%d\n", r, si.si_signo,
	       si.si_code == SI_TKILL || si.si_code == SI_USER);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/*
 * Self-sent signals in rounds: under --trap=rewrite the later rounds go
 * through rewritten sites, where the monitor delivers a signal a task
 * sends itself and reads its rt_sigreturn without leaving the guest's FS
 * base (src/signal/fast.c).  Each round covers what that path takes and
 * what it must leave to the full path, and prints what the handler saw.
 */
#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31) /* uapi/linux/signal.h */
#endif

static volatile int fs_code, fs_pid_ok, fs_uid_ok, fs_mask, fs_depth,
	fs_max_depth, fs_alt, fs_alt_flags;
static volatile unsigned int fs_mxcsr, fs_fcw;
static volatile long fs_alt_size;

static unsigned int get_mxcsr(void)
{
	unsigned int v;

	__asm__ volatile("stmxcsr %0" : "=m"(v));
	return v;
}

static unsigned int get_fcw(void)
{
	unsigned short v;

	__asm__ volatile("fnstcw %0" : "=m"(v));
	return v;
}

static void set_fp_ctl(unsigned int mxcsr, unsigned short fcw)
{
	__asm__ volatile("ldmxcsr %0" : : "m"(mxcsr));
	__asm__ volatile("fldcw %0" : : "m"(fcw));
}

static void on_fast(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	sigset_t cur;
	char here;

	fs_code = si->si_code;
	fs_pid_ok = si->si_pid == getpid();
	fs_uid_ok = si->si_uid == getuid();
	fs_mxcsr = get_mxcsr();
	fs_fcw = get_fcw();
	sigprocmask(SIG_BLOCK, NULL, &cur);
	fs_mask = sigismember(&cur, SIGUSR1) | sigismember(&cur, SIGUSR2) << 1 |
		  sigismember(&cur, SIGWINCH) << 2;
	fs_alt = &here >= altstack && &here < altstack + sizeof(altstack);
	fs_alt_flags = uc->uc_stack.ss_flags;
	fs_alt_size = (long)uc->uc_stack.ss_size;
	if (++fs_depth > fs_max_depth)
		fs_max_depth = fs_depth;
	/* SA_NODEFER: one nested delivery on top of this frame. */
	if (fs_depth == 1 && sig == SIGWINCH)
		raise(SIGWINCH);
	fs_depth--;
#ifdef __GLIBC__
	/* glibc's raise() returns what tgkill left in RAX: the frame's. */
	if (sig == SIGUSR2)
		uc->uc_mcontext.gregs[REG_RAX] = -EPERM;
#endif
}

static void install_info(int sig, int flags, int masked)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fast;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	if (masked)
		sigaddset(&sa.sa_mask, masked);
	sigaction(sig, &sa, NULL);
}

static void print_fast(const char *what, int r)
{
	printf("%s: r=%d code=%d pid=%d uid=%d mxcsr=%#x fcw=%#x mask=%d "
	       "depth=%d alt=%d/%d/%ld\n",
	       what, r, fs_code, fs_pid_ok, fs_uid_ok, fs_mxcsr, fs_fcw,
	       fs_mask, fs_max_depth, fs_alt, fs_alt_flags, fs_alt_size);
	fs_max_depth = fs_alt = 0;
}

static void test_self_signal_rounds(void)
{
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	sigset_t set;
	int r;

	for (int round = 0; round < 3; round++) {
		printf("round %d\n", round);
		/* Non-default control words: the handler gets the defaults,
		 * the interrupted code its own back. */
		install_info(SIGUSR1, 0, SIGUSR2);
		set_fp_ctl(0x7f80 | 0x8000, 0x0f7f);
		r = raise(SIGUSR1);
		printf("after: mxcsr=%#x fcw=%#x\n", get_mxcsr(), get_fcw());
		set_fp_ctl(0x1f80, 0x037f);
		print_fast("raise", r);
		r = kill(getpid(), SIGUSR1);
		print_fast("kill", r);
		/* The handler's RAX in the frame comes back as the result. */
		install_info(SIGUSR2, 0, 0);
		errno = 0;
		r = raise(SIGUSR2);
		print_fast("rax", r == 0 ? 0 : errno);
		/* A nested delivery (SA_NODEFER). */
		install_info(SIGWINCH, SA_NODEFER, 0);
		r = raise(SIGWINCH);
		print_fast("nodefer", r);
		/* On the altstack, and its SS_AUTODISARM variant. */
		ss.ss_flags = 0;
		sigaltstack(&ss, NULL);
		install_info(SIGUSR1, SA_ONSTACK, 0);
		r = raise(SIGUSR1);
		print_fast("onstack", r);
		ss.ss_flags = (int)SS_AUTODISARM;
		if (sigaltstack(&ss, NULL) == 0) {
			r = raise(SIGUSR1);
			print_fast("autodisarm", r);
		}
		ss.ss_flags = SS_DISABLE;
		sigaltstack(&ss, NULL);
		/* Blocked: pending until the mask lets it through. */
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		install_info(SIGUSR1, 0, 0);
		fs_code = -1;
		sigprocmask(SIG_BLOCK, &set, NULL);
		r = raise(SIGUSR1);
		printf("blocked: r=%d code=%d\n", r, fs_code);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		print_fast("unblocked", r);
		/* Ignored and default-ignored: nothing runs. */
		signal(SIGUSR1, SIG_IGN);
		signal(SIGWINCH, SIG_DFL);
		fs_code = -1;
		printf("ignored: r=%d r=%d code=%d\n", raise(SIGUSR1),
		       raise(SIGWINCH), fs_code);
		/* SA_RESETHAND: the second one finds the default (ignore). */
		hits = 0;
		install(SIGURG, on_sig, SA_RESETHAND);
		raise(SIGURG);
		raise(SIGURG);
		printf("resethand: hits=%d\n", (int)hits);
	}
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
}

/*
 * The signal mask through raw rt_sigprocmask calls, in rounds: under
 * --trap=rewrite the later rounds come through rewritten sites, where
 * the monitor answers rt_sigprocmask, queues a blocked signal a task
 * sends itself and delivers what a new mask lets through without leaving
 * the guest's FS base (src/signal/fast.c); the first round goes the full
 * way.  The handler logs each delivery: signal and si_code.
 */
static volatile int mlog[16], nmlog;

static void on_mask(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (nmlog < 15) {
		mlog[nmlog++] = sig;
		mlog[nmlog++] = si->si_code;
	}
}

static long mask_call(int how, const uint64_t *set, uint64_t *old,
		      size_t size)
{
	long r = syscall(SYS_rt_sigprocmask, how, set, old, size);

	return r ? -errno : 0;
}

static void print_mlog(const char *what)
{
	printf("%s:", what);
	for (int i = 0; i < nmlog; i += 2)
		printf(" %d/%d", mlog[i], mlog[i + 1]);
	printf("\n");
	nmlog = 0;
}

#define MBIT(sig) (1ull << ((sig) - 1))

static void test_mask_rounds(void)
{
	uint64_t set, old, cur, pend;
	int rt = SIGRTMIN + 2;
	void *none_page = mmap(NULL, 4096, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const int sigs[] = { SIGUSR1, SIGUSR2, rt, 0 };

	install_si(on_mask, sigs);
	for (int round = 0; round < 3; round++) {
		printf("mask round %d\n", round);
		/* Blocked: queued (standard signals once), then delivered
		 * lowest first when the old mask comes back. */
		set = MBIT(SIGUSR1) | MBIT(SIGUSR2) | MBIT(SIGWINCH) | MBIT(rt);
		printf("block: %ld\n", mask_call(SIG_BLOCK, &set, &old, 8));
		syscall(SYS_tkill, (long)syscall(SYS_gettid), SIGUSR2);
		syscall(SYS_tkill, (long)syscall(SYS_gettid), SIGUSR2);
		syscall(SYS_tgkill, getpid(), (long)syscall(SYS_gettid),
			SIGUSR1);
		syscall(SYS_tgkill, getpid(), (long)syscall(SYS_gettid),
			SIGWINCH);
		syscall(SYS_tkill, (long)syscall(SYS_gettid), rt);
		syscall(SYS_tkill, (long)syscall(SYS_gettid), rt);
		syscall(SYS_rt_sigpending, &pend, 8);
		printf("pending: %d %d %d %d\n", !!(pend & MBIT(SIGUSR1)),
		       !!(pend & MBIT(SIGUSR2)), !!(pend & MBIT(SIGWINCH)),
		       !!(pend & MBIT(rt)));
		print_mlog("while blocked");
		printf("setmask: %ld\n", mask_call(SIG_SETMASK, &old, NULL, 8));
		/* SIGWINCH's default is to ignore it: nothing runs. */
		print_mlog("unblocked");
		/* One at a time, through SIG_UNBLOCK; kill() alone, as the
		 * engine has no process-wide queue (doc/signals.md). */
		set = MBIT(SIGUSR2);
		mask_call(SIG_BLOCK, &set, NULL, 8);
		raise(SIGUSR2);
		print_mlog("raise blocked");
		printf("unblock: %ld\n", mask_call(SIG_UNBLOCK, &set, NULL, 8));
		print_mlog("raise unblocked");
		set = MBIT(SIGUSR1);
		mask_call(SIG_BLOCK, &set, NULL, 8);
		kill(getpid(), SIGUSR1);
		kill(getpid(), SIGUSR1);
		mask_call(SIG_UNBLOCK, &set, NULL, 8);
		print_mlog("kill unblocked");
		set = MBIT(SIGUSR2);
		/* Errors: the mask is unchanged, except when the old one
		 * cannot be written (the new one is set first). */
		printf("bad how: %ld\n", mask_call(99, &set, NULL, 8));
		printf("bad size: %ld\n", mask_call(SIG_BLOCK, &set, NULL, 4));
		printf("bad set: %ld\n",
		       mask_call(SIG_BLOCK, (uint64_t *)8, NULL, 8));
		printf("bad old: %ld\n",
		       mask_call(SIG_BLOCK, &set, (uint64_t *)8, 8));
		mask_call(SIG_BLOCK, NULL, &cur, 8);
		printf("mask: %d\n", (cur & MBIT(SIGUSR2)) != 0);
		/* A signal the faulting call let through still arrives. */
		raise(SIGUSR2);
		printf("bad old unblock: %ld\n",
		       mask_call(SIG_UNBLOCK, &set, (uint64_t *)8, 8));
		print_mlog("after bad old");
		/* The same with pointers into mapped memory that faults
		 * (under uarun: inside the space, so the fast path's own
		 * accessors meet the fault). */
		printf("unmapped set: %ld\n",
		       mask_call(SIG_BLOCK, (uint64_t *)none_page, NULL, 8));
		printf("unmapped old: %ld\n",
		       mask_call(SIG_BLOCK, &set, (uint64_t *)none_page, 8));
		mask_call(SIG_BLOCK, NULL, &cur, 8);
		printf("mask: %d\n", (cur & MBIT(SIGUSR2)) != 0);
		raise(SIGUSR2);
		printf("unmapped old unblock: %ld\n",
		       mask_call(SIG_UNBLOCK, &set, (uint64_t *)none_page, 8));
		print_mlog("after unmapped old");
		/* Query only: a bad how is not looked at. */
		printf("query: %ld\n", mask_call(99, NULL, &cur, 8));
	}
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
	signal(rt, SIG_DFL);
}

/*
 * raise() in a loop while an interval timer fires: the timer's monitor
 * thread queues SIGALRM while the task queues and takes SIGUSR1, under
 * --trap=rewrite mostly on the fast path (musl's raise() is three calls
 * there).  Every raise must run its handler exactly once.  (It found a
 * race in the signal entry stub, trap.S: an interrupt between a SIGSYS
 * handler's redirect and its wrapper's return took the redirect for its
 * own, and the monitor resumed on the guest's FS base.)
 */
static volatile long n_usr1, n_alrm;

static void on_usr1(int sig)
{
	(void)sig;
	n_usr1++;
}

static void on_alrm(int sig)
{
	(void)sig;
	n_alrm++;
}

static void itimer_raise(void)
{
	/* Well above the slowest round trip (mprotect, per-access, on a
	 * loaded machine: 10-30 ms), which every alarm adds to. */
	struct itimerval it = { { 0, 50000 }, { 0, 50000 } };
	long i;

	install(SIGUSR1, on_usr1, 0);
	install(SIGALRM, on_alrm, SA_RESTART);
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < 100 || n_alrm < 2; i++)
		raise(SIGUSR1);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	printf("raise with itimer: each once %d, alarms %d\n", n_usr1 == i,
	       n_alrm >= 2);
}

static void *volatile bad_fp;

static void on_bad_fp(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)si;
	hits++;
	if (sig == SIGUSR2)
		uc->uc_mcontext.fpregs = bad_fp;
}

/*
 * Frames that cannot be built or read, after two good rounds (so that
 * under --trap=rewrite the last one comes through rewritten sites): the
 * task dies of SIGSEGV.  "stack": the altstack is an inaccessible page;
 * "fp": the handler points its frame's FP area at one.
 */
static void bad_frame(const char *how)
{
	void *page = mmap(NULL, 65536, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	stack_t ss = { .ss_sp = page, .ss_size = 65536 };
	const int sigs[] = { SIGUSR1, SIGUSR2, 0 };
	struct sigaction sa;

	install_si(on_bad_fp, sigs);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_bad_fp;
	sa.sa_flags = SA_SIGINFO;
	for (int i = 0; i < 2; i++)
		raise(SIGUSR1);
	printf("bad %s: hits=%d\n", how, (int)hits);
	if (!strcmp(how, "stack")) {
		sigaltstack(&ss, NULL);
		sa.sa_flags |= SA_ONSTACK;
		sigaction(SIGUSR1, &sa, NULL);
		raise(SIGUSR1);
	} else {
		bad_fp = page;
		raise(SIGUSR2);
	}
	printf("bad %s: survived hits=%d\n", how, (int)hits);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && !strcmp(argv[1], "abort")) {
		printf("aborting\n");
		abort();
	}
	/* Each handler runs at the exit of raise's kill syscall: under
	 * --trap=rewrite the 2nd and 3rd through a rewritten site. */
	if (argc > 1 && !strcmp(argv[1], "raise")) {
		install(SIGUSR1, on_sig, 0);
		for (int i = 0; i < 3; i++) {
			raise(SIGUSR1);
			printf("raise %d: hits=%d sig=%d\n", i, (int)hits,
			       (int)last_sig);
		}
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "itimer_raise")) {
		itimer_raise();
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "badframe")) {
		bad_frame(argv[2]);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "segv")) {
		printf("crashing\n");
		*(volatile int *)8 = 1;
	}
	test_handler();
	test_siginfo_queue();
	test_pending();
	test_altstack();
	test_resethand();
#ifdef __GLIBC__
	test_swapcontext();
#else
	for (int i = 0; i < 2; i++)
		printf("swapcontext: coroutine %d\nswapcontext: main %d\n", i,
		       i);
	printf("swapcontext: main 2\n");
#endif
	test_segv_retry();
	test_fpe();
	test_itimer_pause();
	test_sigsuspend();
	test_sigtimedwait();
	test_self_signal_rounds();
	test_mask_rounds();
	printf("done\n");
	return 0;
}
