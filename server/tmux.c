/*
 * tmux.c — one persistent control-mode client to the tmux server: its
 * state, its queue of commands, its descriptors.
 *
 * Starting a tmux client process costs 10-40 ms; a command over a control
 * client about 0.1 ms. So the front keeps one `tmux -C` client, attached
 * to its own session (tmux_session.c: made if missing, with the server if
 * need be), and sends every command over it, one command per line. tmux
 * answers each in order with a %begin ... %end (or %error) block whose
 * flags say it came from this client; tmux_parse.c reads the lines, and
 * the callbacks queued here are matched to the blocks in order. Output
 * notifications are turned off (refresh-client -f no-output): text comes
 * through pipe-pane, not here.
 *
 * Client text never reaches tmux's command parser unquoted: tmux_quote()
 * makes one word of anything, and the values in commands are ours (pane
 * ids that passed ^%\d+$, numbers, fixed paths).
 *
 * The client has one state, changed only here:
 *
 *   DOWN     --a command, version known--> LOCKING, or STARTING
 *   DOWN     --a command, version unknown--> VERSION (`tmux -V` spawned:
 *            tmux_probe.c)
 *   VERSION  --the version probe says 3.2a or newer--> LOCKING, or
 *            STARTING; older, failed or silent--> DOWN, queue failed
 *   LOCKING  --the attach lock (tmux_lock.c) ours, or its wait over-->
 *            STARTING
 *   STARTING --%session-changed--> PROBING (TMUX_PROBE written)
 *   PROBING  --TMUX_PROBE answered--> READY (the queued commands written)
 *   STARTING, PROBING --not attached in TMUX_ATTACH_MS--> LOCKING, or
 *            STARTING, again with a new client (the queue kept); the
 *            third time DOWN, queue failed
 *   any      --the client exits, %exit, EOF, a write fails--> DOWN (or
 *            EXITING), queue failed (the next command starts a new client)
 *   any      --tmux_shutdown--> EXITING: from READY with kill-server (or
 *            our idle pane's kill-pane) queued and answered before the
 *            client goes; from any other, the client goes at once
 *
 * In EXITING no client is started again: a command fails at once once
 * the last client is gone. Commands queued in the states before READY
 * keep their line and are written when READY is reached. Nothing here
 * waits: the version probe, the lock and the attach are descriptors and
 * timers in the loop (loop.c), and children are reaped through SIGCHLD
 * (tmux_reaped).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdutil.h"
#include "log.h"
#include "server.h"
#include "timeutil.h"
#include "wipe.h"
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
	bool		 wbuf_secret;	/* it held a secret's command */
	struct tmux_cmd	*head, *tail;	/* awaiting their blocks */
	struct tmux_parse ps;		/* the line parser's block */
	int64_t		 attach_deadline;
	int		 attach_tries;
	const char	*conf;		/* robust mode: the server's options */
	unsigned	 gen;		/* bumped when a client dies */
	char		*failure;	/* why it is not up */
	struct loop_timer *timer;	/* the attach's deadline */
} tm = { .pid = -1, .in = -1, .out = -1, .err = -1 };

#define TMUX_ATTACH_MS		2000	/* attached and answering by then */
#define TMUX_ATTACH_TRIES	3
#define TMUX_PROBE		"refresh-client -f no-output,ignore-size"
#define TMUX_SECRET_ROOM	65536	/* queue room kept behind a secret */

static void	tmux_dead(const char *);
static void	tmux_fail(const char *);
static int	tmux_spawn(char **);
static void	tmux_on_event(int, int, void *);
static void	tmux_on_writable(void);
static void	tmux_read_err(void);
static void	tmux_timer_arm(void);

/* Bumped whenever a control client goes: pane ids from before may name
 * other panes now (a new server numbers from %0 again). */
unsigned
tmux_generation(void)
{
	return (tm.gen);
}

/* Empty the write queue; if it held a secret's command, clear all its
 * storage (what was written, and what a compaction moved). */
static void
tmux_wbuf_reset(void)
{
	buf_reset(&tm.wbuf);
	if (tm.wbuf_secret && tm.wbuf.data != NULL)
		wipe(tm.wbuf.data, tm.wbuf.cap);
	tm.wbuf_secret = false;
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
	return (!tmux_client_up() || (tm.head == NULL && tm.wbuf.len == 0));
}

/* Is a child of ours (the control client, `tmux -V`) not yet reaped? */
bool
tmux_children(void)
{
	return (tm.pid != -1 || tmux_probe_child());
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

/*
 * At exit: from READY, the last commands: a private server is killed; on
 * a person's server our idle window goes (tmux_session_leave). From any
 * other state the client (or the version probe) goes now.
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
	else if (tmux_session_leave(&cmd))
		tmux_command(buf_cstr(&cmd), NULL, NULL);
	buf_free(&cmd);
}

/* The session's panes: which is our idle one (tmux_session.c). */
static void
tmux_session_panes(void *arg, bool ok, const char *out, size_t len)
{
	struct buf	cmd = BUF_INIT;

	(void)arg;
	if (ok && tmux_session_found(out, len, &cmd))
		tmux_command(buf_cstr(&cmd), NULL, NULL);
	buf_free(&cmd);
}

/* TMUX_PROBE was answered: READY; write every command queued meanwhile,
 * then look for our idle pane. */
static void
tmux_attached(void)
{
	struct tmux_cmd	*c;
	struct buf	 cmd = BUF_INIT;

	tm.state = TMUX_READY;
	tm.attach_tries = 0;
	tmux_lock_release();
	for (c = tm.head; c != NULL; c = c->next) {
		if (c->line == NULL)
			continue;
		buf_adds(&tm.wbuf, c->line);
		buf_addc(&tm.wbuf, '\n');
		free(c->line);
		c->line = NULL;
	}
	tmux_on_writable();
	if (tm.state == TMUX_READY && tmux_session_find(&cmd))
		tmux_command(buf_cstr(&cmd), tmux_session_panes, NULL);
	buf_free(&cmd);
}

/* Spawn the client (with the lock, or going without it): STARTING. */
static void
tmux_attach_spawn(void)
{
	char	*cause = NULL;

	if (tmux_spawn(&cause) == -1) {
		tmux_lock_release();
		tmux_fail(cause);
		free(cause);
		return;
	}
	tm.state = TMUX_STARTING;
	tmux_timer_arm();
}

/* LOCKING: the attach lock is ours, or the wait for it is over. */
static void
tmux_attach_locked(void)
{
	if (tm.state == TMUX_LOCKING)
		tmux_attach_spawn();
}

/* Take the lock if we can, then spawn the client; or wait for it. */
static void
tmux_attach(void)
{
	if (tmux_lock_take(tmux_attach_locked)) {
		tm.state = TMUX_LOCKING;	/* tmux_attach_locked goes on */
		return;
	}
	tmux_attach_spawn();
}

/* VERSION: the probe's verdict (NULL: usable); on to the lock and the
 * client, or fail what waits. */
static void
tmux_probed(const char *cause)
{
	if (tm.state != TMUX_VERSION)
		return;
	if (cause != NULL) {
		tmux_fail(cause);
		return;
	}
	tmux_attach();
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
	tmux_wbuf_reset();
	tmux_parse_reset(&tm.ps);
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
	tmux_lock_release();
	tmux_attach();
}

/* The timer: a client not attached by its deadline is replaced. */
static void
tmux_timer(void *arg)
{
	(void)arg;
	if ((tm.state == TMUX_STARTING || tm.state == TMUX_PROBING) &&
	    tm.attach_deadline <= now_ms())
		tmux_attach_timeout();
	tmux_timer_arm();
}

/* Set the timer for the attach's deadline while STARTING or PROBING, or
 * clear it. (The version probe and the lock keep their own.) */
static void
tmux_timer_arm(void)
{
	if (tm.timer == NULL)
		tm.timer = loop_timer_new(tmux_timer, NULL);
	loop_timer_set(tm.timer, tm.state == TMUX_STARTING ||
	    tm.state == TMUX_PROBING ? tm.attach_deadline : DEADLINE_NONE);
}

/*
 * Start the control client (and with it the server and session): from
 * DOWN to VERSION, LOCKING or STARTING. -1 with *cause if it cannot even
 * be tried; otherwise commands queue until it is READY (or fail then).
 * Robust mode's server is born with the options config.c writes.
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
	if (tmux_nofile_check(cause) == -1 ||
	    (cfg.robust && (tm.conf = config_tmux_conf(cause)) == NULL))
		goto fail;
	tmux_argv_build();
	buf_reset(&tm.rbuf);
	tmux_wbuf_reset();
	tmux_parse_reset(&tm.ps);
	free(tm.failure);
	tm.failure = NULL;
	if (!tmux_probe_usable()) {
		if (tmux_probe_start(tmux_probed, cause) == -1)
			goto fail;
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

/* Spawn the control client (tmux_client_spawn): STARTING's descriptors
 * in the loop, its deadline set. */
static int
tmux_spawn(char **cause)
{
	struct tmux_client	c;

	if (tmux_client_spawn(cfg.robust ? tm.conf : NULL, &c, cause) == -1)
		return (-1);
	tm.pid = c.pid;
	tm.in = c.in;
	tm.out = c.out;
	tm.err = c.err;
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
	char	*said = NULL, *warning, *notice;

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
		xasprintf(&warning, "tmux control client ended: %s", why);
		xasprintf(&notice, "the tmux control client ended (%s); "
		    "programs in flight read as gone", why);
		quiet_warn("tmux", warning, notice);
	}
	tmux_probe_kill();
	tm.state = exiting ? TMUX_EXITING : TMUX_DOWN;
	tm.gen++;
	tmux_lock_release();
	tmux_session_forget();
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

/* A command waiting for its answer, last in the queue. */
static struct tmux_cmd *
tmux_enqueue(tmux_cb cb, void *arg)
{
	struct tmux_cmd	*c = xcalloc(1, sizeof *c);

	c->cb = cb;
	c->arg = arg;
	if (tm.tail != NULL)
		tm.tail->next = c;
	else
		tm.head = c;
	tm.tail = c;
	return (c);
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
	c = tmux_enqueue(cb, arg);
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
	if (tm.wbuf.len == 0 && tm.wbuf_secret)
		tmux_wbuf_reset();
	tmux_update_out();
}

/*
 * A command whose line holds a secret (ask_user_secret's text, quoted
 * by the caller): as tmux_command, but sent only to a client attached
 * now (nothing kept to send later), never logged, and the write queue's
 * storage cleared once it is written or dropped. Room is made first, so
 * that commands queued behind it before it is written do not move it to
 * a new allocation and leave a copy in freed memory.
 */
void
tmux_command_secret(const char *line, tmux_cb cb, void *arg)
{
	size_t		 len = strlen(line);
	const char	*why = "the tmux control client is not attached";

	if (tm.state != TMUX_READY || !tmux_client_up()) {
		if (cb != NULL)
			cb(arg, false, why, strlen(why));
		return;
	}
	log_debug("> %.*s... (secret text not logged)",
	    (int)strcspn(line, "-"), line);
	(void)tmux_enqueue(cb, arg);
	buf_reserve(&tm.wbuf, len + 1 + TMUX_SECRET_ROOM);
	tm.wbuf_secret = true;
	buf_add(&tm.wbuf, line, len);
	buf_addc(&tm.wbuf, '\n');
	tmux_on_writable();
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

/* The loop's callback for the client's three descriptors. */
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
	if (tmux_probe_reaped(pid, status))
		return (true);
	if (pid != tm.pid)
		return (false);
	tm.pid = -1;
	if (tmux_client_up())
		tmux_dead("it exited");
	return (true);
}
