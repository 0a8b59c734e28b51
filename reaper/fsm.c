/*
 * fsm.c — the reaper's state table (fsm.h), in the manner of
 * s6-supervise's actions[state][event]: one row per state, one cell per
 * event, each naming the action and the next state. A cell left out
 * would read as A_INVALID; the unit test finds any.
 */
#include <stddef.h>

#include "fsm.h"

#define C(a, n)	{ A_##a, S_##n }

/* The rows of the states in which the program runs share most cells. */
#define RUNNING_LIKE(self)						\
	[E_PIPED] = C(IGNORE, self),					\
	[E_QUIT] = C(QUIT, DONE),					\
	[E_FRONT_GONE] = C(LEAVE, KILLPANE),				\
	[E_FIFO_DATA] = C(READ, self),					\
	[E_SIGNAL] = C(LEAVE, KILLPANE),				\
	[E_CHILD] = C(IGNORE, self),					\
	[E_FAIL] = C(FAIL, DONE),					\
	[E_RELEASE] = C(IGNORE, self)

static const struct fsm_cell fsm_table[S_COUNT][E_COUNT] = {
	[S_INIT] = {
		[E_START] = C(START, WAIT_PANE),
		[E_PANE] = C(UNEXPECTED, INIT),
		[E_STOP] = C(END_EARLY, DONE),
		[E_QUIT] = C(QUIT, DONE),
		[E_FRONT_GONE] = C(QUIT, DONE),
		[E_FIFO_DATA] = C(IGNORE, INIT),
		[E_FIFO_EOF] = C(IGNORE, INIT),
		[E_RUN_MARKER] = C(IGNORE, INIT),
		[E_END_MARKER] = C(IGNORE, INIT),
		[E_LAUNCHER_GONE] = C(IGNORE, INIT),
		[E_DEADLINE] = C(IGNORE, INIT),
		[E_SIGNAL] = C(QUIT, DONE),
		[E_CHILD] = C(IGNORE, INIT),
		[E_FAIL] = C(FAIL, DONE),
		[E_EXPIRE] = C(IGNORE, INIT),
		[E_RELEASE] = C(IGNORE, INIT),
		[E_LEFT_GONE] = C(IGNORE, INIT),
		[E_PIPED] = C(IGNORE, INIT),
	},
	[S_WAIT_PANE] = {
		[E_START] = C(UNEXPECTED, WAIT_PANE),
		[E_PANE] = C(PANE, GATE),
		[E_STOP] = C(END_EARLY, DONE),
		[E_QUIT] = C(QUIT, DONE),
		[E_FRONT_GONE] = C(LEAVE, KILLPANE),
		[E_FIFO_DATA] = C(IGNORE, WAIT_PANE),
		[E_FIFO_EOF] = C(IGNORE, WAIT_PANE),
		[E_RUN_MARKER] = C(IGNORE, WAIT_PANE),
		[E_END_MARKER] = C(IGNORE, WAIT_PANE),
		[E_LAUNCHER_GONE] = C(IGNORE, WAIT_PANE),
		[E_DEADLINE] = C(END_EARLY, DONE),
		[E_SIGNAL] = C(LEAVE, KILLPANE),
		[E_CHILD] = C(IGNORE, WAIT_PANE),
		[E_FAIL] = C(FAIL, DONE),
		[E_EXPIRE] = C(IGNORE, WAIT_PANE),
		[E_RELEASE] = C(IGNORE, WAIT_PANE),
		[E_LEFT_GONE] = C(IGNORE, WAIT_PANE),
		[E_PIPED] = C(IGNORE, WAIT_PANE),
	},
	/* The launcher gets its spec only once the pane's writer has opened
	 * the output FIFO (and removed its name): nothing the program writes
	 * can be read by anyone else, nor is its name there for it to see. */
	[S_GATE] = {
		[E_START] = C(UNEXPECTED, GATE),
		[E_PANE] = C(UNEXPECTED, GATE),
		[E_STOP] = C(END_EARLY, DONE),
		[E_QUIT] = C(QUIT, DONE),
		[E_FRONT_GONE] = C(LEAVE, KILLPANE),
		[E_FIFO_DATA] = C(READ, GATE),
		[E_FIFO_EOF] = C(PANE_CLOSED, ORPHAN),
		[E_RUN_MARKER] = C(IGNORE, GATE),
		[E_END_MARKER] = C(IGNORE, GATE),
		[E_LAUNCHER_GONE] = C(ORPHANED, ORPHAN),
		[E_DEADLINE] = C(NO_WRITER, DONE),
		[E_SIGNAL] = C(LEAVE, KILLPANE),
		[E_CHILD] = C(IGNORE, GATE),
		[E_FAIL] = C(FAIL, DONE),
		[E_EXPIRE] = C(IGNORE, GATE),
		[E_RELEASE] = C(IGNORE, GATE),
		[E_LEFT_GONE] = C(IGNORE, GATE),
		[E_PIPED] = C(GATE, RUNNING),
	},
	[S_RUNNING] = {
		RUNNING_LIKE(RUNNING),
		[E_START] = C(UNEXPECTED, RUNNING),
		[E_PANE] = C(UNEXPECTED, RUNNING),
		[E_STOP] = C(TERM, TERM),
		[E_FIFO_EOF] = C(PANE_CLOSED, ORPHAN),
		[E_RUN_MARKER] = C(LAUNCHED, RUNNING),
		[E_END_MARKER] = C(ENDED, HELD),
		[E_LAUNCHER_GONE] = C(ORPHANED, ORPHAN),
		[E_DEADLINE] = C(TICK, RUNNING),
		[E_EXPIRE] = C(TERM, TERM),
		[E_LEFT_GONE] = C(IGNORE, RUNNING),
	},
	[S_TERM] = {
		RUNNING_LIKE(TERM),
		[E_START] = C(UNEXPECTED, TERM),
		[E_PANE] = C(UNEXPECTED, TERM),
		[E_STOP] = C(IGNORE, TERM),
		[E_FIFO_EOF] = C(PANE_CLOSED, ORPHAN),
		[E_RUN_MARKER] = C(LAUNCHED_SIGNAL, TERM),
		[E_END_MARKER] = C(STOPPED, KILLPANE),
		[E_LAUNCHER_GONE] = C(ORPHANED, ORPHAN),
		[E_DEADLINE] = C(KILL, KILL),
		[E_EXPIRE] = C(IGNORE, TERM),
		[E_LEFT_GONE] = C(IGNORE, TERM),
	},
	[S_KILL] = {
		RUNNING_LIKE(KILL),
		[E_START] = C(UNEXPECTED, KILL),
		[E_PANE] = C(UNEXPECTED, KILL),
		[E_STOP] = C(IGNORE, KILL),
		[E_FIFO_EOF] = C(PANE_CLOSED, ORPHAN),
		[E_RUN_MARKER] = C(LAUNCHED_SIGNAL, KILL),
		[E_END_MARKER] = C(STOPPED, KILLPANE),
		[E_LAUNCHER_GONE] = C(ORPHANED, ORPHAN),
		[E_DEADLINE] = C(GIVE_UP, KILLPANE),
		[E_EXPIRE] = C(IGNORE, KILL),
		[E_LEFT_GONE] = C(IGNORE, KILL),
	},
	[S_ORPHAN] = {
		RUNNING_LIKE(ORPHAN),
		[E_START] = C(UNEXPECTED, ORPHAN),
		[E_PANE] = C(UNEXPECTED, ORPHAN),
		[E_STOP] = C(IGNORE, ORPHAN),
		[E_FIFO_EOF] = C(CLOSE_FIFO, ORPHAN),
		[E_RUN_MARKER] = C(LAUNCHED_SIGNAL, ORPHAN),
		[E_END_MARKER] = C(ORPHAN_ENDED, DONE),
		[E_LAUNCHER_GONE] = C(IGNORE, ORPHAN),
		[E_DEADLINE] = C(ORPHAN_CHECK, ORPHAN),
		[E_EXPIRE] = C(IGNORE, ORPHAN),
		[E_LEFT_GONE] = C(ORPHAN_DONE, DONE),
	},
	[S_HELD] = {
		[E_START] = C(UNEXPECTED, HELD),
		[E_PANE] = C(UNEXPECTED, HELD),
		[E_STOP] = C(RELEASE_KILLPANE, KILLPANE),
		[E_QUIT] = C(QUIT, DONE),
		[E_FRONT_GONE] = C(LEAVE, KILLPANE),
		[E_FIFO_DATA] = C(DRAIN, HELD),
		[E_FIFO_EOF] = C(CLOSE_FIFO, DONE),
		[E_RUN_MARKER] = C(IGNORE, HELD),
		[E_END_MARKER] = C(IGNORE, HELD),
		[E_LAUNCHER_GONE] = C(KILLPANE, KILLPANE),
		[E_DEADLINE] = C(RELEASE_KILLPANE, KILLPANE),
		[E_SIGNAL] = C(LEAVE, KILLPANE),
		[E_CHILD] = C(IGNORE, HELD),
		[E_FAIL] = C(FAIL, DONE),
		[E_EXPIRE] = C(IGNORE, HELD),
		[E_RELEASE] = C(RELEASE, DONE),
		[E_LEFT_GONE] = C(IGNORE, HELD),
		[E_PIPED] = C(IGNORE, HELD),
	},
	[S_KILLPANE] = {
		[E_START] = C(UNEXPECTED, KILLPANE),
		[E_PANE] = C(UNEXPECTED, KILLPANE),
		[E_STOP] = C(IGNORE, KILLPANE),
		[E_QUIT] = C(IGNORE, KILLPANE),
		[E_FRONT_GONE] = C(IGNORE, KILLPANE),
		[E_FIFO_DATA] = C(DRAIN, KILLPANE),
		[E_FIFO_EOF] = C(CLOSE_FIFO, KILLPANE),
		[E_RUN_MARKER] = C(IGNORE, KILLPANE),
		[E_END_MARKER] = C(IGNORE, KILLPANE),
		[E_LAUNCHER_GONE] = C(IGNORE, KILLPANE),
		[E_DEADLINE] = C(KILLPANE_TIMEOUT, KILLPANE),
		[E_SIGNAL] = C(IGNORE, KILLPANE),
		[E_CHILD] = C(PANE_KILLED, DONE),
		[E_FAIL] = C(IGNORE, KILLPANE),
		[E_EXPIRE] = C(IGNORE, KILLPANE),
		[E_RELEASE] = C(IGNORE, KILLPANE),
		[E_LEFT_GONE] = C(IGNORE, KILLPANE),
		[E_PIPED] = C(IGNORE, KILLPANE),
	},
	[S_DONE] = {
		[E_START] = C(UNEXPECTED, DONE),
		[E_PANE] = C(IGNORE, DONE),	/* stopped before its pane */
		[E_STOP] = C(IGNORE, DONE),
		[E_QUIT] = C(IGNORE, DONE),
		[E_FRONT_GONE] = C(IGNORE, DONE),
		[E_FIFO_DATA] = C(DRAIN, DONE),
		[E_FIFO_EOF] = C(CLOSE_FIFO, DONE),
		[E_RUN_MARKER] = C(IGNORE, DONE),
		[E_END_MARKER] = C(IGNORE, DONE),
		[E_LAUNCHER_GONE] = C(IGNORE, DONE),
		[E_DEADLINE] = C(IGNORE, DONE),
		[E_SIGNAL] = C(IGNORE, DONE),
		[E_CHILD] = C(IGNORE, DONE),
		[E_FAIL] = C(IGNORE, DONE),
		[E_EXPIRE] = C(IGNORE, DONE),
		[E_RELEASE] = C(IGNORE, DONE),
		[E_LEFT_GONE] = C(IGNORE, DONE),
		[E_PIPED] = C(IGNORE, DONE),
	},
};

static const char *const fsm_states[S_COUNT] = {
	"init", "wait_pane", "gate", "running", "term", "kill", "orphan", "held",
	"killpane", "done"
};

static const char *const fsm_events[E_COUNT] = {
	"start", "pane", "stop", "quit", "front_gone", "fifo_data",
	"fifo_eof", "run_marker", "end_marker", "launcher_gone", "deadline",
	"signal", "child", "fail", "expire", "release", "left_gone", "piped"
};

static const char *const fsm_actions[A_COUNT] = {
	"invalid", "ignore", "unexpected", "start", "pane", "gate",
	"no_writer", "end_early",
	"quit", "leave", "read", "drain", "close_fifo", "pane_closed",
	"launched", "launched_signal", "ended", "stopped", "orphan_ended",
	"release", "release_killpane", "killpane", "tick", "term", "kill",
	"give_up", "orphaned", "orphan_check", "orphan_done", "pane_killed",
	"killpane_timeout", "fail"
};

const struct fsm_cell *
fsm_transition(enum fsm_state s, enum fsm_event e)
{
	static const struct fsm_cell	invalid = { A_INVALID, S_DONE };

	if ((unsigned)s >= S_COUNT || (unsigned)e >= E_COUNT)
		return (&invalid);
	return (&fsm_table[s][e]);
}

/* Names, for logs and tests. */
const char *
fsm_state_name(enum fsm_state s)
{
	return ((unsigned)s < S_COUNT ? fsm_states[s] : "?");
}

/* The name of an event. */
const char *
fsm_event_name(enum fsm_event e)
{
	return ((unsigned)e < E_COUNT ? fsm_events[e] : "?");
}

/* The name of an action. */
const char *
fsm_action_name(enum fsm_action a)
{
	return ((unsigned)a < A_COUNT ? fsm_actions[a] : "?");
}
