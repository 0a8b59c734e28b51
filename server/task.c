/*
 * task.c — tasks: a tool call whose result is fetched later.
 *
 * Two kinds, one table. In the 2026-07-28 era, the extension
 * io.modelcontextprotocol/tasks: the server decides, and a call that
 * outlasts a short wait becomes a task (mcp.c). In the 2025-11-25 era,
 * the experimental tasks: the client asks with the call's "task" field.
 * Either way the call itself goes on as it was (tools.c), and whatever it
 * answers, the very text mcp.c would have sent, is what the task keeps
 * (task_complete): a task's result is the direct call's by construction.
 *
 * A task is working while its call waits; then completed, or cancelled
 * (tasks/cancel lets go of the call as a cancelled request does). Its
 * status message says how the program it waits on stands (tools_status):
 * what it printed last and the cursor. A task ended is kept for its TTL,
 * and at most cfg.keep_ended of them (the oldest go first); ids are 128
 * random bits. Nothing here holds a process: a task is memory only, and
 * its call is bounded by the wait ceiling like any other.
 *
 * Layer: protocol (with mcp.c), over the tool layer's calls.
 */
#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "log.h"
#include "randid.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define TASK_TTL_MS	(30 * 60 * 1000)	/* kept, by default */
#define TASK_TTL_MAX_MS	(60 * 60 * 1000)
#define TASK_TTL_MIN_MS	(10 * 1000)
#define TASK_POLL_MS	1000			/* pollInterval offered */

struct task {
	char			 id[33];
	bool			 modern;
	enum task_status	 status;
	int64_t			 created_real;	/* wall clock, for people */
	int64_t			 updated_real;
	int64_t			 created_ms;	/* monotonic */
	int64_t			 ttl_ms;
	struct req		*call;		/* while working */
	struct mcp_req		*rpc;		/* and the request it answers */
	char			*result;	/* the call's answer, once there */
	size_t			 len;
	char			*said;		/* the status last told */
	TAILQ_ENTRY(task)	 entry;
};
static TAILQ_HEAD(, task) tasks = TAILQ_HEAD_INITIALIZER(tasks);

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

/* Drop tasks ended past their TTL, and the oldest ended beyond the
 * ceiling. */
static void
task_sweep(void)
{
	struct task	*t, *next;
	int64_t		 now = now_ms(), ended = 0;

	TAILQ_FOREACH(t, &tasks, entry)
		if (t->status != TASK_WORKING)
			ended++;
	for (t = TAILQ_FIRST(&tasks); t != NULL; t = next) {
		next = TAILQ_NEXT(t, entry);
		if (t->status == TASK_WORKING)
			continue;
		if (ended > cfg.keep_ended || now >= t->created_ms +
		    t->ttl_ms) {
			log_debug("task %s forgotten", t->id);
			task_free(t);
			ended--;
		}
	}
}

/*
 * A new working task for call; ttl_ms as asked (0: ours), held within
 * bounds. NULL if no random id could be had.
 */
struct task *
task_new(struct mcp_req *rpc, struct req *call, bool modern,
    int64_t ttl_ms)
{
	struct task	*t;
	char		 id[33];

	task_sweep();
	if (randid_hex(id, 16) == -1)
		return (NULL);
	t = xcalloc(1, sizeof *t);
	memcpy(t->id, id, sizeof id);
	t->modern = modern;
	t->status = TASK_WORKING;
	t->created_real = t->updated_real = realtime_ms();
	t->created_ms = now_ms();
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
	log_debug("task %s for %s call", t->id, modern ? "a modern" :
	    "a 2025-11-25");
	return (t);
}

/* The task with this id (of this era), or NULL. */
struct task *
task_find(const char *id, bool modern)
{
	struct task	*t;

	task_sweep();
	TAILQ_FOREACH(t, &tasks, entry)
		if (t->modern == modern && strcmp(t->id, id) == 0)
			return (t);
	return (NULL);
}

/* Each task of an era in turn (NULL: from the first; NULL at the end). */
struct task *
task_next(struct task *t, bool modern)
{
	t = t == NULL ? TAILQ_FIRST(&tasks) : TAILQ_NEXT(t, entry);
	while (t != NULL && t->modern != modern)
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

/* The call's answer (a JSON object's text), once completed. */
const char *
task_result(const struct task *t, size_t *len)
{
	*len = t->len;
	return (t->result);
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
task_message(struct buf *b, const struct task *t, int64_t *cursor)
{
	*cursor = -1;
	if (t->status == TASK_WORKING) {
		if (t->call == NULL || !tools_status(t->call, b, cursor))
			buf_adds(b, "the call is starting");
	} else if (t->status == TASK_CANCELLED)
		buf_adds(b, "cancelled: the call was let go");
	else
		buf_adds(b, "completed: the result is the call's");
}

/*
 * Write t's fields into the object open in w: the Task of its era
 * (ttlMs and pollIntervalMs, or ttl and pollInterval), and with detail
 * (the 2026-07-28 tasks/get and notifications) the result once it is
 * there. The status message says how the program stands, with its
 * cursor.
 */
void
task_put(struct jw *w, const struct task *t, bool detail)
{
	struct buf	 msg = BUF_INIT;
	char		 iso[40];
	int64_t		 cursor;

	jw_key(w, "taskId");
	jw_str(w, t->id);
	jw_key(w, "status");
	jw_str(w, task_names[t->status]);
	task_message(&msg, t, &cursor);
	jw_key(w, "statusMessage");
	jw_strn(w, msg.data, msg.len);
	realtime_iso(iso, sizeof iso, t->created_real);
	jw_key(w, "createdAt");
	jw_str(w, iso);
	realtime_iso(iso, sizeof iso, t->updated_real);
	jw_key(w, "lastUpdatedAt");
	jw_str(w, iso);
	jw_key(w, t->modern ? "ttlMs" : "ttl");
	jw_int(w, t->ttl_ms);
	jw_key(w, t->modern ? "pollIntervalMs" : "pollInterval");
	jw_int(w, TASK_POLL_MS);
	if (detail && t->status == TASK_COMPLETED && t->result != NULL) {
		jw_key(w, "result");
		jw_raw(w, t->result, t->len);
	}
	buf_free(&msg);
}

/* Has t's status message changed since it was last told (and keep it)? */
bool
task_changed(struct task *t)
{
	struct buf	 msg = BUF_INIT;
	int64_t		 cursor;
	bool		 changed;

	task_message(&msg, t, &cursor);
	changed = t->said == NULL || strcmp(t->said, buf_cstr(&msg)) != 0;
	if (changed) {
		free(t->said);
		t->said = xstrdup(buf_cstr(&msg));
	}
	buf_free(&msg);
	return (changed);
}

/* The call answered: t keeps its answer, as it would have been sent. */
void
task_complete(struct task *t, const char *result, size_t len)
{
	t->call = NULL;
	t->rpc = NULL;
	t->result = xmemdup(result, len);
	t->len = len;
	t->status = TASK_COMPLETED;
	t->updated_real = realtime_ms();
	log_debug("task %s completed", t->id);
}

/* tasks/cancel: the call is let go as a cancelled request is; the
 * request it would have answered is returned, for mcp.c to free. */
struct mcp_req *
task_cancel(struct task *t)
{
	struct mcp_req	*rpc = t->rpc;

	if (t->status != TASK_WORKING)
		return (NULL);
	tools_cancel(t->call);
	t->call = NULL;
	t->rpc = NULL;
	t->status = TASK_CANCELLED;
	t->updated_real = realtime_ms();
	log_debug("task %s cancelled", t->id);
	return (rpc);
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
