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

#endif
