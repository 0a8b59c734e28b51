/*
 * lease.h — a reaper's lease (proto.h, "The lease"): its socket in the
 * per-user rendezvous while its front is gone, and the connections of
 * the fronts that may adopt its program.
 *
 * The reaper decides; this file only listens, accepts (fronts of our own
 * user), reads their frames, queues ours, and hands the one connection
 * that adopted the program over as the new front's socket.
 */
#ifndef PROGMUX_LEASE_H
#define PROGMUX_LEASE_H

#include <poll.h>
#include <stdbool.h>

#include "buf.h"
#include "frame.h"
#include "proto.h"

/* A front connected to the lease's socket. */
struct lease_conn {
	int		 fd;		/* -1: none */
	struct buf	 in;
	struct buf	 out;
};

struct lease {
	int			 dfd;	/* the rendezvous, or -1 */
	int			 fd;	/* the listening socket, or -1 */
	char			 name[32]; /* <pid>.lease in it */
	struct lease_conn	 conn[PROTO_LEASE_CONNS];
};

#define LEASE_POLL_MAX	(1 + PROTO_LEASE_CONNS)

void	lease_init(struct lease *);
/* Listen in the rendezvous dir (only if it is the directory dir_id
 * names, ours and 0700): 0, or -1 with *cause. */
int	lease_listen(struct lease *, const char *dir, const char *dir_id,
	    char **cause);
/* Stop: the socket's name removed, every connection closed. */
void	lease_close(struct lease *);
/* What to poll: into pfd (LEASE_POLL_MAX at most), each entry's
 * connection in ix (-1: the listening socket); how many. */
int	lease_pollfds(const struct lease *, struct pollfd *, int *ix);
/* A connection waiting on the listening socket: accepted if its peer is
 * of our user; its index, or -1 (none, refused, or no room). */
int	lease_accept(struct lease *);
/* What connection i is sent (a frame appended), then written. */
struct buf *lease_out(struct lease *, int i);
void	lease_flush(struct lease *, int i);
/* Read connection i: 1 with a frame in *m (msg_free it), 0 for nothing
 * whole yet, -1 once it is closed (EOF, an error, garbage). */
int	lease_read(struct lease *, int i, struct msg *m);
void	lease_drop(struct lease *, int i);
/* Connection i adopted the program: its descriptor, what it sent after
 * the adopt moved into *in; the lease is closed. */
int	lease_take(struct lease *, int i, struct buf *in);

#endif
