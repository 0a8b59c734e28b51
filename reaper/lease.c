/*
 * lease.c — a reaper's lease (lease.h): its socket in the rendezvous and
 * the fronts connected to it.
 *
 * The socket is bound through the rendezvous's descriptor, opened only if
 * it is the directory the front named (its device and inode, ours, mode
 * 0700: rundir_open_checked), under a temporary name, made to listen and
 * only then renamed to <pid>.lease, so a front scanning the directory
 * never finds a name that refuses it while we are there (it would take it
 * for a dead reaper's and remove it). A connection is kept only if the
 * kernel says its peer is of our user (osdep_peer_uid; where the system
 * cannot tell, the directory's mode is what keeps others out), at most
 * PROTO_LEASE_CONNS at once; each is read and written without blocking,
 * and one that sends garbage is dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "compat.h"
#include "fdutil.h"
#include "lease.h"
#include "log.h"
#include "osdep.h"
#include "rundir.h"
#include "xmalloc.h"

#define LEASE_READ_MAX	(64u * 1024)	/* a front sends one small frame */
#define LEASE_IN_MAX	(256u * 1024)	/* more unread is garbage */

/* Nothing open. */
void
lease_init(struct lease *l)
{
	int	i;

	memset(l, 0, sizeof *l);
	l->dfd = l->fd = -1;
	for (i = 0; i < PROTO_LEASE_CONNS; i++)
		l->conn[i].fd = -1;
}

/* Listen in the rendezvous, as <pid>.lease. */
int
lease_listen(struct lease *l, const char *dir, const char *dir_id,
    char **cause)
{
	char	tmp[32];

	if (dir == NULL || dir_id == NULL) {
		xasprintf(cause, "no rendezvous was given");
		return (-1);
	}
	if ((l->dfd = rundir_open_checked(dir, dir_id, cause)) == -1)
		return (-1);
	snprintf(tmp, sizeof tmp, "%ld.tmp", (long)getpid());
	snprintf(l->name, sizeof l->name, "%ld%s", (long)getpid(),
	    PROTO_LEASE_SUFFIX);
	(void)unlinkat(l->dfd, tmp, 0);	/* a dead one's of our pid */
	l->fd = compat_socket(AF_UNIX, SOCK_STREAM, 0, O_CLOEXEC |
	    O_NONBLOCK);
	if (l->fd == -1 || fd_bind_in(l->fd, l->dfd, tmp) == -1 ||
	    listen(l->fd, PROTO_LEASE_CONNS) == -1 ||
	    renameat(l->dfd, tmp, l->dfd, l->name) == -1) {
		xasprintf(cause, "cannot listen in %s: %s", dir,
		    strerror(errno));
		(void)unlinkat(l->dfd, tmp, 0);
		l->name[0] = '\0';
		lease_close(l);
		return (-1);
	}
	return (0);
}

/* Close connection i. */
void
lease_drop(struct lease *l, int i)
{
	struct lease_conn	*c = &l->conn[i];

	if (c->fd != -1)
		close(c->fd);
	c->fd = -1;
	buf_free(&c->in);
	buf_free(&c->out);
}

/* Stop listening: the name goes, and every connection. */
void
lease_close(struct lease *l)
{
	int	i;

	for (i = 0; i < PROTO_LEASE_CONNS; i++)
		lease_drop(l, i);
	if (l->dfd != -1 && l->name[0] != '\0')
		(void)unlinkat(l->dfd, l->name, 0);
	if (l->fd != -1)
		close(l->fd);
	if (l->dfd != -1)
		close(l->dfd);
	l->fd = l->dfd = -1;
	l->name[0] = '\0';
}

/* The listening socket and the connections, for poll. */
int
lease_pollfds(const struct lease *l, struct pollfd *pfd, int *ix)
{
	int	i, n = 0;

	if (l->fd == -1)
		return (0);
	ix[n] = -1;
	pfd[n++] = (struct pollfd){ l->fd, POLLIN, 0 };
	for (i = 0; i < PROTO_LEASE_CONNS; i++) {
		if (l->conn[i].fd == -1)
			continue;
		ix[n] = i;
		pfd[n++] = (struct pollfd){ l->conn[i].fd, POLLIN |
		    (l->conn[i].out.len > 0 ? POLLOUT : 0), 0 };
	}
	return (n);
}

/* Accept one connection, of our user only. */
int
lease_accept(struct lease *l)
{
	uid_t	uid;
	int	fd, i;

	if (l->fd == -1)
		return (-1);
	if ((fd = accept(l->fd, NULL, NULL)) == -1)
		return (-1);
	fd_cloexec(fd, 1);
	fd_nonblock(fd, 1);
	if (osdep_peer_uid(fd, &uid) == -1 ? errno != ENOSYS :
	    uid != geteuid()) {
		log_warn("a connection to the lease from another user "
		    "refused");
		close(fd);
		return (-1);
	}
	for (i = 0; i < PROTO_LEASE_CONNS; i++)
		if (l->conn[i].fd == -1)
			break;
	if (i == PROTO_LEASE_CONNS) {
		close(fd);
		return (-1);
	}
	l->conn[i].fd = fd;
	return (i);
}

/* Connection i's queue. */
struct buf *
lease_out(struct lease *l, int i)
{
	return (&l->conn[i].out);
}

/* Write what connection i takes now; a broken one goes. */
void
lease_flush(struct lease *l, int i)
{
	struct lease_conn	*c = &l->conn[i];

	if (c->fd != -1 && c->out.len > 0 && fd_flush(c->fd, &c->out) == -1)
		lease_drop(l, i);
}

/* Read connection i: a frame, nothing yet, or gone. */
int
lease_read(struct lease *l, int i, struct msg *m)
{
	struct lease_conn	*c = &l->conn[i];
	char			*cause = NULL;
	ssize_t			 n;
	int			 ret;

	if (c->fd == -1)
		return (-1);
	n = fd_read_into(c->fd, &c->in, LEASE_READ_MAX);
	if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
		lease_drop(l, i);
		return (-1);
	}
	if ((ret = frame_take(&c->in, m, &cause)) == 1)
		return (1);
	if (ret == -1 || c->in.len > LEASE_IN_MAX) {
		log_debug("a front on the lease sent garbage: %s",
		    cause != NULL ? cause : "too much");
		free(cause);
		lease_drop(l, i);
		return (-1);
	}
	return (0);
}

/* Connection i is the new front's: its descriptor; the rest closed. */
int
lease_take(struct lease *l, int i, struct buf *in)
{
	struct lease_conn	*c = &l->conn[i];
	int			 fd = c->fd;

	buf_reset(in);
	buf_add(in, c->in.data, c->in.len);
	c->fd = -1;
	lease_close(l);
	return (fd);
}
