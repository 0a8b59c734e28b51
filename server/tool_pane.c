/*
 * tool_pane.c — capture_pane and send_keys: tmux panes as a person sees
 * and types into them.
 *
 * Both go over the control client. The pane id passed the schema's
 * ^%\d+$; the keys are one word quoted for tmux's parser (tmux_quote), so
 * no text can become a tmux command. Neither acts on the pane progmux
 * itself runs in ($TMUX_PANE on the same server), unless send_keys is
 * forced. While tmux answers, a request's state is its struct
 * tool_pane_op; keys for a program of ours not yet running wait as a
 * waiter on that program (program_wait). With timeoutMs on a program's
 * pane, once tmux took the keys the request waits for the program's
 * reply as a read does (tool_read_reply), from the start of the line the
 * keys were typed into.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

/* send_keys to a program not yet started waits this long at most. */
#define TOOL_PANE_HOLD_MS	5000

/* Is paneId the pane this server runs in? */
static bool
tool_pane_is_ours(const char *pane)
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
	int64_t		 wait_ms;	/* send_keys' timeoutMs */
	int64_t		 deadline;	/* when that wait ends */
	uint64_t	 prog;		/* the program whose pane it is, or 0 */
	size_t		 typed_from;	/* where the line typed into began */
};

static void	tool_pane_op_free(struct tool_pane_op *);
static void	tool_pane_send_issue(struct tool_pane_op *);
static void	tool_pane_event(struct program *, enum program_event, void *);

/* Park req for tmux's answer to op. */
static void
tool_pane_park(struct req *req, struct tool_pane_op *op)
{
	req->state = op;
	op->req = req;
	mcp_req_park(req);
}

/* Answer op's request with res (if it still waits). */
static void
tool_pane_reply(struct tool_pane_op *op, struct toolres *res)
{
	if (op->req == NULL)
		return;
	op->req->state = NULL;
	tools_reply(op->req, res);
	op->req = NULL;
}

/* Free an operation tmux no longer answers. */
static void
tool_pane_op_free(struct tool_pane_op *op)
{
	free(op->pane);
	free(op->keys);
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
	op->req->deadline = DEADLINE_NONE;
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
	struct tool_pane_op	*op = req->state;

	if (op == NULL)
		return;
	req->state = NULL;
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
	struct tool_pane_op	*op = req->state;

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
	buf_printf(&res.text, "\n[%s: %zu lines%s]", op->pane, total - dropped,
	    dropped ? ", earlier ones left out by maxLines" : "");
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
	const char	*pane = tools_arg_str(args, "paneId", NULL);

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
		req->state = NULL;
		op->req = NULL;
		tool_read_reply(req, p, op->pane, op->typed_from, op->wait_ms,
		    op->deadline);
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
	const char	*pane = tools_arg_str(args, "paneId", NULL), *keys;
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
	 * runs (or ends, or PANE_KEYS_HOLD_MS pass).
	 */
	if ((p = program_by_pane(pane)) != NULL && !program_launched(p) &&
	    !program_ended(p)) {
		op->held = p;
		program_wait(p, tool_pane_event, op);
		req->deadline = now_ms() + TOOL_PANE_HOLD_MS;
		return;
	}
	tool_pane_send_issue(op);
	return;
fail:
	tools_reply(req, &res);
	toolres_free(&res);
}

const struct tool_entry tool_pane_capture_entry = {
	"capture_pane", tool_pane_capture, tool_pane_cancel, NULL, NULL,
	NULL, NULL
};

const struct tool_entry tool_pane_send_entry = {
	"send_keys", tool_pane_send, tool_pane_cancel, tool_pane_timeout,
	NULL, NULL, NULL
};
