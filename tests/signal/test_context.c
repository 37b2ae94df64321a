// SPDX-License-Identifier: MIT
/*
 * Contexts and frames the guest controls: ua_sys_swapcontext round trips
 * and refusals, rt_sigreturn on garbage, frames that cannot be written,
 * bad restorers.  Whatever the guest puts there, the task ends with
 * SIGSEGV (or its SIGSEGV handler runs) and the monitor carries on with
 * its own memory untouched.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tsig.h"

TestSuite(sig_ctx, .init = t_skip_if_unavailable, .timeout = 60);

static int run(t_body body, void *arg)
{
	return t_run_engine(body, arg, NULL, NULL);
}

/* ---- swapcontext ---- */

static struct {
	int ret, err, back;
	uint32_t other_mxcsr, main_mxcsr;
	uint16_t other_fcw, main_fcw;
	uint64_t other_mask, main_mask;
	long other_align;
	long arg;
	uint64_t saved_fpregs_off, saved_mask;
	uint32_t saved_mxcsr;
	uint64_t rbx_before, rbx_after;
	int res[8];
} sc;

static ucontext_t *ctx_main, *ctx_other;

static void other_fn(long arg)
{
	char here;

	sc.arg = arg;
	sc.other_mxcsr = t_get_mxcsr();
	sc.other_fcw = t_get_fcw();
	sc.other_mask = t_getmask();
	/* Entered as if called, (rsp + 8) % 16 == 0: the frame address is
	 * the entry RSP less the saved RBP. */
	sc.other_align = ((uintptr_t)__builtin_frame_address(0) + 16) % 16;
	(void)here;
	sc.back = 1;
	ua_sys_swapcontext(NULL, ctx_main);
	ua_sys_exit(99); /* not reached */
}

/* A makecontext() of our own: RIP, RSP, one argument, FP and mask. */
static void make_context(ucontext_t *u, void (*fn)(long), long arg,
			 char *stack, size_t size, uint32_t mxcsr, uint16_t fcw,
			 uint64_t mask)
{
	uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;

	memset(u, 0, sizeof(*u));
	u->uc_mcontext.gregs[REG_RIP] = (greg_t)fn;
	/* A return address slot, as after a call: (rsp + 8) % 16 == 0. */
	u->uc_mcontext.gregs[REG_RSP] = (greg_t)(top - 8);
	u->uc_mcontext.gregs[REG_RDI] = arg;
	u->uc_mcontext.gregs[REG_EFL] = 0x202;
	u->uc_mcontext.fpregs = &u->__fpregs_mem;
	u->__fpregs_mem.cwd = fcw;
	u->__fpregs_mem.mxcsr = mxcsr;
	u->__fpregs_mem.mxcr_mask = 0xffff;
	t_sigset_from64(&u->uc_sigmask, mask);
}

static void body_swap(struct t_run *r)
{
	register uint64_t rbx asm("rbx") = 0x5eed5eed5eed5eedull;

	ctx_main = (ucontext_t *)r->mem;
	ctx_other = (ucontext_t *)(r->mem + 4096);
	make_context(ctx_other, other_fn, 0x1234, r->mem + 65536, 65536,
		     MXCSR_TEST, FCW_TEST, BIT(SIGUSR2) | BIT(SIGKILL));
	t_setmask(BIT(SIGHUP));
	asm volatile("" : "+r"(rbx));
	sc.rbx_before = rbx;
	errno = 0;
	sc.ret = ua_sys_swapcontext(ctx_main, ctx_other);
	sc.err = errno;
	asm volatile("" : "+r"(rbx));
	sc.rbx_after = rbx;
	sc.main_mxcsr = t_get_mxcsr();
	sc.main_fcw = t_get_fcw();
	sc.main_mask = t_getmask();
	sc.saved_fpregs_off = (uint64_t)((char *)ctx_main->uc_mcontext.fpregs -
					 (char *)ctx_main);
	sc.saved_mask = t_sigset64(&ctx_main->uc_sigmask);
	sc.saved_mxcsr = ctx_main->__fpregs_mem.mxcsr;
	t_setmask(0);
}

Test(sig_ctx, swapcontext_round_trip)
{
	memset(&sc, 0, sizeof(sc));
	t_assert_status_exit(run(body_swap, NULL), 0);
	cr_expect_eq(sc.back, 1, "the other context ran");
	cr_expect_eq(sc.arg, 0x1234);
	cr_expect_eq(sc.other_mxcsr, MXCSR_TEST);
	cr_expect_eq(sc.other_fcw, FCW_TEST);
	cr_expect_eq(sc.other_mask, BIT(SIGUSR2), "SIGKILL never blocked");
	cr_expect_eq(sc.other_align, 0);
	/* Back in the saved context: swapcontext returned 0 there. */
	cr_expect_eq(sc.ret, 0);
	cr_expect_eq(sc.rbx_after, sc.rbx_before);
	cr_expect_eq(sc.main_mxcsr, MXCSR_DEFAULT);
	cr_expect_eq(sc.main_fcw, FCW_DEFAULT);
	cr_expect_eq(sc.main_mask, BIT(SIGHUP));
	cr_expect_eq(sc.saved_fpregs_off, offsetof(ucontext_t, __fpregs_mem));
	cr_expect_eq(sc.saved_mask, BIT(SIGHUP));
	cr_expect_eq(sc.saved_mxcsr, MXCSR_DEFAULT);
}

static void body_swap_bad(struct t_run *r)
{
	ucontext_t *save = (ucontext_t *)r->mem;
	ucontext_t *bad = (ucontext_t *)(r->mem + 4096);
	int *res = sc.res;

	t_setmask(BIT(SIGHUP));
	t_set_fpctl(MXCSR_TEST, FCW_TEST);
	make_context(bad, other_fn, 1, r->mem + 65536, 65536, MXCSR_DEFAULT,
		     FCW_DEFAULT, BIT(SIGUSR2));
	/* A reserved MXCSR bit: refused, nothing loaded. */
	bad->__fpregs_mem.mxcsr |= 1u << 31;
	errno = 0;
	res[0] = ua_sys_swapcontext(save, bad);
	res[1] = errno;
	/* An FP pointer into nothing. */
	bad->__fpregs_mem.mxcsr = MXCSR_DEFAULT;
	bad->uc_mcontext.fpregs = (fpregset_t)(r->mem + T_MEM);
	errno = 0;
	res[2] = ua_sys_swapcontext(NULL, bad);
	res[3] = errno;
	/* An XSAVE header that XRSTOR would refuse. */
	bad->uc_mcontext.fpregs = (fpregset_t)(r->mem + 16384);
	memcpy(bad->uc_mcontext.fpregs, &bad->__fpregs_mem, 512);
	((uint32_t *)bad->uc_mcontext.fpregs)[464 / 4] = FP_MAGIC1;
	((uint32_t *)bad->uc_mcontext.fpregs)[468 / 4] = 580;
	((uint64_t *)bad->uc_mcontext.fpregs)[472 / 8] = 3;
	((uint32_t *)bad->uc_mcontext.fpregs)[480 / 4] = 576;
	((uint32_t *)bad->uc_mcontext.fpregs)[576 / 4] = FP_MAGIC2;
	((uint64_t *)bad->uc_mcontext.fpregs)[512 / 8] = 3 | (1ull << 62);
	errno = 0;
	res[4] = ua_sys_swapcontext(NULL, bad);
	res[5] = errno;
	/* Only saving is fine. */
	res[6] = ua_sys_swapcontext(save, NULL);
	sc.main_mxcsr = t_get_mxcsr();
	sc.main_fcw = t_get_fcw();
	sc.main_mask = t_getmask();
	sc.saved_mxcsr = save->__fpregs_mem.mxcsr;
	t_set_fpctl(MXCSR_DEFAULT, FCW_DEFAULT);
	t_setmask(0);
}

Test(sig_ctx, swapcontext_refuses_bad_context_loading_nothing)
{
	memset(&sc, 0, sizeof(sc));
	t_assert_status_exit(run(body_swap_bad, NULL), 0);
	cr_expect_eq(sc.back, 0, "never switched");
	cr_expect_eq(sc.res[0], -1);
	cr_expect_eq(sc.res[1], EINVAL);
	cr_expect_eq(sc.res[2], -1);
	cr_expect_eq(sc.res[3], EFAULT);
	cr_expect_eq(sc.res[4], -1);
	cr_expect_eq(sc.res[5], EINVAL);
	cr_expect_eq(sc.res[6], 0);
	cr_expect_eq(sc.main_mxcsr, MXCSR_TEST, "FP state unchanged");
	cr_expect_eq(sc.main_fcw, FCW_TEST);
	cr_expect_eq(sc.main_mask, BIT(SIGHUP), "mask unchanged");
	cr_expect_eq(sc.saved_mxcsr, MXCSR_TEST);
}

/* ---- rt_sigreturn on garbage ---- */

static char monitor_canary[4096];

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static struct {
	int sig, code, runs;
	long addr_off;
} segv;

static void h_segv(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	segv.sig = sig;
	segv.code = si->si_code;
	segv.addr_off = (long)((char *)si->si_addr - t_cur->mem);
	segv.runs++;
	ua_sys_exit(42);
}

/* Optionally a SIGSEGV handler on an altstack that exits with 42. */
static void segv_handler(struct t_run *r, bool onstack)
{
	stack_t ss = { .ss_sp = r->mem + 128 * 1024, .ss_size = 65536 };

	if (onstack)
		ua_sys_sigaltstack(&ss, NULL);
	t_install(SIGSEGV, h_segv, onstack ? SA_ONSTACK : 0, 0);
}

enum garbage {
	G_RANDOM,       /* random bytes */
	G_HOLE_EDGE,    /* a frame running into an unmapped page */
	G_MONITOR,      /* a valid frame, in monitor memory */
	G_FP_MONITOR,   /* a valid frame whose FP area is in monitor memory */
	G_FP_HOLE,      /* ... whose FP area is unmapped */
	G_NR
};

/* Where a frame that was wrongly accepted would resume. */
static void resumed(void)
{
	ua_sys_exit(77);
}

static _Alignas(64) char monitor_frame[4096];

/* A frame that rt_sigreturn would take: resume in resumed(). */
static void good_frame(char *uc, char *stack, uint64_t fp)
{
	uint64_t *mc = (uint64_t *)(uc + 40); /* uc_mcontext */

	memset(uc, 0, 304 + 8);
	mc[15] = (uint64_t)(uintptr_t)stack;     /* rsp */
	mc[16] = (uint64_t)(uintptr_t)resumed;   /* rip */
	mc[17] = 0x202;                          /* eflags */
	mc[23] = fp;                             /* fpstate */
}

static void body_garbage(struct t_run *r)
{
	enum garbage g = (enum garbage)((intptr_t)r->arg & 0xff);
	bool handler = (intptr_t)r->arg & 0x100;
	char *stack = r->mem + 64 * 1024 - 8; /* for resumed() */
	char *at = r->mem + 8192;

	if (handler)
		segv_handler(r, true);
	switch (g) {
	case G_RANDOM:
		for (int i = 0; i < 2048; i += 8) {
			uint64_t v = next_rand();

			memcpy(at + i, &v, 8);
		}
		break;
	case G_HOLE_EDGE:
		at = r->mem + T_MEM - 64;
		good_frame(at - 256, stack, 0); /* only its start is mapped */
		break;
	case G_MONITOR:
		/* The guest may write monitor memory; the monitor must not
		 * take a frame from there. */
		at = monitor_frame + 1024;
		good_frame(at, stack, 0);
		break;
	case G_FP_MONITOR:
		good_frame(at, stack, (uint64_t)(uintptr_t)monitor_frame);
		memset(monitor_frame, 0, 512);
		monitor_frame[0] = 0x7f; /* FCW 0x37f, MXCSR default */
		monitor_frame[1] = 0x03;
		monitor_frame[25] = 0x1f;
		monitor_frame[24] = (char)0x80;
		break;
	case G_FP_HOLE:
		good_frame(at, stack, (uint64_t)(uintptr_t)(r->mem + T_MEM));
		break;
	case G_NR:
		good_frame(at, stack, 0);
		break;
	}
	t_sigreturn_at(at);
}

Test(sig_ctx, sigreturn_good_frame_resumes)
{
	/* The control case: the frame good_frame() makes is accepted. */
	t_assert_status_exit(run(body_garbage, (void *)(intptr_t)G_NR), 77);
}

Test(sig_ctx, sigreturn_garbage_kills_task)
{
	for (int g = G_RANDOM; g < G_NR; g++) {
		int n = g == G_RANDOM ? 50 : 1;

		for (int i = 0; i < n; i++) {
			int st = run(body_garbage, (void *)(intptr_t)g);

			cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
				  "case %d: status %#x", g, st);
		}
	}
}

Test(sig_ctx, sigreturn_garbage_segv_handler)
{
	/* The frame cannot even be read: registers stay as they were and
	 * the SIGSEGV (SI_KERNEL) goes to the handler on its altstack. */
	for (int g = G_HOLE_EDGE; g <= G_MONITOR; g++) {
		memset(&segv, 0, sizeof(segv));
		t_assert_status_exit(run(body_garbage,
					 (void *)(intptr_t)(g | 0x100)),
				     42);
		cr_expect_eq(segv.sig, SIGSEGV);
		cr_expect_eq(segv.code, SI_KERNEL);
		cr_expect_eq(segv.runs, 1);
	}
}

/* A handler that scribbles over its whole frame. */
static void h_scribble(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	(void)si;
	memset(ucv, 0xa5, sizeof(ucontext_t) - sizeof(struct _libc_fpstate));
}

static void body_scribble(struct t_run *r)
{
	(void)r;
	t_install(SIGUSR1, h_scribble, 0, 0);
	ua_sys_raise(SIGUSR1);
	ua_sys_exit(1);
}

Test(sig_ctx, handler_scribbles_frame)
{
	t_assert_status_sig(run(body_scribble, NULL), SIGSEGV);
}

/* ---- frames that cannot be written ---- */

enum unwritable { U_HOOK_RSP, U_HOOK_RSP_MONITOR, U_ALT_HOLE, U_ALT_MONITOR };

static bool rsp_hook(struct ua_task *t, struct ua_pt_regs *regs, void *data)
{
	(void)t;
	/* On the raise: the guest's RSP goes bad, the signal is pending. */
	if (regs->orig_rax == UA_NR_tgkill)
		regs->rsp = (uint64_t)(uintptr_t)data;
	return false;
}

static void h_nothing(int sig, siginfo_t *si, void *uc);

static void body_unwritable(struct t_run *r)
{
	enum unwritable u = (enum unwritable)((intptr_t)r->arg & 0xff);
	int segv_mode = (int)((intptr_t)r->arg >> 8); /* 0 none, 1 onstack, 2 plain */
	stack_t ss = { .ss_size = 4096 }; /* no bigger than the hole */

	if (segv_mode)
		segv_handler(r, segv_mode == 1);
	if (u == U_ALT_HOLE || u == U_ALT_MONITOR) {
		/* The kernel does not check the altstack's memory either. */
		ss.ss_sp = u == U_ALT_HOLE ? r->mem + T_MEM : monitor_canary;
		ua_sys_sigaltstack(&ss, NULL);
		t_install(SIGUSR1, h_nothing, SA_ONSTACK, 0);
	} else {
		t_install(SIGUSR1, h_nothing, 0, 0);
	}
	ua_sys_raise(SIGUSR1);
	ua_sys_exit(1);
}

static int run_unwritable(enum unwritable u, int segv_mode, void *hook_rsp)
{
	return t_run_engine(body_unwritable,
			    (void *)(intptr_t)(u | segv_mode << 8),
			    hook_rsp ? rsp_hook : NULL, hook_rsp);
}

Test(sig_ctx, frame_unwritable_rsp)
{
	static char *bad[3];

	bad[0] = (char *)16;
	bad[1] = monitor_canary + 2048;
	bad[2] = (char *)0x8000000000001000ull;
	for (int i = 0; i < 3; i++) {
		/* No SIGSEGV handler, or one that needs the same bad stack:
		 * the task dies of SIGSEGV. */
		t_assert_status_sig(run_unwritable(U_HOOK_RSP, 0, bad[i]),
				    SIGSEGV);
		t_assert_status_sig(run_unwritable(U_HOOK_RSP, 2, bad[i]),
				    SIGSEGV);
		/* A SIGSEGV handler on an altstack runs instead. */
		memset(&segv, 0, sizeof(segv));
		t_assert_status_exit(run_unwritable(U_HOOK_RSP, 1, bad[i]),
				     42);
		cr_expect_eq(segv.code, SI_KERNEL);
	}
	for (size_t i = 0; i < sizeof(monitor_canary); i++)
		cr_assert_eq(monitor_canary[i], 0, "monitor memory written");
}

Test(sig_ctx, frame_unwritable_altstack)
{
	for (int u = U_ALT_HOLE; u <= U_ALT_MONITOR; u++) {
		t_assert_status_sig(run_unwritable((enum unwritable)u, 0, NULL),
				    SIGSEGV);
		/* A SIGSEGV handler on the normal stack can run. */
		memset(&segv, 0, sizeof(segv));
		t_assert_status_exit(run_unwritable((enum unwritable)u, 2, NULL),
				     42);
		cr_expect_eq(segv.code, SI_KERNEL);
	}
	for (size_t i = 0; i < sizeof(monitor_canary); i++)
		cr_assert_eq(monitor_canary[i], 0, "monitor memory written");
}

/* ---- restorers ---- */

static void h_nothing(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	segv.runs++;
}

static void body_bad_restorer(struct t_run *r)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	t_handlers[SIGUSR1] = h_nothing;
	sa.sa_sigaction = t_tramp;
	sa.sa_flags = SA_SIGINFO | K_SA_RESTORER;
	sa.sa_restorer = (void (*)(void))(r->arg ? (void *)r->arg :
						    (void *)(r->mem + T_MEM));
	ua_sys_sigaction(SIGUSR1, &sa, NULL);
	ua_sys_raise(SIGUSR1);
	ua_sys_exit(1);
}

Test(sig_ctx, bad_restorer_kills_task)
{
	memset(&segv, 0, sizeof(segv));
	t_assert_status_sig(run(body_bad_restorer, NULL), SIGSEGV);
	cr_expect_eq(segv.runs, 1, "the handler ran, its return faulted");
	segv.runs = 0;
	t_assert_status_sig(run(body_bad_restorer, (void *)0x10), SIGSEGV);
	t_assert_status_sig(run(body_bad_restorer,
				(void *)0x8000000000000000ull),
			    SIGSEGV);
}

static void body_no_restorer(struct t_run *r)
{
	/* The raw syscall: no SA_RESTORER, which x86-64 requires. */
	uint64_t ka[4] = { (uint64_t)(uintptr_t)t_tramp, SA_SIGINFO, 0, 0 };

	(void)r;
	t_handlers[SIGUSR1] = h_nothing;
	ua_syscall(UA_NR_rt_sigaction, SIGUSR1, (long)ka, 0, 8, 0);
	ua_sys_raise(SIGUSR1);
	ua_sys_exit(1);
}

Test(sig_ctx, missing_restorer_sigsegv)
{
	memset(&segv, 0, sizeof(segv));
	t_assert_status_sig(run(body_no_restorer, NULL), SIGSEGV);
	cr_expect_eq(segv.runs, 0, "the handler never ran");
}

/* ---- a guest fault with EFLAGS.AC set ---- */

static void body_ac_fault(struct t_run *r)
{
	(void)r;
	/* AC on, then a jump into nothing: the host's fault handler starts
	 * with AC still set (the kernel does not clear it). */
	asm volatile("pushfq\n\t"
		     "orl $0x40000, (%%rsp)\n\t"
		     "popfq\n\t"
		     "jmp *%0" : : "r"((void *)0x10) : "memory");
}

Test(sig_ctx, guest_fault_with_ac_set)
{
	int st = run(body_ac_fault, NULL);

	t_assert_status_sig(st, SIGSEGV);
}
