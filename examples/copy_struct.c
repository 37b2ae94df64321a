// SPDX-License-Identifier: MIT
/*
 * A monitor reads an extensible struct and a string from a guest space,
 * the way a system call handler would, and survives a hostile pointer.
 *
 *   cc copy_struct.c $(pkg-config --cflags --libs uaccess)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <uaccess.h>

struct open_how {
	unsigned long long flags, mode, resolve;
};

/* The "system call": copy in a struct and a path from the guest. */
static long sys_openat2(const char *upath, const void *uhow, size_t usize)
{
	struct open_how how;
	char path[256];
	long len;
	int err;

	err = ua_copy_struct_from_user(&how, sizeof(how), uhow, usize);
	if (err)
		return err;
	len = ua_strncpy_from_user(path, upath, sizeof(path));
	if (len < 0)
		return len;
	if (len == sizeof(path))
		return -ENAMETOOLONG;
	printf("openat2(\"%s\", flags=%#llx, mode=%#llo)\n", path, how.flags,
	       how.mode);
	return 0;
}

int main(void)
{
	struct ua_space *sp = ua_space_create(1 << 20, NULL);
	struct open_how how = { .flags = 0x42, .mode = 0644 };
	struct ua_stats st;
	char *g;
	long ret;

	if (!sp) {
		perror("ua_space_create");
		return 1;
	}
	ua_space_use(sp);
	g = ua_map(sp, NULL, 4096, PROT_READ | PROT_WRITE);
	if (!g || ua_copy_to_user(g, "/etc/hostname", 14) ||
	    ua_copy_to_user(g + 64, &how, sizeof(how)))
		return 1;

	ret = sys_openat2(g, g + 64, sizeof(how));
	printf("valid arguments: %ld\n", ret);
	ret = sys_openat2(g, g + 4096, sizeof(how));
	printf("struct on an unmapped page: %ld (-EFAULT is %d)\n", ret,
	       -EFAULT);
	ret = sys_openat2((const char *)&how, g + 64, sizeof(how));
	printf("monitor pointer as the path: %ld\n", ret);

	ua_stats_get(&st);
	printf("protection: %s, switches: %llu, windows: %llu, fixups: %llu\n",
	       ua_protect_name(ua_space_protect(sp)),
	       (unsigned long long)st.switches,
	       (unsigned long long)st.windows,
	       (unsigned long long)st.fixups);
	ua_space_destroy(sp);
	return 0;
}
