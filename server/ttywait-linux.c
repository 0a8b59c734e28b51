/*
 * ttywait-linux.c — the input-wait check (ttywait.h) on Linux: is a
 * terminal's foreground process group waiting for the keyboard? Read
 * from /proc, with the Linux port's readers of its files
 * (osdep-linux.h). Only the front links it.
 *
 * From the pane's first process (the launcher) we take the terminal
 * (tty_nr) and its foreground group (tpgid) out of its stat, then look at
 * the group's leader, then walk the launcher's descendants
 * (/proc/PID/task/TID/children) for the other members of that group. For
 * each thread of a member looked at, /proc/PID/task/TID/syscall says
 * which system call it sleeps in and with which arguments:
 *
 *   read, readv, pread	the descriptor is arg 0;
 *   poll, ppoll		the pollfd array (arg 0, arg 1 entries) is read
 *				from /proc/PID/mem;
 *   select, pselect6	the read set (arg 1, arg 0 bits), likewise;
 *   epoll_wait & co	the epoll descriptor's interest list is in
 *				/proc/PID/fdinfo/EPFD ("tfd: N events: X ...
 *				ino: I sdev: D"), read whole; in a process
 *				with a descriptor table over
 *				TTYWAIT_EPOLL_FDS, kcmp(2) says instead
 *				whether its descriptors 0-2 are in the set.
 *
 * A descriptor is the terminal when it is a character device whose rdev
 * is tty_nr, or /dev/tty (5,0); an epoll entry also when it names the
 * inode of one of the process's descriptors 0-2 found to be the
 * terminal, and not when it is on a filesystem seen to hold only pipes,
 * sockets or anonymous inodes. Anything else (nanosleep, wait4, a poll
 * on sockets) is not a wait for the keyboard.
 *
 * Every check has a fixed budget: at most TTYWAIT_BUDGET /proc files
 * opened or looked up, TTYWAIT_THREADS threads of a process beside its
 * main thread (looked at first), TTYWAIT_MAX_PROCS processes, and
 * TTYWAIT_FDINFO_MAX bytes of an epoll listing, however many threads,
 * processes or descriptors there are (a listing costs the kernel about
 * 1.5 us an entry on its first read, however little of it is read: 4 ms
 * for 3000, hence kcmp for big processes). What the budget leaves
 * unseen, and any listing or set that could not be read whole, makes the
 * answer TTYWAIT_UNKNOWN ("cannot tell"), never TTYWAIT_NO. Nothing here
 * blocks: /proc files answer at once.
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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <linux/kcmp.h>

#include "osdep-linux.h"
#include "ttywait.h"



#define TTYWAIT_MAX_PROCS	64	/* of a pane's tree looked at */
#define TTYWAIT_MAX_FDS		4096	/* of a poll or select set read */
#define TTYWAIT_FDINFO_MAX	(256 * 1024)	/* bytes of an epoll listing */
#define TTYWAIT_EPOLL_FDS	1024	/* a bigger table: kcmp, no listing */
#define TTYWAIT_FD_CACHE	64	/* descriptors remembered per process */
#define TTYWAIT_IDS		2	/* terminal inodes: its pts, /dev/tty */
#define TTYWAIT_NOTTY_FS	8	/* filesystems seen to hold no tty */

struct ttywait_stat {
	char	state;
	pid_t	pgrp;
	int	tty_nr;
	pid_t	tpgid;
	long	threads;
};

/* One check: its terminal, what is left of its budget, what it learnt. */
struct ttywait_ctx {
	int		 tty_nr;
	unsigned	 cost;		/* /proc files used so far */
	bool		 cut;		/* something went unseen */

	pid_t		 fd_pid;	/* the process fd_tty is about */
	signed char	 fd_tty[TTYWAIT_FD_CACHE]; /* -1 unknown, 0, 1 */
	struct {
		dev_t	 dev;
		ino_t	 ino;
	}		 id[TTYWAIT_IDS]; /* the terminal's inodes, of fd_pid */
	int		 nid;
	dev_t		 notty[TTYWAIT_NOTTY_FS];
	int		 nnotty;
};

static unsigned	ttywait_last_cost;

/* Take one /proc file from the budget; false (and cut) if none is left. */
static bool
ttywait_take(struct ttywait_ctx *c)
{
	if (c->cost >= TTYWAIT_BUDGET) {
		c->cut = true;
		return (false);
	}
	c->cost++;
	return (true);
}

/* Read a small /proc file into buf (NUL-terminated). Returns its length
 * or -1 with errno (EAGAIN: over budget); a file that fills buf is cut. */
static ssize_t
ttywait_read(struct ttywait_ctx *c, const char *path, char *buf,
    size_t size)
{
	ssize_t	got;

	if (!ttywait_take(c)) {
		errno = EAGAIN;
		return (-1);
	}
	if ((got = linux_proc_read(path, buf, size)) == -1)
		return (-1);
	if ((size_t)got == size - 1)
		c->cut = true;
	return (got);
}

/* The fields we use of a task's stat (/proc/PID/task/TID/stat, which
 * costs the same however many threads the process has). */
static int
ttywait_stat(struct ttywait_ctx *c, pid_t pid, struct ttywait_stat *st)
{
	struct osdep_proc	p;
	char			path[64], buf[1024];

	snprintf(path, sizeof path, "/proc/%ld/task/%ld/stat", (long)pid,
	    (long)pid);
	if (ttywait_read(c, path, buf, sizeof buf) == -1 ||
	    linux_proc_stat(buf, &p, &st->threads) == -1)
		return (-1);
	st->state = p.state;
	st->pgrp = p.pgrp;
	st->tty_nr = p.tty;
	st->tpgid = p.tpgid;
	return (0);
}

/* Is rdev the terminal tty_nr (or /dev/tty)? */
static bool
ttywait_rdev(dev_t rdev, int tty_nr)
{
	if (rdev == makedev(5, 0))	/* /dev/tty: its own terminal */
		return (true);
	return (major(rdev) == (((unsigned)tty_nr >> 8) & 0xfff) &&
	    minor(rdev) == (((unsigned)tty_nr & 0xff) |
	    (((unsigned)tty_nr >> 12) & 0xfff00)));
}

/* Remember what a stat of one of pid's descriptors taught: the
 * terminal's inode, or a filesystem that holds no terminal. */
static void
ttywait_learn(struct ttywait_ctx *c, const struct stat *sb, bool tty)
{
	mode_t	type = sb->st_mode & S_IFMT;
	int	i;

	if (tty) {
		for (i = 0; i < c->nid; i++)
			if (c->id[i].dev == sb->st_dev &&
			    c->id[i].ino == sb->st_ino)
				return;
		if (c->nid < TTYWAIT_IDS) {
			c->id[c->nid].dev = sb->st_dev;
			c->id[c->nid++].ino = sb->st_ino;
		}
		return;
	}
	/* pipefs, sockfs and anon_inodefs hold nothing else. */
	if (type != S_IFIFO && type != S_IFSOCK && type != 0)
		return;
	for (i = 0; i < c->nnotty; i++)
		if (c->notty[i] == sb->st_dev)
			return;
	if (c->nnotty < TTYWAIT_NOTTY_FS)
		c->notty[c->nnotty++] = sb->st_dev;
}

/* Start learning about pid's descriptors (forgetting another's). */
static void
ttywait_fd_reset(struct ttywait_ctx *c, pid_t pid)
{
	if (c->fd_pid == pid)
		return;
	c->fd_pid = pid;
	memset(c->fd_tty, -1, sizeof c->fd_tty);
	c->nid = c->nnotty = 0;
}

/* Is descriptor fd of process pid the terminal? 1 yes, 0 no, -1 over
 * the budget. */
static int
ttywait_fd(struct ttywait_ctx *c, pid_t pid, long fd)
{
	char		path[64];
	struct stat	sb;
	int		tty;

	if (fd < 0 || fd > INT32_MAX)
		return (0);
	ttywait_fd_reset(c, pid);
	if (fd < TTYWAIT_FD_CACHE && c->fd_tty[fd] != -1)
		return (c->fd_tty[fd]);
	if (!ttywait_take(c))
		return (-1);
	snprintf(path, sizeof path, "/proc/%ld/fd/%ld", (long)pid, fd);
	if (stat(path, &sb) == -1)
		tty = 0;
	else {
		tty = S_ISCHR(sb.st_mode) && ttywait_rdev(sb.st_rdev,
		    c->tty_nr);
		ttywait_learn(c, &sb, tty);
	}
	if (fd < TTYWAIT_FD_CACHE)
		c->fd_tty[fd] = (signed char)tty;
	return (tty);
}

/* Learn which of pid's descriptors 0-2 are the terminal (they usually
 * are): their inodes identify it in an epoll listing. */
static void
ttywait_fd_std(struct ttywait_ctx *c, pid_t pid)
{
	long	fd;

	for (fd = 0; fd <= 2; fd++)
		(void)ttywait_fd(c, pid, fd);
}

/* Read len bytes at addr of pid's memory. */
static int
ttywait_peek(struct ttywait_ctx *c, pid_t pid, unsigned long addr,
    void *out, size_t len)
{
	char	path[64];
	int	fd;
	ssize_t	n;

	if (!ttywait_take(c))
		return (-1);
	snprintf(path, sizeof path, "/proc/%ld/mem", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	n = pread(fd, out, len, (off_t)addr);
	close(fd);
	return (n == (ssize_t)len ? 0 : -1);
}

/*
 * Is one of these descriptors (n of them) the terminal? Those already
 * known first, then the others while the budget lasts; past it, if none
 * was, UNKNOWN.
 */
static enum ttywait
ttywait_fds(struct ttywait_ctx *c, pid_t pid, const int *fds, size_t n)
{
	size_t	i;
	int	tty;
	bool	unseen = false;

	ttywait_fd_std(c, pid);
	for (i = 0; i < n; i++) {
		if (fds[i] >= 0 && fds[i] < TTYWAIT_FD_CACHE &&
		    c->fd_tty[fds[i]] == 1)
			return (TTYWAIT_YES);
	}
	for (i = 0; i < n; i++) {
		if ((tty = ttywait_fd(c, pid, fds[i])) == 1)
			return (TTYWAIT_YES);
		if (tty == -1)
			unseen = true;
	}
	return (unseen ? TTYWAIT_UNKNOWN : TTYWAIT_NO);
}

/* poll(fds, nfds): one of them the terminal, for input? */
static enum ttywait
ttywait_poll(struct ttywait_ctx *c, pid_t pid, unsigned long fds,
    unsigned long nfds)
{
	struct pollfd	*pfd;
	int		*in;
	unsigned long	 i;
	size_t		 n = 0;
	enum ttywait	 w;

	if (nfds == 0)
		return (TTYWAIT_NO);
	if (nfds > TTYWAIT_MAX_FDS)
		return (TTYWAIT_UNKNOWN);
	pfd = calloc(nfds, sizeof *pfd);
	in = calloc(nfds, sizeof *in);
	if (pfd == NULL || in == NULL ||
	    ttywait_peek(c, pid, fds, pfd, nfds * sizeof *pfd) == -1)
		w = TTYWAIT_UNKNOWN;
	else {
		for (i = 0; i < nfds; i++)
			if (pfd[i].events & (POLLIN | POLLPRI))
				in[n++] = pfd[i].fd;
		w = ttywait_fds(c, pid, in, n);
	}
	free(in);
	free(pfd);
	return (w);
}

/* select(nfds, readfds, ...): the terminal among the read set? */
static enum ttywait
ttywait_select(struct ttywait_ctx *c, pid_t pid, unsigned long nfds,
    unsigned long readfds)
{
	unsigned char	set[TTYWAIT_MAX_FDS / 8];
	int		in[TTYWAIT_MAX_FDS];
	unsigned long	fd;
	size_t		n = 0;

	if (readfds == 0 || nfds == 0)
		return (TTYWAIT_NO);
	if (nfds > TTYWAIT_MAX_FDS)
		return (TTYWAIT_UNKNOWN);
	if (ttywait_peek(c, pid, readfds, set, (nfds + 7) / 8) == -1)
		return (TTYWAIT_UNKNOWN);
	for (fd = 0; fd < nfds; fd++)
		if (set[fd / 8] & (1u << (fd % 8)))
			in[n++] = (int)fd;
	return (ttywait_fds(c, pid, in, n));
}

/*
 * One line of an epoll listing: 1 if it is the terminal for input, 0 if
 * not, -1 if that cannot be told within the budget. An entry naming an
 * inode is settled without a look when the inode is the terminal's or
 * its filesystem holds no terminal.
 */
static int
ttywait_epoll_line(struct ttywait_ctx *c, pid_t pid, const char *line)
{
	long		 tfd;
	unsigned int	 events, sdev;
	unsigned long	 ino;
	const char	*p;
	dev_t		 dev;
	int		 i;

	if (sscanf(line, "tfd: %ld events: %x", &tfd, &events) != 2 ||
	    (events & (EPOLLIN | EPOLLPRI)) == 0)
		return (0);
	if ((p = strstr(line, " ino:")) != NULL &&
	    sscanf(p, " ino:%lx sdev:%x", &ino, &sdev) == 2) {
		/* The kernel's own dev_t: major above bit 20. */
		dev = makedev(sdev >> 20, sdev & 0xfffff);
		for (i = 0; i < c->nid; i++)
			if (c->id[i].dev == dev && c->id[i].ino == ino)
				return (1);
		for (i = 0; i < c->nnotty; i++)
			if (c->notty[i] == dev)
				return (0);
	}
	return (ttywait_fd(c, pid, tfd));
}

/* The size of pid's descriptor table (FDSize in its status), or -1. */
static long
ttywait_fdsize(struct ttywait_ctx *c, pid_t pid)
{
	char	 path[64], buf[4096], *p;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	if (ttywait_read(c, path, buf, sizeof buf) == -1 ||
	    (p = strstr(buf, "\nFDSize:")) == NULL)
		return (-1);
	return (strtol(p + 8, NULL, 10));
}

/*
 * A big process's epoll set, without its listing: is one of its
 * descriptors 0-2 that is the terminal in it (under its own number)?
 * Then it waits for the terminal (for input, as a prompt does: kcmp does
 * not say which events); if none is, that cannot be told.
 */
static enum ttywait
ttywait_epoll_kcmp(struct ttywait_ctx *c, pid_t pid, unsigned long epfd)
{
	struct kcmp_epoll_slot	slot;
	int			fd;

	for (fd = 0; fd <= 2; fd++) {
		if (c->fd_tty[fd] != 1)
			continue;
		if (!ttywait_take(c))
			break;
		slot.efd = (__u32)epfd;
		slot.tfd = (__u32)fd;
		slot.toff = 0;
		if (syscall(SYS_kcmp, pid, pid, KCMP_EPOLL_TFD, fd,
		    &slot) == 0)
			return (TTYWAIT_YES);
	}
	return (TTYWAIT_UNKNOWN);
}

/*
 * epoll_wait(epfd, ...): the terminal in its interest list, for input?
 * The listing is read whole, a buffer at a time, up to
 * TTYWAIT_FDINFO_MAX bytes; cut there, or by a read failing, or with an
 * entry left unseen by the budget, it is UNKNOWN unless one was. A
 * process whose table is over TTYWAIT_EPOLL_FDS may have a listing too
 * long to be made within a check: kcmp answers for it.
 */
static enum ttywait
ttywait_epoll(struct ttywait_ctx *c, pid_t pid, unsigned long epfd)
{
	char		 path[64], buf[16384], *line, *nl;
	size_t		 have = 0, total = 0;
	ssize_t		 n;
	int		 fd, r;
	bool		 unseen = false;
	enum ttywait	 w = TTYWAIT_UNKNOWN;
	long		 fdsize;

	ttywait_fd_std(c, pid);
	if ((fdsize = ttywait_fdsize(c, pid)) == -1 ||
	    fdsize > TTYWAIT_EPOLL_FDS)
		return (ttywait_epoll_kcmp(c, pid, epfd));
	if (!ttywait_take(c))
		return (TTYWAIT_UNKNOWN);
	snprintf(path, sizeof path, "/proc/%ld/fdinfo/%lu", (long)pid, epfd);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (TTYWAIT_UNKNOWN);
	for (;;) {
		n = read(fd, buf + have, sizeof buf - 1 - have);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			break;		/* UNKNOWN */
		if (n == 0) {
			w = unseen ? TTYWAIT_UNKNOWN : TTYWAIT_NO;
			break;
		}
		have += (size_t)n;
		buf[have] = '\0';
		for (line = buf; (nl = strchr(line, '\n')) != NULL;
		    line = nl + 1) {
			*nl = '\0';
			if ((r = ttywait_epoll_line(c, pid, line)) == 1) {
				close(fd);
				return (TTYWAIT_YES);
			}
			if (r == -1)
				unseen = true;
		}
		/* A line longer than the buffer is no "tfd:" line. */
		have = line == buf && have == sizeof buf - 1 ? 0 :
		    (size_t)(buf + have - line);
		memmove(buf, line, have);
		if ((total += (size_t)n) > TTYWAIT_FDINFO_MAX)
			break;		/* cut: UNKNOWN */
	}
	close(fd);
	return (w);
}

/*
 * What a system call number read from /proc means. The numbers are the
 * kernel's, and they are not ours when progmux runs under a user-mode
 * emulator (qemu-user, Rosetta: an arm64 build on an x86_64 kernel, or the
 * reverse). /proc/self/syscall, read once, holds the kernel's number of
 * the read(2) reading it: our SYS_read, x86_64's 0, or 63, that of the
 * generic table (arm64, riscv64). Under any other kernel nothing is known.
 */
enum ttywait_call { CALL_OTHER, CALL_READ, CALL_POLL, CALL_SELECT,
    CALL_EPOLL, CALL_UNKNOWN };

static enum ttywait_call
ttywait_call(long nr)
{
	static int	 abi = -1;	/* 0 ours, 1 x86_64, 2 generic, 3 ? */
	char		 buf[64];
	long		 self;
	ssize_t		 n;
	int		 fd;

	if (abi == -1) {
		abi = 3;
		if ((fd = open("/proc/self/syscall", O_RDONLY | O_CLOEXEC)) !=
		    -1) {
			if ((n = read(fd, buf, sizeof buf - 1)) > 0) {
				buf[n] = '\0';
				self = strtol(buf, NULL, 10);
				abi = self == SYS_read ? 0 : self == 0 ? 1 :
				    self == 63 ? 2 : 3;
			}
			close(fd);
		}
	}
	if (abi == 1)	/* x86_64's numbers */
		switch (nr) {
		case 0: case 19: case 17: case 295: case 327:	/* read readv
						   pread64 preadv preadv2 */
			return (CALL_READ);
		case 7: case 271:			/* poll ppoll */
			return (CALL_POLL);
		case 23: case 270:			/* select pselect6 */
			return (CALL_SELECT);
		case 232: case 281: case 441:		/* epoll_wait, _pwait,
							   _pwait2 */
			return (CALL_EPOLL);
		default:
			return (CALL_OTHER);
		}
	if (abi == 2)	/* the generic table's */
		switch (nr) {
		case 63: case 65: case 67: case 69: case 286:	/* read readv
						   pread64 preadv preadv2 */
			return (CALL_READ);
		case 73:				/* ppoll */
			return (CALL_POLL);
		case 72:				/* pselect6 */
			return (CALL_SELECT);
		case 22: case 441:			/* epoll_pwait, _pwait2 */
			return (CALL_EPOLL);
		default:
			return (CALL_OTHER);
		}
	if (abi != 0)
		return (CALL_UNKNOWN);
	switch (nr) {
	case SYS_read:
	case SYS_readv:
	case SYS_pread64:
	case SYS_preadv:
	case SYS_preadv2:
		return (CALL_READ);
#ifdef SYS_poll
	case SYS_poll:
#endif
	case SYS_ppoll:
		return (CALL_POLL);
#ifdef SYS_select
	case SYS_select:
#endif
	case SYS_pselect6:
		return (CALL_SELECT);
#ifdef SYS_epoll_wait
	case SYS_epoll_wait:
#endif
	case SYS_epoll_pwait:
#ifdef SYS_epoll_pwait2
	case SYS_epoll_pwait2:
#endif
		return (CALL_EPOLL);
	default:
		return (CALL_OTHER);
	}
}

/* One thread of a foreground process: what does it sleep in? */
static enum ttywait
ttywait_thread(struct ttywait_ctx *c, pid_t pid, const char *tid)
{
	char		 path[300], buf[256];
	long		 nr;
	unsigned long	 a[6];

	snprintf(path, sizeof path, "/proc/%ld/task/%s/syscall", (long)pid,
	    tid);
	if (ttywait_read(c, path, buf, sizeof buf) == -1)
		return (errno == ENOENT || errno == ESRCH ? TTYWAIT_NO :
		    TTYWAIT_UNKNOWN);
	if (strncmp(buf, "running", 7) == 0)
		return (TTYWAIT_NO);
	if (sscanf(buf, "%ld %lx %lx %lx %lx %lx %lx", &nr, &a[0], &a[1],
	    &a[2], &a[3], &a[4], &a[5]) != 7)
		return (TTYWAIT_NO);	/* "-1 sp pc": not in a call */
	switch (ttywait_call(nr)) {
	case CALL_READ:
		switch (ttywait_fd(c, pid, (long)a[0])) {
		case 1:
			return (TTYWAIT_YES);
		case 0:
			return (TTYWAIT_NO);
		default:
			return (TTYWAIT_UNKNOWN);
		}
	case CALL_POLL:
		return (ttywait_poll(c, pid, a[0], a[1]));
	case CALL_SELECT:
		return (ttywait_select(c, pid, a[0], a[1]));
	case CALL_EPOLL:
		return (ttywait_epoll(c, pid, a[0]));
	case CALL_UNKNOWN:
		return (TTYWAIT_UNKNOWN);
	default:
		return (TTYWAIT_NO);
	}
}

/* Fold one answer into another: YES wins, then UNKNOWN. */
static enum ttywait
ttywait_fold(enum ttywait w, enum ttywait t)
{
	if (w == TTYWAIT_YES || t == TTYWAIT_YES)
		return (TTYWAIT_YES);
	if (w == TTYWAIT_UNKNOWN || t == TTYWAIT_UNKNOWN)
		return (TTYWAIT_UNKNOWN);
	return (TTYWAIT_NO);
}

/* Append the children that one thread of pid made to the list. */
static void
ttywait_children_of(struct ttywait_ctx *c, pid_t pid, const char *tid,
    pid_t *list, size_t *n)
{
	char	 path[300], buf[4096];
	bool	 more;

	snprintf(path, sizeof path, "/proc/%ld/task/%s/children", (long)pid,
	    tid);
	if (ttywait_read(c, path, buf, sizeof buf) == -1)
		return;
	*n += (size_t)linux_proc_pids(buf, list + *n,
	    (int)(TTYWAIT_MAX_PROCS - *n), &more);
	if (more)
		c->cut = true;
}

/*
 * The first TTYWAIT_THREADS thread ids in a task directory, but main's.
 * One small getdents: readdir(3) would ask for a buffer's worth of
 * entries, and each costs the kernel a lookup (4 ms for 1000 of them).
 */
static size_t
ttywait_tids(struct ttywait_ctx *c, const char *path, const char *main_tid,
    char tids[][24])
{
	char			 buf[2048];
	struct dirent64		*de;
	long			 got;
	size_t			 n = 0, off, len;
	int			 fd;

	if (!ttywait_take(c))
		return (0);
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return (0);		/* gone meanwhile */
	got = syscall(SYS_getdents64, fd, buf, sizeof buf);
	close(fd);
	for (off = 0; got > 0 && off < (size_t)got; off += de->d_reclen) {
		de = (struct dirent64 *)(buf + off);
		len = strnlen(de->d_name, sizeof tids[0]);
		if (de->d_name[0] < '0' || de->d_name[0] > '9' ||
		    len == sizeof tids[0] || n == TTYWAIT_THREADS ||
		    strcmp(de->d_name, main_tid) == 0)
			continue;
		memcpy(tids[n++], de->d_name, len + 1);
	}
	return (n);
}

/*
 * One process: its main thread first (unless main_seen), then up to
 * TTYWAIT_THREADS others. For a member of the foreground group (member),
 * what they sleep in; for any, the children they made go on the list.
 * Threads left unseen cut the check.
 */
static enum ttywait
ttywait_process(struct ttywait_ctx *c, pid_t pid, long threads,
    bool member, bool main_seen, pid_t *list, size_t *n)
{
	char		 path[64], main_tid[24], tids[TTYWAIT_THREADS][24];
	size_t		 ntids, i;
	enum ttywait	 w = TTYWAIT_NO;

	snprintf(main_tid, sizeof main_tid, "%ld", (long)pid);
	if (member && !main_seen &&
	    (w = ttywait_thread(c, pid, main_tid)) == TTYWAIT_YES)
		return (w);
	ttywait_children_of(c, pid, main_tid, list, n);
	if (threads <= 1)
		return (w);
	snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
	ntids = ttywait_tids(c, path, main_tid, tids);
	if ((long)ntids < threads - 1)
		c->cut = true;		/* threads left unseen */
	for (i = 0; i < ntids && w != TTYWAIT_YES; i++) {
		if (member)
			w = ttywait_fold(w, ttywait_thread(c, pid, tids[i]));
		ttywait_children_of(c, pid, tids[i], list, n);
	}
	return (w);
}

/* Is a process (its stat st) of the foreground group? */
static bool
ttywait_in_group(const struct ttywait_stat *st,
    const struct ttywait_stat *root)
{
	return (st->pgrp == root->tpgid && st->tty_nr == root->tty_nr);
}

/* The budget the last check used, in /proc files (for the tests). */
unsigned
ttywait_cost(void)
{
	return (ttywait_last_cost);
}

/*
 * The check, within a budget (see the top of the file): the group's
 * leader's main thread first, as it is the one waiting most often; then
 * the launcher's tree, breadth first. A member running makes it busy.
 */
static enum ttywait
ttywait_walk(struct ttywait_ctx *c, pid_t pid)
{
	pid_t			list[TTYWAIT_MAX_PROCS], leader = -1;
	char			tid[24];
	size_t			n = 0, i;
	struct ttywait_stat	root, st;
	enum ttywait		w = TTYWAIT_NO, t;
	bool			member;

	if (pid <= 0 || ttywait_stat(c, pid, &root) == -1 ||
	    root.tty_nr == 0 || root.tpgid <= 0)
		return (TTYWAIT_NO);
	c->tty_nr = root.tty_nr;
	if (root.tpgid != pid && ttywait_stat(c, root.tpgid, &st) == 0 &&
	    ttywait_in_group(&st, &root)) {
		if (st.state == 'R')
			return (TTYWAIT_NO);
		snprintf(tid, sizeof tid, "%ld", (long)root.tpgid);
		if ((w = ttywait_thread(c, root.tpgid, tid)) == TTYWAIT_YES)
			return (w);
		leader = root.tpgid;
	}
	list[n++] = pid;
	for (i = 0; i < n; i++) {
		if (ttywait_stat(c, list[i], &st) == -1)
			continue;	/* gone, or over the budget (cut) */
		member = ttywait_in_group(&st, &root);
		if (member && st.state == 'R')
			return (TTYWAIT_NO);	/* busy */
		t = ttywait_process(c, list[i], st.threads, member,
		    list[i] == leader, list, &n);
		if ((w = ttywait_fold(w, t)) == TTYWAIT_YES)
			return (w);
	}
	return (c->cut ? ttywait_fold(w, TTYWAIT_UNKNOWN) : w);
}

enum ttywait
ttywait_check(pid_t pid)
{
	struct ttywait_ctx	c;
	enum ttywait		w;

	memset(&c, 0, sizeof c);
	c.fd_pid = -1;
	w = ttywait_walk(&c, pid);
	ttywait_last_cost = c.cost;
	return (w);
}

bool
ttywait_can_tell(void)
{
	return (true);
}
