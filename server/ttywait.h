/*
 * ttywait.h — is a terminal's foreground process group waiting for the
 * keyboard? A process waits for keyboard input when it is blocked in a
 * read of its terminal, or in a poll, select or epoll wait whose set
 * holds its terminal for input. Where the system cannot be asked far
 * enough to tell (another user's process, an unknown wait, more threads,
 * processes or descriptors than a check's budget lets it look at) the
 * answer is TTYWAIT_UNKNOWN and the caller decides by other means
 * (waiting.c: an unfinished line unchanged for a while).
 *
 * One file per system, chosen by the build with the port (osdep.h), and
 * linked into the front alone: ttywait-linux.c reads /proc;
 * ttywait-none.c, for a system that cannot tell (macOS: nothing
 * unprivileged says what a process sleeps in), always answers UNKNOWN.
 */
#ifndef PROGMUX_TTYWAIT_H
#define PROGMUX_TTYWAIT_H

#include <stdbool.h>
#include <sys/types.h>

/* What one check looks at, at most, whatever the pane holds. */
#define TTYWAIT_BUDGET		128	/* /proc files opened or looked up */
#define TTYWAIT_THREADS		32	/* threads of a process beside the main */

enum ttywait {
	TTYWAIT_NO,		/* busy, sleeping, or waiting on something else */
	TTYWAIT_YES,		/* blocked reading the terminal */
	TTYWAIT_UNKNOWN		/* asleep in a wait we were not shown */
};

/*
 * Look at the foreground process group of the terminal that pid (a process
 * in the pane: the launcher) has as its controlling terminal, among pid and
 * its descendants.
 */
enum ttywait	ttywait_check(pid_t pid);
/* The /proc files the last check used (at most TTYWAIT_BUDGET). */
unsigned	ttywait_cost(void);
/* Can this system tell at all (or is every answer UNKNOWN)? */
bool		ttywait_can_tell(void);

#endif
