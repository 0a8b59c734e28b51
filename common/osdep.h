/*
 * osdep.h — what progmux needs of the operating system beyond POSIX, in
 * one place (as tmux's osdep-*.c). Each port is one file, chosen by the
 * build (make OSDEP=...):
 *
 *   osdep-linux.c	/proc, pidfd_open, prctl, signalfd, close_range
 *   osdep-darwin.c	libproc, sysctl, kqueue, a self-pipe
 *   osdep-posix.c	POSIX and ps(1) alone, and an exit descriptor
 *
 * A system may lack a facility outright (a subreaper, a parent-death
 * signal): its function then fails with ENOSYS, osdep_features() says
 * so, and the callers do without it, quietly. What the ports share is
 * osdep.c (the walks of a process table, the parent watch) and, for
 * those without Linux's facilities, osdep-shared.c (signals through a
 * self-pipe, a connect in the directory). The input-wait check, which
 * only the front uses, is server/ttywait-*.c.
 *
 * Library code: returns -1 with errno, never prints or exits.
 */
#ifndef PROGMUX_OSDEP_H
#define PROGMUX_OSDEP_H

#include <stdbool.h>
#include <sys/types.h>

#include <signal.h>
#include <stddef.h>

/* What the system offers beyond POSIX (osdep_features). */
#define OSDEP_SUBREAPER		0x01	/* osdep_subreaper */
#define OSDEP_PARENT_DEATH	0x02	/* osdep_parent_death */
#define OSDEP_CLOSE_RANGE	0x04	/* osdep_close_range in one call */
#define OSDEP_CMDLINE_WORDS	0x08	/* osdep_cmdline keeps each word whole
					   (else split at spaces) */
#define OSDEP_DEFER_ACCEPT	0x20	/* osdep_defer_accept */
#define OSDEP_PORTS		0x40	/* osdep_ports_* can tell */
#define OSDEP_PEER_UID		0x80	/* osdep_peer_uid */

/* The OSDEP_* bits of this port. */
int	osdep_features(void);
/* The port's name: "linux", "darwin", "posix". */
const char *osdep_name(void);

/* What progmux reads of another process: its state letter, parent,
 * process group, session, controlling terminal (a device number, 0 for
 * none or not known) and that terminal's foreground group (0 if not
 * known). */
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
/* The path of our own executable into buf (argv0: how we were started,
 * for a system that can only search for it); -1 if it cannot be had. */
int	osdep_self_exe(const char *argv0, char *buf, size_t size);
/*
 * Where runtime files kept for days go instead of base (TMPDIR's value,
 * or NULL when it is not set) if the system sweeps base of what is not
 * used for days: into buf (size bytes), a per-user directory it never
 * sweeps, and 1 (macOS: its per-user temporary directory and /tmp are
 * swept after 3 days; the cache directory, _CS_DARWIN_USER_CACHE_DIR,
 * is not). 0 where base is kept as it is; -1 with errno.
 */
int	osdep_unswept_dir(const char *base, char *buf, size_t size);
/* Connect the Unix socket sock to the socket name in the directory dfd,
 * reached through dfd itself, never through a path that could have been
 * swapped meanwhile; connect(2)'s result. */
int	osdep_connect_at(int sock, int dfd, const char *name);
/* The user of the process at the other end of the connected Unix socket
 * sock, from the kernel (not from anything it said); ENOSYS where the
 * system cannot tell (the caller then rests on the socket's directory:
 * its owner and mode). */
int	osdep_peer_uid(int sock, uid_t *uid);

/*
 * Signals as a readable descriptor: the signals in set arrive on the
 * descriptor returned (close-on-exec, non-blocking), or -1 with errno.
 * The caller blocks them first or not: the port blocks them (signalfd)
 * or catches them (a self-pipe) as it needs; a child's exec (cspawn.c)
 * resets both. osdep_signal_next gives the next one waiting (its
 * number), 1; or 0 once none waits. Who sent a signal is not told:
 * macOS gives a kill(2) no sender code and keeps one sender per
 * process, which the next SIGCHLD takes.
 */
int	osdep_signals(const sigset_t *set);
int	osdep_signal_next(int fd, int *signo);

/* Close (or, with cloexec, mark close-on-exec) descriptors lowfd to
 * highfd; -1 if the system cannot do it in one call (the caller loops). */
int	osdep_close_range(int lowfd, int highfd, int cloexec);

/*
 * A descriptor that becomes readable when pid exits, and stays so
 * (close-on-exec; not inherited by a child), or -1 with errno (ESRCH:
 * it has exited already).
 */
int	osdep_pidfd(pid_t pid);
/* The same for our parent, the pid that forked us; ESRCH if it is gone
 * already. The caller's loop polls it: the parent's death, told. */
int	osdep_parent_watch(pid_t parent);
/* Make the caller a subreaper: orphans among its descendants become its
 * children instead of init's. ENOSYS where there is no such thing. */
int	osdep_subreaper(void);
/* Be sent sig when the parent dies; -1 with ESRCH if parent (the pid
 * that forked us) is gone already, ENOSYS where there is no such
 * signal (an exec'd child then ends on EOF of a descriptor we hold). */
int	osdep_parent_death(int sig, pid_t parent);
/*
 * Have the listening TCP socket fd hand over a connection only once the
 * peer sent something, or after about secs (a connection that never
 * sends is then handed over as any other). ENOSYS where there is no
 * such thing: connections are handed over at once.
 */
int	osdep_defer_accept(int fd, int secs);
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
 * The TCP ports a process tree listens on (IPv4 and IPv6), found from
 * the kernel a step at a time, so a caller's loop never stalls on a big
 * tree: osdep_ports_new begins a walk of root and its descendants (NULL
 * with ENOSYS where the system cannot tell), osdep_ports_step does up to
 * work steps (a process, a descriptor) and says 1 once the walk is over,
 * 0 while there is more. A walk looks at OSDEP_PORTS_PROCS processes and
 * OSDEP_PORTS_SOCKETS sockets at most and keeps OSDEP_PORTS_FOUND
 * listening sockets; osdep_ports_cut says which bound it reached.
 */
#define OSDEP_PORTS_PROCS	1000
#define OSDEP_PORTS_SOCKETS	10000
#define OSDEP_PORTS_FOUND	64
#define OSDEP_PORTS_CUT_PROCS	0x1	/* the tree had more processes */
#define OSDEP_PORTS_CUT_SOCKETS	0x2	/* it had more sockets */
#define OSDEP_PORTS_CUT_FOUND	0x4	/* it listened on more ports */
struct osdep_listen {
	int		family;		/* AF_INET or AF_INET6 */
	unsigned char	addr[16];	/* the first 4 for AF_INET */
	unsigned	port;
};
struct osdep_ports;
struct osdep_ports *osdep_ports_new(pid_t root);
int	osdep_ports_step(struct osdep_ports *, int work);
size_t	osdep_ports_found(const struct osdep_ports *,
	    const struct osdep_listen **);
int	osdep_ports_cut(const struct osdep_ports *);
void	osdep_ports_free(struct osdep_ports *);

#endif
