/*
 * tools_req.c — a tool call being run, as tmux's cmd-queue.c holds the
 * item being run: struct req, from tools/call until it is answered or
 * cancelled, with its results, its answer, its timers, progress notes
 * and URL-mode elicitation.
 *
 * tools.c makes a call (tools_req_new) once it has found the tool, and
 * runs the tool after checking the arguments; from then the call is the
 * tool's, which answers it (tools_reply, tools_error) now or later. The
 * tool files never see inside it: they keep their state with it
 * (tools_set_state) and set its timers. A call that waits holds its own
 * loop timers, made when first set: its deadline (the tool's timeout
 * hook), its wake time (the wake hook: look again) and, when the client
 * asked for progress, the next progress note (the progress hook), so a
 * waiting call costs nothing until one of them comes due, however many
 * wait. What reaches the client goes through the protocol's hooks
 * (struct tools_rpc, set by mcp_tools.c): nothing here speaks JSON-RPC.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

/* A tool call, from tools/call until it is answered or cancelled. */
struct req {
	struct mcp_req		*rpc;		/* the request it answers */
	const struct tool_entry	*tool;		/* the tool it called */
	void			*state;		/* that tool's */
	char			*ignored;	/* unknown fields, said */
	struct loop_timer	*deadline;	/* its timeout */
	struct loop_timer	*wake;		/* before it, look again */
	struct loop_timer	*progress;	/* the next progress note */
	bool			 app;		/* only a view calls the tool */
};

static size_t	tools_calls;	/* not yet answered or cancelled */

static const struct tools_rpc	*tools_rpc;	/* the protocol's, from its
						   set-up */

/* Programs adopted at start-up, said in the first result the model
 * reads (once told, freed). */
static struct {
	char	**ids;
	size_t	  n;
} tools_adoption;

/* How calls are answered (mcp.c, at its set-up). */
void
tools_set_rpc(const struct tools_rpc *rpc)
{
	tools_rpc = rpc;
}

/* An empty result. */
void
toolres_init(struct toolres *res)
{
	memset(res, 0, sizeof *res);
	jw_init(&res->w, &res->sc);
}

/* Free a result. */
void
toolres_free(struct toolres *res)
{
	buf_free(&res->sc);
	buf_free(&res->text);
}

/* Make res a tool error with the message fmt and ap make. */
static void
toolres_verror(struct toolres *res, const char *fmt, va_list ap)
{
	char	*s;

	if (vasprintf(&s, fmt, ap) == -1)
		s = NULL;
	buf_reset(&res->text);
	buf_adds(&res->text, s ? s : "error");
	free(s);
	res->is_error = true;
}

/* Make res a tool error with this message. */
void
toolres_error(struct toolres *res, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	toolres_verror(res, fmt, ap);
	va_end(ap);
}

/* A call of tool for rpc, bound to it so that a cancellation reaches
 * it; the tool runs it next. app: only a view calls the tool. */
struct req *
tools_req_new(struct mcp_req *rpc, const struct tool_entry *tool, bool app)
{
	struct req	*req;

	req = xcalloc(1, sizeof *req);
	req->rpc = rpc;
	req->tool = tool;
	req->app = app;
	tools_calls++;
	tools_rpc->bind(rpc, req);
	return (req);
}

/* The unknown fields the call was given, said (xasprintf'd, now req's)
 * on a line of their own at the end of its result. */
void
tools_req_ignored(struct req *req, char *said)
{
	free(req->ignored);
	req->ignored = said;
}

/* Forget a call: its timers and what it holds. */
static void
tools_free(struct req *req)
{
	loop_timer_free(req->deadline);
	loop_timer_free(req->wake);
	loop_timer_free(req->progress);
	free(req->ignored);
	free(req);
	tools_calls--;
}

/* A tool's result as JSON into b: the text block, structuredContent
 * (JSON text, sclen bytes; none if 0 or an error), isError. */
void
tools_result_put(struct buf *b, const char *text, size_t len,
    const char *sc, size_t sclen, bool is_error)
{
	struct jw	w;

	jw_init(&w, b);
	jw_obj_begin(&w);
	jw_key(&w, "content");
	jw_arr_begin(&w);
	jw_obj_begin(&w);
	jw_key(&w, "type");
	jw_str(&w, "text");
	jw_key(&w, "text");
	jw_strn(&w, text != NULL ? text : "", len);
	jw_obj_end(&w);
	jw_arr_end(&w);
	if (!is_error && sclen > 0) {
		jw_key(&w, "structuredContent");
		jw_raw(&w, sc, sclen);
	}
	jw_key(&w, "isError");
	jw_bool(&w, is_error);
	jw_obj_end(&w);
}

/* A result as JSON into b. */
static void
tools_result_json(struct buf *b, const struct toolres *res)
{
	tools_result_put(b, res->text.data, res->text.len, res->sc.data,
	    res->sc.len, res->is_error);
}

/* Programs adopted at start-up (adopt.c): ids taken, for the first
 * result. */
void
tools_adopted(char **ids, size_t n)
{
	tools_adoption.ids = ids;
	tools_adoption.n = n;
}

/*
 * The first result a model reads (not a view's own) says what was
 * adopted: how many and their ids, as "adopted" in its structured
 * content (before its closing brace) and as its text's first line.
 */
static void
tools_tell_adopted(struct req *req, struct toolres *res)
{
	struct buf	 text = BUF_INIT, sc = BUF_INIT;
	struct jw	 w;
	size_t		 i, n = tools_adoption.n;

	if (n == 0 || req->app)
		return;
	buf_printf(&text, "[progmux adopted %zu program%s an earlier progmux "
	    "left running: ", n, n == 1 ? "" : "s");
	for (i = 0; i < n; i++)
		buf_printf(&text, "%s%s", i > 0 ? ", " : "",
		    tools_adoption.ids[i]);
	buf_adds(&text, "; same ids, their whole text; list_programs shows "
	    "them]\n");
	buf_add(&text, res->text.data, res->text.len);
	buf_free(&res->text);
	res->text = text;
	if (!res->is_error && res->sc.len > 1 &&
	    res->sc.data[res->sc.len - 1] == '}') {
		jw_init(&w, &sc);
		jw_obj_begin(&w);
		jw_key(&w, "adopted");
		jw_obj_begin(&w);
		jw_key(&w, "count");
		jw_int(&w, (int64_t)n);
		jw_key(&w, "programIds");
		jw_arr_begin(&w);
		for (i = 0; i < n; i++)
			jw_str(&w, tools_adoption.ids[i]);
		jw_arr_end(&w);
		jw_obj_end(&w);
		jw_obj_end(&w);
		res->sc.len--;		/* its closing brace */
		if (res->sc.len > 1)
			buf_addc(&res->sc, ',');
		buf_add(&res->sc, sc.data + 1, sc.len - 1);
		buf_free(&sc);
	}
	for (i = 0; i < n; i++)
		free(tools_adoption.ids[i]);
	free(tools_adoption.ids);
	tools_adoption.ids = NULL;
	tools_adoption.n = 0;
}

/*
 * Answer req with res and forget req. No reply is larger than
 * TOOLS_REPLY_MAX: each tool bounds what it returns well below it, and
 * one that would pass it anyway is answered with an error instead.
 */
void
tools_reply(struct req *req, struct toolres *res)
{
	struct buf	 b = BUF_INIT;
	struct toolres	 big;

	tools_tell_adopted(req, res);
	if (req->ignored != NULL) {
		/* Said last, on a line of its own, so a typo shows. */
		if (res->text.len > 0 &&
		    res->text.data[res->text.len - 1] != '\n')
			buf_addc(&res->text, '\n');
		buf_adds(&res->text, req->ignored);
	}
	tools_result_json(&b, res);
	if (b.len > TOOLS_REPLY_MAX) {
		log_warn("%s: a reply of %zu bytes refused", req->tool->name,
		    b.len);
		toolres_init(&big);
		toolres_error(&big, "%s: the reply would be %zu bytes, more "
		    "than the %u any reply may be; ask for less (maxLines, "
		    "tail, filter)", req->tool->name, b.len, TOOLS_REPLY_MAX);
		buf_reset(&b);
		tools_result_json(&b, &big);
		toolres_free(&big);
	}
	tools_rpc->answer(req->rpc, b.data, b.len);
	buf_free(&b);
	tools_free(req);
}

/* Answer req with a tool error. */
void
tools_error(struct req *req, const char *fmt, ...)
{
	struct toolres	 res;
	va_list		 ap;

	toolres_init(&res);
	va_start(ap, fmt);
	toolres_verror(&res, fmt, ap);
	va_end(ap);
	tools_reply(req, &res);
	toolres_free(&res);
}

/* The client gave up on req: its tool lets go of what it waits on, and
 * the call is forgotten without an answer (mcp.c drops the request). */
void
tools_cancel(struct req *req)
{
	if (req->tool->cancel != NULL)
		req->tool->cancel(req);
	tools_free(req);
}

/* The program a waiting call waits on (its tool's program hook), or
 * NULL if it has none yet: how a task says how its call stands. */
struct program *
tools_program(struct req *req)
{
	if (req->tool->program == NULL)
		return (NULL);
	return (req->tool->program(req));
}

#ifdef PROGMUX_TESTING
/* How many calls are not yet answered (nor cancelled). */
size_t
tools_waiting(void)
{
	return (tools_calls);
}
#endif

/* The tool's state for req (NULL until it sets one). */
void *
tools_state(const struct req *req)
{
	return (req->state);
}

/* Keep the tool's state with req. */
void
tools_set_state(struct req *req, void *state)
{
	req->state = state;
}

/* Settle req with another entry's hooks from now on (send_keys' reply
 * waits as a read does). */
void
tools_set_entry(struct req *req, const struct tool_entry *entry)
{
	req->tool = entry;
}

/* Set one of req's timers (made on first use) for when, or clear it. */
static void
tools_timer_set(struct loop_timer **t, loop_timer_cb cb, struct req *req,
    int64_t when)
{
	if (*t == NULL) {
		if (when == DEADLINE_NONE)
			return;
		*t = loop_timer_new(cb, req);
	}
	if (loop_timer_when(*t) != when)
		loop_timer_set(*t, when);
}

/* req's deadline passed: its tool answers (or sets it again). */
static void
tools_deadline_due(void *arg)
{
	struct req	*req = arg;

	if (req->tool->timeout != NULL)
		req->tool->timeout(req);
}

/* req's wake time passed: its tool looks again and answers or sets the
 * next, unless the deadline has passed too (its timer answers). */
static void
tools_wake_due(void *arg)
{
	struct req	*req = arg;

	if (loop_timer_when(req->deadline) <= now_ms())
		return;
	if (req->tool->wake != NULL)
		req->tool->wake(req);
}

/* Time for a progress note on req: the next is set first, as the note
 * may answer req. */
static void
tools_progress_due(void *arg)
{
	struct req	*req = arg;

	loop_timer_set(req->progress, now_ms() + TOOLS_PROGRESS_MS);
	if (req->tool->progress != NULL)
		req->tool->progress(req);
}

/* req's timeout: when its tool's timeout hook runs (DEADLINE_NONE:
 * none). */
void
tools_set_deadline(struct req *req, int64_t when)
{
	tools_timer_set(&req->deadline, tools_deadline_due, req, when);
}

/* When req's tool looks again (its wake hook; DEADLINE_NONE: not). */
void
tools_set_wake(struct req *req, int64_t when)
{
	tools_timer_set(&req->wake, tools_wake_due, req, when);
}

/* Progress notes on req every TOOLS_PROGRESS_MS, if the client asked
 * for them (a progress token). */
void
tools_progress_start(struct req *req)
{
	if (tools_rpc->wants_progress(req->rpc))
		tools_timer_set(&req->progress, tools_progress_due, req,
		    now_ms() + TOOLS_PROGRESS_MS);
}

/* A progress notification for req (progress must grow). */
void
tools_progress_send(struct req *req, double progress, double total,
    const char *message)
{
	tools_rpc->progress(req->rpc, progress, total, message);
}

/*
 * URL-mode elicitation for req: ask the client to show the person url
 * (message saying why), as its protocol era does, with elicitationId id.
 * TOOLS_ELICIT_NONE when the client cannot (the tool gives the address
 * in its result); TOOLS_ELICIT_ASKED when it was asked and the person's
 * answer comes to the tool's elicited hook; TOOLS_ELICIT_RETURNED when
 * the call itself was answered (2026-07-28: input_required, the client
 * calls again with requestState id): req is gone.
 */
int
tools_elicit_url(struct req *req, const char *url, const char *message,
    const char *id)
{
	int	r;

	if (tools_rpc->elicit_url == NULL)
		return (TOOLS_ELICIT_NONE);
	r = tools_rpc->elicit_url(req->rpc, url, message, id);
	if (r == TOOLS_ELICIT_RETURNED)
		tools_free(req);
	return (r);
}

/* The elicitation id is over (the secret came, or will not): the
 * client is told, if it was asked in a way that tells. */
void
tools_elicit_done(const char *id)
{
	if (id != NULL && tools_rpc->elicit_done != NULL)
		tools_rpc->elicit_done(id);
}

/* Is req a call made again after input_required: its requestState and
 * the person's action (valid while the tool runs)? */
bool
tools_elicit_resumed(struct req *req, const char **state,
    const char **action)
{
	return (tools_rpc->resumed != NULL &&
	    tools_rpc->resumed(req->rpc, state, action));
}

/* The person answered an elicitation asked for req (from mcp.c). */
void
tools_elicited(struct req *req, const char *action)
{
	if (req->tool->elicited != NULL)
		req->tool->elicited(req, action);
}
