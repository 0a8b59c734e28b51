/*
 * loop.c — the front's one poll loop, in the manner of redis's ae.c.
 *
 * A module registers a descriptor with what it wants (LOOP_READ,
 * LOOP_WRITE) and a callback, and changes that interest as its state
 * changes (LOOP_WRITE only while it has something queued). A module with
 * deadlines registers a timer: a function saying when it is next due and
 * one to run then. loop_run_once() polls until the earliest deadline,
 * calls each fired descriptor's callback, then runs the timers that are
 * due. The registrations live in a table indexed by descriptor; each
 * carries a serial number, so a callback that removes (or closes and
 * reuses) another descriptor never has that one dispatched with the
 * revents of the one it replaced.
 *
 * Running and shutting down are the same loop: main.c calls
 * loop_run_once() until it is done.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

struct loop_fd {
	int		 mask;		/* LOOP_READ | LOOP_WRITE, 0: none */
	bool		 used;
	uint64_t	 serial;	/* of this registration */
	loop_fd_cb	 cb;
	void		*arg;
};

struct loop_timer {
	loop_when_cb	 when;
	loop_due_cb	 due;
	void		*arg;
	bool		 dead;		/* removed; freed after the pass */
	struct loop_timer *next;
};

static struct {
	struct loop_fd	 *fds;		/* indexed by descriptor */
	size_t		  nfds;		/* its size */
	uint64_t	  serial;
	struct loop_timer *timers;
	int		  running_timers; /* depth: removal waits */
	struct pollfd	 *pfd;		/* the last poll's array */
	uint64_t	 *pserial;	/* each entry's registration */
	size_t		  pcap;
} lp;

/* Register fd with an interest mask and a callback (replacing any). */
void
loop_fd_add(int fd, int mask, loop_fd_cb cb, void *arg)
{
	size_t	n;

	if (fd < 0)
		fatalx("loop_fd_add: descriptor %d", fd);
	if ((size_t)fd >= lp.nfds) {
		n = (size_t)fd + 16;
		lp.fds = xreallocarray(lp.fds, n, sizeof *lp.fds);
		memset(lp.fds + lp.nfds, 0, (n - lp.nfds) * sizeof *lp.fds);
		lp.nfds = n;
	}
	lp.fds[fd].used = true;
	lp.fds[fd].mask = mask;
	lp.fds[fd].serial = ++lp.serial;
	lp.fds[fd].cb = cb;
	lp.fds[fd].arg = arg;
}

/* Change what fd waits for (it must be registered). */
void
loop_fd_mask(int fd, int mask)
{
	if (fd >= 0 && (size_t)fd < lp.nfds && lp.fds[fd].used)
		lp.fds[fd].mask = mask;
}

/* Forget fd (before closing it). */
void
loop_fd_del(int fd)
{
	if (fd >= 0 && (size_t)fd < lp.nfds)
		memset(&lp.fds[fd], 0, sizeof lp.fds[fd]);
}

/* Is fd registered? */
bool
loop_fd_registered(int fd)
{
	return (fd >= 0 && (size_t)fd < lp.nfds && lp.fds[fd].used);
}

/* Register a deadline source: when() says when due() must run next. */
struct loop_timer *
loop_timer_add(loop_when_cb when, loop_due_cb due, void *arg)
{
	struct loop_timer	*t;

	t = xcalloc(1, sizeof *t);
	t->when = when;
	t->due = due;
	t->arg = arg;
	t->next = lp.timers;
	lp.timers = t;
	return (t);
}

/* Remove a timer; during a pass it is only marked, and freed after. */
void
loop_timer_del(struct loop_timer *t)
{
	struct loop_timer	**tp;

	t->dead = true;
	if (lp.running_timers > 0)
		return;
	for (tp = &lp.timers; *tp != NULL; tp = &(*tp)->next) {
		if (*tp == t) {
			*tp = t->next;
			free(t);
			return;
		}
	}
}

/* The earliest deadline among the timers and the given one. */
int64_t
loop_next_deadline(int64_t deadline)
{
	struct loop_timer	*t;
	int64_t			 d;

	for (t = lp.timers; t != NULL; t = t->next) {
		if (!t->dead && (d = t->when(t->arg)) < deadline)
			deadline = d;
	}
	return (deadline);
}

/* Run every timer that is due, then free the ones removed meanwhile. */
static void
loop_run_timers(void)
{
	struct loop_timer	*t, **tp;
	int64_t			 now = now_ms();

	lp.running_timers++;
	for (t = lp.timers; t != NULL; t = t->next) {
		if (!t->dead && t->when(t->arg) <= now)
			t->due(t->arg);
	}
	lp.running_timers--;
	for (tp = &lp.timers; (t = *tp) != NULL;) {
		if (t->dead) {
			*tp = t->next;
			free(t);
		} else
			tp = &t->next;
	}
}

/* The registered descriptors as a pollfd array; returns its length. */
static size_t
loop_build(void)
{
	size_t	i, n = 0;
	short	ev;

	for (i = 0; i < lp.nfds; i++) {
		if (!lp.fds[i].used)
			continue;
		if (n == lp.pcap) {
			lp.pcap = lp.pcap == 0 ? 16 : lp.pcap * 2;
			lp.pfd = xreallocarray(lp.pfd, lp.pcap,
			    sizeof *lp.pfd);
			lp.pserial = xreallocarray(lp.pserial, lp.pcap,
			    sizeof *lp.pserial);
		}
		ev = 0;
		if (lp.fds[i].mask & LOOP_READ)
			ev |= POLLIN;
		if (lp.fds[i].mask & LOOP_WRITE)
			ev |= POLLOUT;
		/* With no interest, -1: poll skips it, even its POLLHUP. */
		lp.pfd[n] = (struct pollfd){ ev != 0 ? (int)i : -1, ev, 0 };
		lp.pserial[n++] = lp.fds[i].serial;
	}
	return (n);
}

/*
 * One turn: poll until the earliest deadline (that of a timer, or the
 * caller's), call each fired descriptor's callback with what fired
 * (hang-up and error count as both, as far as it asked), then run the
 * timers that are due. A descriptor removed or replaced by an earlier
 * callback of the same turn is skipped.
 */
void
loop_run_once(int64_t deadline)
{
	struct loop_fd	*f;
	size_t		 n, i;
	int		 fd, fired;

	n = loop_build();
	deadline = loop_next_deadline(deadline);
	if (poll(lp.pfd, n, poll_timeout(deadline)) == -1) {
		if (errno == EINTR)
			return;
		fatalx("poll: %s", strerror(errno));
	}
	for (i = 0; i < n; i++) {
		if ((fd = lp.pfd[i].fd) == -1 || lp.pfd[i].revents == 0)
			continue;
		f = &lp.fds[fd];
		if (!f->used || f->serial != lp.pserial[i])
			continue;
		fired = 0;
		if (lp.pfd[i].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))
			fired |= LOOP_READ;
		if (lp.pfd[i].revents & (POLLOUT | POLLHUP | POLLERR |
		    POLLNVAL))
			fired |= LOOP_WRITE;
		fired &= f->mask;
		if (fired != 0)
			f->cb(fd, fired, f->arg);
	}
	loop_run_timers();
}
