/* SPDX-License-Identifier: MIT */
/*
 * The linux layer: what makes a task the process of an unmodified static
 * Linux program.  The syscall table by number (table.c), one file per
 * family of calls (sys_*.c, each call written like the kernel's: every
 * guest pointer through the accessors or an iov_iter), the descriptor
 * table with the monitor-served devices (sys_file.c), the loader.
 */
#ifndef UA_LINUX_INTERNAL_H
#define UA_LINUX_INTERNAL_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/syscall.h>

#include <uaccess/linux.h>

#include "../signal/signal_internal.h"

/* TASK_SIZE_MAX (arch/x86/include/asm/page_64_types.h), 4-level paging. */
#define LX_TASK_SIZE_MAX (((uintptr_t)1 << 47) - 4096)

#define LX_NR_MAX 512
#define LX_NFDS 1024

enum lx_file_kind {
	LX_FD_FREE = 0,
	LX_FD_HOST,    /* a host descriptor */
	LX_FD_NULL,    /* /dev/null, served by the monitor */
	LX_FD_ZERO,    /* /dev/zero, served by the monitor */
};

/* What the fast path (fast.c) found a host descriptor to be. */
enum lx_host_kind {
	LX_HK_UNKNOWN = 0, /* not asked yet */
	LX_HK_REG,         /* a regular file */
	LX_HK_NULL,        /* the host's /dev/null */
	LX_HK_OTHER,
	LX_HK_MEM,         /* /proc/<pid>/mem: read and written by proc_mem.c */
	LX_HK_PROC,        /* a file of procfs the full path has not told apart */
};

/* procfs's device number, or (dev_t)-1 when /proc is not mounted. */
UA_HIDDEN extern dev_t ua__lx_procfs_dev;

/*
 * What fstat says a host descriptor is.  A regular file of procfs may be
 * a mem file reached through a spelling procfs.c does not know (an
 * openat() relative to /proc/self, "/proc//self/mem"): the fast path
 * takes none, and the full path asks which it is (ua__lx_host_kind()).
 * Inlined whole (UA_FAST_INLINE): the fast path's copy makes no call.
 */
UA_FAST_INLINE int lx_hkind_of(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return st->st_dev == ua__lx_procfs_dev ? LX_HK_PROC : LX_HK_REG;
	/* /dev/null's number, 1:3, as new_encode_dev() gives it to stat. */
	if (S_ISCHR(st->st_mode) && st->st_rdev == (dev_t)((1u << 8) | 3u))
		return LX_HK_NULL;
	return LX_HK_OTHER;
}

struct lx_file {
	enum lx_file_kind kind;
	int host;      /* LX_FD_HOST: the host descriptor */
	int flags;     /* O_* status flags given at open (append, nonblock) */
	bool cloexec;
	int sfd;       /* a signalfd: 1 + its slot (sys_signalfd.c); else 0 */
	uint8_t hkind; /* enum lx_host_kind: a file's type never changes */
	uint8_t pdir;  /* one of the guest's /proc directories: LX_PDIR_* */
};

/*
 * The guest's own /proc directories, which procfs_dir.c lists; with
 * LX_PDIR_OTHER, another uarun process's, whose monitor is asked.
 */
enum lx_proc_dir { LX_PDIR_FD = 1, LX_PDIR_FDINFO, LX_PDIR_TASK };
#define LX_PDIR_OTHER 0x80

/* signalfds a process may have at once (ENFILE past it). */
#define LX_NSIGFD 64

/*
 * May the monitor's own device f be read (write false) or written?  The
 * host checks its descriptors itself; these are checked here, as
 * vfs_read()/vfs_write() check FMODE_READ/FMODE_WRITE (fs/read_write.c;
 * an O_ACCMODE of 3 and O_PATH give neither).
 */
static inline UA_FAST bool lx_dev_mode_ok(const struct lx_file *f, bool write)
{
	int acc = f->flags & O_ACCMODE;

	if (f->flags & O_PATH)
		return false;
	return acc == O_RDWR || acc == (write ? O_WRONLY : O_RDONLY);
}

/*
 * The host's /dev/null and /dev/zero behind the monitor's devices in the
 * calls that move data between two descriptors (sendfile, splice, tee,
 * copy_file_range) and in lstat of their links, opened once for each set
 * of the flags those look at (sys_file.c ua__lx_dev_host_fd()): 1 + the
 * descriptor, 0 until the first use.  The fast path's sendfile takes one
 * already open.
 */
#define LX_DEV_SLOTS 9
extern UA_HIDDEN _Atomic int ua__lx_dev_fds[2][LX_DEV_SLOTS];

static inline UA_FAST _Atomic int *lx_dev_cache(const struct lx_file *f)
{
	int slot = f->flags & O_PATH ? 8 :
				       (f->flags & O_ACCMODE) |
					       (f->flags & O_APPEND ? 4 : 0);

	return &ua__lx_dev_fds[f->kind == LX_FD_ZERO][slot];
}

/* The kernel's struct rlimit64 (include/uapi/linux/resource.h). */
struct lx_rlimit {
	uint64_t cur, max;
};

#define LX_RLIM_NLIMITS 16
#define LX_RLIM_INFINITY (~(uint64_t)0)

struct lx_timer {
	pthread_t thread;
	bool started, stop;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct timespec expires; /* CLOCK_MONOTONIC; 0: disarmed */
	struct timespec interval;
	/*
	 * The process's task while it has one thread (ua__lx_timer_signal()).
	 * The thread's argument is this struct, never the task, whose lx
	 * pointer its end clears before the thread is stopped.
	 */
	struct ua_task *owner;
};

/* Room for the auxiliary vector the loader gives (loader.c). */
#define LX_AUXV_WORDS 48

/* Per-task state of a loaded program. */
/* What a guest range was made from, for /proc/<pid>/maps (vma_names.c). */
struct lx_vname {
	uintptr_t start, end;
	uint64_t off;         /* file offset of start */
	uint64_t dev, ino;    /* the file's st_dev and st_ino */
	char *path;           /* the file's absolute path; NULL: anonymous */
	bool shared;          /* MAP_SHARED */
};

/* One line of a guest's maps: a range and what it is (proc_maps.c). */
struct lx_vma {
	uintptr_t start, end;
	int prot;
	const struct lx_vname *name; /* NULL: private anonymous */
	uint64_t off;
	const char *label; /* [heap], [stack], or NULL */
};

/* What is a thread's own in the linux layer (sys_thread.c). */
struct lx_thread {
	pid_t tid;                /* 0: the process's first, whose is its pid */
	uint64_t clear_child_tid; /* set_tid_address(), CLONE_CHILD_CLEARTID */
	bool thread_exit;         /* exit(), not exit_group() */
	uint64_t robust_list;     /* set_robust_list()'s head, or 0 */
	char *iobuf;              /* LX_CHUNK bytes between host and guest */
	bool joinable;            /* a host thread of ours, not yet on gone */
};

struct lx_proc {
	struct lx_file files[LX_NFDS];
	uintptr_t brk_start, brk_cur, brk_mapped;
	uintptr_t mmap_hint;      /* top-down placement starts below this */
	int trace_fd;             /* -1: off */
	bool trace_pids;          /* several processes: lines say whose */
	unsigned long counts[LX_NR_MAX];
	unsigned long other_count;
	uint8_t unknown_named[LX_NR_MAX / 8];
	/* The process's limits (kernel/sys.c do_prlimit), from the host's. */
	struct lx_rlimit rlim[LX_RLIM_NLIMITS];
	struct lx_timer timer;
	char execfn[4096];
	/* The first thread's own (its task has no lx_thread). */
	struct lx_thread first;
	/*
	 * The thread group (sys_thread.c), under tlock; empty until the
	 * first clone of a thread.  big serialises the calls that change
	 * the process's state while it has several threads (table.c).
	 */
	pthread_mutex_t tlock;
	pthread_cond_t tcond;
	struct ua_task **threads;
	size_t threads_cap;
	_Atomic size_t nthreads;
	struct ua_task *leader;
	bool group_exiting;
	int group_status;
	pthread_mutex_t big;
	_Atomic pid_t big_owner;
	/*
	 * Host threads whose guest thread has ended, still to be joined
	 * (ua__lx_reap()), under tlock.
	 */
	pthread_t *gone;
	_Atomic size_t ngone;
	size_t gone_cap;
	/* Handlers run by threads that have ended, for --stats. */
	unsigned long signals_gone;
	/* The mm's arg and env strings and saved_auxv, for /proc (procfs.c). */
	uintptr_t arg_start, arg_end, env_start, env_end;
	/* The mm's code and data bounds and initial stack, for stat. */
	uintptr_t start_code, end_code, start_data, end_data, start_stack;
	uint64_t auxv[LX_AUXV_WORDS];
	size_t auxv_words;        /* the AT_NULL pair included */
	/* Ranges made from files or shared, sorted (vma_names.c). */
	struct lx_vname *names;
	size_t nnames, names_cap;
	/* The monitor's own ranges /proc/<pid>/maps leaves out (procfs.c). */
	uintptr_t patch_start, patch_end;
	/* POSIX timers (sys_timer.c), made at the first timer_create(). */
	struct lx_ptimers *ptimers;
	/* signalfds (sys_signalfd.c), made at the first signalfd(). */
	struct lx_sigfds *sigfds;
};

#define LX_CHUNK (64 << 10)
/* The heap's reserve: the break may grow this far (sys_mm.c). */
#define LX_BRK_MAX ((uintptr_t)256 << 20)

typedef long (*lx_fn)(struct ua_task *t, struct ua_pt_regs *r);

/*
 * One entry of the table.  args: one letter per argument for --trace:
 * d signed, u unsigned, x hex, p pointer, s string, w write buffer (its
 * length is the next argument), f descriptor, o open flags, - none.
 */
struct lx_call {
	unsigned int nr;
	const char *name;
	lx_fn fn;
	const char *args;
};

static inline UA_FAST struct lx_proc *lx_proc(struct ua_task *t)
{
	return t->lx;
}

static inline UA_FAST struct lx_thread *lx_thr(struct ua_task *t)
{
	return t->lx_thread ? (struct lx_thread *)t->lx_thread :
			      &lx_proc(t)->first;
}

static inline UA_FAST char *lx_iobuf(struct ua_task *t)
{
	return lx_thr(t)->iobuf;
}

/* Has the process more than one thread (some calls then lock)? */
static inline UA_FAST bool lx_threaded(const struct lx_proc *p)
{
	return atomic_load_explicit(&p->nthreads, memory_order_relaxed) > 1;
}

/* Arguments in the Linux convention. */
#define ARG1(r) ((r)->rdi)
#define ARG2(r) ((r)->rsi)
#define ARG3(r) ((r)->rdx)
#define ARG4(r) ((r)->r10)
#define ARG5(r) ((r)->r8)
#define ARG6(r) ((r)->r9)

/*
 * Descriptors the process may have: RLIMIT_NOFILE, as alloc_fd() and
 * dup2() take it (fs/file.c), within the table's size.
 */
static inline UA_FAST int lx_nofile(const struct lx_proc *p)
{
	uint64_t cur = p->rlim[RLIMIT_NOFILE].cur;

	return cur < LX_NFDS ? (int)cur : LX_NFDS;
}

/* procfs.c */
UA_HIDDEN long ua__lx_procfs_open(struct ua_task *t, const char *path,
				  int flags);
UA_HIDDEN void ua__lx_procfs_alias(char *path, bool follow);
UA_HIDDEN void ua__lx_procfs_host_path(struct ua_task *t, char *path,
				       bool follow);
/* proc_status.c: the guest's /proc/<pid>/status and stat, written to fd. */
UA_HIDDEN long ua__lx_put_status(struct ua_task *t, int fd, long tid);
UA_HIDDEN long ua__lx_put_stat(struct ua_task *t, int fd, long tid);
/* proc_maps.c: the guest's /proc/<pid>/maps, written to fd. */
UA_HIDDEN long ua__lx_put_maps(struct ua_task *t, int fd);
UA_HIDDEN void ua__lx_vmas(struct ua_task *t,
			   void (*fn)(const struct lx_vma *, void *), void *arg);
UA_HIDDEN void ua__lx_print_vma(FILE *f, const struct lx_vma *v);
/* proc_smaps.c: the guest's /proc/<pid>/smaps or smaps_rollup. */
UA_HIDDEN long ua__lx_put_smaps(struct ua_task *t, int fd, bool rollup);
UA_HIDDEN void ua__lx_procfs_mark(const char *path, struct lx_file *f);
UA_HIDDEN size_t ua__lx_vm_size(struct ua_task *t);
UA_HIDDEN size_t ua__lx_mem_span(struct ua_task *t, uintptr_t addr,
				 size_t len);
UA_HIDDEN void ua__lx_procfs_dev_init(void);
UA_HIDDEN int ua__lx_host_kind(struct lx_file *f);
UA_HIDDEN long ua__lx_mem_rw(struct ua_task *t, struct lx_file *f,
			     struct ua_iov_iter *it, const off_t *pos,
			     bool write);
/* procfs_dir.c: getdents64 of one of them. */
UA_HIDDEN long ua__lx_procfs_getdents(struct ua_task *t, struct lx_file *f,
				      void *ubuf, size_t count);
/* readlink of the guest's own exe or fd/N: length, -errno, -ENOSYS. */
/*
 * What a monitor asks another of its guest (proc_remote.c; 4 bits of the
 * question): an entry as the guest's own /proc has it, the link of its
 * descriptor N, the host descriptor behind it (its number, or a path for
 * the monitor's devices), or the names one of its directories lists
 * (LX_PDIR_*: descriptors or thread ids, one per line).
 */
enum lx_ask {
	LX_ASK_NONE,
	LX_ASK_MAPS,
	LX_ASK_SMAPS,
	LX_ASK_ROLLUP,
	LX_ASK_STATUS,
	LX_ASK_STAT,
	LX_ASK_FDINFO,
	LX_ASK_FD_LINK,
	LX_ASK_FD_HOST,
	LX_ASK_LIST,
};
/* procfs.c, for proc_remote.c: another process's entries. */
UA_HIDDEN enum lx_ask ua__lx_procfs_other(const char *path, long *pid,
					  long *arg);
UA_HIDDEN long ua__lx_procfs_fill(struct ua_task *t, int fd, enum lx_ask e,
				  long arg);
UA_HIDDEN long ua__lx_procfs_read_only(int memfd);
/* procfs_dir.c: the names directory which lists, one per line, on fd. */
UA_HIDDEN long ua__lx_procfs_dir_names(struct ua_task *t, int which, int fd);
/* proc_remote.c: asking another uarun process's monitor. */
UA_HIDDEN long ua__lx_remote_open(struct ua_task *t, const char *path,
				  int flags);
UA_HIDDEN long ua__lx_remote_readlink(struct ua_task *t, const char *path,
				      char *out, size_t size);
UA_HIDDEN void ua__lx_remote_host_path(struct ua_task *t, char *path,
				       bool follow);
UA_HIDDEN long ua__lx_remote_names(struct ua_task *t, long pid, int which,
				   long *out, size_t max);
UA_HIDDEN void ua__lx_remote_answer(struct ua_task *t, pid_t from,
				    uint64_t value, bool asleep);
/* host_proc.c: is pid's host exe this monitor's own file (a uarun)? */
UA_HIDDEN bool ua__lx_runs_monitor(long pid);
/* host_proc.c: another uarun process's program, for its exe link. */
UA_HIDDEN size_t ua__lx_other_exe(const char *path, char *out);
UA_HIDDEN long ua__lx_procfs_readlink(struct ua_task *t, const char *path,
				      char *out, size_t size);

/* vma_names.c */
UA_HIDDEN int ua__lx_names_punch(struct lx_proc *p, uintptr_t start,
				 uintptr_t end);
UA_HIDDEN int ua__lx_names_set(struct lx_proc *p, const struct lx_vname *v);
UA_HIDDEN const struct lx_vname *ua__lx_name_at(const struct lx_proc *p,
						uintptr_t addr);
UA_HIDDEN void ua__lx_names_move(struct lx_proc *p, uintptr_t from,
				 size_t len, uintptr_t to, size_t new_len);
UA_HIDDEN void ua__lx_names_free(struct lx_proc *p);

/* loader.c */
UA_HIDDEN struct lx_proc *ua__lx_proc_new(const char *execfn);
UA_HIDDEN struct ua_task *ua__lx_exec(struct ua_space *sp, const char *path,
				      const char *execfn, const char *exe,
				      char *const argv[], char *const envp[],
				      const struct ua_task_opts *opts);
UA_HIDDEN int ua__lx_exec_check(int fd, const char *name);
/* sys_exec.c: a script's final interpreter, open; -1 if not a script. */
UA_HIDDEN int ua__lx_script_target(const char *path);
UA_HIDDEN void ua__lx_free(struct ua_task *t);

/* table.c */
UA_HIDDEN void ua__lx_register(const struct lx_call *calls, size_t n);
UA_HIDDEN const char *ua__lx_errno_name(int err);
/* Run a ua__syscall() handler of the task/signal layers on Linux regs. */
UA_HIDDEN long ua__lx_call_ua(struct ua_task *t, struct ua_pt_regs *r,
			      unsigned int ua_nr);

/* sys_file.c */
UA_HIDDEN void ua__lx_files_init(struct lx_proc *p);
UA_HIDDEN void ua__lx_files_close(struct lx_proc *p);
UA_HIDDEN struct lx_file *ua__lx_file(struct ua_task *t, long fd);
UA_HIDDEN long ua__lx_close_fd(struct ua_task *t, int fd);
UA_HIDDEN long ua__lx_fstat(struct ua_task *t, struct ua_pt_regs *r);
UA_HIDDEN int ua__lx_host_fd_get(struct ua_task *t, long fd);
UA_HIDDEN void ua__lx_host_fd_put(struct ua_task *t, long fd, int host);
UA_HIDDEN int ua__lx_dev_host_fd(const struct lx_file *f);
UA_HIDDEN int ua__lx_dev_open(const struct lx_file *f, int keep);
UA_HIDDEN int ua__lx_fd_install(struct lx_proc *p, int min,
				struct lx_file f);

/* sys_thread.c */
UA_HIDDEN void ua__lx_thread_init(void);
UA_HIDDEN void ua__lx_proc_threads_init(struct lx_proc *p);
UA_HIDDEN void ua__lx_proc_threads_free(struct lx_proc *p);
UA_HIDDEN void ua__lx_reap(struct lx_proc *p);
/* The first thread's task goes while others remain: true, p is theirs. */
UA_HIDDEN bool ua__lx_proc_orphan(struct lx_proc *p, struct ua_task *t);
UA_HIDDEN long ua__lx_clone_thread(struct ua_task *t, struct ua_pt_regs *r,
				   uint64_t flags, uintptr_t stack,
				   uintptr_t parent_tid, uintptr_t child_tid,
				   uintptr_t tls);
/* The child of a fork by any thread: it is the only one, its pid its tid. */
UA_HIDDEN void ua__lx_threads_after_fork(struct ua_task *t);
/* The guest's id of t; the task of the guest's tid in t's process. */
UA_HIDDEN pid_t ua__lx_tid(struct ua_task *t);
UA_HIDDEN long ua__lx_signal_thread(struct ua_task *t, pid_t tid, int sig,
				    const siginfo_t *info);
UA_HIDDEN long ua__lx_signal_group(struct ua_task *t, int sig,
				   const siginfo_t *info);
UA_HIDDEN void ua__lx_sender_info(siginfo_t *info, int sig, int code);
/* sys_file.c: EPIPE's SIGPIPE to the writing thread, as send_sig(). */
UA_HIDDEN void ua__lx_sigpipe(struct ua_task *t);
UA_HIDDEN long ua__lx_timer_signal(struct lx_proc *p, struct ua_task *only,
				   pid_t tid, const siginfo_t *info);
/* The lock of lx_proc's big, noting its owner (table.c, sys_thread.c). */
UA_HIDDEN void ua__lx_big_lock(struct lx_proc *p);
UA_HIDDEN void ua__lx_big_unlock(struct lx_proc *p);

/* sys_timer.c: the process's POSIX timers end; a forked child's go. */
UA_HIDDEN void ua__lx_ptimer_init(void);
UA_HIDDEN void ua__lx_ptimers_stop(struct lx_proc *p);
/* sys_signalfd.c: the slots guest descriptors share (lx_file's sfd). */
UA_HIDDEN int ua__lx_sigfd_new(struct ua_task *t, uint64_t mask, int host);
UA_HIDDEN void ua__lx_sigfd_get(struct lx_proc *p, int sfd);
UA_HIDDEN void ua__lx_sigfd_put(struct lx_proc *p, int sfd);
UA_HIDDEN uint64_t ua__lx_sigfd_mask(struct lx_proc *p, int sfd);
UA_HIDDEN long ua__lx_sigfd_read(struct ua_task *t, struct lx_file *f,
				 struct ua_iov_iter *it);
UA_HIDDEN void ua__lx_sigfd_forget(struct ua_task *t);
UA_HIDDEN void ua__lx_sigfd_after_fork(struct ua_task *t);
UA_HIDDEN void ua__lx_sigfd_free(struct lx_proc *p);
/* sys_thread.c: signals of the process's queue @t no longer takes. */
UA_HIDDEN void ua__lx_retarget(struct ua_task *t, uint64_t sigs);
UA_HIDDEN void ua__lx_flush_others(struct ua_task *t, int sig);
/* sys_signal.c: a call's own signal mask (ppoll, pselect6, epoll_pwait). */
UA_HIDDEN long ua__lx_mask_begin(struct ua_task *t, uint64_t umask,
				 uint64_t size);
UA_HIDDEN long ua__lx_mask_end(struct ua_task *t, long ret);
/*
 * host_wait.c: host call nr with arguments a, whose a[tmo] is a timeout
 * in milliseconds (-1: none), that only a signal for the guest ends.
 */
UA_HIDDEN long ua__lx_host_wait(struct ua_task *t, long nr, long a[6],
				int tmo);
UA_HIDDEN void ua__lx_ptimers_reset(struct lx_proc *p);

/* sys_futex.c */
UA_HIDDEN long ua__lx_futex_wake(uint64_t uaddr, int n);
UA_HIDDEN void ua__lx_futex_after_fork(void);
UA_HIDDEN void ua__lx_futex_owner_died(uint64_t uaddr, pid_t tid, bool pi,
				       bool pending);

/* sys_proc.c */
UA_HIDDEN void ua__lx_rlimits_init(struct lx_proc *p);

/* sys_fs.c: getname() of a guest path; a guest dirfd as the host's. */
UA_HIDDEN long ua__lx_get_path(char *buf, uint64_t upath);
UA_HIDDEN int ua__lx_host_dirfd(struct ua_task *t, long dfd, int *out);
UA_HIDDEN long ua__lx_host_above_stdio(int h);

/* sys_time.c */
UA_HIDDEN void ua__lx_timer_stop(struct lx_proc *p);
/* ITIMER_REAL of the process, for execve to carry over. */
UA_HIDDEN void ua__lx_getitimer(struct ua_task *t, struct itimerval *cur);
UA_HIDDEN long ua__lx_setitimer(struct ua_task *t, const struct itimerval *nv,
				struct itimerval *ov);
/* A forked child: the parent's timer thread is not there (sys_time.c). */
UA_HIDDEN void ua__lx_timer_reset(struct lx_proc *p);
/* timespec arithmetic; a difference below zero is zero (sys_time.c). */
UA_HIDDEN void ua__lx_ts_add(struct timespec *a, const struct timespec *b);
UA_HIDDEN struct timespec ua__lx_ts_sub(struct timespec a,
					const struct timespec *b);
UA_HIDDEN bool ua__lx_ts_valid(const struct timespec *t);
/* *end = CLOCK_MONOTONIC now + *rel; and what is left until *end. */
UA_HIDDEN void ua__lx_deadline(struct timespec *end,
			       const struct timespec *rel);
UA_HIDDEN struct timespec ua__lx_ts_left(const struct timespec *end);
/*
 * Sleep until a signal is deliverable (or one in also is pending), or
 * until deadline (CLOCK_MONOTONIC; NULL: none).  0 woken, -ETIMEDOUT.
 */
UA_HIDDEN int ua__lx_wait(struct ua_task *t, const struct timespec *deadline,
			  uint64_t also);
/* The same, and woken as soon as *done is true (set under the task's
 * signal lock, with its condition broadcast: ua__lx_wake_done()). */
UA_HIDDEN int ua__lx_wait_done(struct ua_task *t,
			       const struct timespec *deadline,
			       const bool *done);
UA_HIDDEN void ua__lx_wake_done(struct ua_task *t, bool *done);

/* sys_mm.c */
/* src/linux/code_map.c: the code sections of a map of an ELF file. */
UA_HIDDEN bool ua__lx_pread_full(int fd, void *buf, size_t n, uint64_t off);
UA_HIDDEN void ua__lx_code_map(struct ua_task *t, int fd, uint64_t size,
			       uint64_t off, uint64_t len, uint64_t addr);
UA_HIDDEN long ua__lx_map_file(struct ua_task *t, uintptr_t addr,
			       size_t len, int prot, int host_fd, off_t off,
			       size_t filesz);

/* Family registration, called once from table.c. */
UA_HIDDEN void ua__lx_proc_init(void);
UA_HIDDEN void ua__lx_process_init(void);
UA_HIDDEN void ua__lx_mm_init(void);
UA_HIDDEN void ua__lx_file_init(void);
UA_HIDDEN void ua__lx_fs_init(void);
UA_HIDDEN void ua__lx_signal_init(void);
UA_HIDDEN void ua__lx_time_init(void);
UA_HIDDEN void ua__lx_futex_init(void);
UA_HIDDEN void ua__lx_exec_init(void);
UA_HIDDEN void ua__lx_xattr_init(void);
UA_HIDDEN void ua__lx_socket_init(void);
UA_HIDDEN void ua__lx_epoll_init(void);
UA_HIDDEN void ua__lx_signalfd_init(void);
UA_HIDDEN void ua__lx_hostfd_init(void);

#define LX_REGISTER(calls) ua__lx_register((calls), sizeof(calls) / sizeof((calls)[0]))

#endif /* UA_LINUX_INTERNAL_H */
