/*
 * mcp.c — JSON-RPC 2.0 over stdio, and the MCP methods.
 *
 * Input arrives in pieces from a non-blocking stdin; it is split on LF into
 * messages (a trailing CR is dropped), each parsed with json.c. Replies go
 * to a queue that main.c flushes when stdout is writable, so a slow client
 * never blocks the loop. A tools/call is handed to the tool layer
 * (tools.c), which answers it now or later (a read that waits holds its
 * own timers there); until then it is in a table by id, so that a
 * cancellation finds it at once and it is dropped without a reply. This
 * file speaks JSON-RPC only: framing, methods, ids, batches,
 * notifications, backpressure.
 *
 * Lifecycle: until initialize has been answered, a request other than
 * initialize or ping is an error (-32002) that says to send initialize
 * first; notifications are never answered.
 *
 * Backpressure: while the replies queued for stdout (their buffer's
 * footprint, drained head included) reach MCP_OUT_MAX, no new request is
 * taken: the rest of what was read is held, and main.c stops reading
 * stdin until the client has read enough (mcp_input_paused). Replies to
 * requests already taken (a read that was waiting) may still be queued
 * past the ceiling; they are bounded by the requests taken.
 *
 * Errors: unparsable JSON -32700 (id null, as the id cannot be read); a
 * message over 16 MiB -32700 with its id if one is found near its start,
 * else null; not a request object -32600 (id null if it has none we can
 * echo); unknown method -32601; bad params, unknown tool
 * or unknown pagination cursor -32602. A tool's own failures, argument
 * validation included, are results with isError (tools.c). Names are
 * compared with their length, so a NUL inside a method or tool name never
 * matches a shorter one. Ids are echoed as their raw JSON text; a
 * cancellation matches them by value (big integers by their digits).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdutil.h"
#include "log.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define MCP_LINE_MAX	(16u * 1024 * 1024)	/* one message, in bytes */
#define MCP_LATEST	"2025-11-25"
#define MCP_NAME_SHOWN	128	/* bytes of a method or tool name echoed */
#define MCP_OUT_MAX	(64u * 1024 * 1024)	/* replies queued, in bytes */
#define MCP_NOT_INITIALIZED	-32002	/* a request before initialize */

static const char *mcp_versions[] = {
	"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"
};

/* A batch (2025-03-26 only) answers once all its requests are answered. */
struct batch {
	int		 outstanding;
	struct buf	 parts;
	bool		 any;
};

/* A request being answered. */
struct mcp_req {
	char		*id;		/* raw JSON text of the id, echoed */
	char		*idkey;		/* the id by value, for cancellation */
	struct batch	*batch;		/* the batch it came in, if any */
	char		*progress_token; /* raw JSON, if the client sent one */
	double		 progress_sent;
	struct req	*call;		/* the tool call answering it */
	struct mcp_req	*hnext;		/* in the id table, while a tool */
	struct mcp_req	**hprev;	/* has it (hprev NULL: not in it) */
};

static struct {
	struct buf	 in;
	bool		 skipping;	/* dropping an over-long line */
	bool		 held;		/* in holds whole lines not yet taken */
	struct buf	 out;
	char		 version[16];	/* negotiated */
	int		 log_level;	/* index into mcp_levels */
	bool		 init_answered;	/* initialize has been answered */
	bool		 initialized;	/* notifications/initialized came */
	struct batch	*batch;		/* the batch being read, if any */
} mcp;

/*
 * The tools/call requests a tool has not answered yet, by idkey: a
 * hash table of chains, grown as it fills, so adding, finding and
 * removing one cost O(1) however many wait.
 */
static struct {
	struct mcp_req	**slots;
	size_t		  nslots;	/* a power of two, or 0 */
	size_t		  n;
} mcp_ids;

static void	mcp_log_sink(int, const char *, const char *);

/* Start with nothing read, nothing queued, the newest version; what is
 * logged for the client (log_notify) goes to it as notifications. */
static void	mcp_req_set_call(struct mcp_req *, struct req *);
static void	mcp_answer(struct mcp_req *, const char *, size_t);
static bool	mcp_wants_progress(const struct mcp_req *);
static void	mcp_progress(struct mcp_req *, double, double, const char *);

/* What the tool layer answers calls with. */
static const struct tools_rpc mcp_tools_rpc = {
	.bind = mcp_req_set_call,
	.answer = mcp_answer,
	.wants_progress = mcp_wants_progress,
	.progress = mcp_progress
};

void
mcp_init(void)
{
	memset(&mcp, 0, sizeof mcp);
	mcp.log_level = 3;	/* warning */
	strcpy(mcp.version, MCP_LATEST);
	log_set_sink(mcp_log_sink);
	tools_set_rpc(&mcp_tools_rpc);
}

/* Queue one message (a JSON text without newline) for stdout. */
static void
mcp_write_line(struct buf *b)
{
	buf_add(&mcp.out, b->data, b->len);
	buf_addc(&mcp.out, '\n');
}

/* Are replies queued for stdout? */
bool
mcp_output_pending(void)
{
	return (mcp.out.len > 0);
}

/* Are the queued replies at the ceiling (space drained but not yet
 * reclaimed counts: it is memory the queue holds)? */
static bool
mcp_output_full(void)
{
	return (mcp.out.off + mcp.out.len >= MCP_OUT_MAX);
}

/* Must stdin wait (replies at the ceiling, or input held back)? */
bool
mcp_input_paused(void)
{
	return (mcp.held || mcp_output_full());
}

/* Write what stdout takes now; -1 if the client is gone. */
int
mcp_flush(int fd)
{
	return (fd_flush(fd, &mcp.out));
}

/* A reply goes out now, or into its batch (bt, if not NULL). */
static void
mcp_emit(struct batch *bt, struct buf *msg)
{
	if (bt == NULL) {
		mcp_write_line(msg);
		return;
	}
	buf_addc(&bt->parts, bt->any ? ',' : '[');
	buf_add(&bt->parts, msg->data, msg->len);
	bt->any = true;
}

/* One fewer request outstanding in a batch; send it when complete. */
static void
mcp_batch_release(struct batch *bt)
{
	if (bt == NULL || --bt->outstanding > 0)
		return;
	if (bt->any) {
		buf_addc(&bt->parts, ']');
		mcp_write_line(&bt->parts);
	}
	buf_free(&bt->parts);
	free(bt);
}

/* A request being answered, counted in the batch being read if any. */
static struct mcp_req *
mcp_req_new(const char *id)
{
	struct mcp_req	*req;

	req = xcalloc(1, sizeof *req);
	req->id = id ? xstrdup(id) : NULL;
	if (mcp.batch != NULL) {
		req->batch = mcp.batch;
		mcp.batch->outstanding++;
	}
	return (req);
}

/* FNV-1a of an idkey, for the id table. */
static size_t
mcp_ids_hash(const char *key)
{
	uint64_t	h = 14695981039346656037ULL;

	for (; *key != '\0'; key++)
		h = (h ^ (unsigned char)*key) * 1099511628211ULL;
	return ((size_t)h);
}

/* Put req at the head of its chain. */
static void
mcp_ids_link(struct mcp_req *req)
{
	struct mcp_req	**head;

	head = &mcp_ids.slots[mcp_ids_hash(req->idkey) & (mcp_ids.nslots - 1)];
	req->hnext = *head;
	if (*head != NULL)
		(*head)->hprev = &req->hnext;
	*head = req;
	req->hprev = head;
}

/* Twice as many chains: every request is linked again. */
static void
mcp_ids_grow(void)
{
	struct mcp_req	**old = mcp_ids.slots, *req, *next;
	size_t		  i, n = mcp_ids.nslots;

	mcp_ids.nslots = n == 0 ? 64 : n * 2;
	mcp_ids.slots = xcalloc(mcp_ids.nslots, sizeof *mcp_ids.slots);
	for (i = 0; i < n; i++) {
		for (req = old[i]; req != NULL; req = next) {
			next = req->hnext;
			mcp_ids_link(req);
		}
	}
	free(old);
}

/* A tool has req now: find it by id until it is answered. */
static void
mcp_ids_add(struct mcp_req *req)
{
	if (mcp_ids.n >= mcp_ids.nslots)
		mcp_ids_grow();
	mcp_ids_link(req);
	mcp_ids.n++;
}

/* Take req out of the id table, if it is in it. */
static void
mcp_ids_del(struct mcp_req *req)
{
	if (req->hprev == NULL)
		return;
	*req->hprev = req->hnext;
	if (req->hnext != NULL)
		req->hnext->hprev = req->hprev;
	req->hprev = NULL;
	mcp_ids.n--;
}

/* The request a tool has with this idkey (the latest, if several). */
static struct mcp_req *
mcp_ids_find(const char *key)
{
	struct mcp_req	*req;

	if (mcp_ids.nslots == 0)
		return (NULL);
	req = mcp_ids.slots[mcp_ids_hash(key) & (mcp_ids.nslots - 1)];
	for (; req != NULL; req = req->hnext)
		if (strcmp(req->idkey, key) == 0)
			return (req);
	return (NULL);
}

/* The request is answered (or dropped): forget and free it, releasing
 * its batch. */
static void
mcp_req_done(struct mcp_req *req)
{
	mcp_ids_del(req);
	mcp_batch_release(req->batch);
	free(req->id);
	free(req->idkey);
	free(req->progress_token);
	free(req);
}

/* The tool call answering req (tools.c), for a cancellation to reach. */
static void
mcp_req_set_call(struct mcp_req *req, struct req *call)
{
	req->call = call;
}

/* Send {"jsonrpc":"2.0","id":ID,"result":RESULT} for req. */
static void
mcp_reply_result(struct mcp_req *req, const char *result, size_t len)
{
	struct buf	b = BUF_INIT;

	buf_adds(&b, "{\"jsonrpc\":\"2.0\",\"id\":");
	buf_adds(&b, req->id);
	buf_adds(&b, ",\"result\":");
	buf_add(&b, result, len);
	buf_addc(&b, '}');
	mcp_emit(req->batch, &b);
	buf_free(&b);
}

/* Write an error response; id is raw JSON text or NULL for none. */
static void
mcp_error_msg(struct buf *b, const char *id, int code, const char *msg)
{
	struct jw	w;

	jw_init(&w, b);
	jw_obj_begin(&w);
	jw_key(&w, "jsonrpc");
	jw_str(&w, "2.0");
	/* JSON-RPC 2.0: the member is there, null when the id is unknown. */
	jw_key(&w, "id");
	if (id != NULL)
		jw_raw(&w, id, strlen(id));
	else
		jw_null(&w);
	jw_key(&w, "error");
	jw_obj_begin(&w);
	jw_key(&w, "code");
	jw_int(&w, code);
	jw_key(&w, "message");
	jw_str(&w, msg);
	jw_obj_end(&w);
	jw_obj_end(&w);
}

/* An error reply not tied to a request object (parse errors); id NULL
 * answers with "id": null. */
static void
mcp_reply_error(const char *id, int code, const char *msg)
{
	struct buf	b = BUF_INIT;

	mcp_error_msg(&b, id, code, msg);
	mcp_emit(mcp.batch, &b);
	buf_free(&b);
}

/* Answer req with a JSON-RPC error (the caller still frees req). */
static void
mcp_req_error(struct mcp_req *req, int code, const char *msg)
{
	struct buf	b = BUF_INIT;

	mcp_error_msg(&b, req->id, code, msg);
	mcp_emit(req->batch, &b);
	buf_free(&b);
}

/* A tool's answer to req: send it and free req. */
static void
mcp_answer(struct mcp_req *req, const char *result, size_t len)
{
	mcp_reply_result(req, result, len);
	mcp_req_done(req);
}

/* A client-chosen name for an error message: bounded, NULs shown. */
static void
mcp_quote_name(struct buf *b, const char *s, size_t len)
{
	size_t	i, n = len > MCP_NAME_SHOWN ? MCP_NAME_SHOWN : len;

	for (i = 0; i < n; i++) {
		if (s[i] == '\0')
			buf_adds(b, "\\0");
		else
			buf_addc(b, s[i]);
	}
	if (n < len)
		buf_adds(b, "...");
}

/* RFC 5424 order, as logging/setLevel names them. */
static const char *mcp_levels[] = {
	"debug", "info", "notice", "warning", "error", "critical", "alert",
	"emergency"
};

/* logging/setLevel: send that level and more severe from now on. */
static void
mcp_set_level(struct mcp_req *req, const struct json *params)
{
	const struct json	*lv;
	size_t			 i;

	lv = params ? json_get(params, "level") : NULL;
	for (i = 0; lv != NULL && json_type(lv) == JSON_STRING &&
	    i < sizeof mcp_levels / sizeof *mcp_levels; i++) {
		if (strcmp(json_str(lv, NULL), mcp_levels[i]) == 0) {
			mcp.log_level = (int)i;
			mcp_reply_result(req, "{}", 2);
			return;
		}
	}
	mcp_req_error(req, -32602, "logging/setLevel: level must be one of "
	    "debug, info, notice, warning, error, critical, alert, emergency");
}

/*
 * A notifications/message to the client, at a level (index into
 * mcp_levels), if the client asked for that level or one below. Until
 * logging/setLevel is called, warnings and worse are sent.
 */
static void
mcp_log(int level, const char *logger, const char *fmt, ...)
{
	struct buf	 b = BUF_INIT;
	struct jw	 w;
	va_list		 ap;
	char		*s;

	if (level < mcp.log_level || !mcp.initialized)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) == -1)
		s = NULL;
	va_end(ap);
	jw_init(&w, &b);
	jw_obj_begin(&w);
	jw_key(&w, "jsonrpc");
	jw_str(&w, "2.0");
	jw_key(&w, "method");
	jw_str(&w, "notifications/message");
	jw_key(&w, "params");
	jw_obj_begin(&w);
	jw_key(&w, "level");
	jw_str(&w, mcp_levels[level]);
	jw_key(&w, "logger");
	jw_str(&w, logger);
	jw_key(&w, "data");
	jw_str(&w, s ? s : "");
	jw_obj_end(&w);
	jw_obj_end(&w);
	mcp_write_line(&b);
	buf_free(&b);
	free(s);
}

/* log_notify's messages, as notifications/message. */
static void
mcp_log_sink(int level, const char *logger, const char *msg)
{
	mcp_log(level, logger, "%s", msg);
}

/* Keep a tools/call's progress token (raw JSON), if it sent one. */
static void
mcp_progress_token(struct mcp_req *req, const struct json *params)
{
	const struct json	*meta, *tok;
	const char		*raw;
	size_t			 len;

	if (params == NULL || (meta = json_get(params, "_meta")) == NULL ||
	    json_type(meta) != JSON_OBJECT ||
	    (tok = json_get(meta, "progressToken")) == NULL ||
	    (json_type(tok) != JSON_STRING && json_type(tok) != JSON_NUMBER))
		return;
	raw = json_raw(tok, &len);
	req->progress_token = xstrndup(raw, len);
}

/* Did the client ask for progress notifications on req? */
static bool
mcp_wants_progress(const struct mcp_req *req)
{
	return (req->progress_token != NULL);
}

/* notifications/progress for a waiting request; progress must grow. */
static void
mcp_progress(struct mcp_req *req, double progress, double total,
    const char *message)
{
	struct buf	 b = BUF_INIT;
	struct jw	 w;

	if (req->progress_token == NULL || progress <= req->progress_sent)
		return;
	req->progress_sent = progress;
	jw_init(&w, &b);
	jw_obj_begin(&w);
	jw_key(&w, "jsonrpc");
	jw_str(&w, "2.0");
	jw_key(&w, "method");
	jw_str(&w, "notifications/progress");
	jw_key(&w, "params");
	jw_obj_begin(&w);
	jw_key(&w, "progressToken");
	jw_raw(&w, req->progress_token, strlen(req->progress_token));
	jw_key(&w, "progress");
	jw_double(&w, progress);
	if (total > 0) {
		jw_key(&w, "total");
		jw_double(&w, total);
	}
	if (message != NULL && strcmp(mcp.version, "2024-11-05") != 0) {
		jw_key(&w, "message");
		jw_str(&w, message);
	}
	jw_obj_end(&w);
	jw_obj_end(&w);
	mcp_write_line(&b);
	buf_free(&b);
}

/* initialize: agree on a version, say what we offer. */
static void
mcp_initialize(struct mcp_req *req, const struct json *params)
{
	const struct json	*pv;
	const char		*v = NULL;
	struct buf		 b = BUF_INIT;
	struct jw		 w;
	size_t			 i;

	pv = params ? json_get(params, "protocolVersion") : NULL;
	if (pv != NULL && json_type(pv) == JSON_STRING) {
		for (i = 0; i < sizeof mcp_versions / sizeof *mcp_versions; i++)
			if (strcmp(json_str(pv, NULL), mcp_versions[i]) == 0)
				v = mcp_versions[i];
	}
	snprintf(mcp.version, sizeof mcp.version, "%s", v ? v : MCP_LATEST);
	mcp.init_answered = true;

	jw_init(&w, &b);
	jw_obj_begin(&w);
	jw_key(&w, "protocolVersion");
	jw_str(&w, mcp.version);
	jw_key(&w, "capabilities");
	jw_obj_begin(&w);
	jw_key(&w, "tools");
	jw_obj_begin(&w);
	jw_key(&w, "listChanged");
	jw_bool(&w, false);
	jw_obj_end(&w);
	jw_key(&w, "logging");
	jw_obj_begin(&w);
	jw_obj_end(&w);
	jw_obj_end(&w);
	jw_key(&w, "serverInfo");
	jw_obj_begin(&w);
	jw_key(&w, "name");
	jw_str(&w, "progmux");
	jw_key(&w, "title");
	jw_str(&w, "progmux — programs in tmux panes");
	jw_key(&w, "version");
	jw_str(&w, PROGMUX_VERSION);
	jw_obj_end(&w);
	jw_key(&w, "instructions");
	jw_str(&w, "progmux runs programs in tmux panes and returns what they "
	    "print as clean text; argv is never parsed by a shell. Use "
	    "run_program for a one-shot command (it waits for the end and "
	    "returns the output and exit status in one call). Use "
	    "start_program for anything that runs longer than one wait or "
	    "needs keys typed (a build, a server, a REPL), then read_program "
	    "with the cursor each read returns until ended is true; "
	    "send_keys types into its pane and stop_program ends it. For "
	    "full-screen programs (editors, top, pagers) and the current "
	    "state of progress bars, read the screen with capture_pane. "
	    "list_programs shows every program held.");
	jw_obj_end(&w);
	mcp_reply_result(req, b.data, b.len);
	buf_free(&b);
}

/* tools/list: every tool in one page, so any cursor is unknown. */
static void
mcp_tools_list(struct mcp_req *req, const struct json *params)
{
	struct buf	 b = BUF_INIT;
	struct jw	 w;

	if (params != NULL && json_get(params, "cursor") != NULL) {
		const struct json *c = json_get(params, "cursor");

		if (json_type(c) != JSON_NULL) {
			mcp_req_error(req, -32602, "unknown cursor: tools/list "
			    "returns every tool in one page, so no cursor is "
			    "valid");
			return;
		}
	}
	jw_init(&w, &b);
	jw_obj_begin(&w);
	jw_key(&w, "tools");
	jw_arr_begin(&w);
	tools_list(&w);
	jw_arr_end(&w);
	jw_obj_end(&w);
	mcp_reply_result(req, b.data, b.len);
	buf_free(&b);
}

/* tools/call: check the envelope, then the tool layer has req (in the id
 * table until it answers); the tool checks its arguments. */
static void
mcp_tools_call(struct mcp_req *req, const struct json *params)
{
	const struct json	*name, *args;
	const char		*s;
	size_t			 len;
	struct buf		 b = BUF_INIT;

	/* Every error here answers and frees req: a batch waits on it. */
	if (params == NULL || json_type(params) != JSON_OBJECT) {
		mcp_req_error(req, -32602, "tools/call needs params with a "
		    "tool name");
		mcp_req_done(req);
		return;
	}
	name = json_get(params, "name");
	args = json_get(params, "arguments");
	if (name == NULL || json_type(name) != JSON_STRING) {
		mcp_req_error(req, -32602, "tools/call: params.name must be "
		    "the tool's name, a string");
		mcp_req_done(req);
		return;
	}
	if (args != NULL && json_type(args) != JSON_OBJECT &&
	    json_type(args) != JSON_NULL) {
		mcp_req_error(req, -32602, "tools/call: params.arguments must "
		    "be an object");
		mcp_req_done(req);
		return;
	}
	if (args != NULL && json_type(args) == JSON_NULL)
		args = NULL;
	s = json_str(name, &len);
	mcp_ids_add(req);
	/* A NUL inside the name must not match a tool by its prefix. */
	if (memchr(s, '\0', len) == NULL && tools_call(req, s, args) == 0)
		return;
	buf_adds(&b, "unknown tool \"");
	mcp_quote_name(&b, s, len);
	buf_adds(&b, "\": tools/list names the tools there are");
	mcp_req_error(req, -32602, buf_cstr(&b));
	buf_free(&b);
	mcp_req_done(req);
}

/* A key to match a cancellation's requestId against ids, by value. */
static char *
mcp_id_key(const struct json *id)
{
	struct buf	 b = BUF_INIT;
	struct jw	 w;
	const char	*raw;
	size_t		 len, i;

	jw_init(&w, &b);
	if (json_type(id) != JSON_NUMBER) {
		jw_value(&w, id);
		buf_cstr(&b);
		return (b.data);
	}
	/*
	 * Numbers by value: 1, 1.0 and 1e0 are one id. Integers beyond
	 * int64_t keep their digits, so two big ids never share a key.
	 */
	raw = json_raw(id, &len);
	for (i = 0; i < len; i++)
		if (strchr("-0123456789", raw[i]) == NULL)
			break;
	if (json_is_int(id))
		buf_printf(&b, "n%lld", (long long)json_int(id));
	else if (json_is_integral(id) && len > 0 && i == len)
		buf_printf(&b, "n%.*s", (int)len, raw);
	else
		buf_printf(&b, "n%.17g", json_num(id));
	buf_cstr(&b);
	return (b.data);
}

/* notifications/cancelled: drop a waiting request without a reply. */
static void
mcp_cancelled(const struct json *params)
{
	const struct json	*rid;
	struct mcp_req		*req;
	char			*key;

	if (params == NULL || (rid = json_get(params, "requestId")) == NULL)
		return;
	if (json_type(rid) != JSON_STRING && json_type(rid) != JSON_NUMBER)
		return;
	key = mcp_id_key(rid);
	if ((req = mcp_ids_find(key)) != NULL) {
		log_debug("request %s cancelled", req->id);
		if (req->call != NULL)
			tools_cancel(req->call);
		mcp_req_done(req);
	}
	free(key);
}

/* One message: a request, a notification, or a response to ignore. */
static void
mcp_message(const struct json *msg)
{
	const struct json	*jv, *id, *method, *params;
	const char		*m;
	char			*idraw = NULL;
	size_t			 len, mlen;
	struct mcp_req		*req;
	struct buf		 b = BUF_INIT;

	if (json_type(msg) != JSON_OBJECT) {
		mcp_reply_error(NULL, -32600, "invalid request: a message is "
		    "a JSON object");
		return;
	}
	id = json_get(msg, "id");
	if (id != NULL && (json_type(id) == JSON_STRING ||
	    (json_type(id) == JSON_NUMBER))) {
		const char *raw = json_raw(id, &len);

		idraw = xstrndup(raw, len);
	}
	jv = json_get(msg, "jsonrpc");
	method = json_get(msg, "method");
	if (jv == NULL || json_type(jv) != JSON_STRING ||
	    json_str(jv, &len) == NULL || len != 3 ||
	    memcmp(json_str(jv, NULL), "2.0", 3) != 0) {
		mcp_reply_error(idraw, -32600, "invalid request: \"jsonrpc\" "
		    "must be \"2.0\"");
		free(idraw);
		return;
	}
	if (method == NULL && (json_get(msg, "result") != NULL ||
	    json_get(msg, "error") != NULL)) {
		free(idraw);	/* a response; we send no requests */
		return;
	}
	if (method == NULL || json_type(method) != JSON_STRING ||
	    (id != NULL && idraw == NULL)) {
		mcp_reply_error(idraw, -32600, method == NULL ||
		    json_type(method) != JSON_STRING ?
		    "invalid request: \"method\" must be a string" :
		    "invalid request: \"id\" must be a string or a number");
		free(idraw);
		return;
	}
	m = json_str(method, &mlen);
	if (memchr(m, '\0', mlen) != NULL)
		m = "";		/* no method has a NUL in its name */
	params = json_get(msg, "params");
	if (params != NULL && json_type(params) == JSON_NULL)
		params = NULL;

	if (id == NULL) {
		/* Notifications are never answered, not even malformed. */
		if (params != NULL && json_type(params) != JSON_OBJECT)
			params = NULL;
		if (strcmp(m, "notifications/initialized") == 0)
			mcp.initialized = true;
		else if (strcmp(m, "notifications/cancelled") == 0)
			mcp_cancelled(params);
		return;
	}

	req = mcp_req_new(idraw);
	req->idkey = mcp_id_key(id);
	free(idraw);
	if (!mcp.init_answered && strcmp(m, "initialize") != 0 &&
	    strcmp(m, "ping") != 0) {
		mcp_req_error(req, MCP_NOT_INITIALIZED, "not initialized: send "
		    "initialize first (and then notifications/initialized); "
		    "only ping is answered before it");
		mcp_req_done(req);
		return;
	}
	if (params != NULL && json_type(params) != JSON_OBJECT) {
		mcp_req_error(req, -32602, "invalid params: MCP params are an "
		    "object");
		mcp_req_done(req);
		return;
	}
	if (strcmp(m, "initialize") == 0)
		mcp_initialize(req, params);
	else if (strcmp(m, "ping") == 0)
		mcp_reply_result(req, "{}", 2);
	else if (strcmp(m, "tools/list") == 0)
		mcp_tools_list(req, params);
	else if (strcmp(m, "logging/setLevel") == 0)
		mcp_set_level(req, params);
	else if (strcmp(m, "tools/call") == 0) {
		mcp_progress_token(req, params);
		mcp_tools_call(req, params);
		return;		/* tools own req from here */
	} else {
		buf_adds(&b, "method not found: ");
		mcp_quote_name(&b, json_str(method, NULL), mlen);
		mcp_req_error(req, -32601, buf_cstr(&b));
		buf_free(&b);
	}
	mcp_req_done(req);
}

/* One line of input. */
static void
mcp_line(const char *p, size_t len)
{
	struct json_doc		*doc;
	const struct json	*root;
	char			*cause = NULL, msg[512];
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
	if ((doc = json_parse(p, len, &cause)) == NULL) {
		snprintf(msg, sizeof msg, "parse error: %s", cause);
		free(cause);
		mcp_reply_error(NULL, -32700, msg);
		return;
	}
	root = json_root(doc);
	if (json_type(root) != JSON_ARRAY) {
		mcp_message(root);
		json_doc_free(doc);
		return;
	}
	n = json_len(root);
	if (strcmp(mcp.version, "2025-03-26") != 0 || n == 0) {
		mcp_reply_error(NULL, -32600, n == 0 ? "invalid request: "
		    "empty batch" : "invalid request: batches are only "
		    "allowed with protocol version 2025-03-26");
		json_doc_free(doc);
		return;
	}
	mcp.batch = xcalloc(1, sizeof *mcp.batch);
	mcp.batch->outstanding = 1;	/* held until every item is read */
	for (i = 0; i < n; i++)
		mcp_message(json_at(root, i));
	{
		struct batch *bt = mcp.batch;

		mcp.batch = NULL;
		mcp_batch_release(bt);
	}
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
			    "bytes of input", mcp.out.len, len);
			buf_add(&mcp.in, p, len);
			mcp.held = true;
			return;
		}
	}
}

/* Take the input held back, once the replies are under the ceiling. */
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
}

/* EOF: a last line without LF still counts. */
void
mcp_input_eof(void)
{
	if (mcp.in.len > 0 && !mcp.skipping)
		mcp_line(mcp.in.data, mcp.in.len);
	buf_reset(&mcp.in);
}

/* The protocol version agreed by the last initialize. */
const char *
mcp_protocol_version(void)
{
	return (mcp.version);
}
