/*
 * mcp_req.h — the protocol wing: what its files share, and nothing above it
 * sees. Laid out as tmux lays out its commands:
 *
 *   mcp.c          stdin lines, the envelope, the one method table of
 *                  both eras, batches, cancellation (tmux's cmd.c)
 *   mcp_session.c  who the client is: initialize (2025) and _meta
 *                  (2026-07-28) fill a request's context; server/discover,
 *                  capabilities, logging/setLevel, the log sink
 *   mcp_tools.c    tools/list and tools/call: progress, elicitation, the
 *                  call that becomes a task
 *   task.c         the task store and the tasks/ methods
 *   resource.c     programs as resources and the resources/ methods,
 *                  and the view (ui://) for hosts of MCP Apps
 *   mcp_prompts.c  the prompts and the prompts/ methods
 *   mcp_listen.c   subscriptions/listen and the look that tells what
 *                  changed; it calls the others' "what changed", they
 *                  never call it (they kick it through mcp_req.c)
 *   mcp_hosts.c    beside the families: a tools/call for another host
 *                  forwarded whole and its answer, the merged
 *                  list_programs; asked by mcp_tools.c, task.c and
 *                  mcp.c, never asking them
 *   mcp_hosts_link.c  below it: the hosts, their links (host_link.c)
 *                  and what they tell, their resources; asked by
 *                  mcp_hosts.c, mcp_tools.c (set-up) and resource.c
 *                  (the two share mcp_hosts_link.h)
 *   mcp_req.c      the bottom (tmux's cmd-queue.c): a request and its
 *                  context, the id table, results and errors, the output
 *                  queue and its back-pressure, the one notification
 *                  writer
 *
 * Each method family exports its rows of the method table (struct
 * mcp_method), as each tool file exports a struct tool_entry.
 */
#ifndef PROGMUX_MCP_REQ_H
#define PROGMUX_MCP_REQ_H

#include <sys/queue.h>

#include "server.h"

#define MCP_LATEST		"2025-11-25"	/* the newest 2025 version */
#define MCP_2026		"2026-07-28"
#define MCP_META_VERSION	"io.modelcontextprotocol/protocolVersion"
#define MCP_META_CAPS		"io.modelcontextprotocol/clientCapabilities"
#define MCP_META_LEVEL		"io.modelcontextprotocol/logLevel"
#define MCP_META_SUB		"io.modelcontextprotocol/subscriptionId"
#define MCP_TASKS_EXT		"io.modelcontextprotocol/tasks"
#define MCP_UI_EXT		"io.modelcontextprotocol/ui"	/* MCP Apps */
#define MCP_UI_MIME		"text/html;profile=mcp-app"
#define MCP_NAME_SHOWN		128	/* bytes of a client's name echoed */
#define MCP_TTL_FIXED		3600000	/* ttlMs of what never changes */
#define MCP_NOT_INITIALIZED	-32002	/* a request before initialize */
#define MCP_NO_RESOURCE		-32002	/* 2025: a resource not there */
#define MCP_MISSING_CAPABILITY	-32021	/* 2026-07-28 */
#define MCP_UNSUPPORTED_VERSION	-32022	/* 2026-07-28 */

/* The protocol era a request is of. */
enum mcp_era {
	MCP_ERA_2025,		/* initialize, then the negotiated version */
	MCP_ERA_2026		/* 2026-07-28: each request says who it is */
};

/*
 * Who asked, as the request carries it: in the 2025 era a copy of what
 * initialize agreed (mcp_session.c), in 2026-07-28 what the request's
 * own _meta says. Whatever answers the request reads it here.
 */
struct mcp_ctx {
	enum mcp_era	 era;
	char		 version[16];	/* the protocol version spoken */
	bool		 tasks;		/* the client takes tasks: 2025-11-25's
					   experimental ones, or the 2026
					   extension */
	bool		 elicit_url;	/* it takes URL-mode elicitation */
	bool		 ui;		/* it renders MCP Apps views (its
					   capabilities name MCP_UI_EXT) */
	int		 log_level;	/* messages at or above (mcp_levels);
					   -1: none */
};

/* A batch (2025-03-26 only) answers once all its requests are answered. */
struct batch;

/* A request being answered (mcp_req.c). */
struct mcp_req {
	char		*id;		/* raw JSON text of the id, echoed */
	char		*idkey;		/* the id by value, for cancellation */
	struct batch	*batch;		/* the batch it came in, if any */
	struct mcp_ctx	 ctx;
	struct mcp_req	*hnext;		/* in the id table, while something */
	struct mcp_req	**hprev;	/* waits (hprev NULL: not in it) */
	bool		 held;		/* being dispatched: freed after */
	bool		 done;		/* answered or dropped */
	bool		 settled;	/* nothing more owed (mcp_req_settle) */
	struct mcp_req	**ref;		/* a pointer to it elsewhere, cleared
					   when it goes */
	int64_t		 ttl;		/* a cacheable result's ttlMs, or -1 */
	bool		 public;	/* its cacheScope */

	/* tools/call (mcp_tools.c) */
	struct req	*call;		/* the tool call answering it */
	char		*progress_token; /* raw JSON, if the client sent one */
	double		 progress_sent;
	struct task	*task;		/* the call became this task */
	struct loop_timer *task_wait;	/* 2026: when it becomes one */
	char		*resume_state;	/* 2026: a call made again after */
	char		*resume_action;	/* input_required, and the answer */

	struct mcp_fwd	*fwd;		/* forwarded to a host (mcp_hosts.c) */

	/* subscriptions/listen (mcp_listen.c) */
	struct mcp_listen *listen;
	/* tasks/result waiting (task.c) */
	char		*result_of;
	LIST_ENTRY(mcp_req) wentry;
};

/* One row of the method table. */
#define MCP_IN_2025	0x01	/* a method of the 2025 era */
#define MCP_IN_2026	0x02	/* of 2026-07-28 */
#define MCP_PRE_INIT	0x04	/* 2025: answered before initialize */
#define MCP_NEEDS_TASKS	0x08	/* the client must take tasks */
#define MCP_NEEDS_RES	0x10	/* only while resources are offered */
struct mcp_method {
	const char	*name;
	unsigned	 flags;
	/* Answers req (mcp_req_done) now, or keeps it to answer later. */
	void		(*fn)(struct mcp_req *, const struct json *params);
};

/* mcp_req.c — requests, replies, the output queue */
struct mcp_req	*mcp_req_new(const char *id, const struct json *idv);
void		 mcp_req_done(struct mcp_req *);
void		 mcp_req_settle(struct mcp_req *);
void		 mcp_req_hold(struct mcp_req *);	/* while dispatched */
void		 mcp_req_release(struct mcp_req *);
struct mcp_req	*mcp_req_current(void);		/* the one dispatched */
void		 mcp_batch_begin(void);
void		 mcp_batch_end(void);
void		 mcp_ids_add(struct mcp_req *);
void		 mcp_ids_del(struct mcp_req *);
struct mcp_req	*mcp_ids_find(const char *key);
char		*mcp_id_key(const struct json *id);
void		 mcp_write_line(struct buf *);
bool		 mcp_output_full(void);
size_t		 mcp_output_len(void);
void		 mcp_result_text(const struct mcp_req *, struct buf *,
		     const char *result, size_t len, const char *type);
void		 mcp_reply_typed(struct mcp_req *, const char *result,
		     size_t len, const char *type);
void		 mcp_reply(struct mcp_req *, const char *result, size_t len);
void		 mcp_reply_jw(struct mcp_req *, struct buf *);
void		 mcp_reply_error(const char *id, int code, const char *msg);
void		 mcp_fail(struct mcp_req *, int code, const char *msg);
void		 mcp_fail_data(struct mcp_req *, int code, const char *msg,
		     const char *data);
void		 mcp_notify(const char *method, const char *params,
		     const char *listen_id);
void		 mcp_notify_obj(const char *method, struct buf *obj,
		     const char *listen_id);
void		 mcp_quote_name(struct buf *, const char *, size_t);
bool		 mcp_cursor_refused(struct mcp_req *, const struct json *,
		     const char *what);
void		 mcp_missing_tasks(struct mcp_req *, const char *what);
/* The log levels, RFC 5424's, by name (a JSON string): an index, or -1;
 * and an index's name. */
int		 mcp_level_of(const struct json *);
const char	*mcp_level_name(int);
/* What changed, for mcp_listen.c, which sets these at its set-up: the
 * families below it kick it, never call it. */
struct mcp_watch_hooks {
	void	(*kick)(void);			/* look again soon */
	void	(*task_ended)(struct task *);
};
void		 mcp_watch_set(const struct mcp_watch_hooks *);
void		 mcp_kick(void);
void		 mcp_task_told(struct task *);

/* mcp_session.c — who the client is */
extern const struct mcp_method mcp_session_methods[];
void		 mcp_session_init(void);
void		 mcp_session_ctx(struct mcp_ctx *);	/* the 2025 one */
int		 mcp_session_meta(struct mcp_req *, const struct json *params);
bool		 mcp_session_ready(void);	/* initialize answered */
bool		 mcp_session_initialized(void);	/* and initialized came */
void		 mcp_session_set_initialized(void);
const char	*mcp_session_version(void);


/* mcp_hosts.c — tools/calls for other hosts, forwarded */
struct mcp_fwd;
bool		 mcp_hosts_call(struct mcp_req *, const char *name,
		     const struct json *args);
bool		 mcp_hosts_took(struct mcp_req *, const char *result,
		     size_t len);
void		 mcp_hosts_cancel(struct mcp_req *);
bool		 mcp_hosts_status(const struct mcp_req *, struct buf *);

/* mcp_hosts_link.c — the hosts and their links, their resources */
struct mcp_hosts_hooks {	/* how mcp_tools.c answers a call */
	void	(*answer)(struct mcp_req *, const char *result, size_t len);
	void	(*progress)(struct mcp_req *, double progress, double total,
		    const char *message);
};
void		 mcp_hosts_init(const struct mcp_hosts_hooks *);
void		 mcp_hosts_resources(struct jw *);
bool		 mcp_hosts_resources_poll(void (*updated)(const char *));
int		 mcp_hosts_resource_read(struct mcp_req *, const char *uri,
		     size_t len, const char **why);
void		 mcp_hosts_subscribe(const char *uri, bool on);

/* mcp_tools.c — tools/list, tools/call */
extern const struct mcp_method mcp_tools_methods[];
void		 mcp_tools_init(void);
void		 mcp_tools_response(const char *id, const struct json *msg);

/* task.c — the store, and the tasks/ methods */
extern const struct mcp_method task_methods[];
enum task_status {
	TASK_WORKING,
	TASK_COMPLETED,
	TASK_FAILED,
	TASK_CANCELLED
};
struct task	*task_new(struct mcp_req *, struct req *, enum mcp_era,
		     int64_t ttl_ms, const char **why);
struct task	*task_next(struct task *, enum mcp_era);
const char	*task_id(const struct task *);
enum task_status task_status(const struct task *);
enum mcp_era	 task_era(const struct task *);
void		 task_set_call(struct task *, struct req *);
void		 task_put(struct jw *, struct task *, bool detail);
bool		 task_changed(struct task *);
void		 task_answer(struct mcp_req *, const char *result, size_t len);
void		 task_reply(struct mcp_req *, struct task *, bool created);
bool		 tasks_working(void);

/* resource.c — programs as resources, and the resources/ methods */
extern const struct mcp_method resource_methods[];
bool		 resource_offered(void);
bool		 resource_used(void);		/* by a 2025 client */
bool		 resource_subscribed(const char *uri);
bool		 resource_poll(void (*list_changed)(void),
		     void (*updated)(const char *uri));
bool		 resource_view_offered(const struct mcp_ctx *);

/* mcp_prompts.c — the prompts: prompts/list, prompts/get */
extern const struct mcp_method mcp_prompts_methods[];
bool		 mcp_prompts_offered(void);

/* mcp_listen.c — subscriptions/listen, and the look */
extern const struct mcp_method mcp_listen_methods[];
void		 mcp_listen_init(void);
void		 mcp_listen_cancel(struct mcp_req *);

#endif
