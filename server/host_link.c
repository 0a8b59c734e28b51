/*
 * host_link.c — a link to a progmux on another host: the person's
 * command (run by /bin/sh -c: ssh, docker exec -i, kubectl exec -i,
 * anything) started as a child whose standard input and output speak
 * MCP to a progmux there, and we its client, as tmux.c is tmux's.
 *
 * Nothing of our own goes on the wire: JSON-RPC lines, as any MCP
 * client writes them. The link opens with initialize, whose _meta gives
 * the far progmux the name it is known by here (io.progmux/host): its
 * ids carry it from then on ("box:p3"), so nothing it says needs to be
 * rewritten here. A far side that does not take the name (not a
 * progmux, or an older one) is not used. Our requests have their own
 * ids, answered in any order; the far side's notifications go to the
 * owner; of its requests only ping is answered.
 *
 * A link has one state, changed only here:
 *
 *   STARTING --initialize answered, the name taken--> READY
 *   STARTING --no answer in HOST_LINK_INIT_MS, or a refusal--> ENDING
 *   STARTING, READY --its output ends, a write fails, it exits--> ENDING
 *   STARTING, READY --host_link_end (we end it)--> ENDING: what is in
 *            flight is cancelled there, then its input is closed, so
 *            the far progmux, owed nothing, exits at once
 *   ENDING   --its command reaped and its output closed--> freed, the
 *            owner told how it ended (its exit status and the last line
 *            of its standard error); HOST_LINK_END_MS without that, its
 *            process group is sent SIGKILL first
 *
 * Requests made while STARTING are held and written once READY. Every
 * request still waiting when the link ends is told so, with the same
 * words, and nothing is ever retried: another link is the owner's to
 * start. The command runs in a session of its own (no terminal for ssh
 * to ask a password on; its whole group is ended together), with none
 * of progmux's settings in its environment (a far progmux started on
 * this machine is not a hub too), and dies with us (a parent-death
 * signal; without one, the end of its input ends it).
 *
 * Layer: links, beside programs; calls the loop and common, knows no
 * tool, program or request of the client.
 */
#include <sys/queue.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "cspawn.h"
#include "fdutil.h"
#include "log.h"
#include "osdep.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define HOST_LINK_INIT_MS	20000	/* initialize answered by then */
#define HOST_LINK_END_MS	2000	/* ending: gone by then, or killed */
#define HOST_LINK_LINE_MAX	(16u * 1024 * 1024)	/* one message */
#define HOST_LINK_READS		16	/* reads of its output per wakeup */
#define HOST_LINK_VERSION	"2025-06-18"	/* the version we ask for */

enum host_link_state {
	HOST_LINK_STARTING,
	HOST_LINK_READY,
	HOST_LINK_ENDING
};

/* A request of ours waiting for its answer. */
struct host_call {
	int64_t			 id;
	host_call_cb		 cb;
	void			*arg;
	TAILQ_ENTRY(host_call)	 entry;
};

struct host_link {
	char			*name;		/* as the far side knows it */
	enum host_link_state	 state;
	pid_t			 pid;		/* its command, until reaped */
	int			 status;	/* its wait status, once reaped */
	bool			 reaped;
	int			 in;		/* its output: we read */
	int			 out;		/* its input: we write */
	int			 err;		/* its standard error */
	struct buf		 rbuf, wbuf, ebuf;
	struct buf		 held;		/* written once READY */
	char			 said[HOST_LINK_SAID];	/* last stderr line */
	char			*why;		/* why we end it, if we do */
	char			 version[32];	/* the far progmux's */
	int64_t			 next_id;
	TAILQ_HEAD(, host_call)	 calls;
	struct loop_timer	*timer;
	const struct host_link_cb *cb;
	void			*owner;
	LIST_ENTRY(host_link)	 entry;
};

static LIST_HEAD(, host_link) host_links = LIST_HEAD_INITIALIZER(host_links);

static void	host_link_on_out(int, int, void *);
static void	host_link_on_in(int, int, void *);
static void	host_link_on_err(int, int, void *);
static void	host_link_ending(struct host_link *, const char *why);
static void	host_link_timer(void *);

/* In the command, before its exec: die with us (or not start if we
 * died already), and take none of our settings along. */
static int
host_link_hook(void *arg)
{
	extern char	**environ;
	pid_t		  parent = *(pid_t *)arg;
	char		  name[256];
	size_t		  i, n;

	if (osdep_parent_death(SIGTERM, parent) == -1) {
		if (errno != ENOSYS)
			return (-1);
		if (getppid() != parent) {
			errno = ESRCH;
			return (-1);
		}
	}
	for (i = 0; environ[i] != NULL;) {
		n = strcspn(environ[i], "=");
		if (n >= sizeof name || (strncmp(environ[i], "PROGMUX_", 8) !=
		    0 && strncmp(environ[i], "LIBTMUX_", 8) != 0)) {
			i++;
			continue;
		}
		memcpy(name, environ[i], n);
		name[n] = '\0';
		unsetenv(name);		/* environ[i] is the next one now */
	}
	return (0);
}

/*
 * Start /bin/sh -c command in a session of its own: its pid, and our
 * ends of its standard input (fds[0], we write), output (fds[1]) and
 * error (fds[2]); -1 with *cause.
 */
static pid_t
host_link_spawn(const char *command, int fds[3], char **cause)
{
	struct spawn		 sp;
	enum spawn_stage	 stage;
	char			*argv[4];
	int			 p[3][2], i, err;
	pid_t			 pid, parent = getpid();

	for (i = 0; i < 3; i++) {
		if (compat_pipe2(p[i], O_CLOEXEC) == 0)
			continue;
		xasprintf(cause, "pipe: %s", fd_strerror(errno));
		while (i-- > 0) {
			close(p[i][0]);
			close(p[i][1]);
		}
		return (-1);
	}
	argv[0] = (char *)"/bin/sh";
	argv[1] = (char *)"-c";
	argv[2] = (char *)command;
	argv[3] = NULL;
	memset(&sp, 0, sizeof sp);
	sp.argv = argv;
	sp.flags = SPAWN_SETSID;
	sp.fds[0] = p[0][0];
	sp.fds[1] = p[1][1];
	sp.fds[2] = p[2][1];
	sp.nfds = 3;
	sp.hook = host_link_hook;
	sp.hook_arg = &parent;
	pid = cspawn_start(&sp, &stage, &err);
	close(p[0][0]);
	close(p[1][1]);
	close(p[2][1]);
	if (pid == -1 || stage != SPAWN_OK) {
		for (i = 0; i < 3; i++)
			close(p[i][i == 0 ? 1 : 0]);
		xasprintf(cause, "cannot run /bin/sh: %s", fd_strerror(err));
		return (-1);	/* a child that failed is reaped as any */
	}
	fds[0] = p[0][1];
	fds[1] = p[1][0];
	fds[2] = p[2][0];
	for (i = 0; i < 3; i++)
		fd_nonblock(fds[i], 1);
	return (pid);
}

/* The initialize request: our name for the far side in its _meta. */
static void
host_link_initialize(struct buf *b, const char *name)
{
	buf_printf(b, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
	    "\"params\":{\"protocolVersion\":\"" HOST_LINK_VERSION "\","
	    "\"capabilities\":{},\"clientInfo\":{\"name\":\"progmux\","
	    "\"version\":\"%s\"},\"_meta\":{\"" HOST_LINK_META "\":\"%s\"}}}"
	    "\n", PROGMUX_VERSION, name);	/* (name: letters, digits) */
}

/*
 * initialize's answer (a response object): NULL if the far side took
 * name (its version in version), else why it cannot be used.
 */
static const char *
host_link_initialized(const struct json *msg, const char *name,
    char *version, size_t size)
{
	const struct json	*res = json_get(msg, "result"), *ack, *v;

	if (json_get(msg, "error") != NULL)
		return ("it refused initialize");
	ack = json_get(json_get(res, "_meta"), HOST_LINK_META);
	v = json_get(json_get(res, "serverInfo"), "version");
	snprintf(version, size, "%s", json_type(v) == JSON_STRING ?
	    json_str(v, NULL) : "?");
	if (json_type(ack) != JSON_STRING || strcmp(json_str(ack, NULL),
	    name) != 0)
		return ("it did not take the name this progmux gives it (is "
		    "it a progmux of this version? " HOST_LINK_META " in "
		    "initialize's _meta)");
	return (NULL);
}

/* Queue a line (without its newline) for the far side. */
static void
host_link_write(struct host_link *l, const char *p, size_t len)
{
	struct buf	*b = l->state == HOST_LINK_STARTING ? &l->held :
			    &l->wbuf;

	if (l->out == -1)
		return;
	buf_add(b, p, len);
	buf_addc(b, '\n');
	if (b == &l->wbuf)
		loop_fd_mask(l->out, LOOP_WRITE);
}

/*
 * Start a link to the progmux that command starts, known there as name
 * ("box", or "box.2" for a host's second link). cb tells owner what
 * happens; NULL with *cause if the command cannot be started at all.
 */
struct host_link *
host_link_start(const char *name, const char *command,
    const struct host_link_cb *cb, void *owner, char **cause)
{
	struct host_link	*l;
	int			 fds[3];
	pid_t			 pid;

	if ((pid = host_link_spawn(command, fds, cause)) == -1)
		return (NULL);
	l = xcalloc(1, sizeof *l);
	l->name = xstrdup(name);
	l->pid = pid;
	l->out = fds[0];
	l->in = fds[1];
	l->err = fds[2];
	l->next_id = 1;
	l->cb = cb;
	l->owner = owner;
	TAILQ_INIT(&l->calls);
	LIST_INSERT_HEAD(&host_links, l, entry);
	loop_fd_add(l->in, LOOP_READ, host_link_on_in, l);
	loop_fd_add(l->out, 0, host_link_on_out, l);
	loop_fd_add(l->err, LOOP_READ, host_link_on_err, l);
	l->timer = loop_timer_new(host_link_timer, l);
	loop_timer_set(l->timer, now_ms() + HOST_LINK_INIT_MS);
	host_link_initialize(&l->wbuf, name);
	loop_fd_mask(l->out, LOOP_WRITE);
	log_debug("%s: started %ld: %s", name, (long)pid, command);
	return (l);
}

/* May it be asked things (not ending)? */
bool
host_link_usable(const struct host_link *l)
{
	return (l->state != HOST_LINK_ENDING);
}

/* The id its next request gets (a progress token written before it). */
int64_t
host_link_next_id(const struct host_link *l)
{
	return (l->next_id);
}

/* The far progmux's version, once ready. */
const char *
host_link_version(const struct host_link *l)
{
	return (l->version);
}

/*
 * Ask the far side method with params (a JSON object's text); cb(arg,
 * response) once it answers, or cb(arg, NULL, why) if the link ends
 * first. Our id for it (the progress token it may carry), or -1 if the
 * link is ending (cb is not called).
 */
int64_t
host_link_call(struct host_link *l, const char *method, const char *params,
    size_t len, host_call_cb cb, void *arg)
{
	struct host_call	*c;
	struct buf		 b = BUF_INIT;

	if (l->state == HOST_LINK_ENDING)
		return (-1);
	c = xcalloc(1, sizeof *c);
	c->id = l->next_id++;
	c->cb = cb;
	c->arg = arg;
	TAILQ_INSERT_TAIL(&l->calls, c, entry);
	buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"%s\","
	    "\"params\":", (long long)c->id, method);
	buf_add(&b, params, len);
	buf_addc(&b, '}');
	host_link_write(l, b.data, b.len);
	buf_free(&b);
	return (c->id);
}

/* The call with our id, or NULL. */
static struct host_call *
host_link_find(struct host_link *l, int64_t id)
{
	struct host_call	*c;

	TAILQ_FOREACH(c, &l->calls, entry)
		if (c->id == id)
			return (c);
	return (NULL);
}

/* Send notifications/cancelled for our request id. */
static void
host_link_cancel(struct host_link *l, int64_t id, const char *reason)
{
	struct buf	b = BUF_INIT;

	buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
	    "cancelled\",\"params\":{\"requestId\":%lld,\"reason\":",
	    (long long)id);
	json_put_string(&b, reason, strlen(reason));
	buf_adds(&b, "}}");
	host_link_write(l, b.data, b.len);
	buf_free(&b);
}

/* The caller lets go of its request id: nothing more is told of it,
 * and with cancel the far side is told to let go too. */
void
host_link_forget(struct host_link *l, int64_t id, bool cancel)
{
	struct host_call	*c;

	if ((c = host_link_find(l, id)) == NULL)
		return;
	TAILQ_REMOVE(&l->calls, c, entry);
	free(c);
	if (cancel)
		host_link_cancel(l, id, "the client let go of the call");
}

/* Tell every request still waiting that the link ended (why). */
static void
host_link_fail_calls(struct host_link *l, const char *why)
{
	struct host_call	*c;

	while ((c = TAILQ_FIRST(&l->calls)) != NULL) {
		TAILQ_REMOVE(&l->calls, c, entry);
		c->cb(c->arg, NULL, why);
		free(c);
	}
}

/* How the command ended, and the last thing it said, into b. */
static void
host_link_end_text(struct host_link *l, struct buf *b)
{
	const char	*sig;

	if (l->why != NULL)
		buf_printf(b, "%s; ", l->why);
	if (!l->reaped)
		buf_adds(b, "its command did not exit and was killed");
	else if (WIFEXITED(l->status))
		buf_printf(b, "its command exited with status %d",
		    WEXITSTATUS(l->status));
	else if (WIFSIGNALED(l->status)) {
		sig = compat_sigabbrev(WTERMSIG(l->status));
		if (sig != NULL)
			buf_printf(b, "its command was killed by SIG%s", sig);
		else
			buf_printf(b, "its command was killed by signal %d",
			    WTERMSIG(l->status));
	} else
		buf_adds(b, "its command ended");
	if (l->said[0] != '\0')
		buf_printf(b, ": \"%s\"", l->said);
}

/* Close one of our ends of it. */
static void
host_link_close_fd(int *fd)
{
	if (*fd == -1)
		return;
	loop_fd_del(*fd);
	close(*fd);
	*fd = -1;
}

static void	host_link_read_err(struct host_link *);

/*
 * Done with it, once ENDING, its command reaped and its output closed:
 * every request still waiting and the owner are told how it ended;
 * then it is freed.
 */
static void
host_link_free_dead(struct host_link *l)
{
	struct buf	b = BUF_INIT;

	host_link_read_err(l);
	host_link_close_fd(&l->in);
	host_link_close_fd(&l->out);
	host_link_close_fd(&l->err);
	host_link_end_text(l, &b);
	log_debug("%s: ended: %s", l->name, buf_cstr(&b));
	host_link_fail_calls(l, buf_cstr(&b));
	LIST_REMOVE(l, entry);
	loop_timer_free(l->timer);
	if (l->cb->ended != NULL)
		l->cb->ended(l->owner, buf_cstr(&b));
	buf_free(&b);
	buf_free(&l->rbuf);
	buf_free(&l->wbuf);
	buf_free(&l->ebuf);
	buf_free(&l->held);
	free(l->why);
	free(l->name);
	free(l);
}

/*
 * Its timer: initialize unanswered (STARTING); ENDING, its command not
 * gone in HOST_LINK_END_MS (its group is killed); or its command reaped:
 * done with it (freed here, out of any callback of its own).
 */
static void
host_link_timer(void *arg)
{
	struct host_link	*l = arg;

	if (l->state == HOST_LINK_STARTING) {
		host_link_end(l, "it did not answer initialize within 20 s");
		return;
	}
	if (l->state != HOST_LINK_ENDING)
		return;
	if (!l->reaped) {
		log_debug("%s: %ld still there: killed", l->name, (long)l->pid);
		kill(-l->pid, SIGKILL);
		kill(l->pid, SIGKILL);
		loop_timer_set(l->timer, now_ms() + HOST_LINK_END_MS);
		return;
	}
	host_link_free_dead(l);
}

/*
 * It ends: from now on nothing new is asked. why (NULL: its side ended)
 * is ours to say. Its input is closed, so a far progmux still reading
 * it has nothing more to wait for; HOST_LINK_END_MS on, it is killed.
 */
static void
host_link_ending(struct host_link *l, const char *why)
{
	if (l->state == HOST_LINK_ENDING)
		return;
	l->state = HOST_LINK_ENDING;
	if (why != NULL && l->why == NULL)
		l->why = xstrdup(why);
	log_debug("%s: ending%s%s", l->name, why ? ": " : "", why ? why : "");
	if (l->wbuf.len > 0 && l->out != -1)
		(void)fd_flush(l->out, &l->wbuf);	/* (cancellations) */
	host_link_close_fd(&l->out);
	buf_reset(&l->held);
	loop_timer_set(l->timer, now_ms() + (l->reaped ? 0 : HOST_LINK_END_MS));
}

/*
 * We end the link: every request in flight is cancelled there first
 * (and told why here), so the far progmux has nothing left to answer
 * when its input ends.
 */
void
host_link_end(struct host_link *l, const char *why)
{
	struct host_call	*c;

	if (l->state == HOST_LINK_ENDING)
		return;
	TAILQ_FOREACH(c, &l->calls, entry)
		if (l->state == HOST_LINK_READY)
			host_link_cancel(l, c->id, why);
	host_link_fail_calls(l, why);
	host_link_ending(l, why);
}

/* Its standard error: each line logged, the last one kept. */
static void
host_link_read_err(struct host_link *l)
{
	char	*nl, *p;
	ssize_t	 n = -1;

	while (l->err != -1 && (n = fd_read_into(l->err, &l->ebuf, 4096)) >
	    0) {
		while ((nl = memchr(l->ebuf.data, '\n', l->ebuf.len)) !=
		    NULL) {
			*nl = '\0';
			for (p = l->ebuf.data; *p == ' ' || *p == '\r'; p++)
				;
			if (*p != '\0') {
				log_debug("%s: %s", l->name, p);
				snprintf(l->said, sizeof l->said, "%s", p);
			}
			buf_drain(&l->ebuf, (size_t)(nl - l->ebuf.data) + 1);
		}
		if (l->ebuf.len > sizeof l->said)	/* no line end: cut */
			buf_reset(&l->ebuf);
	}
	if (l->err != -1 && n == 0)
		host_link_close_fd(&l->err);
}

/* Its standard error is readable. */
static void
host_link_on_err(int fd, int fired, void *arg)
{
	(void)fd;
	(void)fired;
	host_link_read_err(arg);
}

/* Its input takes more. */
static void
host_link_on_out(int fd, int fired, void *arg)
{
	struct host_link	*l = arg;

	(void)fired;
	if (fd_flush(fd, &l->wbuf) == -1) {
		log_debug("%s: writing: %s", l->name, strerror(errno));
		host_link_ending(l, NULL);
		return;
	}
	if (l->wbuf.len == 0)
		loop_fd_mask(fd, 0);
}

/* A request of the far side's: ping is answered; nothing else is ours
 * to answer. */
static void
host_link_request(struct host_link *l, const struct json *msg)
{
	const struct json	*id = json_get(msg, "id");
	const char		*raw, *m = json_str(json_get(msg, "method"),
				    NULL);
	struct buf		 b = BUF_INIT;
	size_t			 len;

	raw = json_raw(id, &len);
	buf_adds(&b, "{\"jsonrpc\":\"2.0\",\"id\":");
	buf_add(&b, raw, len);
	if (strcmp(m, "ping") == 0)
		buf_adds(&b, ",\"result\":{}}");
	else
		buf_adds(&b, ",\"error\":{\"code\":-32601,\"message\":"
		    "\"method not found: progmux asks nothing of a host's "
		    "client but answers\"}}");
	host_link_write(l, b.data, b.len);
	buf_free(&b);
}

/* initialize was answered: READY, or why not. */
static void
host_link_answered_init(struct host_link *l, const struct json *msg)
{
	static const char	 done[] = "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"}";
	const char		*why;

	why = host_link_initialized(msg, l->name, l->version,
	    sizeof l->version);
	if (why != NULL) {
		host_link_end(l, why);
		return;
	}
	l->state = HOST_LINK_READY;
	loop_timer_clear(l->timer);
	host_link_write(l, done, sizeof done - 1);
	buf_add(&l->wbuf, l->held.data, l->held.len);
	buf_reset(&l->held);
	loop_fd_mask(l->out, LOOP_WRITE);
	log_debug("%s: ready (progmux %s)", l->name, l->version);
	if (l->cb->ready != NULL)
		l->cb->ready(l->owner);
}

/* One message from the far side. */
static void
host_link_message(struct host_link *l, const struct json *msg)
{
	const struct json	*id = json_get(msg, "id");
	const struct json	*method = json_get(msg, "method");
	struct host_call	*c;

	if (json_type(method) == JSON_STRING) {
		if (id != NULL)
			host_link_request(l, msg);
		else if (l->cb->notify != NULL)
			l->cb->notify(l->owner, json_str(method, NULL),
			    json_get(msg, "params"));
		return;
	}
	if (json_type(id) != JSON_NUMBER || !json_is_int(id))
		return;		/* not an answer to us */
	if (json_int(id) == 0 && l->state == HOST_LINK_STARTING) {
		host_link_answered_init(l, msg);
		return;
	}
	if ((c = host_link_find(l, json_int(id))) == NULL)
		return;		/* let go of: its answer goes nowhere */
	TAILQ_REMOVE(&l->calls, c, entry);
	c->cb(c->arg, msg, NULL);
	free(c);
}

/* A line from the far side. */
static void
host_link_line(struct host_link *l, const char *p, size_t len)
{
	struct json_doc	*doc;
	char		*cause = NULL;

	while (len > 0 && (p[len - 1] == '\r' || p[len - 1] == ' '))
		len--;
	if (len == 0)
		return;
	if ((doc = json_parse(p, len, &cause)) == NULL) {
		log_warn("%s: a line that is not JSON (%s): %.*s", l->name,
		    cause, (int)(len > 200 ? 200 : len), p);
		free(cause);
		return;
	}
	if (json_type(json_root(doc)) == JSON_OBJECT)
		host_link_message(l, json_root(doc));
	json_doc_free(doc);
}

/* Its output: lines, a bounded number of reads per wakeup. */
static void
host_link_on_in(int fd, int fired, void *arg)
{
	struct host_link	*l = arg;
	char			*nl;
	size_t			 off;
	ssize_t			 n = 1;
	int			 rounds = 0;

	(void)fired;
	while (rounds++ < HOST_LINK_READS &&
	    (n = fd_read_into(fd, &l->rbuf, 64 * 1024)) > 0) {
		off = 0;
		while ((nl = memchr(l->rbuf.data + off, '\n', l->rbuf.len -
		    off)) != NULL) {
			host_link_line(l, l->rbuf.data + off,
			    (size_t)(nl - l->rbuf.data) - off);
			off = (size_t)(nl - l->rbuf.data) + 1;
		}
		buf_drain(&l->rbuf, off);
		if (l->rbuf.len > HOST_LINK_LINE_MAX) {
			host_link_end(l, "it sent a line of more than 16 MiB");
			buf_reset(&l->rbuf);
		}
	}
	if (n != 0)
		return;		/* (EAGAIN, or more next turn) */
	log_debug("%s: its output ended", l->name);
	host_link_close_fd(&l->in);
	host_link_ending(l, NULL);
}

/* A child exited: one of ours? What it wrote last is read first; it is
 * done with on the next turn. */
bool
host_links_reaped(pid_t pid, int status)
{
	struct host_link	*l;

	LIST_FOREACH(l, &host_links, entry) {
		if (l->pid != pid || l->reaped)
			continue;
		l->reaped = true;
		l->status = status;
		log_debug("%s: its command %ld exited", l->name, (long)pid);
		if (l->in != -1)
			host_link_on_in(l->in, LOOP_READ, l);
		host_link_ending(l, NULL);
		loop_timer_set(l->timer, now_ms());
		return (true);
	}
	return (false);
}

/* Exiting: every link ends (its requests cancelled there first). */
void
host_links_shutdown(void)
{
	struct host_link	*l;

	LIST_FOREACH(l, &host_links, entry)
		host_link_end(l, "progmux is exiting");
}

/* The exit's deadline passed: whatever is left of the links is killed. */
void
host_links_kill(void)
{
	struct host_link	*l;

	LIST_FOREACH(l, &host_links, entry)
		if (!l->reaped) {
			kill(-l->pid, SIGKILL);
			kill(l->pid, SIGKILL);
		}
}

/* Are links still there (not yet reaped)? */
bool
host_links_alive(void)
{
	return (!LIST_EMPTY(&host_links));
}

/*
 * --check: start command, ask initialize (name as a hub gives it),
 * and end it; waits, out of the loop, up to wait_ms. 0 with the far
 * progmux's version in version, or -1 with *cause.
 */
int
host_link_check(const char *name, const char *command, int64_t wait_ms,
    char *version, size_t size, char **cause)
{
	struct pollfd		 pfd[2];
	struct buf		 w = BUF_INIT, r = BUF_INIT, e = BUF_INIT;
	struct json_doc		*doc = NULL;
	const char		*why = NULL;
	char			*nl, last[HOST_LINK_SAID] = "";
	int			 fds[3], st = 0, n;
	int64_t			 deadline = now_ms() + wait_ms;
	pid_t			 pid;
	bool			 reaped = false;

	if ((pid = host_link_spawn(command, fds, cause)) == -1)
		return (-1);
	host_link_initialize(&w, name);
	signal(SIGPIPE, SIG_IGN);	/* (a command gone already) */
	(void)fd_write_all(fds[0], w.data, w.len);
	buf_free(&w);
	while (doc == NULL && fds[1] != -1 && now_ms() < deadline) {
		pfd[0] = (struct pollfd){ fds[1], POLLIN, 0 };
		pfd[1] = (struct pollfd){ fds[2], POLLIN, 0 };
		if ((n = poll(pfd, 2, poll_timeout(deadline))) <= 0)
			continue;
		while (fd_read_into(fds[2], &e, 4096) > 0)
			;
		if (fd_read_into(fds[1], &r, 64 * 1024) == 0) {
			close(fds[1]);
			fds[1] = -1;
		}
		while (doc == NULL && (nl = memchr(r.data, '\n', r.len)) !=
		    NULL) {
			doc = json_parse(r.data, (size_t)(nl - r.data), NULL);
			if (doc != NULL && json_get(json_root(doc), "id") ==
			    NULL) {
				json_doc_free(doc);	/* a notification */
				doc = NULL;
			}
			buf_drain(&r, (size_t)(nl - r.data) + 1);
		}
	}
	close(fds[0]);		/* its input ends: it exits */
	if (doc != NULL)
		why = host_link_initialized(json_root(doc), name, version,
		    size);
	deadline = now_ms() + HOST_LINK_END_MS;
	while (!reaped && now_ms() < deadline) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			reaped = true;
		else
			usleep(10000);
	}
	if (!reaped) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	while (fd_read_into(fds[2], &e, 4096) > 0)
		;
	for (buf_cstr(&e), nl = strtok(e.data, "\n"); nl != NULL;
	    nl = strtok(NULL, "\n"))
		snprintf(last, sizeof last, "%s", nl);
	if (doc == NULL) {
		if (!reaped)
			xasprintf(cause, "no answer to initialize within "
			    "%lld ms%s%s", (long long)wait_ms, *last ? ": " :
			    "", last);
		else if (WIFEXITED(st))
			xasprintf(cause, "its command exited with status %d "
			    "before answering%s%s", WEXITSTATUS(st), *last ?
			    ": " : "", last);
		else
			xasprintf(cause, "its command was killed by signal %d "
			    "before answering%s%s", WIFSIGNALED(st) ?
			    WTERMSIG(st) : 0, *last ? ": " : "", last);
	} else if (why != NULL)
		xasprintf(cause, "%s", why);
	n = doc == NULL || why != NULL ? -1 : 0;
	json_doc_free(doc);
	if (fds[1] != -1)
		close(fds[1]);
	close(fds[2]);
	buf_free(&r);
	buf_free(&e);
	return (n);
}
