// SPDX-License-Identifier: MIT
/*
 * Syscall dispatch and the task layer's own syscalls.
 */
#include <errno.h>
#include <unistd.h>

#include "task_internal.h"

static ua_syscall_fn table[UA_NR_MAX];
static int table_flags[UA_NR_MAX];

int ua__syscall_register(unsigned int nr, ua_syscall_fn fn, int flags)
{
	if (nr >= UA_NR_MAX)
		return -EINVAL;
	table[nr] = fn;
	table_flags[nr] = flags;
	return 0;
}

ua_syscall_fn ua__syscall_fn(unsigned int nr)
{
	return nr < UA_NR_MAX ? table[nr] : NULL;
}

/*
 * Entered from ua__syscall on the monitor stack.  Returns the task when
 * guest code can resume by the fast path (RIP, RSP and RFLAGS as they were
 * at entry: the syscall only changed general registers; no window open);
 * otherwise leaves
 * through ua__return_to_guest() and does not return.
 */
struct ua_task *ua__syscall_dispatch(struct ua_task *t)
{
	struct ua_pt_regs *r = &t->regs;
	uint64_t nr = r->orig_rax, rip = r->rip, rsp = r->rsp;
	uint64_t flags = r->eflags;
	ua_syscall_fn fn;
	long ret;

	ua__guest_task = NULL;
	ua__tsc_entry(t);
	t->trap_entry = false;
	/* A task that traps syscalls: the monitor's own must go through. */
	t->tb.sel = UA_SUD_ALLOW;
	ua__pkru_entry(t);
	fn = nr < UA_NR_MAX ? table[nr] : NULL;
	/*
	 * Block-mode syscalls that open a window first thing fold the entry
	 * lock into it (ua__protect_lock_to_window): one switch, not two.
	 */
	t->entry_unlocked = fn && !t->hook &&
			    (table_flags[nr] & UA_SYSCALL_ENTRY_FOLD) &&
			    t->frame_mode == UA_FRAME_BLOCK;
	if (ua_likely(!t->entry_unlocked))
		ua__protect_syscall_lock(t->sp);
	t->regs_replaced = false;
	if (ua_unlikely(t->hook) && t->hook(t, r, t->hook_data)) {
		t->regs_replaced = true;
	} else {
		ret = fn ? fn(t, r) : -ENOSYS;
		if (!t->regs_replaced)
			r->rax = (uint64_t)ret;
	}
	/* A folded entry whose window never opened still has to lock. */
	if (ua_unlikely(t->entry_unlocked) && ua_self.guest_space == t->sp)
		ua_protect_lock(t->sp);
	t->entry_unlocked = false;
	r->eflags &= ~ua__exit_eflags_drop;
	/*
	 * The fast exit only from monitor mode with no window: a syscall
	 * that left its window open to fold into the exit (swapcontext or
	 * rt_sigreturn in block mode, even one that loaded the very RIP,
	 * RSP and RFLAGS it was called with) goes the full way, which
	 * closes it.
	 */
	if (ua_unlikely(ua__exit_work_pending(t) || r->rip != rip ||
			r->rsp != rsp || r->eflags != flags ||
			ua_self.win_kind))
		ua__return_to_guest(t);
	ua__protect_syscall_unlock(t->sp);
	ua__pkru_exit(t);
	ua__tsc_exit(t);
	ua__guest_task = t;
	if (t->trap)
		t->tb.sel = UA_SUD_BLOCK;
	return t;
}

static long sys_nop(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)t;
	(void)r;
	return 0;
}

static long sys_exit(struct ua_task *t, struct ua_pt_regs *r)
{
	ua__task_exit(t, (int)(r->rsi & 0xff) << 8);
}

static long sys_getpid(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)t;
	(void)r;
	return getpid();
}

static long sys_gettid(struct ua_task *t, struct ua_pt_regs *r)
{
	(void)r;
	return t->tid;
}

__attribute__((constructor)) static void syscall_init(void)
{
	table[UA_NR_nop] = sys_nop;
	table[UA_NR_exit] = sys_exit;
	table[UA_NR_getpid] = sys_getpid;
	table[UA_NR_gettid] = sys_gettid;
}

/* Guest side. */

/*
 * ua__syscall for calls without arguments: the entry code reads only the
 * number (RDI), so the wrappers need not zero five argument registers.
 */
extern long ua__syscall0(long nr) __asm__("ua__syscall");

static inline long sys_result(long ret)
{
	if (ua_unlikely(ret < 0 && ret > -4096)) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

long ua_sys_nop(void)
{
	return sys_result(ua__syscall0(UA_NR_nop));
}

_Noreturn void ua_sys_exit(int status)
{
	ua__syscall(UA_NR_exit, status, 0, 0, 0, 0);
	__builtin_unreachable();
}

pid_t ua_sys_getpid(void)
{
	return (pid_t)sys_result(ua__syscall0(UA_NR_getpid));
}

pid_t ua_sys_gettid(void)
{
	return (pid_t)sys_result(ua__syscall0(UA_NR_gettid));
}
