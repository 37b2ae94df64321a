// SPDX-License-Identifier: MIT
/*
 * Fuzz target: arbitrary bytes as an rt_sigframe (and its FP area) handed
 * to rt_sigreturn inside a fresh guest task.  Whatever the bytes, the
 * monitor must not crash, leak or hang, and the task must either resume
 * normally (and exit 0) or die of SIGSEGV, or of SIGTRAP where the
 * frame's RFLAGS has TF (it single-steps the landing pad, as under the
 * kernel); anything else aborts.
 *
 * Input: one control byte, then the frame from its ucontext on (304 bytes
 * of ucontext, 128 of siginfo, 16 of padding) and the FP area (up to
 * 1024 bytes), copied to a fixed place in guest memory.  The control byte
 * chooses what the harness patches in, so that the interesting cases are
 * reachable from a few bytes:
 *   bits 0-1  RIP: the landing pad (0, 1), an unmapped page (2), a
 *             non-canonical address (3).  Never raw: a RIP that lands in
 *             monitor code would run it as guest code, which proves
 *             nothing about rt_sigreturn.
 *   bits 2-3  RSP: raw (0), a valid guest stack (1), an unmapped page (2),
 *             monitor memory (3)
 *   bits 4-5  fpstate: raw (0), NULL (1), the FP area of the input (2),
 *             the guest area plus the raw low 16 bits (3: misaligned,
 *             truncated, the page after it unmapped)
 *   bit 6     per-access frame mode (else block)
 *   bit 7     uc_stack zeroed (else raw)
 * and bit 0 of uc_link (which rt_sigreturn ignores) chooses the frame:
 * clear, a frame the guest built itself (the syscall-boundary path);
 * set, the full-context frame the engine built for a guest fault (ud2),
 * overwritten with the input from its handler, so rt_sigreturn takes the
 * full-image path (the input's FP bytes go to that frame's own FP area,
 * which fpstate 2 then points at).
 *
 * Built two ways: with -fsanitize=fuzzer by tools/run-fuzz, and without
 * (FUZZ_REPLAY) as a program that replays files through the same code;
 * a file whose name starts with "ok-" must resume, one with "segv-" must
 * die of SIGSEGV, one with "trap-" of SIGTRAP.
 */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>

#include <uaccess.h>

#define AREA_SIZE ((size_t)64 << 10)
#define UC_OFF 8192            /* the ucontext in the area */
#define FP_OFF (UC_OFF + 448)  /* the FP area: 64-byte aligned */
#define FRAME_MAX (448 + 1024)

/* sigcontext_64 fields, in 8-byte words from the start of uc_mcontext. */
#define MC_RSP 15
#define MC_RIP 16
#define MC_EFLAGS 17
#define MC_FPSTATE 23
#define UC_MCONTEXT 40
#define UC_STACK 16

void fz_sigreturn_at(void *uc);
void fz_landing(void);
void fz_landed(void);
uint64_t fz_landing_rsp;

static struct ua_space *sp;
static char *area;    /* AREA_SIZE of guest memory, an unmapped page after */
static char monitor_bytes[4096];

struct input {
	const uint8_t *data;
	size_t size;
};

void fz_landed(void)
{
	ua_sys_exit(0);
}

static void put64(char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint64_t get64(const char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static const struct input *cur_input;

/*
 * Patch the frame at uc (input already copied) by the control byte; fp is
 * where fpstate 2 points.  Then rt_sigreturn with RSP at uc.
 */
static void patch_and_return(char *uc, char *fp, uint8_t ctl)
{
	char *mc = uc + UC_MCONTEXT;
	uint64_t v;

	switch (ctl & 3) {
	case 2:
		v = (uint64_t)(uintptr_t)(area + AREA_SIZE);
		break;
	case 3:
		v = 0x8000000000000000ull;
		break;
	default:
		v = (uint64_t)(uintptr_t)fz_landing;
		break;
	}
	put64(mc + 8 * MC_RIP, v);
	switch ((ctl >> 2) & 3) {
	case 1:
		put64(mc + 8 * MC_RSP, (uint64_t)(uintptr_t)(area + 4096));
		break;
	case 2:
		put64(mc + 8 * MC_RSP,
		      (uint64_t)(uintptr_t)(area + AREA_SIZE + 64));
		break;
	case 3:
		put64(mc + 8 * MC_RSP,
		      (uint64_t)(uintptr_t)(monitor_bytes + 2048));
		break;
	}
	switch ((ctl >> 4) & 3) {
	case 1:
		put64(mc + 8 * MC_FPSTATE, 0);
		break;
	case 2:
		put64(mc + 8 * MC_FPSTATE, (uint64_t)(uintptr_t)fp);
		break;
	case 3:
		v = get64(mc + 8 * MC_FPSTATE) & 0xffff;
		put64(mc + 8 * MC_FPSTATE, (uint64_t)(uintptr_t)(area + v));
		break;
	}
	if (ctl & 0x80)
		memset(uc + UC_STACK, 0, 24);
	/* The landing pad runs below this frame, on the task's own stack
	 * (where sanitizers expect it), 16-byte aligned before its call. */
	fz_landing_rsp = ((uintptr_t)__builtin_frame_address(0) - 1024) &
			 ~(uintptr_t)15;
	fz_sigreturn_at(uc);
}

static size_t input_frame_len(const struct input *in)
{
	size_t n = in->size ? in->size - 1 : 0;

	return n < FRAME_MAX ? n : FRAME_MAX;
}

/* SIGILL handler of full mode: the engine's own full-context frame. */
static void on_ud2(int sig, siginfo_t *si, void *ucv)
{
	const struct input *in = cur_input;
	size_t n = input_frame_len(in);
	char *uc = ucv, *fp = (char *)((ucontext_t *)ucv)->uc_mcontext.fpregs;

	(void)sig;
	(void)si;
	/* The ucontext and siginfo part, then the FP bytes to the real area. */
	memset(uc, 0, 448);
	memcpy(uc, in->data + 1, n < 448 ? n : 448);
	if (n > 448)
		memcpy(fp, in->data + 1 + 448, n - 448);
	patch_and_return(uc, fp, in->data[0]);
}

static void guest(void *arg)
{
	const struct input *in = arg;
	uint8_t ctl = in->size ? in->data[0] : 0;
	char *uc = area + UC_OFF;

	if (in->size > 1 + 8 && (in->data[1 + 8] & 1)) {
		struct sigaction sa = { .sa_sigaction = on_ud2,
					.sa_flags = SA_SIGINFO };

		cur_input = in;
		ua_sys_sigaction(SIGILL, &sa, NULL);
		__asm__ volatile("ud2");
		ua_sys_exit(3); /* not reached: the handler never returns */
	}
	/* Guest code may read the monitor's input buffer directly. */
	memset(uc - 64, 0, FRAME_MAX + 64);
	memcpy(uc, in->data + 1, input_frame_len(in));
	patch_and_return(uc, area + FP_OFF, ctl);
}

static void setup(void)
{
	if (sp)
		return;
	sp = ua_space_create((size_t)4 << 20, NULL);
	if (!sp)
		abort();
	area = ua_map(sp, NULL, AREA_SIZE + 4096, PROT_READ | PROT_WRITE);
	if (!area || ua_unmap(sp, area + AREA_SIZE, 4096))
		abort();
}

/*
 * Does the input's frame set TF (then a SIGTRAP ends the task)?  A short
 * input leaves the rest of the frame zero: its RFLAGS may be partial.
 */
static bool input_tf(const uint8_t *data, size_t size)
{
	size_t off = 1 + UC_MCONTEXT + 8 * MC_EFLAGS;
	uint64_t v = 0;

	if (size <= off)
		return false;
	memcpy(&v, data + off, size - off < 8 ? size - off : 8);
	return v & 0x100;
}

/* Run one input in a fresh task; its wait status. */
static int run_one(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct ua_task_opts o = { .stack_size = (size_t)64 << 10 };
	struct ua_task *t;
	uint32_t mxcsr;
	uint16_t fcw;
	int st;

	setup();
	o.frame_mode = size && (data[0] & 0x40) ? UA_FRAME_PER_ACCESS :
						  UA_FRAME_BLOCK;
	t = ua_task_create(sp, guest, &in, &o);
	/*
	 * Signal 0 checks the task takes signals.  It also makes a static
	 * link pull in the signal layer, whose constructor registers
	 * rt_sigreturn: nothing else here names a signal-layer symbol.
	 */
	if (!t || ua_task_kill(t, 0))
		abort();
	/* The guest's FP control words (from the fuzzed frame) must not
	 * stay with the monitor once the task is gone. */
	asm volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(mxcsr), "=m"(fcw));
	st = ua_task_run(t);
	asm volatile("fnclex\n\tfldcw %1\n\tldmxcsr %0"
		     :
		     : "m"(mxcsr), "m"(fcw));
	ua_task_destroy(t);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return st;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV)
		return st;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGTRAP && input_tf(data, size))
		return st;
	fprintf(stderr, "fuzz_sigreturn: unexpected task status %#x\n", st);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	run_one(data, size);
	return 0;
}

#ifdef FUZZ_REPLAY
static int replay_file(const char *dir, const char *name)
{
	char path[4096];
	uint8_t buf[1 + FRAME_MAX + 64];
	size_t n;
	FILE *f;
	int st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	st = run_one(buf, n);
	if (!strncmp(name, "ok-", 3) && !(WIFEXITED(st) && !WEXITSTATUS(st))) {
		fprintf(stderr, "%s: expected a normal resume, status %#x\n",
			path, st);
		return 1;
	}
	if (!strncmp(name, "segv-", 5) && !WIFSIGNALED(st)) {
		fprintf(stderr, "%s: expected SIGSEGV, status %#x\n", path, st);
		return 1;
	}
	if (!strncmp(name, "trap-", 5) &&
	    !(WIFSIGNALED(st) && WTERMSIG(st) == SIGTRAP)) {
		fprintf(stderr, "%s: expected SIGTRAP, status %#x\n", path, st);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int files = 0, bad = 0, resumed = 0;
	const char *p = getenv("UA_PROTECT"), *why = NULL;

	/* As the Criterion suites: a backend this machine lacks is a skip. */
	if (p && !strcmp(p, "pkey") &&
	    !ua_protect_available(UA_PROTECT_PKEY, &why)) {
		printf("SKIP: UA_PROTECT=pkey: %s\n", why ? why : "unavailable");
		return 77;
	}

	for (int i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *e;

		if (!d) {
			perror(argv[i]);
			return 1;
		}
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			bad += replay_file(argv[i], e->d_name);
			resumed += !strncmp(e->d_name, "ok-", 3);
			files++;
		}
		closedir(d);
	}
	printf("fuzz_sigreturn: %d inputs replayed (%d must resume), %d "
	       "failed\n",
	       files, resumed, bad);
	return bad || !files;
}
#endif
