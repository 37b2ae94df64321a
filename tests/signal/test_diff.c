// SPDX-License-Identifier: MIT
/*
 * Differential tests: the same handler and raising code run under a real
 * signal of the host kernel and under the engine must observe the same
 * siginfo, ucontext, stack placement, entry state and FP state, resume
 * the same way, and end the same way when the frame is corrupted.
 *
 * Each test runs a body twice (t_run_host, then t_run_engine; bodies
 * whose outcome is death run on the host in a forked child), records what
 * it saw in a struct in monitor memory, and compares the two records
 * field by field, then against the values Linux documents.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tsig.h"

TestSuite(sig_diff, .init = t_skip_if_unavailable, .timeout = 60);

#define ALT_SIZE ((size_t)64 << 10)
#define SIG_A SIGUSR1

/* ---- what a handler observes ---- */

struct obs {
	int sig, code, pid, uid, value;
	uint64_t uc_flags, uc_link;
	long ss_sp; /* uc_stack.ss_sp - run memory, -1 when NULL */
	int ss_flags;
	size_t ss_size;
	uint64_t uc_sigmask, mask_in;
	long align;    /* (rsp + 8) % 16 at entry */
	long si_off, uc_off, fp_off, irsp_off, alt_top_off;
	uint64_t rax, entry_df, entry_tf, frame_df;
	uint32_t mxcsr_in, fcw_in;
	uint32_t fp_mxcsr, fp_mask, fp_fcw;
	uint32_t magic1, ext, xsize, magic2;
	uint64_t xfeat, bv_fpsse;
	/* The FP area's header: the sw bytes, the XSAVE header, PKRU. */
	unsigned char sw[48], hdr[64];
	int pkru_in_bv;
	uint32_t pkru;
	long fp_align; /* fpstate % 64 */
	int q_ret, q_flags;
	long q_sp;
	size_t q_size;
	int set_ret, set_errno;
};

/* What the body saw after the handler. */
struct after {
	long ret;
	int handled;
	uint32_t mxcsr, fcw;
	uint64_t mask;
	int q_ret, q_flags;
	long q_sp;
	size_t q_size;
	uint32_t pkru_before, pkru_after; /* RDPKRU around the raise */
};

struct record {
	struct obs o[8];
	int n;
	struct after a;
};

static struct record rec;

static long mem_off(const void *p)
{
	return p ? (long)((const char *)p - t_cur->mem) : -1;
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* A handler that wants to try changing the altstack while on it. */
static bool try_set_altstack;

static void observe(struct obs *o, const struct t_entry *e, int sig,
		    siginfo_t *si, ucontext_t *uc)
{
	const unsigned char *fp = (const unsigned char *)uc->uc_mcontext.fpregs;
	sigset_t m;
	stack_t q;

	o->sig = si->si_signo;
	o->code = si->si_code;
	o->pid = si->si_pid;
	o->uid = (int)si->si_uid;
	o->value = si->si_value.sival_int;
	o->uc_flags = uc->uc_flags;
	o->uc_link = (uint64_t)(uintptr_t)uc->uc_link;
	o->ss_sp = mem_off(uc->uc_stack.ss_sp);
	o->ss_flags = uc->uc_stack.ss_flags;
	o->ss_size = uc->uc_stack.ss_size;
	o->uc_sigmask = t_sigset64(&uc->uc_sigmask);
	o->align = (long)((e->rsp + 8) % 16);
	o->si_off = (long)((uintptr_t)si - e->rsp);
	o->uc_off = (long)((uintptr_t)uc - e->rsp);
	o->fp_off = (long)((uintptr_t)fp - e->rsp);
	o->alt_top_off = (long)((uintptr_t)t_cur->mem + ALT_SIZE - e->rsp);
	/* Where the frame went from the interrupted RSP; on the altstack
	 * the distance between two stacks says nothing. */
	o->irsp_off = o->alt_top_off > 0 && (size_t)o->alt_top_off < ALT_SIZE ?
			      -1 :
			      (long)((uint64_t)uc->uc_mcontext.gregs[REG_RSP] -
				     e->rsp);
	o->rax = e->rax;
	o->entry_df = e->flags & EFL_DF;
	o->entry_tf = e->flags & (EFL_TF | EFL_AC);
	o->frame_df = (uint64_t)uc->uc_mcontext.gregs[REG_EFL] & EFL_DF;
	o->mxcsr_in = e->mxcsr;
	o->fcw_in = e->fcw;
	o->fp_align = (long)((uintptr_t)fp % 64);
	o->fp_fcw = uc->uc_mcontext.fpregs->cwd;
	o->fp_mxcsr = uc->uc_mcontext.fpregs->mxcsr;
	o->fp_mask = uc->uc_mcontext.fpregs->mxcr_mask;
	o->magic1 = rd32(fp + 464);
	o->ext = rd32(fp + 468);
	o->xfeat = rd64(fp + 472);
	o->xsize = rd32(fp + 480);
	o->magic2 = o->magic1 == FP_MAGIC1 ? rd32(fp + o->xsize) : 0;
	o->bv_fpsse = rd64(fp + 512) & 3;
	memcpy(o->sw, fp + 464, sizeof(o->sw));
	if (o->magic1 == FP_MAGIC1)
		memcpy(o->hdr, fp + 512, sizeof(o->hdr));
	o->pkru_in_bv = o->magic1 == FP_MAGIC1 && (rd64(fp + 512) >> 9) & 1;
	o->pkru = t_have_pkru ? rd32(fp + t_pkru_off) : 0;
	(void)sig;

	sigemptyset(&m);
	ops->sigprocmask(SIG_BLOCK, NULL, &m);
	o->mask_in = t_sigset64(&m);
	memset(&q, 0, sizeof(q));
	o->q_ret = ops->sigaltstack(NULL, &q);
	o->q_flags = q.ss_flags;
	o->q_sp = mem_off(q.ss_sp);
	o->q_size = q.ss_size;
	if (try_set_altstack) {
		stack_t ss = { .ss_sp = t_cur->mem + ALT_SIZE,
			       .ss_size = 16384, .ss_flags = 0 };

		errno = 0;
		o->set_ret = ops->sigaltstack(&ss, NULL);
		o->set_errno = errno;
	}
}

static void h_observe(int sig, siginfo_t *si, void *ucv)
{
	struct t_entry e = t_entry;

	if (rec.n < 8)
		observe(&rec.o[rec.n++], &e, sig, si, ucv);
}

/* ---- one raise with a given setup ---- */

enum how { TKILL, TKILL_DF, KILL, QUEUE };

struct scen {
	enum how how;
	int saflags;
	uint64_t samask, premask;
	int alt;        /* 0: none, else: altstack with these flags + 1 */
	bool fpctl;     /* non-default MXCSR/FCW when raising */
	long below;
	bool set_in_handler;
};

static void query_after(struct after *a)
{
	stack_t q;

	memset(&q, 0, sizeof(q));
	a->q_ret = ops->sigaltstack(NULL, &q);
	a->q_flags = q.ss_flags;
	a->q_sp = mem_off(q.ss_sp);
	a->q_size = q.ss_size;
}

static void body_raise(struct t_run *r)
{
	const struct scen *sc = r->arg;
	stack_t ss = { .ss_sp = r->mem, .ss_size = ALT_SIZE };

	if (sc->alt) {
		ss.ss_flags = sc->alt - 1;
		if (ops->sigaltstack(&ss, NULL))
			return;
	}
	try_set_altstack = sc->set_in_handler;
	if (t_install(SIG_A, h_observe, sc->saflags, sc->samask))
		return;
	t_setmask(sc->premask);
	if (sc->fpctl)
		t_set_fpctl(MXCSR_TEST, FCW_TEST);
	rec.a.pkru_before = t_rdpkru();
	switch (sc->how) {
	case TKILL:
		rec.a.ret = t_raise_aligned(SIG_A, sc->below);
		break;
	case TKILL_DF:
		rec.a.ret = t_call_aligned((void *)ops->tgkill_df, t_stub_pid(),
					   t_stub_tid(), SIG_A, 0, sc->below);
		break;
	case KILL:
		rec.a.ret = t_kill_aligned(SIG_A, sc->below);
		break;
	case QUEUE:
		rec.a.ret = t_queue_aligned(SIG_A, 0x5eed1 + (int)sc->below,
					    sc->below);
		break;
	}
	rec.a.pkru_after = t_rdpkru();
	rec.a.mxcsr = t_get_mxcsr();
	rec.a.fcw = t_get_fcw();
	t_set_fpctl(MXCSR_DEFAULT, FCW_DEFAULT);
	rec.a.mask = t_getmask();
	rec.a.handled = rec.n;
	query_after(&rec.a);
	t_setmask(0);
	ss.ss_flags = SS_DISABLE;
	ops->sigaltstack(&ss, NULL);
}

/* ---- comparing ---- */

#define SAME(field, fmt)                                                    \
	cr_expect_eq(h->field, e->field, "%s: host " fmt " engine " fmt,      \
		     #field, h->field, e->field)

static void compare_obs(const struct obs *h, const struct obs *e)
{
	SAME(sig, "%d");
	SAME(code, "%d");
	SAME(pid, "%d");
	SAME(uid, "%d");
	SAME(value, "%#x");
	SAME(uc_flags, "%#lx");
	SAME(uc_link, "%#lx");
	SAME(ss_sp, "%ld");
	SAME(ss_flags, "%#x");
	SAME(ss_size, "%zu");
	SAME(uc_sigmask, "%#lx");
	SAME(mask_in, "%#lx");
	SAME(align, "%ld");
	SAME(si_off, "%ld");
	SAME(uc_off, "%ld");
	SAME(fp_off, "%ld");
	SAME(irsp_off, "%ld");
	SAME(rax, "%#lx");
	SAME(entry_df, "%#lx");
	SAME(entry_tf, "%#lx");
	SAME(frame_df, "%#lx");
	SAME(mxcsr_in, "%#x");
	SAME(fcw_in, "%#x");
	SAME(fp_mxcsr, "%#x");
	SAME(fp_mask, "%#x");
	SAME(fp_fcw, "%#x");
	SAME(magic1, "%#x");
	SAME(ext, "%u");
	SAME(xsize, "%u");
	SAME(magic2, "%#x");
	SAME(xfeat, "%#lx");
	SAME(bv_fpsse, "%#lx");
	SAME(pkru_in_bv, "%d");
	cr_expect(!memcmp(h->sw, e->sw, sizeof(h->sw)),
		  "the sw bytes differ (xfeatures host %#lx engine %#lx)",
		  h->xfeat, e->xfeat);
	cr_expect(!memcmp(h->hdr, e->hdr, sizeof(h->hdr)),
		  "the XSAVE headers differ: XSTATE_BV host %#lx engine %#lx, "
		  "XCOMP_BV host %#lx engine %#lx",
		  rd64(h->hdr), rd64(e->hdr), rd64(h->hdr + 8), rd64(e->hdr + 8));
	SAME(fp_align, "%ld");
	SAME(q_ret, "%d");
	SAME(q_flags, "%#x");
	SAME(q_sp, "%ld");
	SAME(q_size, "%zu");
	SAME(set_ret, "%d");
	SAME(set_errno, "%d");
}

static void compare_after(const struct after *h, const struct after *e)
{
	SAME(ret, "%ld");
	SAME(handled, "%d");
	SAME(mxcsr, "%#x");
	SAME(fcw, "%#x");
	SAME(mask, "%#lx");
	SAME(q_ret, "%d");
	SAME(q_flags, "%#x");
	SAME(q_sp, "%ld");
	SAME(q_size, "%zu");
}

/*
 * PKRU: where XCR0 has it the frame marks it in XSTATE_BV and holds the
 * interrupted code's value at its CPUID offset; sigreturn gives it back.
 */
static void check_pkru(const struct record *r, const char *who)
{
	const struct obs *o = &r->o[0];

	cr_expect_eq(o->pkru_in_bv, t_have_pkru, "%s: PKRU in XSTATE_BV: %d",
		     who, o->pkru_in_bv);
	if (!t_have_pkru)
		return;
	cr_expect_eq(o->pkru, r->a.pkru_before,
		     "%s: frame PKRU %#x, interrupted code's %#x", who, o->pkru,
		     r->a.pkru_before);
	cr_expect_eq(r->a.pkru_after, r->a.pkru_before,
		     "%s: PKRU after sigreturn %#x, before %#x", who,
		     r->a.pkru_after, r->a.pkru_before);
}

/* Run sc both ways; rec holds the engine's record, *host the host's. */
static void run_both(const struct scen *sc, struct record *host)
{
	memset(&rec, 0, sizeof(rec));
	t_run_host(body_raise, (void *)sc);
	*host = rec;
	memset(&rec, 0, sizeof(rec));
	t_assert_status_exit(t_run_engine(body_raise, (void *)sc, NULL, NULL),
			     0);
	cr_assert_eq(host->n, 1, "host: %d handler runs", host->n);
	cr_assert_eq(rec.n, 1, "engine: %d handler runs", rec.n);
	/*
	 * No altstack in the body: the host's frame would say what this
	 * process had before it ever called sigaltstack, but t_run_host had
	 * to disable the altstack an earlier engine run gave this thread
	 * (raw SS_DISABLE).  What the process had at start stands in.
	 */
	if (!sc->alt)
		host->o[0].ss_flags = t_host_fresh_ss_flags;
	compare_obs(&host->o[0], &rec.o[0]);
	compare_after(&host->a, &rec.a);
	check_pkru(host, "host");
	check_pkru(&rec, "engine");
}

/* The values Linux documents, checked on the engine's record. */
static void expect_common(const struct record *r, int code)
{
	const struct obs *o = &r->o[0];

	cr_expect_eq(o->sig, SIG_A);
	cr_expect_eq(o->code, code);
	cr_expect_eq(o->pid, getpid());
	cr_expect_eq(o->uid, (int)getuid());
	/* UC_FP_XSTATE | UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS */
	cr_expect_eq(o->uc_flags, 7);
	cr_expect_eq(o->uc_link, 0);
	cr_expect_eq(o->align, 0, "(rsp + 8) %% 16 at handler entry");
	cr_expect_eq(o->uc_off, 8);
	cr_expect_eq(o->si_off, 312);
	cr_expect_eq(o->fp_align, 0);
	cr_expect_eq(o->rax, 0);
	cr_expect_eq(o->entry_df, 0);
	cr_expect_eq(o->mxcsr_in, MXCSR_DEFAULT);
	cr_expect_eq(o->fcw_in, FCW_DEFAULT);
	cr_expect_eq(o->magic1, FP_MAGIC1);
	cr_expect_eq(o->magic2, FP_MAGIC2);
	cr_expect_eq(o->ext, o->xsize + 4);
	cr_expect_eq(o->bv_fpsse, 3);
	/* The sizes and the live components of this machine (CPUID). */
	cr_expect_eq(o->xsize, t_xstate_size());
	cr_expect_eq(rd64(o->hdr), 3 | (t_have_pkru ? 1ull << 9 : 0),
		     "XSTATE_BV %#lx", rd64(o->hdr));
	cr_expect_eq(r->a.ret, 0);
}

/* Where the kernel puts a frame below an interrupted RSP (spec §1.3). */
static long frame_distance(uint64_t irsp, uint32_t xsize)
{
	uint64_t fp = (irsp - 128 - (xsize + 4)) & ~63ull;

	return (long)(irsp - (((fp - 440) & ~15ull) - 8));
}

Test(sig_diff, frame_siginfo_and_placement)
{
	struct record host;

	for (long below = 0; below < 64; below += 16) {
		struct scen sc = { .how = TKILL, .below = below,
				   .premask = BIT(SIGUSR2) | BIT(40),
				   .samask = BIT(SIGHUP) };

		run_both(&sc, &host);
		expect_common(&rec, SI_TKILL);
		/*
		 * No altstack ever set: the frame has the raw flags of a
		 * fresh program image (0), sigaltstack() computes
		 * SS_DISABLE, as in the kernel.
		 */
		cr_expect_eq(rec.o[0].ss_sp, -1);
		cr_expect_eq(rec.o[0].ss_flags, 0);
		cr_expect_eq(rec.o[0].q_flags, SS_DISABLE);
		cr_expect_eq(rec.o[0].uc_sigmask, sc.premask);
		cr_expect_eq(rec.o[0].mask_in,
			     sc.premask | BIT(SIGHUP) | BIT(SIG_A));
		cr_expect_eq(rec.a.mask, sc.premask);
		cr_expect_eq(rec.o[0].irsp_off,
			     frame_distance((1u << 20) - below, rec.o[0].xsize));
		cr_expect_eq(rec.o[0].fp_off, 456);
	}
}

Test(sig_diff, si_code_user_and_queue)
{
	struct record host;
	struct scen k = { .how = KILL };
	struct scen q = { .how = QUEUE, .below = 32 };

	run_both(&k, &host);
	expect_common(&rec, SI_USER);
	run_both(&q, &host);
	expect_common(&rec, SI_QUEUE);
	cr_expect_eq(rec.o[0].value, 0x5eed1 + 32);
}

/*
 * The FP area's header, host against engine: the software-reserved bytes
 * (magic1, extended_size, xfeatures, xstate_size, zero padding), the
 * XSAVE header (XSTATE_BV with PKRU where XCR0 has it, XCOMP_BV and the
 * reserved bytes zero), MAGIC2 and PKRU's value (run_both compares all
 * of them for every raise; this one logs them).
 */
Test(sig_diff, fp_header_and_pkru)
{
	struct record host;
	struct scen sc = { .how = TKILL, .fpctl = true };
	const struct obs *h = &host.o[0], *e;

	run_both(&sc, &host);
	expect_common(&rec, SI_TKILL);
	e = &rec.o[0];
	cr_log_info("host:   XSTATE_BV %#lx xfeatures %#lx xstate_size %u "
		    "PKRU %s %#x", rd64(h->hdr), h->xfeat, h->xsize,
		    h->pkru_in_bv ? "in use" : "absent", h->pkru);
	cr_log_info("engine: XSTATE_BV %#lx xfeatures %#lx xstate_size %u "
		    "PKRU %s %#x", rd64(e->hdr), e->xfeat, e->xsize,
		    e->pkru_in_bv ? "in use" : "absent", e->pkru);
	for (int i = 8; i < 64; i++)
		cr_expect_eq(e->hdr[i], 0, "XSAVE header byte %d", i);
	for (int i = 20; i < 48; i++)
		cr_expect_eq(e->sw[i], 0, "sw byte %d", i);
}

/* ---- rt_sigreturn takes PKRU from the frame ---- */

/* Key 15: not key 0, and no space of these tests gets it. */
#define PKRU_TEST_BITS (3u << 30)

static struct {
	int how; /* 0: flip key 15's bits, 1: PKRU out of XSTATE_BV */
	uint32_t before, in_frame, after;
} pk;

static void h_pkru(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	unsigned char *fp = (unsigned char *)uc->uc_mcontext.fpregs;

	(void)sig;
	(void)si;
	pk.in_frame = rd32(fp + t_pkru_off);
	if (pk.how == 0)
		put32(fp + t_pkru_off, pk.in_frame ^ PKRU_TEST_BITS);
	else
		put64(fp + 512, rd64(fp + 512) & ~(1ull << 9));
}

static void body_pkru(struct t_run *r)
{
	(void)r;
	t_install(SIG_A, h_pkru, 0, 0);
	pk.before = t_rdpkru();
	t_raise(SIG_A);
	pk.after = t_rdpkru();
	t_wrpkru(pk.before);
}

static void check_pkru_sigreturn(int how)
{
	uint32_t hb, ha, hf;

	pk.how = how;
	t_run_host(body_pkru, NULL);
	hb = pk.before;
	ha = pk.after;
	hf = pk.in_frame;
	t_assert_status_exit(t_run_engine(body_pkru, NULL, NULL, NULL), 0);
	cr_expect_eq(hf, hb, "host: frame PKRU %#x, before %#x", hf, hb);
	cr_expect_eq(pk.in_frame, pk.before, "engine: frame PKRU %#x, before "
		     "%#x", pk.in_frame, pk.before);
	if (how == 0) {
		cr_expect_eq(ha, hb ^ PKRU_TEST_BITS, "host: PKRU after %#x", ha);
		cr_expect_eq(pk.after, pk.before ^ PKRU_TEST_BITS,
			     "engine: PKRU after %#x, before %#x", pk.after,
			     pk.before);
	} else {
		/* XRSTOR initialises it: 0, every key open (the engine keeps
		 * key 0 and its space's key as the guest had them: open). */
		cr_expect_eq(ha, 0, "host: PKRU after %#x", ha);
		cr_expect_eq(pk.after, 0, "engine: PKRU after %#x", pk.after);
	}
}

Test(sig_diff, sigreturn_takes_pkru)
{
	if (!t_have_pkru)
		cr_skip_test("no PKRU in XSAVE here (CPUID 7:ECX.OSPKE and XCR0 "
			     "bit 9 both needed)");
	check_pkru_sigreturn(0);
	check_pkru_sigreturn(1);
}

Test(sig_diff, fp_state_fresh_in_handler)
{
	struct record host;
	struct scen sc = { .how = TKILL, .fpctl = true };

	run_both(&sc, &host);
	expect_common(&rec, SI_TKILL);
	/* The frame holds the interrupted control words... */
	cr_expect_eq(rec.o[0].fp_mxcsr, MXCSR_TEST);
	cr_expect_eq(rec.o[0].fp_fcw, FCW_TEST);
	/* ...and sigreturn puts them back. */
	cr_expect_eq(rec.a.mxcsr, MXCSR_TEST);
	cr_expect_eq(rec.a.fcw, FCW_TEST);
}

Test(sig_diff, df_cleared_for_handler)
{
	struct record host;
	struct scen sc = { .how = TKILL_DF, .below = 16 };

	run_both(&sc, &host);
	expect_common(&rec, SI_TKILL);
	cr_expect_eq(rec.o[0].frame_df, EFL_DF, "the frame keeps DF");
}

Test(sig_diff, altstack_onstack)
{
	struct record host;

	for (long below = 0; below < 64; below += 16) {
		struct scen sc = { .how = TKILL, .alt = 1, .below = below,
				   .saflags = SA_ONSTACK };

		run_both(&sc, &host);
		expect_common(&rec, SI_TKILL);
		cr_expect_eq(rec.o[0].ss_sp, 0);
		cr_expect_eq(rec.o[0].ss_size, ALT_SIZE);
		cr_expect_eq(rec.o[0].ss_flags, 0, "raw stored flags");
		cr_expect_eq(rec.o[0].q_flags, SS_ONSTACK);
		/* No red zone at the altstack top: frame = fp - 456. */
		cr_expect_eq(rec.o[0].alt_top_off,
			     (long)(((rec.o[0].xsize + 4 + 63) & ~63u) + 456));
		cr_expect_eq(host.o[0].alt_top_off, rec.o[0].alt_top_off);
		cr_expect_eq(rec.a.q_flags, 0);
	}
}

Test(sig_diff, altstack_without_sa_onstack)
{
	struct record host;
	struct scen sc = { .how = TKILL, .alt = 1 };

	run_both(&sc, &host);
	expect_common(&rec, SI_TKILL);
	/* Reported, but not used. */
	cr_expect_eq(rec.o[0].ss_sp, 0);
	cr_expect_eq(rec.o[0].ss_flags, 0);
	cr_expect_eq(rec.o[0].q_flags, 0);
}

Test(sig_diff, altstack_eperm_while_on_it)
{
	struct record host;
	struct scen sc = { .how = TKILL, .alt = 1, .saflags = SA_ONSTACK,
			   .set_in_handler = true };

	run_both(&sc, &host);
	cr_expect_eq(rec.o[0].set_ret, -1);
	cr_expect_eq(rec.o[0].set_errno, EPERM);
	cr_expect_eq(rec.a.q_sp, 0);
	cr_expect_eq(rec.a.q_size, ALT_SIZE);
}

Test(sig_diff, altstack_autodisarm)
{
	struct record host;
	struct scen sc = { .how = TKILL, .alt = 1 + (int)SS_AUTODISARM,
			   .saflags = SA_ONSTACK, .set_in_handler = true };

	run_both(&sc, &host);
	expect_common(&rec, SI_TKILL);
	cr_expect_eq(rec.o[0].ss_sp, 0);
	cr_expect_eq(rec.o[0].ss_flags, (int)SS_AUTODISARM);
	/* Disarmed inside the handler: a new stack may be set... */
	cr_expect_eq(rec.o[0].q_flags, SS_DISABLE);
	cr_expect_eq(rec.o[0].set_ret, 0);
	/* ...and sigreturn puts the armed one back. */
	cr_expect_eq(rec.a.q_flags, (int)SS_AUTODISARM);
	cr_expect_eq(rec.a.q_sp, 0);
	cr_expect_eq(rec.a.q_size, ALT_SIZE);
}

/* ---- the handler changes the interrupted context ---- */

static const uint64_t redir_val[] = {
	0x1111111111111111, 0x2222222222222222, 0x3333333333333333,
	0x4444444444444444, 0x5555555555555555, 0x6666666666666666,
	0x7777777777777777, 0x8888888888888888, 0x9999999999999999,
	0xaaaaaaaaaaaaaaaa, 0xbbbbbbbbbbbbbbbb, 0xcccccccccccccccc,
	0xdddddddddddddddd, 0xeeeeeeeeeeeeeeee, 0x0123456789abcdef,
};

struct redir {
	bool far_rsp;    /* an RSP outside the stack (and the space) */
	long ret;
	uint64_t irsp, rsp_set;
	struct t_regs got;
	uint32_t mxcsr_after;
};

static struct redir redir;
#define REDIR_MXCSR 0x3fc0u /* DAZ, round down */
#define REDIR_FCW 0x027fu
#define REDIR_FLAGS (EFL_CF | EFL_PF | EFL_ZF | EFL_SF | EFL_OF | EFL_DF)

static void h_redirect(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	static const int order[] = { REG_R8,  REG_R9,  REG_R10, REG_R11,
				     REG_R12, REG_R13, REG_R14, REG_R15,
				     REG_RDI, REG_RSI, REG_RBP, REG_RBX,
				     REG_RDX, REG_RAX, REG_RCX };

	(void)sig;
	(void)si;
	redir.irsp = (uint64_t)g[REG_RSP];
	for (int i = 0; i < 15; i++)
		g[order[i]] = (greg_t)redir_val[i];
	redir.rsp_set = redir.far_rsp ? 0x1238 : redir.irsp - 4096 - 8;
	g[REG_RSP] = (greg_t)redir.rsp_set;
	g[REG_RIP] = (greg_t)t_landing;
	g[REG_EFL] |= (greg_t)REDIR_FLAGS;
	uc->uc_mcontext.fpregs->mxcsr = REDIR_MXCSR;
	uc->uc_mcontext.fpregs->cwd = REDIR_FCW;
}

static void body_redirect(struct t_run *r)
{
	(void)r;
	if (t_install(SIG_A, h_redirect, 0, 0))
		return;
	redir.ret = t_call_redirect(t_raise_stub(), t_stub_pid(), t_stub_tid(),
				    SIG_A, 0);
	redir.got = t_landed;
	redir.mxcsr_after = t_get_mxcsr();
}

static void check_redirect(bool far)
{
	struct redir h;

	memset(&redir, 0, sizeof(redir));
	redir.far_rsp = far;
	t_run_host(body_redirect, NULL);
	h = redir;
	memset(&redir, 0, sizeof(redir));
	redir.far_rsp = far;
	t_assert_status_exit(t_run_engine(body_redirect, NULL, NULL, NULL), 0);

	for (int i = 0; i < 2; i++) {
		const struct redir *x = i ? &redir : &h;
		const uint64_t *v = redir_val;

		cr_expect_eq(x->ret, 1, "%s: did not land", i ? "engine" : "host");
		cr_expect_eq(x->got.r8, v[0]);
		cr_expect_eq(x->got.r9, v[1]);
		cr_expect_eq(x->got.r10, v[2]);
		cr_expect_eq(x->got.r11, v[3]);
		cr_expect_eq(x->got.r12, v[4]);
		cr_expect_eq(x->got.r13, v[5]);
		cr_expect_eq(x->got.r14, v[6]);
		cr_expect_eq(x->got.r15, v[7]);
		cr_expect_eq(x->got.rdi, v[8]);
		cr_expect_eq(x->got.rsi, v[9]);
		cr_expect_eq(x->got.rbp, v[10]);
		cr_expect_eq(x->got.rbx, v[11]);
		cr_expect_eq(x->got.rdx, v[12]);
		cr_expect_eq(x->got.rax, v[13]);
		cr_expect_eq(x->got.rcx, v[14]);
		cr_expect_eq(x->got.rsp, x->rsp_set, "%s: rsp %#lx, set %#lx",
			     i ? "engine" : "host", x->got.rsp, x->rsp_set);
		cr_expect_eq(x->got.flags & REDIR_FLAGS, REDIR_FLAGS,
			     "%s: flags %#lx", i ? "engine" : "host",
			     x->got.flags);
		cr_expect_eq(x->got.mxcsr, REDIR_MXCSR);
		cr_expect_eq(x->got.fcw, REDIR_FCW);
		cr_expect_eq(x->mxcsr_after, MXCSR_DEFAULT);
	}
	if (!far)
		cr_expect_eq(h.rsp_set - h.irsp, redir.rsp_set - redir.irsp);
	cr_expect_eq(h.got.flags, redir.got.flags, "flags: host %#lx engine %#lx",
		     h.got.flags, redir.got.flags);
}

Test(sig_diff, handler_redirects_registers)
{
	check_redirect(false);
}

Test(sig_diff, handler_redirects_rsp_out_of_stack)
{
	check_redirect(true);
}

/* ---- several pending signals ---- */

/* Above glibc's SIGRTMIN (34), which keeps 32 and 33 for itself. */
#define RT1 36
#define RT2 37

struct tev {
	int sig, value, code;
	uint64_t uc_sigmask, mask_in;
};

static struct {
	struct tev ev[32];
	int n;
	uint64_t pending;
	int ret;
} trace;

static void h_trace(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	struct tev *e;
	sigset_t m;

	if (trace.n >= 32)
		return;
	e = &trace.ev[trace.n++];
	e->sig = sig;
	e->value = si->si_code == SI_QUEUE ? si->si_value.sival_int : -1;
	e->code = si->si_code;
	e->uc_sigmask = t_sigset64(&uc->uc_sigmask);
	sigemptyset(&m);
	ops->sigprocmask(SIG_BLOCK, NULL, &m);
	e->mask_in = t_sigset64(&m);
}

static void body_order(struct t_run *r)
{
	uint64_t all = BIT(SIGUSR1) | BIT(SIGUSR2) | BIT(RT1) | BIT(RT2);
	uint64_t samask = r->arg ? all : 0;
	sigset_t p;

	t_install(SIGUSR1, h_trace, 0, samask);
	t_install(SIGUSR2, h_trace, 0, samask);
	t_install(RT1, h_trace, 0, samask);
	t_install(RT2, h_trace, 0, samask);
	t_setmask(all | BIT(SIGHUP));
	t_queue(RT2, 1);
	t_raise(SIGUSR2);
	t_queue(RT1, 2);
	t_queue(RT2, 3);
	t_raise(SIGUSR1);
	t_raise(SIGUSR1); /* coalesces */
	t_queue(RT1, 4);
	t_raise(RT1);     /* queued too, SI_TKILL */
	sigemptyset(&p);
	trace.ret = ops->sigpending(&p);
	trace.pending = t_sigset64(&p);
	/* One call unblocks all of them. */
	t_setmask(BIT(SIGHUP));
	t_setmask(0);
}

static void check_order(bool masked, const int (*want)[2], int nwant)
{
	typeof(trace) h;

	memset(&trace, 0, sizeof(trace));
	t_run_host(body_order, masked ? (void *)1 : NULL);
	h = trace;
	memset(&trace, 0, sizeof(trace));
	t_assert_status_exit(t_run_engine(body_order, masked ? (void *)1 : NULL,
					  NULL, NULL),
			     0);
	cr_assert_eq(h.n, nwant, "host: %d deliveries", h.n);
	cr_assert_eq(trace.n, h.n, "engine: %d deliveries, host %d", trace.n,
		     h.n);
	cr_expect_eq(trace.ret, 0);
	cr_expect_eq(trace.pending, h.pending);
	for (int i = 0; i < h.n; i++) {
		const struct tev *a = &h.ev[i], *b = &trace.ev[i];

		cr_expect_eq(a->sig, want[i][0], "host #%d: sig %d", i, a->sig);
		cr_expect_eq(a->value, want[i][1], "host #%d: value %d", i,
			     a->value);
		cr_expect_eq(b->sig, a->sig, "#%d: sig host %d engine %d", i,
			     a->sig, b->sig);
		cr_expect_eq(b->value, a->value, "#%d: value host %d engine %d",
			     i, a->value, b->value);
		cr_expect_eq(b->code, a->code, "#%d: code host %d engine %d", i,
			     a->code, b->code);
		cr_expect_eq(b->uc_sigmask, a->uc_sigmask,
			     "#%d: uc_sigmask host %#lx engine %#lx", i,
			     a->uc_sigmask, b->uc_sigmask);
		cr_expect_eq(b->mask_in, a->mask_in,
			     "#%d: mask host %#lx engine %#lx", i, a->mask_in,
			     b->mask_in);
	}
}

Test(sig_diff, order_of_pending_signals_nested)
{
	/*
	 * Each delivery builds a frame on top of the last, lowest signal
	 * first, until the handler masks block the rest: the last frame
	 * built runs first.  A signal unblocked by a sigreturn is delivered
	 * on top of the frame returned to.
	 */
	static const int want[][2] = {
		{ RT2, 1 }, { RT2, 3 }, { RT1, 2 }, { RT1, 4 },
		{ RT1, -1 }, { SIGUSR2, -1 }, { SIGUSR1, -1 },
	};

	check_order(false, want, 7);
}

Test(sig_diff, order_of_pending_signals_masked)
{
	/* Handlers that block each other run lowest first, RT in order. */
	static const int want[][2] = {
		{ SIGUSR1, -1 }, { SIGUSR2, -1 }, { RT1, 2 }, { RT1, 4 },
		{ RT1, -1 }, { RT2, 1 }, { RT2, 3 },
	};

	check_order(true, want, 7);
}

/* ---- SA_NODEFER, SA_RESETHAND ---- */

static struct {
	char ev[16];
	int n;
	uint64_t mask_in[4];
	struct sigaction in_handler, after;
	int runs;
} nd;

static void nd_ev(char c)
{
	if (nd.n < 15)
		nd.ev[nd.n++] = c;
}

static void h_nested(int sig, siginfo_t *si, void *ucv)
{
	/* Odd runs are the body's raises; each raises once more. */
	int run = nd.runs++;
	char c = (char)('A' + run % 2);
	sigset_t m;

	(void)si;
	(void)ucv;
	nd_ev(c);
	sigemptyset(&m);
	ops->sigprocmask(SIG_BLOCK, NULL, &m);
	if (run < 4)
		nd.mask_in[run] = t_sigset64(&m);
	ops->sigaction(sig, NULL, &nd.in_handler);
	if (run % 2 == 0) {
		t_raise(sig);
		nd_ev('r');
	}
	nd_ev((char)(c - 'A' + 'a'));
}

static void body_nested(struct t_run *r)
{
	int sig = (int)(intptr_t)r->arg >> 8, flags = (int)(intptr_t)r->arg & 0xff;
	int saflags = (flags & 1 ? SA_NODEFER : 0) | (flags & 2 ? SA_RESETHAND : 0);

	t_install(sig, h_nested, saflags, BIT(SIGHUP));
	t_raise(sig);
	nd_ev('.');
	ops->sigaction(sig, NULL, &nd.after);
	/* A second raise meets the reset disposition (ignore for SIGURG). */
	t_raise(sig);
	nd_ev('$');
}

static void check_nested(int sig, int flags, const char *want)
{
	void *arg = (void *)(intptr_t)(sig << 8 | flags);
	typeof(nd) h;

	memset(&nd, 0, sizeof(nd));
	t_run_host(body_nested, arg);
	h = nd;
	memset(&nd, 0, sizeof(nd));
	t_assert_status_exit(t_run_engine(body_nested, arg, NULL, NULL), 0);
	cr_expect_str_eq(h.ev, want, "host events");
	cr_expect_str_eq(nd.ev, h.ev, "events: host %s engine %s", h.ev, nd.ev);
	cr_expect_eq(nd.runs, h.runs);
	for (int i = 0; i < h.runs && i < 4; i++)
		cr_expect_eq(nd.mask_in[i], h.mask_in[i],
			     "run %d mask: host %#lx engine %#lx", i,
			     h.mask_in[i], nd.mask_in[i]);
	cr_expect_eq((void *)nd.in_handler.sa_sigaction,
		     (void *)h.in_handler.sa_sigaction);
	cr_expect_eq(nd.in_handler.sa_flags, h.in_handler.sa_flags,
		     "flags in handler: host %#x engine %#x",
		     h.in_handler.sa_flags, nd.in_handler.sa_flags);
	cr_expect_eq(nd.after.sa_handler, h.after.sa_handler);
	cr_expect_eq(nd.after.sa_flags, h.after.sa_flags,
		     "flags after: host %#x engine %#x", h.after.sa_flags,
		     nd.after.sa_flags);
	cr_expect_eq(t_sigset64(&nd.after.sa_mask), t_sigset64(&h.after.sa_mask));
}

Test(sig_diff, nodefer_nests)
{
	/* A: entry of a run the body raised, B: of the run the handler
	 * raised, r: the handler's raise returned, a/b: exits, '.': back
	 * in the body, '$': after the body's second raise. */
	check_nested(SIGUSR1, 1, "ABbra.ABbra$");
}

Test(sig_diff, default_defers)
{
	check_nested(SIGUSR1, 0, "AraBb.AraBb$");
}

Test(sig_diff, resethand)
{
	/* The raise in the handler meets SIG_DFL: SIGURG is ignored. */
	check_nested(SIGURG, 2, "Ara.$");
	cr_expect_eq(nd.in_handler.sa_handler, SIG_DFL);
	cr_expect_eq(nd.after.sa_handler, SIG_DFL);
	cr_expect(nd.after.sa_flags & SA_RESETHAND, "flags are kept");
}

Test(sig_diff, resethand_nodefer)
{
	check_nested(SIGURG, 3, "Ara.$");
}

/* ---- sigsuspend ---- */

static struct {
	int ret, err, runs;
	uint64_t uc_sigmask, mask_in, after;
} ss;

static void h_suspend(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	sigset_t m;

	(void)sig;
	(void)si;
	ss.runs++;
	ss.uc_sigmask = t_sigset64(&uc->uc_sigmask);
	sigemptyset(&m);
	ops->sigprocmask(SIG_BLOCK, NULL, &m);
	ss.mask_in = t_sigset64(&m);
}

static void body_suspend(struct t_run *r)
{
	sigset_t m;

	(void)r;
	t_install(SIGUSR1, h_suspend, 0, BIT(SIGHUP));
	t_setmask(BIT(SIGUSR1) | BIT(SIGUSR2));
	t_raise(SIGUSR1);
	t_sigset_from64(&m, BIT(SIGUSR2) | BIT(SIGTERM));
	errno = 0;
	ss.ret = ops->sigsuspend(&m);
	ss.err = errno;
	ss.after = t_getmask();
	t_setmask(0);
}

Test(sig_diff, sigsuspend_eintr_and_masks)
{
	typeof(ss) h;

	memset(&ss, 0, sizeof(ss));
	t_run_host(body_suspend, NULL);
	h = ss;
	memset(&ss, 0, sizeof(ss));
	t_assert_status_exit(t_run_engine(body_suspend, NULL, NULL, NULL), 0);
	cr_expect_eq(h.ret, -1);
	cr_expect_eq(h.err, EINTR);
	cr_expect_eq(h.runs, 1);
	cr_expect_eq(ss.ret, h.ret);
	cr_expect_eq(ss.err, h.err);
	cr_expect_eq(ss.runs, h.runs);
	/* The frame holds the mask to go back to; the handler runs with
	 * the temporary one plus its own. */
	cr_expect_eq(h.uc_sigmask, BIT(SIGUSR1) | BIT(SIGUSR2));
	cr_expect_eq(ss.uc_sigmask, h.uc_sigmask, "host %#lx engine %#lx",
		     h.uc_sigmask, ss.uc_sigmask);
	cr_expect_eq(h.mask_in, BIT(SIGUSR2) | BIT(SIGTERM) | BIT(SIGHUP) |
				       BIT(SIGUSR1));
	cr_expect_eq(ss.mask_in, h.mask_in, "host %#lx engine %#lx", h.mask_in,
		     ss.mask_in);
	cr_expect_eq(ss.after, h.after);
	cr_expect_eq(h.after, BIT(SIGUSR1) | BIT(SIGUSR2));
}

/* ---- handlers that corrupt their frame's FP state ---- */

enum corrupt {
	C_NONE,
	C_MXCSR_BIT31,     /* reserved MXCSR bit */
	C_MXCSR_BIT16,
	C_XCOMP_BV,        /* a compacted-format header */
	C_HDR_BYTE16,      /* header bytes 16..23 */
	C_HDR_BYTE24,      /* header bytes 24..63 */
	C_XSTATE_BV_BIT62, /* a component XCR0 does not enable */
	C_MAGIC1,          /* no sw bytes: FX-only restore */
	C_MAGIC1_MXCSR,    /* FX-only with a reserved MXCSR bit */
	C_MAGIC2,          /* no MAGIC2: FX-only restore */
	C_FPREGS_NULL,     /* no FP state: reset to init */
	C_MISALIGN16,      /* the FP area moved by 16 bytes */
	C_MISALIGN8,       /* ... by 8 */
	C_MOVED64,         /* ... by 64: fine */
	C_XSIZE_SMALL,     /* xstate_size too small for xfeatures */
	C_XFEAT_FPSSE,     /* xfeatures x87|SSE with the matching size */
	C_XSIZE_HUGE,      /* xstate_size above the task's: FX-only */
	C_FPREGS_BAD,      /* an unmapped FP pointer */
	C_XSTATE_BV_ZERO,  /* x87 and SSE in their init state */
	C_FCW,             /* a new x87 control word */
	C_MXCSR_BIT17,     /* MM: reserved where MXCSR_MASK lacks it */
	C_XCOMP_NO_SSE,    /* compacted, XSTATE_BV not within XCOMP_BV */
	C_XCOMP_BYTE24,    /* compacted, a reserved header byte */
	C_XCOMP_BIT62,     /* compacted, XCOMP_BV beyond XCR0 */
	C_XCOMP_BV63,      /* compacted, XSTATE_BV bit 63 */
	C_XCOMP_AVX,       /* compacted with AVX state */
	C_XFEAT_ZERO,      /* xfeatures 0: nothing from memory */
	C_XFEAT_SSE,       /* xfeatures SSE alone: x87 from init */
	C_EXT_EQ_BV_ZERO,  /* extended_size == xstate_size: still xsave */
	C_FX_MISALIGN16,   /* FX-only image 16-byte aligned: fine */
	C_FX_MISALIGN8,    /* FX-only image 8-byte aligned */
	C_AVX_UNMAPPED,    /* AVX state read from an unmapped page */
	C_AVX_SMALL_OK,    /* xstate_size 576 with AVX state readable */
	C_SCRIBBLE,        /* the whole ucontext overwritten */
	C_NR
};

static const char *const corrupt_name[] = {
	"none", "mxcsr_bit31", "mxcsr_bit16", "xcomp_bv", "hdr_byte16",
	"hdr_byte24", "xstate_bv_bit62", "magic1", "magic1_mxcsr", "magic2",
	"fpregs_null", "misalign16", "misalign8", "moved64", "xsize_small",
	"xfeat_fpsse", "xsize_huge", "fpregs_bad", "xstate_bv_zero", "fcw",
	"mxcsr_bit17", "xcomp_no_sse", "xcomp_byte24", "xcomp_bit62",
	"xcomp_bv63", "xcomp_avx", "xfeat_zero", "xfeat_sse",
	"ext_eq_bv_zero", "fx_misalign16", "fx_misalign8", "avx_unmapped",
	"avx_small_ok", "scribble",
};
_Static_assert(sizeof(corrupt_name) / sizeof(corrupt_name[0]) == C_NR,
	       "names");

static void h_corrupt(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	unsigned char *fp = (unsigned char *)uc->uc_mcontext.fpregs;
	uint32_t xsize = rd32(fp + 480);
	unsigned char *dst;

	(void)sig;
	(void)si;
	switch ((enum corrupt)(intptr_t)t_cur->arg) {
	case C_NONE:
	case C_NR:
		break;
	case C_MXCSR_BIT31:
		uc->uc_mcontext.fpregs->mxcsr |= 1u << 31;
		break;
	case C_MXCSR_BIT16:
		uc->uc_mcontext.fpregs->mxcsr |= 1u << 16;
		break;
	case C_MXCSR_BIT17:
		uc->uc_mcontext.fpregs->mxcsr |= 1u << 17;
		break;
	case C_XCOMP_BV:
		put64(fp + 520, (1ull << 63) | 3);
		break;
	case C_HDR_BYTE16:
		fp[512 + 16] = 1;
		break;
	case C_HDR_BYTE24:
		fp[512 + 24] = 1;
		break;
	case C_XSTATE_BV_BIT62:
		put64(fp + 512, rd64(fp + 512) | (1ull << 62));
		break;
	case C_MAGIC1:
		put32(fp + 464, 0);
		break;
	case C_MAGIC1_MXCSR:
		put32(fp + 464, 0);
		uc->uc_mcontext.fpregs->mxcsr |= 1u << 31;
		break;
	case C_MAGIC2:
		put32(fp + xsize, 0);
		break;
	case C_FPREGS_NULL:
		uc->uc_mcontext.fpregs = NULL;
		break;
	case C_MISALIGN16:
	case C_MISALIGN8:
	case C_MOVED64:
		dst = (unsigned char *)t_cur->mem + 4096 +
		      ((enum corrupt)(intptr_t)t_cur->arg == C_MISALIGN16 ? 16 :
		       (enum corrupt)(intptr_t)t_cur->arg == C_MISALIGN8  ? 8 :
									    64);
		memcpy(dst, fp, xsize + 4);
		uc->uc_mcontext.fpregs = (fpregset_t)dst;
		break;
	case C_XSIZE_SMALL:
		put32(fp + 480, 576);
		put32(fp + 468, 580);
		put32(fp + 576, FP_MAGIC2);
		break;
	case C_XFEAT_FPSSE:
		put64(fp + 472, 3);
		put32(fp + 480, 576);
		put32(fp + 468, 580);
		put32(fp + 576, FP_MAGIC2);
		break;
	case C_XSIZE_HUGE:
		put32(fp + 480, xsize + 64);
		put32(fp + 468, xsize + 68);
		break;
	case C_FPREGS_BAD:
		uc->uc_mcontext.fpregs = (fpregset_t)(uintptr_t)64;
		break;
	case C_XSTATE_BV_ZERO:
		put64(fp + 512, 0);
		break;
	case C_FCW:
		uc->uc_mcontext.fpregs->cwd = REDIR_FCW;
		break;
	case C_XCOMP_NO_SSE:
		put64(fp + 520, (1ull << 63) | 1);
		break;
	case C_XCOMP_BYTE24:
		put64(fp + 520, (1ull << 63) | 3);
		fp[512 + 24] = 1;
		break;
	case C_XCOMP_BIT62:
		put64(fp + 520, (1ull << 63) | (1ull << 62) | 3);
		break;
	case C_XCOMP_BV63:
		put64(fp + 520, (1ull << 63) | 3);
		put64(fp + 512, (1ull << 63) | 3);
		break;
	case C_XCOMP_AVX:
		put64(fp + 520, (1ull << 63) | 7);
		put64(fp + 512, 7);
		break;
	case C_XFEAT_ZERO:
		put64(fp + 472, 0);
		break;
	case C_XFEAT_SSE:
		put64(fp + 472, 2);
		break;
	case C_EXT_EQ_BV_ZERO:
		put32(fp + 468, xsize);
		put64(fp + 512, 0);
		break;
	case C_FX_MISALIGN16:
	case C_FX_MISALIGN8:
		dst = (unsigned char *)t_cur->mem + 4096 +
		      ((enum corrupt)(intptr_t)t_cur->arg == C_FX_MISALIGN16 ?
			       16 :
			       8);
		memcpy(dst, fp, 512);
		put32(dst + 464, 0);
		uc->uc_mcontext.fpregs = (fpregset_t)dst;
		break;
	case C_SCRIBBLE:
		memset(uc, 0xa5, 304);
		break;
	case C_AVX_UNMAPPED:
	case C_AVX_SMALL_OK:
		/* xstate_size 576 and AVX in XSTATE_BV: XRSTOR reads the
		 * AVX component past the end of what xstate_size says. */
		dst = (unsigned char *)(((uintptr_t)t_cur->mem + T_MEM - 580) &
					~(uintptr_t)63);
		if ((enum corrupt)(intptr_t)t_cur->arg == C_AVX_SMALL_OK)
			dst -= 4096;
		memcpy(dst, fp, 576);
		put32(dst + 480, 576);
		put32(dst + 468, 580);
		put32(dst + 576, FP_MAGIC2);
		put64(dst + 512, 7);
		uc->uc_mcontext.fpregs = (fpregset_t)dst;
		break;
	}
}

/* Exit codes: 64 + which control words the interrupted code got back. */
static int fpctl_code(uint32_t mxcsr, uint16_t fcw)
{
	int c = 64;

	c |= mxcsr == MXCSR_TEST ? 1 : mxcsr == MXCSR_DEFAULT ? 2 : 3;
	c |= (fcw == FCW_TEST ? 1 : fcw == FCW_DEFAULT ? 2 :
				    fcw == REDIR_FCW ? 3 : 0) << 2;
	return c;
}

static void body_corrupt(struct t_run *r)
{
	uint32_t mxcsr;
	uint16_t fcw;

	(void)r;
	t_install(SIG_A, h_corrupt, 0, 0);
	t_set_fpctl(MXCSR_TEST, FCW_TEST);
	t_raise(SIG_A);
	mxcsr = t_get_mxcsr();
	fcw = t_get_fcw();
	t_set_fpctl(MXCSR_DEFAULT, FCW_DEFAULT);
	ops->exit(fpctl_code(mxcsr, fcw));
}

static int corrupt_outcome(enum corrupt c, int *host)
{
	void *arg = (void *)(intptr_t)c;

	*host = t_run_host_child(body_corrupt, arg);
	return t_run_engine(body_corrupt, arg, NULL, NULL);
}

static const char *status_str(int st, char *buf, size_t n)
{
	if (WIFEXITED(st))
		snprintf(buf, n, "exit %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, n, "signal %d", WTERMSIG(st));
	else
		snprintf(buf, n, "status %#x", st);
	return buf;
}

Test(sig_diff, corrupt_fp_state_outcomes)
{
	for (int c = 0; c < C_NR; c++) {
		char hb[32], eb[32];
		int host, eng = corrupt_outcome((enum corrupt)c, &host);
		bool same = WIFEXITED(host) ?
				    WIFEXITED(eng) &&
					    WEXITSTATUS(eng) == WEXITSTATUS(host) :
				    WIFSIGNALED(eng) &&
					    WTERMSIG(eng) == WTERMSIG(host);

		status_str(host, hb, sizeof(hb));
		status_str(eng, eb, sizeof(eb));
		cr_expect(same, "%s: host %s, engine %s", corrupt_name[c], hb,
			  eb);
		cr_log_info("%-16s host %-10s engine %s", corrupt_name[c], hb,
			    eb);
	}
}

/* ---- SA_RESTART: a blocking call interrupted by a handler ---- */

/*
 * The blocking call: read() of an empty pipe on the host (a helper
 * thread signals this thread once it sleeps in read), ua_sys_futex_wait()
 * under the engine (a syscall hook sends the signal on its first entry).
 * The handler makes the call's condition true (a byte in the pipe, a new
 * futex word): restarted, the call then returns at once (1 byte / EAGAIN);
 * not restarted, it fails with EINTR.
 */
static struct {
	int fds[2];
	int ret, err, runs, entries;
	pid_t tid;
} rs;

static void h_restart(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	(void)si;
	(void)ucv;
	rs.runs++;
	if (ops->engine)
		*(volatile int *)t_cur->mem = 1; /* the futex word */
	else if (write(rs.fds[1], "x", 1) != 1)
		rs.runs = -100;
}

static pthread_t host_self;

static void *host_interrupter(void *arg)
{
	char path[64], buf[64];

	(void)arg;
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", rs.tid);
	for (;;) {
		FILE *f = fopen(path, "r");
		bool in_read = f && fgets(buf, sizeof(buf), f) &&
			       !strncmp(buf, "0 ", 2);

		if (f)
			fclose(f);
		if (in_read)
			break;
		sched_yield();
	}
	pthread_kill(host_self, SIGUSR1);
	return NULL;
}

static bool futex_hook(struct ua_task *t, struct ua_pt_regs *regs, void *data)
{
	(void)data;
	if (regs->orig_rax == UA_NR_futex_wait && rs.entries++ == 0)
		ua_task_kill(t, SIGUSR1);
	return false;
}

static void body_restart(struct t_run *r)
{
	int *word = (int *)r->mem;
	char c;

	t_install(SIGUSR1, h_restart, r->arg ? SA_RESTART : 0, 0);
	errno = 0;
	if (ops->engine) {
		*word = 0;
		rs.ret = ua_sys_futex_wait(word, 0);
		rs.err = errno;
		return;
	}
	rs.ret = (int)read(rs.fds[0], &c, 1);
	rs.err = errno;
}

static void check_restart(bool restart)
{
	typeof(rs) h;
	pthread_t th;

	memset(&rs, 0, sizeof(rs));
	cr_assert_eq(pipe(rs.fds), 0);
	rs.tid = (pid_t)syscall(SYS_gettid);
	host_self = pthread_self();
	cr_assert_eq(pthread_create(&th, NULL, host_interrupter, NULL), 0);
	t_run_host(body_restart, restart ? (void *)1 : NULL);
	pthread_join(th, NULL);
	close(rs.fds[0]);
	close(rs.fds[1]);
	h = rs;
	memset(&rs, 0, sizeof(rs));
	t_assert_status_exit(t_run_engine(body_restart,
					  restart ? (void *)1 : NULL,
					  futex_hook, NULL),
			     0);
	cr_expect_eq(h.runs, 1);
	cr_expect_eq(rs.runs, 1);
	if (restart) {
		cr_expect_eq(h.ret, 1, "host: read restarted");
		cr_expect_eq(rs.ret, -1);
		cr_expect_eq(rs.err, EAGAIN, "engine: futex_wait restarted");
		cr_expect_eq(rs.entries, 2, "engine: entered again");
	} else {
		cr_expect_eq(h.ret, -1);
		cr_expect_eq(h.err, EINTR);
		cr_expect_eq(rs.ret, h.ret);
		cr_expect_eq(rs.err, h.err);
		cr_expect_eq(rs.entries, 1);
	}
}

Test(sig_diff, sa_restart_restarts)
{
	check_restart(true);
}

Test(sig_diff, no_sa_restart_eintr)
{
	check_restart(false);
}

/* ---- sigaction, sigprocmask, sigaltstack: arguments and errors ---- */

#define NCALLS 40

static struct {
	int ret[NCALLS], err[NCALLS];
	uint64_t val[NCALLS];
	int n;
} calls;

static void note(int ret, uint64_t val)
{
	if (calls.n < NCALLS) {
		calls.ret[calls.n] = ret;
		calls.err[calls.n] = ret ? errno : 0;
		calls.val[calls.n] = val;
		calls.n++;
	}
	errno = 0;
}

/* Each call is made before note() reads what it stored. */
#define NOTE(call, val)                \
	do {                           \
		int r_ = (call);       \
		note(r_, (val));       \
	} while (0)

static void body_sigaction_args(struct t_run *r)
{
	struct sigaction sa, old;
	static const int bad[] = { SIGKILL, SIGSTOP, 0, 65, -1 };

	(void)r;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = t_tramp;
	/* Every flag, known or not: the unknown ones read back as 0. */
	sa.sa_flags = SA_SIGINFO | K_SA_UNSUPPORTED | 0x00100000 | SA_ONSTACK |
		      SA_RESTART | SA_NODEFER | SA_RESETHAND | SA_NOCLDSTOP |
		      SA_NOCLDWAIT | 0x800;
	t_sigset_from64(&sa.sa_mask, BIT(SIGKILL) | BIT(SIGSTOP) | BIT(SIGUSR2) |
					     BIT(64));
	errno = 0;
	NOTE(ops->sigaction(SIGUSR1, &sa, NULL), 0);
	memset(&old, 0, sizeof(old));
	NOTE(ops->sigaction(SIGUSR1, NULL, &old), (unsigned)old.sa_flags);
	note(0, t_sigset64(&old.sa_mask));
	note(0, old.sa_sigaction == t_tramp);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		NOTE(ops->sigaction(bad[i], &sa, NULL), 0);
	/* Querying SIGKILL is fine. */
	memset(&old, 0xff, sizeof(old));
	NOTE(ops->sigaction(SIGKILL, NULL, &old), old.sa_handler == SIG_DFL);
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = 0;
	ops->sigaction(SIGUSR1, &sa, NULL);
}

static void body_sigprocmask_args(struct t_run *r)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigset_t s, o;

	(void)r;
	errno = 0;
	t_sigset_from64(&s, ~0ull);
	NOTE(ops->sigprocmask(SIG_SETMASK, &s, NULL), 0);
	note(0, t_getmask());
	NOTE(ops->sigprocmask(SIG_UNBLOCK, &s, &o), t_sigset64(&o));
	note(0, t_getmask());
	t_sigset_from64(&s, BIT(SIGKILL) | BIT(SIGUSR1));
	NOTE(ops->sigprocmask(SIG_BLOCK, &s, NULL), 0);
	note(0, t_getmask());
	NOTE(ops->sigprocmask(99, &s, NULL), 0);
	/* A bad how with no set is only a query. */
	NOTE(ops->sigprocmask(99, NULL, &o), t_sigset64(&o));
	t_raise(SIGUSR1);
	sigemptyset(&o);
	NOTE(ops->sigpending(&o), t_sigset64(&o));
	/* Ignoring a pending signal drops it. */
	ops->sigaction(SIGUSR1, &ign, NULL);
	sigemptyset(&o);
	NOTE(ops->sigpending(&o), t_sigset64(&o));
	t_setmask(0);
}

static void body_sigaltstack_args(struct t_run *r)
{
	static const struct {
		size_t off, size;
		int flags;
	} set[] = {
		{ 0, K_MINSIGSTKSZ - 1, 0 }, /* ENOMEM */
		{ 0, K_MINSIGSTKSZ, 0 },
		{ 0, 4096, 0 },
		{ 0, 8192, 0x1234 },            /* EINVAL */
		{ 0, 8192, SS_ONSTACK },        /* stored as given */
		{ 4096, 8192, (int)SS_AUTODISARM },
		{ 0, 8192, SS_DISABLE | 0x10 }, /* EINVAL */
		{ 4096, 1, SS_DISABLE },        /* size ignored */
	};
	stack_t q;

	errno = 0;
	for (unsigned i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
		stack_t ss = { .ss_sp = r->mem + set[i].off,
			       .ss_size = set[i].size,
			       .ss_flags = set[i].flags };

		NOTE(ops->sigaltstack(&ss, NULL), 0);
		memset(&q, 0x55, sizeof(q));
		NOTE(ops->sigaltstack(NULL, &q), (uint64_t)q.ss_size);
		note(0, (uint64_t)mem_off(q.ss_sp));
		note(0, (uint32_t)q.ss_flags);
	}
}

static void check_calls(t_body body)
{
	typeof(calls) h;

	memset(&calls, 0, sizeof(calls));
	t_run_host(body, NULL);
	h = calls;
	memset(&calls, 0, sizeof(calls));
	t_assert_status_exit(t_run_engine(body, NULL, NULL, NULL), 0);
	cr_assert_eq(calls.n, h.n);
	for (int i = 0; i < h.n; i++) {
		cr_log_info("#%d: host %d/%d/%#lx engine %d/%d/%#lx", i, h.ret[i],
			    h.err[i], h.val[i], calls.ret[i], calls.err[i],
			    calls.val[i]);
		cr_expect_eq(calls.ret[i], h.ret[i], "#%d: ret host %d engine %d",
			     i, h.ret[i], calls.ret[i]);
		cr_expect_eq(calls.err[i], h.err[i],
			     "#%d: errno host %d engine %d", i, h.err[i],
			     calls.err[i]);
		cr_expect_eq(calls.val[i], h.val[i],
			     "#%d: value host %#lx engine %#lx", i, h.val[i],
			     calls.val[i]);
	}
}

Test(sig_diff, sigaction_arguments)
{
	check_calls(body_sigaction_args);
	/* Unknown flags read back as 0; KILL and STOP leave sa_mask. */
	cr_expect_eq(calls.val[1],
		     (uint64_t)(SA_SIGINFO | SA_ONSTACK | SA_RESTART | SA_NODEFER |
				SA_RESETHAND | SA_NOCLDSTOP | SA_NOCLDWAIT |
				K_SA_RESTORER | 0x800));
	cr_expect_eq(calls.val[2], BIT(SIGUSR2) | BIT(64));
	cr_expect_eq(calls.val[3], 1);
	for (int i = 4; i < 9; i++)
		cr_expect_eq(calls.err[i], EINVAL, "#%d", i);
	cr_expect_eq(calls.ret[9], 0);
	cr_expect_eq(calls.val[9], 1);
}

Test(sig_diff, sigprocmask_arguments)
{
	check_calls(body_sigprocmask_args);
	cr_expect_eq(calls.val[1], ~(BIT(SIGKILL) | BIT(SIGSTOP)));
	cr_expect_eq(calls.val[2], ~(BIT(SIGKILL) | BIT(SIGSTOP)));
	cr_expect_eq(calls.val[3], 0);
	cr_expect_eq(calls.val[5], BIT(SIGUSR1));
	cr_expect_eq(calls.err[6], EINVAL);
	cr_expect_eq(calls.val[7], BIT(SIGUSR1));
	cr_expect_eq(calls.val[8], BIT(SIGUSR1));
	cr_expect_eq(calls.val[9], 0);
}

Test(sig_diff, sigaltstack_arguments)
{
	check_calls(body_sigaltstack_args);
	/* Four notes per call: set, then the query's size, sp, flags. */
	cr_expect_eq(calls.err[0], ENOMEM);
	cr_expect_eq(calls.val[3], SS_DISABLE);
	cr_expect_eq(calls.ret[4], 0, "MINSIGSTKSZ (2048) is enough");
	cr_expect_eq(calls.ret[8], 0, "4096 bytes is enough for the kernel");
	cr_expect_eq(calls.val[9], 4096);
	cr_expect_eq(calls.err[12], EINVAL);
	cr_expect_eq(calls.ret[16], 0);
	cr_expect_eq(calls.val[19], 0, "a stored SS_ONSTACK is not reported");
	cr_expect_eq(calls.val[22], 4096);
	cr_expect_eq(calls.val[23], SS_AUTODISARM);
	cr_expect_eq(calls.err[24], EINVAL);
	cr_expect_eq(calls.val[29], 0, "SS_DISABLE: no size");
	cr_expect_eq(calls.val[30], (uint64_t)-1, "SS_DISABLE: no sp");
	cr_expect_eq(calls.val[31], SS_DISABLE);
}

/* ---- stack overflow on the altstack ---- */

static volatile int *depth_seen;

static void h_deeper(int sig, siginfo_t *si, void *ucv)
{
	(void)si;
	(void)ucv;
	if (++*depth_seen < 200)
		t_raise(sig);
}

/* Nested SA_ONSTACK|SA_NODEFER signals until the altstack is full. */
static void body_overflow(struct t_run *r)
{
	size_t size = (size_t)(uintptr_t)r->arg;
	stack_t ss = { .ss_sp = r->mem + 65536, .ss_size = size };

	*depth_seen = 0;
	ops->sigaltstack(&ss, NULL);
	t_install(SIGUSR1, h_deeper, SA_ONSTACK | SA_NODEFER, 0);
	t_raise(SIGUSR1);
	ops->exit(1);
}

/*
 * Does the first frame fit on a fresh altstack of size bytes?  The
 * kernel's placement from the top (no red zone there): the FP area, then
 * the frame below it, which must stay above the altstack's base.  The FP
 * area's size comes from CPUID.
 */
static bool first_frame_fits(size_t size)
{
	uint64_t base = 1ull << 32, top = base + size;
	uint64_t fp = (top - t_fpu_frame_size()) & ~63ull;
	uint64_t frame = ((fp - 440) & ~15ull) - 8;

	return frame > base;
}

/* want_depth < 0: only host and engine compared.  The host's depth. */
static int check_overflow(size_t size, int want_depth)
{
	int host, eng, dh;

	depth_seen = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(depth_seen, MAP_FAILED);
	host = t_run_host_child(body_overflow, (void *)(uintptr_t)size);
	dh = *depth_seen;
	eng = t_run_engine(body_overflow, (void *)(uintptr_t)size, NULL, NULL);
	t_assert_status_sig(host, SIGSEGV);
	t_assert_status_sig(eng, SIGSEGV);
	cr_expect_eq(*depth_seen, dh, "depth: host %d engine %d", dh,
		     *depth_seen);
	if (want_depth >= 0)
		cr_expect_eq(dh, want_depth, "host depth %d, %d expected from "
			     "a %u-byte FP area", dh, want_depth,
			     t_fpu_frame_size());
	munmap((void *)depth_seen, 4096);
	return dh;
}

Test(sig_diff, altstack_overflow_nested)
{
	check_overflow(16384, -1);
}

Test(sig_diff, altstack_overflow_tiny)
{
	/*
	 * The kernel's MINSIGSTKSZ (2048): whether one frame fits depends on
	 * the XSAVE size (not with AVX-512 or PKRU); two never do, the
	 * handler's own stack comes between them.
	 */
	check_overflow(K_MINSIGSTKSZ, first_frame_fits(K_MINSIGSTKSZ) ? 1 : 0);
}

Test(sig_diff, altstack_overflow_minsigstksz)
{
	/* The kernel's AT_MINSIGSTKSZ promises room for one frame. */
	size_t min = getauxval(AT_MINSIGSTKSZ);

	if (!min)
		cr_skip_test("the kernel gives no AT_MINSIGSTKSZ");
	if (min < K_MINSIGSTKSZ)
		min = K_MINSIGSTKSZ;
	cr_expect(first_frame_fits(min), "AT_MINSIGSTKSZ %zu, FP area %u", min,
		  t_fpu_frame_size());
	cr_expect_geq(check_overflow(min, -1), 1);
}

/* ---- default actions ---- */

static void body_default(struct t_run *r)
{
	t_raise((int)(intptr_t)r->arg);
	ops->exit(3);
}

Test(sig_diff, default_actions)
{
	static const int sigs[] = { SIGHUP,  SIGINT,  SIGQUIT, SIGILL,  SIGTRAP,
				    SIGABRT, SIGBUS,  SIGFPE,  SIGKILL, SIGUSR1,
				    SIGSEGV, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM,
				    SIGSTKFLT, SIGCHLD, SIGCONT, SIGURG, SIGXCPU,
				    SIGXFSZ, SIGVTALRM, SIGPROF, SIGWINCH, SIGIO,
				    SIGPWR, SIGSYS, 36, 64 };

	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		void *arg = (void *)(intptr_t)sigs[i];
		int host = t_run_host_child(body_default, arg);
		int eng = t_run_engine(body_default, arg, NULL, NULL);
		char hb[32], eb[32];

		status_str(host, hb, sizeof(hb));
		status_str(eng, eb, sizeof(eb));
		cr_expect_str_eq(eb, hb, "signal %d: host %s engine %s", sigs[i],
				 hb, eb);
	}
}

/* ---- a queued signal from the monitor side ---- */

static bool nop_queue_hook(struct ua_task *t, struct ua_pt_regs *regs,
			   void *data)
{
	(void)data;
	if (regs->orig_rax == UA_NR_nop)
		ua_task_sigqueue(t, SIG_A, (union sigval){ .sival_int = 0x777 });
	return false;
}

static void body_monitor_queue(struct t_run *r)
{
	(void)r;
	t_install(SIG_A, h_observe, 0, 0);
	t_setmask(BIT(SIGUSR2));
	/* Host: sigqueue() to this thread; engine: the monitor queues it
	 * (ua_task_sigqueue from a syscall hook) during a null syscall. */
	if (ops->engine)
		ua_sys_nop();
	else
		t_queue(SIG_A, 0x777);
	t_setmask(0);
}

Test(sig_diff, monitor_sigqueue_siginfo)
{
	struct record host;
	const struct obs *h = &host.o[0], *e = &rec.o[0];

	memset(&rec, 0, sizeof(rec));
	t_run_host(body_monitor_queue, NULL);
	host = rec;
	memset(&rec, 0, sizeof(rec));
	t_assert_status_exit(t_run_engine(body_monitor_queue, NULL,
					  nop_queue_hook, NULL),
			     0);
	cr_assert_eq(host.n, 1);
	cr_assert_eq(rec.n, 1);
	SAME(sig, "%d");
	SAME(code, "%d");
	SAME(pid, "%d");
	SAME(uid, "%d");
	SAME(value, "%#x");
	SAME(uc_flags, "%#lx");
	SAME(uc_sigmask, "%#lx");
	SAME(mask_in, "%#lx");
	SAME(align, "%ld");
	cr_expect_eq(e->code, SI_QUEUE);
	cr_expect_eq(e->value, 0x777);
	cr_expect_eq(e->pid, getpid());
}

/* ---- a fault in the code a handler returns to ---- */

static struct {
	int sig, code, runs;
	uint64_t addr, rip, trapno, err, cr2;
} flt;

static void h_to_null(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	(void)si;
	uc->uc_mcontext.gregs[REG_RIP] = 0x10;
}

static void *flt_shared;

static void h_fault(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	flt.sig = sig;
	flt.code = si->si_code;
	flt.addr = (uint64_t)(uintptr_t)si->si_addr;
	flt.rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	flt.trapno = (uint64_t)uc->uc_mcontext.gregs[REG_TRAPNO];
	flt.err = (uint64_t)uc->uc_mcontext.gregs[REG_ERR];
	flt.cr2 = (uint64_t)uc->uc_mcontext.gregs[REG_CR2];
	flt.runs++;
	if (!ops->engine)
		memcpy(flt_shared, &flt, sizeof(flt));
	ops->exit(42);
}

static void body_fault(struct t_run *r)
{
	stack_t ss = { .ss_sp = r->mem, .ss_size = ALT_SIZE };

	ops->sigaltstack(&ss, NULL);
	t_install(SIGSEGV, h_fault, SA_ONSTACK, 0);
	t_install(SIG_A, h_to_null, 0, 0);
	t_raise(SIG_A);
	ops->exit(1);
}

Test(sig_diff, fault_after_handler_redirect)
{
	typeof(flt) h;
	int st;

	flt_shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(flt_shared, MAP_FAILED);
	st = t_run_host_child(body_fault, NULL);
	t_assert_status_exit(st, 42);
	memcpy(&h, flt_shared, sizeof(h));
	memset(&flt, 0, sizeof(flt));
	t_assert_status_exit(t_run_engine(body_fault, NULL, NULL, NULL), 42);
	cr_expect_eq(h.sig, SIGSEGV);
	cr_expect_eq(h.code, SEGV_MAPERR);
	cr_expect_eq(h.addr, 0x10);
	cr_expect_eq(flt.sig, h.sig);
	cr_expect_eq(flt.code, h.code, "si_code: host %d engine %d", h.code,
		     flt.code);
	cr_expect_eq(flt.addr, h.addr);
	cr_expect_eq(flt.rip, h.rip, "rip: host %#lx engine %#lx", h.rip,
		     flt.rip);
	cr_expect_eq(flt.trapno, h.trapno, "trapno: host %lu engine %lu",
		     h.trapno, flt.trapno);
	cr_expect_eq(flt.cr2, h.cr2, "cr2: host %#lx engine %#lx", h.cr2,
		     flt.cr2);
	cr_log_info("page fault error code: host %#lx engine %#lx", h.err,
		    flt.err);
	munmap(flt_shared, 4096);
}
