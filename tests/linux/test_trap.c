// SPDX-License-Identifier: MIT
/*
 * Trapped `syscall` instructions in a task made by ua_task_create() with
 * trap_syscalls: they reach the Linux syscall table with the Linux
 * register convention, rcx and r11 come back as the CPU leaves them after
 * a syscall, unknown numbers are -ENOSYS, and the monitor's thread
 * pointer is intact afterwards.  The trap mechanism is chosen by
 * ua_task_opts.trap or UA_TRAP; rewrite is refused as not implemented.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include <uaccess.h>

#include "tsupport.h"

struct result {
	long pid, ppid, enosys, rcx_ok, r11_if;
};

static long raw_syscall0(long nr)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "a"(nr) : "rcx", "r11", "memory");
	return ret;
}

static void guest(void *arg)
{
	struct result *r = arg;
	unsigned long rcx, r11, label;

	r->pid = raw_syscall0(SYS_getpid);
	r->ppid = raw_syscall0(SYS_getppid);
	r->enosys = raw_syscall0(400);
	asm volatile("leaq 1f(%%rip), %2\n\t"
		     "syscall\n"
		     "1:"
		     : "=c"(rcx), "=r"(r11), "=&r"(label)
		     : "a"((long)SYS_getpid)
		     : "r11", "memory");
	asm volatile("movq %%r11, %0" : "=r"(r11));
	r->rcx_ok = rcx == label;
	r->r11_if = (r11 & 0x200) != 0;
}

static struct ua_space *space(void)
{
	struct ua_space *sp = ua_space_create(4 << 20, NULL);

	if (!sp && t_backend_unavailable())
		cr_skip_test("%s", t_backend_unavailable());
	cr_assert_not_null(sp);
	return sp;
}

Test(trap, linux_convention_and_cpu_registers)
{
	struct ua_task_opts o = { .trap_syscalls = true, .trap = UA_TRAP_SUD };
	struct ua_space *sp = space();
	struct result r = { 0 };
	struct ua_task *t = ua_task_create(sp, guest, &r, &o);
	int saved_errno_marker = 12345;

	cr_assert_not_null(t, "%s", strerror(errno));
	errno = saved_errno_marker;
	cr_assert_eq(ua_task_run(t), 0);
	/* errno lives in the monitor's TLS: FS is the monitor's again. */
	cr_assert_eq(errno, saved_errno_marker);
	cr_assert_eq(r.pid, getpid());
	cr_assert_eq(r.ppid, getppid());
	cr_assert_eq(r.enosys, -ENOSYS);
	cr_assert(r.rcx_ok, "rcx is not the return address");
	ua_task_destroy(t);
	ua_space_destroy(sp);
}

Test(trap, rewrite_is_refused)
{
	struct ua_task_opts o = { .trap_syscalls = true,
				  .trap = UA_TRAP_REWRITE };
	struct ua_space *sp = space();

	errno = 0;
	cr_assert_null(ua_task_create(sp, guest, NULL, &o));
	cr_assert_eq(errno, ENOSYS);
	ua_space_destroy(sp);
}

Test(trap, environment_selects_the_mechanism)
{
	struct ua_task_opts o = { .trap_syscalls = true };
	struct ua_space *sp = space();
	struct ua_task *t;

	setenv("UA_TRAP", "bogus", 1);
	errno = 0;
	cr_assert_null(ua_task_create(sp, guest, NULL, &o));
	cr_assert_eq(errno, EINVAL);
	setenv("UA_TRAP", "rewrite", 1);
	cr_assert_null(ua_task_create(sp, guest, NULL, &o));
	cr_assert_eq(errno, ENOSYS);
	setenv("UA_TRAP", "sud", 1);
	t = ua_task_create(sp, guest, &(struct result){ 0 }, &o);
	cr_assert_not_null(t);
	ua_task_destroy(t);
	unsetenv("UA_TRAP");
	ua_space_destroy(sp);
}

/* Without trap_syscalls a raw syscall is the host's, as before. */
static void untrapped(void *arg)
{
	*(long *)arg = raw_syscall0(SYS_getpid);
}

Test(trap, off_by_default)
{
	struct ua_space *sp = space();
	long pid = 0;
	struct ua_task *t = ua_task_create(sp, untrapped, &pid, NULL);

	cr_assert_not_null(t);
	cr_assert_eq(ua_task_run(t), 0);
	cr_assert_eq(pid, getpid());
	ua_task_destroy(t);
	ua_space_destroy(sp);
}
