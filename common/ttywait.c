/*
 * ttywait.c — is a terminal's foreground process group waiting for the
 * keyboard? Read from /proc, Linux only.
 *
 * From the pane's first process (the launcher) we take the terminal
 * (tty_nr) and its foreground group (tpgid) out of /proc/PID/stat, then
 * walk the launcher's descendants (/proc/PID/task/TID/children) for the
 * members of that group. For each thread of each member,
 * /proc/PID/task/TID/syscall says which system call it sleeps in and with
 * which arguments:
 *
 *   read, readv, pread	the descriptor is arg 0;
 *   poll, ppoll		the pollfd array (arg 0, arg 1 entries) is read
 *				from /proc/PID/mem;
 *   select, pselect6	the read set (arg 1, arg 0 bits), likewise;
 *   epoll_wait & co	the epoll descriptor's interest list is in
 *				/proc/PID/fdinfo/EPFD ("tfd: N events: X").
 *
 * A descriptor is the terminal when it is a character device whose rdev
 * is tty_nr, or /dev/tty (5,0). Anything else (nanosleep, wait4, a poll
 * on sockets) is not a wait for the keyboard. Nothing here blocks: /proc
 * files answer at once.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include "ttywait.h"

#define TTYWAIT_MAX_PROCS	256	/* of a pane's tree looked at */
#define TTYWAIT_MAX_FDS		4096	/* of a poll or select set read */

struct ttywait_stat {
	char	state;
	pid_t	pgrp;
	int	tty_nr;
	pid_t	tpgid;
};

/* Read a small /proc file into buf (NUL-terminated). Returns its length
 * or -1 with errno. */
static ssize_t
ttywait_read(const char *path, char *buf, size_t size)
{
	ssize_t	n, got = 0;
	int	fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	while ((size_t)got < size - 1 &&
	    (n = read(fd, buf + got, size - 1 - (size_t)got)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			close(fd);
			return (-1);
		}
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return (got);
}

/* The fields we use of /proc/PID/stat (or a task's). */
static int
ttywait_stat(const char *path, struct ttywait_stat *st)
{
	char	 buf[1024], *p;
	int	 pgrp, tpgid;

	if (ttywait_read(path, buf, sizeof buf) == -1)
		return (-1);
	/* The command name may hold spaces and parentheses: skip to the
	 * last ')'. */
	if ((p = strrchr(buf, ')')) == NULL)
		return (-1);
	if (sscanf(p + 1, " %c %*d %d %*d %d %d", &st->state, &pgrp,
	    &st->tty_nr, &tpgid) != 4)
		return (-1);
	st->pgrp = pgrp;
	st->tpgid = tpgid;
	return (0);
}

/* Is descriptor fd of process pid the terminal tty_nr? */
static bool
ttywait_is_tty(pid_t pid, long fd, int tty_nr)
{
	char		path[64];
	struct stat	sb;

	if (fd < 0 || fd > INT32_MAX)
		return (false);
	snprintf(path, sizeof path, "/proc/%ld/fd/%ld", (long)pid, fd);
	if (stat(path, &sb) == -1 || !S_ISCHR(sb.st_mode))
		return (false);
	if (sb.st_rdev == makedev(5, 0))	/* /dev/tty: its own terminal */
		return (true);
	return (major(sb.st_rdev) == (((unsigned)tty_nr >> 8) & 0xfff) &&
	    minor(sb.st_rdev) == (((unsigned)tty_nr & 0xff) |
	    (((unsigned)tty_nr >> 12) & 0xfff00)));
}

/* Read len bytes at addr of pid's memory. */
static int
ttywait_peek(pid_t pid, unsigned long addr, void *out, size_t len)
{
	char	path[64];
	int	fd;
	ssize_t	n;

	snprintf(path, sizeof path, "/proc/%ld/mem", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	n = pread(fd, out, len, (off_t)addr);
	close(fd);
	return (n == (ssize_t)len ? 0 : -1);
}

/* poll(fds, nfds): one of them the terminal, for input? */
static enum ttywait
ttywait_poll(pid_t pid, unsigned long fds, unsigned long nfds, int tty_nr)
{
	struct pollfd	*pfd;
	unsigned long	 i;
	enum ttywait	 w = TTYWAIT_NO;

	if (nfds == 0)
		return (TTYWAIT_NO);
	if (nfds > TTYWAIT_MAX_FDS)
		return (TTYWAIT_UNKNOWN);
	if ((pfd = calloc(nfds, sizeof *pfd)) == NULL)
		return (TTYWAIT_UNKNOWN);
	if (ttywait_peek(pid, fds, pfd, nfds * sizeof *pfd) == -1)
		w = TTYWAIT_UNKNOWN;
	else {
		for (i = 0; i < nfds; i++) {
			if ((pfd[i].events & (POLLIN | POLLPRI)) &&
			    ttywait_is_tty(pid, pfd[i].fd, tty_nr)) {
				w = TTYWAIT_YES;
				break;
			}
		}
	}
	free(pfd);
	return (w);
}

/* select(nfds, readfds, ...): the terminal among the read set? */
static enum ttywait
ttywait_select(pid_t pid, unsigned long nfds, unsigned long readfds,
    int tty_nr)
{
	unsigned char	set[TTYWAIT_MAX_FDS / 8];
	unsigned long	fd;

	if (readfds == 0 || nfds == 0)
		return (TTYWAIT_NO);
	if (nfds > TTYWAIT_MAX_FDS)
		return (TTYWAIT_UNKNOWN);
	if (ttywait_peek(pid, readfds, set, (nfds + 7) / 8) == -1)
		return (TTYWAIT_UNKNOWN);
	for (fd = 0; fd < nfds; fd++) {
		if ((set[fd / 8] & (1u << (fd % 8))) &&
		    ttywait_is_tty(pid, (long)fd, tty_nr))
			return (TTYWAIT_YES);
	}
	return (TTYWAIT_NO);
}

/* epoll_wait(epfd, ...): the terminal in its interest list, for input? */
static enum ttywait
ttywait_epoll(pid_t pid, unsigned long epfd, int tty_nr)
{
	char		 path[64], buf[16384], *line;
	long		 tfd;
	unsigned int	 events;

	snprintf(path, sizeof path, "/proc/%ld/fdinfo/%lu", (long)pid, epfd);
	if (ttywait_read(path, buf, sizeof buf) == -1)
		return (TTYWAIT_UNKNOWN);
	for (line = buf; line != NULL && *line != '\0'; line =
	    strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (sscanf(line, "tfd: %ld events: %x", &tfd, &events) == 2 &&
		    (events & (EPOLLIN | EPOLLPRI)) &&
		    ttywait_is_tty(pid, tfd, tty_nr))
			return (TTYWAIT_YES);
	}
	return (TTYWAIT_NO);
}

/* One thread of a foreground process: what does it sleep in? */
static enum ttywait
ttywait_thread(pid_t pid, const char *task, int tty_nr)
{
	char		 buf[256];
	long		 nr;
	unsigned long	 a[6];

	if (ttywait_read(task, buf, sizeof buf) == -1)
		return (errno == ENOENT || errno == ESRCH ? TTYWAIT_NO :
		    TTYWAIT_UNKNOWN);
	if (strncmp(buf, "running", 7) == 0)
		return (TTYWAIT_NO);
	if (sscanf(buf, "%ld %lx %lx %lx %lx %lx %lx", &nr, &a[0], &a[1],
	    &a[2], &a[3], &a[4], &a[5]) != 7)
		return (TTYWAIT_NO);	/* "-1 sp pc": not in a call */
	switch (nr) {
	case SYS_read:
	case SYS_readv:
	case SYS_pread64:
	case SYS_preadv:
	case SYS_preadv2:
		return (ttywait_is_tty(pid, (long)a[0], tty_nr) ?
		    TTYWAIT_YES : TTYWAIT_NO);
#ifdef SYS_poll
	case SYS_poll:
#endif
	case SYS_ppoll:
		return (ttywait_poll(pid, a[0], a[1], tty_nr));
#ifdef SYS_select
	case SYS_select:
#endif
	case SYS_pselect6:
		return (ttywait_select(pid, a[0], a[1], tty_nr));
#ifdef SYS_epoll_wait
	case SYS_epoll_wait:
#endif
	case SYS_epoll_pwait:
#ifdef SYS_epoll_pwait2
	case SYS_epoll_pwait2:
#endif
		return (ttywait_epoll(pid, a[0], tty_nr));
	default:
		return (TTYWAIT_NO);
	}
}

/* Every thread of one process of the foreground group. */
static enum ttywait
ttywait_process(pid_t pid, int tty_nr)
{
	char		 path[300];
	DIR		*d;
	struct dirent	*de;
	enum ttywait	 w = TTYWAIT_NO, t;

	snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
	if ((d = opendir(path)) == NULL)
		return (TTYWAIT_NO);	/* gone meanwhile */
	while (w != TTYWAIT_YES && (de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%ld/task/%s/syscall",
		    (long)pid, de->d_name);
		if ((t = ttywait_thread(pid, path, tty_nr)) != TTYWAIT_NO)
			w = t;
	}
	closedir(d);
	return (w);
}

/* Append the children of every thread of pid to the list. */
static void
ttywait_children(pid_t pid, pid_t *list, size_t *n)
{
	char		 path[300], buf[4096], *p, *end;
	DIR		*d;
	struct dirent	*de;
	long		 child;

	snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
	if ((d = opendir(path)) == NULL)
		return;
	while ((de = readdir(d)) != NULL && *n < TTYWAIT_MAX_PROCS) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%ld/task/%s/children",
		    (long)pid, de->d_name);
		if (ttywait_read(path, buf, sizeof buf) == -1)
			continue;
		for (p = buf; *n < TTYWAIT_MAX_PROCS; p = end) {
			child = strtol(p, &end, 10);
			if (end == p)
				break;
			list[(*n)++] = (pid_t)child;
		}
	}
	closedir(d);
}

enum ttywait
ttywait_check(pid_t pid)
{
	pid_t			list[TTYWAIT_MAX_PROCS];
	size_t			n = 0, i;
	char			path[64];
	struct ttywait_stat	root, st;
	enum ttywait		w = TTYWAIT_NO, t;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if (pid <= 0 || ttywait_stat(path, &root) == -1 || root.tty_nr == 0 ||
	    root.tpgid <= 0)
		return (TTYWAIT_NO);
	list[n++] = pid;
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof path, "/proc/%ld/stat", (long)list[i]);
		if (ttywait_stat(path, &st) == -1)
			continue;
		if (st.pgrp == root.tpgid && st.tty_nr == root.tty_nr) {
			if (st.state == 'R')
				return (TTYWAIT_NO);	/* busy */
			if ((t = ttywait_process(list[i], root.tty_nr)) ==
			    TTYWAIT_YES)
				return (TTYWAIT_YES);
			if (t == TTYWAIT_UNKNOWN)
				w = t;
		}
		ttywait_children(list[i], list, &n);
	}
	return (w);
}
