/*
 * reaper_link.c — the front's side of one program's reaper.
 *
 * The reaper is spawned (posix_spawn of progmux-reaper) with one end of a
 * socketpair as its fd 3, the program's FIFOs as fds 4, 6 and 7 and its
 * spool's directory as fd 8 (proto.h), and is sent what it needs in a
 * "start" frame, built from the program's spec (struct program_spec) it
 * was spawned with. Frames from it (the news of its text, launched,
 * notify, end, fail) and its going (EOF or a bad frame)
 * are told to its owner through the callbacks it was spawned with
 * (struct reaper_cb), as tmux's job_run takes its callbacks; it never
 * looks its owner up. Writes are queued and flushed when the socket takes them.
 * The link is closed once its socket is and its pid has been reaped
 * (main.c's SIGCHLD handler routes each pid here, reaper_links_reaped),
 * and then the owner is told (closed). The socket registers itself with
 * the loop when the reaper is spawned and leaves it when closed.
 *
 * An owner may close the link (reaper_link_close) from inside any of its
 * callbacks; it frees it (reaper_link_free) only once the loop is done
 * dispatching.
 *
 * A link is also made to a reaper an earlier progmux spawned, whose
 * program is adopted (reaper_link_adopt, adopt.c): its socket is the one
 * its lease took us on, its pid not ours to reap, and the frames it
 * sends are the same. At exit a link whose program outlives us on a
 * lease is let go of (reaper_link_let_go): its socket closes, which is
 * what starts the lease, and its exit is not waited for.
 *
 * The reaper is started with posix_spawn, not common/cspawn: glibc's
 * posix_spawn is a vfork (CLONE_VM), which copies none of our page
 * tables, and the front may hold hundreds of megabytes of programs' text
 * when a start comes; a fork's cost grows with that, and it sits on the
 * start's path. cspawn's errno pipe is not needed either: a reaper that
 * could not exec closes the socket before its hello, which reads as
 * "reaper gone" (and posix_spawn itself reports a failed exec).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "compat.h"
#include "cspawn.h"
#include "fdutil.h"
#include "frame.h"
#include "log.h"
#include "proto.h"
#include "server.h"
#include "xmalloc.h"

extern char **environ;

#define REAPER_LINK_READ_MAX	(256 * 1024)	/* bytes per read */
#define REAPER_LINK_ROUNDS	16		/* reads per wakeup */

struct reaper_link {
	char			*id;		/* the program's, for logs */
	const struct reaper_cb	*cb;
	void			*owner;
	pid_t			 pid;		/* -1 once reaped, or not
						   ours (adopted) */
	int			 sock;		/* -1 once closed */
	bool			 told_closed;
	bool			 let_go;	/* on its lease: not waited */
	struct buf		 in;
	struct buf		 out;
	struct reaper_link	*next;		/* the live links, by pid */
};

static struct reaper_link	*reaper_links;	/* not yet freed */
static bool			 reaper_link_exiting;

/* Once the socket is closed and the pid reaped: tell the owner, once. */
static void
reaper_link_check_closed(struct reaper_link *l)
{
	if (l->sock == -1 && l->pid == -1 && !l->told_closed) {
		l->told_closed = true;
		l->cb->closed(l->owner);
	}
}

/* Flush what is queued (a failed write means EOF will follow); the
 * socket waits to be writable only while frames are queued. */
static void
reaper_link_on_writable(struct reaper_link *l)
{
	if (l->sock == -1)
		return;
	if (fd_flush(l->sock, &l->out) == -1)
		buf_reset(&l->out);
	loop_fd_mask(l->sock, LOOP_READ | (l->out.len > 0 ? LOOP_WRITE : 0));
}

static void	reaper_link_on_readable(struct reaper_link *);

/* The loop's callback for the socket: queued frames out, then in. */
static void
reaper_link_on_event(int fd, int fired, void *arg)
{
	struct reaper_link	*l = arg;

	(void)fd;
	if (fired & LOOP_WRITE)
		reaper_link_on_writable(l);
	if ((fired & LOOP_READ) && l->sock != -1)
		reaper_link_on_readable(l);
}

/* Send a frame with no fields but its type. */
static void
reaper_link_send(struct reaper_link *l, const char *type)
{
	struct msg_out	m;

	if (l->sock == -1)
		return;
	msg_begin(&m, type, 0);
	msg_end(&m, &l->out);
	reaper_link_on_writable(l);
}

/* The program's particulars, the reaper's first frame; with the lease
 * (its grace, the rendezvous, who may adopt it) in desktop mode. */
static void
reaper_link_start_frame(struct reaper_link *l, const struct program_spec *st,
    const char *err_name, int64_t started_ms, int64_t started_real)
{
	struct msg_out	  m;
	char		**tv = tmux_client_argv();
	const char	 *server = tmux_server_key();
	size_t		  n = 0;
	bool		  lease = !cfg.robust && cfg.lease_fd != -1 &&
			      server != NULL;

	msg_begin(&m, MSG_START, 24);
	msg_str(&m, "id", l->id);
	msg_strv(&m, "argv", st->argv, st->argc);
	msg_str(&m, "dir", st->dir);
	msg_int(&m, "width", st->width);
	msg_int(&m, "height", st->height);
	msg_int(&m, "lifetime_ms", st->lifetime_ms);
	msg_bool(&m, "keep_pane", st->keep_pane);
	msg_int(&m, "max_text", cfg.output_max_bytes);
	msg_str(&m, "err", err_name);
	msg_bool(&m, "robust", cfg.robust);
	msg_str(&m, "rundir", cfg.rundir);
	msg_str(&m, "rundir_id", cfg.rundir_id);
	if (st->has_input)
		msg_bin(&m, "input", st->input ? st->input : "",
		    st->input_len);
	else
		msg_nil(&m, "input");
	msg_bool(&m, "separate_stderr", st->separate_stderr);
	msg_bool(&m, "verdict", st->inherit_shell);
	while (tv != NULL && tv[n] != NULL)
		n++;
	msg_strv(&m, "tmux", tv, n);
	msg_int(&m, "shown", (int64_t)st->shown);
	msg_int(&m, "started_ms", started_ms);
	msg_int(&m, "started_real", started_real);
	msg_int(&m, "grace_ms", lease ? st->grace_ms : 0);
	msg_str(&m, "session", cfg.session);
	msg_str(&m, "server", server);
	msg_str(&m, "lease", lease ? cfg.lease_dir : NULL);
	msg_str(&m, "lease_id", lease ? cfg.lease_id : NULL);
	msg_end(&m, &l->out);
	reaper_link_on_writable(l);
}

/*
 * Spawn a reaper (posix_spawn: a vfork, no copy of our memory) with the
 * FIFO ends and the spool in fds (output, control, standard error or -1,
 * the spool's directory; closed here whatever happens) and send it st.
 * cb tells owner what follows.
 */
struct reaper_link *
reaper_link_spawn(const char *program_id, const struct program_spec *st,
    const char *err_name, int64_t started_ms, int64_t started_real,
    int fds[REAPER_LINK_FDS], const struct reaper_cb *cb, void *owner,
    char **cause)
{
	posix_spawn_file_actions_t	 fa;
	posix_spawnattr_t		 attr;
	struct reaper_link		*l;
	char				*argv[] = { (char *)"progmux-reaper",
					    NULL };
	int				 sv[2], err, i, lock = -1;
	pid_t				 pid;

	if (compat_socketpair(AF_UNIX, SOCK_STREAM, 0, sv, O_CLOEXEC) == -1) {
		xasprintf(cause, "socketpair: %s", fd_strerror(errno));
		for (i = 0; i < REAPER_LINK_FDS; i++)
			if (fds[i] != -1)
				close(fds[i]);
		return (NULL);
	}
	/* No source may be a number another is moved to. */
	sv[1] = fd_above(sv[1], PROTO_FD_END);
	for (i = 0; i < REAPER_LINK_FDS; i++)
		fds[i] = fd_above(fds[i], PROTO_FD_END);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
	    O_RDWR, 0);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null",
	    O_RDWR, 0);
	posix_spawn_file_actions_adddup2(&fa, sv[1], PROTO_REAPER_FD);
	posix_spawn_file_actions_adddup2(&fa, fds[0], PROTO_OUT_FD);
	posix_spawn_file_actions_adddup2(&fa, fds[1], PROTO_CTL_FD);
	if (fds[2] != -1)
		posix_spawn_file_actions_adddup2(&fa, fds[2], PROTO_ERR_FD);
	if (fds[3] != -1)
		posix_spawn_file_actions_adddup2(&fa, fds[3], PROTO_SPOOL_FD);
	/*
	 * The lock goes over from a copy of it: a dup2 onto another number
	 * clears close-on-exec on every system, where a descriptor dup2'd
	 * onto itself stays close-on-exec on macOS (glibc and musl clear it,
	 * as POSIX 2024 says).
	 */
	if (cfg.lock_fd != -1 && (lock = fcntl(cfg.lock_fd, F_DUPFD_CLOEXEC,
	    PROTO_FD_END)) != -1)
		posix_spawn_file_actions_adddup2(&fa, lock, PROTO_LOCK_FD);
	cspawn_attr_init(&attr);
	/* Everything else of ours is close-on-exec. */
	err = posix_spawn(&pid, cfg.reaper_path, &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(sv[1]);
	if (lock != -1)
		close(lock);
	for (i = 0; i < REAPER_LINK_FDS; i++)	/* the reaper's now */
		if (fds[i] != -1)
			close(fds[i]);
	if (err != 0) {
		close(sv[0]);
		xasprintf(cause, "cannot start %s: %s", cfg.reaper_path,
		    fd_strerror(err));
		return (NULL);
	}
	l = xcalloc(1, sizeof *l);
	l->id = xstrdup(program_id);
	l->cb = cb;
	l->owner = owner;
	l->pid = pid;
	l->sock = sv[0];
	l->next = reaper_links;
	reaper_links = l;
	fd_nonblock(l->sock, 1);
	loop_fd_add(l->sock, LOOP_READ, reaper_link_on_event, l);
	reaper_link_start_frame(l, st, err_name, started_ms, started_real);
	return (l);
}

/*
 * The link to an adopted program's reaper: fd is the socket its lease
 * took us on (its "adopted" read), in what came after it, told to owner
 * by reaper_link_take once owner holds the link, as frames read later
 * are.
 */
struct reaper_link *
reaper_link_adopt(const char *program_id, int fd, struct buf *in,
    const struct reaper_cb *cb, void *owner)
{
	struct reaper_link	*l;

	l = xcalloc(1, sizeof *l);
	l->id = xstrdup(program_id);
	l->cb = cb;
	l->owner = owner;
	l->pid = -1;		/* an earlier progmux's child, not ours */
	l->sock = fd;
	l->in = *in;
	memset(in, 0, sizeof *in);
	l->next = reaper_links;
	reaper_links = l;
	fd_cloexec(l->sock, 1);
	fd_nonblock(l->sock, 1);
	loop_fd_add(l->sock, LOOP_READ, reaper_link_on_event, l);
	return (l);
}

/* At exit: the program outlives us on its lease. */
void
reaper_link_let_go(struct reaper_link *l)
{
	if (l == NULL)
		return;
	l->let_go = true;
	reaper_link_close(l);
}

/* Reapers of ours the exit still waits to reap. */
size_t
reaper_links_waited(void)
{
	struct reaper_link	*l;
	size_t			 n = 0;

	for (l = reaper_links; l != NULL; l = l->next)
		if (l->pid != -1 && !l->let_go)
			n++;
	return (n);
}

/* Close the socket (the pid is still reaped). */
void
reaper_link_close(struct reaper_link *l)
{
	if (l->sock != -1) {
		loop_fd_del(l->sock);
		close(l->sock);
		l->sock = -1;
	}
	buf_free(&l->in);
	buf_free(&l->out);
}

/* Free a link (its owner is being freed; the loop is not dispatching).
 * A reaper not yet reaped is reaped by main.c as any stray child. */
void
reaper_link_free(struct reaper_link *l)
{
	struct reaper_link	**ll;

	reaper_link_close(l);
	for (ll = &reaper_links; *ll != NULL; ll = &(*ll)->next)
		if (*ll == l) {
			*ll = l->next;
			break;
		}
	free(l->id);
	free(l);
}

/* Socket closed and pid reaped (or never spawned: NULL)? */
bool
reaper_link_closed(const struct reaper_link *l)
{
	return (l == NULL || (l->sock == -1 && l->pid == -1));
}

/* Is the socket still open? */
bool
reaper_link_open(const struct reaper_link *l)
{
	return (l != NULL && l->sock != -1);
}

/* Tell the reaper to end the program and go. */
void
reaper_link_quit(struct reaper_link *l)
{
	reaper_link_send(l, MSG_QUIT);
}

/* pipe-pane is attached: the reaper opens the launcher's gate (once the
 * pane's writer is there). */
void
reaper_link_pane(struct reaper_link *l, const char *pane, pid_t pid)
{
	struct msg_out	m;

	if (l == NULL || l->sock == -1)
		return;
	msg_begin(&m, MSG_PANE, 2);
	msg_str(&m, "pane", pane);
	msg_int(&m, "pid", pid);
	msg_end(&m, &l->out);
	reaper_link_on_writable(l);
}

/* Ask the reaper to end the program (SIGTERM, SIGKILL after grace). */
void
reaper_link_stop(struct reaper_link *l, int64_t grace_ms)
{
	struct msg_out	m;

	if (l == NULL || l->sock == -1)
		return;
	msg_begin(&m, MSG_STOP, 1);
	msg_int(&m, "grace_ms", grace_ms);
	msg_end(&m, &l->out);
	reaper_link_on_writable(l);
}

/* Write what the socket takes now (at exit). */
void
reaper_link_flush(struct reaper_link *l)
{
	reaper_link_on_writable(l);
}

/* At exit, reapers are ended (robust mode SIGKILLs what is left): not
 * worth a warning then. */
void
reaper_links_exiting(void)
{
	reaper_link_exiting = true;
}

/* main.c reaped pid: if it was a reaper's, its link hears of it. */
bool
reaper_links_reaped(pid_t pid, int status)
{
	struct reaper_link	*l;
	char			*warning, *notice;

	for (l = reaper_links; l != NULL; l = l->next) {
		if (l->pid != pid)
			continue;
		l->pid = -1;
		if (WIFSIGNALED(status) && !reaper_link_exiting) {
			xasprintf(&warning, "%s: reaper killed by signal %d",
			    l->id, WTERMSIG(status));
			xasprintf(&notice, "%s: its reaper was killed by "
			    "signal %d; the program reads as gone", l->id,
			    WTERMSIG(status));
			quiet_warn("reaper", warning, notice);
		}
		reaper_link_check_closed(l);
		return (true);
	}
	return (false);
}

/* The socket is closed under us: the reaper is gone. */
static void
reaper_link_gone(struct reaper_link *l)
{
	reaper_link_close(l);
	l->cb->gone(l->owner);
	reaper_link_check_closed(l);
}

/* The reaper reported the end. */
static void
reaper_link_on_end(struct reaper_link *l, struct msg *m)
{
	struct reaper_end	 e;
	char			*how, *why;

	how = msg_dup_str(m, "how");
	why = msg_dup_str(m, "why");
	memset(&e, 0, sizeof e);
	e.how = how != NULL ? how : END_GONE;
	e.why = why;
	if (!msg_get_int(m, "status", &e.status))
		e.status = -1;
	if (!msg_get_int(m, "signal", &e.sig))
		e.sig = 0;
	e.lost_end = msg_get_bool(m, "lost_end");
	e.cut = msg_get_bool(m, "cut");
	l->cb->end(l->owner, &e);
	free(how);
	free(why);
}

/* A stream's news (a "text" or "errtext" frame): how far its text goes
 * in the spool, and what was dropped of it. */
static void
reaper_link_news(const struct msg *m, struct spool_news *nw)
{
	int64_t		 v;
	const char	*why;
	size_t		 len, i;

	memset(nw, 0, sizeof *nw);
	if (msg_get_int(m, "len", &v) && v > 0)
		nw->len = (uint64_t)v;
	if (msg_get_int(m, "seg", &v) && v > 0)
		nw->seg = (uint64_t)v;
	if ((why = msg_get_bytes(m, "why", &len)) == NULL)
		return;
	for (i = SPOOL_WHY_CEILING; i <= SPOOL_WHY_LOST; i++)
		if (strlen(spool_why_name(i)) == len &&
		    memcmp(why, spool_why_name(i), len) == 0)
			nw->drop.why = (enum spool_why)i;
	if (msg_get_int(m, "from", &v) && v >= 0)
		nw->drop.from = (uint64_t)v;
	if (msg_get_int(m, "to", &v) && v >= (int64_t)nw->drop.from)
		nw->drop.to = (uint64_t)v;
	else
		nw->drop.why = SPOOL_WHY_NONE;	/* not a range */
	if (msg_get_int(m, "lines", &v) && v >= 0)
		nw->drop.lines = (uint64_t)v;
	if (msg_get_int(m, "chars", &v) && v >= 0)
		nw->drop.chars = (uint64_t)v;
	if (msg_get_int(m, "err", &v))
		nw->drop.err = (int)v;
}

/* One frame from the reaper. */
static void
reaper_link_on_frame(struct reaper_link *l, struct msg *m)
{
	struct spool_news	 nw;
	char			*why;
	int64_t			 v = 0;

	if (msg_is(m, MSG_TEXT)) {
		reaper_link_news(m, &nw);
		l->cb->text(l->owner, &nw);
		if (msg_get_int(m, "dropped", &v) && v > 0)
			l->cb->dropped(l->owner, v);
	} else if (msg_is(m, MSG_ERRTEXT)) {
		reaper_link_news(m, &nw);
		l->cb->errtext(l->owner, &nw);
	} else if (msg_is(m, MSG_HELLO)) {
		if (!msg_get_int(m, "v", &v) || v != PROTO_VERSION) {
			log_warn("%s: reaper speaks protocol %lld, not %d",
			    l->id, (long long)v, PROTO_VERSION);
			reaper_link_gone(l);
		}
	} else if (msg_is(m, MSG_LAUNCHED))
		l->cb->launched(l->owner);
	else if (msg_is(m, MSG_END))
		reaper_link_on_end(l, m);
	else if (msg_is(m, MSG_FAIL)) {
		why = msg_dup_str(m, "why");
		log_warn("%s: %s", l->id, why ? why : "reaper failed");
		l->cb->fail(l->owner, why ? why : "its reaper failed");
		free(why);
	} else if (msg_is(m, MSG_NOTIFY)) {
		why = msg_dup_str(m, "status");
		l->cb->notify(l->owner, msg_get_bool(m, "ready"), why);
		free(why);
	} else
		log_warn("%s: unexpected frame \"%s\"", l->id, m->type);
}

/* Dispatch the whole frames read; false once the link is gone (a bad
 * frame, or its owner closed it). */
static bool
reaper_link_take_frames(struct reaper_link *l)
{
	struct msg	 m;
	char		*cause = NULL;
	int		 ret = 0;

	while (l->sock != -1 && (ret = frame_take(&l->in, &m, &cause)) == 1) {
		reaper_link_on_frame(l, &m);
		msg_free(&m);
	}
	if (l->sock != -1 && ret == -1) {
		log_warn("%s: bad frame from reaper: %s", l->id, cause);
		free(cause);
		if (l->pid > 0)
			kill(l->pid, SIGTERM);
		reaper_link_gone(l);
	}
	return (l->sock != -1);
}

/* The frames an adopted reaper sent with its "adopted", told. */
void
reaper_link_take(struct reaper_link *l)
{
	(void)reaper_link_take_frames(l);
}

/* Read and dispatch frames, a bounded number of reads per wakeup. An
 * owner that closes the link meanwhile stops the loop. */
static void
reaper_link_on_readable(struct reaper_link *l)
{
	ssize_t		 n;
	int		 rounds = 0;

	while (l->sock != -1 && rounds++ < REAPER_LINK_ROUNDS) {
		n = fd_read_into(l->sock, &l->in, REAPER_LINK_READ_MAX);
		if (n == -1 && errno == EAGAIN)
			break;
		if (n <= 0) {
			reaper_link_gone(l);
			return;
		}
		if (!reaper_link_take_frames(l))
			return;
		if ((size_t)n < REAPER_LINK_READ_MAX)
			break;
	}
}
