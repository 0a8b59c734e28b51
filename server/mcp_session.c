/*
 * mcp_session.c — who the client is, in either era, and what we offer it.
 *
 * 2025 era: initialize agrees on a version (the one asked for, if we
 * speak it, else our newest) and says what we offer; until it has been
 * answered only initialize and ping are (mcp.c). What it agreed is the
 * context every later 2025 request carries (mcp_session_ctx): the
 * version, whether the experimental tasks of 2025-11-25 are on, whether
 * the client takes URL-mode elicitation, whether it renders MCP Apps
 * views, the level set by logging/setLevel.
 *
 * 2026-07-28 era: no session. Each request carries its version, the
 * client's capabilities and, if it wants messages, a log level in its
 * _meta (mcp_session_meta): -32602 if the first two are missing, -32022
 * with the versions we speak for another. server/discover says the
 * versions, capabilities and instructions, which never change.
 *
 * The log sink: what the layers below log for the client
 * (log_notify) goes as notifications/message by the context of the
 * request being answered, if any, else by the session's: a 2026-07-28
 * request is sent only the messages at or above the level it asked for,
 * and none if it asked for none.
 *
 * Layer: protocol (a method family); calls mcp_req.c and asks the tool
 * table and the resources what is offered.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mcp_req.h"
#include "xmalloc.h"

static const char *mcp_versions[] = {
	"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"
};

#define MCP_LEVELS_SAID	"debug, info, notice, warning, error, critical, " \
	"alert, emergency"

static struct {
	struct mcp_ctx	 ctx;		/* what initialize agreed */
	bool		 ready;		/* initialize has been answered */
	bool		 initialized;	/* notifications/initialized came */
} ses;

static void	mcp_session_log(int, const char *, const char *);

/* No client yet: our newest version; warnings and worse are sent. */
void
mcp_session_init(void)
{
	memset(&ses, 0, sizeof ses);
	ses.ctx.era = MCP_ERA_2025;
	strcpy(ses.ctx.version, MCP_LATEST);
	ses.ctx.log_level = 3;	/* warning */
	log_set_sink(mcp_session_log);
}

/* A 2025 request's context: the session's. */
void
mcp_session_ctx(struct mcp_ctx *ctx)
{
	*ctx = ses.ctx;
}

/* Has initialize been answered? */
bool
mcp_session_ready(void)
{
	return (ses.ready);
}

/* Has the client sent notifications/initialized? */
bool
mcp_session_initialized(void)
{
	return (ses.initialized);
}

/* notifications/initialized came. */
void
mcp_session_set_initialized(void)
{
	ses.initialized = true;
}

/* The version initialize agreed (or our newest, before it). */
const char *
mcp_session_version(void)
{
	return (ses.ctx.version);
}

/* logging/setLevel: send that level and more severe from now on. */
static void
mcp_session_set_level(struct mcp_req *req, const struct json *params)
{
	int	level;

	if ((level = mcp_level_of(json_get(params, "level"))) == -1) {
		mcp_fail(req, -32602, "logging/setLevel: level must be one "
		    "of " MCP_LEVELS_SAID);
		return;
	}
	ses.ctx.log_level = level;
	mcp_reply(req, "{}", 2);
}

/*
 * A notifications/message for the client at a level (mcp_level_of's
 * index), if the context it goes by takes that level: the request
 * being answered's, or the session's once notifications/initialized came.
 */
static void
mcp_session_log(int level, const char *logger, const char *msg)
{
	const struct mcp_req	*cur = mcp_req_current();
	struct buf		 p = BUF_INIT;

	if (cur != NULL && cur->ctx.era == MCP_ERA_2026) {
		if (cur->ctx.log_level < 0 || level < cur->ctx.log_level)
			return;
	} else if (level < ses.ctx.log_level || !ses.initialized)
		return;
	buf_printf(&p, "\"level\":\"%s\",\"logger\":", mcp_level_name(level));
	json_put_string(&p, logger, strlen(logger));
	buf_adds(&p, ",\"data\":");
	json_put_string(&p, msg, strlen(msg));
	mcp_notify("notifications/message", buf_cstr(&p), NULL);
	buf_free(&p);
}

/*
 * Do the client's capabilities name MCP Apps (io.modelcontextprotocol/ui,
 * in extensions), with HTML views among its mimeTypes if it lists them?
 */
static bool
mcp_session_ui(const struct json *caps)
{
	const struct json	*ext, *mt;
	size_t			 i;

	ext = json_get(json_get(caps, "extensions"), MCP_UI_EXT);
	if (json_type(ext) != JSON_OBJECT)
		return (false);
	if (json_type(mt = json_get(ext, "mimeTypes")) != JSON_ARRAY)
		return (true);
	for (i = 0; i < json_len(mt); i++)
		if (json_type(json_at(mt, i)) == JSON_STRING &&
		    strcmp(json_str(json_at(mt, i), NULL), MCP_UI_MIME) == 0)
			return (true);
	return (false);
}

/* An empty object under key. */
static void
mcp_session_empty(struct jw *w, const char *key)
{
	jw_key(w, key);
	jw_obj_begin(w);
	jw_obj_end(w);
}

/*
 * The capabilities object: tools (a fixed set), logging, resources
 * (each program's output and screen) when they are offered, the prompts;
 * the experimental tasks of 2025-11-25 for a 2025 client that negotiated
 * it, the tasks extension for a 2026-07-28 one; MCP Apps for a client
 * that renders the view.
 */
static void
mcp_session_capabilities(struct jw *w, const struct mcp_ctx *ctx)
{
	jw_obj_begin(w);
	jw_key(w, "tools");
	jw_obj_begin(w);
	jw_key(w, "listChanged");
	jw_bool(w, false);
	jw_obj_end(w);
	mcp_session_empty(w, "logging");
	if (resource_offered()) {
		jw_key(w, "resources");
		jw_obj_begin(w);
		jw_key(w, "subscribe");
		jw_bool(w, true);
		jw_key(w, "listChanged");
		jw_bool(w, true);
		jw_obj_end(w);
	}
	if (ctx->era == MCP_ERA_2025 && ctx->tasks) {
		jw_key(w, "tasks");
		jw_obj_begin(w);
		mcp_session_empty(w, "list");
		mcp_session_empty(w, "cancel");
		jw_key(w, "requests");
		jw_obj_begin(w);
		jw_key(w, "tools");
		jw_obj_begin(w);
		mcp_session_empty(w, "call");
		jw_obj_end(w);
		jw_obj_end(w);
		jw_obj_end(w);
	}
	if (mcp_prompts_offered()) {
		jw_key(w, "prompts");
		jw_obj_begin(w);
		jw_key(w, "listChanged");
		jw_bool(w, false);
		jw_obj_end(w);
	}
	if (ctx->era == MCP_ERA_2026 || resource_view_offered(ctx)) {
		jw_key(w, "extensions");
		jw_obj_begin(w);
		if (ctx->era == MCP_ERA_2026)
			mcp_session_empty(w, MCP_TASKS_EXT);
		if (resource_view_offered(ctx))
			mcp_session_empty(w, MCP_UI_EXT);
		jw_obj_end(w);
	}
	jw_obj_end(w);
}

/*
 * The name a hub gives us in initialize's _meta (HOST_LINK_META): taken
 * while no program is held (ids made before would not carry it), and
 * kept; NULL if none was given or it cannot be taken.
 */
static const char *
mcp_session_host_name(const struct json *v)
{
	const char	*s;
	size_t		 len;

	if (json_type(v) != JSON_STRING)
		return (NULL);
	s = json_str(v, &len);
	if (!config_host_name_ok(s, len, true) || (cfg.host_name != NULL &&
	    strcmp(cfg.host_name, s) != 0) || (cfg.host_name == NULL &&
	    program_first() != NULL)) {
		log_warn("initialize: the name a hub gives is not taken: "
		    "programs are held, or another name was taken");
		return (NULL);
	}
	if (cfg.host_name == NULL)
		cfg.host_name = xstrdup(s);
	return (cfg.host_name);
}

/* initialize: agree on a version, say what we offer. */
static void
mcp_session_initialize(struct mcp_req *req, const struct json *params)
{
	const struct json	*pv;
	const char		*v = NULL, *s, *named;
	struct buf		 b = BUF_INIT;
	struct jw		 w;
	size_t			 i, len;

	pv = json_get(params, "protocolVersion");
	if (json_type(pv) == JSON_STRING) {
		s = json_str(pv, &len);
		for (i = 0; i < sizeof mcp_versions / sizeof *mcp_versions; i++)
			if (strlen(mcp_versions[i]) == len &&
			    memcmp(s, mcp_versions[i], len) == 0)
				v = mcp_versions[i];
	}
	snprintf(ses.ctx.version, sizeof ses.ctx.version, "%s",
	    v ? v : MCP_LATEST);
	ses.ready = true;
	ses.ctx.tasks = strcmp(ses.ctx.version, "2025-11-25") == 0;
	/* URL elicitation is 2025-11-25's: declared as elicitation.url. */
	ses.ctx.elicit_url = ses.ctx.tasks &&
	    json_type(json_get(json_get(json_get(params, "capabilities"),
	    "elicitation"), "url")) == JSON_OBJECT;
	ses.ctx.ui = mcp_session_ui(json_get(params, "capabilities"));
	req->ctx = ses.ctx;
	named = mcp_session_host_name(json_get(json_get(params, "_meta"),
	    HOST_LINK_META));

	jw_init(&w, &b);
	jw_obj_begin(&w);
	if (named != NULL) {
		jw_key(&w, "_meta");
		jw_obj_begin(&w);
		jw_key(&w, HOST_LINK_META);
		jw_str(&w, named);
		jw_obj_end(&w);
	}
	jw_key(&w, "protocolVersion");
	jw_str(&w, ses.ctx.version);
	jw_key(&w, "capabilities");
	mcp_session_capabilities(&w, &ses.ctx);
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
	jw_str(&w, tools_instructions());
	jw_obj_end(&w);
	mcp_reply_jw(req, &b);
}

/* ping: an empty result. */
static void
mcp_session_ping(struct mcp_req *req, const struct json *params)
{
	(void)params;
	mcp_reply(req, "{}", 2);
}

/* key: the 2026-07-28 versions spoken, an array. */
static void
mcp_session_versions(struct jw *w, const char *key)
{
	jw_key(w, key);
	jw_arr_begin(w);
	jw_str(w, MCP_2026);
	jw_arr_end(w);
}

/* server/discover: the versions, capabilities and instructions of the
 * server, which do not change while it runs. */
static void
mcp_session_discover(struct mcp_req *req, const struct json *params)
{
	struct buf	 b = BUF_INIT;
	struct jw	 w;

	(void)params;
	req->ttl = MCP_TTL_FIXED;
	req->public = true;
	jw_init(&w, &b);
	jw_obj_begin(&w);
	mcp_session_versions(&w, "supportedVersions");
	jw_key(&w, "capabilities");
	mcp_session_capabilities(&w, &req->ctx);
	jw_key(&w, "instructions");
	jw_str(&w, tools_instructions());
	jw_obj_end(&w);
	mcp_reply_jw(req, &b);
}

/* Answer req: its _meta names a version we do not speak (v). */
static void
mcp_session_unsupported(struct mcp_req *req, const struct json *v)
{
	struct buf	 b = BUF_INIT, d = BUF_INIT;
	struct jw	 w;
	const char	*s;
	size_t		 len;

	jw_init(&w, &d);
	jw_obj_begin(&w);
	mcp_session_versions(&w, "supported");
	jw_key(&w, "requested");
	jw_value(&w, v);
	jw_obj_end(&w);
	s = json_str(v, &len);
	buf_adds(&b, "unsupported protocol version \"");
	mcp_quote_name(&b, s, len);
	buf_adds(&b, "\": requests with _meta speak " MCP_2026 "; the 2025 "
	    "versions start with initialize");
	mcp_fail_data(req, MCP_UNSUPPORTED_VERSION, buf_cstr(&b),
	    buf_cstr(&d));
	buf_free(&b);
	buf_free(&d);
}

/*
 * A 2026-07-28 request's context, from the _meta it must carry: its
 * protocol version and the client's capabilities; its log level, if it
 * asks for messages. 0, or -1 having answered req with what is wrong.
 */
int
mcp_session_meta(struct mcp_req *req, const struct json *params)
{
	const struct json	*meta, *v, *caps, *ext;
	const char		*s;
	size_t			 len;

	req->ctx.era = MCP_ERA_2026;
	strcpy(req->ctx.version, MCP_2026);
	meta = json_get(params, "_meta");
	v = json_get(meta, MCP_META_VERSION);
	caps = json_get(meta, MCP_META_CAPS);
	if (json_type(meta) != JSON_OBJECT || json_type(v) != JSON_STRING ||
	    json_type(caps) != JSON_OBJECT) {
		mcp_fail(req, -32602, "invalid params: a " MCP_2026 " request "
		    "carries params._meta with " MCP_META_VERSION " (a string) "
		    "and " MCP_META_CAPS " (an object)");
		return (-1);
	}
	/* Matched whole: "2026-07-28\u0000x" is not this version. */
	s = json_str(v, &len);
	if (len != strlen(MCP_2026) || memcmp(s, MCP_2026, len) != 0) {
		mcp_session_unsupported(req, v);
		return (-1);
	}
	ext = json_get(json_get(caps, "extensions"), MCP_TASKS_EXT);
	req->ctx.tasks = json_type(ext) == JSON_OBJECT;
	req->ctx.elicit_url = json_type(json_get(json_get(caps,
	    "elicitation"), "url")) == JSON_OBJECT;
	req->ctx.ui = mcp_session_ui(caps);
	v = json_get(meta, MCP_META_LEVEL);
	req->ctx.log_level = mcp_level_of(v);
	if (v != NULL && req->ctx.log_level < 0) {
		mcp_fail(req, -32602, "invalid params: " MCP_META_LEVEL " must "
		    "be one of " MCP_LEVELS_SAID);
		return (-1);
	}
	return (0);
}

/* The session's rows of the method table. */
const struct mcp_method mcp_session_methods[] = {
	{ "initialize", MCP_IN_2025|MCP_PRE_INIT, mcp_session_initialize },
	{ "ping", MCP_IN_2025|MCP_PRE_INIT, mcp_session_ping },
	{ "logging/setLevel", MCP_IN_2025, mcp_session_set_level },
	{ "server/discover", MCP_IN_2026, mcp_session_discover },
	{ NULL, 0, NULL }
};

#ifdef PROGMUX_TESTING
/* The protocol version agreed by the last initialize. */
const char *
mcp_protocol_version(void)
{
	return (ses.ctx.version);
}
#endif
