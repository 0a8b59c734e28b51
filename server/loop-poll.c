/*
 * loop-poll.c — the loop's backend where only poll(2) is sure to be
 * there (macOS, the POSIX-only port): a dense array of the descriptors
 * waited on, kept as interests change (an index per descriptor, the
 * last entry moved into a hole), so a turn polls exactly those.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "loop_be.h"
#include "server.h"
#include "xmalloc.h"

static struct {
	struct pollfd	*pfd;		/* dense: the descriptors waited on */
	uint64_t	*serial;	/* each one's registration */
	size_t		 n, cap;
	size_t		*at;		/* by descriptor: its index + 1, or 0 */
	size_t		 nat;
} lb;

/* fd now waits for mask, as registration serial. */
void
loop_be_set(int fd, int mask, uint64_t serial)
{
	size_t	i, n;
	short	ev = 0;

	if ((size_t)fd >= lb.nat) {
		n = (size_t)fd + 16;
		lb.at = xreallocarray(lb.at, n, sizeof *lb.at);
		memset(lb.at + lb.nat, 0, (n - lb.nat) * sizeof *lb.at);
		lb.nat = n;
	}
	if (mask & LOOP_READ)
		ev |= POLLIN;
	if (mask & LOOP_WRITE)
		ev |= POLLOUT;
	if ((i = lb.at[fd]) != 0) {
		i--;
		if (ev != 0) {
			lb.pfd[i].events = ev;
			lb.serial[i] = serial;
			return;
		}
		/* Not waited on any more: the last entry fills the hole. */
		lb.at[fd] = 0;
		if (i != --lb.n) {
			lb.pfd[i] = lb.pfd[lb.n];
			lb.serial[i] = lb.serial[lb.n];
			lb.at[lb.pfd[i].fd] = i + 1;
		}
		return;
	}
	if (ev == 0)
		return;
	if (lb.n == lb.cap) {
		lb.cap = lb.cap == 0 ? 16 : lb.cap * 2;
		lb.pfd = xreallocarray(lb.pfd, lb.cap, sizeof *lb.pfd);
		lb.serial = xreallocarray(lb.serial, lb.cap, sizeof *lb.serial);
	}
	lb.pfd[lb.n] = (struct pollfd){ fd, ev, 0 };
	lb.serial[lb.n] = serial;
	lb.at[fd] = ++lb.n;
}

/* poll what is waited on; hang-up and error count as both. */
int
loop_be_wait(int timeout_ms, struct loop_event *ev, size_t max)
{
	size_t	i, k = 0;
	short	r;

	if (poll(lb.pfd, lb.n, timeout_ms) == -1)
		return (-1);
	for (i = 0; i < lb.n && k < max; i++) {
		if ((r = lb.pfd[i].revents) == 0)
			continue;
		ev[k].fd = lb.pfd[i].fd;
		ev[k].fired = 0;
		if (r & (POLLIN | POLLHUP | POLLERR | POLLNVAL))
			ev[k].fired |= LOOP_READ;
		if (r & (POLLOUT | POLLHUP | POLLERR | POLLNVAL))
			ev[k].fired |= LOOP_WRITE;
		ev[k].serial = lb.serial[i];
		k++;
	}
	return ((int)k);
}
