// SPDX-License-Identifier: MIT
/*
 * Files as a libc uses them, in a fresh directory under $TMPDIR (or
 * /tmp): run natively and under uarun, the output must be the same.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static const char *err_name(int e)
{
	switch (e) {
	case EBADF: return "EBADF";
	case EFAULT: return "EFAULT";
	case ENOENT: return "ENOENT";
	case EEXIST: return "EEXIST";
	case ENOTDIR: return "ENOTDIR";
	case EISDIR: return "EISDIR";
	case ESPIPE: return "ESPIPE";
	case EACCES: return "EACCES";
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	case EPIPE: return "EPIPE";
	case EAGAIN: return "EAGAIN";
	case ENOSYS: return "ENOSYS";
	case ENODEV: return "ENODEV";
	}
	return "other";
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char *names[16];
	int n = 0;

	while (d && (e = readdir(d)) && n < 16)
		if (e->d_name[0] != '.')
			names[n++] = strdup(e->d_name);
	if (d)
		closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), cmp);
	printf("ls:");
	for (int i = 0; i < n; i++) {
		printf(" %s", names[i]);
		free(names[i]);
	}
	printf("\n");
}

/* An address nothing is mapped at, hidden from the compiler's checks. */
static void *volatile bad_ptr = (void *)8;

/*
 * The monitor's own devices, three times over so that under --trap=rewrite
 * the later rounds come through rewritten sites (and the fast path): a
 * read that runs into an inaccessible page stops there, the descriptor's
 * access mode is checked, an empty read is empty.
 */
static void dev_checks(void)
{
	char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int z = open("/dev/zero", O_RDONLY), w = open("/dev/zero", O_WRONLY);
	int n = open("/dev/null", O_RDONLY);
	ssize_t r;

	if (p == MAP_FAILED || mprotect(p + 4096, 4096, PROT_NONE)) {
		printf("dev: mmap failed\n");
		return;
	}
	for (int i = 0; i < 3; i++) {
		memset(p + 3996, 1, 100);
		r = read(z, p + 3996, 300);
		printf("/dev/zero across a hole: %zd %d\n", r,
		       p[3996] + p[4095]);
		r = read(w, p, 10);
		printf("/dev/zero write-only read: %zd %s\n", r,
		       err_name(errno));
		r = write(n, p, 10);
		printf("/dev/null read-only write: %zd %s\n", r,
		       err_name(errno));
		printf("/dev/zero write: %zd\n", write(w, p, 4096));
		printf("/dev/zero empty read: %zd\n", read(z, p, 0));
	}
	close(z);
	close(w);
	close(n);
	munmap(p, 8192);
}

/*
 * File maps are the file's pages: a shared map's stores reach the file
 * and a write() shows in the map; a private map's stores stay its own,
 * and a later write() to a page it never stored to shows in it (it
 * maps the page cache until a store copies the page).  A read-only
 * descriptor refuses a shared writable map, at mmap() or mprotect()
 * (EACCES).
 */
static void map_checks(int fd)
{
	long pg = sysconf(_SC_PAGESIZE);
	char page[8192] = { 0 }, buf[8];
	char *sh, *pv;
	int ro;

	memcpy(page, "shared", 6);
	memcpy(page + pg, "second", 6);
	if (pwrite(fd, page, 2 * pg, 0) != 2 * pg)
		printf("map: pwrite failed\n");
	sh = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	pv = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (sh == MAP_FAILED || pv == MAP_FAILED) {
		printf("map: mmap failed %s\n", err_name(errno));
		return;
	}
	memcpy(sh, "SHARED", 6);
	memset(buf, 0, sizeof(buf));
	printf("map shared store reaches the file: %zd '%s'\n",
	       pread(fd, buf, 6, 0), buf);
	printf("map private sees it before storing: '%.6s'\n", pv);
	memcpy(pv, "mine", 4);
	printf("map private store stays: '%.6s' file '%.6s'\n", pv, sh);
	if (pwrite(fd, "SECOND", 6, pg) != 6)
		printf("map: pwrite failed\n");
	printf("map write shows: shared '%.6s' private '%.6s'\n", sh + pg,
	       pv + pg);
	munmap(sh, 2 * pg);
	munmap(pv, 2 * pg);
	ro = open("map.bin", O_RDONLY);
	sh = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0);
	printf("map shared writable of a read-only fd: %s\n",
	       sh == MAP_FAILED ? err_name(errno) : "mapped");
	/* Nor made writable afterwards; the map stays readable. */
	sh = mmap(NULL, pg, PROT_READ, MAP_SHARED, ro, 0);
	printf("mprotect it writable: %s, still reads '%.6s'\n",
	       mprotect(sh, pg, PROT_READ | PROT_WRITE) ? err_name(errno) :
							  "done",
	       sh);
	munmap(sh, pg);
	close(ro);
}

/*
 * epoll over a pipe: nothing ready (timeout 0), the read end ready with
 * the caller's data word once written, EPOLLOUT on the write end, the
 * kernel's errors for a bad op, descriptor and event count, EPERM for
 * /dev/null, and a closed descriptor leaving the set.
 */
static void epoll_checks(void)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 0x1122334455667788ull };
	struct epoll_event out[4];
	int ep = epoll_create1(EPOLL_CLOEXEC), p[2], nul, n;

	if (ep < 0 || pipe(p)) {
		printf("epoll: create failed %s\n", err_name(errno));
		return;
	}
	printf("epoll add: %d\n", epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev));
	n = epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
	printf("epoll add again: %d %s\n", n, err_name(errno));
	printf("epoll wait empty: %d\n", epoll_wait(ep, out, 4, 0));
	if (write(p[1], "x", 1) != 1)
		printf("epoll: write failed\n");
	n = epoll_wait(ep, out, 4, 1000);
	printf("epoll wait: %d events %x data %llx\n", n, out[0].events,
	       (unsigned long long)out[0].data.u64);
	ev = (struct epoll_event){ .events = EPOLLOUT, .data.fd = p[1] };
	epoll_ctl(ep, EPOLL_CTL_ADD, p[1], &ev);
	ev.events = EPOLLIN | EPOLLOUT;
	printf("epoll mod: %d\n", epoll_ctl(ep, EPOLL_CTL_MOD, p[1], &ev));
	printf("epoll wait two: %d\n", epoll_wait(ep, out, 4, 0));
	printf("epoll del: %d\n", epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL));
	n = epoll_wait(ep, out, 4, 0);
	printf("epoll wait one: %d fd ok %d\n", n, out[0].data.fd == p[1]);
	n = epoll_wait(ep, out, 0, 0);
	printf("epoll wait 0 events: %d %s\n", n, err_name(errno));
	n = epoll_ctl(ep, EPOLL_CTL_ADD, 99, &ev);
	printf("epoll bad fd: %d %s\n", n, err_name(errno));
	n = epoll_ctl(p[0], EPOLL_CTL_ADD, p[1], &ev);
	printf("epoll not epoll: %d %s\n", n, err_name(errno));
	nul = open("/dev/null", O_RDONLY);
	n = epoll_ctl(ep, EPOLL_CTL_ADD, nul, &ev);
	printf("epoll /dev/null: %d %s\n", n, err_name(errno));
	close(nul);
	close(p[1]);
	printf("epoll after close: %d\n", epoll_wait(ep, out, 4, 0));
	close(p[0]);
	close(ep);
}

/* One sendfile: its result or error, and where in's position is now. */
static void show_sendfile(const char *what, int out, int in, off_t *off,
			  size_t count)
{
	ssize_t n = sendfile(out, in, off, count);

	printf("sendfile %s: %zd %s in at %ld", what, n,
	       n < 0 ? err_name(errno) : "", (long)lseek(in, 0, SEEK_CUR));
	if (off)
		printf(" off %ld", (long)*off);
	printf("\n");
}

/*
 * Record locks and flock() are the host's: a child sees the parent's
 * (with its pid) and cannot take them; pipe sizes; mkfifo.
 */
static void lock_checks(void)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = 0, .l_len = 10 };
	int fd = open("lock.bin", O_CREAT | O_RDWR | O_TRUNC, 0644), p[2], r;
	char buf[16];
	struct stat st;
	pid_t parent = getpid(), pid;

	printf("F_SETLK: %d\n", fcntl(fd, F_SETLK, &fl));
	printf("flock: %d\n", flock(fd, LOCK_EX));
	pid = fork();
	if (!pid) {
		int cfd = open("lock.bin", O_RDWR);
		struct flock q = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
				   .l_start = 5, .l_len = 1 };

		r = fcntl(cfd, F_GETLK, &q);
		printf("child F_GETLK: %d type %s start %ld len %ld parent %d\n",
		       r, q.l_type == F_WRLCK ? "F_WRLCK" : "other",
		       (long)q.l_start, (long)q.l_len, q.l_pid == parent);
		q.l_type = F_RDLCK;
		r = fcntl(cfd, F_SETLK, &q);
		printf("child F_SETLK: %d %s\n", r, err_name(errno));
		q.l_type = F_WRLCK;
		q.l_pid = 0;
		r = fcntl(cfd, F_OFD_GETLK, &q);
		printf("child F_OFD_GETLK: %d type %s parent %d\n", r,
		       q.l_type == F_WRLCK ? "F_WRLCK" : "other",
		       q.l_pid == parent);
		r = flock(cfd, LOCK_EX | LOCK_NB);
		printf("child flock: %d %s\n", r, err_name(errno));
		r = flock(cfd, LOCK_SH | LOCK_EX);
		printf("child flock bad op: %d %s\n", r, err_name(errno));
		r = fcntl(cfd, F_GETLK, (void *)8);
		printf("child F_GETLK bad pointer: %d %s\n", r, err_name(errno));
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	fl.l_type = F_UNLCK;
	printf("unlock: %d %d\n", fcntl(fd, F_SETLK, &fl), flock(fd, LOCK_UN));
	close(fd);
	unlink("lock.bin");
	pipe(p);
	printf("F_SETPIPE_SZ: %d\n", fcntl(p[1], F_SETPIPE_SZ, 8192));
	printf("F_GETPIPE_SZ: %d\n", fcntl(p[0], F_GETPIPE_SZ));
	fd = open("/dev/null", O_RDONLY);
	r = fcntl(fd, F_GETPIPE_SZ);
	printf("F_GETPIPE_SZ /dev/null: %d %s\n", r, err_name(errno));
	close(fd);
	close(p[0]);
	close(p[1]);
	fd = open("alloc.bin", O_CREAT | O_RDWR | O_TRUNC, 0644);
	r = fallocate(fd, 0, 0, 8192);
	printf("fallocate: %d size %ld\n", r, (long)lseek(fd, 0, SEEK_END));
	pipe(p);
	write(p[1], "spliced", 7);
	int q[2];

	pipe(q);
	r = (int)tee(p[0], q[1], 3, SPLICE_F_NONBLOCK);
	memset(buf, 0, sizeof(buf));
	printf("tee: %d '%.*s'\n", r, (int)read(q[0], buf, 15), buf);
	r = (int)tee(p[0], p[1], 3, 0);
	printf("tee to itself: %d %s\n", r, err_name(errno));
	close(q[0]);
	close(q[1]);
	loff_t off = 100;
	r = (int)splice(p[0], NULL, fd, &off, 10, 0);
	printf("splice: %d off %ld\n", r, (long)off);
	memset(buf, 0, sizeof(buf));
	printf("spliced: '%s'\n", pread(fd, buf, 10, 100) > 0 ? buf : "");
	r = (int)splice(p[0], NULL, fd, (loff_t *)8, 1, 0);
	printf("splice bad offset: %d %s\n", r, err_name(errno));
	r = fallocate(p[0], 0, 0, 10);
	printf("fallocate pipe: %d %s\n", r, err_name(errno));
	close(p[0]);
	close(p[1]);
	close(fd);
	unlink("alloc.bin");
	r = mkfifo("fifo", 0600);
	printf("mkfifo: %d fifo %d\n", r, !stat("fifo", &st) && S_ISFIFO(st.st_mode));
	r = mkfifo("fifo", 0600);
	printf("mkfifo again: %d %s\n", r, err_name(errno));
	unlink("fifo");
}

/*
 * EPIPE's SIGPIPE is an ordinary signal to the writer (send_sig()): with
 * it ignored the write fails alone, with it blocked it waits pending,
 * from the writer itself.  Pipes and stream sockets alike.
 */
static void sigpipe_checks(void)
{
	sigset_t set;
	siginfo_t si;
	int p[2], sv[2], r;

	pipe(p);
	close(p[0]);
	r = (int)write(p[1], "x", 1);
	printf("SIGPIPE ignored, write: %d %s\n", r, err_name(errno));
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_DFL);
	r = (int)write(p[1], "x", 1);
	printf("SIGPIPE blocked, write: %d %s\n", r, err_name(errno));
	r = sigtimedwait(&set, &si, &(struct timespec){ 0, 0 });
	printf("  pending: %d code %d from self %d\n", r, si.si_code,
	       si.si_pid == getpid());
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	close(sv[1]);
	r = (int)send(sv[0], "x", 1, 0);
	printf("SIGPIPE blocked, send: %d %s\n", r, err_name(errno));
	r = sigtimedwait(&set, &si, &(struct timespec){ 0, 0 });
	printf("  pending: %d code %d from self %d\n", r, si.si_code,
	       si.si_pid == getpid());
	r = (int)send(sv[0], "x", 1, MSG_NOSIGNAL);
	printf("MSG_NOSIGNAL, send: %d %s\n", r, err_name(errno));
	r = sigtimedwait(&set, &si, &(struct timespec){ 0, 0 });
	printf("  pending: %d %s\n", r, err_name(errno));
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	close(sv[0]);
	close(p[1]);
}

/*
 * sendfile between files, to a pipe, to and from the devices the
 * monitor serves itself, and its refusals.
 */
static void sendfile_checks(void)
{
	char buf[64] = "";
	int src = open("src.bin", O_CREAT | O_RDWR | O_TRUNC, 0644);
	int dst = open("dst.bin", O_CREAT | O_RDWR | O_TRUNC, 0644);
	int null = open("/dev/null", O_WRONLY), zero = open("/dev/zero", 0);
	int p[2], sfd, app, dev[3];
	sigset_t set;
	off_t off = 2;

	write(src, "0123456789", 10);
	lseek(src, 3, SEEK_SET);
	show_sendfile("file", dst, src, NULL, 4);
	show_sendfile("at offset", dst, src, &off, 100);
	show_sendfile("at the end", dst, src, NULL, 100);
	printf("sendfile wrote: %zd '%s'\n", pread(dst, buf, 63, 0), buf);
	lseek(src, 0, SEEK_SET);
	show_sendfile("to /dev/null", null, src, NULL, 6);
	/* The monitor's host device for it, opened once, then reused. */
	show_sendfile("to /dev/null again", null, src, NULL, 3);
	dev[0] = open("/dev/null", O_WRONLY | O_APPEND);
	dev[1] = open("/dev/null", O_RDONLY);
	dev[2] = open("/dev/null", O_PATH);
	for (int i = 0; i < 2; i++) {
		show_sendfile("to O_APPEND /dev/null", dev[0], src, NULL, 1);
		show_sendfile("to read-only /dev/null", dev[1], src, NULL, 1);
		show_sendfile("to O_PATH /dev/null", dev[2], src, NULL, 1);
	}
	for (int i = 0; i < 3; i++)
		close(dev[i]);
	show_sendfile("from /dev/zero", dst, zero, NULL, 5);
	pipe(p);
	show_sendfile("to a pipe", p[1], src, NULL, 100);
	memset(buf, 0, sizeof(buf));
	printf("sendfile piped: %zd '%s'\n", read(p[0], buf, 63), buf);
	show_sendfile("from a pipe", dst, p[0], NULL, 1);
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	show_sendfile("to a broken pipe", p[1], src, NULL, 1);
	close(p[1]);
	sigpipe_checks();
	/* A file kind whose sendfile can sleep: it has its bytes here. */
	if (!socketpair(AF_UNIX, SOCK_STREAM, 0, p)) {
		write(p[1], "sock", 4);
		show_sendfile("from a socket", dst, p[0], NULL, 4);
		close(p[0]);
		close(p[1]);
	}
	show_sendfile("from write-only", dst, null, NULL, 1);
	show_sendfile("bad fd", dst, 77, NULL, 1);
	app = open("dst.bin", O_WRONLY | O_APPEND);
	show_sendfile("to O_APPEND", app, src, NULL, 1);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sfd = signalfd(-1, &set, 0);
	lseek(src, 0, SEEK_SET);
	show_sendfile("from a signalfd", dst, sfd, NULL, 1);
	show_sendfile("to a signalfd", sfd, src, NULL, 1);
	show_sendfile("from /dev/zero to /dev/null", null, zero, NULL, 3);
	close(sfd);
	close(app);
	close(zero);
	close(null);
	close(dst);
	close(src);
	unlink("src.bin");
	unlink("dst.bin");
}

int main(void)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char dir[4096], buf[64];
	struct iovec iov[3];
	struct stat st;
	int fd, p[2], r;

	setvbuf(stdout, NULL, _IONBF, 0);
	snprintf(dir, sizeof(dir), "%s/uarun-files-XXXXXX", tmp);
	if (!mkdtemp(dir) || chdir(dir))
		return 10;
	fd = open("a.txt", O_CREAT | O_RDWR | O_TRUNC, 0644);
	printf("open: %d\n", fd >= 3);
	printf("write: %zd\n", write(fd, "hello, ", 7));
	iov[0] = (struct iovec){ "wor", 3 };
	iov[1] = (struct iovec){ NULL, 0 };
	iov[2] = (struct iovec){ "ld\n", 3 };
	printf("writev: %zd\n", writev(fd, iov, 3));
	printf("lseek: %ld\n", (long)lseek(fd, 0, SEEK_SET));
	memset(buf, 0, sizeof(buf));
	printf("read: %zd '%.5s'\n", read(fd, buf, 5), buf);
	memset(buf, 0, sizeof(buf));
	printf("pread: %zd '%s'\n", pread(fd, buf, sizeof(buf), 7), buf);
	printf("pwrite: %zd\n", pwrite(fd, "W", 1, 7));
	fstat(fd, &st);
	printf("fstat: size=%ld reg=%d\n", (long)st.st_size,
	       S_ISREG(st.st_mode));
	close(fd);
	stat("a.txt", &st);
	printf("stat: size=%ld mode=%o\n", (long)st.st_size,
	       (unsigned)(st.st_mode & 0777));
	printf("mkdir: %d\n", mkdir("sub", 0755));
	r = mkdir("sub", 0755);
	printf("mkdir again: %d %s\n", r, err_name(errno));
	printf("rename: %d\n", rename("a.txt", "sub/b.txt"));
	list_dir("sub");
	list_dir(".");
	fd = open("sub/b.txt", O_RDONLY);
	memset(buf, 0, sizeof(buf));
	printf("reopen: %zd '%s'", read(fd, buf, sizeof(buf)), buf);
	int d = dup(fd), d2 = dup2(fd, 20);
	printf("dup: %d dup2: %d\n", d > fd, d2);
	printf("lseek dup: %ld\n", (long)lseek(d, 1, SEEK_SET));
	close(d);
	close(d2);
	close(fd);
	printf("pipe: %d\n", pipe(p));
	printf("pipe write: %zd\n", write(p[1], "through", 7));
	memset(buf, 0, sizeof(buf));
	printf("pipe read: %zd '%s'\n", read(p[0], buf, sizeof(buf)), buf);
	r = (int)lseek(p[0], 0, SEEK_SET);
	printf("pipe lseek: %d %s\n", r, err_name(errno));
	close(p[0]);
	close(p[1]);
	r = (int)read(77, buf, 1);
	printf("EBADF: %d %s\n", r, err_name(errno));
	fd = open("sub/b.txt", O_RDONLY);
	r = (int)read(fd, bad_ptr, 4);
	printf("EFAULT read: %d %s\n", r, err_name(errno));
	r = (int)write(1, bad_ptr, 4);
	printf("EFAULT write: %d %s\n", r, err_name(errno));
	r = stat((const char *)bad_ptr, &st);
	printf("EFAULT stat: %d %s\n", r, err_name(errno));
	close(fd);
	r = open("no/such/file", O_RDONLY);
	printf("ENOENT: %d %s\n", r, err_name(errno));
	fd = open("/dev/zero", O_RDONLY);
	memset(buf, 1, sizeof(buf));
	printf("/dev/zero: %zd %d\n", read(fd, buf, sizeof(buf)),
	       buf[0] + buf[63]);
	close(fd);
	fd = open("/dev/null", O_RDWR);
	printf("/dev/null: %zd %zd\n", write(fd, buf, 10), read(fd, buf, 10));
	close(fd);
	dev_checks();
	epoll_checks();
	sendfile_checks();
	lock_checks();
	fd = open("map.bin", O_CREAT | O_RDWR | O_TRUNC, 0644);
	map_checks(fd);
	close(fd);
	printf("unlink map: %d\n", unlink("map.bin"));
	printf("unlink: %d\n", unlink("sub/b.txt"));
	r = unlink("sub/b.txt");
	printf("unlink again: %d %s\n", r, err_name(errno));
	printf("rmdir: %d\n", rmdir("sub"));
	if (chdir("/") || rmdir(dir))
		return 11;
	printf("done\n");
	return 0;
}
