// SPDX-License-Identifier: MIT
/*
 * Sockets (net/socket.c) as host sockets: AF_UNIX, and AF_INET and
 * AF_INET6 on whatever the host lets the monitor reach.  Addresses come
 * in as move_addr_to_kernel() takes them and go out as
 * move_addr_to_user() gives them; data moves through a monitor buffer,
 * never a guest pointer handed to the host.  Calls that may sleep
 * (connect, accept, send, receive) are host calls a signal for the guest
 * interrupts (ua__host_call()).
 *
 * sendmsg and recvmsg gather and scatter the guest's iovecs through one
 * monitor buffer; the descriptors of SCM_RIGHTS are the guest's numbers
 * turned into host descriptors on the way out and installed in the
 * guest's table on the way in.  Not yet: sendmmsg, recvmmsg.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "linux_internal.h"

/* One send or receive moves at most this much (a stream may be short). */
#define LX_SOCK_CHUNK ((size_t)1 << 20)

/* A new host socket in the guest's table at the lowest free number. */
static long install(struct ua_task *t, int host, int type)
{
	struct lx_file f = {
		.kind = LX_FD_HOST,
		.host = host,
		.flags = O_RDWR | (type & SOCK_NONBLOCK ? O_NONBLOCK : 0),
		.cloexec = type & SOCK_CLOEXEC,
	};
	long fd = ua__lx_host_above_stdio(host);

	if (fd < 0)
		return fd;
	f.host = (int)fd;
	fd = ua__lx_fd_install(lx_proc(t), 0, f);
	if (fd < 0)
		close(f.host);
	return fd;
}

/* move_addr_to_kernel(): 0..sizeof(sockaddr_storage) bytes. */
static long addr_in(struct sockaddr_storage *ss, uint64_t uaddr, long len)
{
	if (len < 0 || (size_t)len > sizeof(*ss))
		return -EINVAL;
	if (len && ua_copy_from_user(ss, (const void *)uaddr, (size_t)len))
		return -EFAULT;
	return 0;
}

/* move_addr_to_user(): cut to the guest's length, the full one back. */
static long addr_out(const struct sockaddr_storage *ss, socklen_t klen,
		     uint64_t uaddr, uint64_t ulen)
{
	int len;

	if (!ulen)
		return 0;
	if (ua_get_user(len, (int *)ulen))
		return -EFAULT;
	if (len > (int)klen)
		len = (int)klen;
	if (len < 0)
		return -EINVAL;
	if (len && ua_copy_to_user((void *)uaddr, ss, (size_t)len))
		return -EFAULT;
	return ua_put_user((int)klen, (int *)ulen) ? -EFAULT : 0;
}

/* The host side of guest descriptor fd, released with host_put(). */
#define WITH_HOST(t, fd, h, call)                                  \
	({                                                         \
		int h = ua__lx_host_fd_get((t), (fd));             \
		long __ret = h;                                    \
		if (h >= 0) {                                      \
			__ret = (call);                            \
			ua__lx_host_fd_put((t), (fd), h);          \
		}                                                  \
		__ret;                                             \
	})

static long ret_errno(long r)
{
	return r < 0 ? -errno : r;
}

static long sys_socket(struct ua_task *t, struct ua_pt_regs *r)
{
	int type = (int)ARG2(r);
	int h = socket((int)ARG1(r), type | SOCK_CLOEXEC, (int)ARG3(r));

	if (h < 0)
		return -errno;
	return install(t, h, type);
}

static long sys_socketpair(struct ua_task *t, struct ua_pt_regs *r)
{
	int type = (int)ARG2(r), h[2];
	long fd[2];

	if (socketpair((int)ARG1(r), type | SOCK_CLOEXEC, (int)ARG3(r), h))
		return -errno;
	fd[0] = install(t, h[0], type);
	if (fd[0] < 0) {
		close(h[1]);
		return fd[0];
	}
	fd[1] = install(t, h[1], type);
	if (fd[1] < 0) {
		ua__lx_close_fd(t, (int)fd[0]);
		return fd[1];
	}
	if (ua_put_user((int)fd[0], (int *)ARG4(r)) ||
	    ua_put_user((int)fd[1], (int *)ARG4(r) + 1)) {
		ua__lx_close_fd(t, (int)fd[0]);
		ua__lx_close_fd(t, (int)fd[1]);
		return -EFAULT;
	}
	return 0;
}

static long sys_bind(struct ua_task *t, struct ua_pt_regs *r)
{
	struct sockaddr_storage ss;
	long err = addr_in(&ss, ARG2(r), (long)(int)ARG3(r));

	if (err)
		return err;
	return WITH_HOST(t, (int)ARG1(r), h,
			 ret_errno(bind(h, (struct sockaddr *)&ss,
					(socklen_t)ARG3(r))));
}

static long sys_connect(struct ua_task *t, struct ua_pt_regs *r)
{
	struct sockaddr_storage ss;
	long err = addr_in(&ss, ARG2(r), (long)(int)ARG3(r));

	if (err)
		return err;
	return WITH_HOST(t, (int)ARG1(r), h,
			 ua__host_call(SYS_connect, h, (long)&ss,
				       (long)(int)ARG3(r), 0, 0, 0));
}

static long sys_listen(struct ua_task *t, struct ua_pt_regs *r)
{
	return WITH_HOST(t, (int)ARG1(r), h,
			 ret_errno(listen(h, (int)ARG2(r))));
}

static long sys_shutdown(struct ua_task *t, struct ua_pt_regs *r)
{
	return WITH_HOST(t, (int)ARG1(r), h,
			 ret_errno(shutdown(h, (int)ARG2(r))));
}

static long do_accept(struct ua_task *t, struct ua_pt_regs *r, int flags)
{
	struct sockaddr_storage ss;
	socklen_t klen = sizeof(ss);
	long fd, err;
	int nh;

	if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
		return -EINVAL;
	nh = (int)WITH_HOST(t, (int)ARG1(r), h,
			    ua__host_call(SYS_accept4, h, (long)&ss,
					  (long)&klen, flags | SOCK_CLOEXEC, 0,
					  0));
	if (nh < 0)
		return nh;
	fd = install(t, nh, flags);
	if (fd < 0)
		return fd;
	if (ARG2(r)) {
		err = addr_out(&ss, klen, ARG2(r), ARG3(r));
		if (err) {
			ua__lx_close_fd(t, (int)fd);
			return err;
		}
	}
	return fd;
}

static long sys_accept(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_accept(t, r, 0);
}

static long sys_accept4(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_accept(t, r, (int)ARG4(r));
}

static long sock_name(struct ua_task *t, struct ua_pt_regs *r, bool peer)
{
	struct sockaddr_storage ss;
	socklen_t klen = sizeof(ss);
	long ret;

	ret = WITH_HOST(t, (int)ARG1(r), h,
			ret_errno(peer ? getpeername(h, (struct sockaddr *)&ss,
						     &klen) :
					 getsockname(h, (struct sockaddr *)&ss,
						     &klen)));
	if (ret < 0)
		return ret;
	return addr_out(&ss, klen, ARG2(r), ARG3(r));
}

static long sys_getsockname(struct ua_task *t, struct ua_pt_regs *r)
{
	return sock_name(t, r, false);
}

static long sys_getpeername(struct ua_task *t, struct ua_pt_regs *r)
{
	return sock_name(t, r, true);
}

/* Option values: the host's sizes, at most a page here. */
#define LX_OPT_MAX 4096

static long sys_setsockopt(struct ua_task *t, struct ua_pt_regs *r)
{
	char val[LX_OPT_MAX];
	int len = (int)ARG5(r);

	if (len < 0)
		return -EINVAL;
	if ((size_t)len > sizeof(val))
		return -ENOBUFS;
	if (len && ua_copy_from_user(val, (const void *)ARG4(r), (size_t)len))
		return -EFAULT;
	return WITH_HOST(t, (int)ARG1(r), h,
			 ret_errno(setsockopt(h, (int)ARG2(r), (int)ARG3(r),
					      val, (socklen_t)len)));
}

static long sys_getsockopt(struct ua_task *t, struct ua_pt_regs *r)
{
	char val[LX_OPT_MAX];
	socklen_t klen;
	int len;
	long ret;

	if (ua_get_user(len, (int *)ARG5(r)))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	klen = (size_t)len < sizeof(val) ? (socklen_t)len : sizeof(val);
	ret = WITH_HOST(t, (int)ARG1(r), h,
			ret_errno(getsockopt(h, (int)ARG2(r), (int)ARG3(r),
					     val, &klen)));
	if (ret < 0)
		return ret;
	if (klen && ua_copy_to_user((void *)ARG4(r), val, klen))
		return -EFAULT;
	return ua_put_user((int)klen, (int *)ARG5(r)) ? -EFAULT : 0;
}

static long sys_sendto(struct ua_task *t, struct ua_pt_regs *r)
{
	size_t len = ARG3(r) < LX_SOCK_CHUNK ? ARG3(r) : LX_SOCK_CHUNK;
	struct sockaddr_storage ss;
	long alen = ARG5(r) ? (long)(int)ARG6(r) : 0, ret;
	char *buf;

	ret = addr_in(&ss, ARG5(r), alen);
	if (ret)
		return ret;
	buf = malloc(len ? len : 1);
	if (!buf)
		return -ENOMEM;
	if (len && ua_copy_from_user(buf, (const void *)ARG2(r), len)) {
		free(buf);
		return -EFAULT;
	}
	ret = WITH_HOST(t, (int)ARG1(r), h,
			ua__host_call(SYS_sendto, h, (long)buf, (long)len,
				      (long)(int)ARG4(r) | MSG_NOSIGNAL,
				      alen ? (long)&ss : 0, alen));
	free(buf);
	/* The EPIPE a write gives with its SIGPIPE, unless asked not to. */
	if (ret == -EPIPE && !(ARG4(r) & MSG_NOSIGNAL))
		ua__lx_sigpipe(t);
	return ret;
}

static long sys_recvfrom(struct ua_task *t, struct ua_pt_regs *r)
{
	size_t len = ARG3(r) < LX_SOCK_CHUNK ? ARG3(r) : LX_SOCK_CHUNK;
	struct sockaddr_storage ss;
	socklen_t klen = sizeof(ss);
	char *buf = malloc(len ? len : 1);
	long ret, err;

	if (!buf)
		return -ENOMEM;
	ret = WITH_HOST(t, (int)ARG1(r), h,
			ua__host_call(SYS_recvfrom, h, (long)buf, (long)len,
				      (long)(int)ARG4(r),
				      ARG5(r) ? (long)&ss : 0,
				      ARG5(r) ? (long)&klen : 0));
	if (ret > 0 && ua_copy_to_user((void *)ARG2(r), buf, (size_t)ret))
		ret = -EFAULT;
	free(buf);
	if (ret >= 0 && ARG5(r)) {
		err = addr_out(&ss, klen, ARG5(r), ARG6(r));
		if (err)
			return err;
	}
	return ret;
}

/* include/linux/uio.h UIO_MAXIOV; net/core/sock.c optmem_max's default. */
#define LX_UIO_MAXIOV 1024
#define LX_OPTMEM_MAX 20480

/* The guest's msghdr and iovecs, and one buffer for their bytes. */
struct lx_msg {
	struct msghdr mh;   /* as the guest wrote it */
	struct iovec *iov;  /* the guest's iovecs */
	size_t len;         /* bytes moved at most: their sum, capped */
	char *buf;
	char *ctl;          /* the control bytes, host side */
	struct sockaddr_storage name;
};

static void msg_free(struct lx_msg *m)
{
	free(m->iov);
	free(m->buf);
	free(m->ctl);
}

/* copy_msghdr_from_user() and import_iovec(). */
static long msg_in(struct lx_msg *m, uint64_t umsg)
{
	memset(m, 0, sizeof(*m));
	if (ua_copy_from_user(&m->mh, (const void *)umsg, sizeof(m->mh)))
		return -EFAULT;
	if (m->mh.msg_iovlen > LX_UIO_MAXIOV)
		return -EMSGSIZE;
	if (m->mh.msg_iovlen) {
		m->iov = malloc(m->mh.msg_iovlen * sizeof(*m->iov));
		if (!m->iov)
			return -ENOMEM;
		if (ua_copy_from_user(m->iov, m->mh.msg_iov,
				      m->mh.msg_iovlen * sizeof(*m->iov)))
			return -EFAULT;
	}
	for (size_t i = 0; i < m->mh.msg_iovlen; i++) {
		if ((ssize_t)m->iov[i].iov_len < 0)
			return -EINVAL;
		if (!ua_access_ok(m->iov[i].iov_base, m->iov[i].iov_len))
			return -EFAULT;
		m->len += m->iov[i].iov_len;
		if (m->len > LX_SOCK_CHUNK)
			m->len = LX_SOCK_CHUNK;
	}
	m->buf = malloc(m->len ? m->len : 1);
	return m->buf ? 0 : -ENOMEM;
}

/* Between the buffer and the iovecs, n bytes; the bytes not moved. */
static size_t msg_copy(struct lx_msg *m, size_t n, bool out)
{
	size_t done = 0;

	for (size_t i = 0; i < m->mh.msg_iovlen && done < n; i++) {
		size_t k = m->iov[i].iov_len < n - done ? m->iov[i].iov_len :
							  n - done;
		size_t left = out ? ua_copy_to_user(m->iov[i].iov_base,
						    m->buf + done, k) :
				    ua_copy_from_user(m->buf + done,
						      m->iov[i].iov_base, k);

		if (left)
			return n - done - (k - left);
		done += k;
	}
	return 0;
}

/* Each SCM_RIGHTS descriptor of a control block, turned by fn. */
static long each_right(struct msghdr *mh, long (*fn)(int *fd, void *arg),
		       void *arg)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		int *fds = (int *)CMSG_DATA(c);
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			long err = fn(&fds[i], arg);

			if (err)
				return err;
		}
	}
	return 0;
}

struct rights {
	struct ua_task *t;
	int host[256];
	size_t n;
	bool cloexec;  /* incoming: MSG_CMSG_CLOEXEC */
};

/* Outgoing: a guest descriptor becomes a host one (scm_fp_copy()). */
static long right_out(int *fd, void *arg)
{
	struct rights *r = arg;
	int h;

	if (r->n == sizeof(r->host) / sizeof(r->host[0]))
		return -EINVAL;
	h = ua__lx_host_fd_get(r->t, *fd);
	if (h < 0)
		return -EBADF;
	/* Our own duplicate: released whatever the guest does meanwhile. */
	r->host[r->n] = fcntl(h, F_DUPFD_CLOEXEC, 3);
	ua__lx_host_fd_put(r->t, *fd, h);
	if (r->host[r->n] < 0)
		return -errno;
	*fd = r->host[r->n++];
	return 0;
}

/* Incoming: a host descriptor goes into the guest's table. */
static long right_in(int *fd, void *arg)
{
	struct rights *r = arg;
	long g = install(r->t, *fd, r->cloexec ? SOCK_CLOEXEC : 0);

	*fd = (int)(g < 0 ? -1 : g);
	return 0;
}

/*
 * ___sys_sendmsg(): one message, umsg the guest's msghdr; the bytes sent.
 * *left: some of the message's bytes were not (msg_data_left()).
 */
static long do_sendmsg(struct ua_task *t, int fd, uint64_t umsg, int flags,
		       bool *left)
{
	struct rights rights = { .t = t };
	struct lx_msg m;
	struct msghdr mh;
	struct iovec one;
	long ret;

	ret = msg_in(&m, umsg);
	if (!ret && m.mh.msg_name)
		ret = addr_in(&m.name, (uint64_t)m.mh.msg_name,
			      (long)(int)m.mh.msg_namelen);
	if (!ret && m.mh.msg_controllen > LX_OPTMEM_MAX)
		ret = -ENOBUFS;
	if (!ret && m.mh.msg_controllen) {
		m.ctl = malloc(m.mh.msg_controllen);
		if (!m.ctl)
			ret = -ENOMEM;
		else if (ua_copy_from_user(m.ctl, m.mh.msg_control,
					   m.mh.msg_controllen))
			ret = -EFAULT;
	}
	if (!ret && msg_copy(&m, m.len, false))
		ret = -EFAULT;
	one = (struct iovec){ m.buf, m.len };
	mh = (struct msghdr){
		.msg_name = m.mh.msg_name ? &m.name : NULL,
		.msg_namelen = m.mh.msg_name ? m.mh.msg_namelen : 0,
		.msg_iov = &one,
		.msg_iovlen = 1,
		.msg_control = m.ctl,
		.msg_controllen = m.mh.msg_controllen,
	};
	if (!ret && m.ctl)
		ret = each_right(&mh, right_out, &rights);
	if (!ret)
		ret = WITH_HOST(t, fd, h,
				ua__host_call(SYS_sendmsg, h, (long)&mh,
					      flags | MSG_NOSIGNAL, 0, 0, 0));
	if (left)
		*left = ret >= 0 && (size_t)ret < m.len;
	while (rights.n)
		close(rights.host[--rights.n]);
	msg_free(&m);
	if (ret == -EPIPE && !(flags & MSG_NOSIGNAL))
		ua__lx_sigpipe(t);
	return ret;
}

static long sys_sendmsg(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_sendmsg(t, (int)ARG1(r), ARG2(r), (int)ARG3(r), NULL);
}

/*
 * ___sys_recvmsg(): one message into the guest's msghdr at umsg, whose
 * lengths and flags are written back; the bytes received.  *oob: the
 * message came with MSG_OOB.
 */
static long do_recvmsg(struct ua_task *t, int fd, uint64_t umsg, int flags,
		       bool *oob)
{
	struct rights rights = { .t = t,
				 .cloexec = flags & MSG_CMSG_CLOEXEC };
	struct lx_msg m;
	struct msghdr mh;
	struct iovec one;
	long ret, err;

	ret = msg_in(&m, umsg);
	if (!ret && m.mh.msg_controllen) {
		if (m.mh.msg_controllen > 65536)
			m.mh.msg_controllen = 65536;
		m.ctl = calloc(1, m.mh.msg_controllen);
		if (!m.ctl)
			ret = -ENOMEM;
	}
	if (ret) {
		msg_free(&m);
		return ret;
	}
	one = (struct iovec){ m.buf, m.len };
	mh = (struct msghdr){
		.msg_name = m.mh.msg_name ? &m.name : NULL,
		.msg_namelen = m.mh.msg_name ? sizeof(m.name) : 0,
		.msg_iov = &one,
		.msg_iovlen = 1,
		.msg_control = m.ctl,
		.msg_controllen = m.mh.msg_controllen,
	};
	/* Host descriptors arrive close-on-exec: the monitor's own. */
	ret = WITH_HOST(t, fd, h,
			ua__host_call(SYS_recvmsg, h, (long)&mh,
				      flags | MSG_CMSG_CLOEXEC, 0, 0, 0));
	if (ret < 0)
		goto out;
	if (oob)
		*oob = mh.msg_flags & MSG_OOB;
	if (m.ctl && mh.msg_controllen)
		each_right(&mh, right_in, &rights);
	err = 0;
	if (msg_copy(&m, (size_t)ret, true))
		err = -EFAULT;
	if (!err && m.mh.msg_name &&
	    addr_out(&m.name, mh.msg_namelen, (uint64_t)m.mh.msg_name,
		     umsg + offsetof(struct msghdr, msg_namelen)))
		err = -EFAULT;
	if (!err && mh.msg_controllen &&
	    ua_copy_to_user(m.mh.msg_control, m.ctl, mh.msg_controllen))
		err = -EFAULT;
	if (!err &&
	    (ua_put_user((uint64_t)mh.msg_controllen,
			 (uint64_t *)(umsg + offsetof(struct msghdr,
						      msg_controllen))) ||
	     ua_put_user(mh.msg_flags,
			 (int *)(umsg + offsetof(struct msghdr, msg_flags)))))
		err = -EFAULT;
	if (err)
		ret = err;
out:
	msg_free(&m);
	return ret;
}

static long sys_recvmsg(struct ua_task *t, struct ua_pt_regs *r)
{
	return do_recvmsg(t, (int)ARG1(r), ARG2(r), (int)ARG3(r), NULL);
}

/* The descriptor's checks before any message (sockfd_lookup_light()). */
static long sock_check(struct ua_task *t, int fd)
{
	int type;
	socklen_t len = sizeof(type);

	return WITH_HOST(t, fd, h,
			 getsockopt(h, SOL_SOCKET, SO_TYPE, &type, &len) ?
				 -errno :
				 0);
}

/* A struct mmsghdr's msg_len, at e in the guest. */
static bool msg_len_out(uint64_t e, long len)
{
	return ua_put_user((unsigned int)len,
			   (unsigned int *)(e + offsetof(struct mmsghdr,
							 msg_len)));
}

/*
 * __sys_sendmmsg(): up to UIO_MAXIOV messages, MSG_BATCH on all but the
 * last, each one's count into its msg_len; stops at the first error or
 * partial send.  An error is returned only if no message went.
 */
static long sys_sendmmsg(struct ua_task *t, struct ua_pt_regs *r)
{
	uint64_t vec = ARG2(r);
	unsigned int vlen = (unsigned int)ARG3(r), n = 0;
	int flags = (int)ARG4(r);
	bool left = false;
	long ret;

	ret = sock_check(t, (int)ARG1(r));
	if (ret)
		return ret;
	if (vlen > LX_UIO_MAXIOV)
		vlen = LX_UIO_MAXIOV;
	while (n < vlen) {
		uint64_t e = vec + (uint64_t)n * sizeof(struct mmsghdr);
		int f = n == vlen - 1 ? flags : flags | MSG_BATCH;

		ret = do_sendmsg(t, (int)ARG1(r), e, f, &left);
		if (ret >= 0 && msg_len_out(e, ret))
			ret = -EFAULT;
		if (ret < 0)
			break;
		n++;
		if (left)
			break;
	}
	return n ? n : ret < 0 ? ret : 0;
}

/*
 * do_recvmmsg(): messages until vlen, an error, MSG_OOB or the timeout,
 * which (as in the kernel) is looked at only between messages: each
 * receive blocks as the socket does.  MSG_WAITFORONE makes every receive
 * after the first MSG_DONTWAIT.  The time left goes back to the guest.
 */
static long sys_recvmmsg(struct ua_task *t, struct ua_pt_regs *r)
{
	uint64_t vec = ARG2(r), uts = ARG5(r);
	unsigned int vlen = (unsigned int)ARG3(r), n = 0;
	int flags = (int)ARG4(r);
	struct timespec ts, end;
	bool oob = false;
	long ret;

	if (uts) {
		if (ua_copy_from_user(&ts, (const void *)uts, sizeof(ts)))
			return -EFAULT;
		if (!ua__lx_ts_valid(&ts))
			return -EINVAL;
		ua__lx_deadline(&end, &ts);
	}
	ret = sock_check(t, (int)ARG1(r));
	if (ret)
		return ret;
	if (vlen > LX_UIO_MAXIOV)
		vlen = LX_UIO_MAXIOV;
	while (n < vlen) {
		uint64_t e = vec + (uint64_t)n * sizeof(struct mmsghdr);

		ret = do_recvmsg(t, (int)ARG1(r), e, flags & ~MSG_WAITFORONE,
				 &oob);
		if (ret >= 0 && msg_len_out(e, ret))
			ret = -EFAULT;
		if (ret < 0)
			break;
		n++;
		ret = 0;
		if (flags & MSG_WAITFORONE)
			flags |= MSG_DONTWAIT;
		if (uts) {
			ts = ua__lx_ts_left(&end);
			if (!ts.tv_sec && !ts.tv_nsec)
				break;
		}
		if (oob)
			break;
	}
	if (n && uts && ua_copy_to_user((void *)uts, &ts, sizeof(ts)))
		return -EFAULT;
	return n ? n : ret;
}

static const struct lx_call calls[] = {
	{ SYS_socket, "socket", sys_socket, "dxd" },
	{ SYS_socketpair, "socketpair", sys_socketpair, "dxdp" },
	{ SYS_bind, "bind", sys_bind, "fpd" },
	{ SYS_connect, "connect", sys_connect, "fpd" },
	{ SYS_listen, "listen", sys_listen, "fd" },
	{ SYS_shutdown, "shutdown", sys_shutdown, "fd" },
	{ SYS_accept, "accept", sys_accept, "fpp" },
	{ SYS_accept4, "accept4", sys_accept4, "fppx" },
	{ SYS_getsockname, "getsockname", sys_getsockname, "fpp" },
	{ SYS_getpeername, "getpeername", sys_getpeername, "fpp" },
	{ SYS_setsockopt, "setsockopt", sys_setsockopt, "fddpd" },
	{ SYS_getsockopt, "getsockopt", sys_getsockopt, "fddpp" },
	{ SYS_sendto, "sendto", sys_sendto, "fpuxpd" },
	{ SYS_recvfrom, "recvfrom", sys_recvfrom, "fpuxpp" },
	{ SYS_sendmsg, "sendmsg", sys_sendmsg, "fpx" },
	{ SYS_recvmsg, "recvmsg", sys_recvmsg, "fpx" },
	{ SYS_sendmmsg, "sendmmsg", sys_sendmmsg, "fpux" },
	{ SYS_recvmmsg, "recvmmsg", sys_recvmmsg, "fpuxp" },
};

void ua__lx_socket_init(void)
{
	LX_REGISTER(calls);
}
