/*
 * mcp_tools.c — tools/list and tools/call: the door from the protocol to
 * the tool layer (tools.c), and what a call may need of the protocol on
 * its way: progress notifications, URL-mode elicitation in either era,
 * and becoming a task.
 *
 * A tools/call is handed to tools.c, which answers it now or later (a
 * read that waits holds its own timers there); until then it is in the
 * id table, so that a cancellation finds it at once and it is dropped
 * without a reply. Names are compared with their length, so a NUL
 * inside a tool name never matches a shorter one.
 *
 * Tasks: a 2026-07-28 call of a tool that may wait long (tools_task_ok),
 * from a client whose capabilities name the tasks extension, that still
 * waits after MCP_TASK_WAIT_MS is answered with a task; a 2025-11-25
 * call asking for one gets it at once. Either way the call goes on
 * unchanged and its answer, the text it would have sent, is what the
 * task keeps (task_answer).
 *
 * Elicitation: a 2025-11-25 client that declared elicitation.url is sent
 * elicitation/create, and its answer comes back as a response to our
 * request's id (mcp_tools_response); a 2026-07-28 call is answered
 * input_required with the request in it, and the call made again carries
 * requestState and the person's answer, which the request keeps for its
 * tool (the resumed hook).
 *
 * Layer: protocol (a method family); calls tools.c, task.c and mcp_req.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mcp_req.h"
#include "timeutil.h"
#include "xmalloc.h"

#define MCP_TASK_WAIT_MS	1000	/* a 2026 call this long: a task */

/*
 * A URL-mode elicitation asked of a 2025-11-25 client: our request's id
 * (rid, "progmux-elicit-N"), the tools/call it is for (until that is
 * answered), and its elicitationId, for notifications/elicitation/complete.
 */
struct mcp_elicit {
	char			*rid;
	struct mcp_req		*rpc;		/* NULL once answered */
	char			*eid;
	bool			 answered;	/* the client's answer came */
	LIST_ENTRY(mcp_elicit)	 entry;
};

static struct {
	uint64_t	 elicit_seq;	/* our requests' ids */
	LIST_HEAD(, mcp_elicit) elicits;
} mt = { 0, LIST_HEAD_INITIALIZER(mt.elicits) };

/* The call answering req (tools.c), for a cancellation to reach. */
static void
mcp_tools_bind(struct mcp_req *req, struct req *call)
{
	req->call = call;
	if (req->task != NULL)
		task_set_call(req->task, call);
}

/* A tool's answer to req: sent, or, for a call that became a task,
 * kept by the task. */
static void
mcp_tools_answer(struct mcp_req *req, const char *result, size_t len)
{
	if (mcp_hosts_took(req, result, len))
		return;		/* (this machine's part of a list) */
	if (req->task != NULL)
		task_answer(req, result, len);
	else
		mcp_reply(req, result, len);
}

/* Did the client ask for progress notifications on req? */
static bool
mcp_tools_wants_progress(const struct mcp_req *req)
{
	return (req->progress_token != NULL);
}

/* notifications/progress for a waiting request; progress must grow.
 * None for a 2026-07-28 task: its status says how it stands. */
static void
mcp_tools_progress(struct mcp_req *req, double progress, double total,
    const char *message)
{
	struct buf	 b = BUF_INIT;
	struct jw	 w;

	if (req->progress_token == NULL || progress <= req->progress_sent ||
	    (req->ctx.era == MCP_ERA_2026 && req->task != NULL))
		return;
	req->progress_sent = progress;
	jw_init(&w, &b);
	jw_obj_begin(&w);
	jw_key(&w, "progressToken");
	jw_raw(&w, req->progress_token, strlen(req->progress_token));
	jw_key(&w, "progress");
	jw_double(&w, progress);
	if (total > 0) {
		jw_key(&w, "total");
		jw_double(&w, total);
	}
	/* (2024-11-05 had no message.) */
	if (message != NULL && strcmp(req->ctx.version, "2024-11-05") != 0) {
		jw_key(&w, "message");
		jw_str(&w, message);
	}
	jw_obj_end(&w);
	mcp_notify_obj("notifications/progress", &b, NULL);
}

/* The elicitation's params: mode url, its id (2025), url and message. */
static void
mcp_tools_elicit_params(struct buf *p, const struct mcp_req *rpc,
    const char *url, const char *message, const char *id)
{
	struct jw	w;

	jw_init(&w, p);
	jw_obj_begin(&w);
	jw_key(&w, "mode");
	jw_str(&w, "url");
	if (rpc->ctx.era == MCP_ERA_2025) {	/* 2026: requestState */
		jw_key(&w, "elicitationId");
		jw_str(&w, id);
	}
	jw_key(&w, "url");
	jw_str(&w, url);
	jw_key(&w, "message");
	jw_str(&w, message);
	jw_obj_end(&w);
}

/*
 * URL-mode elicitation for the call rpc (tools_elicit_url):
 * TOOLS_ELICIT_NONE when its client cannot take one; _ASKED when a
 * 2025-11-25 client was sent elicitation/create (its answer comes to
 * mcp_tools_response); _RETURNED when a 2026-07-28 call was answered
 * with an input_required result carrying the request (rpc is then done;
 * the client calls again with requestState id and its inputResponses).
 * id is the elicitationId.
 */
static int
mcp_tools_elicit_url(struct mcp_req *rpc, const char *url,
    const char *message, const char *id)
{
	struct mcp_elicit	*e;
	struct buf		 b = BUF_INIT, p = BUF_INIT;

	if (rpc->task != NULL || !rpc->ctx.elicit_url)
		return (TOOLS_ELICIT_NONE);
	mcp_tools_elicit_params(&p, rpc, url, message, id);
	if (rpc->ctx.era == MCP_ERA_2026) {
		buf_adds(&b, "{\"inputRequests\":{\"secret\":{\"method\":"
		    "\"elicitation/create\",\"params\":");
		buf_add(&b, p.data, p.len);
		/* id is ours: hex digits. */
		buf_printf(&b, "}},\"requestState\":\"%s\"}", id);
		mcp_reply_typed(rpc, b.data, b.len, "input_required");
		mcp_req_done(rpc);
		buf_free(&b);
		buf_free(&p);
		return (TOOLS_ELICIT_RETURNED);
	}
	e = xcalloc(1, sizeof *e);
	xasprintf(&e->rid, "\"progmux-elicit-%llu\"",
	    (unsigned long long)++mt.elicit_seq);
	e->rpc = rpc;
	if (rpc->ref != NULL)
		*rpc->ref = NULL;	/* (one elicitation a call at a time) */
	rpc->ref = &e->rpc;	/* cleared if rpc goes first */
	e->eid = xstrdup(id);
	LIST_INSERT_HEAD(&mt.elicits, e, entry);
	buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":"
	    "\"elicitation/create\",\"params\":", e->rid);
	buf_add(&b, p.data, p.len);
	buf_addc(&b, '}');
	mcp_write_line(&b);
	buf_free(&b);
	buf_free(&p);
	log_debug("elicitation/create %s for request %s", e->rid, rpc->id);
	return (TOOLS_ELICIT_ASKED);
}

/* Forget an elicitation. */
static void
mcp_tools_elicit_free(struct mcp_elicit *e)
{
	if (e->rpc != NULL)
		e->rpc->ref = NULL;
	LIST_REMOVE(e, entry);
	free(e->rid);
	free(e->eid);
	free(e);
}

/* An elicitation's action as the client gave it: accept or decline, and
 * cancel for anything else (or nothing). */
static const char *
mcp_tools_action(const struct json *a)
{
	const char	*s = json_str(a, NULL);

	if (json_type(a) == JSON_STRING && (strcmp(s, "accept") == 0 ||
	    strcmp(s, "decline") == 0))
		return (s);
	return ("cancel");
}

/*
 * The client answered our request ridraw (raw JSON id): an elicitation's
 * action (accept, decline, cancel; an error counts as cancel) goes to
 * the call it is for. An answer to no request of ours is dropped.
 */
void
mcp_tools_response(const char *ridraw, const struct json *msg)
{
	struct mcp_elicit	*e;
	const char		*action;

	if (ridraw == NULL)
		return;
	LIST_FOREACH(e, &mt.elicits, entry)
		if (strcmp(e->rid, ridraw) == 0 && !e->answered)
			break;
	if (e == NULL)
		return;
	e->answered = true;
	action = mcp_tools_action(json_get(json_get(msg, "result"),
	    "action"));
	log_debug("elicitation %s: %s", e->rid, action);
	if (e->rpc != NULL && e->rpc->call != NULL)
		tools_elicited(e->rpc->call, action);
	/* The rest is kept for its completion notification. */
}

/* The elicitation id is over: a 2025 client is told (it ignores ids it
 * does not know); nothing is sent in the 2026-07-28 era. */
static void
mcp_tools_elicit_done(const char *id)
{
	struct mcp_elicit	*e;
	struct buf		 b = BUF_INIT;

	LIST_FOREACH(e, &mt.elicits, entry)
		if (strcmp(e->eid, id) == 0)
			break;
	if (e == NULL)
		return;
	buf_printf(&b, "\"elicitationId\":\"%s\"", e->eid); /* hex */
	mcp_notify("notifications/elicitation/complete", buf_cstr(&b), NULL);
	buf_free(&b);
	mcp_tools_elicit_free(e);
}

/* A 2026-07-28 call made again after input_required: its requestState
 * and the action of its inputResponses' "secret" answer. */
static bool
mcp_tools_resumed(struct mcp_req *rpc, const char **state,
    const char **action)
{
	if (rpc->resume_state == NULL)
		return (false);
	*state = rpc->resume_state;
	*action = rpc->resume_action;
	return (true);
}

/* What the tool layer answers calls with. */
static const struct tools_rpc mcp_tools_rpc = {
	.bind = mcp_tools_bind,
	.answer = mcp_tools_answer,
	.wants_progress = mcp_tools_wants_progress,
	.progress = mcp_tools_progress,
	.elicit_url = mcp_tools_elicit_url,
	.elicit_done = mcp_tools_elicit_done,
	.resumed = mcp_tools_resumed
};

/* How a call forwarded to another host is answered. */
static const struct mcp_hosts_hooks mcp_tools_hosts = {
	.answer = mcp_tools_answer,
	.progress = mcp_tools_progress
};

/* The tool layer, and the hosts, answer through us. */
void
mcp_tools_init(void)
{
	tools_set_rpc(&mcp_tools_rpc);
	mcp_hosts_init(&mcp_tools_hosts);
}

/* tools/list: every tool in one page, so any cursor is unknown; the
 * set is fixed for the server's life (and for a client that renders the
 * view, with the view's: its own tool and the tools that open it). */
static void
mcp_tools_list(struct mcp_req *req, const struct json *params)
{
	struct buf	 b = BUF_INIT;
	struct jw	 w;

	if (json_type(json_get(params, "cursor")) != JSON_NULL) {
		mcp_fail(req, -32602, "unknown cursor: tools/list returns "
		    "every tool in one page, so no cursor is valid");
		return;
	}
	req->ttl = MCP_TTL_FIXED;
	req->public = true;
	jw_init(&w, &b);
	jw_obj_begin(&w);
	jw_key(&w, "tools");
	jw_arr_begin(&w);
	tools_list(&w, req->ctx.era == MCP_ERA_2025 && req->ctx.tasks,
	    resource_view_offered(&req->ctx));
	jw_arr_end(&w);
	jw_obj_end(&w);
	mcp_reply_jw(req, &b);
}

/* Keep a tools/call's progress token (raw JSON), if it sent one, and a
 * 2026 call's requestState and answer, if it is made again. */
static void
mcp_tools_keep(struct mcp_req *req, const struct json *params)
{
	const struct json	*tok, *st;
	const char		*raw;
	size_t			 len;

	tok = json_get(json_get(params, "_meta"), "progressToken");
	if (json_type(tok) == JSON_STRING || json_type(tok) == JSON_NUMBER) {
		raw = json_raw(tok, &len);
		req->progress_token = xstrndup(raw, len);
	}
	st = json_get(params, "requestState");
	if (req->ctx.era == MCP_ERA_2026 && json_type(st) == JSON_STRING) {
		req->resume_state = xstrdup(json_str(st, NULL));
		req->resume_action = xstrdup(mcp_tools_action(json_get(
		    json_get(json_get(params, "inputResponses"), "secret"),
		    "action")));
	}
}

/*
 * A 2026 call that has waited MCP_TASK_WAIT_MS becomes a task: its
 * request is answered with the task, and the call goes on to answer the
 * task. From here tasks/cancel, not notifications/cancelled, lets go of
 * it.
 */
static void
mcp_tools_task_due(void *arg)
{
	struct mcp_req	*req = arg;
	struct task	*t;
	const char	*why;

	if ((t = task_new(req, req->call, MCP_ERA_2026, 0, &why)) == NULL) {
		log_warn("%s: the call stays a call", why);
		return;
	}
	req->task = t;
	mcp_ids_del(req);
	task_reply(req, t, true);
	mcp_kick();
}

/* Answer req: name (len bytes) is no tool of ours, or does not run as
 * a task (as_task). */
static void
mcp_tools_unknown(struct mcp_req *req, const char *name, size_t len,
    bool as_task)
{
	struct buf	b = BUF_INIT;

	if (as_task) {
		buf_adds(&b, "tools/call: \"");
		mcp_quote_name(&b, name, len);
		buf_adds(&b, "\" does not run as a task (only run_program, "
		    "read_program and send_keys do): call it without task");
		mcp_fail(req, -32601, buf_cstr(&b));
	} else {
		buf_adds(&b, "unknown tool \"");
		mcp_quote_name(&b, name, len);
		buf_adds(&b, "\": tools/list names the tools there are");
		mcp_fail(req, -32602, buf_cstr(&b));
	}
	buf_free(&b);
}

/* Is name (len bytes) a tool req's client does not have: one only a
 * view calls (_meta.ui.visibility ["app"]), for a client without the
 * view? */
static bool
mcp_tools_hidden(const struct mcp_req *req, const char *name, size_t len)
{
	return (memchr(name, '\0', len) == NULL && tools_app_only(name) &&
	    !resource_view_offered(&req->ctx));
}

/*
 * A 2025-11-25 tools/call asking for a task: the task is made and said
 * first, then the call runs and answers it. Only the tools whose waits
 * may be long take one (taskSupport "optional"); another is -32601.
 */
static void
mcp_tools_task_call(struct mcp_req *req, const char *name, size_t len,
    const struct json *args, const struct json *task)
{
	const struct json	*ttl = json_get(task, "ttl");
	struct task		*t;
	const char		*why;

	if (mcp_tools_hidden(req, name, len)) {
		mcp_tools_unknown(req, name, len, false);
		return;
	}
	if (memchr(name, '\0', len) != NULL || !tools_task_ok(name)) {
		mcp_tools_unknown(req, name, len, true);
		return;
	}
	if ((t = task_new(req, NULL, MCP_ERA_2025, json_type(ttl) ==
	    JSON_NUMBER ? json_int(ttl) : 0, &why)) == NULL) {
		mcp_fail(req, -32603, why);
		return;
	}
	req->task = t;
	task_reply(req, t, true);
	if (!mcp_hosts_call(req, name, args) &&
	    tools_call(req, name, args) == -1) {
		/* (tools_task_ok said it is there: cannot happen.) */
		task_answer(req, "{\"content\":[],\"isError\":true}", 33);
		return;
	}
	mcp_kick();
}

/* tools/call: check the envelope, then the tool layer has req (in the id
 * table until it answers); the tool checks its arguments. */
static void
mcp_tools_call(struct mcp_req *req, const struct json *params)
{
	const struct json	*name, *args;
	const char		*s;
	size_t			 len;

	name = json_get(params, "name");
	args = json_get(params, "arguments");
	if (json_type(params) != JSON_OBJECT) {
		mcp_fail(req, -32602, "tools/call needs params with a tool "
		    "name");
		return;
	}
	if (json_type(name) != JSON_STRING) {
		mcp_fail(req, -32602, "tools/call: params.name must be the "
		    "tool's name, a string");
		return;
	}
	if (args != NULL && json_type(args) != JSON_OBJECT &&
	    json_type(args) != JSON_NULL) {
		mcp_fail(req, -32602, "tools/call: params.arguments must be an "
		    "object");
		return;
	}
	if (json_type(args) == JSON_NULL)
		args = NULL;
	s = json_str(name, &len);
	mcp_tools_keep(req, params);
	if (req->ctx.era == MCP_ERA_2025 && req->ctx.tasks &&
	    json_type(json_get(params, "task")) == JSON_OBJECT) {
		mcp_tools_task_call(req, s, len, args, json_get(params,
		    "task"));
		return;
	}
	mcp_ids_add(req);
	/* A NUL inside the name must not match a tool by its prefix. A
	 * call for another host goes there (mcp_hosts.c). */
	if (memchr(s, '\0', len) != NULL || mcp_tools_hidden(req, s, len) ||
	    (!mcp_hosts_call(req, s, args) && tools_call(req, s, args) == -1)) {
		mcp_tools_unknown(req, s, len, false);
		return;
	}
	/* Still waiting: a 2026 client that takes tasks gets one if the
	 * wait goes on. (req is held: answered, it is only marked done.) */
	if (!req->done && req->ctx.era == MCP_ERA_2026 && req->ctx.tasks &&
	    tools_task_ok(s)) {
		req->task_wait = loop_timer_new(mcp_tools_task_due, req);
		loop_timer_set(req->task_wait, now_ms() + MCP_TASK_WAIT_MS);
	}
	mcp_kick();
}

/* The rows of the method table. */
const struct mcp_method mcp_tools_methods[] = {
	{ "tools/list", MCP_IN_2025|MCP_IN_2026, mcp_tools_list },
	{ "tools/call", MCP_IN_2025|MCP_IN_2026, mcp_tools_call },
	{ NULL, 0, NULL }
};
