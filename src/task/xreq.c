// SPDX-License-Identifier: MIT
/*
 * Requests from other processes' monitors: a monitor that must show its
 * guest what another guest process looks like from inside (its /proc
 * entries, src/linux/proc_remote.c) asks that process's monitor, which
 * alone knows.  The question comes as the interrupt signal (irq.c) sent
 * with sigqueue(): an SI_QUEUE siginfo whose value carries a mark and
 * the question.  The handler only files it here (async-signal-safe, no
 * lock) and interrupts the task as a kick does; the answer is given on
 * the task's own thread in ordinary context, where the monitor holds no
 * lock: on the way back to guest code (ua__return_to_guest()) and where
 * a host call it made for the guest came back EINTR
 * (ua__sig_interrupted()), so a process blocked in wait4() answers
 * without waking its guest.  A task asleep on its signal state's
 * condition variable (pause, nanosleep, a futex the engine keeps), which
 * no handler may signal, is woken by the forwarding thread (hostsig.c)
 * and answers in its wait loop.
 */
#include <signal.h>
#include <stdatomic.h>

#include "task_internal.h"

#define XREQ_SLOTS 16

struct xreq {
	_Atomic int state; /* 0 free, 1 being filed, 2 filed, 3 taken */
	pid_t from;
	uint64_t value;
};

static struct xreq slots[XREQ_SLOTS];
static _Atomic int filed;
static ua__xreq_fn answer;

void ua__xreq_set_handler(ua__xreq_fn fn)
{
	__atomic_store_n(&answer, fn, __ATOMIC_RELEASE);
}

bool ua__xreq_post(const siginfo_t *info)
{
	uint64_t v = (uint64_t)(uintptr_t)info->si_value.sival_ptr;

	if (info->si_code != SI_QUEUE || (v >> 48) != UA_XREQ_MARK ||
	    !__atomic_load_n(&answer, __ATOMIC_ACQUIRE))
		return false;
	for (int i = 0; i < XREQ_SLOTS; i++) {
		int free_slot = 0;

		if (!atomic_compare_exchange_strong(&slots[i].state, &free_slot,
						    1))
			continue;
		slots[i].from = info->si_pid;
		slots[i].value = v;
		atomic_store(&slots[i].state, 2);
		atomic_fetch_add(&filed, 1);
		ua__host_sig_poke();
		return true;
	}
	/* All taken: the asker's wait runs out and it shows the host's. */
	return true;
}

void ua__xreq_serve(struct ua_task *t, bool asleep)
{
	ua__xreq_fn fn;

	if (ua_likely(!atomic_load_explicit(&filed, memory_order_relaxed)))
		return;
	fn = __atomic_load_n(&answer, __ATOMIC_ACQUIRE);
	for (int i = 0; i < XREQ_SLOTS; i++) {
		int was_filed = 2;
		uint64_t value;
		pid_t from;

		/* Another thread of the process may be answering it. */
		if (!atomic_compare_exchange_strong(&slots[i].state, &was_filed,
						    3))
			continue;
		from = slots[i].from;
		value = slots[i].value;
		atomic_store(&slots[i].state, 0);
		atomic_fetch_sub(&filed, 1);
		if (fn)
			fn(t, from, value, asleep);
	}
}

bool ua__xreq_filed(void)
{
	return atomic_load_explicit(&filed, memory_order_relaxed) != 0;
}

/* A forked monitor: the questions were for its parent. */
void ua__xreq_after_fork(void)
{
	for (int i = 0; i < XREQ_SLOTS; i++)
		atomic_store(&slots[i].state, 0);
	atomic_store(&filed, 0);
}
