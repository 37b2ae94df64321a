// SPDX-License-Identifier: MIT
/*
 * Threads and signal handlers.  Two threads hammering windows on one
 * space never see a spurious fault; one thread's close never locks memory
 * under another thread's open window; what one thread's window or guest
 * mode lets *other* threads do, per backend (pkey isolates threads,
 * mprotect cannot); a signal handler that interrupts a window, monitor
 * mode or guest mode, and the nofault accessor inside it.
 */
#include <semaphore.h>
#include <time.h>

#include "tprotect.h"

static struct t_env env;

static void setup(void)
{
	t_env_setup(&env, 2);
	ua_stats_reset();
}

static void teardown(void)
{
	t_env_teardown(&env);
}

TestSuite(threads, .init = setup, .fini = teardown);

#define RW (PROT_READ | PROT_WRITE)
#define ITERS 100000

struct hammer {
	int id;
	pthread_barrier_t *start;
	long errors;
	struct ua_stats st;
};

/* Word 0 is read by the reader and never written; words 1.. are written. */
static void *reader(void *arg)
{
	struct hammer *h = arg;
	const uint64_t *w = (const uint64_t *)env.buf;
	uint64_t v;

	ua_space_use(env.sp);
	ua_stats_reset();
	pthread_barrier_wait(h->start);
	for (long i = 0; i < ITERS; i++) {
		if (i & 1) {
			if (ua_get_user(v, w) || v != 0x5a5a5a5a5a5a5a5aull)
				h->errors++;
			continue;
		}
		if (!ua_user_read_access_begin(w, 16)) {
			h->errors++;
			continue;
		}
		ua_unsafe_get_user(v, w, fault);
		if (v != 0x5a5a5a5a5a5a5a5aull)
			h->errors++;
		ua_unsafe_get_user(v, w + 1, fault);
		ua_user_read_access_end();
		continue;
fault:
		ua_user_read_access_end();
		h->errors++;
	}
	ua_stats_get(&h->st);
	return NULL;
}

static void *writer(void *arg)
{
	struct hammer *h = arg;
	uint64_t *w = (uint64_t *)env.buf + 8 * h->id;
	uint64_t v;

	ua_space_use(env.sp);
	ua_stats_reset();
	pthread_barrier_wait(h->start);
	for (long i = 0; i < ITERS; i++) {
		switch (i % 3) {
		case 0:
			if (ua_put_user((uint64_t)i, w))
				h->errors++;
			break;
		case 1:
			if (!ua_user_write_access_begin(w, 8)) {
				h->errors++;
				break;
			}
			ua_unsafe_put_user((uint64_t)i, w, wfault);
			ua_user_write_access_end();
			break;
wfault:
			ua_user_write_access_end();
			h->errors++;
			break;
		default:
			if (!ua_user_access_begin(w, 8)) {
				h->errors++;
				break;
			}
			ua_unsafe_get_user(v, w, rwfault);
			if (v != (uint64_t)i - 1)
				h->errors++;
			ua_unsafe_put_user((uint64_t)i, w, rwfault);
			ua_user_access_end();
			break;
rwfault:
			ua_user_access_end();
			h->errors++;
			break;
		}
	}
	ua_stats_get(&h->st);
	return NULL;
}

static void run_two(void *(*a)(void *), void *(*b)(void *))
{
	pthread_barrier_t start;
	struct hammer h[2] = { { .id = 0 }, { .id = 1 } };
	pthread_t t[2];
	uint64_t pattern = 0x5a5a5a5a5a5a5a5aull;

	t_poke(env.buf, &pattern, 8);
	pthread_barrier_init(&start, NULL, 2);
	h[0].start = h[1].start = &start;
	h[1].id = 2;
	cr_assert_eq(pthread_create(&t[0], NULL, a, &h[0]), 0);
	cr_assert_eq(pthread_create(&t[1], NULL, b, &h[1]), 0);
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		cr_assert_eq(h[i].errors, 0, "thread %d: %ld spurious faults",
			     i, h[i].errors);
		cr_assert_eq(h[i].st.fixups, 0, "thread %d", i);
		cr_assert_eq(h[i].st.switches, 2 * ITERS, "thread %d", i);
		cr_assert_eq(h[i].st.windows, ITERS, "thread %d", i);
	}
	pthread_barrier_destroy(&start);
	t_assert_probe(env.buf, t_expect(env.sp, T_LOCKED, RW),
		       "locked after both threads are done");
}

Test(threads, reader_and_writer_1e5_windows_each)
{
	run_two(reader, writer);
}

Test(threads, two_writers_1e5_windows_each)
{
	run_two(writer, writer);
}

/*
 * Choreography for the tests below: each step waits for the previous
 * one; sem[i] is posted when step i is done.
 */
static sem_t step[8];

static void steps_init(void)
{
	for (int i = 0; i < 8; i++)
		sem_init(&step[i], 0, 0);
}

static void done(int i)
{
	sem_post(&step[i]);
}

static void after(int i)
{
	while (sem_wait(&step[i]) && errno == EINTR)
		;
}

struct seen {
	int probe_in_window;
	int probe_after_other_close;
	int probe_other_guest;
	long errors;
};

static struct seen seen;

/* A: read window open across B's whole write window. */
static void *holder(void *arg)
{
	uint64_t v;

	(void)arg;
	ua_space_use(env.sp);
	if (!ua_user_read_access_begin(env.buf, 64))
		seen.errors++;
	done(0);
	after(1); /* B opened and closed its write window */
	seen.probe_after_other_close = ua_protect_probe(env.buf);
	ua_unsafe_get_user(v, (uint64_t *)env.buf, fault);
	(void)v;
	ua_user_read_access_end();
	return NULL;
fault:
	seen.errors++;
	ua_user_read_access_end();
	return NULL;
}

static void *opener(void *arg)
{
	(void)arg;
	ua_space_use(env.sp);
	after(0);
	if (ua_put_user(1u, (uint32_t *)(env.buf + 128)))
		seen.errors++;
	done(1);
	return NULL;
}

Test(threads, a_close_never_locks_another_threads_window)
{
	pthread_t a, b;

	steps_init();
	pthread_create(&a, NULL, holder, NULL);
	pthread_create(&b, NULL, opener, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	cr_assert_eq(seen.errors, 0);
	cr_assert_eq(seen.probe_after_other_close,
		     t_expect(env.sp, T_READWIN, RW));
	t_assert_probe(env.buf, t_expect(env.sp, T_LOCKED, RW));
}

/*
 * What thread B can do while thread A holds a read window, then runs in
 * guest mode.  pkey: nothing (PKRU is per thread).  mprotect: whatever A's
 * mode opened, for the whole process (the documented limit).  none: all.
 */
static void *mode_holder(void *arg)
{
	(void)arg;
	ua_space_use(env.sp);
	if (!ua_user_read_access_begin(env.buf, 8))
		seen.errors++;
	done(0);
	after(1);
	ua_user_read_access_end();
	ua_protect_unlock(env.sp);
	done(2);
	after(3);
	ua_protect_lock(env.sp);
	return NULL;
}

static void *bystander(void *arg)
{
	(void)arg;
	after(0);
	seen.probe_in_window = ua_protect_probe(env.buf);
	done(1);
	after(2);
	seen.probe_other_guest = ua_protect_probe(env.buf);
	done(3);
	return NULL;
}

Test(threads, what_other_threads_see)
{
	pthread_t a, b;
	int in_window, in_guest;

	steps_init();
	pthread_create(&a, NULL, mode_holder, NULL);
	pthread_create(&b, NULL, bystander, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	cr_assert_eq(seen.errors, 0);
	switch (ua_space_protect(env.sp)) {
	case UA_PROTECT_PKEY:
		in_window = in_guest = 0;
		break;
	case UA_PROTECT_MPROTECT:
		in_window = T_R;
		in_guest = T_RW;
		break;
	default:
		in_window = in_guest = T_RW;
		break;
	}
	cr_assert_eq(seen.probe_in_window, in_window);
	cr_assert_eq(seen.probe_other_guest, in_guest);
	t_assert_probe(env.buf, t_expect(env.sp, T_LOCKED, RW));
}

/* A thread that existed before the space was created finds it locked. */
static char *early_addr;

static void *early(void *arg)
{
	(void)arg;
	after(0);
	seen.probe_in_window = ua_protect_probe(early_addr);
	return NULL;
}

Test(threads, thread_older_than_the_space)
{
	struct t_env mine;
	pthread_t t;

	steps_init();
	pthread_create(&t, NULL, early, NULL);
	t_env_setup(&mine, 1);
	early_addr = mine.buf;
	done(0);
	pthread_join(t, NULL);
	cr_assert_eq(seen.probe_in_window, t_expect(mine.sp, T_LOCKED, RW));
	t_env_teardown(&mine);
	ua_space_use(env.sp);
}

/* Signal handlers: raise() delivers at once, on this thread. */

struct in_handler {
	int probe_before;
	long nofault;
	uint64_t value;
	int probe_after;
	struct ua_stats st;
};

static struct in_handler hs;

static void on_usr1(int sig)
{
	(void)sig;
	hs.probe_before = ua_protect_probe(env.buf);
	hs.nofault = ua_copy_from_user_nofault(&hs.value, env.buf, 8);
	hs.probe_after = ua_protect_probe(env.buf);
	ua_stats_get(&hs.st);
}

static void install_usr1(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };

	sigemptyset(&sa.sa_mask);
	cr_assert_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	hs = (struct in_handler){ .probe_before = -1 };
}

/*
 * What a handler sees of the interrupted thread's protection: pkey
 * handlers start with the init PKRU, every space locked; mprotect and
 * none are per process, so the handler sees what the thread had.
 */
static int handler_view(enum t_mode interrupted)
{
	if (t_is(env.sp, UA_PROTECT_PKEY))
		return 0;
	return t_expect(env.sp, interrupted, RW);
}

static const uint64_t magic = 0x0123456789abcdefull;

Test(threads, handler_interrupting_a_window)
{
	uint64_t v;

	install_usr1();
	t_poke(env.buf, &magic, 8);
	ua_stats_reset();
	cr_assert(ua_user_read_access_begin(env.buf, 8));
	raise(SIGUSR1);
	cr_assert_eq(hs.probe_before, handler_view(T_READWIN));
	/* The window belongs to the interrupted code: nofault refuses. */
	cr_assert_eq(hs.nofault, -EFAULT);
	cr_assert_eq(hs.st.switches, 1, "the refused nofault switched nothing");
	/* Back from the handler, the window is intact. */
	t_assert_probe(env.buf, t_expect(env.sp, T_READWIN, RW));
	ua_unsafe_get_user(v, (uint64_t *)env.buf, fault);
	cr_assert_eq(v, magic);
	ua_user_read_access_end();
	t_assert_stats(2, 1, 0);
	t_assert_probe(env.buf, t_expect(env.sp, T_LOCKED, RW));
	return;
fault:
	cr_assert_fail("the window was closed under the interrupted code");
}

Test(threads, handler_interrupting_monitor_mode)
{
	install_usr1();
	t_poke(env.buf, &magic, 8);
	ua_stats_reset();
	raise(SIGUSR1);
	cr_assert_eq(hs.probe_before, handler_view(T_LOCKED));
	cr_assert_eq(hs.nofault, 0);
	cr_assert_eq(hs.value, magic);
	cr_assert_eq(hs.probe_after, t_expect(env.sp, T_LOCKED, RW));
	t_assert_stats(2, 1, 0);
	t_assert_probe(env.buf, t_expect(env.sp, T_LOCKED, RW));
}

Test(threads, handler_interrupting_guest_mode)
{
	install_usr1();
	t_poke(env.buf, &magic, 8);
	ua_protect_unlock(env.sp);
	ua_stats_reset();
	raise(SIGUSR1);
	cr_assert_eq(hs.probe_before, handler_view(T_GUEST));
	cr_assert_eq(hs.nofault, 0);
	cr_assert_eq(hs.value, magic);
	/* Its window closed back to the thread's mode: guest. */
	cr_assert_eq(hs.probe_after, t_expect(env.sp, T_GUEST, RW));
	t_assert_stats(2, 1, 0);
	t_assert_probe(env.buf, T_RW, "still guest mode after the handler");
	ua_protect_lock(env.sp);
	t_assert_probe(env.buf, t_expect(env.sp, T_LOCKED, RW));
}

/*
 * Signals landing anywhere, including while the thread holds the space's
 * lock (ua_map, ua_unmap, an mprotect switch): a handler's nofault read
 * either works or returns -EFAULT, never deadlocks on the lock its own
 * thread holds, and never leaves the space open.  A timer aimed at this
 * thread fires every 100 us while the loop runs; how many signals land
 * where does not matter to the assertions.
 */
static volatile sig_atomic_t ticks, tick_ok, tick_efault, tick_bad;

static void on_tick(int sig)
{
	uint64_t v = 0;
	long r;

	(void)sig;
	ticks++;
	r = ua_copy_from_user_nofault(&v, env.buf, 8);
	if (r == 0 && v == magic)
		tick_ok++;
	else if (r == -EFAULT)
		tick_efault++;
	else
		tick_bad++;
}

Test(threads, nofault_from_a_timer_signal_anywhere)
{
	struct sigaction sa = { .sa_handler = on_tick };
	struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID,
				.sigev_signo = SIGALRM };
	struct itimerspec its = { .it_interval = { 0, 100000 },
				  .it_value = { 0, 100000 } };
	char *base = (char *)ua_space_base(env.sp) + 128 * T_PG;
	timer_t tm;

	t_poke(env.buf, &magic, 8);
	sigemptyset(&sa.sa_mask);
	cr_assert_eq(sigaction(SIGALRM, &sa, NULL), 0);
	sev._sigev_un._tid = gettid(); /* sigev_notify_thread_id */
	cr_assert_eq(timer_create(CLOCK_MONOTONIC, &sev, &tm), 0);
	cr_assert_eq(timer_settime(tm, 0, &its, NULL), 0);
	for (int i = 0; i < 10000; i++) {
		char *p = ua_map(env.sp, base, T_PG, RW);
		uint32_t v;

		cr_assert_eq(p, base);
		cr_assert_eq(ua_put_user((uint32_t)i, (uint32_t *)p), 0);
		cr_assert_eq(ua_get_user(v, (uint32_t *)p), 0);
		cr_assert_eq(v, (uint32_t)i);
		cr_assert_eq(ua_unmap(env.sp, p, T_PG), 0);
	}
	timer_delete(tm);
	signal(SIGALRM, SIG_IGN);
	cr_assert_eq(tick_bad, 0);
	cr_assert_eq(tick_ok + tick_efault, ticks);
	t_assert_probe(env.buf, t_expect(env.sp, T_LOCKED, RW));
	cr_log_info("%d ticks: %d read, %d refused", (int)ticks, (int)tick_ok,
		    (int)tick_efault);
}
