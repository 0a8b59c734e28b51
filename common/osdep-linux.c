/*
 * osdep-linux.c — osdep.h on Linux: /proc, pidfd_open, prctl (a
 * subreaper, a parent-death signal), signalfd, close_range and
 * TCP_DEFER_ACCEPT. Its
 * readers of /proc files serve the input-wait check too
 * (osdep-linux.h, server/ttywait-linux.c).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include "compat.h"
#include "osdep.h"
#include "osdep-linux.h"
#include "osdep-port.h"

int
osdep_features(void)
{
	return (OSDEP_SUBREAPER | OSDEP_PARENT_DEATH | OSDEP_CLOSE_RANGE |
	    OSDEP_CMDLINE_WORDS | OSDEP_DEFER_ACCEPT);
}

const char *
osdep_name(void)
{
	return ("linux");
}

int
osdep_pidfd(pid_t pid)
{
	return (compat_pidfd_open(pid));
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

int
osdep_defer_accept(int fd, int secs)
{
	return (setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &secs,
	    sizeof secs));
}

ssize_t
linux_proc_read(const char *path, char *buf, size_t size)
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

/*
 * A stat line's fields: comm may hold anything, even ")", so they are
 * read after its last ')'.
 */
int
linux_proc_stat(const char *line, struct osdep_proc *p, long *threads)
{
	const char	*rp;
	long		 nthreads = 0;
	int		 ppid, pgrp, sid, tty, tpgid, got;

	if ((rp = strrchr(line, ')')) != NULL)
		got = sscanf(rp + 1, " %c %d %d %d %d %d %*u %*u %*u %*u %*u "
		    "%*u %*u %*d %*d %*d %*d %ld", &p->state, &ppid, &pgrp,
		    &sid, &tty, &tpgid, &nthreads);
	if (rp == NULL || got < (threads != NULL ? 7 : 6)) {
		errno = EINVAL;
		return (-1);
	}
	p->ppid = ppid;
	p->pgrp = pgrp;
	p->sid = sid;
	p->tty = tty;
	p->tpgid = tpgid;
	if (threads != NULL)
		*threads = nthreads;
	return (0);
}

/* /proc/PID/stat's fields we use. */
int
osdep_proc(pid_t pid, struct osdep_proc *p)
{
	char	path[64], line[1024];

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if (linux_proc_read(path, line, sizeof line) <= 0)
		return (-1);
	return (linux_proc_stat(line, p, NULL));
}

int
linux_proc_pids(const char *buf, pid_t *out, int max, bool *more)
{
	const char	*p;
	char		*end;
	long		 kid;
	int		 n = 0;

	*more = false;
	for (p = buf;; p = end) {
		kid = strtol(p, &end, 10);
		if (end == p)
			break;
		if (n == max) {
			*more = true;
			break;
		}
		out[n++] = (pid_t)kid;
	}
	return (n);
}

int
osdep_children(pid_t pid, pid_t *out, int max)
{
	char	 path[64], buf[4096];
	bool	 more;

	snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", (long)pid,
	    (long)pid);
	if (linux_proc_read(path, buf, sizeof buf) <= 0)
		return (0);
	return (linux_proc_pids(buf, out, max, &more));
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
osdep_self_exe(const char *argv0, char *buf, size_t size)
{
	ssize_t	n;

	(void)argv0;
	if ((n = readlink("/proc/self/exe", buf, size - 1)) <= 0)
		return (-1);
	buf[n] = '\0';
	return (0);
}

/* Through /proc/self/fd/DFD/NAME: the directory's own descriptor names
 * it, whatever its path is now. */
int
osdep_connect_at(int sock, int dfd, const char *name)
{
	struct sockaddr_un	sa;
	int			n;

	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	n = snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d/%s",
	    dfd, name);
	if (n < 0 || (size_t)n >= sizeof sa.sun_path) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	return (connect(sock, (struct sockaddr *)&sa, sizeof sa));
}

int
osdep_signals(const sigset_t *set)
{
	if (sigprocmask(SIG_BLOCK, set, NULL) == -1)
		return (-1);
	return (signalfd(-1, set, SFD_NONBLOCK | SFD_CLOEXEC));
}

int
osdep_signal_next(int fd, int *signo)
{
	struct signalfd_siginfo	si;

	if (read(fd, &si, sizeof si) != (ssize_t)sizeof si)
		return (0);
	*signo = (int)si.ssi_signo;
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

/* Every live process with its parent, group and session: /proc. */
ssize_t
osdep_table(struct osdep_row **out)
{
	struct osdep_row	*t = NULL, *nt;
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
			if ((nt = reallocarray(t, cap, sizeof *t)) == NULL) {
				free(t);
				closedir(d);
				return (-1);
			}
			t = nt;
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
