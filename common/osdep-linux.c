/*
 * osdep-linux.c — osdep.h on Linux: pidfd_open, prctl, and /proc.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>

#include "osdep.h"

/* A row of the process table, for the walks below. */
struct osdep_row {
	pid_t	pid;
	pid_t	ppid;
	pid_t	pgrp;
	pid_t	sid;
	int	mark;	/* 0 not known, 1 below root, 2 not */
};

int
osdep_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return ((int)syscall(SYS_pidfd_open, pid, 0));
#else
	(void)pid;
	errno = ENOSYS;
	return (-1);
#endif
}

int
osdep_subreaper(void)
{
	return (prctl(PR_SET_CHILD_SUBREAPER, 1));
}

int
osdep_parent_death(int sig, pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, sig) == -1)
		return (-1);
	if (getppid() != parent) {
		errno = ESRCH;
		return (-1);
	}
	return (0);
}

/* Read a small /proc file into buf (NUL-terminated): its length, -1. */
static ssize_t
osdep_read(const char *path, char *buf, size_t size)
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

/* /proc/PID/stat: "pid (comm) state ppid pgrp session tty_nr tpgid ...";
 * comm may hold anything, even ")", so the fields are read after its
 * last ')'. */
int
osdep_proc(pid_t pid, struct osdep_proc *p)
{
	char	path[64], line[1024], *rp;
	int	ppid, pgrp, sid, tty, tpgid;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if (osdep_read(path, line, sizeof line) <= 0)
		return (-1);
	if ((rp = strrchr(line, ')')) == NULL ||
	    sscanf(rp + 1, " %c %d %d %d %d %d", &p->state, &ppid, &pgrp, &sid,
	    &tty, &tpgid) != 6) {
		errno = EINVAL;
		return (-1);
	}
	p->ppid = ppid;
	p->pgrp = pgrp;
	p->sid = sid;
	p->tty = tty;
	p->tpgid = tpgid;
	return (0);
}

int
osdep_children(pid_t pid, pid_t *out, int max)
{
	char	 path[64], buf[4096], *p, *end;
	long	 kid;
	int	 n = 0;

	snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", (long)pid,
	    (long)pid);
	if (osdep_read(path, buf, sizeof buf) <= 0)
		return (0);
	for (p = buf; n < max; p = end) {
		kid = strtol(p, &end, 10);
		if (end == p)
			break;
		out[n++] = (pid_t)kid;
	}
	return (n);
}

ssize_t
osdep_cmdline(pid_t pid, char *buf, size_t size)
{
	char	path[64];
	ssize_t	n;
	int	fd;

	snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	n = read(fd, buf, size);
	close(fd);
	return (n);
}

int
osdep_self_exe(char *buf, size_t size)
{
	ssize_t	n;

	if ((n = readlink("/proc/self/exe", buf, size - 1)) <= 0)
		return (-1);
	buf[n] = '\0';
	return (0);
}

int
osdep_fd_path(int fd, const char *name, char *buf, size_t size)
{
	int	n;

	n = name != NULL ? snprintf(buf, size, "/proc/self/fd/%d/%s", fd, name) :
	    snprintf(buf, size, "/proc/self/fd/%d", fd);
	return (n < 0 || (size_t)n >= size ? -1 : 0);
}

int
osdep_signals(const sigset_t *set)
{
	if (sigprocmask(SIG_BLOCK, set, NULL) == -1)
		return (-1);
	return (signalfd(-1, set, SFD_NONBLOCK | SFD_CLOEXEC));
}

int
osdep_signal_next(int fd, int *signo, pid_t *from)
{
	struct signalfd_siginfo	si;

	if (read(fd, &si, sizeof si) != (ssize_t)sizeof si)
		return (0);
	*signo = (int)si.ssi_signo;
	if (from != NULL)
		*from = (pid_t)si.ssi_pid;
	return (1);
}

int
osdep_close_range(int lowfd, int highfd, int cloexec)
{
#ifdef SYS_close_range
	return ((int)syscall(SYS_close_range, (unsigned)lowfd,
	    highfd < 0 ? ~0U : (unsigned)highfd, cloexec ? 4u : 0u));
#else
	(void)lowfd;
	(void)highfd;
	(void)cloexec;
	errno = ENOSYS;
	return (-1);
#endif
}

/* Every live process with its parent, group and session; how many, or
 * -1. */
static ssize_t
osdep_table(struct osdep_row **out)
{
	struct osdep_row	*t = NULL;
	struct osdep_proc	 p;
	struct dirent		*de;
	DIR			*d;
	size_t			 n = 0, cap = 0;

	if ((d = opendir("/proc")) == NULL)
		return (-1);
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]) ||
		    osdep_proc((pid_t)atol(de->d_name), &p) == -1 ||
		    p.state == 'Z' || p.state == 'X')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			if ((t = reallocarray(t, cap, sizeof *t)) == NULL) {
				closedir(d);
				return (-1);
			}
		}
		t[n].pid = (pid_t)atol(de->d_name);
		t[n].ppid = p.ppid;
		t[n].pgrp = p.pgrp;
		t[n].sid = p.sid;
		t[n].mark = 0;
		n++;
	}
	closedir(d);
	*out = t;
	return ((ssize_t)n);
}

/* For qsort and bsearch: by pid. */
static int
osdep_cmp(const void *a, const void *b)
{
	const struct osdep_row	*x = a, *y = b;

	return (x->pid < y->pid ? -1 : x->pid > y->pid);
}

/* Is t[i] a descendant of root? Memoised in mark (1 yes, 2 no); the walk
 * up stops at root, at a process not in the table, or at a loop. */
static bool
osdep_below(struct osdep_row *t, size_t n, size_t i, pid_t root)
{
	struct osdep_row	 key, *p;
	size_t			 depth = 0, k, path[64];
	int			 v;

	for (k = i;; ) {
		if (t[k].mark != 0) {
			v = t[k].mark;
			break;
		}
		if (t[k].ppid == root) {
			v = 1;
			break;
		}
		key.pid = t[k].ppid;
		if (depth == sizeof path / sizeof *path || t[k].ppid <= 1 ||
		    (p = bsearch(&key, t, n, sizeof *t, osdep_cmp)) == NULL) {
			v = 2;
			break;
		}
		path[depth++] = k;
		k = (size_t)(p - t);
		if (k == i) {
			v = 2;
			break;
		}
	}
	t[i].mark = v;
	while (depth > 0)
		t[path[--depth]].mark = v;
	return (v == 1);
}

int
osdep_signal_descendants(pid_t root, int sig)
{
	struct osdep_row	*t = NULL;
	ssize_t			 n;
	size_t			 i;
	int			 count = 0;

	if ((n = osdep_table(&t)) == -1)
		return (-1);
	qsort(t, (size_t)n, sizeof *t, osdep_cmp);
	for (i = 0; i < (size_t)n; i++) {
		if (t[i].pid == root || !osdep_below(t, (size_t)n, i, root))
			continue;
		count++;
		if (sig != 0)
			kill(t[i].pid, sig);
		if (sig == SIGTERM)
			kill(t[i].pid, SIGCONT);
	}
	free(t);
	return (count);
}

int
osdep_signal_group_session(pid_t pgrp, pid_t sid, int sig)
{
	struct osdep_row	*t = NULL;
	ssize_t			 n;
	size_t			 i;
	int			 count = 0;
	pid_t			 self = getpid();

	if ((n = osdep_table(&t)) == -1)
		return (-1);
	for (i = 0; i < (size_t)n; i++) {
		if (t[i].pid == self || !((pgrp > 0 && t[i].pgrp == pgrp) ||
		    (sid > 0 && t[i].sid == sid)))
			continue;
		count++;
		if (sig != 0)
			kill(t[i].pid, sig);
		if (sig == SIGTERM)
			kill(t[i].pid, SIGCONT);
	}
	free(t);
	return (count);
}
