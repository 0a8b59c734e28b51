/*
 * mcp.c — JSON-RPC 2.0 over stdio, and the one table of MCP methods.
 *
 * Input arrives in pieces from a non-blocking stdin; it is split on LF into
 * messages (a trailing CR is dropped), each parsed with json.c. A request
 * is looked up in the method table (each family's rows, mcp_req.h) for its
 * era, and its row's handler answers it, now or later; replies go to the
 * queue main.c flushes when stdout is writable (mcp_req.c), so a slow
 * client never blocks the loop. This file holds the envelope, the table,
 * batches and cancellation; no method's own work.
 *
 * Two eras, told apart per request. A request carrying a protocol
 * version in params._meta (io.modelcontextprotocol/protocolVersion), or
 * server/discover, is of the 2026-07-28 era: served on its own from its
 * _meta (mcp_session_meta fills its context). Any other request is of the
 * 2025 era: until initialize has been answered, a request other than
 * initialize or ping is an error (-32002) that says to send initialize
 * first, and then the negotiated version holds (batches only for
 * 2025-03-26, the experimental tasks only for 2025-11-25). A row names the
 * eras it is of; a method of neither is -32601. Notifications are never
 * answered.
 *
 * Errors: unparsable JSON -32700 (id null, as the id cannot be read); a
 * message over 16 MiB -32700 with its id if one is found near its start,
 * else null; not a request object -32600 (id null if it has none we can
 * echo); unknown method -32601; bad params, unknown tool or unknown
 * pagination cursor -32602. A tool's own failures, argument validation
 * included, are results with isError (tools.c). Names are compared with
 * their length, so a NUL inside a method or tool name never matches a
 * shorter one. Ids are echoed as their raw JSON text; a cancellation
 * matches them by value (big integers by their digits).
 *
 * Layer: protocol, at its top: calls the method families and mcp_req.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mcp_req.h"
#include "xmalloc.h"

#define MCP_LINE_MAX	(16u * 1024 * 1024)	/* one message, in bytes */
#define MCP_LOGGED	2000	/* bytes of a message in the debug log */

/* The method table: every family's rows. */
static const struct mcp_method *const mcp_families[] = {
	mcp_session_methods,
	mcp_tools_methods,
	task_methods,
	resource_methods,
	mcp_prompts_methods,
	mcp_listen_methods
};

static struct {
	struct buf	 in;
	bool		 skipping;	/* dropping an over-long line */
	bool		 held;		/* in holds whole lines not yet taken */
	bool		 eof;		/* stdin ended: in's last line counts */
} mcp;

/* Start with nothing read, nothing queued, no client yet. */
void
mcp_init(void)
{
	memset(&mcp, 0, sizeof mcp);
	mcp_session_init();
	mcp_tools_init();
	mcp_listen_init();
}

/* Must stdin wait (replies at the ceiling, or input held back)? */
bool
mcp_input_paused(void)
{
	return (mcp.held || mcp_output_full());
}

/* The row for method m (mlen bytes) in era (MCP_IN_*), or NULL. */
static const struct mcp_method *
mcp_method_find(const char *m, size_t mlen, unsigned era)
{
	const struct mcp_method	*row;
	size_t			 i;

	for (i = 0; i < sizeof mcp_families / sizeof *mcp_families; i++)
		for (row = mcp_families[i]; row->name != NULL; row++)
			if ((row->flags & era) && strlen(row->name) == mlen &&
			    memcmp(row->name, m, mlen) == 0)
				return (row);
	return (NULL);
}

/* Answer req: no method m (mlen bytes) in its era. A 2026 client
 * without the tasks extension asking a tasks/ method is told that. */
static void
mcp_no_method(struct mcp_req *req, const char *m, size_t mlen)
{
	struct buf	b = BUF_INIT;

	if (req->ctx.era == MCP_ERA_2026 && !req->ctx.tasks && mlen >= 6 &&
	    memcmp(m, "tasks/", 6) == 0) {
		mcp_missing_tasks(req, "the tasks/ methods");
		return;
	}
	buf_adds(&b, "method not found: ");
	mcp_quote_name(&b, m, mlen);
	if (req->ctx.era == MCP_ERA_2026)
		buf_adds(&b, " is not a " MCP_2026 " method here");
	mcp_fail(req, -32601, buf_cstr(&b));
	buf_free(&b);
}

/*
 * Run req's method m: its row's handler, if the era has it and what it
 * needs is there (the tasks the client takes, the resources we offer).
 * req is held meanwhile, so a handler that answers only marks it done.
 */
static void
mcp_dispatch(struct mcp_req *req, const char *m, size_t mlen,
    const struct json *params)
{
	const struct mcp_method	*row;

	row = mcp_method_find(m, mlen, req->ctx.era == MCP_ERA_2026 ?
	    MCP_IN_2026 : MCP_IN_2025);
	if (row != NULL && (row->flags & MCP_NEEDS_RES) && !resource_offered())
		row = NULL;
	if (row != NULL && (row->flags & MCP_NEEDS_TASKS) && !req->ctx.tasks)
		row = NULL;
	mcp_req_hold(req);
	if (row == NULL)
		mcp_no_method(req, m, mlen);
	else
		row->fn(req, params);
	mcp_req_release(req);
}

/* A 2026-07-28 request: its context from its own _meta, then its
 * method. */
static void
mcp_request_2026(struct mcp_req *req, const char *m, size_t mlen,
    const struct json *params)
{
	if (mcp_session_meta(req, params) == -1)
		return;
	log_debug("request %s: %.*s (" MCP_2026 ")", req->id, (int)mlen, m);
	mcp_dispatch(req, m, mlen, params);
}

/* A 2025 request: the session's context, once initialize is answered
 * (only it and ping before), and params an object. */
static void
mcp_request_2025(struct mcp_req *req, const char *m, size_t mlen,
    const struct json *params)
{
	const struct mcp_method	*row;

	mcp_session_ctx(&req->ctx);
	row = mcp_method_find(m, mlen, MCP_IN_2025);
	if (!mcp_session_ready() && (row == NULL ||
	    !(row->flags & MCP_PRE_INIT))) {
		mcp_fail(req, MCP_NOT_INITIALIZED, "not initialized: send "
		    "initialize first (and then notifications/initialized); "
		    "only ping is answered before it");
		return;
	}
	if (params != NULL && json_type(params) != JSON_OBJECT) {
		mcp_fail(req, -32602, "invalid params: MCP params are an "
		    "object");
		return;
	}
	log_debug("request %s: %.*s (%s)", req->id, (int)mlen, m,
	    mcp_session_ready() ? mcp_session_version() :
	    "before initialize");
	mcp_dispatch(req, m, mlen, params);
}

/* notifications/cancelled: drop a waiting request without a reply. */
static void
mcp_cancelled(const struct json *params)
{
	const struct json	*rid = json_get(params, "requestId");
	struct mcp_req		*req;
	char			*key;

	if (json_type(rid) != JSON_STRING && json_type(rid) != JSON_NUMBER)
		return;
	key = mcp_id_key(rid);
	if ((req = mcp_ids_find(key)) != NULL) {
		log_debug("request %s cancelled", req->id);
		if (req->call != NULL)
			tools_cancel(req->call);
		mcp_hosts_cancel(req);
		mcp_listen_cancel(req);
		mcp_req_done(req);
	}
	free(key);
}

/* A notification: never answered, not even when malformed. */
static void
mcp_notification(const char *m, const struct json *params)
{
	if (params != NULL && json_type(params) != JSON_OBJECT)
		params = NULL;
	if (strcmp(m, "notifications/initialized") == 0)
		mcp_session_set_initialized();
	else if (strcmp(m, "notifications/cancelled") == 0)
		mcp_cancelled(params);
}

/* Is the envelope's "jsonrpc" "2.0"? Else answered (with idraw, if not
 * NULL). */
static bool
mcp_jsonrpc_ok(const struct json *msg, const char *idraw)
{
	const struct json	*jv = json_get(msg, "jsonrpc");
	size_t			 len;

	if (json_type(jv) == JSON_STRING && json_str(jv, &len) != NULL &&
	    len == 3 && memcmp(json_str(jv, NULL), "2.0", 3) == 0)
		return (true);
	mcp_reply_error(idraw, -32600, "invalid request: \"jsonrpc\" must be "
	    "\"2.0\"");
	return (false);
}

/* One message: a request, a notification, or a response to ignore. */
static void
mcp_message(const struct json *msg)
{
	const struct json	*id, *method, *params;
	const char		*m, *raw;
	char			*idraw = NULL;
	size_t			 len, mlen;
	struct mcp_req		*req;

	if (json_type(msg) != JSON_OBJECT) {
		mcp_reply_error(NULL, -32600, "invalid request: a message is "
		    "a JSON object");
		return;
	}
	id = json_get(msg, "id");
	if (json_type(id) == JSON_STRING || json_type(id) == JSON_NUMBER) {
		raw = json_raw(id, &len);
		idraw = xstrndup(raw, len);
	}
	method = json_get(msg, "method");
	if (!mcp_jsonrpc_ok(msg, idraw)) {
		free(idraw);
		return;
	}
	if (method == NULL && (json_get(msg, "result") != NULL ||
	    json_get(msg, "error") != NULL)) {
		mcp_tools_response(idraw, msg);	/* ours are elicitations */
		free(idraw);
		return;
	}
	if (json_type(method) != JSON_STRING || (id != NULL && idraw ==
	    NULL)) {
		mcp_reply_error(idraw, -32600, json_type(method) !=
		    JSON_STRING ? "invalid request: \"method\" must be a "
		    "string" : "invalid request: \"id\" must be a string or "
		    "a number");
		free(idraw);
		return;
	}
	m = json_str(method, &mlen);
	params = json_get(msg, "params");
	if (json_type(params) == JSON_NULL)
		params = NULL;
	if (id == NULL) {
		if (memchr(m, '\0', mlen) == NULL)
			mcp_notification(m, params);
		free(idraw);
		return;
	}
	req = mcp_req_new(idraw, id);
	free(idraw);
	/* server/discover, or a version in _meta: the 2026-07-28 era. */
	if ((mlen == 15 && memcmp(m, "server/discover", 15) == 0) ||
	    (json_type(params) == JSON_OBJECT && json_get(json_get(params,
	    "_meta"), MCP_META_VERSION) != NULL))
		mcp_request_2026(req, m, mlen, params);
	else
		mcp_request_2025(req, m, mlen, params);
}

static char	*mcp_head_id(const char *, size_t);

/* One line of input. */
static void
mcp_line(const char *p, size_t len)
{
	struct json_doc		*doc;
	const struct json	*root;
	char			*cause = NULL, *id, msg[512];
	size_t			 i, n;

	while (len > 0 && (p[len - 1] == '\r' || p[len - 1] == ' ' ||
	    p[len - 1] == '\t'))
		len--;
	while (len > 0 && (*p == ' ' || *p == '\t' || *p == '\r')) {
		p++;
		len--;
	}
	if (len == 0)
		return;
	log_debug("in: %.*s%s", (int)(len > MCP_LOGGED ? MCP_LOGGED : len), p,
	    len > MCP_LOGGED ? "..." : "");
	if ((doc = json_parse(p, len, &cause)) == NULL) {
		snprintf(msg, sizeof msg, "parse error: %s", cause);
		/* Too deep is our limit, as too large is: its id, if it came
		 * first, is echoed so the client is not left waiting. Other
		 * JSON that cannot be read gets "id": null. */
		id = strncmp(cause, JSON_DEEP_CAUSE, strlen(JSON_DEEP_CAUSE))
		    == 0 ? mcp_head_id(p, len) : NULL;
		free(cause);
		mcp_reply_error(id, -32700, msg);
		free(id);
		return;
	}
	root = json_root(doc);
	if (json_type(root) != JSON_ARRAY) {
		mcp_message(root);
		json_doc_free(doc);
		return;
	}
	n = json_len(root);
	if (strcmp(mcp_session_version(), "2025-03-26") != 0 || n == 0) {
		mcp_reply_error(NULL, -32600, n == 0 ? "invalid request: "
		    "empty batch" : "invalid request: batches are only "
		    "allowed with protocol version 2025-03-26");
		json_doc_free(doc);
		return;
	}
	mcp_batch_begin();
	for (i = 0; i < n; i++)
		mcp_message(json_at(root, i));
	mcp_batch_end();
	json_doc_free(doc);
}

/* The end of the JSON string starting at p[i] (a quote), or 0. */
static size_t
mcp_skip_str(const char *p, size_t len, size_t i)
{
	for (i++; i < len; i++) {
		if (p[i] == '\\')
			i++;
		else if (p[i] == '"')
			return (i + 1);
	}
	return (0);
}

/* The end of the JSON value starting at p[i] (not checked), or 0. */
static size_t
mcp_skip_value(const char *p, size_t len, size_t i)
{
	size_t	depth = 0;

	if (i >= len)
		return (0);
	if (p[i] == '"')
		return (mcp_skip_str(p, len, i));
	if (p[i] != '{' && p[i] != '[') {
		while (i < len && strchr(",}] \t\r\n", p[i]) == NULL)
			i++;
		return (i < len ? i : 0);
	}
	for (; i < len; i++) {
		if (p[i] == '"') {
			if ((i = mcp_skip_str(p, len, i)) == 0)
				return (0);
			i--;
		} else if (p[i] == '{' || p[i] == '[')
			depth++;
		else if ((p[i] == '}' || p[i] == ']') && --depth == 0)
			return (i + 1);
	}
	return (0);
}

/*
 * The id of a message too large to parse, as raw JSON, if its first
 * MCP_ID_SCAN bytes hold an object's top-level "id" member whose value is
 * a string or a number; else NULL.
 */
static char *
mcp_head_id(const char *p, size_t len)
{
	struct json_doc		*doc;
	const struct json	*v;
	size_t			 i = 0, k, end;
	char			*id = NULL;

#define MCP_ID_SCAN	(64u * 1024)
#define MCP_WS(c)	((c) == ' ' || (c) == '\t' || (c) == '\r' || (c) == '\n')
	if (len > MCP_ID_SCAN)
		len = MCP_ID_SCAN;
	while (i < len && MCP_WS(p[i]))
		i++;
	if (i >= len || p[i++] != '{')
		return (NULL);
	for (;;) {
		while (i < len && MCP_WS(p[i]))
			i++;
		if (i >= len || p[i] != '"' || (k = mcp_skip_str(p, len,
		    i)) == 0)
			return (NULL);
		end = k;
		while (end < len && MCP_WS(p[end]))
			end++;
		if (end >= len || p[end++] != ':')
			return (NULL);
		while (end < len && MCP_WS(p[end]))
			end++;
		if (k - i == 4 && memcmp(p + i, "\"id\"", 4) == 0) {
			i = end;
			if ((end = mcp_skip_value(p, len, i)) == 0)
				return (NULL);
			doc = json_parse(p + i, end - i, NULL);
			v = doc != NULL ? json_root(doc) : NULL;
			if (v != NULL && (json_type(v) == JSON_STRING ||
			    json_type(v) == JSON_NUMBER))
				id = xstrndup(p + i, end - i);
			json_doc_free(doc);
			return (id);
		}
		if ((i = mcp_skip_value(p, len, end)) == 0)
			return (NULL);
		while (i < len && MCP_WS(p[i]))
			i++;
		if (i >= len || p[i++] != ',')
			return (NULL);
	}
#undef MCP_WS
}

/* Bytes from stdin: split into lines. */
void
mcp_input(const char *p, size_t len)
{
	const char	*nl;
	char		*id;
	size_t		 n;

	while (len > 0) {
		nl = memchr(p, '\n', len);
		n = nl ? (size_t)(nl - p) : len;
		if (mcp.skipping) {
			if (nl != NULL)
				mcp.skipping = false;
		} else if (mcp.in.len + n > MCP_LINE_MAX) {
			id = mcp.in.len > 0 ? mcp_head_id(mcp.in.data,
			    mcp.in.len) : mcp_head_id(p, n);
			buf_reset(&mcp.in);
			mcp.skipping = (nl == NULL);
			mcp_reply_error(id, -32700, "message too large: a "
			    "message may be at most 16 MiB");
			free(id);
		} else if (nl == NULL)
			buf_add(&mcp.in, p, n);
		else if (mcp.in.len == 0)
			mcp_line(p, n);
		else {
			buf_add(&mcp.in, p, n);
			mcp_line(mcp.in.data, mcp.in.len);
			buf_reset(&mcp.in);
		}
		if (nl == NULL)
			break;
		p += n + 1;
		len -= n + 1;
		/* At a line boundary in is empty: hold the rest there. */
		if (len > 0 && mcp_output_full()) {
			log_debug("%zu bytes of replies queued: holding %zu "
			    "bytes of input", mcp_output_len(), len);
			buf_add(&mcp.in, p, len);
			mcp.held = true;
			return;
		}
	}
}

/* After the end of input, once nothing is held: a last line without LF
 * still counts. */
static void
mcp_input_last(void)
{
	if (mcp.in.len > 0 && !mcp.skipping)
		mcp_line(mcp.in.data, mcp.in.len);
	buf_reset(&mcp.in);
}

/* Take the input held back, once the replies are under the ceiling (and
 * after the end of input, the last line). */
void
mcp_input_resume(void)
{
	struct buf	t;

	if (!mcp.held || mcp_output_full())
		return;
	/*
	 * Each resume takes at least one line, and follows the client
	 * reading about half the ceiling, so copying what is held again
	 * (under 64 KiB, one read) is cheap.
	 */
	t = mcp.in;
	buf_init(&mcp.in);
	mcp.held = false;
	mcp_input(t.data, t.len);
	buf_free(&t);
	if (mcp.eof && !mcp.held)
		mcp_input_last();
}

/* EOF: what is held back is still taken as the client reads its
 * replies (mcp_input_resume), and a last line without LF counts. */
void
mcp_input_eof(void)
{
	mcp.eof = true;
	if (!mcp.held)
		mcp_input_last();
}

/* Is input held back, not yet taken? */
bool
mcp_input_held(void)
{
	return (mcp.held);
}

