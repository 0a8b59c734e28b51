/*
 * mcp_req.c — the bottom of the protocol: a request and its context, the
 * table of requests still waiting, results and errors as the request's
 * era writes them, the queue of replies for stdout and its back-pressure,
 * and the one writer of notifications. As tmux's cmd-queue.c holds the
 * item being run and its replies below every command, this file is
 * below every method family (mcp_req.h).
 *
 * A request is answered once (mcp_reply, mcp_fail) and then done
 * (mcp_req_done). While mcp.c dispatches it, it is held: done marks it,
 * and it is freed when the dispatch lets go of it (mcp_req_release), so
 * no handler frees what its caller still holds. The request being
 * dispatched is mcp_req_current(): a log message raised by the layers
 * below while it is answered goes by its context.
 *
 * Back-pressure: while the replies queued for stdout (their buffer's
 * footprint, drained head included) reach MCP_OUT_MAX, mcp.c takes no new
 * request and main.c stops reading stdin (mcp_input_paused). Replies to
 * requests already taken may still be queued past the ceiling; they are
 * bounded by the requests taken.
 *
 * Layer: protocol, at its bottom; calls only the loop and the library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdutil.h"
#include "log.h"
#include "mcp_req.h"
#include "xmalloc.h"

#define MCP_OUT_MAX	(64u * 1024 * 1024)	/* replies queued, in bytes */

struct batch {
	int		 outstanding;
	struct buf	 parts;
	bool		 any;
};

static struct {
	size_t		 owed;		/* requests not yet replied to */
	struct buf	 out;		/* replies queued for stdout */
	struct batch	*batch;		/* the batch being read, if any */
	struct mcp_req	*current;	/* the request being dispatched */
	const struct mcp_watch_hooks *watch;
} mr;

/*
 * The requests something still waits on (a tool call, a listen stream,
 * a tasks/result), by idkey: a hash table of chains, grown as it fills,
 * so adding, finding and removing one cost O(1) however many wait.
 */
static struct {
	struct mcp_req	**slots;
	size_t		  nslots;	/* a power of two, or 0 */
	size_t		  n;
} mcp_ids;

/* Queue one message (a JSON text without newline) for stdout. */
void
mcp_write_line(struct buf *b)
{
	buf_add(&mr.out, b->data, b->len);
	buf_addc(&mr.out, '\n');
}

/* Are replies queued for stdout? */
bool
mcp_output_pending(void)
{
	return (mr.out.len > 0);
}

/* Bytes of replies queued. */
size_t
mcp_output_len(void)
{
	return (mr.out.len);
}

/* Are the queued replies at the ceiling (space drained but not yet
 * reclaimed counts: it is memory the queue holds)? */
bool
mcp_output_full(void)
{
	return (mr.out.off + mr.out.len >= MCP_OUT_MAX);
}

/* Write what stdout takes now; -1 if the client is gone. */
int
mcp_flush(int fd)
{
	return (fd_flush(fd, &mr.out));
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

/* A batch is being read: its requests are counted in it, and it is held
 * until every item is read (mcp_batch_end). */
void
mcp_batch_begin(void)
{
	mr.batch = xcalloc(1, sizeof *mr.batch);
	mr.batch->outstanding = 1;
}

/* Every item of the batch is read: it goes once they are answered. */
void
mcp_batch_end(void)
{
	struct batch	*bt = mr.batch;

	mr.batch = NULL;
	mcp_batch_release(bt);
}

/* A request being answered, with id (raw JSON, or NULL), counted in the
 * batch being read if any. Its context is the caller's to fill. */
struct mcp_req *
mcp_req_new(const char *id, const struct json *idv)
{
	struct mcp_req	*req;

	req = xcalloc(1, sizeof *req);
	req->id = id ? xstrdup(id) : NULL;
	req->idkey = mcp_id_key(idv);
	req->ttl = -1;
	req->ctx.log_level = -1;
	mr.owed++;
	if (mr.batch != NULL) {
		req->batch = mr.batch;
		mr.batch->outstanding++;
	}
	return (req);
}

/*
 * Nothing more is owed for req: it was replied to (its result, an error,
 * a task for it, input_required), or dropped, or it is a stream that no
 * reply ends (subscriptions/listen).
 */
void
mcp_req_settle(struct mcp_req *req)
{
	if (req->settled)
		return;
	req->settled = true;
	mr.owed--;
}

/* Are requests waiting for their reply (end of input waits for them)? */
bool
mcp_replies_owed(void)
{
	return (mr.owed > 0);
}

/* Free req. */
static void
mcp_req_free(struct mcp_req *req)
{
	free(req->id);
	free(req->idkey);
	free(req->progress_token);
	free(req->resume_state);
	free(req->resume_action);
	free(req);
}

/*
 * The request is answered (or dropped): it leaves the id table, its
 * batch is released, and it is freed, or, while it is dispatched, marked
 * done and freed when the dispatch lets go of it.
 */
void
mcp_req_done(struct mcp_req *req)
{
	if (req->done)
		return;
	req->done = true;
	mcp_req_settle(req);
	if (req->ref != NULL) {
		*req->ref = NULL;	/* its answer goes nowhere now */
		req->ref = NULL;
	}
	mcp_ids_del(req);
	if (req->result_of != NULL) {
		LIST_REMOVE(req, wentry);
		free(req->result_of);
		req->result_of = NULL;
	}
	loop_timer_free(req->task_wait);
	req->task_wait = NULL;
	mcp_batch_release(req->batch);
	req->batch = NULL;
	if (!req->held)
		mcp_req_free(req);
}

/* req is being dispatched: the log messages raised meanwhile go by its
 * context, and it is not freed before mcp_req_release. */
void
mcp_req_hold(struct mcp_req *req)
{
	req->held = true;
	mr.current = req;
}

/* The dispatch is over: req is freed if it was answered meanwhile. */
void
mcp_req_release(struct mcp_req *req)
{
	req->held = false;
	if (mr.current == req)
		mr.current = NULL;
	if (req->done)
		mcp_req_free(req);
}

/* The request being dispatched, or NULL. */
struct mcp_req *
mcp_req_current(void)
{
	return (mr.current);
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

/* Something waits on req now: find it by id until it is answered. */
void
mcp_ids_add(struct mcp_req *req)
{
	if (req->hprev != NULL)
		return;
	if (mcp_ids.n >= mcp_ids.nslots)
		mcp_ids_grow();
	mcp_ids_link(req);
	mcp_ids.n++;
}

/* Take req out of the id table, if it is in it. */
void
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

/* The waiting request with this idkey (the latest, if several). */
struct mcp_req *
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

/* A key to match a cancellation's requestId against ids, by value. */
char *
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

/*
 * A result as req's era writes it into b: as it is for a 2025 client;
 * for a 2026-07-28 one, opened with its resultType ("complete", "task",
 * "input_required"), our identity in _meta, and for a cacheable result
 * its ttlMs and cacheScope. The result is a JSON object without _meta of
 * its own.
 */
void
mcp_result_text(const struct mcp_req *req, struct buf *b, const char *result,
    size_t len, const char *type)
{
	if (req->ctx.era != MCP_ERA_2026 || len < 2 || result[0] != '{') {
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
 * era with resultType type; req stays (mcp_reply also ends it). */
void
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
	mcp_req_settle(req);
}

/* Answer req with its (complete) result, and be done with it. */
void
mcp_reply(struct mcp_req *req, const char *result, size_t len)
{
	mcp_reply_typed(req, result, len, "complete");
	mcp_req_done(req);
}

/* Answer req with the result written into b, which is freed. */
void
mcp_reply_jw(struct mcp_req *req, struct buf *b)
{
	mcp_reply(req, b->data, b->len);
	buf_free(b);
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

/* An error reply not tied to a request object (parse errors); id NULL
 * answers with "id": null. */
void
mcp_reply_error(const char *id, int code, const char *msg)
{
	struct buf	b = BUF_INIT;

	mcp_error_data(&b, id, code, msg, NULL);
	mcp_emit(mr.batch, &b);
	buf_free(&b);
}

/* Answer req with a JSON-RPC error carrying data (JSON text, or NULL),
 * and be done with it. */
void
mcp_fail_data(struct mcp_req *req, int code, const char *msg,
    const char *data)
{
	struct buf	b = BUF_INIT;

	mcp_error_data(&b, req->id, code, msg, data);
	mcp_emit(req->batch, &b);
	buf_free(&b);
	mcp_req_done(req);
}

/* Answer req with a JSON-RPC error, and be done with it. */
void
mcp_fail(struct mcp_req *req, int code, const char *msg)
{
	mcp_fail_data(req, code, msg, NULL);
}

/*
 * The one notification writer: method, then params as JSON text (an
 * object's members without braces, may be empty), tagged for a listen
 * stream if listen_id (the stream's raw JSON id) is not NULL.
 */
void
mcp_notify(const char *method, const char *params, const char *listen_id)
{
	struct buf	b = BUF_INIT;

	buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"%s\",\"params\":{",
	    method);
	if (listen_id != NULL)
		buf_printf(&b, "\"_meta\":{\"" MCP_META_SUB "\":%s}%s",
		    listen_id, *params != '\0' ? "," : "");
	buf_adds(&b, params);
	buf_adds(&b, "}}");
	mcp_write_line(&b);
	buf_free(&b);
}

/* A notification whose params are the JSON object written in obj (its
 * members are taken without the braces); obj is freed. */
void
mcp_notify_obj(const char *method, struct buf *obj, const char *listen_id)
{
	buf_cstr(obj);
	obj->data[obj->len - 1] = '\0';
	mcp_notify(method, obj->data + 1, listen_id);
	buf_free(obj);
}

/* A client-chosen name for an error message: bounded, NULs shown. */
void
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

/* Is params.cursor a cursor (not absent or null)? Then req is answered:
 * what is listed comes in one page, so none is valid. */
bool
mcp_cursor_refused(struct mcp_req *req, const struct json *params,
    const char *what)
{
	struct buf	b = BUF_INIT;

	if (params == NULL || json_get(params, "cursor") == NULL ||
	    json_type(json_get(params, "cursor")) == JSON_NULL)
		return (false);
	buf_printf(&b, "unknown cursor: %s come in one page, so no cursor is "
	    "valid", what);
	mcp_fail(req, -32602, buf_cstr(&b));
	buf_free(&b);
	return (true);
}

/* Answer req: the tasks extension was not in its capabilities, and what
 * it asked for needs it. */
void
mcp_missing_tasks(struct mcp_req *req, const char *what)
{
	struct buf	b = BUF_INIT;

	buf_printf(&b, "missing required client capability: %s need the "
	    MCP_TASKS_EXT " extension in clientCapabilities", what);
	mcp_fail_data(req, MCP_MISSING_CAPABILITY, buf_cstr(&b),
	    "{\"requiredCapabilities\":{\"extensions\":{\"" MCP_TASKS_EXT
	    "\":{}}}}");
	buf_free(&b);
}

/* Who is told what changed (mcp_listen.c, at its set-up). */
void
mcp_watch_set(const struct mcp_watch_hooks *h)
{
	mr.watch = h;
}

/* Something changed that a listener may be told of: look soon. */
void
mcp_kick(void)
{
	if (mr.watch != NULL && mr.watch->kick != NULL)
		mr.watch->kick();
}

/* A task ended: whoever follows it is told. */
void
mcp_task_told(struct task *t)
{
	if (mr.watch != NULL && mr.watch->task_ended != NULL)
		mr.watch->task_ended(t);
}

/* RFC 5424 order, as logging/setLevel and _meta name them. */
static const char *mcp_levels[] = {
	"debug", "info", "notice", "warning", "error", "critical", "alert",
	"emergency"
};
#define MCP_NLEVELS	(sizeof mcp_levels / sizeof mcp_levels[0])

/* The level named by lv (a JSON string), or -1. */
int
mcp_level_of(const struct json *lv)
{
	size_t	i;

	for (i = 0; json_type(lv) == JSON_STRING && i < MCP_NLEVELS; i++)
		if (strcmp(json_str(lv, NULL), mcp_levels[i]) == 0)
			return ((int)i);
	return (-1);
}

/* The name of a level mcp_level_of gave. */
const char *
mcp_level_name(int level)
{
	if (level < 0 || (size_t)level >= MCP_NLEVELS)
		fatalx("mcp_level_name: level %d", level);
	return (mcp_levels[level]);
}
