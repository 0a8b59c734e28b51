/*
 * selfpipe.h — signals as a readable descriptor where there is no
 * signalfd (as skalibs' selfpipe does it): a handler catches each signal
 * of the set and writes its number and sender into a pipe; the loop
 * reads them. The ports without signalfd use it for osdep_signals.
 */
#ifndef PROGMUX_SELFPIPE_H
#define PROGMUX_SELFPIPE_H

#include <signal.h>
#include <sys/types.h>

/* Catch the signals in set (unblocking them) into this process's pipe:
 * its read end (close-on-exec, non-blocking), or -1 with errno. Called
 * again, it adds to the set and returns the same descriptor. */
int	selfpipe_open(const sigset_t *set);
/* The next signal caught (its number, and its sender or 0), 1; 0 once
 * none waits. */
int	selfpipe_next(int fd, int *signo, pid_t *from);

#endif
