// SPDX-License-Identifier: MIT
/* Quick start: a guest space, checked accessors, a window, a fault. */
#include <stdio.h>
#include <uaccess.h>

struct point { int x, y; };

int main(void)
{
	struct ua_space *sp = ua_space_create(1 << 20, NULL); /* 1 MiB */
	struct point p = { 3, 4 }, q = { 0, 0 }, *g;
	char buf[16];

	if (!sp || !(g = ua_map(sp, NULL, 4096, PROT_READ | PROT_WRITE)))
		return perror("uaccess"), 1;
	ua_space_use(sp); /* the accessors of this thread check against sp */
	if (ua_copy_to_user(g, &p, sizeof(p)) || ua_get_user(q.y, &g->y))
		return 1;
	printf("copied in, read back y = %d\n", q.y);
	if (!ua_user_read_access_begin(g, sizeof(*g))) /* one window, */
		return 1;
	ua_unsafe_get_user(q.x, &g->x, fault);         /* two loads */
	ua_unsafe_get_user(q.y, &g->y, fault);
	ua_user_read_access_end();
	printf("window: (%d, %d)\n", q.x, q.y);
	printf("bytes not copied across the end of the page: %zu\n",
	       ua_copy_from_user(buf, (char *)g + 4090, sizeof(buf)));
	printf("monitor pointer: %d\n", ua_get_user(q.x, &p.x)); /* -EFAULT */
	ua_space_use(NULL);
	ua_space_destroy(sp);
	return 0;
fault:
	ua_user_read_access_end(); /* the window is still open at the label */
	return 1;
}
