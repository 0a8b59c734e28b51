/*
 * osdep-linux.h — the Linux port's readers of /proc files, which the
 * input-wait check (server/ttywait-linux.c) uses as well.
 */
#ifndef PROGMUX_OSDEP_LINUX_H
#define PROGMUX_OSDEP_LINUX_H

#include <stdbool.h>
#include <sys/types.h>

#include "osdep.h"

/* Read a small /proc file into buf (NUL-terminated): its length, or -1. */
ssize_t	linux_proc_read(const char *path, char *buf, size_t size);
/* A stat line (/proc/PID/stat, or a task's: "pid (comm) state ppid pgrp
 * session tty_nr tpgid ... num_threads ...") into p, and the thread count
 * if threads is not NULL. 0, or -1 with EINVAL. */
int	linux_proc_stat(const char *line, struct osdep_proc *p,
	    long *threads);
/* The pids of a children file's text ("12 34 "), up to max; how many.
 * *more is set if there were more. */
int	linux_proc_pids(const char *buf, pid_t *out, int max, bool *more);

#endif
