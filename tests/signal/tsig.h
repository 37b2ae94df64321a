/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the signal suites.
 *
 * The differential tests run the same code twice: once in the test
 * process under real host signals, once as guest code of an engine task.
 * Everything that differs between the two goes through t_ops (the calls)
 * and t_run (where the code runs and which memory it may use); the
 * handlers and the code that raises signals are written once.
 *
 * Guest code must not call Criterion's asserts: it records what it saw in
 * monitor globals and the test asserts after the run.  Structures guest
 * code passes to ua_sys_* live on its own stack or in t_run.mem (guest
 * memory under the engine).
 */
#ifndef UA_TSIG_H
#define UA_TSIG_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/wait.h>
#include <ucontext.h>

#include <criterion/criterion.h>

#include "tsupport.h"

#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31)
#endif

/* The kernel's constants (glibc's MINSIGSTKSZ may be a sysconf() call). */
#define K_MINSIGSTKSZ 2048
#define K_SA_RESTORER 0x04000000
#define K_SA_UNSUPPORTED 0x400
#define FP_MAGIC1 0x46505853u
#define FP_MAGIC2 0x46505845u
#define MXCSR_DEFAULT 0x1f80u
#define FCW_DEFAULT 0x037fu
/* Non-default control words, exceptions still masked: round toward zero,
 * flush to zero; x87 single precision, round toward zero. */
#define MXCSR_TEST 0xff80u
#define FCW_TEST 0x0c7fu

#define EFL_CF 0x1ul
#define EFL_PF 0x4ul
#define EFL_ZF 0x40ul
#define EFL_SF 0x80ul
#define EFL_TF 0x100ul
#define EFL_DF 0x400ul
#define EFL_OF 0x800ul
#define EFL_AC 0x40000ul

#define BIT(sig) (1ull << ((sig) - 1))

/* ---- assembly helpers (tsig_asm.S) ---- */

/* What t_tramp saw at handler entry. */
struct t_entry {
	uint64_t rsp, rax, flags;
	uint32_t mxcsr;
	uint16_t fcw;
};
extern struct t_entry t_entry;

typedef void (*t_handler_fn)(int, siginfo_t *, void *);
/* The C handler t_tramp jumps to, per signal. */
extern t_handler_fn t_handlers[65];
void t_tramp(int sig, siginfo_t *si, void *uc);

/* Registers t_landing found, in pt_regs order, then RSP and flags. */
struct t_regs {
	uint64_t r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8;
	uint64_t rax, rcx, rdx, rsi, rdi, rsp, flags;
	uint32_t mxcsr;
	uint16_t fcw;
};
extern struct t_regs t_landed;
extern uint64_t t_redir_save[2];
void t_landing(void);

typedef long (*t_stub)(long, long, long, long);
long t_host_tgkill(long tgid, long tid, long sig);
long t_host_tgkill_df(long tgid, long tid, long sig);
long t_host_sigqueue(long tgid, long tid, long sig, siginfo_t *info);
long t_host_kill(long pid, long sig);
long t_eng_tgkill(long tgid, long tid, long sig);
long t_eng_tgkill_df(long tgid, long tid, long sig);
long t_eng_sigqueue(long tgid, long tid, long sig, siginfo_t *info);
long t_eng_kill(long pid, long sig);
long t_call_aligned(void *fn, long a0, long a1, long a2, long a3, long below);
long t_call_redirect(void *fn, long a0, long a1, long a2, long a3);
_Noreturn void t_sigreturn_at(void *rsp);
void t_set_fpctl(uint32_t mxcsr, uint16_t fcw);
uint32_t t_get_mxcsr(void);
uint16_t t_get_fcw(void);

/* ---- what depends on the machine (tsig.c, from CPUID at start) ---- */

/* CPUID.1:ECX.OSXSAVE: frames carry XSAVE images. */
extern unsigned char t_have_xsave;
/* PKRU is in XCR0 and the OS enabled protection keys (OSPKE). */
extern bool t_have_pkru;
/* PKRU's offset in a standard-format image (CPUID 0xD sub-leaf 9). */
extern uint32_t t_pkru_off;
/* The standard-format XSAVE size the kernel gives a frame: the end of the
 * last user feature of XCR0, AMX tile data excluded (it needs a permit). */
uint32_t t_xstate_size(void);
/* Bytes of FP area a frame takes (with MAGIC2). */
uint32_t t_fpu_frame_size(void);
uint32_t t_rdpkru(void);
void t_wrpkru(uint32_t v);
/*
 * uc_stack.ss_flags in a frame of this process before it ever called
 * sigaltstack (measured in a constructor): 0 when no ancestor set an
 * altstack, what a fresh program image has.
 */
extern int t_host_fresh_ss_flags;

/* ---- the two ways to run ---- */

struct t_ops {
	const char *name;
	bool engine;
	/* Raw calls, -errno on error, via the stubs above. */
	long (*tgkill)(long tgid, long tid, long sig);
	long (*tgkill_df)(long tgid, long tid, long sig);
	long (*kill)(long pid, long sig);
	/* libc-style calls: -1 and errno. */
	int (*sigaction)(int, const struct sigaction *, struct sigaction *);
	int (*sigprocmask)(int, const sigset_t *, sigset_t *);
	int (*sigaltstack)(const stack_t *, stack_t *);
	int (*sigsuspend)(const sigset_t *);
	int (*sigpending)(sigset_t *);
	pid_t (*getpid)(void);
	pid_t (*gettid)(void);
	void (*exit)(int);
};

extern const struct t_ops t_host_ops, t_eng_ops;
/* The ops of the run in progress. */
extern const struct t_ops *ops;

/* Raise sig at the calling thread / task (SI_TKILL), raw stub call. */
long t_raise(int sig);
/* Queue sig with value at the calling thread / task (SI_QUEUE, as glibc's
 * sigqueue fills it in), raw stub call. */
long t_queue(int sig, int value);
/* The same, from RSP at a 64-byte boundary minus below (t_call_aligned). */
long t_raise_aligned(int sig, long below);
long t_queue_aligned(int sig, int value, long below);
long t_kill_aligned(int sig, long below);
/* The stubs and their first two arguments, for t_call_redirect. */
void *t_raise_stub(void);
long t_stub_pid(void);
long t_stub_tid(void);

/**
 * struct t_run - one run of a body
 * @mem: T_MEM bytes, page-aligned, the body may use (guest memory under
 *	the engine: altstacks, buffers), followed by an unmapped page
 * @arg: the test's argument
 * @task: the engine task (NULL on the host)
 * @hook: a syscall hook for the engine task (ignored on the host)
 */
#define T_MEM ((size_t)256 << 10)
struct t_run;
typedef void (*t_body)(struct t_run *r);
struct t_run {
	char *mem;
	t_body body;
	void *arg;
	struct ua_task *task;
	ua_syscall_hook_t hook;
	void *hook_data;
	struct ua_space *sp;
};
extern struct t_run *t_cur;

/*
 * Run body on the host in this process (signal dispositions, mask and
 * altstack restored afterwards); returns 0.
 */
int t_run_host(t_body body, void *arg);
/* Run body in a forked child; the child's wait status. */
int t_run_host_child(t_body body, void *arg);
/* Run body as an engine task in a fresh space; the task's wait status. */
int t_run_engine(t_body body, void *arg, ua_syscall_hook_t hook,
		 void *hook_data);

/* Install t_tramp for sig with fn, flags and mask (through ops). */
int t_install(int sig, t_handler_fn fn, int flags, uint64_t mask);
/* Set the 64-bit blocked mask (through ops). */
void t_setmask(uint64_t mask);
uint64_t t_getmask(void);
uint64_t t_sigset64(const sigset_t *s);
void t_sigset_from64(sigset_t *s, uint64_t m);

/* The frame mode of this run of the suite (UA_FRAME_MODE). */
enum ua_frame_mode t_frame_mode(void);

#define t_assert_status_exit(st, code)                                        \
	do {                                                                  \
		int s_ = (st);                                                \
		cr_assert(s_ >= 0 && WIFEXITED(s_),                           \
			  "status %#x: not an exit (signal %d)", s_,          \
			  WIFSIGNALED(s_) ? WTERMSIG(s_) : 0);                \
		cr_assert_eq(WEXITSTATUS(s_), (code), "exit status %d",       \
			     WEXITSTATUS(s_));                                \
	} while (0)

#define t_assert_status_sig(st, sig)                                          \
	do {                                                                  \
		int s_ = (st);                                                \
		cr_assert(s_ >= 0 && WIFSIGNALED(s_),                         \
			  "status %#x: not killed (exit %d)", s_,             \
			  WIFEXITED(s_) ? WEXITSTATUS(s_) : -1);              \
		cr_assert_eq(WTERMSIG(s_), (sig), "signal %d", WTERMSIG(s_)); \
	} while (0)

/* Poll /proc until host thread tid sleeps in a futex (the engine's wait). */
void t_wait_blocked_in_futex(pid_t tid);

#endif
