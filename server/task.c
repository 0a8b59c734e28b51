/*
 * task.c — tasks: a tool call whose result is fetched later; the store
 * and the tasks/ methods of both eras.
 *
 * Two kinds, one table. In the 2026-07-28 era, the extension
 * io.modelcontextprotocol/tasks: the server decides, and a call that
 * outlasts a short wait becomes a task (mcp_tools.c). In the 2025-11-25
 * era, the experimental tasks: the client asks with the call's "task"
 * field. Either way the call itself goes on as it was (tools.c), and
 * whatever it answers, the very text it would have sent, is what the task
 * keeps (task_answer): a task's result is the direct call's by
 * construction.
 *
 * A task is working while its call waits; then completed, or cancelled
 * (tasks/cancel lets go of the call as a cancelled request does). Its
 * status message says how the program it waits on stands (report_task):
 * what it printed last and the cursor. A task that has ended is kept for
 * its TTL counted from its end, so a call that outlasts the TTL it asked
 * for still leaves its result for that long. Beyond the TTL, ended tasks
 * whose end a client has been given (tasks/result, a 2026 tasks/get, a
 * listen stream's last notification, tasks/cancel) go first when more
 * than PROGMUX_KEEP_ENDED have ended; one whose end no client was given
 * is never dropped before its TTL. TASK_UNREAD_MAX bounds the tasks
 * working or ended unread: past it a 2026 call stays a call and a 2025
 * task is refused. Ids are 128 random bits. Nothing here holds a
 * process: a task is memory only, and its call is bounded by the wait
 * ceiling like any other.
 *
 * Layer: protocol (a method family); calls tools.c for the call it
 * waits on, report.c for its status line, and mcp_req.c.
 */
#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "log.h"
#include "mcp_req.h"
#include "randid.h"
#include "timeutil.h"
#include "xmalloc.h"

#define TASK_TTL_MS	(30 * 60 * 1000)	/* kept after the end, default */
#define TASK_TTL_MAX_MS	(60 * 60 * 1000)
#define TASK_TTL_MIN_MS	(10 * 1000)
#define TASK_POLL_MS	1000			/* pollInterval offered */
#define TASK_UNREAD_MAX	1024			/* working, or ended unread */

struct task {
	char			 id[33];
	enum mcp_era		 era;
	enum task_status	 status;
	int64_t			 created_real;	/* wall clock, for people */
	int64_t			 updated_real;
	int64_t			 ended_ms;	/* monotonic; 0 while working */
	int64_t			 ttl_ms;
	bool			 read;		/* a client was given its end */
	struct req		*call;		/* while working */
	struct mcp_req		*rpc;		/* and the request it answers */
	char			*result;	/* the call's answer, once there */
	size_t			 len;
	char			*said;		/* the status last told */
	TAILQ_ENTRY(task)	 entry;
};
static TAILQ_HEAD(, task) tasks = TAILQ_HEAD_INITIALIZER(tasks);

/* 2025 tasks/result requests waiting for their task's end. */
static LIST_HEAD(, mcp_req) task_waits = LIST_HEAD_INITIALIZER(task_waits);

static const char *const task_names[] = {
	[TASK_WORKING] = "working",
	[TASK_COMPLETED] = "completed",
	[TASK_FAILED] = "failed",
	[TASK_CANCELLED] = "cancelled"
};

/* Forget t. */
static void
task_free(struct task *t)
{
	TAILQ_REMOVE(&tasks, t, entry);
	free(t->result);
	free(t->said);
	free(t);
}

/*
 * Drop tasks ended past their TTL, and beyond PROGMUX_KEEP_ENDED ended
 * ones those whose end was read, oldest first. *unread counts the tasks
 * left working or ended unread.
 */
static void
task_sweep(size_t *unread)
{
	struct task	*t, *next;
	int64_t		 now = now_ms(), ended = 0;

	*unread = 0;
	TAILQ_FOREACH(t, &tasks, entry)
		if (t->status != TASK_WORKING)
			ended++;
	for (t = TAILQ_FIRST(&tasks); t != NULL; t = next) {
		next = TAILQ_NEXT(t, entry);
		if (t->status != TASK_WORKING && (now >= t->ended_ms +
		    t->ttl_ms || (t->read && ended > cfg.keep_ended))) {
			log_debug("task %s forgotten", t->id);
			task_free(t);
			ended--;
		} else if (t->status == TASK_WORKING || !t->read)
			(*unread)++;
	}
}

/*
 * A new working task for call (NULL: made later); ttl_ms as asked (0:
 * ours), held within bounds. NULL with *why set if TASK_UNREAD_MAX tasks
 * are working or ended unread, or no random id could be had.
 */
struct task *
task_new(struct mcp_req *rpc, struct req *call, enum mcp_era era,
    int64_t ttl_ms, const char **why)
{
	struct task	*t;
	char		 id[33];
	size_t		 unread;

	task_sweep(&unread);
	if (unread >= TASK_UNREAD_MAX) {
		*why = "1024 tasks are working or ended with their result "
		    "unread: read some (tasks/result) before asking for more";
		return (NULL);
	}
	if (randid_hex(id, 16) == -1) {
		*why = "no random bytes for a task id";
		return (NULL);
	}
	t = xcalloc(1, sizeof *t);
	memcpy(t->id, id, sizeof id);
	t->era = era;
	t->status = TASK_WORKING;
	t->created_real = t->updated_real = realtime_ms();
	if (ttl_ms <= 0)
		ttl_ms = TASK_TTL_MS;
	if (ttl_ms < TASK_TTL_MIN_MS)
		ttl_ms = TASK_TTL_MIN_MS;
	if (ttl_ms > TASK_TTL_MAX_MS)
		ttl_ms = TASK_TTL_MAX_MS;
	t->ttl_ms = ttl_ms;
	t->call = call;
	t->rpc = rpc;
	TAILQ_INSERT_TAIL(&tasks, t, entry);
	log_debug("task %s for a %s call", t->id, era == MCP_ERA_2026 ?
	    MCP_2026 : "2025-11-25");
	return (t);
}

/* The task with this id (of this era), or NULL. */
static struct task *
task_find(const char *id, enum mcp_era era)
{
	struct task	*t;
	size_t		 unread;

	task_sweep(&unread);
	TAILQ_FOREACH(t, &tasks, entry)
		if (t->era == era && strcmp(t->id, id) == 0)
			return (t);
	return (NULL);
}

/* Each task of an era in turn (NULL: from the first; NULL at the end). */
struct task *
task_next(struct task *t, enum mcp_era era)
{
	t = t == NULL ? TAILQ_FIRST(&tasks) : TAILQ_NEXT(t, entry);
	while (t != NULL && t->era != era)
		t = TAILQ_NEXT(t, entry);
	return (t);
}

const char *
task_id(const struct task *t)
{
	return (t->id);
}

enum task_status
task_status(const struct task *t)
{
	return (t->status);
}

enum mcp_era
task_era(const struct task *t)
{
	return (t->era);
}

/* The call a 2025 task runs, once it is made. */
void
task_set_call(struct task *t, struct req *call)
{
	if (t->status == TASK_WORKING)
		t->call = call;
}

/* Its status message into b: how the program stands, or a word. */
static void
task_message(struct buf *b, const struct task *t)
{
	struct program	*p;
	int64_t		 cursor;

	if (t->status == TASK_WORKING) {
		if (t->call == NULL && t->rpc != NULL &&
		    mcp_hosts_status(t->rpc, b))
			;	/* (a call on another host: what it said last) */
		else if (t->call == NULL || (p = tools_program(t->call)) ==
		    NULL)
			buf_adds(b, "the call is starting");
		else
			report_task(b, p, &cursor);
	} else if (t->status == TASK_CANCELLED)
		buf_adds(b, "cancelled: the call was let go");
	else
		buf_adds(b, "completed: the result is the call's");
}

/*
 * Write t's fields into the object open in w: the Task of its era
 * (ttlMs and pollIntervalMs, or ttl and pollInterval), and with detail
 * (the 2026-07-28 tasks/get and notifications) the result once it is
 * there, which counts as its end read. The status message says how the
 * program stands, with its cursor.
 */
void
task_put(struct jw *w, struct task *t, bool detail)
{
	struct buf	 msg = BUF_INIT;
	char		 iso[40];
	bool		 y = t->era == MCP_ERA_2026;

	jw_key(w, "taskId");
	jw_str(w, t->id);
	jw_key(w, "status");
	jw_str(w, task_names[t->status]);
	task_message(&msg, t);
	jw_key(w, "statusMessage");
	jw_strn(w, msg.data, msg.len);
	realtime_iso(iso, sizeof iso, t->created_real);
	jw_key(w, "createdAt");
	jw_str(w, iso);
	realtime_iso(iso, sizeof iso, t->updated_real);
	jw_key(w, "lastUpdatedAt");
	jw_str(w, iso);
	jw_key(w, y ? "ttlMs" : "ttl");
	jw_int(w, t->ttl_ms);
	jw_key(w, y ? "pollIntervalMs" : "pollInterval");
	jw_int(w, TASK_POLL_MS);
	if (detail && t->status != TASK_WORKING) {
		if (t->status == TASK_COMPLETED && t->result != NULL) {
			jw_key(w, "result");
			jw_raw(w, t->result, t->len);
		}
		t->read = true;
	}
	buf_free(&msg);
}

/* Has t's status message changed since it was last told (and keep it)? */
bool
task_changed(struct task *t)
{
	struct buf	 msg = BUF_INIT;
	bool		 changed;

	task_message(&msg, t);
	changed = t->said == NULL || strcmp(t->said, buf_cstr(&msg)) != 0;
	if (changed) {
		free(t->said);
		t->said = xstrdup(buf_cstr(&msg));
	}
	buf_free(&msg);
	return (changed);
}

/* t has ended (status set): its TTL starts now. */
static void
task_end(struct task *t, enum task_status status)
{
	t->call = NULL;
	t->rpc = NULL;
	t->status = status;
	t->updated_real = realtime_ms();
	t->ended_ms = now_ms();
	log_debug("task %s %s", t->id, task_names[status]);
}

/* Reply to req with a task as it stands: CreateTaskResult (created), or
 * the result of tasks/get or tasks/cancel; req stays (created) or is
 * done. */
void
task_reply(struct mcp_req *req, struct task *t, bool created)
{
	struct buf	 b = BUF_INIT;
	struct jw	 w;

	jw_init(&w, &b);
	jw_obj_begin(&w);
	if (created && req->ctx.era == MCP_ERA_2025) {
		jw_key(&w, "task");	/* 2025: the task, in "task" */
		jw_obj_begin(&w);
		task_put(&w, t, false);
		jw_obj_end(&w);
	} else
		task_put(&w, t, req->ctx.era == MCP_ERA_2026);
	jw_obj_end(&w);
	if (created)
		mcp_reply_typed(req, b.data, b.len, "task");
	else
		mcp_reply(req, b.data, b.len);
	buf_free(&b);
}

/* The answer to a 2025 tasks/result: the task's result with its id in
 * _meta, or an error if it has none. */
static void
task_result(struct mcp_req *req, struct task *t)
{
	struct buf	 b = BUF_INIT;

	t->read = true;
	if (t->status != TASK_COMPLETED || t->result == NULL || t->len < 2) {
		buf_printf(&b, "task %s was cancelled: it has no result",
		    t->id);
		mcp_fail(req, -32602, buf_cstr(&b));
	} else {
		buf_printf(&b, "{\"_meta\":{\"io.modelcontextprotocol/"
		    "related-task\":{\"taskId\":\"%s\"}}", t->id);
		if (t->result[1] != '}')
			buf_addc(&b, ',');
		buf_add(&b, t->result + 1, t->len - 1);
		mcp_reply(req, b.data, b.len);
	}
	buf_free(&b);
}

/* t ended: the 2025 tasks/result waiting on it are answered, and
 * whoever follows it is told. */
static void
task_ended(struct task *t)
{
	struct mcp_req	*req, *next;

	for (req = LIST_FIRST(&task_waits); req != NULL; req = next) {
		next = LIST_NEXT(req, wentry);
		if (strcmp(req->result_of, t->id) == 0)
			task_result(req, t);
	}
	mcp_task_told(t);
}

/* The call answered req, which became a task: the task keeps the answer
 * as the request's era would have sent it, and req is done. */
void
task_answer(struct mcp_req *req, const char *result, size_t len)
{
	struct task	*t = req->task;
	struct buf	 b = BUF_INIT;

	mcp_result_text(req, &b, result, len, "complete");
	t->result = xmemdup(b.data, b.len);
	t->len = b.len;
	buf_free(&b);
	task_end(t, TASK_COMPLETED);
	mcp_req_done(req);
	task_ended(t);
}

/* Are tasks working? */
bool
tasks_working(void)
{
	struct task	*t;

	TAILQ_FOREACH(t, &tasks, entry)
		if (t->status == TASK_WORKING)
			return (true);
	return (false);
}

/* The task named by params.taskId (of req's era), or NULL having
 * answered req with the error. */
static struct task *
task_arg(struct mcp_req *req, const struct json *params)
{
	const struct json	*id = json_get(params, "taskId");
	struct task		*t;
	struct buf		 b = BUF_INIT;
	const char		*s;
	size_t			 len;

	if (json_type(id) != JSON_STRING) {
		mcp_fail(req, -32602, "params.taskId must be the id of a task, "
		    "a string");
		return (NULL);
	}
	s = json_str(id, &len);
	if (strlen(s) == len && (t = task_find(s, req->ctx.era)) != NULL)
		return (t);
	buf_adds(&b, "task not found: \"");
	mcp_quote_name(&b, s, len);
	buf_adds(&b, "\" is not a task of this server: a task lives only as "
	    "long as the progmux that ran it (one that exited took its tasks "
	    "with it; the programs it left running are adopted by the next, "
	    "and list_programs and read_program reach them), or it was "
	    "forgotten (an ended task is kept for its TTL from its end)");
	mcp_fail(req, -32602, buf_cstr(&b));
	buf_free(&b);
	return (NULL);
}

/* tasks/get: the task as it stands. */
static void
task_get(struct mcp_req *req, const struct json *params)
{
	struct task	*t;

	if ((t = task_arg(req, params)) != NULL)
		task_reply(req, t, false);
}

/* tasks/update (2026): acknowledged; a call never asks for input. */
static void
task_update(struct mcp_req *req, const struct json *params)
{
	if (task_arg(req, params) != NULL)
		mcp_reply(req, "{}", 2);
}

/* tasks/cancel: the call let go as a cancelled request is. A 2026
 * client gets an empty acknowledgement, a 2025 one the task. */
static void
task_cancel(struct mcp_req *req, const struct json *params)
{
	struct task	*t;
	struct mcp_req	*rpc;

	if ((t = task_arg(req, params)) == NULL)
		return;
	if (t->status != TASK_WORKING) {
		if (req->ctx.era == MCP_ERA_2025)
			mcp_fail(req, -32602, "the task has already ended: it "
			    "cannot be cancelled");
		else
			mcp_reply(req, "{}", 2);
		return;
	}
	rpc = t->rpc;
	if (t->call != NULL)
		tools_cancel(t->call);
	else if (rpc != NULL)
		mcp_hosts_cancel(rpc);	/* (a call on another host) */
	task_end(t, TASK_CANCELLED);
	t->read = true;		/* the client ended it: it knows */
	if (rpc != NULL)
		mcp_req_done(rpc);
	if (req->ctx.era == MCP_ERA_2026)
		mcp_reply(req, "{}", 2);
	else
		task_reply(req, t, false);
	task_ended(t);
}

/* tasks/result (2025): the result now, or once the task ends. */
static void
task_result_method(struct mcp_req *req, const struct json *params)
{
	struct task	*t;

	if ((t = task_arg(req, params)) == NULL)
		return;
	if (t->status != TASK_WORKING) {
		task_result(req, t);
		return;
	}
	req->result_of = xstrdup(t->id);
	LIST_INSERT_HEAD(&task_waits, req, wentry);
	mcp_ids_add(req);
}

/* tasks/list (2025): every task, in one page. */
static void
task_list(struct mcp_req *req, const struct json *params)
{
	struct task	*t;
	struct buf	 b = BUF_INIT;
	struct jw	 w;
	size_t		 unread;

	if (mcp_cursor_refused(req, params, "all the tasks"))
		return;
	task_sweep(&unread);
	jw_init(&w, &b);
	jw_obj_begin(&w);
	jw_key(&w, "tasks");
	jw_arr_begin(&w);
	for (t = task_next(NULL, MCP_ERA_2025); t != NULL;
	    t = task_next(t, MCP_ERA_2025)) {
		jw_obj_begin(&w);
		task_put(&w, t, false);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	mcp_reply_jw(req, &b);
}

/* The rows of the method table. */
const struct mcp_method task_methods[] = {
	{ "tasks/get", MCP_IN_2025|MCP_IN_2026|MCP_NEEDS_TASKS, task_get },
	{ "tasks/cancel", MCP_IN_2025|MCP_IN_2026|MCP_NEEDS_TASKS,
	    task_cancel },
	{ "tasks/update", MCP_IN_2026|MCP_NEEDS_TASKS, task_update },
	{ "tasks/result", MCP_IN_2025|MCP_NEEDS_TASKS, task_result_method },
	{ "tasks/list", MCP_IN_2025|MCP_NEEDS_TASKS, task_list },
	{ NULL, 0, NULL }
};
