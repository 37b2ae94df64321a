/* SPDX-License-Identifier: MIT */
/*
 * Atomic operations on a 32-bit word in the current space, for a monitor
 * that implements futexes for its guests: the kernel's
 * futex_atomic_cmpxchg_inatomic() and futex_atomic_op_inuser()
 * (arch/x86/include/asm/futex.h, kernel/futex/core.c).  Each is one
 * locked instruction (or a compare-and-exchange loop) inside a write
 * window, so it is atomic against the guest's own atomics on the word,
 * and a fault is -EFAULT.
 */
#ifndef UACCESS_FUTEX_H
#define UACCESS_FUTEX_H

#include <stdint.h>

#include <uaccess/compiler.h>

UA_BEGIN_DECLS

/* The operations and comparisons of FUTEX_WAKE_OP (uapi linux/futex.h). */
#define UA_FUTEX_OP_SET 0  /* *uaddr = oparg */
#define UA_FUTEX_OP_ADD 1  /* *uaddr += oparg */
#define UA_FUTEX_OP_OR 2   /* *uaddr |= oparg */
#define UA_FUTEX_OP_ANDN 3 /* *uaddr &= ~oparg */
#define UA_FUTEX_OP_XOR 4  /* *uaddr ^= oparg */
/* With the operation: oparg is a shift count, the operand 1 << oparg. */
#define UA_FUTEX_OP_OPARG_SHIFT 8u

#define UA_FUTEX_OP_CMP_EQ 0
#define UA_FUTEX_OP_CMP_NE 1
#define UA_FUTEX_OP_CMP_LT 2
#define UA_FUTEX_OP_CMP_LE 3
#define UA_FUTEX_OP_CMP_GT 4
#define UA_FUTEX_OP_CMP_GE 5

/* FUTEX_OP(): the encoded operation futex(2) takes as its last argument. */
#define UA_FUTEX_OP(op, oparg, cmp, cmparg)                              \
	((((op) & 0xfu) << 28) | (((cmp) & 0xfu) << 24) |                 \
	 (((oparg) & 0xfffu) << 12) | ((cmparg) & 0xfffu))

/**
 * ua_futex_atomic_cmpxchg_inatomic() - compare and exchange a guest word
 * @uval: where the word's value before the call is stored
 * @uaddr: the word, 4-byte aligned, in the current space
 * @oldval: the value expected
 * @newval: the value stored if the word holds @oldval
 *
 * One locked compare-and-exchange in a write window.  Whether the word
 * was changed is for the caller to see: it was if *@uval == @oldval.
 *
 * Return: 0; -EFAULT if the word is outside the current space or faults
 * (*@uval is then not written); -EINVAL if @uaddr is not aligned (a
 * locked access across two cache lines may trap as a split lock).
 */
UA_EXPORT UA_MUST_CHECK int
ua_futex_atomic_cmpxchg_inatomic(uint32_t *uval, uint32_t *uaddr,
				 uint32_t oldval, uint32_t newval);

/**
 * ua_futex_atomic_op_inuser() - the operation of FUTEX_WAKE_OP
 * @encoded_op: UA_FUTEX_OP(op, oparg, cmp, cmparg), as futex(2) takes it
 * @uaddr: the word, 4-byte aligned, in the current space
 *
 * Applies op with oparg (sign-extended 12 bits, or 1 << oparg with
 * UA_FUTEX_OP_OPARG_SHIFT) to the word atomically, then compares the
 * word's old value, as a signed int, with cmparg (sign-extended 12 bits).
 * As in the kernel an unknown op changes nothing and an unknown cmp
 * comes after the operation, which stays done.
 *
 * Return: 1 if the comparison holds, 0 if not; -ENOSYS for an unknown
 * op or cmp; -EFAULT if the word is outside the current space or
 * faults; -EINVAL if @uaddr is not aligned.
 */
UA_EXPORT UA_MUST_CHECK int ua_futex_atomic_op_inuser(unsigned int encoded_op,
						      uint32_t *uaddr);

UA_END_DECLS

#endif /* UACCESS_FUTEX_H */
