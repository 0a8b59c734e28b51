/*
 * tool_pane.c — capture_pane, and what it shares with send_keys
 * (tool_keys.c): tmux panes as a person sees and types into them.
 *
 * Both go over the control client. The pane id passed the schema's
 * ^%\d+$, so no text can become a tmux command. Neither acts on the pane
 * progmux itself runs in, unless send_keys is forced: $TMUX_PANE when
 * $TMUX names the server in use, or else the pane whose process is
 * progmux or one of its ancestors (/proc), as list-panes tells the panes'
 * processes, for a client may pass no TMUX at all. The panes are listed
 * again when a paneId is asked about that the last list did not hold;
 * the call waits for that answer (tool_pane_guard). While tmux answers, a
 * request's state is its struct tool_pane_op. A capture returns at most
 * its last TOOL_PANE_CAPTURE_CHARS characters, whole lines.
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
#include "wipe.h"
#include "xmalloc.h"

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
bool
tool_pane_is_ours(const char *pane)
{
	if (cfg.robust)
		return (false);
	if (tool_pane_is_env(pane))
		return (true);
	return (tool_pane_listed(pane) && tool_pane_seen.own != NULL &&
	    strcmp(tool_pane_seen.own, pane) == 0);
}

/* Park req for tmux's answer to op. */
void
tool_pane_park(struct req *req, struct tool_pane_op *op)
{
	tools_set_state(req, op);
	op->req = req;
}

/* Answer op's request with res (if it still waits). */
void
tool_pane_reply(struct tool_pane_op *op, struct toolres *res)
{
	if (op->req == NULL)
		return;
	tools_set_state(op->req, NULL);
	tools_reply(op->req, res);
	op->req = NULL;
}

/* Free an operation tmux no longer answers. */
void
tool_pane_op_free(struct tool_pane_op *op)
{
	free(op->pane);
	free(op->keys);
	json_doc_free(op->args);
	if (op->sel != NULL) {
		sel_free(op->sel);
		free(op->sel);
	}
	ready_free(op->ready);
	free(op);
}

/* The client cancelled: the operation finishes with nobody to tell. */
void
tool_pane_cancel(struct req *req)
{
	struct tool_pane_op	*op = tools_state(req);

	if (op == NULL)
		return;
	tools_set_state(req, NULL);
	if (op->held != NULL) {
		/* Held, not yet sent: no tmux callback will free it. */
		program_unwait(op->held);
		tool_pane_op_free(op);
	} else
		op->req = NULL;
}

/* tmux's error text as the tool's error. */
void
tool_pane_fail(struct tool_pane_op *op, const char *what, const char *out)
{
	struct toolres	res;
	char		shown[TOOLS_PANE_SHOWN_MAX];
	const char	*pane = tools_pane_shown(op->pane, shown);

	toolres_init(&res);
	if (strstr(out, "can't find") != NULL)
		toolres_error(&res, "%s: no pane %s on this tmux server (%s); "
		    "list panes with list_programs or `tmux list-panes -a`",
		    what, pane, out);
	else
		toolres_error(&res, "%s on %s failed: %s", what, pane, out);
	tool_pane_reply(op, &res);
	toolres_free(&res);
}

/*
 * Where a capture's text starts: past what maxLines leaves out, and
 * within the last TOOL_PANE_CAPTURE_CHARS characters, whole lines (a
 * long history, a huge pane). *dropped counts the lines left out, *cut
 * says the character bound left some.
 */
static const char *
tool_pane_first(const char *out, size_t len, int64_t max_lines, size_t total,
    size_t *dropped, bool *cut)
{
	const char	*start = out, *p;
	size_t		 i;

	*dropped = 0;
	*cut = false;
	if (max_lines > 0 && total > (size_t)max_lines) {
		*dropped = total - (size_t)max_lines;
		for (i = 0; i < *dropped; i++)
			start = memchr(start, '\n', (size_t)(out + len - start)) +
			    1;
	}
	for (i = 0, p = out + len; p > start && i < TOOL_PANE_CAPTURE_CHARS;
	    i += ((unsigned char)*--p & 0xc0) != 0x80)
		;
	while (start < p) {
		*cut = true;
		start = memchr(start, '\n', (size_t)(out + len - start));
		start = start != NULL ? start + 1 : out + len;
		(*dropped)++;
	}
	return (start);
}

/* capture-pane answered. */
static void
tool_pane_captured(void *arg, bool ok, const char *out, size_t len)
{
	struct tool_pane_op	*op = arg;
	struct toolres	 res;
	const char	*start;
	char		 shown[TOOLS_PANE_SHOWN_MAX];
	size_t		 total = 0, dropped, i;
	bool		 cut;

	if (op->req == NULL || !ok) {
		if (op->req != NULL)
			tool_pane_fail(op, "capture_pane", out);
		tool_pane_op_free(op);
		return;
	}
	/* Trailing empty lines are the unused bottom of the screen. */
	while (len > 0 && out[len - 1] == '\n')
		len--;
	if (len > 0)
		for (total = 1, i = 0; i < len; i++)
			total += out[i] == '\n';
	start = tool_pane_first(out, len, op->max_lines, total, &dropped, &cut);
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
	buf_printf(&res.text, "\n[%s: %zu lines", tools_pane_shown(op->pane,
	    shown), total - dropped);
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
void
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

const struct tool_entry tool_pane_capture_entry = {
	.name = "capture_pane",
	.run = tool_pane_capture_run,
	.cancel = tool_pane_cancel
};

/*
 * Type secret into pane, literally, through the control client's secret
 * command (never logged, its queue cleared once written); cb gets
 * tmux's answer. The command is built in a buffer big enough from the
 * start, so the secret is never moved, and cleared once queued.
 */
void
tool_pane_type_secret(const char *pane, const char *secret, tmux_cb cb,
    void *arg)
{
	struct buf	b = BUF_INIT;

	buf_reserve(&b, 2 * strlen(secret) + 64);
	buf_printf(&b, "send-keys -t %s -l -- ", pane);
	tmux_quote(&b, secret);
	tmux_command_secret(buf_cstr(&b), cb, arg);
	wipe_buf(&b);
}

/* Type Enter into pane; cb gets tmux's answer. */
void
tool_pane_enter(const char *pane, tmux_cb cb, void *arg)
{
	char	line[64];

	snprintf(line, sizeof line, "send-keys -t %s Enter", pane);
	tmux_command(line, cb, arg);
}
