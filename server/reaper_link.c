/*
 * reaper_link.c — the front's side of one program's reaper.
 *
 * The reaper is spawned (posix_spawn of progmux-reaper) with one end of a
 * socketpair as its fd 3 and the output FIFO's read end as its fd 4, and
 * is sent the program's particulars in a "start" frame. Frames from it
 * (text, launched, end, fail) go to program.c's program_link_* functions;
 * EOF or a bad frame is "reaper gone". Writes are queued and flushed when
 * the socket takes them. The link is closed once its socket is and its
 * pid has been reaped. The socket registers itself with the loop when the
 * reaper is spawned and leaves it when closed.
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
	struct program	*p;
	pid_t		 pid;		/* -1 once reaped */
	int		 sock;		/* -1 once closed */
	struct buf	 in;
	struct buf	 out;
};

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

/* The program's particulars, the reaper's first frame. */
static void
reaper_link_start_frame(struct reaper_link *l, struct pane *pn)
{
	const struct program_spec	*spec = program_spec(l->p);
	struct msg_out			 m;
	char				**tv = tmux_client_argv();
	size_t				  n = 0;

	msg_begin(&m, MSG_START, 14);
	msg_str(&m, "id", program_id(l->p));
	msg_strv(&m, "argv", spec->argv, spec->argc);
	msg_str(&m, "dir", spec->dir);
	msg_int(&m, "width", spec->width);
	msg_int(&m, "height", spec->height);
	msg_int(&m, "lifetime_ms", spec->lifetime_ms);
	msg_bool(&m, "keep_pane", spec->keep_pane);
	msg_int(&m, "max_text", cfg.output_max_bytes);
	msg_str(&m, "err", pane_err_name(pn));
	msg_bool(&m, "robust", cfg.robust);
	msg_str(&m, "rundir", cfg.rundir);
	if (spec->has_input)
		msg_bin(&m, "input", spec->input ? spec->input : "",
		    spec->input_len);
	else
		msg_nil(&m, "input");
	msg_bool(&m, "separate_stderr", spec->separate_stderr);
	while (tv != NULL && tv[n] != NULL)
		n++;
	msg_strv(&m, "tmux", tv, n);
	msg_end(&m, &l->out);
	reaper_link_on_writable(l);
}

/*
 * Spawn p's reaper (posix_spawn: a vfork, no copy of our memory) and send
 * it the program's particulars. On failure the FIFOs go too.
 */
struct reaper_link *
reaper_link_spawn(struct program *p, struct pane *pn, char **cause)
{
	posix_spawn_file_actions_t	 fa;
	posix_spawnattr_t		 attr;
	struct reaper_link		*l;
	sigset_t			 none, all;
	char				*argv[] = { (char *)"progmux-reaper",
					    NULL };
	int				 sv[2], err, fd[3], i;
	pid_t				 pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1) {
		xasprintf(cause, "socketpair: %s", fd_strerror(errno));
		pane_unlink_fifos(pn, true);
		return (NULL);
	}
	pane_take_fds(pn, &fd[0], &fd[1], &fd[2]);
	/* No source may be a number another is moved to. */
	sv[1] = fd_above(sv[1], PROTO_FD_END);
	for (i = 0; i < 3; i++)
		fd[i] = fd_above(fd[i], PROTO_FD_END);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
	    O_RDWR, 0);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null",
	    O_RDWR, 0);
	posix_spawn_file_actions_adddup2(&fa, sv[1], PROTO_REAPER_FD);
	posix_spawn_file_actions_adddup2(&fa, fd[0], PROTO_OUT_FD);
	posix_spawn_file_actions_adddup2(&fa, fd[1], PROTO_CTL_FD);
	if (fd[2] != -1)
		posix_spawn_file_actions_adddup2(&fa, fd[2], PROTO_ERR_FD);
	if (cfg.lock_fd == PROTO_LOCK_FD)	/* in place: not close-on-exec */
		posix_spawn_file_actions_adddup2(&fa, PROTO_LOCK_FD,
		    PROTO_LOCK_FD);
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK |
	    POSIX_SPAWN_SETSIGDEF);
	/* Everything else of ours is close-on-exec. */
	err = posix_spawn(&pid, cfg.reaper_path, &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(sv[1]);
	for (i = 0; i < 3; i++)		/* the reaper's now */
		if (fd[i] != -1)
			close(fd[i]);
	if (err != 0) {
		close(sv[0]);
		xasprintf(cause, "cannot start %s: %s", cfg.reaper_path,
		    fd_strerror(err));
		pane_unlink_fifos(pn, true);
		return (NULL);
	}
	l = xcalloc(1, sizeof *l);
	l->p = p;
	l->pid = pid;
	l->sock = sv[0];
	fd_nonblock(l->sock, 1);
	loop_fd_add(l->sock, LOOP_READ, reaper_link_on_event, l);
	reaper_link_start_frame(l, pn);
	return (l);
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

/* Free a link (its program is being freed). */
void
reaper_link_free(struct reaper_link *l)
{
	reaper_link_close(l);
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
	return (l->sock != -1);
}

/* Tell the reaper to end the program and go. */
void
reaper_link_quit(struct reaper_link *l)
{
	reaper_link_send(l, MSG_QUIT);
}

/* pipe-pane is attached: the reaper opens the launcher's gate. */
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
static bool	reaper_link_exiting;

void
reaper_links_exiting(void)
{
	reaper_link_exiting = true;
}

/* Was pid this reaper's? Then it is reaped. */
bool
reaper_link_reaped(struct reaper_link *l, pid_t pid, int status)
{
	if (l->pid != pid)
		return (false);
	l->pid = -1;
	if (WIFSIGNALED(status) && !reaper_link_exiting)
		log_warn("%s: reaper killed by signal %d",
		    program_id(l->p), WTERMSIG(status));
	return (true);
}

/* The socket is closed under us: the reaper is gone. */
static void
reaper_link_gone(struct reaper_link *l)
{
	reaper_link_close(l);
	program_link_gone(l->p);
}

/* The reaper reported the end. */
static void
reaper_link_on_end(struct reaper_link *l, struct msg *m)
{
	char	*how, *why;
	int64_t	 status = -1, sig = 0;

	how = msg_dup_str(m, "how");
	why = msg_dup_str(m, "why");
	if (!msg_get_int(m, "status", &status))
		status = -1;
	if (!msg_get_int(m, "signal", &sig))
		sig = 0;
	program_link_end(l->p, how ? how : "gone", status, (int)sig,
	    msg_get_bool(m, "lost_end"), msg_get_bool(m, "cut"), why);
	free(how);
	free(why);
}

/* One frame from the reaper. */
static void
reaper_link_on_frame(struct reaper_link *l, struct msg *m)
{
	const char	*b;
	char		*why;
	size_t		 len;
	int64_t		 v = 0;

	if (msg_is(m, MSG_TEXT)) {
		if ((b = msg_get_bytes(m, "b", &len)) != NULL && len > 0)
			program_link_text(l->p, b, len);
	} else if (msg_is(m, MSG_ERRTEXT)) {
		if ((b = msg_get_bytes(m, "b", &len)) != NULL && len > 0)
			program_link_errtext(l->p, b, len);
	} else if (msg_is(m, MSG_HELLO)) {
		if (!msg_get_int(m, "v", &v) || v != PROTO_VERSION) {
			log_warn("%s: reaper speaks protocol %lld, not %d",
			    program_id(l->p), (long long)v, PROTO_VERSION);
			reaper_link_gone(l);
		}
	} else if (msg_is(m, MSG_LAUNCHED))
		program_link_launched(l->p);
	else if (msg_is(m, MSG_END))
		reaper_link_on_end(l, m);
	else if (msg_is(m, MSG_FAIL)) {
		why = msg_dup_str(m, "why");
		/* The start was answered already: the program reads gone,
		 * with why. */
		log_warn("%s: %s", program_id(l->p), why ? why :
		    "reaper failed");
		program_abandon(l->p, why ? why : "its reaper failed");
		free(why);
	} else
		log_warn("%s: unexpected frame \"%s\"", program_id(l->p),
		    m->type);
}

/* Read and dispatch frames, a bounded number of reads per wakeup. A
 * program dropped meanwhile has its socket closed: the loop stops. */
static void
reaper_link_on_readable(struct reaper_link *l)
{
	struct msg	 m;
	char		*cause = NULL;
	ssize_t		 n;
	int		 ret = 0, rounds = 0;

	while (l->sock != -1 && rounds++ < REAPER_LINK_ROUNDS) {
		n = fd_read_into(l->sock, &l->in, REAPER_LINK_READ_MAX);
		if (n == -1 && errno == EAGAIN)
			break;
		if (n <= 0) {
			reaper_link_gone(l);
			return;
		}
		while (l->sock != -1 &&
		    (ret = frame_take(&l->in, &m, &cause)) == 1) {
			reaper_link_on_frame(l, &m);
			msg_free(&m);
		}
		if (l->sock != -1 && ret == -1) {
			log_warn("%s: bad frame from reaper: %s",
			    program_id(l->p), cause);
			free(cause);
			if (l->pid > 0)
				kill(l->pid, SIGTERM);
			reaper_link_gone(l);
			return;
		}
		if ((size_t)n < REAPER_LINK_READ_MAX)
			break;
	}
}
