/*
 * fsm.c — the reaper's state table (fsm.h), in the manner of
 * s6-supervise's actions[state][event]: one row per state, one cell per
 * event, each naming the action and the next state. A cell left out
 * would read as A_INVALID; the unit test finds any. Beside it, what
 * each state polls, and which follow-up events each action may return
 * (the dispatcher warns of any other).
 */
#include <stddef.h>
#include <stdint.h>

#include "fsm.h"

#define C(a, n)	{ A_##a, S_##n }

/* The rows of the states in which the program runs share most cells. */
#define RUNNING_LIKE(self)						\
	LEASED(self),							\
	[E_PIPED] = C(IGNORE, self),					\
	[E_QUIT] = C(LEAVE, KILLPANE),					\
	[E_FIFO_DATA] = C(READ, self),					\
	[E_SIGNAL] = C(LEAVE, KILLPANE),				\
	[E_CHILD] = C(IGNORE, self),					\
	[E_FAIL] = C(FAIL, DONE),					\
	[E_RELEASE] = C(IGNORE, self)

/* From the pane's writer on, a program whose front goes is held for its
 * grace (a lease), for a new front to adopt; at the grace's end (or with
 * no lease to hold) it is left as the front's going always left it. */
#define LEASED(self)							\
	[E_FRONT_GONE] = C(LEASE, self),				\
	[E_ADOPTED] = C(ADOPT, self),					\
	[E_LEASE_END] = C(LEAVE, KILLPANE)

/* Ending already: a lease is held to tell a new front the end, and its
 * grace's end has nothing left to end. */
#define ENDING(self)							\
	[E_FRONT_GONE] = C(LEASE, self),				\
	[E_ADOPTED] = C(ADOPT, self),					\
	[E_LEASE_END] = C(IGNORE, self)

/* Before the pane's writer: the front's going ends it at once. */
#define NO_LEASE(self)							\
	[E_ADOPTED] = C(IGNORE, self),					\
	[E_LEASE_END] = C(IGNORE, self)

/* Standard error and NOTIFY_SOCKET are read in every state that polls
 * them (fsm_polls). */
#define READS_ERR(self)							\
	[E_ERR_DATA] = C(ERR_READ, self),				\
	[E_ERR_EOF] = C(ERR_CLOSE, self),				\
	[E_NOTIFY_DATA] = C(NOTIFY, self)

static const struct fsm_cell fsm_table[S_COUNT][E_COUNT] = {
	[S_INIT] = {
		NO_LEASE(INIT),
		[E_START] = C(START, WAIT_PANE),
		[E_PANE] = C(UNEXPECTED, INIT),
		[E_STOP] = C(END_EARLY, DONE),
		[E_QUIT] = C(QUIT, DONE),
		[E_FRONT_GONE] = C(QUIT, DONE),
		[E_FIFO_DATA] = C(IGNORE, INIT),
		[E_ERR_DATA] = C(IGNORE, INIT),
		[E_LAUNCHER_GONE] = C(IGNORE, INIT),
		[E_DEADLINE] = C(IGNORE, INIT),
		[E_SIGNAL] = C(QUIT, DONE),
		[E_CHILD] = C(IGNORE, INIT),
		[E_NOTIFY_DATA] = C(IGNORE, INIT),
		[E_FIFO_EOF] = C(IGNORE, INIT),
		[E_PIPED] = C(IGNORE, INIT),
		[E_RUN_MARKER] = C(IGNORE, INIT),
		[E_END_MARKER] = C(IGNORE, INIT),
		[E_ERR_EOF] = C(IGNORE, INIT),
		[E_FAIL] = C(FAIL, DONE),
		[E_EXPIRE] = C(IGNORE, INIT),
		[E_RELEASE] = C(IGNORE, INIT),
		[E_LEFT_GONE] = C(IGNORE, INIT),
	},
	[S_WAIT_PANE] = {
		NO_LEASE(WAIT_PANE),
		[E_START] = C(UNEXPECTED, WAIT_PANE),
		[E_PANE] = C(PANE, GATE),
		[E_STOP] = C(END_EARLY, DONE),
		[E_QUIT] = C(QUIT, DONE),
		[E_FRONT_GONE] = C(LEAVE, KILLPANE),
		[E_FIFO_DATA] = C(IGNORE, WAIT_PANE),
		[E_ERR_DATA] = C(IGNORE, WAIT_PANE),
		[E_LAUNCHER_GONE] = C(IGNORE, WAIT_PANE),
		[E_DEADLINE] = C(END_EARLY, DONE),
		[E_SIGNAL] = C(LEAVE, KILLPANE),
		[E_CHILD] = C(IGNORE, WAIT_PANE),
		[E_NOTIFY_DATA] = C(IGNORE, WAIT_PANE),
		[E_FIFO_EOF] = C(IGNORE, WAIT_PANE),
		[E_PIPED] = C(IGNORE, WAIT_PANE),
		[E_RUN_MARKER] = C(IGNORE, WAIT_PANE),
		[E_END_MARKER] = C(IGNORE, WAIT_PANE),
		[E_ERR_EOF] = C(IGNORE, WAIT_PANE),
		[E_FAIL] = C(FAIL, DONE),
		[E_EXPIRE] = C(IGNORE, WAIT_PANE),
		[E_RELEASE] = C(IGNORE, WAIT_PANE),
		[E_LEFT_GONE] = C(IGNORE, WAIT_PANE),
	},
	/* The launcher gets its spec only once the pane's writer has opened
	 * the output FIFO (and removed its name): nothing the program writes
	 * can be read by anyone else, nor is its name there for it to see. */
	[S_GATE] = {
		READS_ERR(GATE),
		LEASED(GATE),
		[E_START] = C(UNEXPECTED, GATE),
		[E_PANE] = C(UNEXPECTED, GATE),
		[E_STOP] = C(END_EARLY, DONE),
		[E_QUIT] = C(LEAVE, KILLPANE),
		[E_FIFO_DATA] = C(READ, GATE),
		[E_LAUNCHER_GONE] = C(ORPHANED, ORPHAN),
		[E_DEADLINE] = C(NO_WRITER, DONE),
		[E_SIGNAL] = C(LEAVE, KILLPANE),
		[E_CHILD] = C(IGNORE, GATE),
		[E_FIFO_EOF] = C(PANE_CLOSED, ORPHAN),
		[E_PIPED] = C(GATE, RUNNING),
		[E_RUN_MARKER] = C(IGNORE, GATE),
		[E_END_MARKER] = C(IGNORE, GATE),
		[E_FAIL] = C(FAIL, DONE),
		[E_EXPIRE] = C(IGNORE, GATE),
		[E_RELEASE] = C(IGNORE, GATE),
		[E_LEFT_GONE] = C(IGNORE, GATE),
	},
	[S_RUNNING] = {
		RUNNING_LIKE(RUNNING),
		READS_ERR(RUNNING),
		[E_START] = C(UNEXPECTED, RUNNING),
		[E_PANE] = C(UNEXPECTED, RUNNING),
		[E_STOP] = C(TERM, TERM),
		[E_LAUNCHER_GONE] = C(ORPHANED, ORPHAN),
		[E_DEADLINE] = C(TICK, RUNNING),
		[E_FIFO_EOF] = C(PANE_CLOSED, ORPHAN),
		[E_RUN_MARKER] = C(LAUNCHED, RUNNING),
		[E_END_MARKER] = C(ENDED, HELD),
		[E_EXPIRE] = C(TERM, TERM),
		[E_LEFT_GONE] = C(IGNORE, RUNNING),
	},
	[S_TERM] = {
		RUNNING_LIKE(TERM),
		READS_ERR(TERM),
		[E_START] = C(UNEXPECTED, TERM),
		[E_PANE] = C(UNEXPECTED, TERM),
		[E_STOP] = C(IGNORE, TERM),
		[E_LAUNCHER_GONE] = C(ORPHANED, ORPHAN),
		[E_DEADLINE] = C(KILL, KILL),
		[E_FIFO_EOF] = C(PANE_CLOSED, ORPHAN),
		[E_RUN_MARKER] = C(LAUNCHED_SIGNAL, TERM),
		[E_END_MARKER] = C(STOPPED, KILLPANE),
		[E_EXPIRE] = C(IGNORE, TERM),
		[E_LEFT_GONE] = C(IGNORE, TERM),
	},
	[S_KILL] = {
		RUNNING_LIKE(KILL),
		READS_ERR(KILL),
		[E_START] = C(UNEXPECTED, KILL),
		[E_PANE] = C(UNEXPECTED, KILL),
		[E_STOP] = C(IGNORE, KILL),
		[E_LAUNCHER_GONE] = C(ORPHANED, ORPHAN),
		[E_DEADLINE] = C(GIVE_UP, KILLPANE),
		[E_FIFO_EOF] = C(PANE_CLOSED, ORPHAN),
		[E_RUN_MARKER] = C(LAUNCHED_SIGNAL, KILL),
		[E_END_MARKER] = C(STOPPED, KILLPANE),
		[E_EXPIRE] = C(IGNORE, KILL),
		[E_LEFT_GONE] = C(IGNORE, KILL),
	},
	[S_ORPHAN] = {
		RUNNING_LIKE(ORPHAN),
		READS_ERR(ORPHAN),
		[E_START] = C(UNEXPECTED, ORPHAN),
		[E_PANE] = C(UNEXPECTED, ORPHAN),
		[E_STOP] = C(IGNORE, ORPHAN),
		[E_LAUNCHER_GONE] = C(IGNORE, ORPHAN),
		[E_DEADLINE] = C(ORPHAN_CHECK, ORPHAN),
		[E_FIFO_EOF] = C(CLOSE_FIFO, ORPHAN),
		[E_RUN_MARKER] = C(LAUNCHED_SIGNAL, ORPHAN),
		[E_END_MARKER] = C(ORPHAN_ENDED, DONE),
		[E_EXPIRE] = C(IGNORE, ORPHAN),
		[E_LEFT_GONE] = C(ORPHAN_DONE, DONE),
	},
	[S_HELD] = {
		READS_ERR(HELD),
		LEASED(HELD),
		[E_START] = C(UNEXPECTED, HELD),
		[E_PANE] = C(UNEXPECTED, HELD),
		[E_STOP] = C(RELEASE_KILLPANE, KILLPANE),
		[E_QUIT] = C(LEAVE, KILLPANE),
		[E_FIFO_DATA] = C(DRAIN, HELD),
		[E_LAUNCHER_GONE] = C(KILLPANE, KILLPANE),
		[E_DEADLINE] = C(RELEASE_KILLPANE, KILLPANE),
		[E_SIGNAL] = C(LEAVE, KILLPANE),
		[E_CHILD] = C(IGNORE, HELD),
		[E_FIFO_EOF] = C(CLOSE_FIFO, DONE),
		[E_PIPED] = C(IGNORE, HELD),
		[E_RUN_MARKER] = C(IGNORE, HELD),
		[E_END_MARKER] = C(IGNORE, HELD),
		[E_FAIL] = C(FAIL, DONE),
		[E_EXPIRE] = C(IGNORE, HELD),
		[E_RELEASE] = C(RELEASE, DONE),
		[E_LEFT_GONE] = C(IGNORE, HELD),
	},
	[S_KILLPANE] = {
		READS_ERR(KILLPANE),
		ENDING(KILLPANE),
		[E_START] = C(UNEXPECTED, KILLPANE),
		[E_PANE] = C(UNEXPECTED, KILLPANE),
		[E_STOP] = C(IGNORE, KILLPANE),
		[E_QUIT] = C(IGNORE, KILLPANE),
		[E_FIFO_DATA] = C(DRAIN, KILLPANE),
		[E_LAUNCHER_GONE] = C(IGNORE, KILLPANE),
		[E_DEADLINE] = C(KILLPANE_TIMEOUT, KILLPANE),
		[E_SIGNAL] = C(IGNORE, KILLPANE),
		[E_CHILD] = C(PANE_KILLED, DONE),
		[E_FIFO_EOF] = C(CLOSE_FIFO, KILLPANE),
		[E_PIPED] = C(IGNORE, KILLPANE),
		[E_RUN_MARKER] = C(IGNORE, KILLPANE),
		[E_END_MARKER] = C(IGNORE, KILLPANE),
		[E_FAIL] = C(IGNORE, KILLPANE),
		[E_EXPIRE] = C(IGNORE, KILLPANE),
		[E_RELEASE] = C(IGNORE, KILLPANE),
		[E_LEFT_GONE] = C(IGNORE, KILLPANE),
	},
	[S_DONE] = {
		READS_ERR(DONE),
		ENDING(DONE),
		/* Quit before its start frame came (a signal: the client
		 * ending the whole tree; a stop): nothing to say. */
		[E_START] = C(IGNORE, DONE),
		[E_PANE] = C(IGNORE, DONE),	/* stopped before its pane */
		[E_STOP] = C(IGNORE, DONE),
		[E_QUIT] = C(IGNORE, DONE),
		[E_FIFO_DATA] = C(DRAIN, DONE),
		[E_LAUNCHER_GONE] = C(IGNORE, DONE),
		[E_DEADLINE] = C(IGNORE, DONE),
		[E_SIGNAL] = C(IGNORE, DONE),
		[E_CHILD] = C(IGNORE, DONE),
		[E_FIFO_EOF] = C(CLOSE_FIFO, DONE),
		[E_PIPED] = C(IGNORE, DONE),
		[E_RUN_MARKER] = C(IGNORE, DONE),
		[E_END_MARKER] = C(IGNORE, DONE),
		[E_FAIL] = C(IGNORE, DONE),
		[E_EXPIRE] = C(IGNORE, DONE),
		[E_RELEASE] = C(IGNORE, DONE),
		[E_LEFT_GONE] = C(IGNORE, DONE),
	},
};

/*
 * What each state polls. Signals, the front and the launcher always;
 * the FIFOs and NOTIFY_SOCKET once the pane is piped (before, nothing
 * writes them), and to the end, so the pane's writer never waits on us.
 */
#define POLL_ALWAYS	(FSM_POLL_SIGNALS | FSM_POLL_FRONT | FSM_POLL_LAUNCHER)
#define POLL_READING	(POLL_ALWAYS | FSM_POLL_FIFO | FSM_POLL_ERR |	\
			    FSM_POLL_NOTIFY)

static const unsigned fsm_poll_table[S_COUNT] = {
	[S_INIT] = POLL_ALWAYS,
	[S_WAIT_PANE] = POLL_ALWAYS,
	[S_GATE] = POLL_READING,
	[S_RUNNING] = POLL_READING,
	[S_TERM] = POLL_READING,
	[S_KILL] = POLL_READING,
	[S_ORPHAN] = POLL_READING,
	[S_HELD] = POLL_READING,
	[S_KILLPANE] = POLL_READING,
	[S_DONE] = POLL_READING,
};

/* The follow-ups each action may return; R(NONE): it may return none. */
#define R(e)	(UINT32_C(1) << E_##e)

_Static_assert(E_NONE < 32, "an event's bit must fit in 32");

static const uint32_t fsm_return_table[A_COUNT] = {
	[A_INVALID] = R(NONE),
	[A_IGNORE] = R(NONE),
	[A_UNEXPECTED] = R(NONE),
	[A_START] = R(NONE) | R(FAIL),
	[A_PANE] = R(NONE) | R(LAUNCHER_GONE),
	[A_GATE] = R(NONE) | R(FAIL),
	[A_NO_WRITER] = R(NONE),
	[A_END_EARLY] = R(NONE),
	[A_QUIT] = R(NONE),
	[A_LEAVE] = R(NONE) | R(CHILD),
	[A_READ] = R(NONE) | R(FIFO_EOF) | R(PIPED) | R(RUN_MARKER) |
	    R(END_MARKER),
	[A_DRAIN] = R(NONE) | R(FIFO_EOF) | R(PIPED),
	[A_CLOSE_FIFO] = R(NONE),
	[A_ERR_READ] = R(NONE) | R(ERR_EOF),
	[A_ERR_CLOSE] = R(NONE),
	[A_PANE_CLOSED] = R(NONE) | R(LEFT_GONE),
	[A_LAUNCHED] = R(NONE),
	[A_LAUNCHED_SIGNAL] = R(NONE),
	[A_ENDED] = R(NONE) | R(RELEASE),
	[A_STOPPED] = R(NONE) | R(CHILD),
	[A_ORPHAN_ENDED] = R(NONE),
	[A_RELEASE] = R(NONE),
	[A_RELEASE_KILLPANE] = R(NONE) | R(CHILD),
	[A_KILLPANE] = R(NONE) | R(CHILD),
	[A_TICK] = R(NONE) | R(EXPIRE),
	[A_TERM] = R(NONE),
	[A_KILL] = R(NONE),
	[A_GIVE_UP] = R(NONE) | R(CHILD),
	[A_ORPHANED] = R(NONE) | R(LEFT_GONE),
	[A_ORPHAN_CHECK] = R(NONE) | R(LEFT_GONE),
	[A_ORPHAN_DONE] = R(NONE),
	[A_PANE_KILLED] = R(NONE),
	[A_KILLPANE_TIMEOUT] = R(NONE),
	[A_FAIL] = R(NONE),
	[A_NOTIFY] = R(NONE),
	[A_LEASE] = R(NONE) | R(LEASE_END),
	[A_ADOPT] = R(NONE),
};

static const char *const fsm_states[S_COUNT] = {
	[S_INIT] = "init",
	[S_WAIT_PANE] = "wait_pane",
	[S_GATE] = "gate",
	[S_RUNNING] = "running",
	[S_TERM] = "term",
	[S_KILL] = "kill",
	[S_ORPHAN] = "orphan",
	[S_HELD] = "held",
	[S_KILLPANE] = "killpane",
	[S_DONE] = "done",
};

static const char *const fsm_events[E_COUNT] = {
	[E_START] = "start",
	[E_PANE] = "pane",
	[E_STOP] = "stop",
	[E_QUIT] = "quit",
	[E_FRONT_GONE] = "front_gone",
	[E_FIFO_DATA] = "fifo_data",
	[E_ERR_DATA] = "err_data",
	[E_LAUNCHER_GONE] = "launcher_gone",
	[E_DEADLINE] = "deadline",
	[E_SIGNAL] = "signal",
	[E_CHILD] = "child",
	[E_NOTIFY_DATA] = "notify_data",
	[E_ADOPTED] = "adopted",
	[E_LEASE_END] = "lease_end",
	[E_FIFO_EOF] = "fifo_eof",
	[E_PIPED] = "piped",
	[E_RUN_MARKER] = "run_marker",
	[E_END_MARKER] = "end_marker",
	[E_ERR_EOF] = "err_eof",
	[E_FAIL] = "fail",
	[E_EXPIRE] = "expire",
	[E_RELEASE] = "release",
	[E_LEFT_GONE] = "left_gone",
};

static const char *const fsm_actions[A_COUNT] = {
	[A_INVALID] = "invalid",
	[A_IGNORE] = "ignore",
	[A_UNEXPECTED] = "unexpected",
	[A_START] = "start",
	[A_PANE] = "pane",
	[A_GATE] = "gate",
	[A_NO_WRITER] = "no_writer",
	[A_END_EARLY] = "end_early",
	[A_QUIT] = "quit",
	[A_LEAVE] = "leave",
	[A_READ] = "read",
	[A_DRAIN] = "drain",
	[A_CLOSE_FIFO] = "close_fifo",
	[A_ERR_READ] = "err_read",
	[A_ERR_CLOSE] = "err_close",
	[A_PANE_CLOSED] = "pane_closed",
	[A_LAUNCHED] = "launched",
	[A_LAUNCHED_SIGNAL] = "launched_signal",
	[A_ENDED] = "ended",
	[A_STOPPED] = "stopped",
	[A_ORPHAN_ENDED] = "orphan_ended",
	[A_RELEASE] = "release",
	[A_RELEASE_KILLPANE] = "release_killpane",
	[A_KILLPANE] = "killpane",
	[A_TICK] = "tick",
	[A_TERM] = "term",
	[A_KILL] = "kill",
	[A_GIVE_UP] = "give_up",
	[A_ORPHANED] = "orphaned",
	[A_ORPHAN_CHECK] = "orphan_check",
	[A_ORPHAN_DONE] = "orphan_done",
	[A_PANE_KILLED] = "pane_killed",
	[A_KILLPANE_TIMEOUT] = "killpane_timeout",
	[A_FAIL] = "fail",
	[A_NOTIFY] = "notify",
	[A_LEASE] = "lease",
	[A_ADOPT] = "adopt",
};

/* The cell for (state, event); out of range, the invalid cell. */
const struct fsm_cell *
fsm_transition(enum fsm_state s, enum fsm_event e)
{
	static const struct fsm_cell	invalid = { A_INVALID, S_DONE };

	if ((unsigned)s >= S_COUNT || (unsigned)e >= E_COUNT)
		return (&invalid);
	return (&fsm_table[s][e]);
}

/* What the state polls; out of range, nothing. */
unsigned
fsm_polls(enum fsm_state s)
{
	return ((unsigned)s < S_COUNT ? fsm_poll_table[s] : 0);
}

/* May action a return event e (E_NONE: nothing) as its follow-up? */
bool
fsm_may_return(enum fsm_action a, enum fsm_event e)
{
	if ((unsigned)a >= A_COUNT || (unsigned)e > E_NONE)
		return (false);
	return ((fsm_return_table[a] & (UINT32_C(1) << e)) != 0);
}

/* Names, for logs and tests. */
const char *
fsm_state_name(enum fsm_state s)
{
	return ((unsigned)s < S_COUNT && fsm_states[s] != NULL ?
	    fsm_states[s] : "?");
}

/* The name of an event. */
const char *
fsm_event_name(enum fsm_event e)
{
	return ((unsigned)e < E_COUNT && fsm_events[e] != NULL ?
	    fsm_events[e] : "?");
}

/* The name of an action. */
const char *
fsm_action_name(enum fsm_action a)
{
	return ((unsigned)a < A_COUNT && fsm_actions[a] != NULL ?
	    fsm_actions[a] : "?");
}
