// SPDX-License-Identifier: MIT
/*
 * iov_iter: one read routine serves the guest's readv() (buffers in guest
 * memory, checked) and the monitor's own reads (buffers in monitor memory)
 * with no address-limit override: the iterator's type decides.  A guest
 * buffer that faults gives a short count, never a crash.
 *
 *   cc readv.c $(pkg-config --cflags --libs uaccess)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include <uaccess.h>

static const char file_data[] = "The quick brown fox jumps over the lazy dog";

/* The one read routine: file contents from @pos into any iterator. */
static size_t file_read(size_t pos, struct ua_iov_iter *to)
{
	size_t len = sizeof(file_data) - 1;
	size_t n = ua_iov_iter_count(to);

	if (pos >= len)
		return 0;
	if (n > len - pos)
		n = len - pos;
	return ua_copy_to_iter(file_data + pos, n, to);
}

/* The guest's readv(): its iovec array and buffers are in guest memory. */
static long sys_readv(const struct iovec *uvec, unsigned long nr, size_t pos)
{
	struct ua_iov_iter it;
	long ret = ua_import_iovec(&it, UA_ITER_DEST, uvec, nr);

	if (ret < 0)
		return ret;
	ret = (long)file_read(pos, &it);
	ua_iov_iter_release(&it);
	return ret;
}

/* The guest's writev() into a monitor log: skips a 4-byte header. */
static long sys_writev(const struct iovec *uvec, unsigned long nr, char *log,
		       size_t size)
{
	struct ua_iov_iter it;
	long ret = ua_import_iovec(&it, UA_ITER_SOURCE, uvec, nr);

	if (ret < 0)
		return ret;
	ua_iov_iter_advance(&it, 4);
	ret = (long)ua_copy_from_iter(log, size - 1, &it);
	log[ret] = 0;
	ua_iov_iter_release(&it);
	return ret;
}

static void show_guest(const char *label, const char *g, size_t n)
{
	char buf[64];

	if (ua_copy_from_user(buf, g, n))
		printf("  %s: (unreadable)\n", label);
	else
		printf("  %s: \"%.*s\"\n", label, (int)n, buf);
}

int main(void)
{
	struct ua_space *sp = ua_space_create(1 << 20, NULL);
	char mon1[10] = { 0 }, mon2[10] = { 0 }, log[32];
	struct iovec kv[2] = { { mon1, 9 }, { mon2, 6 } };
	struct iovec uv[3];
	struct ua_iov_iter it;
	char *g, *end;

	if (!sp) {
		perror("ua_space_create");
		return 1;
	}
	ua_space_use(sp);
	g = ua_map(sp, NULL, 4096, PROT_READ | PROT_WRITE);
	if (!g)
		return 1;
	end = g + 4096; /* not mapped */

	/* Three guest buffers; the array itself also lives in the guest. */
	uv[0] = (struct iovec){ g + 100, 4 };
	uv[1] = (struct iovec){ g + 200, 6 };
	uv[2] = (struct iovec){ g + 300, 10 };
	if (ua_copy_to_user(g, uv, sizeof(uv)))
		return 1;
	printf("guest readv at 4: %ld\n", sys_readv((struct iovec *)g, 3, 4));
	show_guest("iov[0]", g + 100, 4);
	show_guest("iov[1]", g + 200, 6);
	show_guest("iov[2]", g + 300, 10);

	/* The same routine into monitor buffers. */
	ua_iov_iter_kvec(&it, UA_ITER_DEST, kv, 2);
	printf("monitor read at 16: %zu\n", file_read(16, &it));
	printf("  kvec: \"%s\" \"%s\"\n", mon1, mon2);

	/* The second buffer runs off the mapping: a short count. */
	uv[1] = (struct iovec){ end - 3, 6 };
	if (ua_copy_to_user(g, uv, sizeof(uv)))
		return 1;
	printf("guest readv, buffer runs off the mapping: %ld\n",
	       sys_readv((struct iovec *)g, 3, 0));
	show_guest("iov[1] (first 3 bytes)", end - 3, 3);

	/* An iovec array in unmapped memory. */
	printf("guest readv, array unmapped: %ld\n",
	       sys_readv((struct iovec *)end, 3, 0));

	/* writev: skip a header, gather the rest into the monitor's log. */
	if (ua_copy_to_user(g + 100, "HDR:hello", 9) ||
	    ua_copy_to_user(g + 200, ", world", 7))
		return 1;
	uv[0] = (struct iovec){ g + 100, 9 };
	uv[1] = (struct iovec){ g + 200, 7 };
	if (ua_copy_to_user(g, uv, 2 * sizeof(uv[0])))
		return 1;
	printf("guest writev: %ld", sys_writev((struct iovec *)g, 2, log,
						sizeof(log)));
	printf(", log \"%s\"\n", log);

	/* Zeroing through an iterator: "read" past the end of the file. */
	if (ua_import_iovec(&it, UA_ITER_DEST, (struct iovec *)g, 1) != 9)
		return 1;
	printf("zeroed: %zu\n", ua_iov_iter_zero(9, &it));
	ua_iov_iter_release(&it);
	printf("  check_zeroed_user: %d\n", ua_check_zeroed_user(g + 100, 9));

	ua_space_use(NULL);
	ua_space_destroy(sp);
	return 0;
}
