/*
 * osdep-port.h — between the ports (osdep-SYSTEM.c) and what they share
 * (osdep.c): each port reads its process table, and osdep.c walks it.
 * Outside common/osdep*.c only the tests include this: the harness
 * finds processes in the port's table (tests/procs.c), and test_osdep
 * feeds the parsers bytes.
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

/*
 * macOS's KERN_PROCARGS2 (len bytes): an int argc, the executable's path
 * and its NULs up to the next multiple of a pointer's size, then argc
 * words each ending in a NUL, then the environment. Where the words
 * begin into *words, and their length (their NULs counted); -1 if the
 * bytes are not of that form. Here, not in osdep-darwin.c, so that any
 * system's tests can feed it bytes.
 */
ssize_t	osdep_procargs(const char *args, size_t len, const char **words);

#endif
