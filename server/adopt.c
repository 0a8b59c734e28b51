/*
 * adopt.c — at start-up, the programs an earlier progmux left on a lease
 * (proto.h, "The lease"), as containerd reconnects to the shims of its
 * containers after a restart.
 *
 * The rendezvous (rundir.h: ours, 0700, reached through its descriptor)
 * holds a socket per reaper whose front went. Each name there that is a
 * socket of ours is dialled without blocking (one that refuses is a
 * dead reaper's name, and goes); a peer that the kernel says is another
 * user's is dropped; then every reaper's "lease" frame is read, all at
 * once, within ADOPT_WAIT_MS. A lease is ours to take if it speaks our
 * protocol and names our tmux server (tmux_server_key) and our session;
 * a socket that says anything else, or nothing in time, is left alone.
 * Of the leases that are ours, those of one earlier progmux are taken
 * (the one whose front went last): its programs' ids cannot collide.
 *
 * For each, its spool is renamed from the earlier progmux's runtime
 * directory (opened only if it is the directory the lease names: its
 * device and inode, ours, 0700) into ours, as p<N>.text: a rename is
 * atomic, so of two fronts starting at once only one has it; the reaper
 * is then sent "adopt", and it too gives the program to the first that
 * asks. Its "adopted" makes the program ours (program_adopt); without it
 * the spool goes back. Nothing here waits past ADOPT_WAIT_MS twice, and
 * it all happens before the first request is read, so list_programs
 * always shows what was adopted.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "compat.h"
#include "fdutil.h"
#include "frame.h"
#include "log.h"
#include "osdep.h"
#include "proto.h"
#include "rundir.h"
#include "server.h"
#include "spool.h"
#include "timeutil.h"
#include "xmalloc.h"

#define ADOPT_WAIT_MS	2000	/* for the leases, then for the adopteds */
#define ADOPT_MAX	1024	/* sockets looked at in the rendezvous */
#define ADOPT_READ_MAX	(64u * 1024)
#define ADOPT_FRAME_MAX	(4u * 1024 * 1024)	/* a lease's, at most */

/* A reaper on its lease, as we talk to it. */
struct adopt_peer {
	int		 fd;		/* -1: dropped */
	char		 name[64];	/* its socket in the rendezvous */
	struct buf	 in;
	struct msg	*lease;		/* its lease frame, once read (a
					   msg points into itself: never
					   copied) */
	bool		 have;
	bool		 asked;		/* "adopt" sent */
	bool		 adopted;	/* "adopted" read */
	int		 olddfd;	/* its runtime directory (shared) */
	bool		 moved;		/* its spool is in ours now */
	uint64_t	 seq;
};

static struct {
	struct adopt_peer	*p;
	size_t			 n;
} ad;

/* Drop a peer: it stays on its lease for another front. */
static void
adopt_drop(struct adopt_peer *a)
{
	if (a->fd != -1)
		close(a->fd);
	a->fd = -1;
}

/* Dial the socket name in the rendezvous, if it is a socket of ours; a
 * name that refuses is a dead reaper's: it goes. */
static void
adopt_dial(const char *name)
{
	struct adopt_peer	*a;
	struct stat		 st;
	uid_t			 uid;
	size_t			 len = strlen(name), slen;
	int			 fd;

	slen = strlen(PROTO_LEASE_SUFFIX);
	if (len <= slen || len >= sizeof a->name ||
	    strcmp(name + len - slen, PROTO_LEASE_SUFFIX) != 0)
		return;
	if (fstatat(cfg.lease_fd, name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
	    !S_ISSOCK(st.st_mode) || st.st_uid != geteuid()) {
		log_debug("%s in the rendezvous is no socket of ours", name);
		return;
	}
	fd = compat_socket(AF_UNIX, SOCK_STREAM, 0, O_CLOEXEC | O_NONBLOCK);
	if (fd == -1)
		return;
	if (osdep_connect_at(fd, cfg.lease_fd, name) == -1) {
		if (errno == ECONNREFUSED)
			(void)unlinkat(cfg.lease_fd, name, 0);
		close(fd);
		return;
	}
	if (osdep_peer_uid(fd, &uid) == -1 ? errno != ENOSYS :
	    uid != geteuid()) {
		log_warn("%s in the rendezvous %s is another user's: not "
		    "adopted", name, cfg.lease_dir);
		close(fd);
		return;
	}
	ad.p = xreallocarray(ad.p, ad.n + 1, sizeof *ad.p);
	a = &ad.p[ad.n++];
	memset(a, 0, sizeof *a);
	a->fd = fd;
	a->olddfd = -1;
	memcpy(a->name, name, len + 1);	/* (len < its size, above) */
}

/* Every lease socket of ours in the rendezvous, dialled. */
static void
adopt_scan(void)
{
	struct dirent	*de;
	DIR		*d;
	int		 fd, n = 0;

	if ((fd = fcntl(cfg.lease_fd, F_DUPFD_CLOEXEC, 0)) == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	rewinddir(d);
	while ((de = readdir(d)) != NULL && n++ < ADOPT_MAX)
		adopt_dial(de->d_name);
	closedir(d);
}

/* Read what a peer sent: 1 a frame in *m, 0 not yet, -1 it is gone or
 * spoke garbage (dropped). */
static int
adopt_read(struct adopt_peer *a, struct msg *m)
{
	char	*cause = NULL;
	ssize_t	 n;
	int	 ret;

	if ((ret = frame_take(&a->in, m, &cause)) == 1)
		return (1);
	if (ret == 0) {
		n = fd_read_into(a->fd, &a->in, ADOPT_READ_MAX);
		if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR))
			ret = -1;
		else if ((ret = frame_take(&a->in, m, &cause)) == 0 &&
		    a->in.len > ADOPT_FRAME_MAX)
			ret = -1;
	}
	if (ret == -1) {
		log_debug("%s: %s", a->name, cause != NULL ? cause :
		    "closed, or too much");
		free(cause);
		adopt_drop(a);
	}
	return (ret);
}

/* Wait (until deadline) for the frame each peer in the phase owes:
 * its lease (asked false), or its "adopted" (asked true). */
static void
adopt_wait(bool asked, int64_t deadline)
{
	struct pollfd	*pfd;
	struct msg	*m = xcalloc(1, sizeof *m);
	size_t		*ix, i, n;
	int		 r;

	pfd = xcalloc(ad.n + 1, sizeof *pfd);
	ix = xcalloc(ad.n + 1, sizeof *ix);
	for (;;) {
		for (i = n = 0; i < ad.n; i++) {
			struct adopt_peer *a = &ad.p[i];

			if (a->fd == -1 || a->asked != asked ||
			    (asked ? a->adopted : a->have))
				continue;
			/* A frame may be whole in what was read already. */
			if ((r = adopt_read(a, m)) == 1) {
				if (asked && msg_is(m, MSG_ADOPTED))
					a->adopted = true;
				else if (!asked && msg_is(m, MSG_LEASE)) {
					a->lease = m;
					a->have = true;
					m = xcalloc(1, sizeof *m);
					continue;
				} else
					adopt_drop(a);
				msg_free(m);
				continue;
			}
			if (r == 0) {
				ix[n] = i;
				pfd[n++] = (struct pollfd){ a->fd, POLLIN, 0 };
			}
		}
		if (n == 0 || now_ms() >= deadline)
			break;
		if (poll(pfd, n, poll_timeout(deadline)) == -1 &&
		    errno != EINTR)
			break;
	}
	free(pfd);
	free(ix);
	free(m);
}

/* Does a lease frame field hold this string? */
static bool
adopt_is(const struct msg *m, const char *key, const char *want)
{
	const char	*v;
	size_t		 len;

	if (want == NULL || (v = msg_get_bytes(m, key, &len)) == NULL)
		return (false);
	return (len == strlen(want) && memcmp(v, want, len) == 0);
}

/* Is s "<c><digits>", the digits' value in *n (not 0, no overflow)? */
static bool
adopt_numbered(const char *s, size_t len, char c, uint64_t *n)
{
	size_t	i;

	if (len < 2 || len > 20 || s[0] != c)
		return (false);
	*n = 0;
	for (i = 1; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return (false);
		*n = *n * 10 + (uint64_t)(s[i] - '0');
	}
	return (*n > 0);
}

/* Is a's lease one we may take: our protocol, our server and session,
 * an id and a pane as progmux makes them, what a program needs? */
static bool
adopt_ours(struct adopt_peer *a)
{
	const struct msg	*m = a->lease;
	const char		*s;
	uint64_t		 pane;
	size_t			 len, argc = 0;
	int64_t			 v;
	char			**argv;

	if (!msg_get_int(m, "v", &v) || v != PROTO_VERSION)
		return (false);
	if (!adopt_is(m, "session", cfg.session) ||
	    !adopt_is(m, "server", tmux_server_key()))
		return (false);
	if ((s = msg_get_bytes(m, "id", &len)) == NULL ||
	    !adopt_numbered(s, len, 'p', &a->seq))
		return (false);
	if ((s = msg_get_bytes(m, "pane", &len)) == NULL ||
	    !adopt_numbered(s, len, '%', &pane) ||
	    !msg_get_int(m, "pane_pid", &v) || v <= 1 ||
	    !msg_get_int(m, "lifetime_ms", &v) || v <= 0 ||
	    msg_get_bytes(m, "rundir", &len) == NULL ||
	    msg_get_bytes(m, "rundir_id", &len) == NULL)
		return (false);
	argv = msg_dup_strv(m, "argv", &argc);
	strv_free(argv);
	if (argc == 0 || !msg_get_int(m, "shown", &v) || v < 0 ||
	    (uint64_t)v >= argc)
		return (false);
	return (true);
}

/* The earlier runtime directory of a's lease, opened only if it is the
 * directory the lease names (ours, 0700). */
static int
adopt_olddir(struct adopt_peer *a)
{
	char	*dir, *id, *cause = NULL;

	dir = msg_dup_str(a->lease, "rundir");
	id = msg_dup_str(a->lease, "rundir_id");
	if ((a->olddfd = rundir_open_checked(dir, id, &cause)) == -1) {
		log_warn("%s: not adopted: %s", a->name, cause);
		free(cause);
	}
	free(dir);
	free(id);
	return (a->olddfd);
}

/* The name of a's spool, p<N>.text. */
static void
adopt_spool_name(const struct adopt_peer *a, char *name, size_t len)
{
	snprintf(name, len, "p%llu%s", (unsigned long long)a->seq,
	    SPOOL_DIR_SUFFIX);
}

/* Is a's spool there, a directory of ours (0700, not a link), in the
 * runtime directory its lease names? */
static bool
adopt_spool_ok(const struct adopt_peer *a)
{
	struct stat	st;
	char		name[64];

	adopt_spool_name(a, name, sizeof name);
	return (fstatat(a->olddfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	    (st.st_mode & 07777) == 0700);
}

/* The earlier progmux whose programs we take: of the leases that are
 * ours (and whose text is where they say), the one whose front went
 * last (its runtime directory's id). */
static char *
adopt_choose(void)
{
	struct adopt_peer	*a;
	char			*best = NULL;
	int64_t			 when, best_when = INT64_MIN;
	size_t			 i;

	for (i = 0; i < ad.n; i++) {
		a = &ad.p[i];
		if (a->fd == -1 || !a->have)
			continue;
		if (!adopt_ours(a)) {
			log_debug("%s: not ours to adopt", a->name);
			adopt_drop(a);
			continue;
		}
		if (adopt_olddir(a) == -1 || !adopt_spool_ok(a)) {
			log_debug("%s: its text is not where it says", a->name);
			adopt_drop(a);
			continue;
		}
		if (!msg_get_int(a->lease, "orphaned", &when))
			when = 0;
		if (best == NULL || when > best_when) {
			free(best);
			best = msg_dup_str(a->lease, "rundir_id");
			best_when = when;
		}
	}
	return (best);
}

/* Move a's spool from its runtime directory into ours, if it is still
 * a directory of ours there (the first front to do it has it). */
static bool
adopt_move(struct adopt_peer *a)
{
	char	name[64];

	adopt_spool_name(a, name, sizeof name);
	if (!adopt_spool_ok(a)) {
		log_debug("%s: no spool of ours to take", a->name);
		return (false);
	}
	if (renameat(a->olddfd, name, cfg.rundir_fd, name) == -1) {
		log_debug("%s: its spool: %s", a->name, strerror(errno));
		return (false);
	}
	a->moved = true;
	return (true);
}

/* The adopt was not taken: the spool goes back where it was. */
static void
adopt_unmove(struct adopt_peer *a)
{
	char	name[64];

	if (!a->moved)
		return;
	adopt_spool_name(a, name, sizeof name);
	(void)renameat(cfg.rundir_fd, name, a->olddfd, name);
	a->moved = false;
}

/* Ask every chosen peer (of the runtime directory best) for its
 * program: its spool first. */
static void
adopt_ask(const char *best)
{
	struct adopt_peer	*a;
	struct msg_out		 m;
	struct buf		 b = BUF_INIT;
	size_t			 i, k;

	for (i = 0; i < ad.n; i++) {
		a = &ad.p[i];
		if (a->fd == -1 || !a->have)
			continue;
		if (!adopt_is(a->lease, "rundir_id", best)) {
			adopt_drop(a);		/* another progmux's */
			continue;
		}
		for (k = 0; k < i; k++)
			if (ad.p[k].asked && ad.p[k].seq == a->seq)
				break;
		if (k < i || program_by_seq(a->seq) != NULL) {
			adopt_drop(a);		/* an id twice */
			continue;
		}
		if (!adopt_move(a)) {
			adopt_drop(a);
			continue;
		}
		buf_reset(&b);
		msg_begin(&m, MSG_ADOPT, 2);	/* where its text is now */
		msg_str(&m, "rundir", cfg.rundir);
		msg_str(&m, "rundir_id", cfg.rundir_id);
		msg_end(&m, &b);
		if (fd_write_all(a->fd, b.data, b.len) == -1) {
			adopt_unmove(a);
			adopt_drop(a);
			continue;
		}
		a->asked = true;
	}
	buf_free(&b);
}

/* a's program, from its lease, into the table: its id, or NULL. */
static char *
adopt_take(struct adopt_peer *a)
{
	struct program_adoption	 pa;
	struct program		*p;
	const struct msg	*m = a->lease;
	char			*cause = NULL, *id;
	int64_t			 v = 0;

	memset(&pa, 0, sizeof pa);
	pa.id = msg_dup_str(m, "id");
	pa.seq = a->seq;
	pa.spec.argv = msg_dup_strv(m, "argv", &pa.spec.argc);
	msg_get_int(m, "shown", &v);
	pa.spec.shown = (size_t)v;
	pa.spec.dir = msg_dup_str(m, "dir");
	msg_get_int(m, "width", &pa.spec.width);
	msg_get_int(m, "height", &pa.spec.height);
	msg_get_int(m, "lifetime_ms", &pa.spec.lifetime_ms);
	msg_get_int(m, "grace_ms", &pa.spec.grace_ms);
	pa.spec.grace_set = true;
	pa.spec.keep_pane = msg_get_bool(m, "keep_pane");
	pa.spec.separate_stderr = msg_get_bool(m, "separate_stderr");
	pa.spec.inherit_shell = msg_get_bool(m, "verdict");
	msg_get_int(m, "started_ms", &pa.started_ms);
	msg_get_int(m, "started_real", &pa.started_real);
	pa.pane = msg_dup_str(m, "pane");
	msg_get_int(m, "pane_pid", &v);
	pa.pane_pid = (pid_t)v;
	pa.stopping = msg_get_bool(m, "stopping");
	pa.fd = a->fd;
	pa.in = a->in;
	memset(&a->in, 0, sizeof a->in);
	a->fd = -1;
	a->moved = false;	/* the program's now */
	p = program_adopt(&pa, &cause);
	if (cause != NULL) {
		log_warn("%s: %s", program_id(p), cause);
		free(cause);
	}
	id = program_state(p) == PROGRAM_DROPPED ? NULL :
	    xstrdup(program_id(p));
	free(pa.id);
	free(pa.pane);
	program_spec_free(&pa.spec);
	buf_free(&pa.in);
	return (id);
}

/* Order ids by their number. */
static int
adopt_cmp(const void *x, const void *y)
{
	const char	*a = *(char *const *)x, *b = *(char *const *)y;
	size_t		 la = strlen(a), lb = strlen(b);

	return (la != lb ? (la < lb ? -1 : 1) : strcmp(a, b));
}

/*
 * At start-up: adopt what an earlier progmux of ours left on a lease.
 * How many, and their ids in *ids (allocated, ordered).
 */
size_t
adopt_start(char ***ids)
{
	struct adopt_peer	*a;
	char			*best, *id, *cause = NULL;
	size_t			 i, n = 0;

	*ids = NULL;
	if (cfg.robust || cfg.lease_fd == -1 || tmux_server_key() == NULL)
		return (0);
	if (config_rundir_check(&cause) == -1) {
		log_warn("nothing adopted: %s", cause);
		free(cause);
		return (0);
	}
	memset(&ad, 0, sizeof ad);
	adopt_scan();
	if (ad.n > 0)
		adopt_wait(false, now_ms() + ADOPT_WAIT_MS);
	if ((best = adopt_choose()) != NULL) {
		adopt_ask(best);
		adopt_wait(true, now_ms() + ADOPT_WAIT_MS);
	}
	free(best);
	for (i = 0; i < ad.n; i++) {
		a = &ad.p[i];
		if (a->asked && a->adopted && a->fd != -1 &&
		    (id = adopt_take(a)) != NULL) {
			*ids = xreallocarray(*ids, n + 1, sizeof **ids);
			(*ids)[n++] = id;
		}
		adopt_unmove(a);	/* not adopted: it goes back */
		adopt_drop(a);
		if (a->have) {
			msg_free(a->lease);
			free(a->lease);
		}
		buf_free(&a->in);
		if (a->olddfd != -1)
			close(a->olddfd);
	}
	free(ad.p);
	memset(&ad, 0, sizeof ad);
	if (n > 1)
		qsort(*ids, n, sizeof **ids, adopt_cmp);
	return (n);
}
