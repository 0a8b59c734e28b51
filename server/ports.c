/*
 * ports.c — the TCP ports a program's process tree listens on, as its
 * reports and its waits (untilPort) ask for them.
 *
 * A walk (osdep.h: the tree's sockets matched with the kernel's
 * listening ones) is done a slice at a time: each loop turn gives the
 * walks in progress PORTS_SLICE_US between them (PORTS_SLICE_MIN_US each
 * at least), so a tree of a thousand processes and ten thousand sockets
 * never stalls the loop.
 * Whoever asked is told once its walk is over, from the loop, never
 * from ports_walk itself; it may let go of its ask at any time, told or
 * not. Asks of the same tree share a walk under way (or one over within
 * PORTS_FRESH_MS), so a thousand reads of a program answering at once
 * cost one walk. A walk is made only when asked for: nothing looks at
 * a program's sockets while no report or wait needs them.
 */
#include <sys/queue.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osdep.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define PORTS_SLICE_US	2000	/* walking per loop turn, at most */
#define PORTS_SLICE_MIN_US 200	/* each walk's share of it, at least */
#define PORTS_STEP	64	/* osdep_ports_step's work between clocks */
#define PORTS_FRESH_MS	20	/* a walk just over serves a new ask */
#define PORTS_TELL_MAX	64	/* asks told per loop turn, at most */

/* One walk of a tree, shared by every ask of the same root while it is
 * under way or was over within PORTS_FRESH_MS. */
struct ports_walk {
	pid_t			 root;
	struct osdep_ports	*w;	/* NULL: nothing to walk */
	const char		*unknown;	/* why not all are known */
	bool			 over;
	int64_t			 over_at;
	int			 refs;	/* asks holding it */
	TAILQ_ENTRY(ports_walk)	 entry;
};
TAILQ_HEAD(ports_walks, ports_walk);

/* An ask: told once its walk is over. */
struct ports {
	struct ports_walk	*pw;
	bool			 told;
	bool			 due;	/* in due: to be told this turn */
	ports_cb		 done;
	void			*arg;
	TAILQ_ENTRY(ports)	 entry;	/* in asks, or due, while not told */
};
TAILQ_HEAD(ports_list, ports);

static struct ports_walks	 walks = TAILQ_HEAD_INITIALIZER(walks);
static struct ports_list	 asks = TAILQ_HEAD_INITIALIZER(asks);
static struct ports_list	 due = TAILQ_HEAD_INITIALIZER(due);
static struct loop_timer	*ports_timer;

static void	ports_turn(void *);

/* The walk is over: what it could not tell is said from its bounds. */
static void
ports_finish(struct ports_walk *pw)
{
	int	cut = pw->w != NULL ? osdep_ports_cut(pw->w) : 0;

	pw->over = true;
	pw->over_at = now_ms();
	if (cut & OSDEP_PORTS_CUT_PROCS)
		pw->unknown = "its process tree has more than "
		    "1000 processes: the ports of the rest are not known";
	else if (cut & OSDEP_PORTS_CUT_SOCKETS)
		pw->unknown = "its processes hold more than 10000 "
		    "sockets: the ports of the rest are not known";
	else if (cut & OSDEP_PORTS_CUT_FOUND)
		pw->unknown = "it listens on more than 64 addresses: the "
		    "rest are not listed";
}

/* Run again on the next loop turn while any ask is not told. */
static void
ports_arm(void)
{
	if (ports_timer == NULL)
		ports_timer = loop_timer_new(ports_turn, NULL);
	if (!TAILQ_EMPTY(&asks) && !loop_timer_pending(ports_timer))
		loop_timer_set(ports_timer, now_ms());
}

/*
 * A loop turn's share: each walk under way a slice of the time, then
 * the asks whose walk is over are told (PORTS_TELL_MAX of them, the rest
 * on the next turns, so that a thousand replies due at once leave room
 * for other calls between them), one at a time from a list of their
 * own, since a callback may let go of any ask or make another.
 */
static void
ports_turn(void *arg)
{
	struct ports_walk	*pw;
	struct ports		*ps, *next;
	int64_t			 share, stop;
	int			 n = 0, told;

	(void)arg;
	TAILQ_FOREACH(pw, &walks, entry)
		n += !pw->over;
	share = n > 0 ? PORTS_SLICE_US / n : 0;
	if (share < PORTS_SLICE_MIN_US)
		share = PORTS_SLICE_MIN_US;
	TAILQ_FOREACH(pw, &walks, entry) {
		stop = now_us() + share;
		while (!pw->over && now_us() < stop)
			if (osdep_ports_step(pw->w, PORTS_STEP) == 1)
				ports_finish(pw);
	}
	told = 0;
	for (ps = TAILQ_FIRST(&asks); ps != NULL && told < PORTS_TELL_MAX;
	    ps = next) {
		next = TAILQ_NEXT(ps, entry);
		if (!ps->pw->over)
			continue;
		TAILQ_REMOVE(&asks, ps, entry);
		TAILQ_INSERT_TAIL(&due, ps, entry);
		ps->due = true;
		told++;
	}
	while ((ps = TAILQ_FIRST(&due)) != NULL) {
		TAILQ_REMOVE(&due, ps, entry);
		ps->due = false;
		ps->told = true;
		ps->done(ps->arg);
	}
	ports_arm();
}

/* A walk of root: one under way, or just over, if there is one. */
static struct ports_walk *
ports_walk_of(pid_t root)
{
	struct ports_walk	*pw;

	TAILQ_FOREACH(pw, &walks, entry)
		if (pw->root == root && (!pw->over ||
		    now_ms() - pw->over_at <= PORTS_FRESH_MS))
			return (pw);
	pw = xcalloc(1, sizeof *pw);
	pw->root = root;
	if (root <= 0)
		ports_finish(pw);
	else if ((pw->w = osdep_ports_new(root)) == NULL) {
		ports_finish(pw);
		pw->unknown = errno == ENOSYS ? "this system cannot tell "
		    "which ports a process listens on" : "its sockets could "
		    "not be read";
	}
	TAILQ_INSERT_TAIL(&walks, pw, entry);
	return (pw);
}

/*
 * The ports root's tree listens on (root 0: none, the program does not
 * run), from a walk begun now or one just over; done(arg) once it is
 * over, from a later loop turn.
 */
struct ports *
ports_walk(pid_t root, ports_cb done, void *arg)
{
	struct ports	*ps;

	ps = xcalloc(1, sizeof *ps);
	ps->done = done;
	ps->arg = arg;
	ps->pw = ports_walk_of(root);
	ps->pw->refs++;
	TAILQ_INSERT_TAIL(&asks, ps, entry);
	ports_arm();
	return (ps);
}

/* Let go of an ask, told or not (and of its walk, if it was the last). */
void
ports_free(struct ports *ps)
{
	struct ports_walk	*pw;

	if (ps == NULL)
		return;
	if (ps->due)
		TAILQ_REMOVE(&due, ps, entry);
	else if (!ps->told)
		TAILQ_REMOVE(&asks, ps, entry);
	pw = ps->pw;
	if (--pw->refs == 0) {
		TAILQ_REMOVE(&walks, pw, entry);
		osdep_ports_free(pw->w);
		free(pw);
	}
	free(ps);
}

/* Is the walk over (and what it found final)? */
bool
ports_over(const struct ports *ps)
{
	return (ps->pw->over);
}

/* What it found: the listening addresses, each once. */
static size_t
ports_found(const struct ports *ps, const struct osdep_listen **v)
{
	if (ps->pw->w == NULL) {
		*v = NULL;
		return (0);
	}
	return (osdep_ports_found(ps->pw->w, v));
}

/* Does it listen on port (0: on any)? */
bool
ports_has(const struct ports *ps, unsigned port)
{
	const struct osdep_listen	*v;
	size_t				 i, n = ports_found(ps, &v);

	for (i = 0; i < n; i++)
		if (port == 0 || v[i].port == port)
			return (true);
	return (false);
}

/* One address as a person writes it: "127.0.0.1", "::1". */
static void
ports_addr(const struct osdep_listen *l, char *buf, size_t len)
{
	if (inet_ntop(l->family, l->addr, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
}

/* "ports": [{"address", "port"}], and "portsUnknown" with why. */
void
ports_put(struct jw *w, const struct ports *ps)
{
	const struct osdep_listen	*v;
	char				 a[INET6_ADDRSTRLEN];
	size_t				 i, n;

	if (ps == NULL)
		return;
	if ((n = ports_found(ps, &v)) > 0) {
		jw_key(w, "ports");
		jw_arr_begin(w);
		for (i = 0; i < n; i++) {
			ports_addr(&v[i], a, sizeof a);
			jw_obj_begin(w);
			jw_key(w, "address");
			jw_str(w, a);
			jw_key(w, "port");
			jw_int(w, (int64_t)v[i].port);
			jw_obj_end(w);
		}
		jw_arr_end(w);
	}
	if (ps->pw->unknown != NULL) {
		jw_key(w, "portsUnknown");
		jw_str(w, ps->pw->unknown);
	}
}

/* The same in words: ", listening on 127.0.0.1:5173, [::1]:5173". */
void
ports_text(struct buf *b, const struct ports *ps)
{
	const struct osdep_listen	*v;
	char				 a[INET6_ADDRSTRLEN];
	size_t				 i, n;

	if (ps == NULL)
		return;
	n = ports_found(ps, &v);
	for (i = 0; i < n; i++) {
		ports_addr(&v[i], a, sizeof a);
		buf_printf(b, i == 0 ? ", listening on " : ", ");
		buf_printf(b, v[i].family == AF_INET6 ? "[%s]:%u" : "%s:%u",
		    a, v[i].port);
	}
	if (ps->pw->unknown != NULL)
		buf_printf(b, ", ports %s (%s)", n > 0 ? "not all known" :
		    "unknown", ps->pw->unknown);
}
