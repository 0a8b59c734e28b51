/*
 * loop.c — the front's one poll loop, in the manner of redis's ae.c.
 *
 * A module registers a descriptor with what it wants (LOOP_READ,
 * LOOP_WRITE) and a callback, and changes that interest as its state
 * changes (LOOP_WRITE only while it has something queued). A deadline is
 * a timer (loop_timer_new), set to an absolute time and cleared or set
 * again as its owner's state changes; the set ones are kept in a
 * min-heap, so setting, clearing and finding the earliest cost O(log n)
 * however many there are (each waiting request holds its own), and a
 * turn costs nothing for the timers that are not due. loop_run_once()
 * polls until the earliest deadline, calls each fired descriptor's
 * callback, then runs the timers that are due, earliest first; one set
 * during a turn runs on the next at the earliest. The descriptor
 * registrations live in a table indexed by descriptor; each
 * carries a serial number, so a callback that removes (or closes and
 * reuses) another descriptor never has that one dispatched with the
 * revents of the one it replaced.
 *
 * Running and shutting down are the same loop: main.c calls
 * loop_run_once() until it is done.
 */
#include <sys/queue.h>

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define LOOP_HOOKS_MAX	8	/* before-sleep hooks */

struct loop_fd {
	int		 mask;		/* LOOP_READ | LOOP_WRITE, 0: none */
	bool		 used;
	uint64_t	 serial;	/* of this registration */
	loop_fd_cb	 cb;
	void		*arg;
};

/* A timer: in the heap while set (slot), or in the due list while its
 * pass runs it. */
struct loop_timer {
	loop_timer_cb	 cb;
	void		*arg;
	int64_t		 when;		/* CLOCK_MONOTONIC ms */
	uint64_t	 seq;		/* when it was set, to order ties */
	uint64_t	 turn;		/* the turn it was set in */
	size_t		 slot;		/* in the heap, or LOOP_NOSLOT */
	bool		 due;		/* in the due list */
	TAILQ_ENTRY(loop_timer) entry;
};
TAILQ_HEAD(loop_timers, loop_timer);
#define LOOP_NOSLOT	SIZE_MAX

static struct {
	struct loop_fd	 *fds;		/* indexed by descriptor */
	size_t		  nfds;		/* its size */
	uint64_t	  serial;
	struct loop_timer **heap;	/* a min-heap by (when, seq) */
	size_t		  nheap;
	size_t		  heapcap;
	uint64_t	  timer_seq;
	uint64_t	  turn;
	struct loop_timers due;		/* taken out by the pass running */
	struct pollfd	 *pfd;		/* the last poll's array */
	uint64_t	 *pserial;	/* each entry's registration */
	size_t		  pcap;
	struct {
		loop_timer_cb	 cb;
		void		*arg;
	}		  hooks[LOOP_HOOKS_MAX];	/* before each sleep */
	size_t		  nhooks;
} lp = { .due = TAILQ_HEAD_INITIALIZER(lp.due) };

/*
 * Run cb(arg) at the start of every turn, before the loop sleeps (as
 * ae.c's beforesleep): for work deferred until what the last turn
 * queued has gone out (the caller flushes its replies between turns).
 */
void
loop_before_sleep(loop_timer_cb cb, void *arg)
{
	size_t	i;

	for (i = 0; i < lp.nhooks; i++)
		if (lp.hooks[i].cb == cb && lp.hooks[i].arg == arg)
			return;		/* once is enough */
	if (lp.nhooks == LOOP_HOOKS_MAX)
		fatalx("loop_before_sleep: more than %d hooks", LOOP_HOOKS_MAX);
	lp.hooks[lp.nhooks].cb = cb;
	lp.hooks[lp.nhooks].arg = arg;
	lp.nhooks++;
}

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

/* Is a before b in the heap: earlier, or as early and set first? */
static bool
loop_timer_before(const struct loop_timer *a, const struct loop_timer *b)
{
	return (a->when < b->when || (a->when == b->when && a->seq < b->seq));
}

/* Put t at slot i of the heap. */
static void
loop_heap_put(struct loop_timer *t, size_t i)
{
	lp.heap[i] = t;
	t->slot = i;
}

/* Move the timer at slot i up or down until the heap is ordered again. */
static void
loop_heap_fix(size_t i)
{
	struct loop_timer	*t = lp.heap[i];
	size_t			 parent, child;

	while (i > 0 && loop_timer_before(t, lp.heap[parent = (i - 1) / 2])) {
		loop_heap_put(lp.heap[parent], i);
		i = parent;
	}
	for (;;) {
		child = 2 * i + 1;
		if (child >= lp.nheap)
			break;
		if (child + 1 < lp.nheap &&
		    loop_timer_before(lp.heap[child + 1], lp.heap[child]))
			child++;
		if (!loop_timer_before(lp.heap[child], t))
			break;
		loop_heap_put(lp.heap[child], i);
		i = child;
	}
	loop_heap_put(t, i);
}

/* Take t out of the heap, or out of the pass's due list. */
static void
loop_timer_unlink(struct loop_timer *t)
{
	struct loop_timer	*last;
	size_t			 i = t->slot;

	if (t->due) {
		TAILQ_REMOVE(&lp.due, t, entry);
		t->due = false;
		return;
	}
	if (i == LOOP_NOSLOT)
		return;
	t->slot = LOOP_NOSLOT;
	last = lp.heap[--lp.nheap];
	if (last != t) {
		loop_heap_put(last, i);
		loop_heap_fix(i);
	}
}

/* A timer, not set: cb(arg) runs each time it is set and comes due. */
struct loop_timer *
loop_timer_new(loop_timer_cb cb, void *arg)
{
	struct loop_timer	*t;

	t = xcalloc(1, sizeof *t);
	t->cb = cb;
	t->arg = arg;
	t->slot = LOOP_NOSLOT;
	return (t);
}

/*
 * Set t to come due at when (CLOCK_MONOTONIC ms; DEADLINE_NONE clears
 * it), replacing any time it had. A timer set during a turn runs at the
 * earliest on the next one, even if already due: after the replies of
 * this turn have been written, and never in a loop of its own.
 */
void
loop_timer_set(struct loop_timer *t, int64_t when)
{
	loop_timer_unlink(t);
	if (when == DEADLINE_NONE)
		return;
	t->when = when;
	t->seq = ++lp.timer_seq;
	t->turn = lp.turn;
	if (lp.nheap == lp.heapcap) {
		lp.heapcap = lp.heapcap == 0 ? 64 : lp.heapcap * 2;
		lp.heap = xreallocarray(lp.heap, lp.heapcap, sizeof *lp.heap);
	}
	loop_heap_put(t, lp.nheap++);
	loop_heap_fix(t->slot);
}

/* Make t not due (it may be set again). */
void
loop_timer_clear(struct loop_timer *t)
{
	if (t != NULL)
		loop_timer_unlink(t);
}

/* Is t set? */
bool
loop_timer_pending(const struct loop_timer *t)
{
	return (t != NULL && (t->due || t->slot != LOOP_NOSLOT));
}

/* When t comes due, or DEADLINE_NONE if it is not set. */
int64_t
loop_timer_when(const struct loop_timer *t)
{
	return (loop_timer_pending(t) ? t->when : DEADLINE_NONE);
}

/* Free t (NULL is fine), set or not; also from its own callback. */
void
loop_timer_free(struct loop_timer *t)
{
	if (t == NULL)
		return;
	loop_timer_unlink(t);
	free(t);
}

/* The earlier of the given deadline and the first timer's. */
int64_t
loop_next_deadline(int64_t deadline)
{
	if (lp.nheap > 0 && lp.heap[0]->when < deadline)
		deadline = lp.heap[0]->when;
	return (deadline);
}

/* This turn's number: it grows by one each turn (work bounded per turn
 * counts by it). */
uint64_t
loop_turn(void)
{
	return (lp.turn);
}

/*
 * Run the timers due at now, earliest first. Those set during this turn
 * wait for the next one. Every due one is taken out of the heap first,
 * into the due list, and each is unlinked before its callback runs, so a
 * callback may set, clear or free any timer, its own included.
 */
static void
loop_timers_pass(int64_t now)
{
	struct loop_timer	*t;
	struct loop_timers	 later;

	TAILQ_INIT(&later);
	while (lp.nheap > 0 && (t = lp.heap[0])->when <= now) {
		loop_timer_unlink(t);
		t->due = true;
		if (t->turn == lp.turn)
			TAILQ_INSERT_TAIL(&later, t, entry);
		else
			TAILQ_INSERT_TAIL(&lp.due, t, entry);
	}
	while ((t = TAILQ_FIRST(&later)) != NULL) {
		TAILQ_REMOVE(&later, t, entry);
		t->due = false;
		loop_heap_put(t, lp.nheap++);	/* (it was in the heap) */
		loop_heap_fix(t->slot);
	}
	while ((t = TAILQ_FIRST(&lp.due)) != NULL) {
		TAILQ_REMOVE(&lp.due, t, entry);
		t->due = false;
		t->cb(t->arg);
	}
}

#ifdef PROGMUX_TESTING
/* Run, as a turn of its own, every timer due at now (the fuzz harness
 * passes a time past every deadline). */
void
loop_run_timers(int64_t now)
{
	lp.turn++;
	loop_timers_pass(now);
}
#endif

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
 * One turn: the before-sleep hooks, then poll until the earliest deadline (that of a timer, or the
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

	for (i = 0; i < lp.nhooks; i++)
		lp.hooks[i].cb(lp.hooks[i].arg);
	lp.turn++;
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
	loop_timers_pass(now_ms());
}
