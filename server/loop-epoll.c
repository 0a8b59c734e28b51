/*
 * loop-epoll.c — the loop's backend on Linux: epoll, so a turn costs
 * what is ready, not how many programs are held (with poll, every turn
 * looked at every reaper's socket). Level-triggered, as poll is.
 *
 * epoll refuses descriptors that are always ready, regular files and
 * /dev/null (EPERM): standard input can be one (progmux < requests).
 * Those few are polled beside it, and while one of them is waited on
 * the epoll wait does not block.
 *
 * Each event carries its registration's serial with the descriptor
 * (the descriptor in the low bits of the epoll data, the serial above
 * them), so one replaced during a turn is recognised.
 */
#include <sys/epoll.h>

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "loop_be.h"
#include "server.h"
#include "xmalloc.h"

#define LOOP_BE_FDBITS	24		/* descriptors below 2^24 */
#define LOOP_BE_FALLBACK 8		/* descriptors epoll refused */

static struct {
	int		 ep;		/* the epoll instance, or -1 */
	unsigned char	*in;		/* by descriptor: in the epoll set */
	size_t		 nin;
	struct {
		int		 fd;
		short		 events;
		uint64_t	 serial;
	}		 fb[LOOP_BE_FALLBACK];	/* epoll refused these */
	size_t		 nfb;
	struct epoll_event *evs;
	size_t		 nevs;
} lb = { .ep = -1 };

/* The epoll instance, made on first use. */
static int
loop_be_ep(void)
{
	if (lb.ep == -1 && (lb.ep = epoll_create1(EPOLL_CLOEXEC)) == -1)
		fatalx("epoll_create1: %s", strerror(errno));
	return (lb.ep);
}

/* Take fd out of the polled fallback, if it is there. */
static void
loop_be_fb_del(int fd)
{
	size_t	i;

	for (i = 0; i < lb.nfb; i++)
		if (lb.fb[i].fd == fd) {
			lb.fb[i] = lb.fb[--lb.nfb];
			return;
		}
}

/* fd now waits for mask (0: for nothing), as registration serial. */
void
loop_be_set(int fd, int mask, uint64_t serial)
{
	struct epoll_event	 e;
	size_t			 n;
	int			 rc;

	if (fd < 0 || fd >= (1 << LOOP_BE_FDBITS))
		fatalx("loop_be_set: descriptor %d", fd);
	if ((size_t)fd >= lb.nin) {
		n = (size_t)fd + 64;
		lb.in = xreallocarray(lb.in, n, 1);
		memset(lb.in + lb.nin, 0, n - lb.nin);
		lb.nin = n;
	}
	loop_be_fb_del(fd);
	if (mask == 0) {
		/* Not waited on, not even for a hang-up, as with poll. */
		if (lb.in[fd] && epoll_ctl(loop_be_ep(), EPOLL_CTL_DEL, fd,
		    NULL) == -1 && errno != ENOENT && errno != EBADF)
			log_warn("epoll_ctl del %d: %s", fd, strerror(errno));
		lb.in[fd] = 0;
		return;
	}
	memset(&e, 0, sizeof e);
	e.events = ((mask & LOOP_READ) ? EPOLLIN : 0) |
	    ((mask & LOOP_WRITE) ? EPOLLOUT : 0);
	e.data.u64 = (serial << LOOP_BE_FDBITS) | (uint64_t)fd;
	rc = epoll_ctl(loop_be_ep(), lb.in[fd] ? EPOLL_CTL_MOD :
	    EPOLL_CTL_ADD, fd, &e);
	if (rc == -1 && (errno == ENOENT || errno == EEXIST)) {
		/* (Closed and reused behind our back: as it is now.) */
		rc = epoll_ctl(lb.ep, errno == ENOENT ? EPOLL_CTL_ADD :
		    EPOLL_CTL_MOD, fd, &e);
	}
	if (rc == 0) {
		lb.in[fd] = 1;
		return;
	}
	/* Always ready (EPERM: a regular file, /dev/null), or not open
	 * (EBADF, which poll reports as POLLNVAL): polled. */
	lb.in[fd] = 0;
	if (lb.nfb == LOOP_BE_FALLBACK)
		fatalx("loop_be_set: more than %d descriptors epoll cannot "
		    "wait on (%d: %s)", LOOP_BE_FALLBACK, fd, strerror(errno));
	lb.fb[lb.nfb].fd = fd;
	lb.fb[lb.nfb].events = (short)(((mask & LOOP_READ) ? POLLIN : 0) |
	    ((mask & LOOP_WRITE) ? POLLOUT : 0));
	lb.fb[lb.nfb++].serial = serial;
}

/* What fired, as LOOP_READ and LOOP_WRITE: hang-up and error count as
 * both, as poll's do in loop-poll.c. */
static int
loop_be_fired(uint32_t r)
{
	int	fired = 0;

	if (r & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP))
		fired |= LOOP_READ;
	if (r & (EPOLLOUT | EPOLLHUP | EPOLLERR))
		fired |= LOOP_WRITE;
	return (fired);
}

/* The fallback's ready descriptors into ev; how many. */
static size_t
loop_be_fb_poll(struct loop_event *ev, size_t max)
{
	struct pollfd	pfd[LOOP_BE_FALLBACK];
	size_t		i, k = 0;

	for (i = 0; i < lb.nfb; i++)
		pfd[i] = (struct pollfd){ lb.fb[i].fd, lb.fb[i].events, 0 };
	if (poll(pfd, lb.nfb, 0) <= 0)
		return (0);
	for (i = 0; i < lb.nfb && k < max; i++) {
		if (pfd[i].revents == 0)
			continue;
		ev[k].fd = pfd[i].fd;
		ev[k].fired = ((pfd[i].revents & (POLLIN | POLLHUP | POLLERR |
		    POLLNVAL)) ? LOOP_READ : 0) | ((pfd[i].revents & (POLLOUT |
		    POLLHUP | POLLERR | POLLNVAL)) ? LOOP_WRITE : 0);
		ev[k++].serial = lb.fb[i].serial;
	}
	return (k);
}

/* Wait up to timeout_ms for what is ready; how many events, or -1. */
int
loop_be_wait(int timeout_ms, struct loop_event *ev, size_t max)
{
	size_t	k, i;
	int	n;

	k = lb.nfb > 0 ? loop_be_fb_poll(ev, max) : 0;
	if (k > 0 || lb.nfb > 0)
		timeout_ms = 0;		/* those are ready, or soon are */
	if (max - k > lb.nevs) {
		lb.nevs = max - k;
		lb.evs = xreallocarray(lb.evs, lb.nevs, sizeof *lb.evs);
	}
	if (max == k)
		return ((int)k);
	n = epoll_wait(loop_be_ep(), lb.evs, (int)(max - k), timeout_ms);
	if (n == -1)
		return (k > 0 ? (int)k : -1);
	for (i = 0; i < (size_t)n; i++) {
		ev[k].fd = (int)(lb.evs[i].data.u64 &
		    ((1u << LOOP_BE_FDBITS) - 1));
		ev[k].serial = lb.evs[i].data.u64 >> LOOP_BE_FDBITS;
		ev[k++].fired = loop_be_fired(lb.evs[i].events);
	}
	return ((int)k);
}
