/*
 * tool_pane.c — capture_pane and send_keys: tmux panes as a person sees
 * and types into them.
 *
 * Both go over the control client. The pane id passed the schema's
 * ^%\d+$; the keys are one word quoted for tmux's parser (tmux_quote), so
 * no text can become a tmux command. Neither acts on the pane progmux
 * itself runs in, unless send_keys is forced: $TMUX_PANE when $TMUX names
 * the server in use, or else the pane whose process is progmux or one of
 * its ancestors (/proc), as list-panes tells the panes' processes, for a
 * client may pass no TMUX at all. The panes are listed again when a
 * paneId is asked about that the last list did not hold; the call waits
 * for that answer. While tmux answers, a request's state is its struct
 * tool_pane_op; keys for a program of ours not yet running wait as a
 * waiter on that program (program_wait). With timeoutMs on a program's
 * pane, once tmux took the keys the request waits for the program's
 * reply as a read does (tool_read_reply), from the start of the line the
 * keys were typed into; on a pane showing its alternate screen (tmux's
 * #{alternate_on}, asked just before the keys), the reply is the screen
 * once it settled, as capture_pane renders it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "osdep.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

/* send_keys to a program not yet started waits this long at most. */
#define TOOL_PANE_HOLD_MS	5000
#define TOOL_PANE_CAPTURE_CHARS	100000	/* characters a capture returns */
#define TOOL_PANE_ANCESTRY_MAX	128	/* generations walked up in /proc */

/*
 * The panes of the server in use as list-panes last told them (" %1 %4 "),
 * and which of them progmux runs in, found by its processes' ancestry.
 */
static struct {
	bool		 listed;
	unsigned	 gen;		/* tmux_generation() then */
	char		*ids;
	char		*own;		/* or NULL */
} tool_pane_seen;

/* pid's parent; 0 if it cannot be read. */
static pid_t
tool_pane_parent(pid_t pid)
{
	struct osdep_proc	p;

	return (osdep_proc(pid, &p) == 0 ? p.ppid : 0);
}

/* Is pid progmux itself or one of its ancestors? */
static bool
tool_pane_ancestor(const pid_t *line, size_t n, pid_t pid)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (line[i] == pid)
			return (true);
	return (false);
}

/* Learn the panes from list-panes' "%ID PID" lines. */
static void
tool_pane_learn(const char *out, size_t len)
{
	pid_t		 line[TOOL_PANE_ANCESTRY_MAX];
	struct buf	 ids = BUF_INIT;
	const char	*p = out, *end = out + len, *nl, *sp;
	size_t		 n = 0;
	long		 pid;

	/* progmux and its ancestors now, up to init. */
	line[n++] = getpid();
	while (n < TOOL_PANE_ANCESTRY_MAX && line[n - 1] > 1 &&
	    (line[n] = tool_pane_parent(line[n - 1])) > 0)
		n++;
	free(tool_pane_seen.own);
	tool_pane_seen.own = NULL;
	buf_addc(&ids, ' ');
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (*p != '%' || (sp = memchr(p, ' ', (size_t)(nl - p))) ==
		    NULL)
			continue;
		buf_add(&ids, p, (size_t)(sp - p + 1));
		pid = strtol(sp + 1, NULL, 10);
		if (pid > 0 && tool_pane_seen.own == NULL &&
		    tool_pane_ancestor(line, n, (pid_t)pid))
			tool_pane_seen.own = xstrndup(p, (size_t)(sp - p));
	}
	free(tool_pane_seen.ids);
	tool_pane_seen.ids = xstrdup(buf_cstr(&ids));
	buf_free(&ids);
	tool_pane_seen.listed = true;
	tool_pane_seen.gen = tmux_generation();
	if (tool_pane_seen.own != NULL)
		log_debug("this server runs in pane %s", tool_pane_seen.own);
}

/* Did the last list of panes hold this one? */
static bool
tool_pane_listed(const char *pane)
{
	char	*probe;
	bool	 yes;

	if (!tool_pane_seen.listed || tool_pane_seen.gen != tmux_generation())
		return (false);
	xasprintf(&probe, " %s ", pane);
	yes = strstr(tool_pane_seen.ids, probe) != NULL;
	free(probe);
	return (yes);
}

/* Does $TMUX_PANE, on the server in use, name this pane? */
static bool
tool_pane_is_env(const char *pane)
{
	const char	*own = getenv("TMUX_PANE"), *tmux = getenv("TMUX");

	if (cfg.robust || own == NULL || tmux == NULL ||
	    strcmp(own, pane) != 0)
		return (false);
	/* $TMUX is "socket,pid,session": only our server's pane counts. */
	if (cfg.socket_path != NULL)
		return (strncmp(tmux, cfg.socket_path,
		    strlen(cfg.socket_path)) == 0 &&
		    tmux[strlen(cfg.socket_path)] == ',');
	if (cfg.socket_name != NULL) {
		const char *comma = strchr(tmux, ','), *slash;

		for (slash = comma; slash > tmux && *slash != '/'; slash--)
			;
		return (comma != NULL && (size_t)(comma - slash - 1) ==
		    strlen(cfg.socket_name) && strncmp(slash + 1,
		    cfg.socket_name, strlen(cfg.socket_name)) == 0);
	}
	return (true);
}

/*
 * Is paneId the pane this server runs in? A private server (robust mode)
 * was made after progmux started: none of its panes can hold progmux.
 */
static bool
tool_pane_is_ours(const char *pane)
{
	if (cfg.robust)
		return (false);
	if (tool_pane_is_env(pane))
		return (true);
	return (tool_pane_listed(pane) && tool_pane_seen.own != NULL &&
	    strcmp(tool_pane_seen.own, pane) == 0);
}

/* A pending capture or send: the request and what it asked. */
struct tool_pane_op {
	struct req	*req;		/* NULL once cancelled */
	struct program	*held;		/* keys held until it runs */
	char		*pane;
	int64_t		 max_lines;
	char		*keys;		/* send_keys: what to type */
	size_t		 keys_len;
	bool		 literal;
	bool		 enter;
	/* While the panes are listed: the call to run then, on a copy of
	 * its arguments. */
	void		(*then)(struct req *, const struct json *);
	struct json_doc	*args;
	int64_t		 wait_ms;	/* send_keys' timeoutMs */
	int64_t		 deadline;	/* when that wait ends */
	uint64_t	 prog;		/* the program whose pane it is, or 0 */
	size_t		 typed_from;	/* where the line typed into began */
	bool		 alt;		/* the pane showed its alternate
					   screen when the keys went */
};

static const struct tool_entry tool_pane_reply_entry;
static void	tool_pane_op_free(struct tool_pane_op *);
static void	tool_pane_send_issue(struct tool_pane_op *);
static void	tool_pane_event(struct program *, enum program_event, void *);

/* Park req for tmux's answer to op. */
static void
tool_pane_park(struct req *req, struct tool_pane_op *op)
{
	tools_set_state(req, op);
	op->req = req;
}

/* Answer op's request with res (if it still waits). */
static void
tool_pane_reply(struct tool_pane_op *op, struct toolres *res)
{
	if (op->req == NULL)
		return;
	tools_set_state(op->req, NULL);
	tools_reply(op->req, res);
	op->req = NULL;
}

/* Free an operation tmux no longer answers. */
static void
tool_pane_op_free(struct tool_pane_op *op)
{
	free(op->pane);
	free(op->keys);
	json_doc_free(op->args);
	free(op);
}

/*
 * Keys held for a program that had not yet started: it runs now (or
 * ended, or is being removed, or the wait ran out). Type them.
 */
static void
tool_pane_release(struct tool_pane_op *op)
{
	program_unwait(op->held, tool_pane_event, op);
	op->held = NULL;
	tools_set_deadline(op->req, DEADLINE_NONE);
	tool_pane_send_issue(op);
}

/* What the program tells held keys. */
static void
tool_pane_event(struct program *p, enum program_event ev, void *arg)
{
	if (ev == PROGRAM_DROP || ev == PROGRAM_LAUNCHED || program_ended(p))
		tool_pane_release(arg);	/* tmux says if the pane is gone */
}

/* The client cancelled: the operation finishes with nobody to tell. */
static void
tool_pane_cancel(struct req *req)
{
	struct tool_pane_op	*op = tools_state(req);

	if (op == NULL)
		return;
	tools_set_state(req, NULL);
	if (op->held != NULL) {
		/* Held, not yet sent: no tmux callback will free it. */
		program_unwait(op->held, tool_pane_event, op);
		tool_pane_op_free(op);
	} else
		op->req = NULL;
}

/* The hold ran out: type the keys now. */
static void
tool_pane_timeout(struct req *req)
{
	struct tool_pane_op	*op = tools_state(req);

	if (op != NULL && op->held != NULL)
		tool_pane_release(op);
}

/* tmux's error text as the tool's error. */
static void
tool_pane_fail(struct tool_pane_op *op, const char *what, const char *out)
{
	struct toolres	res;

	toolres_init(&res);
	if (strstr(out, "can't find") != NULL)
		toolres_error(&res, "%s: no pane %s on this tmux server (%s); "
		    "list panes with list_programs or `tmux list-panes -a`",
		    what, op->pane, out);
	else
		toolres_error(&res, "%s on %s failed: %s", what, op->pane, out);
	tool_pane_reply(op, &res);
	toolres_free(&res);
}

/* capture-pane answered. */
static void
tool_pane_captured(void *arg, bool ok, const char *out, size_t len)
{
	struct tool_pane_op	*op = arg;
	struct toolres	 res;
	const char	*start, *p;
	size_t		 total = 0, dropped = 0, i;
	bool		 cut = false;

	if (op->req == NULL) {
		tool_pane_op_free(op);
		return;
	}
	if (!ok) {
		tool_pane_fail(op, "capture_pane", out);
		tool_pane_op_free(op);
		return;
	}
	/* Trailing empty lines are the unused bottom of the screen. */
	while (len > 0 && out[len - 1] == '\n')
		len--;
	if (len > 0)
		for (total = 1, i = 0; i < len; i++)
			if (out[i] == '\n')
				total++;
	start = out;
	if (op->max_lines > 0 && total > (size_t)op->max_lines) {
		dropped = total - (size_t)op->max_lines;
		for (i = 0, p = out; i < dropped; i++)
			p = memchr(p, '\n', (size_t)(out + len - p)) + 1;
		start = p;
	}
	/* At most the last TOOL_PANE_CAPTURE_CHARS characters, whole lines
	 * (a long history, a huge pane). */
	for (i = 0, p = out + len; p > start && i < TOOL_PANE_CAPTURE_CHARS;
	    i += ((unsigned char)*--p & 0xc0) != 0x80)
		;
	if (p > start) {
		cut = true;
		while (start < p) {
			start = memchr(start, '\n', (size_t)(out + len - start));
			start = start != NULL ? start + 1 : out + len;
			dropped++;
		}
	}
	toolres_init(&res);
	jw_obj_begin(&res.w);
	jw_key(&res.w, "paneId");
	jw_str(&res.w, op->pane);
	jw_key(&res.w, "text");
	jw_strn(&res.w, start, (size_t)(out + len - start));
	jw_key(&res.w, "totalLines");
	jw_int(&res.w, (int64_t)total);
	jw_key(&res.w, "droppedLines");
	jw_int(&res.w, (int64_t)dropped);
	jw_obj_end(&res.w);
	buf_add(&res.text, start, (size_t)(out + len - start));
	buf_printf(&res.text, "\n[%s: %zu lines", op->pane, total - dropped);
	if (dropped > 0)
		buf_printf(&res.text, ", the first %zu of %zu left out by %s",
		    dropped, total, cut ? "the bound of 100,000 characters a "
		    "capture returns" : "maxLines");
	buf_addc(&res.text, ']');
	tool_pane_reply(op, &res);
	toolres_free(&res);
	tool_pane_op_free(op);
}

/* capture_pane. */
static void
tool_pane_capture(struct req *req, const struct json *args)
{
	struct tool_pane_op	*op;
	struct toolres	 res;
	struct buf	 b = BUF_INIT;
	char		 id[TOOLS_PANE_ID_MAX];
	const char	*pane = tools_arg_pane(args, "paneId", id);

	if (tool_pane_is_ours(pane)) {
		toolres_init(&res);
		toolres_error(&res, "capture_pane: %s is the pane this server "
		    "runs in; capture another pane", pane);
		tools_reply(req, &res);
		toolres_free(&res);
		return;
	}
	op = xcalloc(1, sizeof *op);
	op->pane = xstrdup(pane);
	op->max_lines = tools_arg_int(args, "maxLines", 0);
	buf_printf(&b, "capture-pane -p -t %s", pane);
	if (json_get(args, "start") != NULL)
		buf_printf(&b, " -S %lld",
		    (long long)tools_arg_int(args, "start", 0));
	if (json_get(args, "end") != NULL)
		buf_printf(&b, " -E %lld",
		    (long long)tools_arg_int(args, "end", 0));
	if (tools_arg_bool(args, "joinWrapped", false))
		buf_adds(&b, " -J");
	tool_pane_park(req, op);
	tmux_command(buf_cstr(&b), tool_pane_captured, op);
	buf_free(&b);
}

/* The last send-keys answered. */
static void
tool_pane_sent(void *arg, bool ok, const char *out, size_t len)
{
	struct tool_pane_op	*op = arg;
	struct program	*p = op->prog != 0 ? program_by_seq(op->prog) : NULL;
	struct toolres	 res;
	struct req	*req;

	(void)len;
	if (op->req == NULL) {
		tool_pane_op_free(op);
		return;
	}
	if (!ok) {
		tool_pane_fail(op, "send_keys", out);
		tool_pane_op_free(op);
		return;
	}
	if (p != NULL)
		program_keys_sent(p);	/* now in its terminal */
	if (op->wait_ms > 0 && p != NULL) {
		req = op->req;
		tools_set_state(req, NULL);
		op->req = NULL;
		tools_set_entry(req, &tool_pane_reply_entry);
		tool_read_reply(req, p, op->pane, op->typed_from, op->wait_ms,
		    op->deadline, op->alt);
		tool_pane_op_free(op);
		return;
	}
	toolres_init(&res);
	jw_obj_begin(&res.w);
	jw_key(&res.w, "paneId");
	jw_str(&res.w, op->pane);
	jw_key(&res.w, "sent");
	jw_bool(&res.w, true);
	jw_obj_end(&res.w);
	buf_printf(&res.text, "sent to %s%s", op->pane, op->enter ?
	    ", then Enter" : "");
	if (op->wait_ms > 0)
		buf_printf(&res.text, "; timeoutMs was not waited: %s is not "
		    "the pane of a program progmux started, so there is no "
		    "reply to read (capture_pane shows its screen)", op->pane);
	tool_pane_reply(op, &res);
	toolres_free(&res);
	tool_pane_op_free(op);
}

/* display-message answered: is the pane on its alternate screen? */
static void
tool_pane_alt(void *arg, bool ok, const char *out, size_t len)
{
	struct tool_pane_op	*op = arg;

	op->alt = ok && len > 0 && out[0] == '1';
}

/* The first command's failure is what counts; later ones follow it. */
static void
tool_pane_send_step(void *arg, bool ok, const char *out, size_t len)
{
	struct tool_pane_op	*op = arg;

	(void)len;
	if (!ok)
		tool_pane_fail(op, "send_keys", out);	/* the rest is moot */
}

/*
 * Type op's keys: send-keys, then Enter. tool_pane_sent frees op, and a
 * callback may run at once (tmux not there): after the last command that
 * gets it, op is not touched.
 */
static void
tool_pane_send_issue(struct tool_pane_op *op)
{
	struct buf	 b = BUF_INIT;
	struct program	*p;
	bool		 enter = op->enter;
	size_t		 len = op->keys_len;

	/* The reply is read from the start of the line typed into. */
	if ((p = program_by_pane(op->pane)) != NULL) {
		op->prog = program_seq(p);
		op->typed_from = textbuf_line_start(program_text(p));
		program_keys_sent(p);
	}
	/* A full-screen program's reply is its screen: is it on one? Asked
	 * first, so it is known when the keys' answer comes. */
	if (p != NULL && op->wait_ms > 0) {
		buf_printf(&b, "display-message -p -t %s ", op->pane);
		tmux_quote(&b, "#{alternate_on}");
		tmux_command(buf_cstr(&b), tool_pane_alt, op);
		buf_reset(&b);
	}

	if (len > 0) {
		buf_printf(&b, "send-keys -t %s%s -- ", op->pane, op->literal ?
		    " -l" : "");
		tmux_quote(&b, op->keys);
		tmux_command(buf_cstr(&b), enter ? tool_pane_send_step :
		    tool_pane_sent, op);
		buf_reset(&b);
	}
	if (enter || len == 0) {	/* op is still ours */
		buf_printf(&b, "send-keys -t %s%s", op->pane, enter ? " Enter" :
		    "");
		tmux_command(buf_cstr(&b), tool_pane_sent, op);
	}
	buf_free(&b);
}

/* send_keys. */
static void
tool_pane_send(struct req *req, const struct json *args)
{
	struct tool_pane_op	*op;
	struct program	*p;
	struct toolres	 res;
	char		 id[TOOLS_PANE_ID_MAX];
	const char	*pane = tools_arg_pane(args, "paneId", id), *keys;
	size_t		 len;

	keys = tools_arg_str(args, "keys", &len);
	toolres_init(&res);
	if (tool_pane_is_ours(pane) &&
	    !tools_arg_bool(args, "force", false)) {
		toolres_error(&res, "send_keys: %s is the pane this server "
		    "runs in; typing there would reach the agent's own "
		    "terminal. Pass force: true if that is really meant", pane);
		goto fail;
	}
	if (memchr(keys, '\0', len) != NULL) {
		toolres_error(&res, "send_keys: keys contain a NUL character, "
		    "which a terminal cannot be sent");
		goto fail;
	}
	toolres_free(&res);
	op = xcalloc(1, sizeof *op);
	op->pane = xstrdup(pane);
	op->keys = xmemdup(keys, len + 1);
	op->keys_len = len;
	op->literal = tools_arg_bool(args, "literal", false);
	op->enter = tools_arg_bool(args, "enter", true);
	op->wait_ms = tools_arg_int(args, "timeoutMs", 0);
	if (op->wait_ms > cfg.wait_max_ms)
		op->wait_ms = cfg.wait_max_ms;
	op->deadline = now_ms() + op->wait_ms;
	tool_pane_park(req, op);
	/*
	 * A program of ours whose pane exists but which has not yet been
	 * started: until it runs, its terminal belongs to the launcher and
	 * a C-c typed now would reach no program. Hold the keys until it
	 * runs (or ends, or TOOL_PANE_HOLD_MS pass).
	 */
	if ((p = program_by_pane(pane)) != NULL && !program_launched(p) &&
	    !program_ended(p)) {
		op->held = p;
		program_wait(p, tool_pane_event, op);
		tools_set_deadline(req, now_ms() + TOOL_PANE_HOLD_MS);
		return;
	}
	tool_pane_send_issue(op);
	return;
fail:
	tools_reply(req, &res);
	toolres_free(&res);
}

/* list-panes answered: the call goes on, knowing the panes. */
static void
tool_pane_panes(void *arg, bool ok, const char *out, size_t len)
{
	struct tool_pane_op	*op = arg;
	struct req		*req = op->req;

	if (ok)
		tool_pane_learn(out, len);
	else
		log_debug("list-panes failed: %s", out);
	if (req != NULL) {
		tools_set_state(req, NULL);
		op->req = NULL;
		op->then(req, json_root(op->args));
	}
	tool_pane_op_free(op);
}

/*
 * Run a call on a pane once the panes are known: at once if the last
 * list holds paneId, else after listing them again.
 */
static void
tool_pane_guard(struct req *req, const struct json *args,
    void (*then)(struct req *, const struct json *))
{
	struct tool_pane_op	*op;
	struct buf		 b = BUF_INIT;
	char			 id[TOOLS_PANE_ID_MAX];
	const char		*pane = tools_arg_pane(args, "paneId", id);
	const char		*raw;
	size_t			 len;

	if (cfg.robust || tool_pane_is_env(pane) || tool_pane_listed(pane)) {
		then(req, args);
		return;
	}
	op = xcalloc(1, sizeof *op);
	op->pane = xstrdup(pane);
	op->then = then;
	raw = json_raw(args, &len);
	if ((op->args = json_parse(raw, len, NULL)) == NULL)
		fatalx("tool_pane_guard: arguments do not parse again");
	tool_pane_park(req, op);
	buf_adds(&b, "list-panes -a -F ");
	tmux_quote(&b, "#{pane_id} #{pane_pid}");
	tmux_command(buf_cstr(&b), tool_pane_panes, op);
	buf_free(&b);
}

/* capture_pane, once the panes are known. */
static void
tool_pane_capture_run(struct req *req, const struct json *args)
{
	tool_pane_guard(req, args, tool_pane_capture);
}

/* send_keys, once the panes are known. */
static void
tool_pane_send_run(struct req *req, const struct json *args)
{
	tool_pane_guard(req, args, tool_pane_send);
}

const struct tool_entry tool_pane_capture_entry = {
	.name = "capture_pane",
	.run = tool_pane_capture_run,
	.cancel = tool_pane_cancel
};

/* send_keys once its keys went and it waits for the reply: settled as
 * a read (tool_read.c). */
static const struct tool_entry tool_pane_reply_entry = {
	.name = "send_keys",
	.cancel = tool_read_cancel,
	.timeout = tool_read_timeout,
	.wake = tool_read_wake
};

const struct tool_entry tool_pane_send_entry = {
	.name = "send_keys",
	.run = tool_pane_send_run,
	.cancel = tool_pane_cancel,
	.timeout = tool_pane_timeout
};
