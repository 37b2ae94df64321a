// SPDX-License-Identifier: MIT
/*
 * execve and execveat (fs/exec.c, fs/binfmt_script.c).
 *
 * A new image replaces the whole process, and here the process is the
 * monitor too: the new image gets a new monitor.  So execve does
 * everything the kernel does before its point of no return -- the file
 * opened and checked, the argument and environment strings copied in
 * with the kernel's limits, `#!` scripts followed to their interpreter,
 * the ELF headers read -- and any error there goes back to the caller,
 * whose image is untouched.  Then it writes what the new image is made
 * of into a memfd (the strings, the descriptors that survive, the signal
 * state, limits and timer: ua_task_exec_state() applies them) and calls
 * the application's exec function (ua_linux_set_exec()), which execs
 * the monitor's own program again.  The host's execve then does the
 * rest the kernel would: the other threads and every close-on-exec
 * descriptor are gone, the pid stays, a vfork parent wakes.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux_internal.h"

/* include/uapi/linux/binfmts.h and fs/exec.c. */
#define LX_MAX_ARG_STRLEN (32 * 4096)
#define LX_MAX_ARG_STRINGS 0x7fffffff
#define LX_ARG_MAX (32 * 4096)
#define LX_STK_LIM ((size_t)8 << 20)
#define LX_BINPRM_BUF 256
/* exec_binprm(): an interpreter of an interpreter ... five deep. */
#define LX_MAX_DEPTH 5

#define STATE_MAGIC "UAEXEC01"

static ua_exec_fn exec_fn;
static void *exec_arg;

void ua_linux_set_exec(ua_exec_fn fn, void *arg)
{
	exec_fn = fn;
	exec_arg = arg;
}

struct strv {
	char **v;
	size_t n, cap;
};

/* The kernel's linux_binprm, what of it the checks need. */
struct bprm {
	int fd;                      /* the file to load, host, O_CLOEXEC */
	char filename[PATH_MAX + 32]; /* AT_EXECFN */
	char interp[PATH_MAX + 32];  /* the name a script's interpreter gets */
	struct strv argv, envp;
	size_t room;                 /* string bytes left (bprm->argmin) */
};

static int strv_push(struct strv *s, char *str, bool front)
{
	if (s->n + 1 >= s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		char **v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	if (front) {
		memmove(s->v + 1, s->v, s->n * sizeof(*s->v));
		s->v[0] = str;
	} else {
		s->v[s->n] = str;
	}
	s->v[++s->n] = NULL;
	return 0;
}

static void strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	*s = (struct strv){ 0 };
}

/* A string the monitor adds (copy_string_kernel()): it takes room too. */
static int push_kernel(struct bprm *b, struct strv *s, const char *str,
		       bool front)
{
	size_t len = strlen(str) + 1;
	char *copy;

	if (len > LX_MAX_ARG_STRLEN || len > b->room)
		return -E2BIG;
	copy = strdup(str);
	if (!copy)
		return -ENOMEM;
	if (strv_push(s, copy, front)) {
		free(copy);
		return -ENOMEM;
	}
	b->room -= len;
	return 0;
}

/* count(): the pointers of a guest argv or envp (NULL: none). */
static long count_user(uint64_t uvec, uint64_t **out)
{
	uint64_t *ptrs = NULL, p;
	size_t n = 0, cap = 0;

	*out = NULL;
	if (!uvec)
		return 0;
	for (;; n++) {
		if (ua_get_user(p, (const uint64_t *)(uvec + n * 8))) {
			free(ptrs);
			return -EFAULT;
		}
		if (!p)
			break;
		if (n >= LX_MAX_ARG_STRINGS) {
			free(ptrs);
			return -E2BIG;
		}
		if (n == cap) {
			uint64_t *np;

			cap = cap ? cap * 2 : 32;
			np = realloc(ptrs, cap * sizeof(*np));
			if (!np) {
				free(ptrs);
				return -ENOMEM;
			}
			ptrs = np;
		}
		ptrs[n] = p;
	}
	*out = ptrs;
	return (long)n;
}

/* copy_strings(): each string through strnlen_user and the limits. */
static int copy_strings(struct bprm *b, struct strv *s, const uint64_t *ptrs,
			size_t n)
{
	for (size_t i = 0; i < n; i++) {
		long len = ua_strnlen_user((const char *)ptrs[i],
					   LX_MAX_ARG_STRLEN);
		char *str;

		if (!len)
			return -EFAULT;
		if (len > LX_MAX_ARG_STRLEN || (size_t)len > b->room)
			return -E2BIG;
		str = malloc((size_t)len);
		if (!str)
			return -ENOMEM;
		if (ua_copy_from_user(str, (const char *)ptrs[i], (size_t)len) ||
		    str[len - 1]) {
			free(str);
			return -EFAULT;
		}
		if (strv_push(s, str, false)) {
			free(str);
			return -ENOMEM;
		}
		b->room -= (size_t)len;
	}
	return 0;
}

/*
 * bprm_stack_limits(): the strings may take a quarter of the stack limit
 * (at most 6 MiB, at least ARG_MAX) less the pointers to them.
 */
static int stack_limits(struct ua_task *t, struct bprm *b, size_t argc,
			size_t envc)
{
	uint64_t stk = lx_proc(t)->rlim[RLIMIT_STACK].cur;
	size_t limit = LX_STK_LIM / 4 * 3, ptrs;

	if (stk / 4 < limit)
		limit = (size_t)(stk / 4);
	if (limit < LX_ARG_MAX)
		limit = LX_ARG_MAX;
	ptrs = ((argc ? argc : 1) + envc) * sizeof(void *);
	if (limit <= ptrs)
		return -E2BIG;
	b->room = limit - ptrs;
	return 0;
}

/*
 * do_open_execat(): a regular file, on a mount that allows exec, that
 * the caller may execute.  The host opens it (for reading: the loader
 * reads it) and judges the permission with the caller's effective ids.
 */
static int open_exec(int hdfd, const char *path, int flags, int *out)
{
	char self[32];
	struct statvfs vfs;
	struct stat st;
	int fd;

	int oflags = O_RDONLY | O_CLOEXEC;

	if (flags & AT_SYMLINK_NOFOLLOW)
		oflags |= O_NOFOLLOW;
	/* AT_EMPTY_PATH: the descriptor's own file (the cwd's for AT_FDCWD). */
	if (!*path && hdfd != AT_FDCWD) {
		snprintf(self, sizeof(self), "/proc/self/fd/%d", hdfd);
		fd = open(self, O_RDONLY | O_CLOEXEC);
	} else {
		fd = openat(hdfd, *path ? path : ".", oflags);
	}
	if (fd < 0)
		return -errno;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (!fstatvfs(fd, &vfs) && (vfs.f_flag & ST_NOEXEC)) ||
	    faccessat(AT_FDCWD, self, X_OK, AT_EACCESS)) {
		close(fd);
		return -EACCES;
	}
	*out = fd;
	return 0;
}

static bool spacetab(char c)
{
	return c == ' ' || c == '\t';
}

static char *next_non_spacetab(char *first, const char *last)
{
	for (; first <= last; first++)
		if (!spacetab(*first))
			return first;
	return NULL;
}

static char *next_terminator(char *first, const char *last)
{
	for (; first <= last; first++)
		if (spacetab(*first) || !*first)
			return first;
	return NULL;
}

/*
 * load_script(): "#!interpreter [one argument]" in the first 256 bytes.
 * argv[0] goes; the interpreter, its argument and the script's name
 * (bprm->interp) come first; the interpreter is the file to load next.
 * 1: not a script.
 */
static int load_script(struct bprm *b, char *buf)
{
	char *end = buf + LX_BINPRM_BUF - 1, *i_end, *i_name, *i_sep,
	     *i_arg = NULL;
	int fd, err;

	if (buf[0] != '#' || buf[1] != '!')
		return 1;
	i_end = memchr(buf, '\n', LX_BINPRM_BUF);
	if (!i_end) {
		i_end = next_non_spacetab(buf + 2, end);
		if (!i_end || !next_terminator(i_end, end))
			return -ENOEXEC;
		i_end = end;
	}
	while (spacetab(i_end[-1]))
		i_end--;
	*i_end = 0;
	i_name = next_non_spacetab(buf + 2, i_end);
	if (!i_name || i_name == i_end)
		return -ENOEXEC;
	i_sep = next_terminator(i_name, i_end);
	if (i_sep && *i_sep)
		i_arg = next_non_spacetab(i_sep, i_end);
	if (i_sep)
		*i_sep = 0;
	/* remove_arg_zero() */
	if (b->argv.n) {
		b->room += strlen(b->argv.v[0]) + 1;
		free(b->argv.v[0]);
		memmove(b->argv.v, b->argv.v + 1, b->argv.n * sizeof(char *));
		b->argv.n--;
	}
	err = push_kernel(b, &b->argv, b->interp, true);
	if (!err && i_arg)
		err = push_kernel(b, &b->argv, i_arg, true);
	if (!err)
		err = push_kernel(b, &b->argv, i_name, true);
	if (err)
		return err;
	err = open_exec(AT_FDCWD, i_name, 0, &fd);
	if (err)
		return err;
	snprintf(b->interp, sizeof(b->interp), "%s", i_name);
	close(b->fd);
	b->fd = fd;
	return 0;
}

/* exec_binprm(): scripts down to a program, which the loader checks. */
static int find_binary(struct bprm *b)
{
	char buf[LX_BINPRM_BUF];

	for (int depth = 0;; depth++) {
		ssize_t n;
		int err;

		if (depth > LX_MAX_DEPTH)
			return -ELOOP;
		memset(buf, 0, sizeof(buf));
		n = pread(b->fd, buf, sizeof(buf), 0);
		if (n < 0)
			return -EIO;
		err = load_script(b, buf);
		if (err <= 0) {
			if (err)
				return err;
			continue;
		}
		if (n < 4 || memcmp(buf, "\177ELF", 4))
			return -ENOEXEC;
		return ua__lx_exec_check(b->fd, b->interp);
	}
}

/* The name the new image is run by (alloc_bprm()). */
static void set_filename(struct bprm *b, long dfd, const char *path)
{
	if ((int)dfd == AT_FDCWD || path[0] == '/')
		snprintf(b->filename, sizeof(b->filename), "%s", path);
	else if (!*path)
		snprintf(b->filename, sizeof(b->filename), "/dev/fd/%d",
			 (int)dfd);
	else
		snprintf(b->filename, sizeof(b->filename), "/dev/fd/%d/%s",
			 (int)dfd, path);
	snprintf(b->interp, sizeof(b->interp), "%s", b->filename);
}

/*
 * ua_task_exec() of a `#!` script (a program started by uarun is run as
 * execve would run it): the interpreters followed as find_binary() does;
 * the file to load is the last one, open.  NULL with errno set (and the
 * reason said) when the script cannot run.
 */
static struct bprm *script_bprm(int fd, const char *path,
				char *const argv[], bool quiet)
{
	struct bprm *b = calloc(1, sizeof(*b));
	char msg[PATH_MAX + 64];
	int err = -ENOMEM;

	if (!b) {
		close(fd);
		goto fail;
	}
	b->fd = fd;
	b->room = SIZE_MAX;
	set_filename(b, AT_FDCWD, path);
	for (size_t i = 0; argv && argv[i]; i++)
		if ((err = push_kernel(b, &b->argv, argv[i], false)))
			goto free;
	err = find_binary(b);
	if (!err)
		return b;
free:
	strv_free(&b->argv);
	close(b->fd);
	free(b);
fail:
	snprintf(msg, sizeof(msg), "uaccess: cannot run %s: %s\n", path,
		 strerror(-err));
	if (!quiet)
		ua__write_str(2, msg);
	errno = -err;
	return NULL;
}

/* Is path a script?  Then its final interpreter, open; else -1. */
int ua__lx_script_target(const char *path)
{
	struct bprm *b;
	char head[2];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (pread(fd, head, 2, 0) != 2 || memcmp(head, "#!", 2)) {
		close(fd);
		return -1;
	}
	b = script_bprm(fd, path, NULL, true);
	if (!b)
		return -1;
	fd = b->fd;
	strv_free(&b->argv);
	free(b);
	return fd;
}

/*
 * begin_new_exec() names the process after the file it runs
 * (__set_task_comm(kbasename(bprm->filename))): what /proc/<pid>/comm,
 * stat and status say and ps prints.  The task runs on the calling
 * thread, so that thread takes the name; the host truncates it to 15
 * bytes as the kernel does.
 */
static struct ua_task *named_after(struct ua_task *t, const char *filename)
{
	const char *base = strrchr(filename, '/');

	if (t)
		prctl(PR_SET_NAME, base ? base + 1 : filename);
	return t;
}

/*
 * The first program succeeds the calling thread as an exec would
 * (fs/exec.c: flush_signal_handlers() resets what is caught and keeps
 * what is ignored; the mask stays): `nohup uarun prog` leaves prog's
 * SIGHUP ignored.  The host's dispositions are read with the raw call:
 * glibc's sigaction() hides 32 and 33.
 */
static struct ua_task *inherit_signals(struct ua_task *t)
{
	struct ua_sig_image *img;
	sigset_t mask;

	if (!t)
		return NULL;
	img = calloc(1, sizeof(*img));
	if (!img)
		return t;
	for (int sig = 1; sig <= UA_NSIG; sig++) {
		struct ua_ksigaction ka;

		if (!syscall(SYS_rt_sigaction, sig, NULL, &ka, 8) &&
		    ka.handler == (uint64_t)(uintptr_t)SIG_IGN)
			img->ignored |= SIGBIT(sig);
	}
	if (!pthread_sigmask(SIG_BLOCK, NULL, &mask))
		memcpy(&img->blocked, &mask, sizeof(img->blocked));
	ua__sig_exec_load(t, img);
	free(img);
	return t;
}

struct ua_task *ua_task_exec(struct ua_space *sp, const char *path,
			     char *const argv[], char *const envp[],
			     const struct ua_task_opts *opts)
{
	char exe[PATH_MAX], self[32], head[2];
	struct ua_task *t;
	struct bprm *b;
	char *abs;
	ssize_t n;
	int fd;

	if (!sp || !path || !argv) {
		errno = EINVAL;
		return NULL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || pread(fd, head, 2, 0) != 2 || memcmp(head, "#!", 2)) {
		if (fd >= 0)
			close(fd);
		/* /proc/self/exe names the file wherever the guest goes. */
		abs = realpath(path, NULL);
		t = ua__lx_exec(sp, path, path, abs ? abs : path, argv, envp,
				opts);
		free(abs);
		return inherit_signals(named_after(t, path));
	}
	b = script_bprm(fd, path, argv, false);
	if (!b)
		return NULL;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", b->fd);
	n = readlink(self, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	t = ua__lx_exec(sp, self, path, exe, b->argv.v, envp, opts);
	strv_free(&b->argv);
	close(b->fd);
	free(b);
	return inherit_signals(named_after(t, path));
}

/* A growing buffer for the state. */
struct wbuf {
	char *p;
	size_t len, cap;
	bool err;
};

static void put(struct wbuf *w, const void *data, size_t n)
{
	if (w->err)
		return;
	if (w->len + n > w->cap) {
		size_t cap = (w->len + n) * 2;
		char *p = realloc(w->p, cap);

		if (!p) {
			w->err = true;
			return;
		}
		w->p = p;
		w->cap = cap;
	}
	memcpy(w->p + w->len, data, n);
	w->len += n;
}

static void put_u32(struct wbuf *w, uint32_t v)
{
	put(w, &v, sizeof(v));
}

static void put_str(struct wbuf *w, const char *s)
{
	uint32_t n = (uint32_t)strlen(s) + 1;

	put_u32(w, n);
	put(w, s, n);
}

static void put_strv(struct wbuf *w, const struct strv *s)
{
	put_u32(w, (uint32_t)s->n);
	for (size_t i = 0; i < s->n; i++)
		put_str(w, s->v[i]);
}

/* One descriptor the new image keeps. */
struct state_file {
	int32_t fd, kind, host, flags;
	int32_t sfd, pad; /* a signalfd: its slot + 1, and its mask */
	uint64_t sfd_mask;
};

/* The files without close-on-exec, their host sides made to survive. */
static void put_files(struct wbuf *w, struct lx_proc *p)
{
	uint32_t n = 0;

	for (int i = 0; i < LX_NFDS; i++)
		n += p->files[i].kind != LX_FD_FREE && !p->files[i].cloexec;
	put_u32(w, n);
	for (int i = 0; i < LX_NFDS; i++) {
		const struct lx_file *f = &p->files[i];

		if (f->kind == LX_FD_FREE || f->cloexec)
			continue;
		put(w,
		    &(struct state_file){
			    i, f->kind, f->host, f->flags, f->sfd, 0,
			    f->sfd ? ua__lx_sigfd_mask(p, f->sfd) : 0 },
		    sizeof(struct state_file));
		if (f->kind == LX_FD_HOST && f->host > 2)
			fcntl(f->host, F_SETFD, 0);
	}
}

/* What a failed exec of the monitor gives back to the guest's files. */
static void unkeep_files(struct lx_proc *p)
{
	for (int i = 0; i < LX_NFDS; i++) {
		const struct lx_file *f = &p->files[i];

		if (f->kind == LX_FD_HOST && f->host > 2 && !f->cloexec)
			fcntl(f->host, F_SETFD, FD_CLOEXEC);
	}
}

static int write_state(struct ua_task *t, struct bprm *b, int *out)
{
	struct lx_proc *p = lx_proc(t);
	struct ua_sig_image *sig = malloc(sizeof(*sig));
	struct wbuf w = { 0 };
	struct itimerval it;
	char exe[PATH_MAX], self[32];
	ssize_t n;
	int fd, err = 0;

	if (!sig)
		return -ENOMEM;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", b->fd);
	n = readlink(self, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	ua__sig_exec_save(t, sig);
	ua__lx_getitimer(t, &it);
	put(&w, STATE_MAGIC, 8);
	put_u32(&w, (uint32_t)b->fd);
	put_str(&w, b->filename);
	put_str(&w, exe);
	put_strv(&w, &b->argv);
	put_strv(&w, &b->envp);
	put_files(&w, p);
	put_u32(&w, sizeof(*sig));
	put(&w, sig, sizeof(*sig));
	put(&w, p->rlim, sizeof(p->rlim));
	put(&w, &it, sizeof(it));
	put_u32(&w, (uint32_t)t->pdeath_sig);
	put_u32(&w, p->trace_pids);
	free(sig);
	fd = w.err ? -1 : memfd_create("uaccess-exec", 0);
	if (fd < 0) {
		err = -ENOMEM;
	} else if (write(fd, w.p, w.len) != (ssize_t)w.len ||
		   lseek(fd, 0, SEEK_SET)) {
		close(fd);
		err = -ENOMEM;
	}
	free(w.p);
	if (err)
		unkeep_files(p);
	else
		*out = fd;
	return err;
}

/*
 * Past the checks: the guest's image goes.  mm_release() clears the
 * child-tid word first; then the monitor's program runs again with the
 * state (the host mask empty, our parent-death signal off: the new
 * monitor sets up its own), and if that fails the old image goes on.
 */
static int start_image(struct ua_task *t, struct bprm *b)
{
	struct lx_proc *p = lx_proc(t);
	sigset_t none, old;
	int state, err, pdeath = 0;

	if (lx_thr(t)->clear_child_tid)
		ua_put_user(0, (int *)lx_thr(t)->clear_child_tid);
	err = write_state(t, b, &state);
	if (err)
		return err;
	fcntl(b->fd, F_SETFD, 0);
	sigemptyset(&none);
	prctl(PR_GET_PDEATHSIG, &pdeath);
	prctl(PR_SET_PDEATHSIG, 0);
	pthread_sigmask(SIG_SETMASK, &none, &old);
	err = exec_fn(state, exec_arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	prctl(PR_SET_PDEATHSIG, pdeath);
	fcntl(b->fd, F_SETFD, FD_CLOEXEC);
	unkeep_files(p);
	close(state);
	return err < 0 ? err : -ENOEXEC;
}

/*
 * The guest's own /proc/self/exe is its program, not the monitor's
 * (busybox runs its applets through it).
 */
static void own_exe(struct ua_task *t, char *path)
{
	char mine[32];

	snprintf(mine, sizeof(mine), "/proc/%d/exe", (int)getpid());
	if (strcmp(path, "/proc/self/exe") && strcmp(path, mine))
		return;
	snprintf(path, PATH_MAX, "%s", lx_proc(t)->execfn);
}

static long do_execveat(struct ua_task *t, long dfd, uint64_t upath,
			uint64_t uargv, uint64_t uenvp, int flags)
{
	static bool said;
	char path[PATH_MAX];
	struct bprm *b;
	uint64_t *av = NULL, *ev = NULL;
	long argc, envc, err;
	int hdfd = AT_FDCWD, hfile = -1;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	err = ua__lx_get_path(path, upath);
	if (err == -ENOENT && (flags & AT_EMPTY_PATH)) {
		path[0] = 0;
		err = 0;
	}
	if (err)
		return err;
	if (path[0] != '/' && (int)dfd != AT_FDCWD) {
		hfile = ua__lx_host_fd_get(t, dfd);
		if (hfile < 0)
			return hfile;
		hdfd = hfile;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		err = -ENOMEM;
		goto out_fd;
	}
	b->fd = -1;
	set_filename(b, dfd, path);
	own_exe(t, path);
	err = open_exec(hdfd, path, flags, &b->fd);
	if (err)
		goto out;
	argc = count_user(uargv, &av);
	err = argc;
	if (argc < 0)
		goto out;
	envc = count_user(uenvp, &ev);
	err = envc;
	if (envc < 0)
		goto out;
	err = stack_limits(t, b, (size_t)argc, (size_t)envc);
	if (!err && strlen(b->filename) + 1 > b->room)
		err = -E2BIG;
	if (err)
		goto out;
	b->room -= strlen(b->filename) + 1;
	err = copy_strings(b, &b->envp, ev, (size_t)envc);
	if (!err)
		err = copy_strings(b, &b->argv, av, (size_t)argc);
	/* Since 5.18 an empty argv is made [""] (do_execveat_common()). */
	if (!err && !argc)
		err = push_kernel(b, &b->argv, "", false);
	if (!err)
		err = find_binary(b);
	if (err)
		goto out;
	if (!exec_fn) {
		if (!said) {
			said = true;
			ua__write_str(2, "uaccess: execve: the monitor gave no "
					 "way to start a new image "
					 "(ua_linux_set_exec): ENOSYS\n");
		}
		err = -ENOSYS;
		goto out;
	}
	err = start_image(t, b);
out:
	free(av);
	free(ev);
	strv_free(&b->argv);
	strv_free(&b->envp);
	if (b->fd >= 0)
		close(b->fd);
	free(b);
out_fd:
	if (hfile >= 0)
		ua__lx_host_fd_put(t, dfd, hfile);
	return err;
}

static long sys_execve(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_execveat(t, AT_FDCWD, ARG1(r), ARG2(r), ARG3(r), 0);
}

static long sys_execveat(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_execveat(t, (int)ARG1(r), ARG2(r), ARG3(r), ARG4(r),
			   (int)ARG5(r));
}

/* The new monitor's side. */
struct ua_exec_state {
	int exe_fd;
	char path[32];
	char *execfn, *exe;
	char **argv, **envp;
	uint32_t nfiles;
	struct state_file *files;
	struct ua_sig_image sig;
	struct lx_rlimit rlim[LX_RLIM_NLIMITS];
	struct itimerval itimer;
	int pdeath_sig;
	bool trace_pids;
	char *buf;
};

struct rbuf {
	const char *p, *end;
	bool err;
};

static const void *get(struct rbuf *r, size_t n)
{
	const char *at = r->p;

	if (r->err || (size_t)(r->end - r->p) < n) {
		r->err = true;
		return NULL;
	}
	r->p += n;
	return at;
}

static uint32_t get_u32(struct rbuf *r)
{
	const void *p = get(r, 4);
	uint32_t v = 0;

	if (p)
		memcpy(&v, p, 4);
	return v;
}

/* Strings point into the buffer, each checked for its NUL. */
static char *get_str(struct rbuf *r)
{
	uint32_t n = get_u32(r);
	char *s = (char *)get(r, n);

	if (!s || !n || s[n - 1]) {
		r->err = true;
		return NULL;
	}
	return s;
}

static char **get_strv(struct rbuf *r)
{
	uint32_t n = get_u32(r);
	char **v;

	if (r->err || n > (size_t)(r->end - r->p) / 5)
		goto bad;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		goto bad;
	for (uint32_t i = 0; i < n; i++)
		v[i] = get_str(r);
	return v;
bad:
	r->err = true;
	return NULL;
}

static int read_all(int fd, char **out, size_t *len)
{
	struct stat st;
	char *buf;
	size_t got = 0;

	if (fstat(fd, &st) || st.st_size <= 0 || st.st_size > (1 << 30))
		return -EINVAL;
	buf = malloc((size_t)st.st_size);
	if (!buf)
		return -ENOMEM;
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, buf + got, (size_t)st.st_size - got,
				  (off_t)got);

		if (n <= 0) {
			free(buf);
			return -EINVAL;
		}
		got += (size_t)n;
	}
	*out = buf;
	*len = got;
	return 0;
}

static int parse_state(struct ua_exec_state *st, size_t len)
{
	struct rbuf r = { st->buf, st->buf + len, false };
	const void *p;

	p = get(&r, 8);
	if (!p || memcmp(p, STATE_MAGIC, 8))
		return -EINVAL;
	st->exe_fd = (int)get_u32(&r);
	st->execfn = get_str(&r);
	st->exe = get_str(&r);
	st->argv = get_strv(&r);
	st->envp = get_strv(&r);
	st->nfiles = get_u32(&r);
	if (r.err || st->nfiles > LX_NFDS)
		return -EINVAL;
	p = get(&r, st->nfiles * sizeof(*st->files));
	st->files = malloc(st->nfiles * sizeof(*st->files) + 1);
	if (!st->files)
		return -ENOMEM;
	if (p)
		memcpy(st->files, p, st->nfiles * sizeof(*st->files));
	if (get_u32(&r) != sizeof(st->sig))
		return -EINVAL;
	if ((p = get(&r, sizeof(st->sig))))
		memcpy(&st->sig, p, sizeof(st->sig));
	if ((p = get(&r, sizeof(st->rlim))))
		memcpy(st->rlim, p, sizeof(st->rlim));
	if ((p = get(&r, sizeof(st->itimer))))
		memcpy(&st->itimer, p, sizeof(st->itimer));
	st->pdeath_sig = (int)get_u32(&r);
	if (st->pdeath_sig < 0 || st->pdeath_sig > 64)
		return -EINVAL;
	st->trace_pids = get_u32(&r);
	if (r.err || r.p != r.end || !st->argv[0] || st->exe_fd < 0)
		return -EINVAL;
	snprintf(st->path, sizeof(st->path), "/proc/self/fd/%d", st->exe_fd);
	return 0;
}

struct ua_exec_state *ua_exec_state_read(int fd)
{
	struct ua_exec_state *st = calloc(1, sizeof(*st));
	size_t len;
	int err;

	if (!st) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	err = read_all(fd, &st->buf, &len);
	close(fd);
	if (!err)
		err = parse_state(st, len);
	if (err) {
		ua_exec_state_free(st);
		errno = -err;
		return NULL;
	}
	return st;
}

const char *ua_exec_state_path(const struct ua_exec_state *st)
{
	return st->path;
}

void ua_exec_state_free(struct ua_exec_state *st)
{
	if (!st)
		return;
	free(st->argv);
	free(st->envp);
	free(st->files);
	free(st->buf);
	free(st);
}

/*
 * A signalfd of the old image: the new slot of its old one, made at its
 * first descriptor (old[] maps one to the other), referenced again by
 * the others.
 */
static int load_sigfd(struct ua_task *t, const struct state_file *f,
		      int *old)
{
	int n;

	if (f->kind != LX_FD_HOST || f->sfd < 1 || f->sfd > LX_NSIGFD)
		return -EINVAL;
	if (old[f->sfd - 1]) {
		ua__lx_sigfd_get(lx_proc(t), old[f->sfd - 1]);
		return old[f->sfd - 1];
	}
	n = ua__lx_sigfd_new(t, f->sfd_mask, f->host);
	if (n > 0)
		old[f->sfd - 1] = n;
	return n;
}

/* The old image's descriptors, at their numbers, close-on-exec on the host. */
static int load_files(struct ua_task *t, const struct ua_exec_state *st)
{
	struct lx_proc *p = lx_proc(t);
	int old[LX_NSIGFD] = { 0 };

	for (int i = 0; i < LX_NFDS; i++)
		p->files[i].kind = LX_FD_FREE;
	for (uint32_t i = 0; i < st->nfiles; i++) {
		const struct state_file *f = &st->files[i];
		int sfd = 0;

		if (f->fd < 0 || f->fd >= LX_NFDS ||
		    (f->kind != LX_FD_HOST && f->kind != LX_FD_NULL &&
		     f->kind != LX_FD_ZERO))
			return -EINVAL;
		if (f->sfd) {
			sfd = load_sigfd(t, f, old);
			if (sfd < 0)
				return sfd;
		}
		p->files[f->fd] = (struct lx_file){ .kind = f->kind,
						    .host = f->host,
						    .flags = f->flags,
						    .sfd = sfd };
		if (f->kind == LX_FD_HOST && f->host > 2)
			fcntl(f->host, F_SETFD, FD_CLOEXEC);
	}
	return 0;
}

struct ua_task *ua_task_exec_state(struct ua_space *sp,
				   const struct ua_exec_state *st,
				   const struct ua_task_opts *opts)
{
	struct ua_task *t;
	struct lx_proc *p;
	int err;

	if (!sp || !st) {
		errno = EINVAL;
		return NULL;
	}
	t = ua__lx_exec(sp, st->path, st->execfn, st->exe, st->argv,
			st->envp, opts);
	if (!t)
		return NULL;
	p = lx_proc(t);
	err = load_files(t, st);
	if (!err)
		err = ua__sig_exec_load(t, &st->sig);
	/* Pending signals carried over show in the signalfds. */
	if (!err)
		ua__sig_pend_changed(t);
	if (!err) {
		/* Kept by exec; set on the host when the task runs. */
		t->pdeath_sig = st->pdeath_sig;
		p->trace_pids = st->trace_pids;
		memcpy(p->rlim, st->rlim, sizeof(p->rlim));
		if (st->itimer.it_value.tv_sec || st->itimer.it_value.tv_usec)
			err = (int)ua__lx_setitimer(t, &st->itimer, NULL);
	}
	if (err) {
		ua_task_destroy(t);
		errno = -err;
		return NULL;
	}
	close(st->exe_fd);
	return named_after(t, st->execfn);
}

static const struct lx_call calls[] = {
	{ SYS_execve, "execve", sys_execve, "spp" },
	{ SYS_execveat, "execveat", sys_execveat, "dsppx" },
};

void ua__lx_exec_init(void)
{
	LX_REGISTER(calls);
}
