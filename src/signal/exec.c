// SPDX-License-Identifier: MIT
/*
 * What a task's signal state becomes across execve (fs/exec.c,
 * begin_new_exec() and flush_signal_handlers() in kernel/signal.c): the
 * blocked mask and the pending signals stay, with their siginfo; ignored
 * signals stay ignored; every caught signal goes back to SIG_DFL with
 * its flags, mask and restorer cleared; the altstack is gone.
 *
 * The old image's monitor saves it (ua__sig_exec_save()), the new
 * image's loads it into a task that has not run yet (ua__sig_exec_load()).
 */
#include <string.h>

#include "signal_internal.h"

/*
 * The group's pending signals stay pending across execve (the kernel
 * keeps signal->shared_pending); the new image is one thread, so they
 * join its own: a standard signal already pending coalesces, RT ones
 * queue while there is room.
 */
static void merge_group(struct ua_sig_image *img, struct ua_sigpend *q)
{
	uint64_t std;

	ua__sigq_lock(q);
	std = atomic_load(&q->pending) & ~img->pending &
	      (SIGBIT(UA_SIGRTMIN) - 1);
	for (int sig = 1; sig < UA_SIGRTMIN; sig++)
		if (std & SIGBIT(sig))
			img->std_info[sig] = q->std_info[sig];
	for (int i = 0; i < q->qlen; i++) {
		if (img->qlen < UA_SIGQUEUE_MAX)
			img->queue[img->qlen++] = q->queue[i];
		else
			img->noinfo |= SIGBIT(q->queue[i].sig);
	}
	img->noinfo |= q->noinfo;
	img->pending |= atomic_load(&q->pending);
	ua__sigq_unlock(q);
}

void ua__sig_exec_save(struct ua_task *t, struct ua_sig_image *img)
{
	struct ua_sigstate *s = sigstate(t);

	memset(img, 0, sizeof(*img));
	pthread_mutex_lock(&s->lock);
	ua__sigq_lock(&s->own);
	img->blocked = atomic_load(&s->blocked);
	for (int sig = 1; sig <= UA_NSIG; sig++)
		if (s->action[sig].handler == (uint64_t)(uintptr_t)SIG_IGN)
			img->ignored |= SIGBIT(sig);
	img->pending = atomic_load(&s->own.pending);
	memcpy(img->std_info, s->own.std_info, sizeof(img->std_info));
	img->qlen = s->own.qlen;
	memcpy(img->queue, s->own.queue,
	       (size_t)s->own.qlen * sizeof(s->own.queue[0]));
	img->noinfo = s->own.noinfo;
	ua__sigq_unlock(&s->own);
	pthread_mutex_unlock(&s->lock);
	merge_group(img, &s->sh->shared);
}

/* Before the task first runs: nobody else holds its state yet. */
int ua__sig_exec_load(struct ua_task *t, const struct ua_sig_image *img)
{
	struct ua_sigstate *s = sigstate(t);
	unsigned int chld;

	if (img->qlen < 0 || img->qlen > UA_SIGQUEUE_MAX)
		return -EINVAL;
	for (int i = 0; i < img->qlen; i++)
		if (img->queue[i].sig < UA_SIGRTMIN ||
		    img->queue[i].sig > UA_NSIG)
			return -EINVAL;
	ua__sig_set_blocked(t, img->blocked);
	for (int sig = 1; sig <= UA_NSIG; sig++) {
		memset(&s->action[sig], 0, sizeof(s->action[sig]));
		if ((img->ignored & SIGBIT(sig)) &&
		    !(UNBLOCKABLE & SIGBIT(sig)))
			s->action[sig].handler = (uint64_t)(uintptr_t)SIG_IGN;
	}
	/*
	 * An ignored SIGCHLD keeps the children reaped by the host; the
	 * flags of a caught one are gone with its handler.
	 */
	chld = img->ignored & SIGBIT(SIGCHLD) ? UA_CHLD_IGNORE : 0;
	ua__host_sig_chld(t, chld);
	memcpy(s->own.std_info, img->std_info, sizeof(s->own.std_info));
	memcpy(s->own.queue, img->queue,
	       (size_t)img->qlen * sizeof(s->own.queue[0]));
	s->own.qlen = img->qlen;
	s->own.noinfo = img->noinfo;
	atomic_store(&s->own.pending, img->pending);
	return 0;
}
