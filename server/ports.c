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
 * from ports_walk itself; it may free the walk at any time, told or not.
 * A walk is made only when asked for: nothing looks at a program's
 * sockets while no report or wait needs them.
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

struct ports {
	struct osdep_ports	*w;	/* NULL: over (or none to walk) */
	const char		*unknown;	/* why not all are known */
	bool			 over;
	bool			 told;
	ports_cb		 done;
	void			*arg;
	TAILQ_ENTRY(ports)	 entry;	/* in walks while not told */
};
TAILQ_HEAD(ports_list, ports);

static struct ports_list	 walks = TAILQ_HEAD_INITIALIZER(walks);
static struct loop_timer	*ports_timer;

static void	ports_turn(void *);

/* The walk is over: what it could not tell is said from its bounds. */
static void
ports_finish(struct ports *ps)
{
	int	cut = ps->w != NULL ? osdep_ports_cut(ps->w) : 0;

	ps->over = true;
	if (cut & OSDEP_PORTS_CUT_PROCS)
		ps->unknown = "its process tree has more than "
		    "1000 processes: the ports of the rest are not known";
	else if (cut & OSDEP_PORTS_CUT_SOCKETS)
		ps->unknown = "its processes hold more than 10000 "
		    "sockets: the ports of the rest are not known";
	else if (cut & OSDEP_PORTS_CUT_FOUND)
		ps->unknown = "it listens on more than 64 addresses: the "
		    "rest are not listed";
}

/* Run again on the next loop turn while any walk is not told. */
static void
ports_arm(void)
{
	if (ports_timer == NULL)
		ports_timer = loop_timer_new(ports_turn, NULL);
	if (!TAILQ_EMPTY(&walks) && !loop_timer_pending(ports_timer))
		loop_timer_set(ports_timer, now_ms());
}

/*
 * A loop turn's share: each walk in progress a slice of the time, then
 * whoever asked of those over is told, one at a time, since a callback
 * may free any walk or begin another.
 */
static void
ports_turn(void *arg)
{
	struct ports	*ps;
	int64_t		 share, stop;
	int		 n = 0;

	(void)arg;
	TAILQ_FOREACH(ps, &walks, entry)
		n += !ps->over;
	share = n > 0 ? PORTS_SLICE_US / n : 0;
	if (share < PORTS_SLICE_MIN_US)
		share = PORTS_SLICE_MIN_US;
	TAILQ_FOREACH(ps, &walks, entry) {
		stop = now_us() + share;
		while (!ps->over && now_us() < stop)
			if (osdep_ports_step(ps->w, PORTS_STEP) == 1)
				ports_finish(ps);
	}
	for (;;) {
		TAILQ_FOREACH(ps, &walks, entry)
			if (ps->over)
				break;
		if (ps == NULL)
			break;
		TAILQ_REMOVE(&walks, ps, entry);
		ps->told = true;
		ps->done(ps->arg);
	}
	ports_arm();
}

/*
 * Walk the ports root's tree listens on (root 0: none, the program does
 * not run); done(arg) once the walk is over, from a later loop turn.
 */
struct ports *
ports_walk(pid_t root, ports_cb done, void *arg)
{
	struct ports	*ps;

	ps = xcalloc(1, sizeof *ps);
	ps->done = done;
	ps->arg = arg;
	if (root <= 0)
		ps->over = true;
	else if ((ps->w = osdep_ports_new(root)) == NULL) {
		ps->over = true;
		ps->unknown = errno == ENOSYS ? "this system cannot tell "
		    "which ports a process listens on" : "its sockets could "
		    "not be read";
	}
	TAILQ_INSERT_TAIL(&walks, ps, entry);
	ports_arm();
	return (ps);
}

/* Let go of a walk, over or not. */
void
ports_free(struct ports *ps)
{
	if (ps == NULL)
		return;
	if (!ps->told)
		TAILQ_REMOVE(&walks, ps, entry);
	osdep_ports_free(ps->w);
	free(ps);
}

/* Is the walk over (and what it found final)? */
bool
ports_over(const struct ports *ps)
{
	return (ps->over);
}

/* What it found: the listening addresses, each once. */
static size_t
ports_found(const struct ports *ps, const struct osdep_listen **v)
{
	if (ps->w == NULL) {
		*v = NULL;
		return (0);
	}
	return (osdep_ports_found(ps->w, v));
}

/* Why not every port is known (the system, a bound), or NULL. */
const char *
ports_unknown(const struct ports *ps)
{
	return (ps->unknown);
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
	if (ps->unknown != NULL) {
		jw_key(w, "portsUnknown");
		jw_str(w, ps->unknown);
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
	if (ps->unknown != NULL)
		buf_printf(b, ", ports %s (%s)", n > 0 ? "not all known" :
		    "unknown", ps->unknown);
}
