/*
 * procs.h — the processes the tests look at, found as the product finds
 * them: through the port (common/osdep.h: its process table, a
 * process's particulars, children and command line), so that the
 * harness and the integration suites run on every port. What the port
 * has no call for, because progmux never reads it of another process
 * (its environment, its descriptors, its memory), is read the system's
 * own way: /proc on Linux, libproc and sysctl on macOS. A test that
 * needs what a system cannot tell skips (needs.h).
 */
#ifndef PROGMUX_TEST_PROCS_H
#define PROGMUX_TEST_PROCS_H

#include <stdbool.h>
#include <sys/types.h>

/* Count processes whose command line (words joined by spaces) contains
 * needle (for leak checks); -1 if the table cannot be read. */
int	pmx_count_procs(const char *needle);
/* The first process whose command line contains needle, or -1. */
pid_t	pmx_find_proc(const char *needle);
/* SIGKILL every process whose command line contains needle (a test's
 * own unique marker: what a failed check left behind); how many. */
int	pmx_kill_procs(const char *needle);
/* Count live processes whose environment holds the entry env exactly
 * ("TMPDIR=/tmp/progmux-test-..."): everything a harness's progmux
 * started, whoever its parent is now. */
int	pmx_count_env(const char *env);
/* SIGKILL every process whose environment holds the entry env exactly
 * (what a failed check left behind); how many. */
int	pmx_kill_env(const char *env);
/* Does pid's environment have a variable called name? 1 or 0; -1 if it
 * cannot be read. */
int	pmx_has_env_var(pid_t pid, const char *name);
/* Children of pid (up to max, into out); how many. */
int	pmx_children(pid_t pid, pid_t *out, int max);
/* Is pid a live process (not a zombie)? A zombie? */
bool	pmx_alive(pid_t pid);
bool	pmx_zombie(pid_t pid);
/* The parent of pid, or -1. */
pid_t	pmx_ppid(pid_t pid);
/* pid's command line, its words each ending in a NUL, into buf (a NUL
 * after them); its length, or -1. */
ssize_t	pmx_cmdline(pid_t pid, char *buf, size_t size);
/* The first child of pid with word as one of its words, or -1. */
pid_t	pmx_child_with(pid_t pid, const char *word);
/* The reaper among the front's children (progmux-reaper with no other
 * word: not a launcher, not the idle window), or -1. */
pid_t	pmx_reaper_of(pid_t front);
/* Resident memory of pid in KiB: "VmRSS" now, "VmHWM" at its peak (and
 * Linux's other "Vm..."/"Rss..." lines of /proc/PID/status); -1 where
 * the system does not tell. */
long	pmx_status_kb(pid_t pid, const char *field);

/* One descriptor of a process: its number, what it is, and a word or
 * path saying which, for messages. */
struct pmx_fd {
	int	fd;
	char	kind;	/* 'f' file, 'd' directory, 's' socket, 'p' pipe or
			   FIFO, 'x' exit descriptor (pidfd, kqueue), '?' */
	char	what[128];
};
/* pid's descriptors, up to max into out; how many, -1 if they cannot
 * be read. */
int	pmx_fds(pid_t pid, struct pmx_fd *out, int max);

/* End, by PID, every tmux process whose command line names dir (a
 * harness's private directory: its tmux server and clients). */
void	pmx_kill_by_dir(const char *dir);

#endif
