// SPDX-License-Identifier: MIT
/*
 * The Linux syscall table: trapped syscalls of a loaded program land here
 * by number, are counted, traced strace-style when asked, and go to the
 * family files.  Unknown numbers are -ENOSYS; those the kernel has are
 * named once on stderr.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux_internal.h"

static const struct lx_call *table[LX_NR_MAX];

void ua__lx_register(const struct lx_call *calls, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (calls[i].nr < LX_NR_MAX)
			table[calls[i].nr] = &calls[i];
}

const char *ua__lx_errno_name(int err)
{
	static const char *const names[] = {
		[EPERM] = "EPERM", [ENOENT] = "ENOENT", [ESRCH] = "ESRCH",
		[EINTR] = "EINTR", [EIO] = "EIO", [ENXIO] = "ENXIO",
		[E2BIG] = "E2BIG", [ENOEXEC] = "ENOEXEC", [EBADF] = "EBADF",
		[ECHILD] = "ECHILD", [EAGAIN] = "EAGAIN", [ENOMEM] = "ENOMEM",
		[EACCES] = "EACCES", [EFAULT] = "EFAULT", [EBUSY] = "EBUSY",
		[EEXIST] = "EEXIST", [EXDEV] = "EXDEV", [ENODEV] = "ENODEV",
		[ENOTDIR] = "ENOTDIR", [EISDIR] = "EISDIR", [EINVAL] = "EINVAL",
		[ENFILE] = "ENFILE", [EMFILE] = "EMFILE", [ENOTTY] = "ENOTTY",
		[EFBIG] = "EFBIG", [ENOSPC] = "ENOSPC", [ESPIPE] = "ESPIPE",
		[EROFS] = "EROFS", [EMLINK] = "EMLINK", [EPIPE] = "EPIPE",
		[EDOM] = "EDOM", [ERANGE] = "ERANGE", [ENAMETOOLONG] =
		"ENAMETOOLONG", [ENOSYS] = "ENOSYS", [ENOTEMPTY] = "ENOTEMPTY",
		[ELOOP] = "ELOOP", [ETIMEDOUT] = "ETIMEDOUT",
		[EOVERFLOW] = "EOVERFLOW", [EOPNOTSUPP] = "EOPNOTSUPP",
	};

	if (err > 0 && (size_t)err < sizeof(names) / sizeof(names[0]) &&
	    names[err])
		return names[err];
	return "E?";
}

/*
 * The task and signal layers' handlers read ua__syscall()'s convention
 * (number in rdi, arguments from rsi): shift the Linux arguments over for
 * the call and put them back after, unless the call replaced the whole
 * register state (rt_sigreturn).
 */
long ua__lx_call_ua(struct ua_task *t, struct ua_pt_regs *r,
		    unsigned int ua_nr)
{
	ua_syscall_fn fn = ua__syscall_fn(ua_nr);
	struct ua_pt_regs saved = *r;
	long ret;

	if (!fn)
		return -ENOSYS;
	r->rdi = ua_nr;
	r->rsi = saved.rdi;
	r->rdx = saved.rsi;
	r->rcx = saved.rdx;
	r->r8 = saved.r10;
	r->r9 = saved.r8;
	ret = fn(t, r);
	if (!t->regs_replaced) {
		r->rdi = saved.rdi;
		r->rsi = saved.rsi;
		r->rdx = saved.rdx;
		r->rcx = saved.rcx;
		r->r8 = saved.r8;
		r->r9 = saved.r9;
	}
	return ret;
}

/* Trace output, built in a buffer and written in one go. */
struct tbuf {
	char s[512];
	size_t n;
};

static void tb_add(struct tbuf *b, const char *s, size_t len)
{
	if (len > sizeof(b->s) - 1 - b->n)
		len = sizeof(b->s) - 1 - b->n;
	memcpy(b->s + b->n, s, len);
	b->n += len;
}

static void tb_printf(struct tbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void tb_printf(struct tbuf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		tb_add(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n :
							  sizeof(tmp) - 1);
}

static void tb_quoted(struct tbuf *b, const unsigned char *s, size_t n,
		      bool more)
{
	tb_add(b, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c == '\n')
			tb_add(b, "\\n", 2);
		else if (c == '\t')
			tb_add(b, "\\t", 2);
		else if (c == '"' || c == '\\')
			tb_printf(b, "\\%c", c);
		else if (c < 32 || c >= 127)
			tb_printf(b, "\\%o", c);
		else
			tb_add(b, (const char *)&c, 1);
	}
	tb_add(b, more ? "\"..." : "\"", more ? 4 : 1);
}

/* Arguments are read through the accessors, as the calls themselves do. */
static void trace_args(struct tbuf *b, const struct lx_call *c,
		       const struct ua_pt_regs *r)
{
	const uint64_t a[6] = { ARG1(r), ARG2(r), ARG3(r),
				ARG4(r), ARG5(r), ARG6(r) };
	const char *f = c->args;

	for (int i = 0; f && f[i] && f[i] != '-' && i < 6; i++) {
		unsigned char buf[64];
		long n;

		if (i)
			tb_add(b, ", ", 2);
		switch (f[i]) {
		case 'd':
		case 'f':
			tb_printf(b, "%ld", (long)a[i]);
			break;
		case 'u':
			tb_printf(b, "%lu", (unsigned long)a[i]);
			break;
		case 's':
			n = ua_strncpy_from_user((char *)buf,
						 (const char *)a[i],
						 sizeof(buf));
			if (n < 0)
				tb_printf(b, "%#lx", (unsigned long)a[i]);
			else
				tb_quoted(b, buf, (size_t)n,
					  n == (long)sizeof(buf));
			break;
		case 'w':
			n = (long)(i < 5 && a[i + 1] < 32 ? a[i + 1] : 32);
			if (ua_copy_from_user(buf, (const void *)a[i],
					      (size_t)n))
				tb_printf(b, "%#lx", (unsigned long)a[i]);
			else
				tb_quoted(b, buf, (size_t)n,
					  a[i + 1] > (uint64_t)n);
			break;
		case 'o':
			tb_printf(b, "%#lo", (unsigned long)a[i]);
			break;
		case 'p':
			if (!a[i]) {
				tb_add(b, "NULL", 4);
				break;
			}
			/* fallthrough */
		default:
			tb_printf(b, "%#lx", (unsigned long)a[i]);
		}
	}
}

static void trace_ret(struct tbuf *b, long ret)
{
	if (ret < 0 && ret > -4096)
		tb_printf(b, ") = -1 %s (%s)\n", ua__lx_errno_name((int)-ret),
			  strerror((int)-ret));
	else if ((unsigned long)ret > 0xffff)
		tb_printf(b, ") = %#lx\n", (unsigned long)ret);
	else
		tb_printf(b, ") = %ld\n", ret);
}

/*
 * Numbers of the kernel's x86-64 table (arch/x86/entry/syscalls/
 * syscall_64.tbl, Linux 6.19: 0-336 and 424-470) less the entries that
 * have no entry point there either (uselib, _sysctl, create_module,
 * get_kernel_syms, query_module, nfsservctl, getpmsg, putpmsg,
 * afs_syscall, tuxcall, security, set_thread_area, get_thread_area,
 * lookup_dcookie, epoll_ctl_old, epoll_wait_old, vserver), which are
 * ENOSYS natively too.
 */
static bool kernel_has(int nr)
{
	static const short none[] = { 134, 156, 174, 177, 178, 180,
				      181, 182, 183, 184, 185, 205,
				      211, 212, 214, 215, 236 };

	if (nr >= 424 && nr <= 470)
		return true;
	if (nr < 0 || nr > 336)
		return false;
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		if (none[i] == nr)
			return false;
	return true;
}

/*
 * Only a call the kernel has and this table lacks is named, once: -1
 * (what a tracer sets to skip a call), x32 numbers, holes and numbers
 * past the table are ENOSYS natively as well, and quietly.
 */
static void name_unknown(struct lx_proc *p, int nr)
{
	char buf[96];

	if (!kernel_has(nr) || nr >= LX_NR_MAX)
		return;
	if (p->unknown_named[nr / 8] & (1u << (nr % 8)))
		return;
	p->unknown_named[nr / 8] |= (uint8_t)(1u << (nr % 8));
	snprintf(buf, sizeof(buf),
		 "uaccess: Linux syscall %d is not implemented: ENOSYS\n", nr);
	ua__write_str(2, buf);
}

/*
 * A trace line: "[pid N] " first once the program has made a process or
 * is one that another made, as strace -f marks them.
 */
/* strace -f's prefix once there are several processes or threads. */
static void trace_start(struct ua_task *t, struct tbuf *b)
{
	b->n = 0;
	if (lx_proc(t)->trace_pids)
		tb_printf(b, "[pid %d] ", (int)ua__lx_tid(t));
}

static bool exec_call(int nr)
{
	return nr == SYS_execve || nr == SYS_execveat;
}

static bool noreturn_call(int nr)
{
	return nr == SYS_exit || nr == SYS_exit_group ||
	       nr == SYS_rt_sigreturn;
}

/*
 * With several threads, calls run under the process's big lock (the
 * kernel's locks of the mm, the descriptor table and the rest, taken
 * whole), except those that may sleep for as long as another thread
 * likes, and those that never come back.  These read the descriptor
 * table unlocked: a descriptor closed meanwhile by another thread may
 * be gone, or reused, under them (doc/uarun.md).
 */
static bool unlocked_call(int nr)
{
	switch (nr) {
	case SYS_read: case SYS_write: case SYS_readv: case SYS_writev:
	case SYS_pread64: case SYS_pwrite64: case SYS_preadv:
	case SYS_pwritev: case SYS_preadv2: case SYS_pwritev2:
	case SYS_sendfile: case SYS_splice: case SYS_tee:
	case SYS_copy_file_range:
	case SYS_recvfrom: case SYS_recvmsg: case SYS_recvmmsg:
	case SYS_sendto: case SYS_sendmsg: case SYS_sendmmsg:
	case SYS_accept: case SYS_accept4: case SYS_connect:
	case SYS_futex: case SYS_nanosleep: case SYS_clock_nanosleep:
	case SYS_wait4: case SYS_waitid: case SYS_poll: case SYS_ppoll:
	case SYS_select: case SYS_pselect6: case SYS_epoll_wait:
	case SYS_epoll_pwait: case SYS_epoll_pwait2:
	case SYS_rt_sigsuspend: case SYS_pause: case SYS_rt_sigtimedwait:
	case SYS_flock: case SYS_fcntl: case SYS_open: case SYS_openat:
	case SYS_openat2: case SYS_creat: case SYS_ioctl:
	case SYS_sched_yield: case SYS_fsync: case SYS_fdatasync:
	case SYS_msync: case SYS_sync:
	case SYS_exit: case SYS_exit_group: case SYS_rt_sigreturn:
	case SYS_clone: case SYS_clone3: case SYS_fork: case SYS_vfork:
	case SYS_gettid: case SYS_getpid:
		return true;
	}
	return false;
}

/*
 * A host call made for the program came back EINTR: an interrupt (a
 * forwarded host signal, hostsig.c, installed without SA_RESTART so
 * that it does; a kick for a guest signal, irq.c) ended it.  The kernel
 * would have returned its restart code and let the program's own
 * handling decide: restarted with no handler or SA_RESTART, EINTR
 * otherwise.  The poll family is ERESTARTNOHAND (fs/select.c; a handler
 * makes it EINTR whatever its flags); epoll never restarts.  With no
 * signal for the guest at all the kernel would not have been woken:
 * the call goes on (the waits of the poll family go on themselves,
 * host_wait.c).  Calls the engine serves give their EINTR themselves.
 */
static long host_eintr(struct ua_task *t, int nr)
{
	/*
	 * The poll family waits in ua__lx_host_wait(), which returns EINTR
	 * only once it has found a deliverable signal: no second look.
	 */
	switch (nr) {
	case SYS_restart_syscall:
	case SYS_rt_sigtimedwait:
	case SYS_nanosleep:
	case SYS_clock_nanosleep:
	case SYS_epoll_wait:
	case SYS_epoll_pwait:
	case SYS_epoll_pwait2:
		return -EINTR;
	case SYS_poll:
	case SYS_ppoll:
	case SYS_select:
	case SYS_pselect6:
		return -ERESTARTNOHAND;
	}
	if (!ua__sig_interrupted(t))
		return -ERESTARTNOINTR;
	return -ERESTARTSYS;
}

long ua__lx_dispatch(struct ua_task *t, struct ua_pt_regs *r)
{
	struct lx_proc *p = lx_proc(t);
	/*
	 * The kernel dispatches on the low 32 bits, sign-extended (the
	 * movslq in arch/x86/entry/entry_64.S, do_syscall_64(regs, int nr)):
	 * higher bits are ignored, and -1 is quietly ENOSYS.
	 */
	int nr = (int)r->orig_rax;
	const struct lx_call *c = nr >= 0 && nr < LX_NR_MAX ? table[nr] : NULL;
	struct tbuf b;
	long ret;

	/* A task made by ua_task_create() with trap_syscalls: first trap. */
	if (!p) {
		p = ua__lx_proc_new("");
		if (!p)
			return -ENOMEM;
		t->lx = p;
		t->lx_free = ua__lx_free;
	}
	if (nr >= 0 && nr < LX_NR_MAX)
		p->counts[nr]++;
	else
		p->other_count++;
	if (!c) {
		name_unknown(p, nr);
		if (p->trace_fd >= 0) {
			trace_start(t, &b);
			tb_printf(&b, "syscall_%d(...) = -1 ENOSYS\n", nr);
			write(p->trace_fd, b.s, b.n);
		}
		return -ENOSYS;
	}
	if (p->trace_fd >= 0) {
		trace_start(t, &b);
		tb_printf(&b, "%s(", c->name);
		trace_args(&b, c, r);
		if (noreturn_call(nr)) {
			tb_add(&b, ") = ?\n", 6);
			write(p->trace_fd, b.s, b.n);
		} else if (exec_call(nr)) {
			/* A new image never comes back: say it went. */
			tb_add(&b, ") ...\n", 6);
			write(p->trace_fd, b.s, b.n);
			trace_start(t, &b);
			tb_printf(&b, "<... %s resumed", c->name);
		}
	}
	if (ua_unlikely(lx_threaded(p)) && !unlocked_call(nr)) {
		ua__lx_big_lock(p);
		ret = c->fn(t, r);
		ua__lx_big_unlock(p);
	} else {
		ret = c->fn(t, r);
	}
	if (ua_unlikely(ret == -EINTR))
		ret = host_eintr(t, nr);
	if (p->trace_fd >= 0 && !noreturn_call(nr)) {
		trace_ret(&b, ret);
		write(p->trace_fd, b.s, b.n);
	}
	return ret;
}

void ua_linux_trace(struct ua_task *t, int fd)
{
	if (t && t->lx)
		lx_proc(t)->trace_fd = fd;
}

static void print_site(int fd, const struct ua__rw_site *v, bool patch)
{
	const char *name = v->nr < LX_NR_MAX && table[v->nr] ?
				   table[v->nr]->name :
				   "?";
	char line[200];
	int len;

	if (!patch || !v->why)
		len = snprintf(line, sizeof(line),
			       "  site %#-16llx %-16s %4llu %12lu trips\n",
			       (unsigned long long)v->addr, name,
			       (unsigned long long)v->nr, v->trips);
	else
		len = snprintf(line, sizeof(line),
			       "  site %#-16llx %-16s %4llu %12lu traps: %s\n",
			       (unsigned long long)v->addr, name,
			       (unsigned long long)v->nr, v->trips,
			       ua__patch_why_str(v->why));
	write(fd, line, (size_t)len);
}

/*
 * --trap=rewrite: the rewritten sites, by address; patch: the patched
 * ones, then those that stayed on sud with the reason.
 */
static void print_sites(struct ua_task *t, int fd)
{
	size_t n = ua__rewrite_sites(t, NULL, 0), patched = 0;
	bool patch = t->tb.mode == UA_TRAP_PATCH;
	struct ua__rw_site *v;
	char line[160];
	int len;

	if (t->tb.mode != UA_TRAP_REWRITE && !patch)
		return;
	v = n ? calloc(n, sizeof(*v)) : NULL;
	if (n && !v)
		return;
	n = ua__rewrite_sites(t, v, n);
	for (size_t i = 0; i < n; i++)
		patched += !v[i].why;
	len = snprintf(line, sizeof(line), "%-24s %12zu\n",
		       patch ? "patched sites" : "rewritten sites", patched);
	write(fd, line, (size_t)len);
	for (size_t i = 0; i < n; i++)
		if (!v[i].why)
			print_site(fd, &v[i], patch);
	if (patch) {
		len = snprintf(line, sizeof(line), "%-24s %12zu\n",
			       "sites left on sud", n - patched);
		write(fd, line, (size_t)len);
		for (size_t i = 0; i < n; i++)
			if (v[i].why)
				print_site(fd, &v[i], patch);
	}
	free(v);
}

void ua_linux_print_stats(struct ua_task *t, int fd)
{
	struct lx_proc *p = t ? lx_proc(t) : NULL;
	unsigned long total = 0;
	char line[128];
	int n;

	if (!p)
		return;
	n = snprintf(line, sizeof(line), "%-24s %12s\n", "syscall", "calls");
	write(fd, line, (size_t)n);
	for (unsigned int i = 0; i < LX_NR_MAX; i++) {
		if (!p->counts[i])
			continue;
		total += p->counts[i];
		if (table[i])
			n = snprintf(line, sizeof(line), "%-24s %12lu\n",
				     table[i]->name, p->counts[i]);
		else
			n = snprintf(line, sizeof(line), "syscall_%-16u %12lu\n",
				     i, p->counts[i]);
		write(fd, line, (size_t)n);
	}
	total += p->other_count;
	n = snprintf(line, sizeof(line), "%-24s %12lu\n", "total", total);
	write(fd, line, (size_t)n);
	n = snprintf(line, sizeof(line), "%-24s %12lu\n", "signals delivered",
		     ua_task_signals_delivered(t) + p->signals_gone);
	write(fd, line, (size_t)n);
	print_sites(t, fd);
}

__attribute__((constructor)) static void lx_table_init(void)
{
	ua__lx_proc_init();
	ua__lx_process_init();
	ua__lx_mm_init();
	ua__lx_file_init();
	ua__lx_fs_init();
	ua__lx_signal_init();
	ua__lx_time_init();
	ua__lx_futex_init();
	ua__lx_exec_init();
	ua__lx_xattr_init();
	ua__lx_socket_init();
	ua__lx_epoll_init();
	ua__lx_thread_init();
	ua__lx_hostfd_init();
	ua__lx_ptimer_init();
	ua__lx_signalfd_init();
}
