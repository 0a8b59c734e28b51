/*
 * osdep.h — what progmux needs of the operating system beyond POSIX, in
 * one place (as tmux's osdep-*.c). osdep-linux.c is the one port today;
 * a port to another system implements each function below (macOS: a
 * kqueue EVFILT_PROC descriptor for a pidfd, libproc's proc_listchildpids
 * for the /proc walk; it has no subreaper or parent-death signal, so
 * there the keeper would poll).
 *
 * Library code: returns -1 with errno, never prints or exits.
 */
#ifndef PROGMUX_OSDEP_H
#define PROGMUX_OSDEP_H

#include <stdbool.h>
#include <sys/types.h>

#include <signal.h>
#include <stddef.h>

/* What progmux reads of another process: its state letter, parent,
 * process group, session, controlling terminal (a device number, 0 for
 * none) and that terminal's foreground group. */
struct osdep_proc {
	char	state;		/* 'R', 'S', 'Z' ... */
	pid_t	ppid;
	pid_t	pgrp;
	pid_t	sid;
	int	tty;
	pid_t	tpgid;
};

/* pid's particulars; -1 with errno if it is gone or cannot be read. */
int	osdep_proc(pid_t pid, struct osdep_proc *);
/* pid's children (of its main thread), up to max into out; how many. */
int	osdep_children(pid_t pid, pid_t *out, int max);
/* pid's command line, its words NUL-separated, into buf (at most size
 * bytes); its length, or -1. */
ssize_t	osdep_cmdline(pid_t pid, char *buf, size_t size);
/* The path of our own executable into buf; -1 if it cannot be had. */
int	osdep_self_exe(char *buf, size_t size);
/* A path that names the file descriptor fd of ours refers to (for a
 * name in a directory, dfd and name: a path by which another call can
 * reach that entry without the directory's own path). -1 if too long. */
int	osdep_fd_path(int fd, const char *name, char *buf, size_t size);

/*
 * Signals as a readable descriptor: the signals in set are blocked and
 * arrive on the descriptor returned (close-on-exec, non-blocking), or -1
 * with errno. osdep_signal_next gives the next one waiting (its number,
 * and the pid that sent it, 0 if none), 1; or 0 once none waits.
 */
int	osdep_signals(const sigset_t *set);
int	osdep_signal_next(int fd, int *signo, pid_t *from);

/* Close (or, with cloexec, mark close-on-exec) descriptors lowfd to
 * highfd; -1 if the system cannot do it in one call (the caller loops). */
int	osdep_close_range(int lowfd, int highfd, int cloexec);

/* A descriptor that becomes readable when pid exits (close-on-exec), or
 * -1 with errno (ESRCH: it has exited already). */
int	osdep_pidfd(pid_t pid);
/* Make the caller a subreaper: orphans among its descendants become its
 * children instead of init's. */
int	osdep_subreaper(void);
/* Be sent sig when the parent dies; -1 with ESRCH if parent (the pid
 * that forked us) is gone already. */
int	osdep_parent_death(int sig, pid_t parent);
/*
 * Send sig to every descendant of root (not root itself), found by
 * walking the process table; SIGTERM goes with SIGCONT so a stopped one
 * gets it. Zombies are not counted. Returns how many there were (0 with
 * sig 0: only counted), or -1 with errno if the table cannot be read.
 */
int	osdep_signal_descendants(pid_t root, int sig);
/* The same for every process whose group is pgrp or whose session is sid
 * (either may be 0: none), apart from us: what a gone launcher left. */
int	osdep_signal_group_session(pid_t pgrp, pid_t sid, int sig);

/*
 * Is a terminal's foreground process group waiting for the keyboard? A
 * process waits for keyboard input when it is blocked in a read of its
 * terminal, or in a poll, select or epoll wait whose set holds its
 * terminal for input. Where the system cannot be asked far enough to
 * tell (another user's process, an unknown wait, more threads, processes
 * or descriptors than a check's budget lets it look at) the answer is
 * TTYWAIT_UNKNOWN and the caller decides by other means. On Linux this
 * is read from /proc (the second half of osdep-linux.c).
 */
/* What one check looks at, at most, whatever the pane holds. */
#define TTYWAIT_BUDGET		128	/* /proc files opened or looked up */
#define TTYWAIT_THREADS		32	/* threads of a process beside the main */

enum ttywait {
	TTYWAIT_NO,		/* busy, sleeping, or waiting on something else */
	TTYWAIT_YES,		/* blocked reading the terminal */
	TTYWAIT_UNKNOWN		/* asleep in a wait /proc did not show us */
};

/*
 * Look at the foreground process group of the terminal that pid (a process
 * in the pane: the launcher) has as its controlling terminal, among pid and
 * its descendants.
 */
enum ttywait	ttywait_check(pid_t pid);
/* The /proc files the last check used (at most TTYWAIT_BUDGET). */
unsigned	ttywait_cost(void);

#endif
