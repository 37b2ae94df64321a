// SPDX-License-Identifier: MIT
/*
 * Timers and sleeps, differential: the same body in a host child (the
 * kernel's alarm/setitimer/nanosleep/sigsuspend) and as an engine task
 * (ua_sys_*), the outcomes compared.  No timing assertions: only what the
 * kernel guarantees (the signal arrives, EINTR, the time left is less than
 * asked and not negative, whole seconds where the margin is seconds).
 */
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "tsig.h"

TestSuite(sig_timer, .init = t_skip_if_unavailable);

struct timer_rec {
	int sig, code, runs;
	uint64_t rip;
	long ret[4];
	int err[4];
	struct timespec rem;
	struct itimerval cur;
};

static struct timer_rec rec, *shared;
static volatile int stop;

/* void timer_spin(volatile int *flag): spins while *flag is 0. */
extern char tspin_begin[], tspin_end[];
__asm__(".text\n"
	".globl timer_spin\n"
	".type timer_spin, @function\n"
	"timer_spin:\n"
	".globl tspin_begin\n"
	"tspin_begin:\n"
	"	cmpl $0, (%rdi)\n"
	"	je tspin_begin\n"
	".globl tspin_end\n"
	"tspin_end:\n"
	"	ret\n"
	".size timer_spin, . - timer_spin\n");
void timer_spin(volatile int *flag);

static int x_setitimer(int w, const struct itimerval *nv, struct itimerval *ov)
{
	return ops->engine ? ua_sys_setitimer(w, nv, ov) :
			     setitimer(w, nv, ov);
}

static int x_getitimer(int w, struct itimerval *cur)
{
	return ops->engine ? ua_sys_getitimer(w, cur) : getitimer(w, cur);
}

static unsigned x_alarm(unsigned s)
{
	return ops->engine ? ua_sys_alarm(s) : alarm(s);
}

static int x_nanosleep(const struct timespec *req, struct timespec *rem)
{
	return ops->engine ? ua_sys_nanosleep(req, rem) : nanosleep(req, rem);
}

static void h_alrm(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	rec.sig = sig;
	rec.code = si->si_code;
	rec.rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	rec.runs++;
	stop = 1;
}

static void finish(void)
{
	if (!ops->engine)
		*shared = rec;
	ops->exit(42);
}

/* Run body on the host, then in the engine; the host's record. */
static struct timer_rec both(t_body body)
{
	struct timer_rec h;

	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(shared, MAP_FAILED);
	memset(&rec, 0, sizeof(rec));
	stop = 0;
	t_assert_status_exit(t_run_host_child(body, NULL), 42);
	h = *shared;
	memset(&rec, 0, sizeof(rec));
	stop = 0;
	t_assert_status_exit(t_run_engine(body, NULL, NULL, NULL), 42);
	return h;
}

static const struct itimerval in_20ms = { .it_value.tv_usec = 20000 };
/*
 * For a sleep that nothing blocks the signal around: the timer must not
 * fire before the sleep starts, which 20 ms did not guarantee on a loaded
 * machine (the handler ran first and the sleep took its full 10 s).
 */
static const struct itimerval in_500ms = { .it_value.tv_usec = 500000 };

static void body_itimer_spin(struct t_run *r)
{
	struct itimerval in20 = in_20ms;

	(void)r;
	t_install(SIGALRM, h_alrm, 0, 0);
	rec.ret[0] = x_setitimer(ITIMER_REAL, &in20, NULL);
	timer_spin(&stop);
	finish();
}

Test(sig_timer, itimer_real_fires_in_spinning_guest)
{
	struct timer_rec h = both(body_itimer_spin);

	cr_expect_eq(h.ret[0], 0);
	cr_expect_eq(h.sig, SIGALRM);
	cr_expect_eq(h.code, SI_KERNEL);
	cr_expect(h.rip >= (uintptr_t)tspin_begin &&
		  h.rip < (uintptr_t)tspin_end);
	cr_expect_eq(rec.ret[0], 0);
	cr_expect_eq(rec.runs, 1);
	cr_expect_eq(rec.sig, h.sig);
	cr_expect_eq(rec.code, h.code, "si_code: host %d engine %d", h.code,
		     rec.code);
	cr_expect(rec.rip >= (uintptr_t)tspin_begin &&
			  rec.rip < (uintptr_t)tspin_end,
		  "engine: handler's RIP %#lx outside the loop",
		  (unsigned long)rec.rip);
}

/* A handler interrupts nanosleep: EINTR even under SA_RESTART. */
static void body_nanosleep(struct t_run *r)
{
	struct timespec req = { .tv_sec = 10 }, rem = { -1, -1 };
	struct itimerval in500 = in_500ms;
	int flags = r->arg ? SA_RESTART : 0;

	t_install(SIGALRM, h_alrm, flags, 0);
	x_setitimer(ITIMER_REAL, &in500, NULL);
	errno = 0;
	rec.ret[0] = x_nanosleep(&req, &rem);
	rec.err[0] = errno;
	rec.rem = rem;
	finish();
}

/*
 * What is left of the 10 s once the 500 ms timer ended the sleep: less
 * than 10 s, however long a loaded machine took to deliver the signal
 * (a little over 9.5 s: the timer started before the sleep did), and
 * never a value outside a timespec's range.
 */
static bool rem_after_timer(struct timespec rem)
{
	return rem.tv_nsec >= 0 && rem.tv_nsec < 1000000000 &&
	       rem.tv_sec >= 0 &&
	       rem.tv_sec * 1000000000ll + rem.tv_nsec < 10000000000ll;
}

static void check_nanosleep(void *arg)
{
	struct timer_rec h;

	(void)arg;
	h = both(body_nanosleep);
	cr_expect_eq(h.ret[0], -1);
	cr_expect_eq(h.err[0], EINTR);
	cr_expect(rem_after_timer(h.rem));
	cr_expect_eq(h.runs, 1);
	cr_expect_eq(rec.ret[0], h.ret[0]);
	cr_expect_eq(rec.err[0], h.err[0], "errno: host %d engine %d",
		     h.err[0], rec.err[0]);
	cr_expect(rem_after_timer(rec.rem));
	cr_expect_eq(rec.runs, 1);
}

Test(sig_timer, nanosleep_interrupted_by_timer)
{
	struct timer_rec h;

	h = both(body_nanosleep);
	cr_expect_eq(h.ret[0], -1);
	cr_expect_eq(h.err[0], EINTR);
	cr_expect(rem_after_timer(h.rem));
	cr_expect_eq(rec.ret[0], -1);
	cr_expect_eq(rec.err[0], EINTR);
	cr_expect(rem_after_timer(rec.rem));
	cr_expect_eq(rec.runs, 1);
	(void)check_nanosleep;
}

static void body_nanosleep_restart(struct t_run *r)
{
	r->arg = (void *)1;
	body_nanosleep(r);
}

Test(sig_timer, nanosleep_not_restarted_under_sa_restart)
{
	struct timer_rec h = both(body_nanosleep_restart);

	cr_expect_eq(h.ret[0], -1);
	cr_expect_eq(h.err[0], EINTR);
	cr_expect_eq(rec.ret[0], h.ret[0]);
	cr_expect_eq(rec.err[0], h.err[0], "errno: host %d engine %d",
		     h.err[0], rec.err[0]);
	cr_expect(rem_after_timer(h.rem));
	cr_expect(rem_after_timer(rec.rem));
}

static void body_sigsuspend(struct t_run *r)
{
	sigset_t none;

	(void)r;
	t_install(SIGALRM, h_alrm, SA_RESTART, 0);
	struct itimerval in20 = in_20ms;

	t_setmask(BIT(SIGALRM));
	x_setitimer(ITIMER_REAL, &in20, NULL);
	sigemptyset(&none);
	errno = 0;
	rec.ret[0] = ops->sigsuspend(&none);
	rec.err[0] = errno;
	finish();
}

Test(sig_timer, sigsuspend_interrupted_by_timer)
{
	struct timer_rec h = both(body_sigsuspend);

	cr_expect_eq(h.ret[0], -1);
	cr_expect_eq(h.err[0], EINTR);
	cr_expect_eq(h.runs, 1);
	cr_expect_eq(rec.ret[0], -1);
	cr_expect_eq(rec.err[0], EINTR);
	cr_expect_eq(rec.runs, 1);
	cr_expect_eq(rec.code, h.code);
}

/* alarm's rounding, getitimer, bad arguments. */
static void body_settings(struct t_run *r)
{
	struct itimerval v = { .it_value.tv_sec = 10,
			       .it_interval.tv_sec = 1 };
	struct itimerval bad = { .it_value.tv_usec = 1000000 };

	(void)r;
	struct itimerval cur;

	rec.ret[0] = x_alarm(5);
	rec.ret[1] = x_alarm(0); /* 4.99... s left: rounds to 5 */
	x_setitimer(ITIMER_REAL, &v, NULL);
	/* Guest memory (the stack), as the engine requires. */
	x_getitimer(ITIMER_REAL, &cur);
	rec.cur = cur;
	errno = 0;
	rec.ret[2] = x_setitimer(ITIMER_REAL, &bad, NULL);
	rec.err[2] = errno;
	errno = 0;
	rec.ret[3] = x_getitimer(7, &v);
	rec.err[3] = errno;
	v = (struct itimerval){ 0 };
	x_setitimer(ITIMER_REAL, &v, NULL);
	finish();
}

Test(sig_timer, alarm_getitimer_and_bad_arguments)
{
	struct timer_rec h = both(body_settings);

	cr_expect_eq(h.ret[0], 0);
	cr_expect_eq(h.ret[1], 5);
	cr_expect_eq(h.cur.it_interval.tv_sec, 1);
	cr_expect_eq(h.cur.it_value.tv_sec, 9);
	for (int i = 0; i < 4; i++) {
		cr_expect_eq(rec.ret[i], h.ret[i], "ret[%d]: host %ld engine "
			     "%ld", i, h.ret[i], rec.ret[i]);
		cr_expect_eq(rec.err[i], h.err[i], "err[%d]: host %d engine "
			     "%d", i, h.err[i], rec.err[i]);
	}
	cr_expect_eq(rec.cur.it_interval.tv_sec, h.cur.it_interval.tv_sec);
	cr_expect_eq(rec.cur.it_interval.tv_usec, h.cur.it_interval.tv_usec);
	cr_expect_eq(rec.cur.it_value.tv_sec, h.cur.it_value.tv_sec);
}
