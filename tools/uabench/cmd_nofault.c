// SPDX-License-Identifier: MIT
/*
 * nofault: "read these 8 bytes if they are mapped", the library's way
 * against the idioms in use today (crash reporters, profilers, debuggers):
 * process_vm_readv on our own pid, write() of the bytes into a pipe (the
 * kernel copies them or fails with EFAULT), and a sigsetjmp(env, 0) probe
 * whose SIGSEGV handler siglongjmps back.  Once on a mapped address (the
 * success path every target is about) and once on an unmapped one.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "uabench.h"

/* Writes between drains of the probe pipe (8 KiB: far below its 64 KiB). */
#define PIPE_DRAIN 1024

struct nf_arg {
	const void *addr;
	bool expect_fault;
	pid_t pid;
	int pfd[2];
	unsigned pending; /* writes since the pipe was last drained */
};

static void check(const struct nf_arg *a, int failed, const char *what)
{
	if (!!failed != a->expect_fault)
		bench_die("nofault: %s %s on the %s address", what,
			  failed ? "failed" : "succeeded",
			  a->expect_fault ? "unmapped" : "mapped");
}

static void nf_get(void *p, uint64_t n)
{
	struct nf_arg *a = p;
	const uint64_t *src = a->addr;
	uint64_t x = 0, sum = 0;

	for (uint64_t i = 0; i < n; i++) {
		int err = ua_get_kernel_nofault(x, src);

		if (ua_unlikely((err != 0) != a->expect_fault))
			check(a, err, "ua_get_kernel_nofault");
		sum += x;
	}
	bench_opaque(sum);
}

static void nf_copy(void *p, uint64_t n)
{
	struct nf_arg *a = p;
	uint64_t buf;

	for (uint64_t i = 0; i < n; i++) {
		long err = ua_copy_from_kernel_nofault(&buf, a->addr, 8);

		if (ua_unlikely((err != 0) != a->expect_fault))
			check(a, (int)err, "ua_copy_from_kernel_nofault");
		bench_barrier();
	}
}

static void nf_pvr(void *p, uint64_t n)
{
	struct nf_arg *a = p;
	uint64_t buf;
	struct iovec local = { &buf, 8 };
	struct iovec remote = { (void *)a->addr, 8 };

	for (uint64_t i = 0; i < n; i++) {
		ssize_t r = process_vm_readv(a->pid, &local, 1, &remote, 1, 0);

		if (ua_unlikely((r != 8) != a->expect_fault))
			check(a, r != 8, "process_vm_readv");
		bench_barrier();
	}
}

/* The drain is part of the idiom's price: a pipe holds only 64 KiB. */
static void nf_pipe(void *p, uint64_t n)
{
	struct nf_arg *a = p;
	char sink[PIPE_DRAIN * 8];

	for (uint64_t i = 0; i < n; i++) {
		ssize_t r = write(a->pfd[1], a->addr, 8);

		if (ua_unlikely((r != 8) != a->expect_fault))
			check(a, r != 8, "write into a pipe");
		if (r == 8 && ++a->pending == PIPE_DRAIN) {
			if (read(a->pfd[0], sink, sizeof(sink)) < 0)
				bench_die("nofault: pipe drain: %s",
					  strerror(errno));
			a->pending = 0;
		}
	}
}

/*
 * The sigsetjmp idiom.  Its handler is installed after ua_init(), so it
 * runs first; following the library's contract (fault.h) it hands every
 * fault to ua_handle_fault() before anything else, so faults of the
 * library's own accessors still reach their fixups, and it gives faults
 * that are neither the library's nor a probe's to the library's handler,
 * which chains on to whatever came before.  The fairness question is only
 * the fault path: there the probe pays an exception-table search before
 * its siglongjmp (a binary search, small beside the signal delivery both
 * pay), and the library's accessors pay one extra function call.  The
 * success path, which the design target is about, is untouched by either.
 *
 * sigsetjmp(env, 0) does not save the signal mask, so the handler runs
 * with SA_NODEFER: otherwise SIGSEGV would stay blocked after the
 * siglongjmp and the next probe fault would kill the process.
 */
static __thread sigjmp_buf *volatile probe_jb;
static struct sigaction probe_prev;

static void probe_handler(int sig, siginfo_t *info, void *uc)
{
	sigjmp_buf *jb = probe_jb;

	if (ua_handle_fault(sig, info, uc))
		return;
	if (jb && info->si_code > 0) {
		probe_jb = NULL;
		siglongjmp(*jb, 1);
	}
	if (probe_prev.sa_flags & SA_SIGINFO) {
		probe_prev.sa_sigaction(sig, info, uc);
		return;
	}
	signal(sig, SIG_DFL); /* the faulting access repeats, fatally */
}

static __attribute__((noinline)) int probe_read8(const void *p, uint64_t *v)
{
	sigjmp_buf jb;

	if (sigsetjmp(jb, 0))
		return -EFAULT;
	probe_jb = &jb;
	*v = *(const volatile uint64_t *)p;
	probe_jb = NULL;
	return 0;
}

static void nf_probe(void *p, uint64_t n)
{
	struct nf_arg *a = p;
	uint64_t x = 0, sum = 0;

	for (uint64_t i = 0; i < n; i++) {
		int err = probe_read8(a->addr, &x);

		if (ua_unlikely((err != 0) != a->expect_fault))
			check(a, err, "the sigsetjmp probe");
		sum += x;
	}
	bench_opaque(sum);
}

static void nf_plain(void *p, uint64_t n)
{
	const volatile uint64_t *src = ((struct nf_arg *)p)->addr;
	uint64_t sum = 0;

	for (uint64_t i = 0; i < n; i++)
		sum += *src;
	bench_opaque(sum);
}

static void probe_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = probe_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &probe_prev))
		bench_die("nofault: sigaction: %s", strerror(errno));
}

static void probe_remove(void)
{
	sigaction(SIGSEGV, &probe_prev, NULL);
}

/* NULL when process_vm_readv works on our own memory here, else why not. */
static const char *pvr_unavailable(struct nf_arg *a)
{
	static char why[96];
	uint64_t buf;
	struct iovec local = { &buf, 8 }, remote = { (void *)a->addr, 8 };

	if (process_vm_readv(a->pid, &local, 1, &remote, 1, 0) == 8)
		return NULL;
	snprintf(why, sizeof(why), "process_vm_readv: %s", strerror(errno));
	return why;
}

static void nf_defaults(struct bench_opts *o, bool in_report, bool quick)
{
	if (!o->reps)
		o->reps = quick ? 5 : in_report ? 21 : 31;
	if (!o->rep_us)
		o->rep_us = quick ? 200 : 2000;
}

static int run_addr(struct bench_ctx *ctx, struct bench_doc *doc,
		    struct nf_arg *a, const char *label, const char *pvr_why)
{
	struct bench_case c = {
		.group = "nofault",
		.label = label,
		.size = 8,
		.nmeth = a->expect_fault ? 5 : 6,
		.ref = 2,
		.m = { { "get_kernel_nofault", nf_get, a, NULL, NULL },
		       { "copy_from_kernel_nofault", nf_copy, a, NULL, NULL },
		       { "process_vm_readv", nf_pvr, a, pvr_why, NULL },
		       { "pipe_write", nf_pipe, a, NULL, NULL },
		       { "sigsetjmp_probe", nf_probe, a, NULL, NULL },
		       { "plain_load", nf_plain, a, NULL, NULL } },
	};

	return bench_run_case(ctx, &c, doc);
}

static int nf_run(struct bench_ctx *ctx, struct bench_doc *doc)
{
	static uint64_t word = 0x1122334455667788ull;
	struct nf_arg a = { .addr = &word, .pid = getpid() };
	struct bench_space s;
	const char *pvr_why;
	char *res;
	int idx, err;

	/* A guest space exists, so the -ERANGE check has a registry to walk. */
	err = bench_space_open(&s, UA_PROTECT_NONE, 4096);
	if (err)
		bench_die("nofault: cannot create a space: %s", strerror(-err));
	/* A hole between two reserved pages: nothing else is mapped there. */
	res = mmap(NULL, 3 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		   0);
	if (res == MAP_FAILED || munmap(res + 4096, 4096))
		bench_die("nofault: mmap: %s", strerror(errno));
	if (pipe2(a.pfd, O_NONBLOCK | O_CLOEXEC))
		bench_die("nofault: pipe2: %s", strerror(errno));
	pvr_why = pvr_unavailable(&a);
	if (pvr_why)
		bench_doc_note(doc, "%s: not measured", pvr_why);
	bench_doc_note(doc, "unmapped: a page-sized hole between two "
			    "PROT_NONE pages; the fault path of each method");
	ctx->cases_total += 2;
	probe_install();

	idx = run_addr(ctx, doc, &a, "mapped", pvr_why);
	bench_ratio_add(
		doc, idx, "get_kernel_nofault", "process_vm_readv",
		"nofault_vs_pvr", true,
		"ua_get_kernel_nofault vs process_vm_readv, 8 B mapped");
	bench_ratio_add(doc, idx, "get_kernel_nofault", "sigsetjmp_probe",
			"nofault_vs_sigsetjmp", true,
			"ua_get_kernel_nofault vs sigsetjmp(0) probe, 8 B "
			"mapped");
	bench_ratio_add(doc, idx, "get_kernel_nofault", "pipe_write", NULL,
			false,
			"ua_get_kernel_nofault vs write() into a pipe, 8 B "
			"mapped");

	a.addr = res + 4096;
	a.expect_fault = true;
	idx = run_addr(ctx, doc, &a, "unmapped", pvr_why);
	bench_ratio_add(doc, idx, "get_kernel_nofault", "process_vm_readv",
			NULL, false,
			"ua_get_kernel_nofault vs process_vm_readv, unmapped");
	bench_ratio_add(
		doc, idx, "get_kernel_nofault", "sigsetjmp_probe", NULL, false,
		"ua_get_kernel_nofault vs sigsetjmp(0) probe, unmapped");

	probe_remove();
	close(a.pfd[0]);
	close(a.pfd[1]);
	munmap(res, 3 * 4096);
	bench_space_close(&s);
	return 0;
}

const struct bench_cmd bench_cmd_nofault = {
	.name = "nofault",
	.summary = "nofault reads vs process_vm_readv, pipe, sigsetjmp probe",
	.usage = NULL,
	.opts = 0,
	.defaults = nf_defaults,
	.run = nf_run,
	.in_report = true,
};
