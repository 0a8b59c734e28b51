/*
 * mcp_listen.c — who is told what changed: subscriptions/listen streams
 * (2026-07-28), a 2025 client's resource notifications and task status,
 * and the look that finds the changes.
 *
 * A look every MCP_POLL_MS while anyone listens (a 2025 client once it
 * has used resources, or a subscriptions/listen stream) asks resource.c
 * what changed among the programs (resource_poll) and task.c how the
 * working tasks stand; list_changed and updated go to whoever asked,
 * each listen stream's tagged with its subscriptionId. The families
 * below never call this file: they kick it (mcp_kick: look soon) and say
 * a task ended (mcp_task_told) through the hooks set here at set-up.
 *
 * Layer: protocol (a method family, over resource.c and task.c).
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mcp_req.h"
#include "timeutil.h"
#include "xmalloc.h"

#define MCP_POLL_MS		1000	/* a look at the resources */
#define MCP_LISTENS_MAX		64	/* subscriptions/listen streams open */

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
	struct loop_timer *poll;	/* the next look */
	LIST_HEAD(, mcp_listen) listens;
	size_t		 nlistens;
} ml = { NULL, LIST_HEAD_INITIALIZER(ml.listens), 0 };

/* Is s one of the n strings in v? */
static bool
mcp_listen_has(char **v, size_t n, const char *s)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return (true);
	return (false);
}

/* Is a 2025 client to be told of resources: one that has used them
 * (one that never did is sent nothing it did not send before)? */
static bool
mcp_listen_2025(void)
{
	return (mcp_session_initialized() && resource_used());
}

/* Is anyone to be told of resources and tasks? */
static bool
mcp_listen_watching(void)
{
	return (mcp_listen_2025() || !LIST_EMPTY(&ml.listens));
}

static void	mcp_listen_due(void *);

/* Look at resources and tasks within a second, if anyone listens (after
 * a call: programs come and go only through calls). */
static void
mcp_listen_kick(void)
{
	if (!mcp_listen_watching())
		return;
	if (ml.poll == NULL)
		ml.poll = loop_timer_new(mcp_listen_due, NULL);
	if (!loop_timer_pending(ml.poll))
		loop_timer_set(ml.poll, now_ms() + MCP_POLL_MS);
}

/* The set of resources changed: a 2025 client, and the listen streams
 * that asked, are told. */
static void
mcp_listen_list_changed(void)
{
	struct mcp_listen	*l;

	if (mcp_listen_2025())
		mcp_notify("notifications/resources/list_changed", "", NULL);
	LIST_FOREACH(l, &ml.listens, entry)
		if (l->resources)
			mcp_notify("notifications/resources/list_changed", "",
			    l->req->id);
}

/* A resource changed: whoever subscribed to it is told. */
static void
mcp_listen_updated(const char *uri)
{
	struct mcp_listen	*l;
	struct buf		 p = BUF_INIT;

	buf_adds(&p, "\"uri\":");
	json_put_string(&p, uri, strlen(uri));
	if (mcp_session_initialized() && resource_subscribed(uri))
		mcp_notify("notifications/resources/updated", buf_cstr(&p),
		    NULL);
	LIST_FOREACH(l, &ml.listens, entry)
		if (mcp_listen_has(l->uris, l->nuris, uri))
			mcp_notify("notifications/resources/updated",
			    buf_cstr(&p), l->req->id);
	buf_free(&p);
}

/* A task's state as notifications/tasks to the listen streams that
 * follow it (2026-07-28), or notifications/tasks/status (2025). */
static void
mcp_listen_task(struct task *t)
{
	struct mcp_listen	*l;
	struct buf		 p = BUF_INIT;
	struct jw		 w;
	bool			 heard = false;

	if (task_era(t) == MCP_ERA_2025) {
		if (!mcp_session_initialized())
			return;
		jw_init(&w, &p);
		jw_obj_begin(&w);
		task_put(&w, t, false);
		jw_obj_end(&w);
		mcp_notify_obj("notifications/tasks/status", &p, NULL);
		return;
	}
	LIST_FOREACH(l, &ml.listens, entry)
		heard |= mcp_listen_has(l->tasks, l->ntasks, task_id(t));
	if (!heard)
		return;
	jw_init(&w, &p);
	jw_obj_begin(&w);
	task_put(&w, t, true);
	jw_obj_end(&w);
	/* The members, without the braces. */
	buf_cstr(&p);
	p.data[p.len - 1] = '\0';
	LIST_FOREACH(l, &ml.listens, entry)
		if (mcp_listen_has(l->tasks, l->ntasks, task_id(t)))
			mcp_notify("notifications/tasks", p.data + 1,
			    l->req->id);
	buf_free(&p);
}

/* Listen streams are told how the working tasks they follow stand, when
 * that changed. */
static void
mcp_listen_tasks(void)
{
	struct task		*t;
	struct mcp_listen	*l;
	bool			 heard;

	for (t = task_next(NULL, MCP_ERA_2026); t != NULL;
	    t = task_next(t, MCP_ERA_2026)) {
		if (task_status(t) != TASK_WORKING)
			continue;
		heard = false;
		LIST_FOREACH(l, &ml.listens, entry)
			heard |= mcp_listen_has(l->tasks, l->ntasks,
			    task_id(t));
		if (heard && task_changed(t))
			mcp_listen_task(t);
	}
}

/* About once a second while anyone listens: what changed is told. */
static void
mcp_listen_due(void *arg)
{
	bool	more;

	(void)arg;
	more = resource_poll(mcp_listen_list_changed, mcp_listen_updated);
	mcp_listen_tasks();
	if ((more || tasks_working()) && mcp_listen_watching())
		loop_timer_set(ml.poll, now_ms() + MCP_POLL_MS);
}

/* A listen stream goes: cancelled by the client. */
void
mcp_listen_cancel(struct mcp_req *req)
{
	struct mcp_listen	*l = req->listen;
	size_t			 i;

	if (l == NULL)
		return;
	LIST_REMOVE(l, entry);
	ml.nlistens--;
	for (i = 0; i < l->nuris; i++)
		free(l->uris[i]);
	free(l->uris);
	for (i = 0; i < l->ntasks; i++)
		free(l->tasks[i]);
	free(l->tasks);
	req->listen = NULL;
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
		(*v)[(*n)++] = xstrdup(str);
		jw_str(w, str);
	}
	jw_arr_end(w);
}

/* What a new stream l carries, from f, said in w. */
static void
mcp_listen_what(struct mcp_listen *l, const struct json *f, struct jw *w)
{
	const struct json	*v;

	v = json_get(f, "resourcesListChanged");
	if (resource_offered() && json_type(v) == JSON_BOOL && json_bool(v)) {
		l->resources = true;
		jw_key(w, "resourcesListChanged");
		jw_bool(w, true);
	}
	v = json_get(f, "resourceSubscriptions");
	if (resource_offered() && json_type(v) == JSON_ARRAY) {
		jw_key(w, "resourceSubscriptions");
		mcp_listen_strings(v, &l->uris, &l->nuris, w);
	}
	v = json_get(f, "taskIds");
	if (json_type(v) == JSON_ARRAY) {
		jw_key(w, "taskIds");
		mcp_listen_strings(v, &l->tasks, &l->ntasks, w);
	}
}

/*
 * subscriptions/listen (2026-07-28): a stream that stays open until the
 * client cancels it; first the acknowledgement of what it will carry
 * (resource list changes, updates of the resources named, the tasks
 * named; tools and prompts never change here), then those
 * notifications, each tagged with the stream's id.
 */
static void
mcp_listen_method(struct mcp_req *req, const struct json *params)
{
	const struct json	*f = json_get(params, "notifications");
	struct mcp_listen	*l;
	struct buf		 b = BUF_INIT;
	struct jw		 w;

	if (json_type(f) != JSON_OBJECT) {
		mcp_fail(req, -32602, "subscriptions/listen needs "
		    "params.notifications, an object naming what to be told");
		return;
	}
	if (json_get(f, "taskIds") != NULL && !req->ctx.tasks) {
		mcp_missing_tasks(req, "task notifications");
		return;
	}
	if (ml.nlistens >= MCP_LISTENS_MAX) {
		mcp_fail(req, -32602, "too many subscriptions/listen streams "
		    "open (64): cancel one first");
		return;
	}
	l = xcalloc(1, sizeof *l);
	l->req = req;
	req->listen = l;
	ml.nlistens++;
	LIST_INSERT_HEAD(&ml.listens, l, entry);
	jw_init(&w, &b);
	jw_obj_begin(&w);
	jw_key(&w, "notifications");
	jw_obj_begin(&w);
	mcp_listen_what(l, f, &w);
	jw_obj_end(&w);
	jw_obj_end(&w);
	mcp_notify_obj("notifications/subscriptions/acknowledged", &b,
	    req->id);
	mcp_ids_add(req);	/* until notifications/cancelled names it */
	mcp_req_settle(req);	/* (a stream: no reply ends it) */
	mcp_listen_kick();
}

/* What the families below call to have us look, or tell. */
static const struct mcp_watch_hooks mcp_listen_hooks = {
	.kick = mcp_listen_kick,
	.task_ended = mcp_listen_task
};

/* Be told what changes. */
void
mcp_listen_init(void)
{
	mcp_watch_set(&mcp_listen_hooks);
}

/* The rows of the method table. */
const struct mcp_method mcp_listen_methods[] = {
	{ "subscriptions/listen", MCP_IN_2026, mcp_listen_method },
	{ NULL, 0, NULL }
};
