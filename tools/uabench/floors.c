// SPDX-License-Identifier: MIT
/*
 * floors: what the engine's figures are measured against besides a host
 * system call, on the same host in the same run.  A ratio to getppid()
 * moves fourfold between a host with page-table isolation and one
 * without; the floors do not: the empty entry/exit stub (floor_stub.S),
 * one WRPKRU, one WRFSBASE, one host signal round trip, the C library's
 * memset of 512 bytes.  Each is a method of one case, so they interleave;
 * null_syscall and raise time their own floors beside the engine
 * (bench_floor_stub, bench_frame_floor) for the paired ratios.
 *
 * Also the kind of host: protection keys, FSGSBASE, AVX-512, page-table
 * isolation, printed above the targets table and written to the JSON.
 */
#include <cpuid.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "uabench.h"

#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE (1 << 1) /* uapi/asm/hwcap2.h */
#endif

/* ---- the kind of host ---- */

static uint64_t xcr0(void)
{
	uint32_t a, d;

	asm volatile("xgetbv" : "=a"(a), "=d"(d) : "c"(0));
	return (uint64_t)d << 32 | a;
}

/*
 * Page-table isolation from the kernel's own word: the meltdown entry of
 * sysfs says "Mitigation: PTI" where it is on.
 */
static int pti_state(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/vulnerabilities/meltdown",
			"r");
	char line[128] = "";
	bool got;

	if (!f)
		return -1;
	got = fgets(line, sizeof(line), f);
	fclose(f);
	if (!got)
		return -1;
	return strstr(line, "PTI") != NULL;
}

void bench_host_kind(struct bench_host *h)
{
	unsigned a, b, c, d;

	memset(h, 0, sizeof(*h));
	if (__get_cpuid_max(0, NULL) >= 7) {
		__cpuid_count(7, 0, a, b, c, d);
		h->pku = c & (1u << 3);
		h->ospke = c & (1u << 4);
		__cpuid(1, a, b, c, d);
		/* AVX-512 counts only where the OS saves its state. */
		if (c & (1u << 27)) {
			__cpuid_count(7, 0, a, b, c, d);
			h->avx512 = (b & (1u << 16)) && (xcr0() & 0xe0) == 0xe0;
		}
	}
	h->fsgsbase = getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE;
	h->pti = pti_state();
}

const char *bench_host_kind_str(char *buf, size_t n)
{
	struct bench_host h;

	bench_host_kind(&h);
	snprintf(buf, n, "PKU %s, FSGSBASE %s, AVX-512 %s, PTI %s",
		 h.ospke ? "yes" : h.pku ? "in the CPU, off in the OS" : "no",
		 h.fsgsbase ? "yes" : "no", h.avx512 ? "yes" : "no",
		 h.pti < 0 ? "unknown" : h.pti ? "on" : "off");
	return buf;
}

/* ---- the empty entry/exit stub ---- */

/* floor_stub.S's offsets: 15 registers, RIP, RFLAGS, RSP, the stack. */
struct floor_regs {
	uint64_t gpr[15];
	uint64_t rip, eflags, rsp;
	uint64_t stack_top;
};

__thread struct floor_regs bench_floor_regs;
bool bench_floor_sahf;
long bench_floor_stub(long nr);

/* The monitor's part of the floor: nothing, out of line. */
__attribute__((noinline, used)) long bench_floor_body(struct floor_regs *r)
{
	asm volatile("" : : "r"(r) : "memory");
	return 0;
}

#define FLOOR_STACK (64 << 10)

/* The stub's other stack, once per thread. */
static void floor_stub_ready(void)
{
	void *p;

	unsigned a, b, c, d;

	if (bench_floor_regs.stack_top)
		return;
	/* CPUID 0x80000001 ECX bit 0: LAHF-SAHF in 64-bit mode. */
	if (__get_cpuid(0x80000000, &a, &b, &c, &d) && a >= 0x80000001) {
		__get_cpuid(0x80000001, &a, &b, &c, &d);
		bench_floor_sahf = c & 1;
	}
	p = mmap(NULL, FLOOR_STACK, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		bench_die("floors: cannot map a stack: %s", strerror(errno));
	bench_floor_regs.stack_top = (uintptr_t)p + FLOOR_STACK - 64;
}

void bench_floor_stub_loop(void *p, uint64_t n)
{
	(void)p;
	floor_stub_ready();
	for (uint64_t i = 0; i < n; i++) {
		if (ua_unlikely(bench_floor_stub(0) != 0))
			bench_die("floors: the stub returned a value");
		bench_barrier();
	}
}

/* ---- the frame floor: a frame's bytes written and read, nothing else ---- */

/*
 * What block mode writes for a syscall-boundary frame: the return
 * address, the ucontext and the siginfo, and the FP area's legacy part
 * and XSAVE header (576 + 64 bytes).  Read back whole, as rt_sigreturn
 * reads it.
 */
#define FRAME_BYTES                                                 \
	((8 + sizeof(ucontext_t) + sizeof(siginfo_t) + 576 + 64 + 63) & \
	 ~(size_t)63)

static unsigned char frame_src[FRAME_BYTES] __attribute__((aligned(64)));
static unsigned char frame_dst[FRAME_BYTES] __attribute__((aligned(64)));
static unsigned char frame_mem[FRAME_BYTES] __attribute__((aligned(64)));

static void frame_handler(int sig)
{
	bench_opaque(sig);
}

static void (*volatile frame_handler_ptr)(int) = frame_handler;

void bench_frame_floor(void *p, uint64_t n)
{
	(void)p;
	for (uint64_t i = 0; i < n; i++) {
		memcpy(frame_mem, frame_src, FRAME_BYTES);
		bench_barrier();
		frame_handler_ptr(SIGUSR1);
		memcpy(frame_dst, frame_mem, FRAME_BYTES);
		bench_barrier();
	}
}

size_t bench_frame_floor_bytes(void)
{
	return FRAME_BYTES;
}

/* ---- the other floors ---- */

/* One WRPKRU that changes the value (the engine skips the others). */
static void fl_wrpkru(void *p, uint64_t n)
{
	(void)p;
	bench_wrpkru_toggle(n);
}

/*
 * One WRFSBASE of the current value: another value would leave a window
 * in which a signal handler ran on a wrong thread pointer.
 */
static void fl_wrfsbase(void *p, uint64_t n)
{
	uint64_t fs;

	(void)p;
	asm volatile("rdfsbase %0" : "=r"(fs));
	for (uint64_t i = 0; i < n; i++)
		asm volatile("wrfsbase %0" : : "r"(fs) : "memory");
}

static void empty_handler(int sig)
{
	(void)sig;
}

/* The host kernel's signal round trip: tgkill, empty handler, sigreturn. */
static void fl_signal(void *p, uint64_t n)
{
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);

	(void)p;
	for (uint64_t i = 0; i < n; i++)
		syscall(SYS_tgkill, pid, tid, SIGUSR2);
}

static unsigned char memset_buf[512] __attribute__((aligned(64)));

static void fl_memset(void *p, uint64_t n)
{
	(void)p;
	for (uint64_t i = 0; i < n; i++) {
		memset(memset_buf, 0, sizeof(memset_buf));
		bench_barrier();
	}
}

static void floors_defaults(struct bench_opts *o, bool in_report, bool quick)
{
	(void)in_report;
	if (!o->reps)
		o->reps = quick ? 5 : 11;
	if (!o->rep_us)
		o->rep_us = quick ? 100 : 1000;
}

static void floors_print(FILE *f, const struct bench_doc *doc, bool md)
{
	char host[160], a[32];

	fprintf(f, "\n%sfloors on this host (%s), %s clock, median of %u "
		   "repetitions\n\n",
		md ? "" : "floors: ", bench_host_kind_str(host, sizeof(host)),
		bench_clock_name(), doc->opts.reps);
	if (md)
		fprintf(f, "| floor | ns per op |\n|---|---|\n");
	for (int i = 0; i < doc->ncases; i++) {
		const struct bench_case_res *c = &doc->cases[i];

		for (int k = 0; k < c->nmeth; k++) {
			const struct bench_meas *m = &c->m[k];

			snprintf(a, sizeof(a),
				 m->ns_med >= 100 ? "%.0f" : "%.1f", m->ns_med);
			if (md)
				fprintf(f, "| %s | %s |\n", m->method, a);
			else
				fprintf(f, "  %-28s %10s\n", m->method, a);
		}
	}
}

static int floors_run(struct bench_ctx *ctx, struct bench_doc *doc)
{
	struct bench_case c = {
		.group = "floors",
		.label = "one operation",
		.ref = 0,
		.ops_multiple = 2,
	};
	struct bench_host h;
	struct sigaction sa, old;
	int n = 0, rc;

	bench_host_kind(&h);
	c.m[n++] = (struct bench_method){ "entry_exit_stub",
					  bench_floor_stub_loop, NULL, NULL,
					  NULL };
	c.m[n++] = (struct bench_method){ "frame_write_read",
					  bench_frame_floor, NULL, NULL, NULL };
	c.m[n++] = (struct bench_method){ "memset_512", fl_memset, NULL, NULL,
					  NULL };
	c.m[n++] = (struct bench_method){ "host_signal_round_trip", fl_signal,
					  NULL, NULL, NULL };
	if (h.ospke)
		c.m[n++] = (struct bench_method){ "wrpkru", fl_wrpkru, NULL,
						  NULL, NULL };
	else
		bench_doc_note(doc, "wrpkru: not measured: the OS has not "
				    "enabled protection keys (CPUID OSPKE)");
	if (h.fsgsbase)
		c.m[n++] = (struct bench_method){ "wrfsbase", fl_wrfsbase, NULL,
						  NULL, NULL };
	else
		bench_doc_note(doc, "wrfsbase: not measured: the kernel does "
				    "not enable FSGSBASE (AT_HWCAP2 bit 1)");
	c.nmeth = n;
	bench_doc_note(doc,
		       "frame_write_read: %zu bytes written, an indirect call, "
		       "the same bytes read back: a block-mode frame with "
		       "nothing else",
		       bench_frame_floor_bytes());
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = empty_handler;
	if (sigaction(SIGUSR2, &sa, &old))
		bench_die("floors: sigaction: %s", strerror(errno));
	ctx->cases_total = 1;
	doc->print_cases = floors_print;
	rc = bench_run_case(ctx, &c, doc);
	sigaction(SIGUSR2, &old, NULL);
	return rc < 0 ? BENCH_EXIT_FAIL : 0;
}

const struct bench_cmd bench_cmd_floors = {
	.name = "floors",
	.summary = "the floors: empty entry/exit stub, a frame, WRPKRU, "
		   "WRFSBASE, host signal, memset",
	.usage = "",
	.opts = 0,
	.defaults = floors_defaults,
	.run = floors_run,
	.in_report = true,
};
