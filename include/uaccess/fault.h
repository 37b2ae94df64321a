/* SPDX-License-Identifier: MIT */
/*
 * The fault handler.  ua_init() installs it for SIGSEGV and SIGBUS with
 * SA_SIGINFO | SA_ONSTACK; it resumes faults whose instruction has an
 * exception-table entry and passes every other fault to the handler that
 * was installed before it.  It also takes SIGFPE, SIGILL and SIGTRAP, but
 * only for guest code (they end the task): outside it they go straight to
 * the old disposition.
 */
#ifndef UACCESS_FAULT_H
#define UACCESS_FAULT_H

#include <signal.h>

#include <uaccess/compiler.h>

UA_BEGIN_DECLS

/**
 * ua_handle_fault() - let the library recover a fault
 * @sig: SIGSEGV or SIGBUS
 * @info: the siginfo the handler received
 * @ucontext: the ucontext_t the handler received
 *
 * For programs that install their own SIGSEGV/SIGBUS handler after the
 * library: call this first and return at once when it returns true.  It
 * never chains to another handler.  Async-signal-safe; errno preserved.
 * A monitor access to a locked guest page outside a window does not
 * return: it is reported (like the kernel's KUAP oops) and aborts.
 *
 * Return: true when the fault was recovered (the context now resumes at
 * the fixup), false when it is not the library's.
 */
UA_EXPORT bool ua_handle_fault(int sig, siginfo_t *info, void *ucontext);

UA_END_DECLS

#endif /* UACCESS_FAULT_H */
