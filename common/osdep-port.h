/*
 * osdep-port.h — between the ports (osdep-SYSTEM.c) and what they share
 * (osdep.c): each port reads its process table, and osdep.c walks it.
 * Outside common/osdep*.c only the tests include this: the harness
 * finds processes in the port's table (tests/procs.c), and test_osdep
 * feeds the parsers bytes.
 */
#ifndef PROGMUX_OSDEP_PORT_H
#define PROGMUX_OSDEP_PORT_H

#include <stdbool.h>
#include <sys/types.h>

#include "osdep.h"

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

/*
 * A walk of the ports a tree listens on (osdep_ports_*): osdep.c walks
 * the tree, breadth first, and the port looks at each process's sockets
 * through the hooks below, each with its own state in sys.
 */
struct osdep_ports {
	pid_t			*tree;		/* the processes found, in order */
	size_t			 ntree;
	size_t			 next;		/* the next to look at */
	pid_t			 cur;		/* being looked at, or 0 */
	size_t			 sockets;	/* sockets looked at */
	int			 cut;		/* OSDEP_PORTS_CUT_* */
	bool			 opened;	/* osdep_ports_open done */
	bool			 over;
	struct osdep_listen	 found[OSDEP_PORTS_FOUND];
	size_t			 nfound;
	void			*sys;		/* the port's */
};
/* Begin (the walk's first step): what the port needs before the
 * processes; 1: nothing can be found, the walk is over; -1 with errno:
 * it could not look. */
int	osdep_ports_open(struct osdep_ports *, pid_t root);
/* pid's children, all of them, up to max into out; how many. */
int	osdep_ports_children(pid_t pid, pid_t *out, int max);
/* Look at pid (w->cur) from now on: 0, or -1 if it cannot be read. */
int	osdep_ports_proc(struct osdep_ports *, pid_t pid);
/* One more of the current process's descriptors: 1 once there are none
 * left (the process is done), else 0. Sockets looked at are counted in
 * w->sockets; each listening one goes through osdep_ports_add, here or
 * in osdep_ports_done. */
int	osdep_ports_next(struct osdep_ports *);
/* The tree is walked (or its bounds reached): what the port finds only
 * with all its sockets known (Linux: the listening ones among them), a
 * step of its own. */
void	osdep_ports_done(struct osdep_ports *);
/* Let go of the port's state. */
void	osdep_ports_close(struct osdep_ports *);
/* A listening socket found (osdep.c keeps each address once). */
void	osdep_ports_add(struct osdep_ports *, int family,
	    const unsigned char *addr, unsigned port);

#endif
