/*
 * osdep-darwin.c — osdep.h on macOS (13 and newer):
 *
 *   process table	proc_listallpids, then each one's PROC_PIDT_SHORTBSDINFO
 *			(zombies left out), the session from getsid(2)
 *   a process		proc_pidinfo(PROC_PIDTBSDINFO): parent, group,
 *			state, terminal and its foreground group (the short
 *			form, without the terminal, for another user's)
 *   children		proc_listchildpids
 *   command line	sysctl(KERN_PROCARGS2): argc, the executable's
 *			path, then the words (osdep_procargs, osdep.c)
 *   own executable	proc_pidpath
 *   connect		in the checked directory (fchdir), by its name
 *			(osdep-shared.c): XNU has no connectat, and a path
 *			from F_GETPATH could be swapped and overflow
 *			sun_path (104 bytes)
 *   signals		a self-pipe (osdep-shared.c)
 *   runtime files	the per-user cache directory (confstr), where TMPDIR
 *			is the per-user temporary one or /tmp: the system
 *			sweeps those of what is unused for 3 days
 *   close_range	the descriptors PROC_PIDLISTFDS lists, closed or
 *			marked one by one
 *   exit descriptor	a kqueue holding EVFILT_PROC NOTE_EXIT on the pid:
 *			readable once it has exited, and it stays so since
 *			nobody collects the event; ESRCH if it is gone
 *   listening ports	each process's PROC_PIDLISTFDS, and of its sockets
 *			proc_pidfdinfo(PROC_PIDFDSOCKETINFO): TCP in LISTEN
 *
 * No subreaper and no parent-death signal: ENOSYS (osdep-shared.c). The input-wait check
 * cannot tell (server/ttywait-none.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <libproc.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/event.h>
#include <sys/proc.h>
#include <sys/proc_info.h>
#include <sys/stat.h>
#include <sys/sysctl.h>
#include <sys/types.h>

#include "fdutil.h"
#include "osdep.h"
#include "osdep-port.h"

#define OSDEP_FDS_MAX	1024	/* descriptors close_range looks at */

int
osdep_features(void)
{
	return (OSDEP_CLOSE_RANGE | OSDEP_CMDLINE_WORDS | OSDEP_PORTS |
	    OSDEP_PEER_UID);
}

const char *
osdep_name(void)
{
	return ("darwin");
}

/* getpeereid(2): the peer's effective user when it connected. */
int
osdep_peer_uid(int sock, uid_t *uid)
{
	gid_t	gid;

	return (getpeereid(sock, uid, &gid));
}

/* A p_stat value as a state letter. */
static char
osdep_state(uint32_t status)
{
	switch (status) {
	case SRUN:
		return ('R');
	case SSLEEP:
		return ('S');
	case SSTOP:
		return ('T');
	case SZOMB:
		return ('Z');
	default:
		return ('I');	/* SIDL: being made */
	}
}

int
osdep_proc(pid_t pid, struct osdep_proc *p)
{
	struct proc_bsdinfo		bi;
	struct proc_bsdshortinfo	si;

	memset(p, 0, sizeof *p);
	if (proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &bi, sizeof bi) ==
	    (int)sizeof bi) {
		p->state = osdep_state(bi.pbi_status);
		p->ppid = (pid_t)bi.pbi_ppid;
		p->pgrp = (pid_t)bi.pbi_pgid;
		p->tty = bi.e_tdev == (uint32_t)NODEV ? 0 : (int)bi.e_tdev;
		p->tpgid = (pid_t)bi.e_tpgid;
	} else if (proc_pidinfo(pid, PROC_PIDT_SHORTBSDINFO, 0, &si,
	    sizeof si) == (int)sizeof si) {
		p->state = osdep_state(si.pbsi_status);
		p->ppid = (pid_t)si.pbsi_ppid;
		p->pgrp = (pid_t)si.pbsi_pgid;
	} else {
		if (errno == 0)
			errno = ESRCH;
		return (-1);
	}
	if ((p->sid = getsid(pid)) == -1 && errno == ESRCH)
		return (-1);
	if (p->sid == -1)
		p->sid = 0;	/* not ours to know */
	return (0);
}

/* Every pid, into *out (allocated): how many, or -1. */
static int
osdep_pids(pid_t **out)
{
	pid_t	*pids = NULL, *np;
	int	 cap, n;

	if ((cap = proc_listallpids(NULL, 0)) <= 0)
		cap = 1024;
	for (;;) {
		cap += 64;	/* some may have come since */
		if ((np = realloc(pids, (size_t)cap * sizeof *pids)) == NULL) {
			free(pids);
			return (-1);
		}
		pids = np;
		n = proc_listallpids(pids, cap * (int)sizeof *pids);
		if (n <= 0) {
			free(pids);
			if (errno == 0)
				errno = EIO;
			return (-1);
		}
		if (n < cap)
			break;
		cap *= 2;	/* it may have been cut */
	}
	*out = pids;
	return (n);
}

ssize_t
osdep_table(struct osdep_row **out)
{
	struct proc_bsdshortinfo	 si;
	struct osdep_row		*t;
	pid_t				*pids, sid;
	int				 n, i;
	size_t				 m = 0;

	if ((n = osdep_pids(&pids)) == -1)
		return (-1);
	if ((t = calloc((size_t)n, sizeof *t)) == NULL) {
		free(pids);
		return (-1);
	}
	for (i = 0; i < n; i++) {
		if (pids[i] <= 0 || proc_pidinfo(pids[i],
		    PROC_PIDT_SHORTBSDINFO, 0, &si, sizeof si) !=
		    (int)sizeof si || si.pbsi_status == SZOMB)
			continue;	/* gone, or a zombie */
		if ((sid = getsid(pids[i])) == -1) {
			if (errno == ESRCH)
				continue;
			sid = 0;
		}
		t[m].pid = pids[i];
		t[m].ppid = (pid_t)si.pbsi_ppid;
		t[m].pgrp = (pid_t)si.pbsi_pgid;
		t[m].sid = sid;
		t[m].mark = 0;
		m++;
	}
	free(pids);
	*out = t;
	return ((ssize_t)m);
}

int
osdep_children(pid_t pid, pid_t *out, int max)
{
	int	n;

	if (max <= 0 ||
	    (n = proc_listchildpids(pid, out, max * (int)sizeof *out)) < 0)
		return (0);
	return (n > max ? max : n);
}

/* KERN_PROCARGS2, parsed by osdep_procargs: the words go to buf as
 * Linux's cmdline has them. */
ssize_t
osdep_cmdline(pid_t pid, char *buf, size_t size)
{
	int		 mib[3] = { CTL_KERN, KERN_ARGMAX, 0 }, argmax;
	char		*args;
	const char	*words;
	size_t		 len = sizeof argmax;
	ssize_t		 n;

	if (sysctl(mib, 2, &argmax, &len, NULL, 0) == -1 || argmax <= 0 ||
	    (args = malloc((size_t)argmax)) == NULL)
		return (-1);
	mib[1] = KERN_PROCARGS2;
	mib[2] = (int)pid;
	len = (size_t)argmax;
	if (sysctl(mib, 3, args, &len, NULL, 0) == -1 ||
	    (n = osdep_procargs(args, len, &words)) == -1) {
		free(args);
		return (-1);
	}
	if ((size_t)n > size)
		n = (ssize_t)size;
	memcpy(buf, words, (size_t)n);
	free(args);
	return (n);
}

/* A directory confstr names (name), without its trailing slash, into
 * buf; -1 if there is none. */
static int
osdep_confdir(int name, char *buf, size_t size)
{
	size_t	n;

	if ((n = confstr(name, buf, size)) == 0 || n > size)
		return (-1);
	n = strlen(buf);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	return (0);
}

/* Are a and b the same directory? */
static bool
osdep_same_dir(const char *a, const char *b)
{
	struct stat	sa, sb;

	return (stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	    sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
}

/*
 * The system sweeps its per-user temporary directory (TMPDIR as launchd
 * sets it) and /tmp of what nobody read for 3 days; its per-user cache
 * directory it never sweeps.
 */
int
osdep_unswept_dir(const char *base, char *buf, size_t size)
{
	char	tmp[PATH_MAX];

	if (base != NULL && !osdep_same_dir(base, "/tmp") &&
	    (osdep_confdir(_CS_DARWIN_USER_TEMP_DIR, tmp, sizeof tmp) ==
	    -1 || !osdep_same_dir(base, tmp)))
		return (0);
	if (osdep_confdir(_CS_DARWIN_USER_CACHE_DIR, buf, size) == -1)
		return (-1);
	return (1);
}

int
osdep_self_exe(const char *argv0, char *buf, size_t size)
{
	char	path[PROC_PIDPATHINFO_MAXSIZE];
	int	n;

	(void)argv0;
	if ((n = proc_pidpath(getpid(), path, sizeof path)) <= 0)
		return (-1);
	if ((size_t)n >= size) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	memcpy(buf, path, (size_t)n);
	buf[n] = '\0';
	return (0);
}

/* The descriptors we have, from the kernel: no malloc (a forked child
 * calls this before it execs), so a table past OSDEP_FDS_MAX makes the
 * caller loop. */
int
osdep_close_range(int lowfd, int highfd, int cloexec)
{
	struct proc_fdinfo	fds[OSDEP_FDS_MAX];
	int			n, i, fd;

	n = proc_pidinfo(getpid(), PROC_PIDLISTFDS, 0, fds, sizeof fds);
	if (n <= 0 || (size_t)n >= sizeof fds) {
		errno = ENOSYS;
		return (-1);
	}
	for (i = 0; i < n / (int)PROC_PIDLISTFD_SIZE; i++) {
		fd = fds[i].proc_fd;
		if (fd < lowfd || (highfd >= 0 && fd > highfd))
			continue;
		if (cloexec)
			(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
		else
			(void)close(fd);
	}
	return (0);
}

int
osdep_pidfd(pid_t pid)
{
	struct kevent	kev;
	int		kq, err;

	if ((kq = kqueue()) == -1)
		return (-1);
	EV_SET(&kev, (uintptr_t)pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, NULL);
	if (fd_cloexec(kq, 1) == -1 ||
	    kevent(kq, &kev, 1, NULL, 0, NULL) == -1) {
		err = errno;
		close(kq);
		errno = err;
		return (-1);
	}
	return (kq);
}

/* A ports walk's state: the descriptors of the process looked at. */
struct darwin_ports {
	pid_t			 pid;
	struct proc_fdinfo	*fds;
	int			 n, next;
};

int
osdep_ports_open(struct osdep_ports *w, pid_t root)
{
	(void)root;
	if ((w->sys = calloc(1, sizeof (struct darwin_ports))) == NULL)
		return (-1);
	return (0);
}

int
osdep_ports_children(pid_t pid, pid_t *out, int max)
{
	return (osdep_children(pid, out, max));
}

int
osdep_ports_proc(struct osdep_ports *w, pid_t pid)
{
	struct darwin_ports	*dp = w->sys;
	int			 size;

	free(dp->fds);
	dp->fds = NULL;
	dp->n = dp->next = 0;
	dp->pid = pid;
	if ((size = proc_pidinfo(pid, PROC_PIDLISTFDS, 0, NULL, 0)) <= 0)
		return (-1);
	/* Room for a few opened meanwhile; a socket past it is missed. */
	size += 32 * (int)PROC_PIDLISTFD_SIZE;
	if ((dp->fds = malloc((size_t)size)) == NULL)
		return (-1);
	if ((size = proc_pidinfo(pid, PROC_PIDLISTFDS, 0, dp->fds,
	    size)) <= 0)
		return (-1);
	dp->n = size / (int)PROC_PIDLISTFD_SIZE;
	return (0);
}

int
osdep_ports_next(struct osdep_ports *w)
{
	struct darwin_ports		*dp = w->sys;
	struct socket_fdinfo		 si;
	const struct in_sockinfo	*in;
	const struct proc_fdinfo	*f;

	if (dp->next >= dp->n)
		return (1);
	f = &dp->fds[dp->next++];
	if (f->proc_fdtype != PROX_FDTYPE_SOCKET)
		return (0);
	w->sockets++;
	if (proc_pidfdinfo(dp->pid, f->proc_fd, PROC_PIDFDSOCKETINFO, &si,
	    sizeof si) != (int)sizeof si ||
	    si.psi.soi_kind != SOCKINFO_TCP ||
	    si.psi.soi_proto.pri_tcp.tcpsi_state != TSI_S_LISTEN)
		return (0);
	in = &si.psi.soi_proto.pri_tcp.tcpsi_ini;
	if (in->insi_vflag & INI_IPV6)
		osdep_ports_add(w, AF_INET6, (const unsigned char *)
		    &in->insi_laddr.ina_6, ntohs((uint16_t)in->insi_lport));
	else
		osdep_ports_add(w, AF_INET, (const unsigned char *)
		    &in->insi_laddr.ina_46.i46a_addr4,
		    ntohs((uint16_t)in->insi_lport));
	return (0);
}

void
osdep_ports_done(struct osdep_ports *w)
{
	(void)w;
}

void
osdep_ports_close(struct osdep_ports *w)
{
	struct darwin_ports	*dp = w->sys;

	if (dp == NULL)
		return;
	free(dp->fds);
	free(dp);
	w->sys = NULL;
}
