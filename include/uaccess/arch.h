/* SPDX-License-Identifier: MIT */
/* Selects the per-architecture primitives. */
#ifndef UACCESS_ARCH_H
#define UACCESS_ARCH_H

#include <uaccess/config.h>

#if defined(__x86_64__) && !defined(UA_FORCE_GENERIC_ARCH)
#include <uaccess/arch/x86_64.h>
#else
#include <uaccess/arch/generic.h>
#endif

#endif /* UACCESS_ARCH_H */
