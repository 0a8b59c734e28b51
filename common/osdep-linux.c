/*
 * osdep-linux.c — osdep.h on Linux: /proc, pidfd_open, prctl (a
 * subreaper, a parent-death signal), signalfd, close_range and
 * TCP_DEFER_ACCEPT. Its
 * readers of /proc files serve the input-wait check too
 * (osdep-linux.h, server/ttywait-linux.c). A tree's listening ports are
 * its sockets' inodes (/proc/PID/fd) matched with the kernel's listening
 * sockets (sock_diag in our own network namespace, else the listening
 * rows of /proc/PID/net/tcp and tcp6), asked once the tree's sockets
 * are known, and only if it has any.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include "compat.h"
#include "osdep.h"
#include "osdep-linux.h"
#include "osdep-port.h"
#include "timeutil.h"

int
osdep_features(void)
{
	return (OSDEP_SUBREAPER | OSDEP_PARENT_DEATH | OSDEP_CLOSE_RANGE |
	    OSDEP_CMDLINE_WORDS | OSDEP_DEFER_ACCEPT | OSDEP_PORTS |
	    OSDEP_PEER_UID);
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

/* SO_PEERCRED: the credentials the peer had when it connected. */
int
osdep_peer_uid(int sock, uid_t *uid)
{
	struct ucred	cr;
	socklen_t	len = sizeof cr;

	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cr, &len) == -1)
		return (-1);
	*uid = cr.uid;
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

/* A ports walk's state: the inodes of the tree's sockets; the
 * descriptors of the process being looked at. */
struct linux_ports {
	pid_t			 root;
	unsigned long long	*inodes;
	size_t			 ninodes;
	DIR			*fds;
};

/* For qsort and bsearch: by inode. */
static int
linux_ino_cmp(const void *a, const void *b)
{
	const unsigned long long	*x = a, *y = b;

	return (*x < *y ? -1 : *x > *y);
}

/* A hex address of /proc/net/tcp*: 32-bit words, each printed as the
 * kernel holds it in memory (network order bytes), into addr. */
static int
linux_hex_addr(const char *s, size_t words, unsigned char *addr)
{
	char		 word[9];
	uint32_t	 v;
	size_t		 i;
	char		*end;

	for (i = 0; i < words; i++) {
		memcpy(word, s + 8 * i, 8);
		word[8] = '\0';
		v = (uint32_t)strtoul(word, &end, 16);
		if (end != word + 8)
			return (-1);
		memcpy(addr + 4 * i, &v, 4);
	}
	return (0);
}

/* A listening row of /proc/net/tcp or tcp6. */
struct linux_listen {
	unsigned long long	ino;
	int			family;
	unsigned char		addr[16];
	unsigned		port;
};

/*
 * The listening rows of a network namespace, kept LINUX_LISTEN_US: the
 * walks of many trees that end in the same loop turn (a list of
 * programs) read the tables once.
 */
#define LINUX_LISTEN_US		20000
static struct {
	unsigned long long	 netns;		/* its inode, 0: none yet */
	int64_t			 at;		/* when read (now_us) */
	struct linux_listen	*rows;
	size_t			 n;
} linux_listening;

/*
 * One table's listening rows (tcp: IPv4, tcp6) into linux_listening.
 * The kernel lists listening sockets first, so the read stops at the
 * first row in another state.
 */
static void
linux_listen_read(pid_t root, const char *table, int family)
{
	struct linux_listen	*r;
	char			 path[64], line[512], local[64];
	unsigned		 st, port;
	unsigned long long	 ino;
	size_t			 words = family == AF_INET ? 1 : 4;
	FILE			*f;

	snprintf(path, sizeof path, "/proc/%ld/net/%s", (long)root, table);
	if ((f = fopen(path, "re")) == NULL)
		return;
	if (fgets(line, sizeof line, f) == NULL) {	/* the heading */
		fclose(f);
		return;
	}
	while (fgets(line, sizeof line, f) != NULL &&
	    linux_listening.n < OSDEP_PORTS_SOCKETS) {
		if (sscanf(line, " %*u: %63[0-9A-Fa-f]:%x %*s %x %*s %*s %*s "
		    "%*u %*u %llu", local, &port, &st, &ino) != 4)
			continue;
		if (st != 0x0a)		/* TCP_LISTEN */
			break;
		if (strlen(local) != 8 * words)
			continue;
		if (linux_listening.n % 64 == 0) {
			r = realloc(linux_listening.rows, (linux_listening.n +
			    64) * sizeof *r);
			if (r == NULL)
				break;
			linux_listening.rows = r;
		}
		r = &linux_listening.rows[linux_listening.n];
		if (linux_hex_addr(local, words, r->addr) == -1)
			continue;
		r->ino = ino;
		r->family = family;
		r->port = port;
		linux_listening.n++;
	}
	fclose(f);
}

/*
 * The listening sockets of family in our own network namespace, asked
 * of the kernel through sock_diag, which looks at its listening sockets
 * alone (a read of /proc/net/tcp goes through every socket it has, a
 * few milliseconds on a busy machine), into linux_listening: 0, or -1 if
 * it cannot be asked.
 */
static int
linux_listen_diag(int family)
{
	struct {
		struct nlmsghdr		nlh;
		struct inet_diag_req_v2	req;
	} q;
	struct sockaddr_nl	 sa;
	struct inet_diag_msg	*m;
	struct linux_listen	*r;
	struct nlmsghdr		*h;
	char			 buf[16384];
	ssize_t			 n;
	int			 fd, len, ret = -1;

	if ((fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
	    NETLINK_SOCK_DIAG)) == -1)
		return (-1);
	memset(&sa, 0, sizeof sa);
	sa.nl_family = AF_NETLINK;
	memset(&q, 0, sizeof q);
	q.nlh.nlmsg_len = sizeof q;
	q.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	q.req.sdiag_family = (uint8_t)family;
	q.req.sdiag_protocol = IPPROTO_TCP;
	q.req.idiag_states = 1u << 10;		/* TCP_LISTEN */
	if (sendto(fd, &q, sizeof q, 0, (struct sockaddr *)&sa,
	    sizeof sa) == -1)
		goto out;
	while ((n = recv(fd, buf, sizeof buf, 0)) > 0) {
		len = (int)n;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, len);
		    h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				ret = 0;
				goto out;
			}
			if (h->nlmsg_type == NLMSG_ERROR ||
			    h->nlmsg_len < NLMSG_LENGTH(sizeof *m))
				goto out;
			if (linux_listening.n >= OSDEP_PORTS_SOCKETS)
				continue;
			if (linux_listening.n % 64 == 0) {
				r = realloc(linux_listening.rows,
				    (linux_listening.n + 64) * sizeof *r);
				if (r == NULL)
					goto out;
				linux_listening.rows = r;
			}
			m = NLMSG_DATA(h);
			r = &linux_listening.rows[linux_listening.n++];
			r->ino = m->idiag_inode;
			r->family = m->idiag_family;
			memcpy(r->addr, m->id.idiag_src, 16);
			r->port = ntohs(m->id.idiag_sport);
		}
	}
out:
	close(fd);
	return (ret);
}

/* The inode of pid's network namespace, or 0. */
static unsigned long long
linux_netns(const char *pid)
{
	struct stat	sb;
	char		path[64];

	snprintf(path, sizeof path, "/proc/%s/ns/net", pid);
	return (stat(path, &sb) == -1 ? 0 : (unsigned long long)sb.st_ino);
}

/*
 * The listening sockets of root's network namespace, read anew unless
 * they were just read: through sock_diag when it is ours, else (or if
 * sock_diag cannot be asked) from /proc/ROOT/net/tcp and tcp6.
 */
static void
linux_listen_load(pid_t root)
{
	unsigned long long	netns;
	char			pid[32];

	snprintf(pid, sizeof pid, "%ld", (long)root);
	netns = linux_netns(pid);
	if (netns != 0 && netns == linux_listening.netns &&
	    now_us() - linux_listening.at < LINUX_LISTEN_US)
		return;
	linux_listening.n = 0;
	linux_listening.netns = netns;
	linux_listening.at = now_us();
	if (netns == linux_netns("self") && linux_listen_diag(AF_INET) == 0 &&
	    linux_listen_diag(AF_INET6) == 0)
		return;
	linux_listening.n = 0;
	linux_listen_read(root, "tcp", AF_INET);
	linux_listen_read(root, "tcp6", AF_INET6);
}

int
osdep_ports_open(struct osdep_ports *w, pid_t root)
{
	struct linux_ports	*lp;

	if ((lp = calloc(1, sizeof *lp)) == NULL)
		return (-1);
	lp->root = root;
	w->sys = lp;
	return (0);
}

/* The tables are read only for a tree that holds a socket: reading one
 * walks all of the kernel's, however few listen. */
void
osdep_ports_done(struct osdep_ports *w)
{
	struct linux_ports	*lp = w->sys;

	struct linux_listen	*r;
	size_t			 i;

	if (lp->ninodes == 0)
		return;
	qsort(lp->inodes, lp->ninodes, sizeof *lp->inodes, linux_ino_cmp);
	linux_listen_load(lp->root);
	for (i = 0; i < linux_listening.n; i++) {
		r = &linux_listening.rows[i];
		if (bsearch(&r->ino, lp->inodes, lp->ninodes,
		    sizeof *lp->inodes, linux_ino_cmp) != NULL)
			osdep_ports_add(w, r->family, r->addr, r->port);
	}
}

/* Every thread's children: a thread that forks is its child's parent. */
int
osdep_ports_children(pid_t pid, pid_t *out, int max)
{
	struct dirent	*de;
	DIR		*d;
	char		 path[320], buf[4096];
	bool		 more;
	int		 n = 0;

	snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
	if ((d = opendir(path)) == NULL)
		return (0);
	while (n < max && (de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof path, "/proc/%ld/task/%s/children",
		    (long)pid, de->d_name);
		if (linux_proc_read(path, buf, sizeof buf) > 0)
			n += linux_proc_pids(buf, out + n, max - n, &more);
	}
	closedir(d);
	return (n);
}

int
osdep_ports_proc(struct osdep_ports *w, pid_t pid)
{
	struct linux_ports	*lp = w->sys;
	char			 path[64];

	if (lp->fds != NULL)
		closedir(lp->fds);
	snprintf(path, sizeof path, "/proc/%ld/fd", (long)pid);
	return ((lp->fds = opendir(path)) == NULL ? -1 : 0);
}

int
osdep_ports_next(struct osdep_ports *w)
{
	struct linux_ports	*lp = w->sys;
	unsigned long long	 ino, *v;
	struct dirent		*de;
	char			 link[64];
	ssize_t			 n;

	if (lp->fds == NULL || (de = readdir(lp->fds)) == NULL) {
		if (lp->fds != NULL)
			closedir(lp->fds);
		lp->fds = NULL;
		return (1);
	}
	if (!isdigit((unsigned char)de->d_name[0]) ||
	    (n = readlinkat(dirfd(lp->fds), de->d_name, link,
	    sizeof link - 1)) <= 0)
		return (0);
	link[n] = '\0';
	if (sscanf(link, "socket:[%llu]", &ino) != 1)
		return (0);
	w->sockets++;
	if (lp->ninodes % 256 == 0) {
		v = realloc(lp->inodes, (lp->ninodes + 256) * sizeof *v);
		if (v == NULL)
			return (0);
		lp->inodes = v;
	}
	lp->inodes[lp->ninodes++] = ino;
	return (0);
}

void
osdep_ports_close(struct osdep_ports *w)
{
	struct linux_ports	*lp = w->sys;

	if (lp == NULL)
		return;
	if (lp->fds != NULL)
		closedir(lp->fds);
	free(lp->inodes);
	free(lp);
	w->sys = NULL;
}
