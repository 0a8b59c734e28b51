/*
 * tmux.c — one persistent control-mode client to the tmux server.
 *
 * Starting a tmux client process costs 10-40 ms; a command over a control
 * client about 0.1 ms. So the front keeps one `tmux -C` client, attached
 * to its own session (created if missing, with the server if need be), and
 * sends every command over it, one command per line. tmux answers each in
 * order with a %begin ... %end (or %error) block whose flags say it came
 * from this client; the callbacks queued here are matched in order. Output
 * notifications are turned off (refresh-client -f no-output): text comes
 * through pipe-pane, not here.
 *
 * Client text never reaches this parser unquoted: tmux_quote() makes one
 * word of anything, and the values in commands are ours (pane ids that
 * passed ^%\d+$, numbers, fixed paths).
 *
 * The client has one state, changed only here:
 *
 *   DOWN     --a command, version known--> LOCKING, or STARTING
 *   DOWN     --a command, version unknown--> VERSION (`tmux -V` spawned)
 *   VERSION  --its output closed and it reaped: 3.2a or newer--> LOCKING,
 *            or STARTING; older, failed or silent--> DOWN, queue failed
 *   LOCKING  --the attach lock taken, or TMUX_LOCK_WAIT_MS gone--> STARTING
 *   STARTING --%session-changed--> PROBING (the probe command written)
 *   PROBING  --the probe answered--> READY (the queued commands written)
 *   STARTING, PROBING --not attached in TMUX_ATTACH_MS--> STARTING again
 *            with a new client (the queue kept); the third time DOWN
 *   any      --the client exits, %exit, EOF, a write fails--> DOWN, queue
 *            failed (the next command starts a new client)
 *   any      --tmux_shutdown--> EXITING: from READY with kill-server (or
 *            our idle pane's kill-pane) queued and answered before the
 *            client goes; from any other, the client goes at once
 *
 * In EXITING no client is started again: a command fails at once once
 * the last client is gone. Commands queued in the states before READY
 * keep their line and are written when READY is reached. Nothing here
 * waits: the version probe, the lock and the attach are descriptors and
 * a deadline in the loop (loop.c), children are reaped through SIGCHLD
 * (tmux_reaped), and --check alone runs the probe to its end
 * (tmux_probe), before any loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cspawn.h"
#include "fdutil.h"
#include "frame.h"
#include "log.h"
#include "osdep.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define TMUX_WHY_EXIT	"progmux is exiting"

enum tmux_state {
	TMUX_DOWN,		/* no client; a command starts one */
	TMUX_VERSION,		/* `tmux -V` runs; commands wait */
	TMUX_LOCKING,		/* waiting for the attach lock */
	TMUX_STARTING,		/* spawned; waiting for %session-changed */
	TMUX_PROBING,		/* attached; the probe is out */
	TMUX_READY,		/* commands are written as they come */
	TMUX_EXITING		/* progmux exits: nothing starts again */
};

struct tmux_cmd {
	tmux_cb		 cb;
	void		*arg;
	char		*line;		/* kept until written */
	struct tmux_cmd	*next;
};

static struct {
	enum tmux_state	 state;
	pid_t		 pid;		/* the control client, or -1 */
	int		 in;		/* we read tmux's stdout */
	int		 out;		/* we write tmux's stdin */
	int		 err;		/* we read tmux's stderr, or -1 */
	struct buf	 ebuf;		/* a line of it being read */
	char		 said[256];	/* the last line it said there */
	struct buf	 rbuf;
	struct buf	 wbuf;
	struct tmux_cmd	*head, *tail;	/* awaiting their blocks */
	struct tmux_parse ps;		/* the line parser's block */
	int64_t		 attach_deadline;
	int		 attach_tries;
	int		 lock_fd;	/* held while attaching, or -1 */
	int64_t		 lock_retry;	/* when to try it again */
	int64_t		 lock_deadline;	/* then going without it */
	char		*idle_pane;	/* our own idle window's pane */
	char		*conf;		/* robust mode: the server's options */
	unsigned	 gen;		/* bumped when a client dies */
	char		*failure;	/* why it is not up */
	struct loop_timer *timer;

	pid_t		 vpid;		/* `tmux -V`, until reaped */
	int		 vfd;		/* its output, until EOF */
	int		 vstatus;	/* its wait status */
	struct buf	 vout;
	int64_t		 vdeadline;
	char		 version[32];
	bool		 version_ok;	/* 3.2a or newer */
	char		**argv;		/* tmux + socket arguments */
} tm = { .pid = -1, .in = -1, .out = -1, .err = -1, .lock_fd = -1,
    .vpid = -1, .vfd = -1 };

#define TMUX_LOCK_WAIT_MS	3000
#define TMUX_LOCK_RETRY_MS	10	/* how often the loop tries it */
#define TMUX_NOFILE_MIN		64	/* below this, tmux is not started */
#define TMUX_ATTACH_MS		2000	/* attached and answering by then */
#define TMUX_ATTACH_TRIES	3
#define TMUX_VERSION_MS		5000	/* `tmux -V` answers by then */
#define TMUX_VERSION_MAX	256	/* bytes of its output kept */
#define TMUX_PROBE		"refresh-client -f no-output,ignore-size"

static void	tmux_dead(const char *);
static void	tmux_fail(const char *);
static int	tmux_spawn(char **);
static void	tmux_build_argv(void);
static void	tmux_on_event(int, int, void *);
static void	tmux_on_writable(void);
static void	tmux_read_err(void);
static void	tmux_timer_add(void);

/*
 * tmux 3.3a (and later, up to at least 3.5a) can crash when a
 * notification reaches a control client still identifying itself, which
 * happens when two attach at the same moment. Our own instances take
 * turns: one lock per user, held from spawning the client until it is
 * attached. A private (robust) server needs none. Failing to lock is not
 * fatal; it only loses the protection.
 *
 * The lock lives where only the user can write: tmux's own directory
 * (${TMUX_TMPDIR:-/tmp}/tmux-UID, made 0700 as tmux makes it). A name
 * that is not a regular file of ours is not used. A lock held by another
 * is not waited for here: the loop retries it (tmux_lock_retry) until
 * TMUX_LOCK_WAIT_MS have passed, and answers other requests meanwhile.
 */
static char *
tmux_lock_path(void)
{
	const char	*base = getenv("TMUX_TMPDIR");
	struct stat	 sb;
	char		*dir, *path;
	uid_t		 uid = getuid();

	if (base == NULL || *base == '\0')
		base = "/tmp";
	xasprintf(&dir, "%s/tmux-%u", base, (unsigned)uid);
	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		log_warn("cannot make %s: %s; attaching without the lock", dir,
		    strerror(errno));
		free(dir);
		return (NULL);
	}
	if (lstat(dir, &sb) == -1 || !S_ISDIR(sb.st_mode) ||
	    sb.st_uid != uid || (sb.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		log_warn("%s is not a private directory of ours; attaching "
		    "without the lock", dir);
		free(dir);
		return (NULL);
	}
	xasprintf(&path, "%s/progmux-attach.lock", dir);
	free(dir);
	return (path);
}

/* Take the attach lock if we can; true if another holds it (wait). */
static bool
tmux_lock_attach(void)
{
	struct stat	 sb;
	char		*path;

	if (cfg.robust || tm.lock_fd != -1)
		return (false);
	if ((path = tmux_lock_path()) == NULL)
		return (false);
	tm.lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW |
	    O_NONBLOCK, 0600);
	if (tm.lock_fd == -1) {
		log_warn("attach lock %s: %s; attaching without it", path,
		    errno == ELOOP ? "a symbolic link, not followed" :
		    fd_strerror(errno));
		free(path);
		return (false);
	}
	if (fstat(tm.lock_fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != getuid()) {
		log_warn("attach lock %s is not a regular file of ours; "
		    "attaching without it", path);
		close(tm.lock_fd);
		tm.lock_fd = -1;
		free(path);
		return (false);
	}
	free(path);
	if (flock(tm.lock_fd, LOCK_EX | LOCK_NB) == 0)
		return (false);
	if (errno != EWOULDBLOCK) {
		close(tm.lock_fd);
		tm.lock_fd = -1;
		return (false);
	}
	tm.lock_deadline = now_ms() + TMUX_LOCK_WAIT_MS;
	return (true);
}

/* Let go of the attach lock (closing it releases it). */
static void
tmux_unlock_attach(void)
{
	if (tm.lock_fd != -1) {
		close(tm.lock_fd);
		tm.lock_fd = -1;
	}
}

/* Bumped whenever a control client goes: pane ids from before may name
 * other panes now (a new server numbers from %0 again). */
unsigned
tmux_generation(void)
{
	return (tm.gen);
}

/* tmux's version as `tmux -V` gave it, or "" before the probe. */
const char *
tmux_version(void)
{
	return (tm.version);
}

/* Is a control client up (its descriptors open)? */
static bool
tmux_client_up(void)
{
	return (tm.in != -1);
}

/* Nothing queued or waiting for its answer (or no client to ask). */
bool
tmux_idle(void)
{
	return (!tmux_client_up() || tm.state == TMUX_LOCKING ||
	    (tm.head == NULL && tm.wbuf.len == 0));
}

/* Is a client up, or on its way (a command would not start one)? */
bool
tmux_alive(void)
{
	return (tm.state != TMUX_DOWN &&
	    (tm.state != TMUX_EXITING || tmux_client_up()));
}

/* Are the commands written as they come? */
static bool
tmux_writing(void)
{
	return (tmux_client_up() && (tm.state == TMUX_PROBING ||
	    tm.state == TMUX_READY || tm.state == TMUX_EXITING));
}

/* The client's stdin waits to be writable only while commands are
 * queued for it. */
static void
tmux_update_out(void)
{
	if (tm.out != -1)
		loop_fd_mask(tm.out, tm.wbuf.len > 0 && tmux_writing() ?
		    LOOP_WRITE : 0);
}

/* Is pid our own idle process (progmux-reaper --idle OURPID RUNDIR)? */
static bool
tmux_is_our_idle(long pid)
{
	char	 cmd[4096], want[4096];
	ssize_t	 n;
	int	 wn;

	if ((n = osdep_cmdline((pid_t)pid, cmd, sizeof cmd)) <= 0)
		return (false);
	wn = snprintf(want, sizeof want, "%s%c--idle%c%ld%c%s%c",
	    cfg.reaper_path, '\0', '\0', (long)getpid(), '\0', cfg.rundir,
	    '\0');
	return (wn > 0 && (size_t)wn < sizeof want && n == wn &&
	    memcmp(cmd, want, (size_t)n) == 0);
}

/*
 * The session's panes: the one running our idle process is ours (a
 * session we made). It closes when it exits, even if the person's
 * configuration says remain-on-exit; we remove it ourselves at exit.
 */
static void
tmux_found_panes(void *arg, bool ok, const char *out, size_t len)
{
	struct buf	 cmd = BUF_INIT;
	char		*text, *line, *save, id[32];
	long		 pid;

	(void)arg;
	if (!ok || tm.idle_pane != NULL)
		return;
	text = xstrndup(out, len);
	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%%%30[0-9] %ld", id + 1, &pid) != 2 ||
		    !tmux_is_our_idle(pid))
			continue;
		id[0] = '%';
		tm.idle_pane = xstrdup(id);
		buf_printf(&cmd, "set-option -p -t %s remain-on-exit off", id);
		tmux_command(buf_cstr(&cmd), NULL, NULL);
		buf_free(&cmd);
		break;
	}
	free(text);
}

/*
 * At exit: from READY, the last commands: a private server is killed; on
 * a person's server our idle window goes (if our programs' panes are gone
 * too and no one else's window is in it, the session we made goes, and
 * tmux exits if it was the last: we leave the server as we found it). A
 * session we only attached to has no idle pane of ours. From any other
 * state the client (or the probe) goes now.
 */
void
tmux_shutdown(void)
{
	struct buf	cmd = BUF_INIT;

	if (tm.state != TMUX_READY) {
		tmux_dead(TMUX_WHY_EXIT);
		tm.state = TMUX_EXITING;
		return;
	}
	tm.state = TMUX_EXITING;
	if (cfg.robust)
		tmux_command("kill-server", NULL, NULL);
	else if (tm.idle_pane != NULL) {
		buf_printf(&cmd, "kill-pane -t %s", tm.idle_pane);
		tmux_command(buf_cstr(&cmd), NULL, NULL);
		buf_free(&cmd);
	}
}

/* The probe was answered: READY; write every command queued meanwhile. */
static void
tmux_attached(void)
{
	struct tmux_cmd	*c;
	struct buf	 cmd = BUF_INIT, t = BUF_INIT;

	tm.state = TMUX_READY;
	tm.attach_tries = 0;
	tmux_unlock_attach();
	for (c = tm.head; c != NULL; c = c->next) {
		if (c->line == NULL)
			continue;
		buf_adds(&tm.wbuf, c->line);
		buf_addc(&tm.wbuf, '\n');
		free(c->line);
		c->line = NULL;
	}
	tmux_on_writable();
	if (tm.idle_pane == NULL && tm.state == TMUX_READY) {
		buf_printf(&t, "=%s", cfg.session);
		buf_adds(&cmd, "list-panes -s -t ");
		tmux_quote(&cmd, buf_cstr(&t));
		buf_adds(&cmd, " -F '#{pane_id} #{pane_pid}'");
		tmux_command(buf_cstr(&cmd), tmux_found_panes, NULL);
		buf_free(&cmd);
		buf_free(&t);
	}
}

/* When tmux_timer must act next: the lock's retry, the attach's or the
 * probe's deadline. */
static int64_t
tmux_when(void)
{
	switch (tm.state) {
	case TMUX_VERSION:
		return (tm.vdeadline);
	case TMUX_LOCKING:
		return (tm.lock_retry < tm.lock_deadline ? tm.lock_retry :
		    tm.lock_deadline);
	case TMUX_STARTING:
	case TMUX_PROBING:
		return (tm.attach_deadline);
	default:
		return (DEADLINE_NONE);
	}
}

/* Spawn the client (with the lock, or going without it): STARTING. */
static void
tmux_lock_done(void)
{
	char	*cause = NULL;

	if (tmux_spawn(&cause) == -1) {
		tmux_unlock_attach();
		tmux_fail(cause);
		free(cause);
		return;
	}
	tm.state = TMUX_STARTING;
}

/*
 * LOCKING: try the attach lock again; once it is ours, or the wait is
 * over, start the client (the queued commands go once it is attached).
 */
static void
tmux_lock_retry(void)
{
	if (flock(tm.lock_fd, LOCK_EX | LOCK_NB) == -1) {
		if (errno == EWOULDBLOCK && now_ms() < tm.lock_deadline) {
			tm.lock_retry = now_ms() + TMUX_LOCK_RETRY_MS;
			return;
		}
		log_warn("the attach lock stayed held for %d ms; attaching "
		    "without it", TMUX_LOCK_WAIT_MS);
		tmux_unlock_attach();
	}
	tmux_lock_done();
}

/* Take the lock if we can, then spawn the client; or wait for it. */
static void
tmux_attach(void)
{
	if (tmux_lock_attach()) {
		tm.state = TMUX_LOCKING;	/* tmux_lock_retry goes on */
		tm.lock_retry = now_ms() + TMUX_LOCK_RETRY_MS;
		log_debug("the attach lock is held; waiting up to %d ms",
		    TMUX_LOCK_WAIT_MS);
		return;
	}
	tmux_lock_done();
}

/*
 * The control client's standard error: tmux says there why it could not
 * connect or start (a socket directory it will not use, a server that
 * exited). Each line is passed on to ours, and the last one kept for the
 * error a tool then gives.
 */
static void
tmux_read_err(void)
{
	char	 chunk[1024], *nl;
	ssize_t	 n;

	while (tm.err != -1 && (n = read(tm.err, chunk, sizeof chunk)) > 0) {
		buf_add(&tm.ebuf, chunk, (size_t)n);
		while ((nl = memchr(tm.ebuf.data, '\n', tm.ebuf.len)) != NULL) {
			*nl = '\0';
			if (nl > tm.ebuf.data) {
				log_warn("tmux: %s", tm.ebuf.data);
				snprintf(tm.said, sizeof tm.said, "%s",
				    tm.ebuf.data);
			}
			buf_drain(&tm.ebuf, (size_t)(nl - tm.ebuf.data) + 1);
		}
		if (tm.ebuf.len > sizeof tm.said)	/* no line end: cut */
			buf_reset(&tm.ebuf);
	}
	if (tm.err != -1 && n == 0) {
		loop_fd_del(tm.err);
		close(tm.err);
		tm.err = -1;
	}
}

/* Close the client's descriptors and send it sig (it is reaped with the
 * others). */
static void
tmux_close_client(int sig)
{
	if (tm.in != -1) {
		loop_fd_del(tm.in);
		close(tm.in);
		tm.in = -1;
	}
	if (tm.out != -1) {
		loop_fd_del(tm.out);
		close(tm.out);
		tm.out = -1;
	}
	tmux_read_err();
	if (tm.err != -1) {
		loop_fd_del(tm.err);
		close(tm.err);
		tm.err = -1;
	}
	if (tm.pid > 0)
		kill(tm.pid, sig);
	tm.pid = -1;
	buf_reset(&tm.rbuf);
	buf_reset(&tm.wbuf);
	tm.ps.in_block = false;
}

/*
 * STARTING or PROBING past the attach deadline: the client is stuck (tmux
 * can leave one so when clients attach at once). Start another, keeping
 * the queued commands, none of which was written. After a few tries, give
 * up and fail them.
 */
static void
tmux_attach_timeout(void)
{
	/* (A loaded machine can be that slow: said only if it matters,
	 * when the last try fails.) */
	log_debug("tmux control client %ld did not attach in %d ms%s",
	    (long)tm.pid, TMUX_ATTACH_MS, tm.attach_tries + 1 <
	    TMUX_ATTACH_TRIES ? "; starting another" : "");
	if (++tm.attach_tries >= TMUX_ATTACH_TRIES) {
		tm.attach_tries = 0;
		tmux_dead("it did not attach to the tmux server");
		return;
	}
	tmux_close_client(SIGKILL);
	tm.gen++;
	tmux_unlock_attach();
	tmux_attach();
}

/* End a version probe under way, if any: its process and its pipe. */
static void
tmux_version_kill(void)
{
	if (tm.vpid > 0)
		kill(tm.vpid, SIGKILL);	/* reaped with the others */
	tm.vpid = -1;
	if (tm.vfd != -1) {
		loop_fd_del(tm.vfd);
		close(tm.vfd);
		tm.vfd = -1;
	}
}

/* The version probe took too long: it goes, and so does the queue. */
static void
tmux_version_timeout(void)
{
	char	*why;

	tmux_version_kill();
	xasprintf(&why, "%s -V did not answer in %d ms", cfg.tmux_bin,
	    TMUX_VERSION_MS);
	tmux_fail(why);
	free(why);
}

/*
 * Set the timer for tmux_when, or clear it. While the version is probed
 * it looks every TMUX_LOCK_RETRY_MS too: the answer, read outside the
 * timer, moves on to the lock's retry or the attach's deadline, both
 * sooner than the probe's. Every other deadline is set by tmux_start
 * (which sets the timer) or in the timer itself.
 */
static void
tmux_timer_arm(void)
{
	int64_t	when = tmux_when(), soon = now_ms() + TMUX_LOCK_RETRY_MS;

	if (tm.state == TMUX_VERSION && soon < when)
		when = soon;
	loop_timer_set(tm.timer, when);
}

/* The timer: act on tmux_when's deadline if it has passed, then set the
 * timer again. */
static void
tmux_timer(void *arg)
{
	(void)arg;
	if (tmux_when() <= now_ms()) {
		switch (tm.state) {
		case TMUX_VERSION:
			tmux_version_timeout();
			break;
		case TMUX_LOCKING:
			tmux_lock_retry();
			break;
		case TMUX_STARTING:
		case TMUX_PROBING:
			tmux_attach_timeout();
			break;
		default:
			break;
		}
	}
	tmux_timer_arm();
}

/* The timer, made once; it looks on the next turn, once tmux_start has
 * set its first deadline. */
static void
tmux_timer_add(void)
{
	if (tm.timer == NULL)
		tm.timer = loop_timer_new(tmux_timer, NULL);
	loop_timer_set(tm.timer, now_ms());
}

/* The socket arguments for the reapers' own tmux commands. */
char **
tmux_client_argv(void)
{
	return (tm.argv);
}

/*
 * Quote one word for tmux's command parser. Bare only if every character
 * is plain and it is not a % directive: a word starting with % is one
 * (%if, %endif, %hidden ...; any other letter is a syntax error) unless
 * digits alone follow, as in a pane id.
 */
void
tmux_quote(struct buf *b, const char *s)
{
	const char	*p;

	if (*s != '\0' && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
	    "opqrstuvwxyz0123456789%@=:/._,+-") == strlen(s) &&
	    (*s != '%' || (s[1] != '\0' && strspn(s + 1, "0123456789") ==
	    strlen(s + 1)))) {
		buf_adds(b, s);
		return;
	}
	if (strchr(s, '\'') == NULL && strpbrk(s, "\n\r") == NULL) {
		buf_addc(b, '\'');
		buf_adds(b, s);
		buf_addc(b, '\'');
		return;
	}
	buf_addc(b, '"');
	for (p = s; *p != '\0'; p++) {
		if (*p == '\n')
			buf_adds(b, "\\n");
		else if (*p == '\r')
			buf_adds(b, "\\r");
		else {
			if (strchr("\"\\$~#", *p) != NULL)
				buf_addc(b, '\\');
			buf_addc(b, *p);
		}
	}
	buf_addc(b, '"');
}

/*
 * Spawn `tmux -V` with its output (and errors) on a pipe, through the one
 * spawn sequence: a binary that cannot be run is known at once. The
 * caller reads the pipe (tm.vfd) to EOF and reaps tm.vpid.
 */
static int
tmux_version_spawn(char **cause)
{
	struct spawn		 sp;
	enum spawn_stage	 stage;
	char			*argv[] = { cfg.tmux_bin, (char *)"-V", NULL };
	int			 fds[2], err;
	pid_t			 pid;

	if (pipe2(fds, O_CLOEXEC) == -1) {
		xasprintf(cause, "pipe: %s", fd_strerror(errno));
		return (-1);
	}
	memset(&sp, 0, sizeof sp);
	sp.argv = argv;
	sp.flags = SPAWN_SEARCH;
	sp.fds[0] = SPAWN_NULL;
	sp.fds[1] = fds[1];
	sp.fds[2] = fds[1];
	sp.nfds = 3;
	pid = cspawn_start(&sp, &stage, &err);
	close(fds[1]);
	if (pid == -1 || stage != SPAWN_OK) {
		close(fds[0]);
		xasprintf(cause, "cannot run %s (%s): install tmux 3.2a or "
		    "newer (apt-get install tmux) or set PROGMUX_TMUX_BIN",
		    cfg.tmux_bin, fd_strerror(err));
		return (-1);	/* a child that failed is reaped as any */
	}
	tm.vpid = pid;
	tm.vfd = fds[0];
	tm.vstatus = -1;
	buf_reset(&tm.vout);
	return (0);
}

/* What `tmux -V` said (and how it exited): keep the version; refuse tmux
 * older than 3.2a. */
static int
tmux_version_parse(char **cause)
{
	char	*out, *p;
	int	 major = 0, minor = 0;

	out = xstrdup(buf_cstr(&tm.vout));
	buf_reset(&tm.vout);
	if (!WIFEXITED(tm.vstatus) || WEXITSTATUS(tm.vstatus) != 0) {
		xasprintf(cause, "cannot run %s: install tmux 3.2a or newer "
		    "(apt-get install tmux) or set PROGMUX_TMUX_BIN",
		    cfg.tmux_bin);
		free(out);
		return (-1);
	}
	out[strcspn(out, "\n")] = '\0';
	for (p = out; *p != '\0' && (*p < '0' || *p > '9'); p++)
		;
	if (sscanf(p, "%d.%d", &major, &minor) < 2)
		major = minor = 0;
	snprintf(tm.version, sizeof tm.version, "%.31s", p);
	/* 3.2a is the first release with what we use; "3.2" itself is not. */
	if (major < 3 || (major == 3 && minor < 2) ||
	    (major == 3 && minor == 2 && (p[3] < 'a' || p[3] > 'z'))) {
		xasprintf(cause, "%s is \"%s\"; progmux needs tmux 3.2a or "
		    "newer", cfg.tmux_bin, out);
		free(out);
		return (-1);
	}
	free(out);
	tm.version_ok = true;
	return (0);
}

/* VERSION: once its output has closed and it has been reaped, judge. */
static void
tmux_version_check(void)
{
	char	*cause = NULL;

	if (tm.state != TMUX_VERSION || tm.vfd != -1 || tm.vpid != -1)
		return;
	if (tmux_version_parse(&cause) == -1) {
		log_warn("%s", cause);
		tmux_fail(cause);
		free(cause);
		return;
	}
	log_info("tmux %s", tm.version);
	tmux_attach();
}

/* `tmux -V`'s output is readable: keep (a bounded part of) it. */
static void
tmux_version_on_event(int fd, int fired, void *arg)
{
	char	buf[512];
	ssize_t	n;

	(void)fired;
	(void)arg;
	while ((n = read(fd, buf, sizeof buf)) > 0) {
		if (tm.vout.len < TMUX_VERSION_MAX)
			buf_add(&tm.vout, buf, (size_t)n);
	}
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	loop_fd_del(tm.vfd);
	close(tm.vfd);
	tm.vfd = -1;
	tmux_version_check();
}

/* For --check and at start-up, before the loop runs: tmux's version, or
 * why it cannot be used. The one place that waits for `tmux -V`. */
int
tmux_probe(char **version, char **cause)
{
	char	buf[512];
	ssize_t	n;

	if (!tm.version_ok) {
		if (tmux_version_spawn(cause) == -1)
			return (-1);
		while ((n = read(tm.vfd, buf, sizeof buf)) != 0) {
			if (n == -1 && errno == EINTR)
				continue;
			if (n == -1)
				break;
			if (tm.vout.len < TMUX_VERSION_MAX)
				buf_add(&tm.vout, buf, (size_t)n);
		}
		close(tm.vfd);
		tm.vfd = -1;
		while (waitpid(tm.vpid, &tm.vstatus, 0) == -1 &&
		    errno == EINTR)
			;
		tm.vpid = -1;
		if (tmux_version_parse(cause) == -1)
			return (-1);
	}
	if (version != NULL)
		*version = xstrdup(tm.version);
	return (0);
}

/* For --check: 1 if a server answers on our socket, 0 if none does. */
int
tmux_server_running(void)
{
	struct spawn		 sp;
	enum spawn_stage	 stage;
	char			*argv[8];
	size_t			 n = 0, i;
	int			 st, err;
	pid_t			 pid;

	tmux_build_argv();
	for (i = 0; tm.argv[i] != NULL; i++)
		argv[n++] = tm.argv[i];
	argv[n++] = (char *)"list-sessions";
	argv[n] = NULL;
	memset(&sp, 0, sizeof sp);
	sp.argv = argv;
	sp.flags = SPAWN_SEARCH;
	sp.fds[0] = sp.fds[1] = sp.fds[2] = SPAWN_NULL;
	sp.nfds = 3;
	if ((pid = cspawn_start(&sp, &stage, &err)) == -1)
		return (0);
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			return (0);
	return (stage == SPAWN_OK && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* The client's argv prefix: binary and socket. */
static void
tmux_build_argv(void)
{
	size_t	n = 0;

	strv_free(tm.argv);
	tm.argv = xcalloc(4, sizeof *tm.argv);
	tm.argv[n++] = xstrdup(cfg.tmux_bin);
	if (cfg.socket_path != NULL) {
		tm.argv[n++] = xstrdup("-S");
		tm.argv[n++] = xstrdup(cfg.socket_path);
	} else if (cfg.socket_name != NULL) {
		tm.argv[n++] = xstrdup("-L");
		tm.argv[n++] = xstrdup(cfg.socket_name);
	}
}

/*
 * tmux inherits our descriptor limit (main.c raised the soft one to the
 * hard one). A server started under a tiny limit cannot open its panes
 * and spins: refuse to start it at all, saying which limit to raise.
 */
static int
tmux_check_nofile(char **cause)
{
	struct rlimit	rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 ||
	    rl.rlim_cur >= TMUX_NOFILE_MIN)
		return (0);
	xasprintf(cause, "the descriptor limit is too low to start tmux "
	    "(RLIMIT_NOFILE soft %llu hard %llu; progmux needs at least %d): "
	    "raise it with ulimit -n", (unsigned long long)rl.rlim_cur,
	    (unsigned long long)rl.rlim_max, TMUX_NOFILE_MIN);
	return (-1);
}

/*
 * A private server is born with its options, from a file in the runtime
 * directory: no moment exists at which it runs without them. When our
 * control client goes (however we die), its session is destroyed, and
 * an empty or unattached server exits.
 */
static int
tmux_write_conf(char **cause)
{
	static const char	 conf[] =
	    "set-option -s exit-empty on\n"
	    "set-option -s exit-unattached on\n"
	    "set-option -g destroy-unattached on\n"
	    "set-option -g default-size 80x24\n";
	char			*path;
	int			 fd;

	xasprintf(&path, "%s/tmux.conf", cfg.rundir);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd == -1 || fd_write_all(fd, conf, sizeof conf - 1) == -1) {
		xasprintf(cause, "cannot write %s: %s", path,
		    fd_strerror(errno));
		if (fd != -1)
			close(fd);
		free(path);
		return (-1);
	}
	close(fd);
	free(tm.conf);
	tm.conf = path;
	return (0);
}

/* The private server's configuration file, for main.c to remove. */
const char *
tmux_conf_path(void)
{
	return (tm.conf);
}

/*
 * Start the control client (and with it the server and session): from
 * DOWN to VERSION, LOCKING or STARTING. -1 with *cause if it cannot even
 * be tried; otherwise commands queue until it is READY (or fail then).
 */
int
tmux_start(char **cause)
{
	if (tm.state != TMUX_DOWN) {
		if (tm.state != TMUX_EXITING)
			return (0);
		*cause = xstrdup(TMUX_WHY_EXIT);
		return (-1);
	}
	if (tmux_check_nofile(cause) == -1 ||
	    (cfg.robust && tm.conf == NULL && tmux_write_conf(cause) == -1))
		goto fail;
	tmux_build_argv();
	tmux_timer_add();
	buf_reset(&tm.rbuf);
	buf_reset(&tm.wbuf);
	tm.ps.in_block = false;
	free(tm.failure);
	tm.failure = NULL;
	if (!tm.version_ok) {
		if (tmux_version_spawn(cause) == -1)
			goto fail;
		fd_nonblock(tm.vfd, 1);
		loop_fd_add(tm.vfd, LOOP_READ, tmux_version_on_event, NULL);
		tm.vdeadline = now_ms() + TMUX_VERSION_MS;
		tm.state = TMUX_VERSION;
		return (0);
	}
	tmux_attach();
	if (tm.state == TMUX_DOWN) {
		*cause = xstrdup(tm.failure != NULL ? tm.failure :
		    "tmux could not be started");
		return (-1);
	}
	return (0);

fail:
	free(tm.failure);
	tm.failure = xstrdup(*cause);
	return (-1);
}

/* In the client, before its exec: die with us, and not start at all if
 * we died already. */
static int
tmux_spawn_hook(void *arg)
{
	return (osdep_parent_death(SIGTERM, *(pid_t *)arg));
}

/*
 * Spawn the control client (the one spawn sequence: its exec failing is
 * known at once). Its session, if it makes one, gets a window running our
 * idle process, never the person's shell. The client dies with us:
 * PR_SET_PDEATHSIG sends it SIGTERM however we die (tmux then drops it
 * and its session), and if we died before the prctl took, it does not
 * start at all. It is a session leader with no terminal: its stdin is
 * the protocol.
 */
static int
tmux_spawn(char **cause)
{
	struct spawn		 sp;
	enum spawn_stage	 stage;
	int			 in[2], out[2], ep[2], err;
	char			*argv[24], pidarg[32];
	size_t			 n = 0, i;
	pid_t			 parent = getpid(), pid;

	if (pipe2(in, O_CLOEXEC) == -1) {
		xasprintf(cause, "pipe: %s", fd_strerror(errno));
		return (-1);
	}
	if (pipe2(out, O_CLOEXEC) == -1) {
		xasprintf(cause, "pipe: %s", fd_strerror(errno));
		close(in[0]);
		close(in[1]);
		return (-1);
	}
	if (pipe2(ep, O_CLOEXEC) == -1)
		ep[0] = ep[1] = -1;	/* its stderr is then nobody's */
	snprintf(pidarg, sizeof pidarg, "%ld", (long)parent);
	for (i = 0; tm.argv[i] != NULL; i++)
		argv[n++] = tm.argv[i];
	if (cfg.robust) {
		argv[n++] = (char *)"-f";
		argv[n++] = tm.conf;
	}
	argv[n++] = (char *)"-C";
	argv[n++] = (char *)"new-session";
	argv[n++] = (char *)"-A";
	argv[n++] = (char *)"-s";
	argv[n++] = cfg.session;
	/* Separate words: exec'd as they are, no shell, no tmux parsing. */
	argv[n++] = cfg.reaper_path;
	argv[n++] = (char *)"--idle";
	argv[n++] = pidarg;
	argv[n++] = cfg.rundir;
	argv[n] = NULL;

	memset(&sp, 0, sizeof sp);
	sp.argv = argv;
	sp.flags = SPAWN_SETSID | SPAWN_SEARCH;
	sp.fds[0] = out[0];
	sp.fds[1] = in[1];
	sp.fds[2] = ep[1] != -1 ? ep[1] : SPAWN_NULL;
	sp.nfds = 3;
	sp.hook = tmux_spawn_hook;
	sp.hook_arg = &parent;
	pid = cspawn_start(&sp, &stage, &err);
	close(out[0]);
	close(in[1]);
	if (ep[1] != -1)
		close(ep[1]);
	if (pid == -1 || stage != SPAWN_OK) {
		close(in[0]);
		close(out[1]);
		if (ep[0] != -1)
			close(ep[0]);
		if (pid == -1)
			xasprintf(cause, "fork: %s", fd_strerror(err));
		else
			xasprintf(cause, "cannot run %s: %s", cfg.tmux_bin,
			    fd_strerror(err));
		return (-1);	/* a child that failed is reaped as any */
	}
	tm.pid = pid;
	tm.in = in[0];
	tm.out = out[1];
	tm.err = ep[0];
	tm.said[0] = '\0';
	buf_reset(&tm.ebuf);
	fd_nonblock(tm.in, 1);
	fd_nonblock(tm.out, 1);
	loop_fd_add(tm.in, LOOP_READ, tmux_on_event, NULL);
	loop_fd_add(tm.out, 0, tmux_on_event, NULL);
	if (tm.err != -1) {
		fd_nonblock(tm.err, 1);
		loop_fd_add(tm.err, LOOP_READ, tmux_on_event, NULL);
	}
	tm.attach_deadline = now_ms() + TMUX_ATTACH_MS;
	log_debug("control client %ld on %s", (long)tm.pid,
	    cfg.socket_path ? cfg.socket_path : cfg.socket_name ?
	    cfg.socket_name : "the default socket");
	return (0);
}

/* Fail every queued command with why. */
static void
tmux_fail_queue(const char *why)
{
	struct tmux_cmd	*c, *list;
	char		*why_copy;

	/* Detach the queue first: a callback may start a new client. */
	list = tm.head;
	tm.head = tm.tail = NULL;
	why_copy = xstrdup(why);
	while ((c = list) != NULL) {
		list = c->next;
		if (c->cb != NULL)
			c->cb(c->arg, false, why_copy, strlen(why_copy));
		free(c->line);
		free(c);
	}
	free(why_copy);
}

/* No client could be had (the version, the spawn): DOWN (or EXITING),
 * and what waits fails with why. */
static void
tmux_fail(const char *why)
{
	if (tm.state != TMUX_EXITING)
		tm.state = TMUX_DOWN;
	free(tm.failure);
	tm.failure = xstrdup(why);
	tmux_fail_queue(why);
}

/* The client is gone (or goes now; so does a version probe): fail what
 * waits, close up. DOWN, or EXITING if progmux is exiting. */
static void
tmux_dead(const char *why)
{
	bool	 exiting = tm.state == TMUX_EXITING ||
		    strcmp(why, TMUX_WHY_EXIT) == 0;
	bool	 attaching = tm.state == TMUX_STARTING ||
		    tm.state == TMUX_PROBING;
	char	*said = NULL;

	if (tm.state == TMUX_DOWN || (tm.state == TMUX_EXITING &&
	    !tmux_client_up()))
		return;
	/* What tmux said on its way out says more than how it went. */
	tmux_read_err();
	if (!exiting && tm.said[0] != '\0') {
		xasprintf(&said, "%s; tmux said: %s", why, tm.said);
		why = said;
	}
	if (exiting)
		log_debug("tmux control client closed (%s)", why);
	else {
		log_warn("tmux control client ended: %s", why);
		log_notify(LOG_NOTIFY_WARNING, "tmux", "the tmux control "
		    "client ended (%s); programs in flight read as gone", why);
	}
	tmux_version_kill();
	tm.state = exiting ? TMUX_EXITING : TMUX_DOWN;
	tm.gen++;
	tmux_unlock_attach();
	free(tm.idle_pane);
	tm.idle_pane = NULL;
	tmux_close_client(SIGTERM);
	free(tm.failure);
	if (attaching && tm.said[0] != '\0')
		xasprintf(&tm.failure, "tmux could not be started or attached "
		    "to: %s", tm.said);
	else
		xasprintf(&tm.failure, "the tmux server went away (%s); the "
		    "next start_program starts it again", why);
	free(said);
	tmux_fail_queue(tm.failure);
}

/* At exit, once tmux is idle: the client goes (it is reaped with the
 * others). */
void
tmux_stop(void)
{
	tm.state = TMUX_EXITING;
	tmux_dead(TMUX_WHY_EXIT);
}

/*
 * What to add to an error tmux gave for a command, if it says why: tmux
 * out of descriptors says "Too many open files" (a fork or an open of a
 * pane's terminal failing), which names neither the limit nor the fix.
 */
const char *
tmux_error_hint(const char *out)
{
	if (out != NULL && (strstr(out, "Too many open files") != NULL ||
	    strstr(out, "fork failed") != NULL))
		return (" (the tmux server has run out of descriptors: its "
		    "RLIMIT_NOFILE is used up; raise it with ulimit -n before "
		    "tmux starts, or stop some programs)");
	return ("");
}

/* Queue a command line (already quoted); cb gets its output. */
void
tmux_command(const char *line, tmux_cb cb, void *arg)
{
	struct tmux_cmd	*c;
	char		*cause = NULL;

	if ((tm.state == TMUX_DOWN || tm.state == TMUX_EXITING) &&
	    !tmux_client_up() && tmux_start(&cause) == -1) {
		if (cb != NULL)
			cb(arg, false, cause, strlen(cause));
		free(cause);
		return;
	}
	log_debug("> %s", line);
	c = xcalloc(1, sizeof *c);
	c->cb = cb;
	c->arg = arg;
	if (tm.tail != NULL)
		tm.tail->next = c;
	else
		tm.head = c;
	tm.tail = c;
	if (tm.state != TMUX_READY && tm.state != TMUX_EXITING) {
		c->line = xstrdup(line);	/* written once attached */
		return;
	}
	buf_adds(&tm.wbuf, line);
	buf_addc(&tm.wbuf, '\n');
	tmux_on_writable();
}

/* Write what the client takes now. Nothing goes before it is attached
 * (see tmux_line). */
static void
tmux_on_writable(void)
{
	if (tmux_writing() && fd_flush(tm.out, &tm.wbuf) == -1) {
		tmux_dead(strerror(errno));
		return;
	}
	tmux_update_out();
}

/* A whole block answering our command: hand it to the oldest command
 * (the probe's, in PROBING: READY). */
static void
tmux_block_done(bool ok)
{
	struct tmux_cmd	*c;
	struct buf	*b = &tm.ps.block;

	if (tm.state == TMUX_PROBING) {
		tmux_attached();
		return;
	}
	if ((c = tm.head) == NULL) {
		log_warn("tmux answered a command we did not send");
		return;
	}
	tm.head = c->next;
	if (tm.head == NULL)
		tm.tail = NULL;
	log_debug("< %s %.*s", ok ? "ok" : "error", (int)b->len,
	    b->data ? b->data : "");
	if (c->cb != NULL)
		c->cb(c->arg, ok, buf_cstr(b), b->len);
	free(c->line);
	free(c);
}

/*
 * The line parser, on its own (the unit tests drive it): one line of
 * control-mode output, NUL-terminated at len, and what it means.
 */
enum tmux_line_kind
tmux_parse_line(struct tmux_parse *ps, const char *line, size_t len,
    const char **reason)
{
	unsigned long	t, num;
	int		flags;
	bool		end;

	if (ps->in_block) {
		/*
		 * A command's output is not escaped (capture-pane of a pane
		 * showing "%end ..." prints that line): only the guard lines
		 * carrying the %begin's time and number end the block.
		 */
		end = strncmp(line, "%end ", 5) == 0;
		if ((end || strncmp(line, "%error ", 7) == 0) &&
		    sscanf(line + (end ? 5 : 7), "%lu %lu %d", &t, &num,
		    &flags) == 3 && t == ps->time && num == ps->num) {
			ps->in_block = false;
			if (ps->block.len > 0 &&
			    ps->block.data[ps->block.len - 1] == '\n')
				ps->block.len--;
			if (!ps->ours)
				return (TMUX_LINE_NONE);
			return (end ? TMUX_LINE_OK : TMUX_LINE_ERROR);
		}
		if (ps->ours) {
			buf_add(&ps->block, line, len);
			buf_addc(&ps->block, '\n');
		}
		return (TMUX_LINE_NONE);
	}
	if (strncmp(line, "%begin ", 7) == 0 &&
	    sscanf(line + 7, "%lu %lu %d", &t, &num, &flags) == 3) {
		ps->in_block = true;
		ps->time = t;
		ps->num = num;
		ps->ours = (flags & 1) != 0;
		buf_reset(&ps->block);
		return (TMUX_LINE_NONE);
	}
	if (strncmp(line, "%session-changed ", 17) == 0)
		return (TMUX_LINE_ATTACHED);
	if (strncmp(line, "%exit", 5) == 0 && (len == 5 || line[5] == ' ')) {
		*reason = len > 6 ? line + 6 : "the session or server ended";
		return (TMUX_LINE_EXIT);
	}
	/* Other notifications are not ours to act on. */
	return (TMUX_LINE_NONE);
}

/* One line of control-mode output, acted on. */
static void
tmux_line(char *line, size_t len)
{
	const char	*reason = NULL;

	log_debug("< %.*s", (int)(len > 100 ? 100 : len), line);
	switch (tmux_parse_line(&tm.ps, line, len, &reason)) {
	case TMUX_LINE_OK:
		tmux_block_done(true);
		break;
	case TMUX_LINE_ERROR:
		tmux_block_done(false);
		break;
	case TMUX_LINE_ATTACHED:
		if (tm.state != TMUX_STARTING)
			break;
		/*
		 * Attached. Commands sent before this can fail ("no current
		 * client") or go unanswered; one probe goes first, and the
		 * rest once tmux has answered it.
		 */
		tm.state = TMUX_PROBING;
		buf_adds(&tm.wbuf, TMUX_PROBE "\n");
		tmux_on_writable();
		break;
	case TMUX_LINE_EXIT:
		tmux_dead(reason);
		break;
	case TMUX_LINE_NONE:
		break;
	}
}

/* tmux's output: every whole line, until the client changes under us. */
static void
tmux_on_readable(void)
{
	ssize_t	 n;
	char	 *nl, *p;
	size_t	  used;
	unsigned  gen;

	n = fd_read_into(tm.in, &tm.rbuf, 64 * 1024);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		tmux_dead(n == 0 ? "it closed its output" : strerror(errno));
		return;
	}
	p = tm.rbuf.data;
	used = 0;
	gen = tm.gen;
	while (tmux_client_up() && tm.gen == gen &&
	    (nl = memchr(p + used, '\n', tm.rbuf.len - used)) != NULL) {
		*nl = '\0';
		tmux_line(p + used, (size_t)(nl - (p + used)));
		used = (size_t)(nl - p) + 1;
	}
	if (tmux_client_up() && tm.gen == gen)
		buf_drain(&tm.rbuf, used);
}

/* The loop's callback for the client's two descriptors. */
static void
tmux_on_event(int fd, int fired, void *arg)
{
	(void)arg;
	if (fd == tm.out && (fired & LOOP_WRITE))
		tmux_on_writable();
	else if (fd == tm.in && (fired & LOOP_READ))
		tmux_on_readable();
	else if (fd == tm.err && (fired & LOOP_READ))
		tmux_read_err();
}

/* Was pid the control client or the version probe? Then it is reaped. */
bool
tmux_reaped(pid_t pid, int status)
{
	if (pid <= 0)
		return (false);
	if (pid == tm.vpid) {
		tm.vpid = -1;
		tm.vstatus = status;
		tmux_version_check();
		return (true);
	}
	if (pid != tm.pid)
		return (false);
	tm.pid = -1;
	if (tmux_client_up())
		tmux_dead("it exited");
	return (true);
}
