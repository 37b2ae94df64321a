// SPDX-License-Identifier: MIT
/*
 * trap: the cost of a trapped `syscall` instruction (getppid) under
 * Syscall User Dispatch, per backend and frame mode, against the host's
 * own getppid() measured in the same run.
 *
 * The trapped calls are made by the guest code of a task created with
 * trap_syscalls: each one is a SIGSYS, the monitor's entry and exit and
 * the Linux table's getppid.  The native getppid() cannot run inside that
 * task (it would be trapped too), so each repetition runs a task made
 * beforehand, untimed, whose guest code makes the N calls; the timed part
 * is ua_task_run(), i.e. the N trapped calls plus one task entry and exit
 * (amortised over N, which a repetition of several milliseconds makes
 * small).  Frame mode does not change a call that delivers no signal: it
 * is measured to show exactly that.
 *
 * The loop runs from a copy in the task's space, as a program's code
 * does (rewrite only rewrites sites in guest memory, and under mprotect
 * the code's page is part of every protection switch).  Under rewrite its
 * first call traps through sud and rewrites the site, every other one is
 * a call into the page-0 trampoline.  Where page 0 cannot be mapped the
 * rewrite row is left out with the reason.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uabench.h"

#define GUEST_STACK ((size_t)64 << 10)

struct trap_arg {
	enum ua_protect protect;
	enum ua_frame_mode frames;
	enum ua_trap trap;
};

static void native_getppid(void *p, uint64_t n)
{
	(void)p;
	for (uint64_t i = 0; i < n; i++) {
		long r = syscall(SYS_getppid);

		bench_opaque(r);
	}
}

struct trap_job {
	uint64_t n;
	long bad;
};

/*
 * The guest's loop, position-independent for a copy in guest memory:
 * void rw_loop(struct trap_job *j): j->n getppid calls, j->bad set on an
 * error.  RDI survives the syscall.
 */
extern const char rw_loop_start[], rw_loop_end[];
asm(".pushsection .text\n"
    "rw_loop_start:\n"
    "	movq (%rdi), %r8\n"
    "1:	testq %r8, %r8\n"
    "	jz 2f\n"
    "	movl $110, %eax\n" /* getppid */
    "	syscall\n"
    "	testq %rax, %rax\n"
    "	js 3f\n"
    "	decq %r8\n"
    "	jmp 1b\n"
    "3:	movq $1, 8(%rdi)\n"
    "2:	ret\n"
    "rw_loop_end:\n"
    ".popsection");

/* The guest entry: rw_loop copied into sp. */
static void (*guest_entry(struct ua_space *sp))(void *)
{
	struct ua_space *prev;
	char *code;

	code = ua_map(sp, NULL, 4096, PROT_READ | PROT_WRITE);
	if (!code)
		bench_die("trap: cannot map guest code: %s", strerror(errno));
	prev = ua_space_use(sp);
	if (ua_copy_to_user(code, rw_loop_start,
			    (size_t)(rw_loop_end - rw_loop_start)))
		bench_die("trap: cannot copy guest code");
	ua_space_use(prev);
	if (ua_mprotect(sp, code, 4096, PROT_READ | PROT_EXEC))
		bench_die("trap: cannot make guest code executable");
	return (void (*)(void *))code;
}

static double trapped_getppid(void *p, uint64_t n, struct ua_stats *st)
{
	const struct trap_arg *a = p;
	struct ua_space_opts so = { .protect = a->protect };
	struct ua_task_opts to = { .stack_size = GUEST_STACK,
				   .frame_mode = a->frames,
				   .trap_syscalls = true,
				   .trap = a->trap };
	struct trap_job j = { n, 0 };
	struct ua_space *sp = ua_space_create(GUEST_STACK + (128 << 10), &so);
	struct ua_task *t;
	double t0, t1;
	int status;

	if (!sp)
		bench_die("trap: cannot create a %s space: %s",
			  ua_protect_name(a->protect), strerror(errno));
	t = ua_task_create(sp, guest_entry(sp), &j, &to);
	if (!t)
		bench_die("trap: cannot create a task: %s", strerror(errno));
	ua_stats_reset();
	t0 = bench_now_ns();
	status = ua_task_run(t);
	t1 = bench_now_ns();
	ua_stats_get(st);
	if (status != 0 || j.bad)
		bench_die("trap: the guest ended with status %#x", status);
	ua_task_destroy(t);
	ua_space_destroy(sp);
	return t1 - t0;
}

static void trap_defaults(struct bench_opts *o, bool in_report, bool quick)
{
	(void)in_report;
	if (!o->reps)
		o->reps = quick ? 3 : 11;
	if (!o->rep_us)
		o->rep_us = quick ? 2000 : 20000;
	o->no_insns = true;
}

/* Can a task use the rewrite path here?  Page 0 is the question. */
static bool rewrite_available(void)
{
	struct ua_task_opts to = { .stack_size = GUEST_STACK,
				   .trap_syscalls = true,
				   .trap = UA_TRAP_REWRITE };
	struct ua_space *sp = ua_space_create(GUEST_STACK + (64 << 10), NULL);
	struct ua_task *t = sp ? ua_task_create(sp, (void (*)(void *))
						rw_loop_start, NULL, &to) :
				 NULL;

	ua_task_destroy(t);
	ua_space_destroy(sp);
	return t;
}

static void run_backend(struct bench_ctx *ctx, struct bench_doc *doc,
			enum ua_protect p, struct trap_arg args[3], bool rw)
{
	struct bench_case c = {
		.group = "trap",
		.label = "getppid",
		.nmeth = rw ? 4 : 3,
		.ref = 0,
		.m = { { "getppid", native_getppid, NULL, NULL, NULL },
		       { "sud block", NULL, &args[0], NULL, trapped_getppid },
		       { "sud per-access", NULL, &args[1], NULL,
			 trapped_getppid },
		       { "rewrite block", NULL, &args[2], NULL,
			 trapped_getppid } },
	};
	int idx;

	args[0] = (struct trap_arg){ p, UA_FRAME_BLOCK, UA_TRAP_SUD };
	args[1] = (struct trap_arg){ p, UA_FRAME_PER_ACCESS, UA_TRAP_SUD };
	args[2] = (struct trap_arg){ p, UA_FRAME_BLOCK, UA_TRAP_REWRITE };
	c.backend = ua_protect_name(p);
	idx = bench_run_case(ctx, &c, doc);
	bench_ratio_add(doc, idx, "sud block", "getppid", "trap_sud_vs_native",
			false, "trapped getppid (sud, block) vs host getppid");
	if (rw)
		bench_ratio_add(doc, idx, "rewrite block", "getppid",
				"trap_rewrite_vs_native",
				p == UA_PROTECT_NONE,
				"getppid at a rewritten site (block) vs host "
				"getppid");
}

static int trap_run(struct bench_ctx *ctx, struct bench_doc *doc)
{
	unsigned set = bench_backends_selected(&ctx->opts);
	static struct trap_arg args[UA_PROTECT_PKEY + 1][3];
	bool rw = rewrite_available();

	for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY; p++)
		ctx->cases_total += !!(set & BENCH_BACKEND_BIT(p));
	bench_doc_note(doc, "each trapped call pays one host signal "
			    "(SIGSYS) and its sigreturn; timed per repetition "
			    "is ua_task_run() of a task made beforehand");
	if (!rw)
		bench_doc_note(doc, "no rewrite row: page 0 cannot be mapped "
				    "here (the reason is on stderr)");
	else
		bench_doc_note(doc, "rewrite: a call into the page-0 "
				    "trampoline, no host signal; under none "
				    "the fast path answers getppid on the "
				    "guest's FS base, elsewhere without "
				    "FSGSBASE (AT_HWCAP2) each call also pays "
				    "two arch_prctl for the FS base");
	for (enum ua_protect p = UA_PROTECT_NONE; p <= UA_PROTECT_PKEY; p++) {
		if (set & BENCH_BACKEND_BIT(p))
			run_backend(ctx, doc, p, args[p], rw);
	}
	return 0;
}

const struct bench_cmd bench_cmd_trap = {
	.name = "trap",
	.summary = "trapped syscall (sud, rewrite) vs host getppid()",
	.usage = "  --protect LIST     backends, comma-separated: none, "
		 "mprotect, pkey,\n"
		 "                     auto, all (default: all available)\n",
	.opts = BOPT_PROTECT,
	.defaults = trap_defaults,
	.run = trap_run,
	.in_report = false,
};
