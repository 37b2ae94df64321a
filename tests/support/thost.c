// SPDX-License-Identifier: MIT
/*
 * Host system calls and signals of a piece of code, counted from outside
 * the process: the code runs in a child traced with
 * ptrace(PTRACE_SYSCALL), which stops at every system call the kernel
 * carries out (a syscall that Syscall User Dispatch turns into a SIGSYS
 * never reaches its syscall-entry stop) and at every signal the kernel
 * delivers.  Nothing in the child can hide an event from it, and nothing
 * depends on the CPU or on what the library chooses to count itself.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/ptrace.h>

#include "tsupport.h"

/* A write(-1, T_MARK, 0): EBADF, and a mark no other code makes. */
#define T_MARK 0x75616d61726bul

void t_host_mark(void)
{
	syscall(SYS_write, -1L, T_MARK, 0L);
}

static void tracee(void (*fn)(void *), void *arg)
{
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(100);
	raise(SIGSTOP);
	fn(arg);
	/* _exit: no atexit work (LeakSanitizer's would ptrace itself). */
	_exit(0);
}

int t_host_trace(void (*fn)(void *), void *arg, struct t_host_count *out,
		 int n)
{
	struct ptrace_syscall_info si;
	int status, sig = 0, k = -1;
	pid_t pid;

	memset(out, 0, sizeof(*out) * (size_t)n);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		tracee(fn, arg);
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		return status;
	ptrace(PTRACE_SETOPTIONS, pid, NULL,
	       (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL));
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig))
			break;
		sig = 0;
		if (waitpid(pid, &status, 0) != pid)
			break;
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return status;
		if (!WIFSTOPPED(status))
			continue;
		if (WSTOPSIG(status) != (SIGTRAP | 0x80)) {
			/* A signal-delivery stop: counted, and delivered. */
			sig = WSTOPSIG(status);
			if (k >= 0 && k < n)
				out[k].signals++;
			continue;
		}
		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid,
			   (void *)sizeof(si), &si) <= 0 ||
		    si.op != PTRACE_SYSCALL_INFO_ENTRY)
			continue;
		if (si.entry.nr == SYS_write && (uint32_t)si.entry.args[0] == ~0u &&
		    si.entry.args[1] == T_MARK) {
			k++;
			continue;
		}
		if (k < 0 || k >= n)
			continue;
		out[k].syscalls++;
		if (si.entry.nr == SYS_mprotect)
			out[k].mprotects++;
	}
	waitpid(pid, &status, 0);
	return status;
}
