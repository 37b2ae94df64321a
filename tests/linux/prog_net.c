// SPDX-License-Identifier: MIT
/*
 * Sockets natively and under uarun (run_programs.py compares the output
 * byte for byte): an AF_UNIX pair, a loopback TCP server and client in
 * one program, UDP datagrams with their addresses, sendmmsg and
 * recvmmsg, options, and the errors of bad arguments.  Only 127.0.0.1,
 * ports the host picks.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "prog_res.h"

static void report(const char *what, long r)
{
	printf("%s: %ld %s\n", what, r, r < 0 ? errno_name(errno) : "");
}

static void unix_pair(void)
{
	int sv[2];
	int *volatile bad = (int *)8;
	char buf[16] = { 0 };

	report("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	report("send", send(sv[0], "ping", 4, 0));
	report("recv", recv(sv[1], buf, sizeof(buf), 0));
	printf("got %s\n", buf);
	report("shutdown", shutdown(sv[0], SHUT_WR));
	report("recv after shutdown", recv(sv[1], buf, sizeof(buf), 0));
	printf("cloexec %d\n", fcntl(sv[0], F_GETFD));
	close(sv[0]);
	close(sv[1]);
	report("socketpair cloexec nonblock",
	       socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			  0, sv));
	printf("cloexec %d nonblock %d\n", fcntl(sv[0], F_GETFD),
	       !!(fcntl(sv[0], F_GETFL) & O_NONBLOCK));
	report("recv empty nonblock", recv(sv[1], buf, sizeof(buf), 0));
	close(sv[0]);
	close(sv[1]);
	report("socketpair bad pointer",
	       socketpair(AF_UNIX, SOCK_STREAM, 0, bad));
}

static void tcp(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET }, b, p;
	socklen_t len = sizeof(a), short_len = 2;
	int ls, c, s, one = 1, val = 0;
	socklen_t vlen = sizeof(val);
	char buf[64] = { 0 };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	report("setsockopt SO_REUSEADDR",
	       setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)));
	report("getsockopt SO_REUSEADDR",
	       getsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &val, &vlen));
	printf("value %d len %u\n", val, vlen);
	report("bind", bind(ls, (struct sockaddr *)&a, sizeof(a)));
	report("getsockname", getsockname(ls, (struct sockaddr *)&b, &len));
	printf("family %d loopback %d port set %d\n", b.sin_family,
	       b.sin_addr.s_addr == htonl(INADDR_LOOPBACK), b.sin_port != 0);
	report("listen", listen(ls, 4));
	c = socket(AF_INET, SOCK_STREAM, 0);
	one = connect(c, (struct sockaddr *)&b, sizeof(b));
	report("connect", one);
	/* No loopback here (a VM's lo down): nothing to accept. */
	if (one < 0) {
		close(c);
		close(ls);
		return;
	}
	len = sizeof(p);
	s = accept4(ls, (struct sockaddr *)&p, &len, SOCK_CLOEXEC);
	printf("accept4: %d len %u family %d cloexec %d\n", s >= 0, len,
	       p.sin_family, fcntl(s, F_GETFD));
	report("send", send(c, "hello over tcp", 14, 0));
	report("recv", recv(s, buf, sizeof(buf), 0));
	printf("got %s\n", buf);
	report("write back", write(s, "ok", 2));
	memset(buf, 0, sizeof(buf));
	report("read", read(c, buf, sizeof(buf)));
	printf("got %s\n", buf);
	len = sizeof(p);
	report("getpeername", getpeername(c, (struct sockaddr *)&p, &len));
	printf("peer port matches %d\n", p.sin_port == b.sin_port);
	report("getpeername short", getpeername(c, (struct sockaddr *)&p,
						&short_len));
	printf("short len now %u\n", short_len);
	one = 1;
	report("TCP_NODELAY", setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one,
					 sizeof(one)));
	close(s);
	report("recv after close", recv(c, buf, sizeof(buf), 0));
	report("send after close (MSG_NOSIGNAL)",
	       send(c, "x", 1, MSG_NOSIGNAL));
	close(c);
	close(ls);
}

static void udp(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET }, b, from;
	socklen_t len = sizeof(b), flen = sizeof(from);
	int u = socket(AF_INET, SOCK_DGRAM, 0), v;
	char buf[32] = { 0 };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(u, (struct sockaddr *)&a, sizeof(a));
	getsockname(u, (struct sockaddr *)&b, &len);
	v = socket(AF_INET, SOCK_DGRAM, 0);
	report("sendto", sendto(v, "datagram", 8, 0, (struct sockaddr *)&b,
				sizeof(b)));
	report("recvfrom", recvfrom(u, buf, sizeof(buf), 0,
				    (struct sockaddr *)&from, &flen));
	printf("got %s from loopback %d len %u\n", buf,
	       from.sin_addr.s_addr == htonl(INADDR_LOOPBACK), flen);
	close(u);
	close(v);
}

static void errors(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0), n = -1;
	socklen_t bad = (socklen_t)-1;
	char c;

	report("socket bad domain", socket(12345, SOCK_STREAM, 0));
	report("bind bad length", bind(s, (struct sockaddr *)&c, 1000));
	report("bind bad pointer", bind(s, (struct sockaddr *)8, 16));
	report("connect bad fd", connect(999, (struct sockaddr *)&c, 0));
	report("getsockopt negative len",
	       getsockopt(s, SOL_SOCKET, SO_TYPE, &n, &bad));
	report("accept4 bad flags", accept4(s, NULL, NULL, 0x40000000));
	report("recv not a socket", recv(0, &c, 1, MSG_DONTWAIT));
	report("getsockname not a socket",
	       getsockname(1, (struct sockaddr *)&c, &bad));
	report("listen unbound unix",
	       listen(socket(AF_UNIX, SOCK_DGRAM, 0), 1));
	close(s);
}

/* A descriptor passed over a unix socket, and a gathered message. */
static void rights(void)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov[2] = { { "part one, ", 10 }, { "part two", 8 } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	char a[8] = { 0 }, b[16] = { 0 }, got[8] = { 0 };
	struct iovec riov[2] = { { a, 7 }, { b, 15 } };
	int sv[2], pfd[2], fd = -1, fd2;

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	pipe(pfd);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &pfd[0], sizeof(int));
	report("sendmsg with a descriptor", sendmsg(sv[0], &mh, 0));
	close(pfd[0]);
	memset(u.buf, 0, sizeof(u.buf));
	mh = (struct msghdr){ .msg_iov = riov, .msg_iovlen = 2,
			      .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	report("recvmsg", recvmsg(sv[1], &mh, MSG_CMSG_CLOEXEC));
	printf("scattered [%s] [%s] controllen %zu flags %d\n", a, b,
	       (size_t)mh.msg_controllen, mh.msg_flags);
	c = CMSG_FIRSTHDR(&mh);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	printf("received a descriptor: %d, cloexec %d\n", fd >= 0,
	       fcntl(fd, F_GETFD));
	write(pfd[1], "piped", 5);
	report("read through it", read(fd, got, sizeof(got) - 1));
	printf("got %s\n", got);
	mh = (struct msghdr){ .msg_iov = iov, .msg_iovlen = 1,
			      .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	fd2 = 999;
	memcpy(CMSG_DATA(c), &fd2, sizeof(int));
	report("sendmsg a bad descriptor", sendmsg(sv[0], &mh, 0));
	mh.msg_iovlen = 2000;
	report("sendmsg too many iovecs", sendmsg(sv[0], &mh, 0));
	/* Not through the C library: musl's wrapper reads the header. */
	report("recvmsg bad msghdr", syscall(SYS_recvmsg, sv[1], 8, 0));
	close(fd);
	close(pfd[1]);
	close(sv[0]);
	close(sv[1]);
}

static long raw_sendmmsg(int fd, void *vec, unsigned int n, int flags)
{
	return syscall(SYS_sendmmsg, fd, vec, n, flags);
}

static long raw_recvmmsg(int fd, void *vec, unsigned int n, int flags,
			 struct timespec *ts)
{
	return syscall(SYS_recvmmsg, fd, vec, n, flags, ts);
}

static void mmsg_set(struct mmsghdr *m, struct iovec *iov, char (*b)[16],
		     const size_t *len, int n)
{
	memset(m, 0, n * sizeof(*m));
	for (int i = 0; i < n; i++) {
		iov[i] = (struct iovec){ b[i], len[i] };
		m[i].msg_hdr.msg_iov = &iov[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
}

static void mmsg_show(const char *what, long r, struct mmsghdr *m,
		      char (*b)[16])
{
	report(what, r);
	for (long i = 0; i < r; i++)
		printf("  [%ld] len %u %.*s\n", i, m[i].msg_len,
		       (int)m[i].msg_len, b[i]);
}

/*
 * sendmmsg and recvmmsg: counts, MSG_WAITFORONE, the timeout, errors.
 * As system calls: musl's sendmmsg copies the vector in user space.
 */
static void mmsg(void)
{
	static const size_t slen[3] = { 3, 4, 5 }, rlen[3] = { 16, 16, 16 };
	char out[3][16] = { "one", "two!", "three" }, in[3][16];
	struct timespec ts = { 5, 0 }, bad = { 0, 2000000000 };
	struct mmsghdr m[3];
	struct iovec iov[3];
	int sv[2], p[2];

	socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
	mmsg_set(m, iov, out, slen, 3);
	mmsg_show("sendmmsg 3", raw_sendmmsg(sv[0], m, 3, 0), m, out);
	report("sendmmsg 0", raw_sendmmsg(sv[0], m, 0, 0));
	mmsg_set(m, iov, in, rlen, 3);
	mmsg_show("recvmmsg 3 of 3", raw_recvmmsg(sv[1], m, 3, 0, NULL), m, in);
	mmsg_set(m, iov, out, slen, 3);
	raw_sendmmsg(sv[0], m, 1, 0);
	mmsg_set(m, iov, in, rlen, 3);
	mmsg_show("recvmmsg MSG_WAITFORONE, 1 there",
		  raw_recvmmsg(sv[1], m, 3, MSG_WAITFORONE, NULL), m, in);
	report("recvmmsg MSG_DONTWAIT, none there",
	       raw_recvmmsg(sv[1], m, 3, MSG_DONTWAIT, NULL));
	mmsg_set(m, iov, out, slen, 3);
	raw_sendmmsg(sv[0], m, 2, 0);
	mmsg_set(m, iov, in, rlen, 3);
	mmsg_show("recvmmsg 2 with a timeout",
		  raw_recvmmsg(sv[1], m, 2, 0, &ts), m, in);
	printf("  time left under 5 s: %d\n", ts.tv_sec < 5);
	report("recvmmsg bad timeout", raw_recvmmsg(sv[1], m, 2, 0, &bad));
	report("sendmmsg bad fd", raw_sendmmsg(999, m, 1, 0));
	if (pipe(p) == 0) {
		report("sendmmsg not a socket", raw_sendmmsg(p[1], m, 1, 0));
		close(p[0]);
		close(p[1]);
	}
	report("sendmmsg bad vector", raw_sendmmsg(sv[0], (void *)8, 1, 0));
	/* A fault in the second message: the first counts. */
	mmsg_set(m, iov, out, slen, 3);
	iov[1].iov_base = (void *)8;
	mmsg_show("sendmmsg fault in 2nd", raw_sendmmsg(sv[0], m, 3, 0), m,
		  out);
	mmsg_set(m, iov, in, rlen, 3);
	mmsg_show("recvmmsg what went",
		  raw_recvmmsg(sv[1], m, 3, MSG_DONTWAIT, NULL), m, in);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	unix_pair();
	tcp();
	udp();
	rights();
	mmsg();
	errors();
	return 0;
}
