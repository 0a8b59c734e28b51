/*
 * fsm.h — the reaper's state table: for each (state, event), the action
 * to run and the state that follows; for each state, the descriptors its
 * poll watches; for each action, the follow-up events it may return.
 * Pure data, so its properties can be tested
 * (tests/unit/test_reaper_fsm.c); the actions are in reaper.c.
 *
 * No action dispatches an event. An action runs after the state has
 * changed and returns one follow-up event (or E_NONE), which the
 * dispatcher then runs in the new state: that is how an action's outcome
 * (EOF, a marker read, a failure, a kept pane, nothing left of an
 * orphaned program) chooses between next states without the action
 * assigning the state itself.
 */
#ifndef PROGMUX_FSM_H
#define PROGMUX_FSM_H

#include <stdbool.h>

enum fsm_state {
	S_INIT,		/* waiting for "start" */
	S_WAIT_PANE,	/* FIFOs open; waiting for "pane" */
	S_GATE,		/* pane piped; waiting for its writer's first record */
	S_RUNNING,	/* spec sent: the program runs; deadline: lifetime */
	S_TERM,		/* SIGTERM sent to its group; deadline: grace */
	S_KILL,		/* SIGKILL sent; deadline: the launcher's marker */
	S_ORPHAN,	/* launcher or pane gone: ending what is left */
	S_HELD,		/* ended and reported; pane kept; deadline: lifetime */
	S_KILLPANE,	/* tmux kill-pane runs; deadline: its bound */
	S_DONE,		/* exit once the front has every frame */
	S_COUNT
};

enum fsm_event {
	/* raised by the loop: frames, descriptors, the deadline, signals */
	E_START,	/* frame "start" */
	E_PANE,		/* frame "pane" */
	E_STOP,		/* frame "stop" */
	E_QUIT,		/* frame "quit" */
	E_FRONT_GONE,	/* EOF, error or a bad frame on the front's socket */
	E_FIFO_DATA,	/* the output FIFO is readable, or a read goes on */
	E_ERR_DATA,	/* standard error's FIFO is readable */
	E_LAUNCHER_GONE, /* the launcher's pidfd is readable (also a follow-up:
			   gone before it could be watched) */
	E_DEADLINE,	/* the deadline passed */
	E_SIGNAL,	/* SIGTERM, SIGINT or SIGHUP to the reaper */
	E_CHILD,	/* the kill-pane child was reaped (also a follow-up:
			   none could be started) */
	E_NOTIFY_DATA,	/* the program's NOTIFY_SOCKET is readable */
	E_ADOPTED,	/* a new front adopted the program (the lease's) */
	E_LEASE_END,	/* the lease's grace is over, no front adopted it
			   (also a follow-up: no lease could be held) */
	/* follow-ups, returned by actions */
	E_FIFO_EOF,	/* the output FIFO ended: the pane is gone */
	E_PIPED,	/* the pane's writer opened the FIFO (its hello) */
	E_RUN_MARKER,	/* the launcher's run marker was read */
	E_END_MARKER,	/* the launcher's end marker was read */
	E_ERR_EOF,	/* standard error's FIFO ended */
	E_FAIL,		/* this program cannot go on ("fail" sent) */
	E_EXPIRE,	/* the lifetime is over */
	E_RELEASE,	/* the pane is not kept: the launcher may leave */
	E_LEFT_GONE,	/* nothing of an orphaned program is left */
	E_COUNT,
	E_NONE = E_COUNT
};

enum fsm_action {
	A_INVALID,	/* no cell has it: a hole in the table */
	A_IGNORE,	/* nothing to do */
	A_UNEXPECTED,	/* a frame this state does not take: warn */
	A_START,	/* keep the particulars, open the FIFOs */
	A_PANE,		/* watch the launcher, wait for the writer */
	A_GATE,		/* the writer is there: open the gate (spec) */
	A_NO_WRITER,	/* the writer never came: fail */
	A_END_EARLY,	/* no program yet: report stopped or expired */
	A_QUIT,		/* end what runs (SIGKILL), no report */
	A_LEAVE,	/* end what runs (SIGKILL) and remove the pane */
	A_READ,		/* read the FIFO, scan for markers, send text */
	A_DRAIN,	/* read the FIFO and drop it */
	A_CLOSE_FIFO,	/* close the FIFO */
	A_ERR_READ,	/* read standard error, send it as errtext */
	A_ERR_CLOSE,	/* standard error ended: its last text; close it */
	A_PANE_CLOSED,	/* report the end as lost; end what is left */
	A_LAUNCHED,	/* note the program's pid; tell the front */
	A_LAUNCHED_SIGNAL, /* the same, and signal its group as the state says */
	A_ENDED,	/* report the end; release unless the pane is kept */
	A_STOPPED,	/* report the end of a stopped program; remove pane */
	A_ORPHAN_ENDED,	/* report the end the launcher wrote before going */
	A_RELEASE,	/* tell the launcher to exit */
	A_RELEASE_KILLPANE, /* the same, and remove the kept pane */
	A_KILLPANE,	/* remove the pane */
	A_TICK,		/* the running deadline: expire (or check the program) */
	A_TERM,		/* SIGTERM (+SIGCONT) to the group, arm the grace */
	A_KILL,		/* SIGKILL to the group, arm the fallback */
	A_GIVE_UP,	/* no marker: SIGKILL group and launcher, report lost */
	A_ORPHANED,	/* SIGTERM what the launcher left, arm checks */
	A_ORPHAN_CHECK,	/* anything left? SIGKILL it at the grace's end */
	A_ORPHAN_DONE,	/* report the end of an orphaned program */
	A_PANE_KILLED,	/* kill-pane is done: what did tmux say? */
	A_KILLPANE_TIMEOUT, /* kill-pane is too slow: SIGKILL it */
	A_FAIL,		/* end what runs after a failure */
	A_NOTIFY,	/* read NOTIFY_SOCKET: READY=1, STATUS= to the front */
	A_LEASE,	/* the front is gone: hold the program for its grace */
	A_ADOPT,	/* a new front: tell it how the program stands */
	A_COUNT
};

struct fsm_cell {
	enum fsm_action	action;
	enum fsm_state	next;
};

/*
 * What a state's poll watches for reading (fsm_polls), each bit a source
 * of events. Only open descriptors are watched. Writes (to the front's
 * socket, to the control FIFO) are asked for while their queue holds
 * something, whatever the state.
 */
#define FSM_POLL_SIGNALS	0x01	/* the signal descriptor: E_SIGNAL,
					   E_CHILD */
#define FSM_POLL_FRONT		0x02	/* the front's socket: frames,
					   E_FRONT_GONE; while it is gone,
					   the lease's: E_ADOPTED */
#define FSM_POLL_FIFO		0x04	/* the output FIFO: E_FIFO_DATA */
#define FSM_POLL_ERR		0x08	/* standard error's FIFO: E_ERR_DATA */
#define FSM_POLL_LAUNCHER	0x10	/* the launcher's pidfd:
					   E_LAUNCHER_GONE */
#define FSM_POLL_NOTIFY		0x20	/* the NOTIFY_SOCKET: E_NOTIFY_DATA */

/* The cell for (state, event). */
const struct fsm_cell	*fsm_transition(enum fsm_state, enum fsm_event);
/* What the state's poll watches: FSM_POLL_* bits. */
unsigned		 fsm_polls(enum fsm_state);
/* May the action return this event (E_NONE: none) as its follow-up? */
bool			 fsm_may_return(enum fsm_action, enum fsm_event);
const char		*fsm_state_name(enum fsm_state);
const char		*fsm_event_name(enum fsm_event);
const char		*fsm_action_name(enum fsm_action);

#endif
