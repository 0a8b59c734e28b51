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
 * Two eras, told apart per request. A request carrying a protocol
 * version in params._meta (io.modelcontextprotocol/protocolVersion), or
 * server/discover, is of the 2026-07-28 era: served on its own from its
 * _meta (version, client capabilities, log level; -32602 if the first
 * two are missing, -32022 with the versions we speak for another), its
 * result opened with resultType and our serverInfo, cacheable ones with
 * ttlMs and cacheScope (mcp_result_text); ping, logging/setLevel,
 * initialize and resources/subscribe are not of it (-32601), and
 * notifications/message goes only to a request that set a log level.
 * Any other request is of the 2025 era: until initialize has been
 * answered, a request other than initialize or ping is an error (-32002)
 * that says to send initialize first, and then the negotiated version
 * holds (batches only for 2025-03-26, the experimental tasks only for
 * 2025-11-25). Notifications are never answered.
 *
 * Tasks (task.c): a modern call of a tool that may wait long
 * (tools_task_ok), from a client whose capabilities name the tasks
 * extension, that is still waiting after MCP_TASK_WAIT_MS is answered
 * with a task; a 2025-11-25 call asking for one gets it at once. Either
 * way the call goes on unchanged and its answer, the text it would have
 * sent (mcp_answer), is what the task keeps.
 *
 * Resources (resource.c, through tools.c) and change notifications: a
 * look every MCP_POLL_MS while anyone listens (a 2025 client once it has
 * used resources, or a subscriptions/listen stream) finds what changed;
 * list_changed and updated go to whoever asked, each listen stream's
 * tagged with its subscriptionId.
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
#include <sys/queue.h>

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
#define MCP_NO_RESOURCE		-32002	/* 2025: a resource not there */
#define MCP_MISSING_CAPABILITY	-32021	/* 2026-07-28 */
#define MCP_UNSUPPORTED_VERSION	-32022	/* 2026-07-28 */
#define MCP_MODERN		"2026-07-28"
#define MCP_META_VERSION	"io.modelcontextprotocol/protocolVersion"
#define MCP_META_CAPS		"io.modelcontextprotocol/clientCapabilities"
#define MCP_META_LEVEL		"io.modelcontextprotocol/logLevel"
#define MCP_META_SUB		"io.modelcontextprotocol/subscriptionId"
#define MCP_TASKS_EXT		"io.modelcontextprotocol/tasks"
#define MCP_TASK_WAIT_MS	1000	/* a modern call this long: a task */
#define MCP_POLL_MS		1000	/* a look at the resources */
#define MCP_TTL_FIXED		3600000	/* ttlMs of what never changes */
#define MCP_LOGGED		2000	/* bytes of a message in the debug log */
#define MCP_SUBS_MAX		1024	/* resources/subscribe URIs kept */
#define MCP_LISTENS_MAX		64	/* subscriptions/listen streams open */

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

	bool		 modern;	/* 2026-07-28: served statelessly */
	bool		 task_ext;	/* modern: the client takes tasks */
	bool		 elicit_url;	/* modern: it takes URL elicitation */
	int64_t		 ttl;		/* a cacheable result's ttlMs, or -1 */
	bool		 public;	/* its cacheScope */
	struct task	*task;		/* the call became this task */
	struct loop_timer *task_wait;	/* modern: when it becomes one */
	struct mcp_listen *listen;	/* a subscriptions/listen stream */
	char		*result_of;	/* tasks/result: the task it waits on */
	LIST_ENTRY(mcp_req) wentry;	/* in mcp.result_waits, then */
};

/* A subscriptions/listen stream: what it asked to be told. */
struct mcp_listen {
	struct mcp_req	*req;
	bool		 resources;	/* resourcesListChanged */
	char		**uris;		/* resourceSubscriptions */
	size_t		  nuris;
	char		**tasks;	/* taskIds */
	size_t		  ntasks;
	LIST_ENTRY(mcp_listen) entry;
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
	bool		 cur_modern;	/* the request being taken: modern, */
	int		 cur_level;	/* and its log level (-1: none) */
	char		**subs;		/* resources/subscribe's URIs */
	size_t		  nsubs;
	struct loop_timer *poll;	/* the next look at resources, tasks */
	LIST_HEAD(, mcp_listen) listens;
	size_t		 nlistens;
	LIST_HEAD(, mcp_req) result_waits;	/* tasks/result waiting */
	bool		 resources_used; /* a 2025 client asked for them */
	struct mcp_req	*watch;		/* answered while a call is made? */
	bool		 watch_answered;
	const struct json *watch_params; /* that call's params */
	bool		 elicit_url;	/* the 2025 client takes URL
					   elicitation */
	uint64_t	 elicit_seq;	/* our requests' ids */
	LIST_HEAD(, mcp_elicit) elicits;
} mcp;

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
static void	mcp_not_found(struct mcp_req *, const char *, const char *);
static int	mcp_elicit_url(struct mcp_req *, const char *, const char *,
		    const char *);
static void	mcp_elicit_done(const char *);
static bool	mcp_resumed(struct mcp_req *, const char **, const char **);

/* What the tool layer answers calls with. */
static const struct tools_rpc mcp_tools_rpc = {
	.bind = mcp_req_set_call,
	.answer = mcp_answer,
	.wants_progress = mcp_wants_progress,
	.progress = mcp_progress,
	.not_found = mcp_not_found,
	.elicit_url = mcp_elicit_url,
	.elicit_done = mcp_elicit_done,
	.resumed = mcp_resumed
};

void
mcp_init(void)
{
	memset(&mcp, 0, sizeof mcp);
	LIST_INIT(&mcp.listens);
	LIST_INIT(&mcp.result_waits);
	LIST_INIT(&mcp.elicits);
	mcp.log_level = 3;	/* warning */
	mcp.cur_level = -1;
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
	req->ttl = -1;
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
	struct mcp_elicit	*e;

	LIST_FOREACH(e, &mcp.elicits, entry)
		if (e->rpc == req)
			e->rpc = NULL;	/* its answer goes nowhere now */
	if (req == mcp.watch)
		mcp.watch_answered = true;
	mcp_ids_del(req);
	if (req->result_of != NULL) {
		LIST_REMOVE(req, wentry);
		free(req->result_of);
	}
	loop_timer_free(req->task_wait);
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
	if (req->task != NULL)
		task_set_call(req->task, call);
}

/*
 * A result as req's era writes it into b: as it is for a 2025 client;
 * for a 2026-07-28 one, opened with its resultType ("complete", "task"),
 * our identity in _meta, and for a cacheable result its ttlMs and
 * cacheScope. The result is a JSON object without _meta of its own.
 */
static void
mcp_result_text(const struct mcp_req *req, struct buf *b, const char *result,
    size_t len, const char *type)
{
	if (!req->modern || len < 2 || result[0] != '{') {
		buf_add(b, result, len);
		return;
	}
	buf_printf(b, "{\"resultType\":\"%s\",\"_meta\":{\""
	    "io.modelcontextprotocol/serverInfo\":{\"name\":\"progmux\","
	    "\"version\":\"%s\"}}", type, PROGMUX_VERSION);
	if (req->ttl >= 0)
		buf_printf(b, ",\"ttlMs\":%lld,\"cacheScope\":\"%s\"",
		    (long long)req->ttl, req->public ? "public" : "private");
	result++;
	len--;
	while (len > 0 && (*result == ' ' || *result == '\n')) {
		result++;
		len--;
	}
	if (len > 0 && *result != '}')
		buf_addc(b, ',');
	buf_add(b, result, len);
}

/* Send {"jsonrpc":"2.0","id":ID,"result":RESULT} for req, RESULT of its
 * era with resultType type. */
static void
mcp_reply_typed(struct mcp_req *req, const char *result, size_t len,
    const char *type)
{
	struct buf	b = BUF_INIT;

	buf_adds(&b, "{\"jsonrpc\":\"2.0\",\"id\":");
	buf_adds(&b, req->id);
	buf_adds(&b, ",\"result\":");
	mcp_result_text(req, &b, result, len, type);
	buf_addc(&b, '}');
	mcp_emit(req->batch, &b);
	buf_free(&b);
}

/* Send req's result (a complete one). */
static void
mcp_reply_result(struct mcp_req *req, const char *result, size_t len)
{
	mcp_reply_typed(req, result, len, "complete");
}

/* Write an error response; id is raw JSON text or NULL for none; data,
 * if not NULL, is JSON text. */
static void
mcp_error_data(struct buf *b, const char *id, int code, const char *msg,
    const char *data)
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
	if (data != NULL) {
		jw_key(&w, "data");
		jw_raw(&w, data, strlen(data));
	}
	jw_obj_end(&w);
	jw_obj_end(&w);
}

/* An error response without data. */
static void
mcp_error_msg(struct buf *b, const char *id, int code, const char *msg)
{
	mcp_error_data(b, id, code, msg, NULL);
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

/* Answer req with a JSON-RPC error carrying data (JSON text). */
static void
mcp_req_error_data(struct mcp_req *req, int code, const char *msg,
    const char *data)
{
	struct buf	b = BUF_INIT;

	mcp_error_data(&b, req->id, code, msg, data);
	mcp_emit(req->batch, &b);
	buf_free(&b);
}

static void	mcp_task_ended(struct task *);
static void	mcp_missing_tasks(struct mcp_req *, const char *);

/*
 * A tool's answer to req: sent, and req freed. A call that became a task
 * gives its answer, the very text it would have sent, to the task.
 */
static void
mcp_answer(struct mcp_req *req, const char *result, size_t len)
{
	struct buf	 b = BUF_INIT;
	struct task	*t = req->task;

	if (t != NULL) {
		mcp_result_text(req, &b, result, len, "complete");
		task_complete(t, b.data, b.len);
		buf_free(&b);
		mcp_req_done(req);
		mcp_task_ended(t);
		return;
	}
	mcp_reply_result(req, result, len);
	mcp_req_done(req);
}

/* A resources/read whose resource is not there: -32002 for a 2025
 * client, -32602 for a 2026-07-28 one, its URI in the error's data. */
static void
mcp_not_found(struct mcp_req *req, const char *uri, const char *why)
{
	struct buf	 data = BUF_INIT, msg = BUF_INIT;
	struct jw	 w;

	jw_init(&w, &data);
	jw_obj_begin(&w);
	jw_key(&w, "uri");
	jw_str(&w, uri);
	jw_obj_end(&w);
	buf_printf(&msg, "resource not found: %s; resources/list names the "
	    "ones there are", why);
	mcp_req_error_data(req, req->modern ? -32602 : MCP_NO_RESOURCE,
	    buf_cstr(&msg), buf_cstr(&data));
	buf_free(&data);
	buf_free(&msg);
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

	if (mcp.cur_modern) {
		/* 2026-07-28: only for a request that asked for a level. */
		if (mcp.cur_level < 0 || level < mcp.cur_level)
			return;
	} else if (level < mcp.log_level || !mcp.initialized)
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

	if (req->progress_token == NULL || progress <= req->progress_sent ||
	    (req->modern && req->task != NULL))
		return;	/* (none for a modern task: its status says it) */
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

/* What the model is told of the server, in either era. */
static const char mcp_instructions[] =
	"progmux runs programs in tmux panes and returns what they "
	"print as clean text; argv is never parsed by a shell. Use "
	"run_program for a one-shot command (it waits for the end and "
	"returns the output and exit status in one call). Use "
	"start_program for anything that runs longer than one wait or "
	"needs keys typed (a build, a server, a REPL), then read_program "
	"with the cursor each read returns until ended is true; "
	"send_keys types into its pane and stop_program ends it. For "
	"full-screen programs (editors, top, pagers) and the current "
	"state of progress bars, read the screen with capture_pane. "
	"list_programs shows every program held.";

/*
 * The capabilities object: tools (a fixed set), logging, resources
 * (each program's output and screen) when read_program is offered; the
 * tasks extension for a modern client, the experimental tasks of
 * 2025-11-25 (legacy_tasks) for a client that negotiated it.
 */
static void
mcp_capabilities(struct jw *w, bool modern, bool legacy_tasks)
{
	jw_obj_begin(w);
	jw_key(w, "tools");
	jw_obj_begin(w);
	jw_key(w, "listChanged");
	jw_bool(w, false);
	jw_obj_end(w);
	jw_key(w, "logging");
	jw_obj_begin(w);
	jw_obj_end(w);
	if (tools_resources_offered()) {
		jw_key(w, "resources");
		jw_obj_begin(w);
		jw_key(w, "subscribe");
		jw_bool(w, true);
		jw_key(w, "listChanged");
		jw_bool(w, true);
		jw_obj_end(w);
	}
	if (legacy_tasks) {
		jw_key(w, "tasks");
		jw_obj_begin(w);
		jw_key(w, "list");
		jw_obj_begin(w);
		jw_obj_end(w);
		jw_key(w, "cancel");
		jw_obj_begin(w);
		jw_obj_end(w);
		jw_key(w, "requests");
		jw_obj_begin(w);
		jw_key(w, "tools");
		jw_obj_begin(w);
		jw_key(w, "call");
		jw_obj_begin(w);
		jw_obj_end(w);
		jw_obj_end(w);
		jw_obj_end(w);
		jw_obj_end(w);
	}
	if (modern) {
		jw_key(w, "extensions");
		jw_obj_begin(w);
		jw_key(w, MCP_TASKS_EXT);
		jw_obj_begin(w);
		jw_obj_end(w);
		jw_obj_end(w);
	}
	jw_obj_end(w);
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
	/* URL elicitation is 2025-11-25's: declared as elicitation.url. */
	mcp.elicit_url = strcmp(mcp.version, "2025-11-25") == 0 &&
	    json_type(json_get(json_get(json_get(params, "capabilities"),
	    "elicitation"), "url")) == JSON_OBJECT;

	jw_init(&w, &b);
	jw_obj_begin(&w);
	jw_key(&w, "protocolVersion");
	jw_str(&w, mcp.version);
	jw_key(&w, "capabilities");
	mcp_capabilities(&w, false, strcmp(mcp.version, "2025-11-25") == 0);
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
	jw_str(&w, mcp_instructions);
	jw_obj_end(&w);
	mcp_reply_result(req, b.data, b.len);
	buf_free(&b);
}

/* tools/list: every tool in one page, so any cursor is unknown; the
 * set is fixed for the server's life. */
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
	req->ttl = MCP_TTL_FIXED;
	req->public = true;
	jw_init(&w, &b);
	jw_obj_begin(&w);
	jw_key(&w, "tools");
	jw_arr_begin(&w);
	tools_list(&w, !req->modern && strcmp(mcp.version, "2025-11-25") == 0);
	jw_arr_end(&w);
	jw_obj_end(&w);
	mcp_reply_result(req, b.data, b.len);
	buf_free(&b);
}

/* Is anyone to be told of resources and tasks: a 2025 client that has
 * used resources (its list_changed, its subscriptions; one that never
 * did is sent nothing it did not send before), or a listen stream? */
static bool
mcp_watching(void)
{
	return ((mcp.initialized && mcp.resources_used) ||
	    !LIST_EMPTY(&mcp.listens));
}

static void	mcp_poll_due(void *);

/* Look at resources and tasks within a second, if anyone listens (after
 * a call: programs come and go only through calls). */
static void
mcp_poll_kick(void)
{
	if (!mcp_watching())
		return;
	if (mcp.poll == NULL)
		mcp.poll = loop_timer_new(mcp_poll_due, NULL);
	if (!loop_timer_pending(mcp.poll))
		loop_timer_set(mcp.poll, now_ms() + MCP_POLL_MS);
}

/* A notification to the client: method, then params as JSON text (an
 * object without braces, may be empty), tagged for a listen stream. */
static void
mcp_notify(const char *method, const char *params, const struct mcp_listen *l)
{
	struct buf	b = BUF_INIT;

	buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"%s\",\"params\":{",
	    method);
	if (l != NULL)
		buf_printf(&b, "\"_meta\":{\"" MCP_META_SUB "\":%s}%s",
		    l->req->id, *params != '\0' ? "," : "");
	buf_adds(&b, params);
	buf_adds(&b, "}}");
	mcp_write_line(&b);
	buf_free(&b);
}

/* Is s one of the n strings in v? */
static bool
mcp_strv_has(char **v, size_t n, const char *s)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return (true);
	return (false);
}

/* The set of resources changed: a 2025 client, and the listen streams
 * that asked, are told. */
static void
mcp_list_changed(void)
{
	struct mcp_listen	*l;

	if (mcp.initialized && mcp.resources_used)
		mcp_notify("notifications/resources/list_changed", "", NULL);
	LIST_FOREACH(l, &mcp.listens, entry)
		if (l->resources)
			mcp_notify("notifications/resources/list_changed", "",
			    l);
}

/* A resource changed: whoever subscribed to it is told. */
static void
mcp_updated(const char *uri)
{
	struct mcp_listen	*l;
	struct buf		 p = BUF_INIT;

	buf_adds(&p, "\"uri\":");
	json_put_string(&p, uri, strlen(uri));
	if (mcp.initialized && mcp_strv_has(mcp.subs, mcp.nsubs, uri))
		mcp_notify("notifications/resources/updated", buf_cstr(&p),
		    NULL);
	LIST_FOREACH(l, &mcp.listens, entry)
		if (mcp_strv_has(l->uris, l->nuris, uri))
			mcp_notify("notifications/resources/updated",
			    buf_cstr(&p), l);
	buf_free(&p);
}

/* A task's state as notifications/tasks to the listen streams that
 * asked for it (2026-07-28), or notifications/tasks/status (2025). */
static void
mcp_task_tell(const struct task *t, bool modern)
{
	struct mcp_listen	*l;
	struct buf		 p = BUF_INIT;
	struct jw		 w;

	jw_init(&w, &p);
	jw_obj_begin(&w);
	task_put(&w, t, modern);
	jw_obj_end(&w);
	/* The members, without the braces. */
	p.data[p.len - 1] = '\0';
	if (!modern) {
		if (mcp.initialized)
			mcp_notify("notifications/tasks/status", p.data + 1,
			    NULL);
	} else
		LIST_FOREACH(l, &mcp.listens, entry)
			if (mcp_strv_has(l->tasks, l->ntasks, task_id(t)))
				mcp_notify("notifications/tasks", p.data + 1,
				    l);
	buf_free(&p);
}

/* Listen streams are told how the working tasks they follow stand, when
 * that changed. */
static void
mcp_tasks_tell(void)
{
	struct task		*t;
	struct mcp_listen	*l;
	bool			 heard;

	for (t = task_next(NULL, true); t != NULL; t = task_next(t, true)) {
		if (task_status(t) != TASK_WORKING)
			continue;
		heard = false;
		LIST_FOREACH(l, &mcp.listens, entry)
			heard |= mcp_strv_has(l->tasks, l->ntasks, task_id(t));
		if (heard && task_changed(t))
			mcp_task_tell(t, true);
	}
}

/* About once a second while anyone listens: what changed is told. */
static void
mcp_poll_due(void *arg)
{
	bool	more;

	(void)arg;
	more = tools_resources_poll(mcp_list_changed, mcp_updated);
	mcp_tasks_tell();
	if ((more || tasks_working()) && mcp_watching())
		loop_timer_set(mcp.poll, now_ms() + MCP_POLL_MS);
}

/* Is params.cursor a cursor (not absent or null)? Then req is answered
 * (and freed): what is listed comes in one page, so none is valid. */
static bool
mcp_cursor_refused(struct mcp_req *req, const struct json *params,
    const char *what)
{
	struct buf	b = BUF_INIT;

	if (params == NULL || json_get(params, "cursor") == NULL ||
	    json_type(json_get(params, "cursor")) == JSON_NULL)
		return (false);
	buf_printf(&b, "unknown cursor: %s come in one page, so no cursor is "
	    "valid", what);
	mcp_req_error(req, -32602, buf_cstr(&b));
	buf_free(&b);
	mcp_req_done(req);
	return (true);
}

/* The answer to a 2025 tasks/result: the task's result with its id in
 * _meta, or an error if it has none; req is freed. */
static void
mcp_task_result(struct mcp_req *req, const struct task *t)
{
	struct buf	 b = BUF_INIT;
	const char	*r;
	size_t		 len;

	r = task_result(t, &len);
	if (task_status(t) != TASK_COMPLETED || r == NULL || len < 2) {
		buf_printf(&b, "task %s was cancelled: it has no result",
		    task_id(t));
		mcp_req_error(req, -32602, buf_cstr(&b));
	} else {
		buf_printf(&b, "{\"_meta\":{\"io.modelcontextprotocol/"
		    "related-task\":{\"taskId\":\"%s\"}}", task_id(t));
		if (r[1] != '}')
			buf_addc(&b, ',');
		buf_add(&b, r + 1, len - 1);
		mcp_reply_result(req, b.data, b.len);
	}
	buf_free(&b);
	mcp_req_done(req);
}

/* A task ended: those waiting on it and those following it are told. */
static void
mcp_task_ended(struct task *t)
{
	struct mcp_req	*req, *next;
	bool		 modern = task_find(task_id(t), true) == t;

	if (!modern) {
		for (req = LIST_FIRST(&mcp.result_waits); req != NULL;
		    req = next) {
			next = LIST_NEXT(req, wentry);
			if (strcmp(req->result_of, task_id(t)) == 0)
				mcp_task_result(req, t);
		}
	}
	mcp_task_tell(t, modern);
}

/* Reply with a task as it stands: CreateTaskResult (created), or the
 * result of tasks/get or tasks/cancel. */
static void
mcp_reply_task(struct mcp_req *req, const struct task *t, bool created)
{
	struct buf	 b = BUF_INIT;
	struct jw	 w;

	jw_init(&w, &b);
	jw_obj_begin(&w);
	if (created && !req->modern) {
		jw_key(&w, "task");	/* 2025: the task, in "task" */
		jw_obj_begin(&w);
		task_put(&w, t, false);
		jw_obj_end(&w);
	} else
		task_put(&w, t, req->modern);
	jw_obj_end(&w);
	mcp_reply_typed(req, b.data, b.len, created ? "task" : "complete");
	buf_free(&b);
}

/*
 * A modern call that has waited MCP_TASK_WAIT_MS becomes a task: its
 * request is answered with the task, and the call goes on to answer the
 * task. From here tasks/cancel, not notifications/cancelled, lets go of
 * it.
 */
static void
mcp_task_due(void *arg)
{
	struct mcp_req	*req = arg;
	struct task	*t;

	if ((t = task_new(req, req->call, true, 0)) == NULL) {
		log_warn("no random bytes for a task id: the call stays a "
		    "call");
		return;
	}
	req->task = t;
	mcp_ids_del(req);
	mcp_reply_task(req, t, true);
	mcp_poll_kick();
}

/* The task named by params.taskId (of req's era), or NULL having
 * answered req with the error. */
static struct task *
mcp_task_arg(struct mcp_req *req, const struct json *params)
{
	const struct json	*id;
	struct task		*t;
	struct buf		 b = BUF_INIT;

	id = params != NULL ? json_get(params, "taskId") : NULL;
	if (id == NULL || json_type(id) != JSON_STRING) {
		mcp_req_error(req, -32602, "params.taskId must be the id of a "
		    "task, a string");
		return (NULL);
	}
	if ((t = task_find(json_str(id, NULL), req->modern)) != NULL)
		return (t);
	buf_adds(&b, "task not found: \"");
	mcp_quote_name(&b, json_str(id, NULL), strlen(json_str(id, NULL)));
	buf_printf(&b, "\" is not a task of this server, or it was forgotten "
	    "(a task is kept for its TTL, at most %lld of them once ended)",
	    (long long)cfg.keep_ended);
	mcp_req_error(req, -32602, buf_cstr(&b));
	buf_free(&b);
	return (NULL);
}

/* tasks/cancel: the call let go as a cancelled request is. A modern
 * client gets an empty acknowledgement, a 2025 one the task. */
static void
mcp_task_cancel(struct mcp_req *req, struct task *t)
{
	struct mcp_req	*rpc;

	if (task_status(t) != TASK_WORKING) {
		if (!req->modern) {
			mcp_req_error(req, -32602, "the task has already "
			    "ended: it cannot be cancelled");
			return;
		}
		mcp_reply_result(req, "{}", 2);
		return;
	}
	if ((rpc = task_cancel(t)) != NULL)
		mcp_req_done(rpc);
	if (req->modern)
		mcp_reply_result(req, "{}", 2);
	else
		mcp_reply_task(req, t, false);
	mcp_task_ended(t);
}

/* tasks/get, tasks/update, tasks/cancel (2026-07-28); tasks/get,
 * tasks/result, tasks/list, tasks/cancel (2025-11-25). False for
 * another method (nothing answered); else req is answered or, for
 * tasks/result of a working task, held. */
static bool
mcp_tasks_method(struct mcp_req *req, const char *m,
    const struct json *params)
{
	struct task		*t;
	struct buf		 b = BUF_INIT;
	struct jw		 w;

	if (strcmp(m, "tasks/list") == 0 && !req->modern) {
		if (mcp_cursor_refused(req, params, "all the tasks"))
			return (true);
		jw_init(&w, &b);
		jw_obj_begin(&w);
		jw_key(&w, "tasks");
		jw_arr_begin(&w);
		for (t = task_next(NULL, false); t != NULL;
		    t = task_next(t, false)) {
			jw_obj_begin(&w);
			task_put(&w, t, false);
			jw_obj_end(&w);
		}
		jw_arr_end(&w);
		jw_obj_end(&w);
		mcp_reply_result(req, b.data, b.len);
		buf_free(&b);
		mcp_req_done(req);
		return (true);
	}
	if (strcmp(m, "tasks/get") != 0 && strcmp(m, "tasks/cancel") != 0 &&
	    !(req->modern && strcmp(m, "tasks/update") == 0) &&
	    !(!req->modern && strcmp(m, "tasks/result") == 0))
		return (false);
	if ((t = mcp_task_arg(req, params)) == NULL) {
		mcp_req_done(req);
		return (true);
	}
	if (strcmp(m, "tasks/get") == 0)
		mcp_reply_task(req, t, false);
	else if (strcmp(m, "tasks/update") == 0)
		mcp_reply_result(req, "{}", 2);	/* it never asks for input */
	else if (strcmp(m, "tasks/cancel") == 0)
		mcp_task_cancel(req, t);
	else if (task_status(t) != TASK_WORKING) {
		mcp_task_result(req, t);
		return (true);
	} else {
		req->result_of = xstrdup(task_id(t));
		LIST_INSERT_HEAD(&mcp.result_waits, req, wentry);
		mcp_ids_add(req);
		return (true);
	}
	mcp_req_done(req);
	return (true);
}

/* resources/list, resources/templates/list, resources/read, and for a
 * 2025 client resources/subscribe and resources/unsubscribe. False for
 * another method, or when no resource is offered (nothing answered). */
static bool
mcp_resources_method(struct mcp_req *req, const char *m,
    const struct json *params)
{
	const struct json	*uri;
	const char		*u;
	size_t			 len, i;
	struct buf		 b = BUF_INIT;
	struct jw		 w;
	bool			 list, tpl;

	if (strncmp(m, "resources/", 10) != 0 || !tools_resources_offered())
		return (false);
	if (!req->modern && !mcp.resources_used) {
		mcp.resources_used = true;
		mcp_poll_kick();
	}
	list = strcmp(m, "resources/list") == 0;
	tpl = strcmp(m, "resources/templates/list") == 0;
	if (list || tpl) {
		if (mcp_cursor_refused(req, params, "all the resources"))
			return (true);
		req->ttl = list ? 0 : MCP_TTL_FIXED;
		req->public = tpl;
		jw_init(&w, &b);
		jw_obj_begin(&w);
		jw_key(&w, list ? "resources" : "resourceTemplates");
		jw_arr_begin(&w);
		if (list)
			tools_resources_list(&w);
		else
			tools_resource_templates(&w);
		jw_arr_end(&w);
		jw_obj_end(&w);
		mcp_reply_result(req, b.data, b.len);
		buf_free(&b);
		mcp_req_done(req);
		return (true);
	}
	if (strcmp(m, "resources/read") != 0 && (req->modern ||
	    (strcmp(m, "resources/subscribe") != 0 &&
	    strcmp(m, "resources/unsubscribe") != 0)))
		return (false);
	uri = params != NULL ? json_get(params, "uri") : NULL;
	if (uri == NULL || json_type(uri) != JSON_STRING) {
		mcp_req_error(req, -32602, "params.uri must be a resource's "
		    "URI, a string");
		mcp_req_done(req);
		return (true);
	}
	u = json_str(uri, &len);
	if (strcmp(m, "resources/read") == 0) {
		req->ttl = 0;
		if (tools_resource_read(req, u, len) == -1)
			mcp_not_found(req, u, "no program held has it");
		return (true);
	}
	/* Subscriptions: a URI at most once; updates once a look. */
	for (i = 0; i < mcp.nsubs && strcmp(mcp.subs[i], u) != 0; i++)
		;
	if (strcmp(m, "resources/subscribe") == 0 && i == mcp.nsubs &&
	    mcp.nsubs >= MCP_SUBS_MAX) {
		mcp_req_error(req, -32602, "too many subscriptions (1024 "
		    "resources): unsubscribe from some first");
		mcp_req_done(req);
		return (true);
	}
	if (strcmp(m, "resources/subscribe") == 0 && i == mcp.nsubs &&
	    memchr(u, '\0', len) == NULL) {
		mcp.subs = xreallocarray(mcp.subs, mcp.nsubs + 1,
		    sizeof *mcp.subs);
		mcp.subs[mcp.nsubs++] = xstrdup(u);
		mcp_poll_kick();
	} else if (strcmp(m, "resources/unsubscribe") == 0 && i < mcp.nsubs) {
		free(mcp.subs[i]);
		mcp.subs[i] = mcp.subs[--mcp.nsubs];
	}
	mcp_reply_result(req, "{}", 2);
	mcp_req_done(req);
	return (true);
}

/* A listen stream goes: cancelled by the client. */
static void
mcp_listen_free(struct mcp_listen *l)
{
	size_t	i;

	LIST_REMOVE(l, entry);
	mcp.nlistens--;
	for (i = 0; i < l->nuris; i++)
		free(l->uris[i]);
	free(l->uris);
	for (i = 0; i < l->ntasks; i++)
		free(l->tasks[i]);
	free(l->tasks);
	l->req->listen = NULL;
	free(l);
}

/* The strings of a JSON array into *v (others skipped); a JSON array of
 * them into w. */
static void
mcp_listen_strings(const struct json *a, char ***v, size_t *n, struct jw *w)
{
	const struct json	*s;
	const char		*str;
	size_t			 i, len;

	jw_arr_begin(w);
	for (i = 0; i < json_len(a); i++) {
		s = json_at(a, i);
		if (json_type(s) != JSON_STRING)
			continue;
		str = json_str(s, &len);
		if (memchr(str, '\0', len) != NULL)
			continue;
		*v = xreallocarray(*v, *n + 1, sizeof **v);
		(*v)[(*n)++] = xstrdup(json_str(s, NULL));
		jw_str(w, json_str(s, NULL));
	}
	jw_arr_end(w);
}

/*
 * subscriptions/listen (2026-07-28): a stream that stays open until the
 * client cancels it; first the acknowledgement of what it will carry
 * (resource list changes, updates of the resources named, the tasks
 * named; tools and prompts never change here), then those
 * notifications, each tagged with the stream's id.
 */
static void
mcp_listen(struct mcp_req *req, const struct json *params, bool task_ext)
{
	const struct json	*f, *v;
	struct mcp_listen	*l;
	struct buf		 b = BUF_INIT;
	struct jw		 w;

	f = params != NULL ? json_get(params, "notifications") : NULL;
	if (f == NULL || json_type(f) != JSON_OBJECT) {
		mcp_req_error(req, -32602, "subscriptions/listen needs "
		    "params.notifications, an object naming what to be told");
		mcp_req_done(req);
		return;
	}
	if (json_get(f, "taskIds") != NULL && !task_ext) {
		mcp_missing_tasks(req, "task notifications");
		return;
	}
	if (mcp.nlistens >= MCP_LISTENS_MAX) {
		mcp_req_error(req, -32602, "too many subscriptions/listen "
		    "streams open (64): cancel one first");
		mcp_req_done(req);
		return;
	}
	l = xcalloc(1, sizeof *l);
	l->req = req;
	req->listen = l;
	mcp.nlistens++;
	LIST_INSERT_HEAD(&mcp.listens, l, entry);
	jw_init(&w, &b);
	jw_obj_begin(&w);
	jw_key(&w, "notifications");
	jw_obj_begin(&w);
	v = json_get(f, "resourcesListChanged");
	if (tools_resources_offered() && json_type(v) == JSON_BOOL &&
	    json_bool(v)) {
		l->resources = true;
		jw_key(&w, "resourcesListChanged");
		jw_bool(&w, true);
	}
	v = json_get(f, "resourceSubscriptions");
	if (tools_resources_offered() && json_type(v) == JSON_ARRAY) {
		jw_key(&w, "resourceSubscriptions");
		mcp_listen_strings(v, &l->uris, &l->nuris, &w);
	}
	v = json_get(f, "taskIds");
	if (json_type(v) == JSON_ARRAY) {
		jw_key(&w, "taskIds");
		mcp_listen_strings(v, &l->tasks, &l->ntasks, &w);
	}
	jw_obj_end(&w);
	jw_obj_end(&w);
	b.data[b.len - 1] = '\0';
	mcp_notify("notifications/subscriptions/acknowledged", b.data + 1, l);
	buf_free(&b);
	mcp_ids_add(req);	/* until notifications/cancelled names it */
	mcp_poll_kick();
}

/* key: the 2026-07-28 versions spoken, an array. */
static void
mcp_put_versions(struct jw *w, const char *key)
{
	jw_key(w, key);
	jw_arr_begin(w);
	jw_str(w, MCP_MODERN);
	jw_arr_end(w);
}

/* Answer (and free) req: the tasks extension was not in its
 * capabilities, and what it asked for needs it. */
static void
mcp_missing_tasks(struct mcp_req *req, const char *what)
{
	struct buf	b = BUF_INIT;

	buf_printf(&b, "missing required client capability: %s need the "
	    MCP_TASKS_EXT " extension in clientCapabilities", what);
	mcp_req_error_data(req, MCP_MISSING_CAPABILITY, buf_cstr(&b),
	    "{\"requiredCapabilities\":{\"extensions\":{\"" MCP_TASKS_EXT
	    "\":{}}}}");
	buf_free(&b);
	mcp_req_done(req);
}

/* server/discover: the versions, capabilities and identity (in _meta)
 * of the server, which do not change while it runs. */
static void
mcp_discover(struct mcp_req *req)
{
	struct buf	 b = BUF_INIT;
	struct jw	 w;

	req->ttl = MCP_TTL_FIXED;
	req->public = true;
	jw_init(&w, &b);
	jw_obj_begin(&w);
	mcp_put_versions(&w, "supportedVersions");
	jw_key(&w, "capabilities");
	mcp_capabilities(&w, true, false);
	jw_key(&w, "instructions");
	jw_str(&w, mcp_instructions);
	jw_obj_end(&w);
	mcp_reply_result(req, b.data, b.len);
	buf_free(&b);
	mcp_req_done(req);
}

/*
 * The _meta a 2026-07-28 request must carry: its protocol version and
 * the client's capabilities; its log level, if it asks for messages.
 * 0, or -1 having answered (and freed) req with what is wrong.
 */
static int
mcp_modern_meta(struct mcp_req *req, const struct json *params)
{
	const struct json	*meta, *v, *caps, *ext;
	struct buf		 b = BUF_INIT, d = BUF_INIT;
	struct jw		 w;
	size_t			 i;

	meta = params != NULL ? json_get(params, "_meta") : NULL;
	v = json_get(meta, MCP_META_VERSION);
	caps = json_get(meta, MCP_META_CAPS);
	if (json_type(meta) != JSON_OBJECT || json_type(v) != JSON_STRING ||
	    json_type(caps) != JSON_OBJECT) {
		mcp_req_error(req, -32602, "invalid params: a " MCP_MODERN
		    " request carries params._meta with " MCP_META_VERSION
		    " (a string) and " MCP_META_CAPS " (an object)");
		mcp_req_done(req);
		return (-1);
	}
	if (strcmp(json_str(v, NULL), MCP_MODERN) != 0) {
		jw_init(&w, &d);
		jw_obj_begin(&w);
		mcp_put_versions(&w, "supported");
		jw_key(&w, "requested");
		jw_value(&w, v);
		jw_obj_end(&w);
		buf_adds(&b, "unsupported protocol version \"");
		mcp_quote_name(&b, json_str(v, NULL), strlen(json_str(v,
		    NULL)));
		buf_adds(&b, "\": requests with _meta speak " MCP_MODERN
		    "; the 2025 versions start with initialize");
		mcp_req_error_data(req, MCP_UNSUPPORTED_VERSION, buf_cstr(&b),
		    buf_cstr(&d));
		buf_free(&b);
		buf_free(&d);
		mcp_req_done(req);
		return (-1);
	}
	ext = json_get(json_get(caps, "extensions"), MCP_TASKS_EXT);
	req->task_ext = json_type(ext) == JSON_OBJECT;
	req->elicit_url = json_type(json_get(json_get(caps, "elicitation"),
	    "url")) == JSON_OBJECT;
	mcp.cur_level = -1;
	v = json_get(meta, MCP_META_LEVEL);
	for (i = 0; json_type(v) == JSON_STRING &&
	    i < sizeof mcp_levels / sizeof *mcp_levels; i++)
		if (strcmp(json_str(v, NULL), mcp_levels[i]) == 0)
			mcp.cur_level = (int)i;
	if (v != NULL && mcp.cur_level < 0) {
		mcp_req_error(req, -32602, "invalid params: " MCP_META_LEVEL
		    " must be one of debug, info, notice, warning, error, "
		    "critical, alert, emergency");
		mcp_req_done(req);
		return (-1);
	}
	return (0);
}

static void	mcp_tools_call(struct mcp_req *, const struct json *);

/*
 * A request of the 2026-07-28 era: served on its own, from what its
 * _meta says, whatever came before. initialize, ping, logging/setLevel
 * and resources/subscribe are not part of it.
 */
static void
mcp_modern(struct mcp_req *req, const char *m, size_t mlen,
    const struct json *params)
{
	struct buf	b = BUF_INIT;

	req->modern = true;
	mcp.cur_modern = true;
	if (mcp_modern_meta(req, params) == -1)
		return;
	log_debug("request %s: %s (" MCP_MODERN ")", req->id, m);
	if (strcmp(m, "server/discover") == 0)
		mcp_discover(req);
	else if (strcmp(m, "tools/list") == 0) {
		mcp_tools_list(req, params);
		mcp_req_done(req);
	} else if (strcmp(m, "tools/call") == 0) {
		mcp_progress_token(req, params);
		mcp_tools_call(req, params);
	} else if (strcmp(m, "subscriptions/listen") == 0)
		mcp_listen(req, params, req->task_ext);
	else if (strncmp(m, "tasks/", 6) == 0 && !req->task_ext)
		mcp_missing_tasks(req, "the tasks/ methods");
	else if (!mcp_tasks_method(req, m, params) &&
	    !mcp_resources_method(req, m, params)) {
		buf_adds(&b, "method not found: ");
		mcp_quote_name(&b, m, mlen);
		buf_adds(&b, " is not a " MCP_MODERN " method here");
		mcp_req_error(req, -32601, buf_cstr(&b));
		buf_free(&b);
		mcp_req_done(req);
	}
}

/*
 * A 2025-11-25 tools/call asking for a task: the task is made and said
 * first, then the call runs and answers it. Only the tools whose waits
 * may be long take one (taskSupport "optional"); another is -32601.
 */
static void
mcp_task_call(struct mcp_req *req, const char *name, size_t len,
    const struct json *args, const struct json *task)
{
	const struct json	*ttl = json_get(task, "ttl");
	struct task		*t;
	struct buf		 b = BUF_INIT;

	if (memchr(name, '\0', len) != NULL || !tools_task_ok(name)) {
		buf_adds(&b, "tools/call: \"");
		mcp_quote_name(&b, name, len);
		buf_adds(&b, "\" does not run as a task (only run_program, "
		    "read_program and send_keys do): call it without task");
		mcp_req_error(req, -32601, buf_cstr(&b));
		buf_free(&b);
		mcp_req_done(req);
		return;
	}
	if ((t = task_new(req, NULL, false, json_type(ttl) == JSON_NUMBER ?
	    json_int(ttl) : 0)) == NULL) {
		mcp_req_error(req, -32603, "no random bytes for a task id");
		mcp_req_done(req);
		return;
	}
	req->task = t;
	mcp_reply_task(req, t, true);
	if (tools_call(req, name, args) == -1) {
		/* (tools_task_ok said it is there: cannot happen.) */
		task_complete(t, "{\"content\":[],\"isError\":true}", 33);
		mcp_req_done(req);
		mcp_task_ended(t);
		return;
	}
	mcp_poll_kick();
}

/* tools/call: check the envelope, then the tool layer has req (in the id
 * table until it answers); the tool checks its arguments. */
static void
mcp_tools_call(struct mcp_req *req, const struct json *params)
{
	const struct json	*name, *args, *task;
	const char		*s;
	size_t			 len;
	struct buf		 b = BUF_INIT;
	int			 rc;

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
	task = json_get(params, "task");
	if (!req->modern && strcmp(mcp.version, "2025-11-25") == 0 &&
	    json_type(task) == JSON_OBJECT) {
		mcp_task_call(req, s, len, args, task);
		return;
	}
	mcp_ids_add(req);
	/* A NUL inside the name must not match a tool by its prefix. */
	mcp.watch = req;
	mcp.watch_answered = false;
	mcp.watch_params = params;
	rc = memchr(s, '\0', len) == NULL ? tools_call(req, s, args) : -1;
	mcp.watch = NULL;
	mcp.watch_params = NULL;
	if (rc == 0) {
		/* Still waiting: a modern client that takes tasks gets one
		 * if the wait goes on. */
		if (!mcp.watch_answered && req->task_ext && tools_task_ok(s)) {
			req->task_wait = loop_timer_new(mcp_task_due, req);
			loop_timer_set(req->task_wait, now_ms() +
			    MCP_TASK_WAIT_MS);
		}
		mcp_poll_kick();
		return;
	}
	buf_adds(&b, "unknown tool \"");
	mcp_quote_name(&b, s, len);
	buf_adds(&b, "\": tools/list names the tools there are");
	mcp_req_error(req, -32602, buf_cstr(&b));
	buf_free(&b);
	mcp_req_done(req);
}

/*
 * URL-mode elicitation for the call rpc (tools_elicit_url): 0 when its
 * client cannot take one; 1 when a 2025-11-25 client was sent
 * elicitation/create (its answer comes to mcp_elicit_answer); 2 when a
 * 2026-07-28 call was answered with an input_required result carrying
 * the request (rpc is then freed; the client calls again with
 * requestState id and its inputResponses). id is the elicitationId.
 */
static int
mcp_elicit_url(struct mcp_req *rpc, const char *url, const char *message,
    const char *id)
{
	struct mcp_elicit	*e;
	struct buf		 b = BUF_INIT, p = BUF_INIT;
	struct jw		 w;

	if (rpc->task != NULL || (rpc->modern ? !rpc->elicit_url :
	    !mcp.elicit_url))
		return (0);
	jw_init(&w, &p);
	jw_obj_begin(&w);
	jw_key(&w, "mode");
	jw_str(&w, "url");
	if (!rpc->modern) {	/* 2026-07-28's has none: requestState */
		jw_key(&w, "elicitationId");
		jw_str(&w, id);
	}
	jw_key(&w, "url");
	jw_str(&w, url);
	jw_key(&w, "message");
	jw_str(&w, message);
	jw_obj_end(&w);
	if (rpc->modern) {
		buf_adds(&b, "{\"inputRequests\":{\"secret\":{\"method\":"
		    "\"elicitation/create\",\"params\":");
		buf_add(&b, p.data, p.len);
		/* id is ours: hex digits. */
		buf_printf(&b, "}},\"requestState\":\"%s\"}", id);
		mcp_reply_typed(rpc, b.data, b.len, "input_required");
		mcp_req_done(rpc);
		buf_free(&b);
		buf_free(&p);
		return (2);
	}
	e = xcalloc(1, sizeof *e);
	xasprintf(&e->rid, "\"progmux-elicit-%llu\"",
	    (unsigned long long)++mcp.elicit_seq);
	e->rpc = rpc;
	e->eid = xstrdup(id);
	LIST_INSERT_HEAD(&mcp.elicits, e, entry);
	buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":"
	    "\"elicitation/create\",\"params\":", e->rid);
	buf_add(&b, p.data, p.len);
	buf_addc(&b, '}');
	mcp_write_line(&b);
	buf_free(&b);
	buf_free(&p);
	log_debug("elicitation/create %s for request %s", e->rid, rpc->id);
	return (1);
}

static void
mcp_elicit_free(struct mcp_elicit *e)
{
	LIST_REMOVE(e, entry);
	free(e->rid);
	free(e->eid);
	free(e);
}

/* An elicitation's action as the client gave it: accept or decline, and
 * cancel for anything else (or nothing). */
static const char *
mcp_elicit_action(const struct json *a)
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
static void
mcp_elicit_answer(const char *ridraw, const struct json *msg)
{
	struct mcp_elicit	*e;
	const char		*action;

	if (ridraw == NULL)
		return;
	LIST_FOREACH(e, &mcp.elicits, entry)
		if (strcmp(e->rid, ridraw) == 0 && !e->answered)
			break;
	if (e == NULL)
		return;
	e->answered = true;
	action = mcp_elicit_action(json_get(json_get(msg, "result"),
	    "action"));
	log_debug("elicitation %s: %s", e->rid, action);
	if (e->rpc != NULL && e->rpc->call != NULL)
		tools_elicited(e->rpc->call, action);
	/* The rest is kept for its completion notification. */
}

/* The elicitation id is over: a 2025 client is told (it ignores ids it
 * does not know); nothing is sent in the 2026-07-28 era. */
static void
mcp_elicit_done(const char *id)
{
	struct mcp_elicit	*e;
	struct buf		 b = BUF_INIT;

	LIST_FOREACH(e, &mcp.elicits, entry)
		if (strcmp(e->eid, id) == 0)
			break;
	if (e == NULL)
		return;
	buf_printf(&b, "\"elicitationId\":\"%s\"", e->eid); /* hex */
	mcp_notify("notifications/elicitation/complete", buf_cstr(&b), NULL);
	buf_free(&b);
	mcp_elicit_free(e);
}

/*
 * A 2026-07-28 tools/call that comes back after input_required: its
 * requestState and the action of its inputResponses' "secret" answer
 * (accept, decline or cancel; cancel if it gave none). Only while the
 * call is being made (the strings are the request's).
 */
static bool
mcp_resumed(struct mcp_req *rpc, const char **state, const char **action)
{
	const struct json	*st;

	if (rpc != mcp.watch || !rpc->modern || mcp.watch_params == NULL)
		return (false);
	st = json_get(mcp.watch_params, "requestState");
	if (json_type(st) != JSON_STRING)
		return (false);
	*state = json_str(st, NULL);
	*action = mcp_elicit_action(json_get(json_get(json_get(
	    mcp.watch_params, "inputResponses"), "secret"), "action"));
	return (true);
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
		if (req->listen != NULL)
			mcp_listen_free(req->listen);
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
		mcp_elicit_answer(idraw, msg);	/* ours are elicitations */
		free(idraw);
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
	/* server/discover, or a version in _meta: the 2026-07-28 era. */
	if (strcmp(m, "server/discover") == 0 || (params != NULL &&
	    json_type(params) == JSON_OBJECT && json_get(json_get(params,
	    "_meta"), MCP_META_VERSION) != NULL)) {
		mcp_modern(req, m, mlen, params);
		mcp.cur_modern = false;
		mcp.cur_level = -1;
		return;
	}
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
	log_debug("request %s: %s (%s)", req->id, m, mcp.init_answered ?
	    mcp.version : "before initialize");
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
	} else if ((strcmp(mcp.version, "2025-11-25") == 0 &&
	    mcp_tasks_method(req, m, params)) ||
	    mcp_resources_method(req, m, params))
		return;		/* answered (or held) and freed there */
	else {
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
	log_debug("in: %.*s%s", (int)(len > MCP_LOGGED ? MCP_LOGGED : len), p,
	    len > MCP_LOGGED ? "..." : "");
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

#ifdef PROGMUX_TESTING
/* The protocol version agreed by the last initialize. */
const char *
mcp_protocol_version(void)
{
	return (mcp.version);
}
#endif
