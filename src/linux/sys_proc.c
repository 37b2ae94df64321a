// SPDX-License-Identifier: MIT
/*
 * Process and system information calls (kernel/sys.c, kernel/exit.c,
 * arch/x86/kernel/process_64.c for arch_prctl).  One program is one
 * process here: its pid and its main thread's tid are the monitor's pid.
 */
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "linux_internal.h"

#define ARCH_SET_GS 0x1001
#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003
#define ARCH_GET_GS 0x1004

static long sys_getpid(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)t;
	(void)r;
	return ua__monitor_pid();
}

static long sys_getppid(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)t;
	(void)r;
	return ua__ppid();
}

static long sys_getuid(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)t;
	(void)r;
	return getuid();
}

static long sys_geteuid(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)t;
	(void)r;
	return geteuid();
}

static long sys_getgid(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)t;
	(void)r;
	return getgid();
}

static long sys_getegid(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)t;
	(void)r;
	return getegid();
}

static long sys_enosys(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)t;
	(void)r;
	return -ENOSYS;
}

static long sys_sched_yield(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)t;
	(void)r;
	sched_yield();
	return 0;
}

static long sys_uname(struct ua_task *t, struct ua_pt_regs *r)
{
	struct utsname u;

	(void)t;
	if (uname(&u))
		return -errno;
	if (ua_copy_to_user((void *)ARG1(r), &u, sizeof(u)))
		return -EFAULT;
	return 0;
}

/*
 * The host's figures: the guest's memory is the host's, and the space
 * only bounds its addresses (uptime, loads and process count are the
 * host's too, as a process outside a namespace sees them).
 */
_Static_assert(sizeof(struct sysinfo) == 112,
	       "struct sysinfo is the kernel's (include/uapi/linux/sysinfo.h)");

static long sys_sysinfo(struct ua_task *t, struct ua_pt_regs *r)
{
	struct sysinfo si;

	(void)t;
	if (sysinfo(&si))
		return -errno;
	if (ua_copy_to_user((void *)ARG1(r), &si, sizeof(si)))
		return -EFAULT;
	return 0;
}

static long sys_getrandom(struct ua_task *t, struct ua_pt_regs *r)
{
	unsigned char buf[256];
	size_t len = ARG2(r), done = 0;
	unsigned int flags = (unsigned int)ARG3(r);

	(void)t;
	if (flags & ~(GRND_NONBLOCK | GRND_RANDOM | 0x4u /* GRND_INSECURE */))
		return -EINVAL;
	while (done < len) {
		size_t want = len - done < sizeof(buf) ? len - done :
							 sizeof(buf);
		ssize_t n = getrandom(buf, want, flags & ~0x4u);

		if (n < 0)
			return done ? (long)done : -errno;
		if (ua_copy_to_user((char *)ARG1(r) + done, buf, (size_t)n))
			return done ? (long)done : -EFAULT;
		done += (size_t)n;
		if ((size_t)n < want)
			break;
	}
	return (long)done;
}

/*
 * Resource limits.  The process's own table (lx_proc.rlim), filled from
 * the host's at start, changed as do_prlimit() (kernel/sys.c) changes
 * the kernel's, and enforced where the monitor does the work: RLIMIT_NOFILE
 * by the descriptor table, RLIMIT_AS by mmap, mremap and brk, RLIMIT_DATA
 * by brk (sys_mm.c).  The host applies CPU, FSIZE and CORE to the
 * monitor's process itself, which is the guest's: those are set on the
 * host too, and the host's answer is the call's.  The host's NOFILE is
 * left alone: the monitor's descriptors are not numbered as the guest's.
 */
void ua__lx_rlimits_init(struct lx_proc *p)
{
	struct rlimit rl;

	for (int i = 0; i < LX_RLIM_NLIMITS; i++) {
		if (getrlimit(i, &rl)) {
			p->rlim[i].cur = p->rlim[i].max = LX_RLIM_INFINITY;
			continue;
		}
		p->rlim[i].cur = rl.rlim_cur;
		p->rlim[i].max = rl.rlim_max;
	}
}

static bool host_applies(unsigned int res)
{
	return res == RLIMIT_CPU || res == RLIMIT_FSIZE || res == RLIMIT_CORE;
}

/* capable(CAP_SYS_RESOURCE): the monitor's effective set is the guest's. */
static bool capable_sys_resource(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return false;
	return d[CAP_SYS_RESOURCE / 32].effective &
	       (1u << (CAP_SYS_RESOURCE % 32));
}

/* fs.nr_open: the ceiling of RLIMIT_NOFILE's hard limit (fs/file.c). */
static uint64_t nr_open(void)
{
	unsigned long v = 1024 * 1024;
	FILE *f = fopen("/proc/sys/fs/nr_open", "re");

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 1024 * 1024;
		fclose(f);
	}
	return v;
}

static long set_rlimit(struct lx_proc *p, unsigned int res,
		       const struct lx_rlimit *nl)
{
	struct lx_rlimit *cur = &p->rlim[res];
	struct rlimit rl = { nl->cur, nl->max };

	if (nl->cur > nl->max)
		return -EINVAL;
	if (res == RLIMIT_NOFILE && nl->max > nr_open())
		return -EPERM;
	if (host_applies(res)) {
		if (setrlimit((int)res, &rl))
			return -errno;
	} else if (nl->max > cur->max && !capable_sys_resource()) {
		return -EPERM;
	}
	*cur = *nl;
	return 0;
}

/*
 * The order of the kernel's checks: the new value is read first, then
 * the pid, then the resource (sys_prlimit64(), do_prlimit()).  Other
 * processes are not visible from the guest's one (as for kill()).
 */
static long do_prlimit(struct ua_task *t, pid_t pid, unsigned int res,
		       const void *unew, void *uold)
{
	struct lx_proc *p = lx_proc(t);
	struct lx_rlimit nl, ol;
	long err;

	if (unew && ua_copy_from_user(&nl, unew, sizeof(nl)))
		return -EFAULT;
	if (pid && pid != ua__monitor_pid() && pid != t->tid)
		return -ESRCH;
	if (res >= LX_RLIM_NLIMITS)
		return -EINVAL;
	ol = p->rlim[res];
	if (unew) {
		err = set_rlimit(p, res, &nl);
		if (err)
			return err;
	}
	if (uold && ua_copy_to_user(uold, &ol, sizeof(ol)))
		return -EFAULT;
	return 0;
}

static long sys_prlimit64(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_prlimit(t, (pid_t)ARG1(r), (unsigned int)ARG2(r),
			  (const void *)ARG3(r), (void *)ARG4(r));
}

static long sys_getrlimit(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_prlimit(t, 0, (unsigned int)ARG1(r), NULL, (void *)ARG2(r));
}

static long sys_setrlimit(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_prlimit(t, 0, (unsigned int)ARG1(r), (const void *)ARG2(r),
			  NULL);
}

/* The guest's process (or its one thread) by pid: 0 or its own pid. */
static bool own_pid(struct ua_task *t, pid_t pid)
{
	return !pid || pid == ua__monitor_pid() || pid == t->tid;
}

/*
 * getrusage(): the host's usage of the monitor, whose only work is the
 * guest's (kernel/sys.c; a who the kernel does not know is EINVAL).
 */
static long sys_getrusage(struct ua_task *t, struct ua_pt_regs *r)
{
	int who = (int)ARG1(r);
	struct rusage ru;

	(void)t;
	if (who != RUSAGE_SELF && who != RUSAGE_CHILDREN &&
	    who != RUSAGE_THREAD)
		return -EINVAL;
	if (getrusage(who, &ru))
		return -errno;
	if (ua_copy_to_user((void *)ARG2(r), &ru, sizeof(ru)))
		return -EFAULT;
	return 0;
}

/*
 * times(): the host's, buffer optional; the return is the host's clock
 * ticks even when they look like an error (kernel/sys.c
 * force_successful_syscall_return(), a no-op on x86).
 */
static long sys_times(struct ua_task *t, struct ua_pt_regs *r)
{
	struct tms tm;
	long ticks = syscall(SYS_times, &tm);

	(void)t;
	if (ARG1(r) && ua_copy_to_user((void *)ARG1(r), &tm, sizeof(tm)))
		return -EFAULT;
	return ticks;
}

/*
 * sched_getaffinity(): the host's mask of the monitor's thread, which is
 * the guest's thread; other processes are not the guest's to see.  The
 * host checks the length as the kernel does (kernel/sched/syscalls.c:
 * len * 8, an unsigned int, must hold nr_cpu_ids bits; a multiple of a
 * long) and writes at most cpumask_size(), at most NR_CPUS (8192 on x86,
 * arch/x86/Kconfig) bits, whatever the length says.
 */
static long sys_sched_getaffinity(struct ua_task *t, struct ua_pt_regs *r)
{
	unsigned long mask[8192 / (8 * sizeof(unsigned long))];
	long n;

	n = syscall(SYS_sched_getaffinity, 0, (unsigned int)ARG2(r), mask);
	if (n < 0)
		return -errno;
	if (!own_pid(t, (pid_t)ARG1(r)))
		return -ESRCH;
	if (ua_copy_to_user((void *)ARG3(r), mask, (size_t)n))
		return -EFAULT;
	return n;
}

/*
 * The scheduling policy and its parameters (kernel/sched/syscalls.c):
 * the host's for the monitor's thread, which is the guest's, as
 * sched_getaffinity() is; struct sched_param is one int.  The kernel
 * refuses a negative pid (EINVAL) before it looks for the task (ESRCH).
 */
static long sched_call(struct ua_task *t, long nr, long pid, long a2,
		       uint64_t uparam, bool in, bool out)
{
	int param = 0;
	long ret;

	if (pid < 0)
		return -EINVAL;
	if (in && ua_get_user(param, (const int *)uparam))
		return -EFAULT;
	if (!own_pid(t, (pid_t)pid))
		return -ESRCH;
	ret = nr == SYS_sched_getscheduler ? syscall(nr, 0) :
	      nr == SYS_sched_setscheduler ? syscall(nr, 0, a2, &param) :
					     syscall(nr, 0, &param);
	if (ret < 0)
		return -errno;
	if (out && ua_put_user(param, (int *)uparam))
		return -EFAULT;
	return ret;
}

static long sys_sched_getscheduler(struct ua_task *t, struct ua_pt_regs *r)
{
	return sched_call(t, SYS_sched_getscheduler, (int)ARG1(r), 0, 0,
			  false, false);
}

static long sys_sched_setscheduler(struct ua_task *t, struct ua_pt_regs *r)
{
	if (!ARG3(r) || (int)ARG1(r) < 0)
		return -EINVAL;
	return sched_call(t, SYS_sched_setscheduler, (int)ARG1(r),
			  (int)ARG2(r), ARG3(r), true, false);
}

static long sys_sched_getparam(struct ua_task *t, struct ua_pt_regs *r)
{
	if (!ARG2(r) || (int)ARG1(r) < 0)
		return -EINVAL;
	return sched_call(t, SYS_sched_getparam, (int)ARG1(r), 0, ARG2(r),
			  false, true);
}

static long sys_sched_setparam(struct ua_task *t, struct ua_pt_regs *r)
{
	if (!ARG2(r) || (int)ARG1(r) < 0)
		return -EINVAL;
	return sched_call(t, SYS_sched_setparam, (int)ARG1(r), 0, ARG2(r),
			  true, false);
}

/* The priority range of a policy: the host's, no task involved. */
static long sys_sched_priority(struct ua_task *t, struct ua_pt_regs *r)
{
	long ret = syscall(r->orig_rax, (int)ARG1(r));

	(void)t;
	return ret < 0 ? -errno : ret;
}

static long sys_sched_rr_get_interval(struct ua_task *t, struct ua_pt_regs *r)
{
	struct timespec ts;

	if ((int)ARG1(r) < 0)
		return -EINVAL;
	if (!own_pid(t, (pid_t)ARG1(r)))
		return -ESRCH;
	if (syscall(SYS_sched_rr_get_interval, 0, &ts))
		return -errno;
	return ua_copy_to_user((void *)ARG2(r), &ts, sizeof(ts)) ? -EFAULT :
								   0;
}

/*
 * getpriority()/setpriority() (kernel/sys.c): PRIO_PROCESS of the
 * guest's own pid is the monitor's thread; another pid is no process of
 * the guest's.  Process groups and users are the host's, as they are
 * natively.  The raw getpriority() is 20 - nice, as the host returns it.
 */
static long do_priority(struct ua_task *t, struct ua_pt_regs *r, bool set)
{
	int which = (int)ARG1(r), who = (int)ARG2(r);
	long ret;

	if (which < PRIO_PROCESS || which > PRIO_USER)
		return -EINVAL;
	if (which == PRIO_PROCESS) {
		if (!own_pid(t, who))
			return -ESRCH;
		who = 0;
	}
	ret = set ? syscall(SYS_setpriority, which, who, (int)ARG3(r)) :
		    syscall(SYS_getpriority, which, who);
	return ret < 0 ? -errno : ret;
}

static long sys_getpriority(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_priority(t, r, false);
}

static long sys_setpriority(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_priority(t, r, true);
}

/* getgroups() (kernel/groups.c): the host's supplementary groups. */
static long sys_getgroups(struct ua_task *t, struct ua_pt_regs *r)
{
	int size = (int)ARG1(r), n;
	gid_t *groups;
	long ret;

	(void)t;
	if (size < 0)
		return -EINVAL;
	n = getgroups(0, NULL);
	if (n < 0)
		return -errno;
	if (!size)
		return n;
	if (n > size)
		return -EINVAL;
	groups = malloc(((size_t)n ? (size_t)n : 1) * sizeof(*groups));
	if (!groups)
		return -ENOMEM;
	n = getgroups(n, groups);
	ret = n;
	if (n < 0)
		ret = -errno;
	else if (ua_copy_to_user((void *)ARG2(r), groups,
				 (size_t)n * sizeof(*groups)))
		ret = -EFAULT;
	free(groups);
	return ret;
}

/*
 * The guest owns both bases: FS is switched at every entry and exit (the
 * monitor's own TLS lives there), GS stays the guest's throughout
 * (ua__guest_gs_set()).
 */
static long sys_arch_prctl(struct ua_task *t, struct ua_pt_regs *r)
{
	uint64_t addr = ARG2(r);

	switch (ARG1(r)) {
	case ARCH_SET_FS:
		/* TASK_SIZE_MAX in the kernel; the space here. */
		if (addr && !ua_access_ok((void *)addr, 0))
			return -EPERM;
		t->tb.guest_fs = addr;
		return 0;
	case ARCH_GET_FS:
		return ua_put_user(t->tb.guest_fs, (uint64_t *)addr);
	case ARCH_GET_GS:
		return ua_put_user(ua__guest_gs_get(t), (uint64_t *)addr);
	case ARCH_SET_GS:
		return ua__guest_gs_set(t, addr);
	}
	return -EINVAL;
}

/*
 * PR_SET_TSC: the host is asked once here whether it can (set_tsc_mode()
 * in arch/x86/kernel/process.c); the flag then follows the guest's code
 * in and out of the monitor (ua__tsc_entry(), ua__tsc_exit()).
 */
static long set_tsc(struct ua_task *t, unsigned long mode)
{
	if (mode != PR_TSC_ENABLE && mode != PR_TSC_SIGSEGV)
		return -EINVAL;
	if (mode == PR_TSC_SIGSEGV && !t->tsc_off) {
		if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV))
			return -errno;
		prctl(PR_SET_TSC, PR_TSC_ENABLE);
	}
	t->tsc_off = mode == PR_TSC_SIGSEGV;
	return 0;
}

/*
 * The thread's name is its host thread's (exec gave it the program's:
 * sys_exec.c), set and read as kernel/sys.c does: at most 15 bytes of
 * the string, all 16 of the name back.
 */
static long thread_name(bool set, uint64_t uptr)
{
	char name[16] = "";

	if (set) {
		if (ua_strncpy_from_user(name, (const char *)uptr,
					 sizeof(name) - 1) < 0)
			return -EFAULT;
		return prctl(PR_SET_NAME, name) ? -errno : 0;
	}
	if (prctl(PR_GET_NAME, name))
		return -errno;
	return ua_copy_to_user((void *)uptr, name, sizeof(name)) ? -EFAULT : 0;
}

/*
 * The thread's name (PR_SET_NAME / PR_GET_NAME), the TSC's mode and the
 * parent-death signal (the task layer's: src/task/ppid.c).
 */
static long sys_prctl(struct ua_task *t, struct ua_pt_regs *r)
{
	int tsc;

	switch (ARG1(r)) {
	case PR_SET_NAME:
	case PR_GET_NAME:
		return thread_name(ARG1(r) == PR_SET_NAME, ARG2(r));
	case PR_GET_TSC:
		tsc = t->tsc_off ? PR_TSC_SIGSEGV : PR_TSC_ENABLE;
		return ua_put_user(tsc, (int *)ARG2(r));
	case PR_SET_TSC:
		return set_tsc(t, ARG2(r));
	case PR_SET_PDEATHSIG:
		/* valid_signal(): 0 up to _NSIG, as an unsigned long. */
		if (ARG2(r) > 64)
			return -EINVAL;
		return ua__pdeath_set(t, (int)ARG2(r));
	case PR_GET_PDEATHSIG:
		return ua_put_user(t->pdeath_sig, (int *)ARG2(r));
	}
	return -EINVAL;
}

static long sys_umask(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)t;
	return umask((mode_t)ARG1(r) & 0777);
}

/*
 * Process groups and sessions: pids are the host's and the guest process
 * is the monitor's (doc/uarun.md), so the host's answer is the kernel's,
 * errors included (EPERM for a session leader's setpgid or setsid,
 * ESRCH for a pid outside the caller's reach).
 */
static long host_ret(long r)
{
	return r < 0 ? -errno : r;
}

static long sys_getpgid(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)t;
	return host_ret(syscall(SYS_getpgid, (pid_t)ARG1(r)));
}

static long sys_getpgrp(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)t;
	(void)r;
	return host_ret(syscall(SYS_getpgid, 0));
}

static long sys_setpgid(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)t;
	return host_ret(syscall(SYS_setpgid, (pid_t)ARG1(r), (pid_t)ARG2(r)));
}

static long sys_getsid(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)t;
	return host_ret(syscall(SYS_getsid, (pid_t)ARG1(r)));
}

static long sys_setsid(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)t;
	(void)r;
	return host_ret(syscall(SYS_setsid));
}

static const struct lx_call calls[] = {
	{ SYS_getpid, "getpid", sys_getpid, "-" },
	{ SYS_getppid, "getppid", sys_getppid, "-" },
	{ SYS_getuid, "getuid", sys_getuid, "-" },
	{ SYS_geteuid, "geteuid", sys_geteuid, "-" },
	{ SYS_getgid, "getgid", sys_getgid, "-" },
	{ SYS_getegid, "getegid", sys_getegid, "-" },
	{ SYS_rseq, "rseq", sys_enosys, "pudx" },
	{ SYS_prlimit64, "prlimit64", sys_prlimit64, "ddpp" },
	{ SYS_getrlimit, "getrlimit", sys_getrlimit, "dp" },
	{ SYS_setrlimit, "setrlimit", sys_setrlimit, "dp" },
	{ SYS_uname, "uname", sys_uname, "p" },
	{ SYS_sysinfo, "sysinfo", sys_sysinfo, "p" },
	{ SYS_arch_prctl, "arch_prctl", sys_arch_prctl, "xx" },
	{ SYS_sched_yield, "sched_yield", sys_sched_yield, "-" },
	{ SYS_getrandom, "getrandom", sys_getrandom, "pux" },
	{ SYS_umask, "umask", sys_umask, "o" },
	{ SYS_getrusage, "getrusage", sys_getrusage, "dp" },
	{ SYS_times, "times", sys_times, "p" },
	{ SYS_sched_getscheduler, "sched_getscheduler",
	  sys_sched_getscheduler, "d" },
	{ SYS_sched_setscheduler, "sched_setscheduler",
	  sys_sched_setscheduler, "ddp" },
	{ SYS_sched_getparam, "sched_getparam", sys_sched_getparam, "dp" },
	{ SYS_sched_setparam, "sched_setparam", sys_sched_setparam, "dp" },
	{ SYS_sched_get_priority_max, "sched_get_priority_max",
	  sys_sched_priority, "d" },
	{ SYS_sched_get_priority_min, "sched_get_priority_min",
	  sys_sched_priority, "d" },
	{ SYS_sched_rr_get_interval, "sched_rr_get_interval",
	  sys_sched_rr_get_interval, "dp" },
	{ SYS_sched_getaffinity, "sched_getaffinity", sys_sched_getaffinity,
	  "dup" },
	{ SYS_getpriority, "getpriority", sys_getpriority, "dd" },
	{ SYS_setpriority, "setpriority", sys_setpriority, "ddd" },
	{ SYS_getgroups, "getgroups", sys_getgroups, "dp" },
	{ SYS_prctl, "prctl", sys_prctl, "dxxxx" },
	{ SYS_getpgid, "getpgid", sys_getpgid, "d" },
	{ SYS_getpgrp, "getpgrp", sys_getpgrp, "-" },
	{ SYS_setpgid, "setpgid", sys_setpgid, "dd" },
	{ SYS_getsid, "getsid", sys_getsid, "d" },
	{ SYS_setsid, "setsid", sys_setsid, "-" },
};

void ua__lx_proc_init(void)
{
	LX_REGISTER(calls);
}
