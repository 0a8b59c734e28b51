/*
 * test_reaper_fsm.c — the reaper's state table (reaper/fsm.c), by its
 * properties: nothing here copies the table, so a cell changed on
 * purpose is changed in fsm.c alone (and, if it is one of the main rows
 * docs/ARCHITECTURE.md shows, there and in doc_rows below), and only the
 * properties it breaks fail.
 *
 * Every cell is defined; every state is reachable from "init" by events
 * that can come (a polled source's, the deadline, or a follow-up its
 * action may return); from every state each way of stopping ends in
 * "done" in a few steps and at most two deadlines (the front's going
 * holds the program on a lease, whose end counts as one); only the
 * frames that
 * come once are ever "unexpected"; a state polls a FIFO (and the
 * program's NOTIFY_SOCKET) exactly when it reads it, keeps polling it to the end, and closes it at EOF; every
 * chain of follow-ups ends; and the main rows docs/ARCHITECTURE.md
 * shows hold, one by one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fsm.h"

#define STOP_STEPS_MAX		8	/* events from a stop to "done" */
#define STOP_DEADLINES_MAX	2	/* the grace, then SIGKILL's fallback */

/* The events a poll source brings (fsm.h); the deadline is any state's. */
static bool
source_brings(unsigned polls, enum fsm_event e)
{
	switch (e) {
	case E_START:
	case E_PANE:
	case E_STOP:
	case E_QUIT:
	case E_FRONT_GONE:
	case E_ADOPTED:		/* the lease's socket, the front's stand-in */
		return ((polls & FSM_POLL_FRONT) != 0);
	case E_SIGNAL:
	case E_CHILD:
		return ((polls & FSM_POLL_SIGNALS) != 0);
	case E_FIFO_DATA:
		return ((polls & FSM_POLL_FIFO) != 0);
	case E_ERR_DATA:
		return ((polls & FSM_POLL_ERR) != 0);
	case E_LAUNCHER_GONE:
		return ((polls & FSM_POLL_LAUNCHER) != 0);
	case E_NOTIFY_DATA:
		return ((polls & FSM_POLL_NOTIFY) != 0);
	case E_DEADLINE:
	case E_LEASE_END:	/* the lease's own deadline */
		return (true);
	default:
		return (false);		/* follow-ups: from actions only */
	}
}

/* Is e a frame from the front? */
static bool
is_frame(enum fsm_event e)
{
	return (e == E_START || e == E_PANE || e == E_STOP || e == E_QUIT);
}

/* Every cell names a real action and a real state: no hole. */
static void
test_every_cell_defined(void **state)
{
	const struct fsm_cell	*c;
	int			 s, e;

	(void)state;
	for (s = 0; s < S_COUNT; s++)
		for (e = 0; e < E_COUNT; e++) {
			c = fsm_transition(s, e);
			if (c->action == A_INVALID || c->action >= A_COUNT ||
			    c->next >= S_COUNT)
				fail_msg("%s + %s: a hole (%s -> %d)",
				    fsm_state_name(s), fsm_event_name(e),
				    fsm_action_name(c->action), (int)c->next);
		}
}

/* Each of n names is a name ("?" is none), and no two are the same. */
static void
names_distinct(const char *what, const char *names[], int n)
{
	int	i, j;

	for (i = 0; i < n; i++) {
		if (strcmp(names[i], "?") == 0)
			fail_msg("%s %d has no name", what, i);
		for (j = 0; j < i; j++)
			if (strcmp(names[i], names[j]) == 0)
				fail_msg("%s %d and %d are both \"%s\"", what,
				    j, i, names[i]);
	}
}

/* Every state, event and action has a name of its own (the logs'). */
static void
test_names(void **state)
{
	const char	*names[(int)S_COUNT + (int)E_COUNT + (int)A_COUNT];
	int		 i;

	(void)state;
	for (i = 0; i < S_COUNT; i++)
		names[i] = fsm_state_name(i);
	names_distinct("state", names, S_COUNT);
	for (i = 0; i < E_COUNT; i++)
		names[i] = fsm_event_name(i);
	names_distinct("event", names, E_COUNT);
	for (i = 0; i < A_COUNT; i++)
		names[i] = fsm_action_name(i);
	names_distinct("action", names, A_COUNT);
}

/* Out of range asks get the invalid cell, not memory past the table. */
static void
test_out_of_range(void **state)
{
	(void)state;
	assert_int_equal(fsm_transition(S_COUNT, E_START)->action,
	    A_INVALID);
	assert_int_equal(fsm_transition(S_INIT, E_COUNT)->action,
	    A_INVALID);
	assert_int_equal(fsm_polls(S_COUNT), 0);
	assert_false(fsm_may_return(A_COUNT, E_NONE));
	assert_false(fsm_may_return(A_IGNORE, E_NONE + 1));
	assert_string_equal(fsm_state_name(S_COUNT), "?");
	assert_string_equal(fsm_event_name(E_COUNT), "?");
	assert_string_equal(fsm_action_name(A_COUNT), "?");
}

/*
 * Every state is reachable from "init", by events that can come where
 * they are dispatched: those of the sources the state polls, the
 * deadline, and the follow-ups that the action before may return.
 */
static void
test_every_state_reachable(void **state)
{
	static bool			 seen[S_COUNT][E_COUNT];
	static struct { int s, e; }	 queue[S_COUNT * E_COUNT];
	const struct fsm_cell		*c;
	bool				 reached[S_COUNT] = { [S_INIT] = true };
	size_t				 head = 0, tail = 0;
	int				 s, e, f;

	(void)state;
	memset(seen, 0, sizeof seen);
#define PUSH(ps, pe) do {						\
	if (!seen[ps][pe]) {						\
		seen[ps][pe] = true;					\
		queue[tail].s = (ps);					\
		queue[tail++].e = (pe);					\
	}								\
} while (0)
	for (e = 0; e < E_COUNT; e++)
		if (source_brings(fsm_polls(S_INIT), e))
			PUSH(S_INIT, e);
	while (head < tail) {
		s = queue[head].s;
		e = queue[head++].e;
		c = fsm_transition(s, e);
		reached[c->next] = true;
		for (f = 0; f < E_COUNT; f++)
			if (fsm_may_return(c->action, f))
				PUSH(c->next, f);
		if (fsm_may_return(c->action, E_NONE))
			for (f = 0; f < E_COUNT; f++)
				if (source_brings(fsm_polls(c->next), f))
					PUSH(c->next, f);
	}
#undef PUSH
	for (s = 0; s < S_COUNT; s++)
		if (!reached[s])
			fail_msg("%s cannot be reached from init",
			    fsm_state_name(s));
}

/*
 * What surely comes next in s when nothing else happens: the kill-pane
 * child's exit in "killpane" (past its bound it is killed, then
 * reaped), else, on a lease, the lease's end (at the grace's end, never
 * past the lifetime's), else the state's deadline.
 */
static enum fsm_event
world_next(enum fsm_state s, bool leased)
{
	if (s == S_KILLPANE)
		return (E_CHILD);
	return (leased ? E_LEASE_END : E_DEADLINE);
}

/* Does the action have a follow-up other than none? */
static bool
has_follow_up(enum fsm_action a)
{
	int	f;

	for (f = 0; f < E_COUNT; f++)
		if (fsm_may_return(a, f))
			return (true);
	return (false);
}

/*
 * Walk every way a stop can go from (s, e), each follow-up the action
 * may return and, when it may return none, what comes next anyway
 * (world_next): each must end in "done" within STOP_STEPS_MAX events and
 * STOP_DEADLINES_MAX deadlines. A check that re-arms the same deadline
 * in the same state (the orphan's) stands for all its repeats; it must
 * have a follow-up, which it returns once that deadline's end is
 * reached.
 */
static void
walk(enum fsm_state s, enum fsm_event e, int steps, int deadlines,
    bool leased, const char *path)
{
	const struct fsm_cell	*c = fsm_transition(s, e);
	char			 here[512];
	enum fsm_event		 w;
	int			 f;

	snprintf(here, sizeof here, "%s %s+%s", path, fsm_state_name(s),
	    fsm_event_name(e));
	steps++;
	if (e == E_DEADLINE || e == E_LEASE_END)
		deadlines++;
	if (e == E_LEASE_END)
		leased = false;
	if (steps > STOP_STEPS_MAX || deadlines > STOP_DEADLINES_MAX)
		fail_msg("too long to end:%s", here);
	for (f = 0; f < E_COUNT; f++)
		if (fsm_may_return(c->action, f))
			walk(c->next, f, steps, deadlines, leased, here);
	if (!fsm_may_return(c->action, E_NONE) || c->next == S_DONE)
		return;
	/* (A lease held, returning none: the lease's end comes next.) */
	leased = leased || c->action == A_LEASE;
	w = world_next(c->next, leased);
	if (c->next == s && e == w) {
		if (!has_follow_up(c->action))
			fail_msg("waits forever:%s", here);
		return;
	}
	walk(c->next, w, steps, deadlines, leased, here);
}

/*
 * From every state, each way of stopping ends in "done": "stop" (then
 * the deadlines), the front gone, a signal, a failure, "quit", with the
 * kill-pane child's exit for "killpane".
 */
static void
test_stop_paths_end(void **state)
{
	static const enum fsm_event	stops[] = { E_STOP, E_FRONT_GONE,
	    E_SIGNAL, E_FAIL, E_QUIT };
	size_t				i;
	int				s;

	(void)state;
	for (s = 0; s < S_COUNT; s++)
		for (i = 0; i < sizeof stops / sizeof stops[0]; i++)
			walk(s, stops[i], 0, 0, false, "");
}

/* Only frames are ever unexpected, and only the two that come once
 * each: "stop" and "quit" are taken anywhere, other events handled or
 * ignored. */
static void
test_unexpected_only_frames(void **state)
{
	enum fsm_state	s;
	enum fsm_event	e;

	(void)state;
	for (s = 0; s < S_COUNT; s++)
		for (e = 0; e < E_COUNT; e++) {
			if (fsm_transition(s, e)->action != A_UNEXPECTED)
				continue;
			if (!is_frame(e))
				fail_msg("%s + %s is unexpected, not a frame",
				    fsm_state_name(s), fsm_event_name(e));
			if (e != E_START && e != E_PANE)
				fail_msg("%s + %s is unexpected",
				    fsm_state_name(s), fsm_event_name(e));
		}
}

/* Does the action close the output FIFO? */
static bool
closes_fifo(enum fsm_action a)
{
	return (a == A_CLOSE_FIFO || a == A_PANE_CLOSED);
}

/*
 * What a state polls agrees with its cells: signals, the front and the
 * launcher always (so any stop can come); a FIFO exactly where its data
 * is read (a polled FIFO left unread would spin poll; an unpolled one's
 * cell is dead, so it ignores), at EOF closed, and, once polled, polled
 * in every state that follows, so its writer never waits on us.
 */
static void
test_polls_match_cells(void **state)
{
	const struct fsm_cell	*c;
	unsigned		 p;
	enum fsm_action		 a;
	int			 s, e;

	(void)state;
	for (s = 0; s < S_COUNT; s++) {
		p = fsm_polls(s);
		if ((p & FSM_POLL_SIGNALS) == 0 || (p & FSM_POLL_FRONT) == 0 ||
		    (p & FSM_POLL_LAUNCHER) == 0)
			fail_msg("%s does not poll signals, the front and "
			    "the launcher", fsm_state_name(s));
		a = fsm_transition(s, E_FIFO_DATA)->action;
		if ((p & FSM_POLL_FIFO) ? (a != A_READ && a != A_DRAIN) :
		    a != A_IGNORE)
			fail_msg("%s: polls the FIFO %s, fifo_data %s",
			    fsm_state_name(s), p & FSM_POLL_FIFO ? "yes" : "no",
			    fsm_action_name(a));
		if ((p & FSM_POLL_FIFO) &&
		    !closes_fifo(fsm_transition(s, E_FIFO_EOF)->action))
			fail_msg("%s: fifo_eof does not close it",
			    fsm_state_name(s));
		a = fsm_transition(s, E_ERR_DATA)->action;
		if ((p & FSM_POLL_ERR) ? a != A_ERR_READ : a != A_IGNORE)
			fail_msg("%s: polls stderr %s, err_data %s",
			    fsm_state_name(s), p & FSM_POLL_ERR ? "yes" : "no",
			    fsm_action_name(a));
		if ((p & FSM_POLL_ERR) &&
		    fsm_transition(s, E_ERR_EOF)->action != A_ERR_CLOSE)
			fail_msg("%s: err_eof does not close it",
			    fsm_state_name(s));
		a = fsm_transition(s, E_NOTIFY_DATA)->action;
		if ((p & FSM_POLL_NOTIFY) ? a != A_NOTIFY : a != A_IGNORE)
			fail_msg("%s: polls NOTIFY_SOCKET %s, notify_data %s",
			    fsm_state_name(s), p & FSM_POLL_NOTIFY ? "yes" :
			    "no", fsm_action_name(a));
		for (e = 0; e < E_COUNT; e++) {
			c = fsm_transition(s, e);
			if ((p & (FSM_POLL_FIFO | FSM_POLL_ERR) &
			    ~fsm_polls(c->next)) != 0)
				fail_msg("%s + %s -> %s stops polling a FIFO",
				    fsm_state_name(s), fsm_event_name(e),
				    fsm_state_name(c->next));
		}
	}
}

/* Does a chain of follow-ups from (s, e) come back to a pair on it? */
static bool
follow_loops(int s, int e, bool on[S_COUNT][E_COUNT])
{
	const struct fsm_cell	*c = fsm_transition(s, e);
	bool			 loops = false;
	int			 f;

	if (on[s][e])
		return (true);
	on[s][e] = true;
	for (f = 0; f < E_COUNT && !loops; f++)
		if (fsm_may_return(c->action, f))
			loops = follow_loops(c->next, f, on);
	on[s][e] = false;
	return (loops);
}

/*
 * Follow-ups: an action returns none of the loop's events (a frame, a
 * descriptor, the deadline, a signal) but the three it may find itself
 * (the launcher already gone, no kill-pane child to wait for, no lease
 * to be held); every
 * follow-up is returned by some action of some cell; and every chain of
 * them ends, so the dispatcher always returns to the loop.
 */
static void
test_follow_ups(void **state)
{
	static bool	on[S_COUNT][E_COUNT];
	bool		returned;
	int		a, s, e, in;

	(void)state;
	for (a = 0; a < A_COUNT; a++)
		for (e = 0; e < E_COUNT; e++)
			if (fsm_may_return(a, e) && source_brings(~0u, e) &&
			    e != E_LAUNCHER_GONE && e != E_CHILD &&
			    e != E_LEASE_END)
				fail_msg("%s may return %s", fsm_action_name(a),
				    fsm_event_name(e));
	for (e = 0; e < E_COUNT; e++) {
		if (source_brings(~0u, e))
			continue;	/* (the loop's own: none returns them) */
		returned = false;
		for (s = 0; s < S_COUNT && !returned; s++)
			for (in = 0; in < E_COUNT && !returned; in++)
				returned = fsm_may_return(
				    fsm_transition(s, in)->action, e);
		if (!returned)
			fail_msg("no action returns %s", fsm_event_name(e));
	}
	memset(on, 0, sizeof on);
	for (s = 0; s < S_COUNT; s++)
		for (e = 0; e < E_COUNT; e++)
			if (follow_loops(s, e, on))
				fail_msg("follow-ups from %s + %s never end",
				    fsm_state_name(s), fsm_event_name(e));
}

/* The state named name. */
static int
state_named(const char *name, size_t len)
{
	int	s;

	for (s = 0; s < S_COUNT; s++)
		if (strlen(fsm_state_name(s)) == len &&
		    strncmp(fsm_state_name(s), name, len) == 0)
			return (s);
	fail_msg("no state \"%.*s\"", (int)len, name);
	return (-1);
}

/* The event named name. */
static int
event_named(const char *name, size_t len)
{
	int	e;

	for (e = 0; e < E_COUNT; e++)
		if (strlen(fsm_event_name(e)) == len &&
		    strncmp(fsm_event_name(e), name, len) == 0)
			return (e);
	fail_msg("no event \"%.*s\"", (int)len, name);
	return (-1);
}

/* One row of the table of docs/ARCHITECTURE.md: for each of states, each
 * of events, the action and the next state (NULL: the same). */
struct doc_row {
	const char	*states;
	const char	*events;
	const char	*action;
	const char	*next;
};

/* The rows of the table in docs/ARCHITECTURE.md ("The reaper's states"). */
static const struct doc_row doc_rows[] = {
	{ "init", "start", "start", "wait_pane" },
	{ "wait_pane", "pane", "pane", "gate" },
	{ "gate", "piped", "gate", "running" },
	{ "wait_pane", "deadline", "end_early", "done" },
	{ "gate", "deadline", "no_writer", "done" },
	{ "init wait_pane gate", "stop", "end_early", "done" },
	{ "running", "run_marker", "launched", NULL },
	{ "term kill orphan", "run_marker", "launched_signal", NULL },
	{ "running", "end_marker", "ended", "held" },
	{ "running", "deadline", "tick", NULL },
	{ "running", "stop expire", "term", "term" },
	{ "term", "deadline", "kill", "kill" },
	{ "term kill", "end_marker", "stopped", "killpane" },
	{ "kill", "deadline", "give_up", "killpane" },
	{ "gate running term kill", "launcher_gone", "orphaned", "orphan" },
	{ "gate running term kill", "fifo_eof", "pane_closed", "orphan" },
	{ "orphan", "deadline", "orphan_check", NULL },
	{ "orphan", "end_marker", "orphan_ended", "done" },
	{ "orphan", "left_gone", "orphan_done", "done" },
	{ "held", "release", "release", "done" },
	{ "held", "stop deadline", "release_killpane", "killpane" },
	{ "held", "launcher_gone", "killpane", "killpane" },
	{ "killpane", "deadline", "killpane_timeout", NULL },
	{ "killpane", "child", "pane_killed", "done" },
	{ "init", "front_gone signal", "quit", "done" },
	{ "wait_pane", "front_gone", "leave", "killpane" },
	{ "wait_pane gate running term kill orphan held", "signal", "leave",
	    "killpane" },
	{ "gate running term kill orphan held killpane done", "front_gone",
	    "lease", NULL },
	{ "gate running term kill orphan held killpane done", "adopted",
	    "adopt", NULL },
	{ "gate running term kill orphan held", "lease_end", "leave",
	    "killpane" },
	{ "killpane done", "lease_end", "ignore", NULL },
	{ "init wait_pane", "quit", "quit", "done" },
	{ "gate running term kill orphan held", "quit", "leave", "killpane" },
	{ "init wait_pane gate running term kill orphan held", "fail", "fail",
	    "done" },
	{ "gate running term kill orphan", "fifo_data", "read", NULL },
	{ "held killpane done", "fifo_data", "drain", NULL },
	{ "gate running term kill orphan held killpane done", "err_data",
	    "err_read", NULL },
	{ "gate running term kill orphan held killpane done", "err_eof",
	    "err_close", NULL },
	{ "gate running term kill orphan held killpane done", "notify_data",
	    "notify", NULL },
	{ "done", "start pane", "ignore", NULL },
};

/* Each row docs/ARCHITECTURE.md documents holds, cell by cell. */
static void
test_documented_rows(void **state)
{
	const struct doc_row	*row;
	const struct fsm_cell	*c;
	const char		*sp, *ep;
	size_t			 i, sl, el;
	int			 s, e, next;

	(void)state;
	for (i = 0; i < sizeof doc_rows / sizeof doc_rows[0]; i++) {
		row = &doc_rows[i];
		for (sp = row->states; *sp != '\0'; sp += sl + (sp[sl] != 0)) {
			sl = strcspn(sp, " ");
			s = state_named(sp, sl);
			next = row->next == NULL ? s :
			    state_named(row->next, strlen(row->next));
			for (ep = row->events; *ep != '\0';
			    ep += el + (ep[el] != 0)) {
				el = strcspn(ep, " ");
				e = event_named(ep, el);
				c = fsm_transition(s, e);
				if (strcmp(fsm_action_name(c->action),
				    row->action) == 0 && (int)c->next == next)
					continue;
				fail_msg("%s + %s: %s -> %s, docs/ARCHITECTURE.md says "
				    "%s -> %s", fsm_state_name(s),
				    fsm_event_name(e),
				    fsm_action_name(c->action),
				    fsm_state_name(c->next), row->action,
				    fsm_state_name(next));
			}
		}
	}
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_every_cell_defined),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_out_of_range),
		cmocka_unit_test(test_every_state_reachable),
		cmocka_unit_test(test_stop_paths_end),
		cmocka_unit_test(test_unexpected_only_frames),
		cmocka_unit_test(test_polls_match_cells),
		cmocka_unit_test(test_follow_ups),
		cmocka_unit_test(test_documented_rows),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
