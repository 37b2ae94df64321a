// SPDX-License-Identifier: MIT
/*
 * Another guest process's maps, smaps, smaps_rollup, status, stat,
 * fdinfo/N, fd/N and its fd/, fdinfo/ and task/ directories.  The
 * host's files of that process describe its monitor (every mapping of
 * the monitor, descriptors by the monitor's numbers); only its own
 * monitor knows the guest's view.  So a guest's open of one is a
 * question to that monitor (src/task/xreq.c), which writes the answer
 * with the same code that serves its own guest (procfs.c fill()):
 *
 *   asker                                    answerer (pid P)
 *   memfd "uarun-proc-P-<seq>", a pipe
 *   sigqueue(P, interrupt signal, question)
 *                                            filed by the handler; on its
 *                                            task's thread, no lock held:
 *                                            open /proc/<asker>/fd/<memfd>,
 *                                            write the entry, close;
 *   poll the pipe ...                        one byte (0: done) into the
 *                                            pipe, through /proc likewise
 *   the memfd, reopened read-only, is
 *   the guest's descriptor
 *
 * Asked only of a process whose host exe is this monitor's own file,
 * whose host status shows the interrupt signal caught (its handler is
 * in: the signal does not kill it) and which is neither stopped nor
 * traced nor dead (it could not answer; its host files are shown).  The
 * answerer checks that the descriptors it is pointed at are such a
 * memfd and a pipe before it writes.  A process that does not answer
 * within ASK_MS is shown as the host has it, as is any question that
 * cannot be put (descriptors past the 12 bits the question has for
 * them).  A stat or status says R or S as the answerer's guest ran or
 * slept when asked: the host would show the answerer running.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "linux_internal.h"

#define ASK_MS 1000

/*
 * The question, 64 bits: the mark (16, xreq.c), the entry (4), the
 * memfd and the pipe's write end (12 each), fdinfo's N (10), and a
 * sequence number (10) that the memfd's name repeats, so that a late
 * answer to a question given up on never lands in a later one's memfd.
 */
#define Q_FD_MAX 4096

static uint64_t question(int e, int memfd, int pipefd, long arg, unsigned seq)
{
	return (uint64_t)UA_XREQ_MARK << 48 | (uint64_t)(e & 15) << 44 |
	       (uint64_t)memfd << 32 | (uint64_t)pipefd << 20 |
	       (uint64_t)(arg & 1023) << 10 | (seq & 1023);
}

/*
 * Is pid another monitor of this kind, with its interrupt handler in,
 * and running or asleep?  Its host State value ("S (sleeping)") into
 * state.
 */
static bool answers(long pid, int sig, char state[32])
{
	char path[64], line[256];
	bool caught = false;
	FILE *f;

	if (!ua__lx_runs_monitor(pid))
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long m;

		if (!*state && sscanf(line, "State: %31[^\n]", state) == 1)
			continue;
		if (sscanf(line, "SigCgt: %llx", &m) == 1) {
			caught = (m >> (sig - 1)) & 1;
			break;
		}
	}
	fclose(f);
	return caught && *state && strchr("RSD", *state);
}

static long ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000 +
	       (now.tv_nsec - t0->tv_nsec) / 1000000;
}

/* The answer's byte: the entry is in the memfd, or it does not exist. */
enum { ANSWER_DONE, ANSWER_FAILED, ANSWER_NOENT };

/*
 * Wait for the answer's byte: 0, -ENOENT (the guest has no such entry),
 * or -ENOSYS (no answer: the host's view stands).  Questions put to this
 * monitor meanwhile are answered here (two monitors asking each other
 * would otherwise each wait out the other).
 */
static int wait_answer(struct ua_task *t, int rfd)
{
	struct pollfd pfd = { .fd = rfd, .events = POLLIN };
	struct timespec t0;
	char done = ANSWER_FAILED;
	long left;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((left = ASK_MS - ms_since(&t0)) > 0) {
		int n = poll(&pfd, 1, (int)left);

		if (n < 0 && errno == EINTR) {
			ua__xreq_serve(t, false);
			continue;
		}
		if (n <= 0 || read(rfd, &done, 1) != 1)
			break;
		return done == ANSWER_DONE  ? 0 :
		       done == ANSWER_NOENT ? -ENOENT :
					      -ENOSYS;
	}
	return -ENOSYS;
}

/*
 * The answer of a stat or status, written while the answerer ran, which
 * the host shows as R: the state its guest was in when asked (asleep in
 * a wait4() or a pause(): S).
 */
static void put_state(int memfd, enum lx_ask e, const char *state)
{
	char buf[8192], out[8192], *at;
	ssize_t n = pread(memfd, buf, sizeof(buf) - 1, 0);
	size_t len = 0, skip;

	if (n <= 0)
		return;
	buf[n] = 0;
	if (e == LX_ASK_STAT) {
		at = strrchr(buf, ')');
		if (at && at[1] == ' ' && at[2])
			n = pwrite(memfd, state, 1, at + 2 - buf);
		return;
	}
	at = strstr(buf, "\nState:\t");
	if (!at)
		return;
	at += 8;
	skip = strcspn(at, "\n");
	len = (size_t)snprintf(out, sizeof(out), "%.*s%s%s", (int)(at - buf),
			       buf, state, at + skip);
	if (len < sizeof(out) && !ftruncate(memfd, 0))
		n = pwrite(memfd, out, len, 0);
}

/*
 * Ask pid's monitor for e (arg): a memfd holding the answer, -ENOENT
 * (its guest has no such descriptor), or -ENOSYS (not such a process,
 * no answer).
 */
static int ask(struct ua_task *t, long pid, enum lx_ask e, long arg)
{
	static _Atomic unsigned seq;
	int sig = ua_interrupt_signal(), memfd = -1, p[2] = { -1, -1 };
	unsigned n = atomic_fetch_add(&seq, 1) & 1023;
	char name[64], state[32] = "";
	int ret = -ENOSYS;
	union sigval v;

	if (!sig || !answers(pid, sig, state))
		return -ENOSYS;
	snprintf(name, sizeof(name), "uarun-proc-%ld-%u", pid, n);
	memfd = memfd_create(name, MFD_CLOEXEC);
	if (memfd < 0 || pipe2(p, O_CLOEXEC) || memfd >= Q_FD_MAX ||
	    p[1] >= Q_FD_MAX)
		goto out;
	v.sival_ptr = (void *)(uintptr_t)question(e, memfd, p[1], arg, n);
	if (sigqueue((pid_t)pid, sig, v))
		goto out;
	ret = wait_answer(t, p[0]);
	if (ret)
		goto out;
	ret = memfd;
	memfd = -1;
out:
	if (memfd >= 0)
		close(memfd);
	if (p[0] >= 0) {
		close(p[0]);
		close(p[1]);
	}
	return ret;
}

/* The answer to e (arg) as a string in out (size), its length, or <0. */
static long ask_text(struct ua_task *t, long pid, enum lx_ask e, long arg,
		     char *out, size_t size)
{
	int memfd = ask(t, pid, e, arg);
	ssize_t n;

	if (memfd < 0)
		return memfd;
	n = pread(memfd, out, size, 0);
	close(memfd);
	return n < 0 ? -ENOSYS : n;
}

/* The fd/N link of a descriptor the guest does not have, as procfs.c's. */
#define NO_SUCH_FD "/proc/self/fd/-1"

/*
 * What another process's fd/N leads to, in path (PATH_MAX): the host's
 * link of the descriptor behind it, the path of the monitor's device, or
 * a name that does not exist for a descriptor the guest does not have.
 * False when it cannot be told.
 */
static bool fd_target(struct ua_task *t, long pid, long fd, char *path)
{
	char buf[PATH_MAX];
	long n = ask_text(t, pid, LX_ASK_FD_HOST, fd, buf, sizeof(buf) - 1);
	char *end;
	long h;

	if (n == -ENOENT) {
		snprintf(path, PATH_MAX, NO_SUCH_FD);
		return true;
	}
	if (n <= 0)
		return false;
	buf[n] = 0;
	h = strtol(buf, &end, 10);
	if (end != buf && !*end)
		snprintf(path, PATH_MAX, "/proc/%ld/fd/%ld", pid, h);
	else if (*buf == '/')
		snprintf(path, PATH_MAX, "%s", buf);
	else
		return false;
	return true;
}

long ua__lx_remote_open(struct ua_task *t, const char *path, int flags)
{
	char target[PATH_MAX];
	long pid, arg = 0, ret;
	enum lx_ask e = ua__lx_procfs_other(path, &pid, &arg);
	int memfd;

	if (e == LX_ASK_NONE || e == LX_ASK_LIST)
		return -ENOSYS;
	/* A descriptor's link, opened: the file afresh, as the kernel's. */
	if (e == LX_ASK_FD_LINK) {
		if (!fd_target(t, pid, arg, target))
			return -ENOSYS;
		ret = open(target, flags | O_CLOEXEC, 0);
		return ret < 0 ? -errno : ua__lx_host_above_stdio((int)ret);
	}
	if ((flags & O_ACCMODE) != O_RDONLY ||
	    (flags & (O_CREAT | O_DIRECTORY)))
		return -ENOSYS;
	memfd = ask(t, pid, e, arg);
	if (memfd < 0)
		return memfd;
	ret = ua__lx_procfs_read_only(memfd);
	close(memfd);
	return ret;
}

long ua__lx_remote_readlink(struct ua_task *t, const char *path, char *out,
			    size_t size)
{
	long pid, arg = 0;

	if (ua__lx_procfs_other(path, &pid, &arg) != LX_ASK_FD_LINK)
		return -ENOSYS;
	return ask_text(t, pid, LX_ASK_FD_LINK, arg, out, size);
}

void ua__lx_remote_host_path(struct ua_task *t, char *path, bool follow)
{
	char target[PATH_MAX];
	long pid, arg = 0;

	if (ua__lx_procfs_other(path, &pid, &arg) != LX_ASK_FD_LINK ||
	    !fd_target(t, pid, arg, target))
		return;
	/* lstat asks about the link: the host's one of the same open. */
	if (follow || !strncmp(target, "/proc/", 6))
		memcpy(path, target, strlen(target) + 1);
}

long ua__lx_remote_names(struct ua_task *t, long pid, int which, long *out,
			 size_t max)
{
	int memfd = pid > 0 ? ask(t, pid, LX_ASK_LIST, which) : -ENOSYS;
	size_t n = 0;
	char line[32];
	FILE *f;

	if (memfd < 0)
		return memfd;
	lseek(memfd, 0, SEEK_SET);
	f = fdopen(memfd, "r");
	if (!f) {
		close(memfd);
		return -ENOSYS;
	}
	while (n < max && fgets(line, sizeof(line), f))
		out[n++] = strtol(line, NULL, 10);
	fclose(f);
	return (long)n;
}

/* Does asker's descriptor fd lead to want (a prefix when !exact)? */
static bool link_is(pid_t asker, int fd, const char *want, bool exact)
{
	char path[64], link[128];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)asker, fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = 0;
	return exact ? !strcmp(link, want) : !strncmp(link, want, strlen(want));
}

static int open_asker_fd(pid_t asker, int fd, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)asker, fd);
	return open(path, flags | O_CLOEXEC);
}

void ua__lx_remote_answer(struct ua_task *t, pid_t from, uint64_t q,
			  bool asleep)
{
	enum lx_ask e = (enum lx_ask)((q >> 44) & 15);
	int memfd = (int)(q >> 32) & 0xfff, pipefd = (int)(q >> 20) & 0xfff;
	long arg = (long)(q >> 10) & 1023;
	unsigned n = (unsigned)q & 1023;
	char want[80], done = ANSWER_FAILED;
	long err;
	int fd;

	snprintf(want, sizeof(want), "/memfd:uarun-proc-%d-%u (deleted)",
		 (int)getpid(), n);
	if (!link_is(from, memfd, want, true) ||
	    !link_is(from, pipefd, "pipe:", false))
		return;
	fd = open_asker_fd(from, memfd, O_RDWR);
	if (fd >= 0) {
		err = ua__lx_procfs_fill(t, fd, e, arg);
		done = !err	      ? ANSWER_DONE :
		       err == -ENOENT ? ANSWER_NOENT :
					ANSWER_FAILED;
		if (!err && (e == LX_ASK_STAT || e == LX_ASK_STATUS))
			put_state(fd, e,
				  asleep ? "S (sleeping)" : "R (running)");
		close(fd);
	}
	fd = open_asker_fd(from, pipefd, O_WRONLY | O_NONBLOCK);
	if (fd < 0)
		return;
	if (write(fd, &done, 1) != 1)
		done = ANSWER_FAILED;
	close(fd);
}
