/*
 * loop_be.h — how the loop waits on its descriptors: one backend per
 * system, chosen by the build (server/loop-epoll.c on Linux, where a turn
 * costs what is ready, not what is registered; server/loop-poll.c
 * elsewhere), as redis's ae.c includes ae_epoll.c or ae_select.c.
 *
 * loop.c keeps the registrations; the backend is told each change of a
 * descriptor's interest (LOOP_READ | LOOP_WRITE; 0: not waited on, not
 * even for a hang-up) with the serial of its registration, and hands
 * back what fired with that serial, so that a descriptor removed or
 * replaced by an earlier callback of the same turn is never dispatched
 * with the events of the one it replaced.
 */
#ifndef PROGMUX_LOOP_BE_H
#define PROGMUX_LOOP_BE_H

#include <stddef.h>
#include <stdint.h>

struct loop_event {
	int		 fd;
	int		 fired;		/* LOOP_READ | LOOP_WRITE */
	uint64_t	 serial;	/* of the registration that fired */
};

/* fd now waits for mask (0: for nothing), as registration serial. */
void	loop_be_set(int fd, int mask, uint64_t serial);
/* Wait up to timeout_ms (-1: no limit) for what is ready; at most max
 * events into ev; how many, or -1 with errno (EINTR: try again). */
int	loop_be_wait(int timeout_ms, struct loop_event *ev, size_t max);

#endif
