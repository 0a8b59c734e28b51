/*
 * tool_keys.c — send_keys: tmux key names or literal text typed into a
 * pane, and with timeoutMs the program's reply.
 *
 * The keys are one word quoted for tmux's parser (tmux_quote), so no text
 * can become a tmux command; the pane is checked as capture_pane's is
 * (tool_pane.c). Keys for a program of ours not yet running wait as a
 * waiter on that program (program_wait) until it runs. With timeoutMs on
 * a program's pane, once tmux took the keys the request waits for the
 * program's reply as a read does (watch.c, tool_read_answer), from the
 * start of the line the keys were typed into; on a pane showing its
 * alternate screen (tmux's #{alternate_on}, asked just before the keys,
 * and again before a reply of text), the reply is the screen once it
 * settled, as capture_pane renders it. until, tail and the readiness
 * clauses (ready.c) shape that wait as they do a read's, and imply one
 * (TOOL_KEYS_WAIT_MS) when timeoutMs is not given.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

/* send_keys to a program not yet started waits this long at most. */
#define TOOL_KEYS_HOLD_MS	5000
#define TOOL_KEYS_WAIT_MS	30000	/* a reply's, with until, tail or a
					   clause and no timeoutMs */

static const struct tool_entry tool_keys_reply_entry;
static void	tool_keys_issue(struct tool_pane_op *);

/*
 * Keys held for a program that had not yet started: it runs now (or
 * ended, or is being removed, or the wait ran out). Type them.
 */
static void
tool_keys_release(struct tool_pane_op *op)
{
	program_unwait(op->held);
	op->held = NULL;
	tools_set_deadline(op->req, DEADLINE_NONE);
	tool_keys_issue(op);
}

/* What the program tells held keys. */
static void
tool_keys_event(struct program *p, enum program_event ev, void *arg)
{
	if (ev == PROGRAM_DROP || ev == PROGRAM_LAUNCHED || program_ended(p))
		tool_keys_release(arg);	/* tmux says if the pane is gone */
}

/* The hold ran out: type the keys now. */
static void
tool_keys_timeout(struct req *req)
{
	struct tool_pane_op	*op = tools_state(req);

	if (op != NULL && op->held != NULL)
		tool_keys_release(op);
}

/* The last send-keys answered. */
static void
tool_keys_sent(void *arg, bool ok, const char *out, size_t len)
{
	struct tool_pane_op	*op = arg;
	struct program	*p = op->prog != 0 ? program_by_seq(op->prog) : NULL;
	struct toolres	 res;
	struct req	*req;
	char		 shown[TOOLS_PANE_SHOWN_MAX];

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
		tools_set_entry(req, &tool_keys_reply_entry);
		tool_read_reply_sel(req, p, op->pane, op->typed_from,
		    op->typed_len, op->alt, op->wait_ms, op->sel, op->ready,
		    NULL);
		op->ready = NULL;	/* the reply's now, and the sel's */
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
	buf_printf(&res.text, "sent to %s%s", tools_pane_shown(op->pane,
	    shown), op->enter ? ", then Enter" : "");
	if (op->wait_ms > 0)
		buf_printf(&res.text, "; timeoutMs was not waited: %s is not "
		    "the pane of a program progmux started, so there is no "
		    "reply to read (capture_pane shows its screen)",
		    tools_pane_shown(op->pane, shown));
	tool_pane_reply(op, &res);
	toolres_free(&res);
	tool_pane_op_free(op);
}

/* display-message answered: is the pane on its alternate screen? */
static void
tool_keys_alt(void *arg, bool ok, const char *out, size_t len)
{
	struct tool_pane_op	*op = arg;

	op->alt = ok && len > 0 && out[0] == '1';
}

/* The first command's failure is what counts; later ones follow it. */
static void
tool_keys_step(void *arg, bool ok, const char *out, size_t len)
{
	struct tool_pane_op	*op = arg;

	(void)len;
	if (!ok)
		tool_pane_fail(op, "send_keys", out);	/* the rest is moot */
}

/*
 * Type op's keys: send-keys, then Enter. tool_keys_sent frees op, and a
 * callback may run at once (tmux not there): after the last command that
 * gets it, op is not touched.
 */
static void
tool_keys_issue(struct tool_pane_op *op)
{
	struct buf	 b = BUF_INIT;
	struct program	*p;
	bool		 enter = op->enter;
	size_t		 len = op->keys_len;

	/* The reply is read from the start of the line typed into. */
	if ((p = program_by_pane(op->pane)) != NULL) {
		op->prog = program_seq(p);
		op->typed_from = textbuf_line_start(program_text(p));
		op->typed_len = program_text(p)->len;
		program_keys_sent(p);
	}
	/* A full-screen program's reply is its screen: is it on one? Asked
	 * first, so it is known when the keys' answer comes. */
	if (p != NULL && op->wait_ms > 0) {
		buf_printf(&b, "display-message -p -t %s ", op->pane);
		tmux_quote(&b, "#{alternate_on}");
		tmux_command(buf_cstr(&b), tool_keys_alt, op);
		buf_reset(&b);
	}

	if (len > 0) {
		buf_printf(&b, "send-keys -t %s%s -- ", op->pane, op->literal ?
		    " -l" : "");
		tmux_quote(&b, op->keys);
		tmux_command(buf_cstr(&b), enter ? tool_keys_step :
		    tool_keys_sent, op);
		buf_reset(&b);
	}
	if (enter || len == 0) {	/* op is still ours */
		buf_printf(&b, "send-keys -t %s%s", op->pane, enter ? " Enter" :
		    "");
		tmux_command(buf_cstr(&b), tool_keys_sent, op);
	}
	buf_free(&b);
}

/*
 * The reply's until and tail (*sel, allocated) and readiness clauses
 * (*rd), for the program whose pane it is (p, or NULL); -1 with the call
 * answered.
 */
static int
tool_keys_wait_args(struct req *req, const struct json *args,
    const struct program *p, struct sel **sel, struct ready **rd)
{
	char	*cause = NULL;

	*sel = xcalloc(1, sizeof **sel);
	if (sel_parse(*sel, args, SEL_ARG_UNTIL, &cause) == -1) {
		free(*sel);
		tools_error(req, "send_keys: %s", cause);
		free(cause);
		return (-1);
	}
	if (tool_read_clauses(req, args, p != NULL ? program_spec(p)->dir :
	    NULL, *sel, rd) == -1) {
		sel_free(*sel);
		free(*sel);
		return (-1);
	}
	return (0);
}

/* send_keys. */
static void
tool_keys_send(struct req *req, const struct json *args)
{
	struct tool_pane_op	*op;
	struct program	*p;
	struct toolres	 res;
	struct sel	*sel;
	struct ready	*rd;
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
	if (tool_keys_wait_args(req, args, program_by_pane(pane), &sel,
	    &rd) == -1)
		return;
	op = xcalloc(1, sizeof *op);
	op->pane = xstrdup(pane);
	op->keys = xmemdup(keys, len + 1);
	op->keys_len = len;
	op->literal = tools_arg_bool(args, "literal", false);
	op->enter = tools_arg_bool(args, "enter", true);
	op->sel = sel;
	op->ready = rd;
	op->wait_ms = tools_arg_int(args, "timeoutMs", sel->until != NULL ||
	    sel->tail > 0 || rd != NULL ? TOOL_KEYS_WAIT_MS : 0);
	if (op->wait_ms > cfg.wait_max_ms)
		op->wait_ms = cfg.wait_max_ms;
	tool_pane_park(req, op);
	/*
	 * A program of ours whose pane exists but which has not yet been
	 * started: until it runs, its terminal belongs to the launcher and
	 * a C-c typed now would reach no program. Hold the keys until it
	 * runs (or ends, or TOOL_KEYS_HOLD_MS pass).
	 */
	if ((p = program_by_pane(pane)) != NULL && !program_launched(p) &&
	    !program_ended(p)) {
		op->held = program_wait(p, tool_keys_event, op);
		tools_set_deadline(req, now_ms() + TOOL_KEYS_HOLD_MS);
		return;
	}
	tool_keys_issue(op);
	return;
fail:
	tools_reply(req, &res);
	toolres_free(&res);
}

/* send_keys, once the panes are known. */
static void
tool_keys_run(struct req *req, const struct json *args)
{
	tool_pane_guard(req, args, tool_keys_send);
}

/* send_keys once its keys went and it waits for the reply: settled as
 * a read (watch.c, tool_read.c). */
static const struct tool_entry tool_keys_reply_entry =
    WATCH_ENTRY("send_keys", NULL);

const struct tool_entry tool_keys_entry = {
	.name = "send_keys",
	.run = tool_keys_run,
	.cancel = tool_pane_cancel,
	.timeout = tool_keys_timeout,
	.other_fields = ",cursor,maxLines,filter,context,",
	.other_hint = "send_keys takes no %s: read_program takes it, from "
	    "the cursor send_keys' reply returns"
};
