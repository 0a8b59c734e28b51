/*
 * osdep-port.h — between the ports (osdep-SYSTEM.c) and what they share
 * (osdep.c): each port reads its process table, and osdep.c walks it.
 * Nothing outside common/osdep*.c includes this.
 */
#ifndef PROGMUX_OSDEP_PORT_H
#define PROGMUX_OSDEP_PORT_H

#include <sys/types.h>

/* A row of the process table. */
struct osdep_row {
	pid_t	pid;
	pid_t	ppid;
	pid_t	pgrp;
	pid_t	sid;
	int	mark;	/* osdep.c's: 0 not known, 1 below root, 2 not */
};

/* Every live process (zombies left out) into *out (allocated, mark 0):
 * how many, or -1 with errno. The port's. */
ssize_t	osdep_table(struct osdep_row **out);

#endif
