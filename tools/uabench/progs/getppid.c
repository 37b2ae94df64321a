// SPDX-License-Identifier: MIT
/*
 * uabench real_getppid: COUNT getppid system calls, then exit 0.
 *
 *   getppid COUNT
 *
 * Built static with the system's C compiler so it runs natively and under
 * uarun alike.  syscall(SYS_getppid) rather than getppid(): a libc may
 * cache the parent's pid, and every iteration must be a real `syscall`
 * instruction.  The loop is the whole program: uabench times a run of
 * COUNT calls less a run of none, so start-up and exit cancel.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;

	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}
