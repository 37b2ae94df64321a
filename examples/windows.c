// SPDX-License-Identifier: MIT
/*
 * Access windows: one range check and one protection switch for many
 * guest accesses, as the kernel's fast paths use user_access_begin().
 * sys_fstat() fills a guest struct inside an explicit write window;
 * sys_sum() reads a guest array inside a scoped read window, which closes
 * itself on every way out of its block (fault, early return, fall-through).
 *
 *   cc windows.c $(pkg-config --cflags --libs uaccess)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#include <uaccess.h>

struct guest_stat {
	uint64_t ino;
	uint64_t size;
	uint32_t mode;
	uint32_t nlink;
};

static long sys_fstat(int fd, struct guest_stat *ust)
{
	if (!ua_user_write_access_begin(ust, sizeof(*ust)))
		return -EFAULT;
	ua_unsafe_put_user(1000 + fd, &ust->ino, efault);
	ua_unsafe_put_user(4096, &ust->size, efault);
	ua_unsafe_put_user(0100644, &ust->mode, efault);
	ua_unsafe_put_user(1, &ust->nlink, efault);
	ua_user_write_access_end();
	return 0;
efault:
	/* The window is still open at the label, as in the kernel. */
	ua_user_write_access_end();
	return -EFAULT;
}

static long sys_sum(const uint32_t *uarr, size_t n, uint64_t *usum)
{
	uint64_t sum = 0;

	if (n > SIZE_MAX / sizeof(*uarr))
		return -EINVAL;
	ua_scoped_user_read_access_size(uarr, n * sizeof(*uarr), efault) {
		for (size_t i = 0; i < n; i++) {
			uint32_t v;

			ua_unsafe_get_user(v, &uarr[i], efault);
			if (v == UINT32_MAX)
				return -EINVAL; /* closes the window too */
			sum += v;
		}
	}
	ua_scoped_user_write_access(usum, efault) {
		ua_unsafe_put_user(sum, usum, efault);
	}
	return 0;
efault:
	return -EFAULT;
}

static void show_stats(const char *what)
{
	struct ua_stats st;

	ua_stats_get(&st);
	printf("  %s: %llu windows, %llu switches, %llu faults recovered\n",
	       what, (unsigned long long)st.windows,
	       (unsigned long long)st.switches,
	       (unsigned long long)st.fixups);
	ua_stats_reset();
}

int main(void)
{
	static const uint32_t values[4] = { 10, 20, 30, 40 };
	struct ua_space *sp = ua_space_create(1 << 20, NULL);
	struct guest_stat st;
	uint64_t sum = 0;
	char *g, *end;

	if (!sp) {
		perror("ua_space_create");
		return 1;
	}
	ua_space_use(sp);
	g = ua_map(sp, NULL, 4096, PROT_READ | PROT_WRITE);
	if (!g || ua_copy_to_user(g + 256, values, sizeof(values)))
		return 1;
	end = g + 4096; /* the page after is not mapped */
	ua_stats_reset();

	printf("sys_fstat: %ld\n", sys_fstat(3, (struct guest_stat *)g));
	show_stats("one window for four stores");
	if (ua_copy_from_user(&st, g, sizeof(st)))
		return 1;
	printf("  ino %llu, size %llu, mode %o, nlink %u\n",
	       (unsigned long long)st.ino, (unsigned long long)st.size,
	       st.mode, st.nlink);
	ua_stats_reset();

	printf("sys_fstat, struct across the end of the mapping: %ld\n",
	       sys_fstat(3, (struct guest_stat *)(end - 8)));
	printf("sys_fstat, monitor pointer: %ld\n", sys_fstat(3, &st));
	show_stats("after the bad pointers");

	printf("sys_sum: %ld\n", sys_sum((uint32_t *)(g + 256), 4,
					 (uint64_t *)(g + 512)));
	show_stats("two scoped windows");
	if (ua_get_user(sum, (uint64_t *)(g + 512)))
		return 1;
	printf("  sum %llu\n", (unsigned long long)sum);
	if (ua_put_user(UINT32_MAX, (uint32_t *)(g + 260)))
		return 1;
	ua_stats_reset();
	printf("sys_sum, array runs off the mapping: %ld\n",
	       sys_sum((uint32_t *)(end - 8), 4, (uint64_t *)(g + 512)));
	printf("sys_sum, bad element: %ld\n",
	       sys_sum((uint32_t *)(g + 256), 4, (uint64_t *)(g + 512)));
	show_stats("each closed its window on the way out");

	ua_space_use(NULL);
	ua_space_destroy(sp);
	return 0;
}
