/*
 * tools.c — the tool table, built from the schemas embedded at build
 * time: tiers, the allow-list, tools/list and the argument checks.
 *
 * Each schemas/NAME.json is the whole tool definition that tools/list
 * serves (name, title, description, inputSchema, outputSchema,
 * annotations, _meta). A tool is listed only when it has both a schema and
 * an entry here (struct tool_entry: run, and what settles a waiting
 * request: cancel, timeout, progress; each tool's file defines its own).
 * Arguments are checked generically against the inputSchema (jschema.c)
 * before a tool runs, so tools only read values that are known to be well
 * formed. A field the schema does not name is ignored, as JSON Schema
 * allows (clients add their own, e.g. Gemini CLI's wait_for_previous), and
 * the result's last text line names it, so a typo still shows; but a field
 * a sibling tool takes (start_program given run_program's input) is an
 * error pointing to that tool (tool_entry's other_fields).
 *
 * A call (struct req) is made for each tools/call once its tool is
 * found (tools_req.c holds it, its answer and its timers, as tmux's
 * cmd-queue.c holds the item being run), and its tool runs it once the
 * arguments passed.
 *
 * The safety tier (PROGMUX_SAFETY) and the allow-list (PROGMUX_TOOLS)
 * decide which tools exist for the client: a tool outside them is neither
 * listed nor callable, as a tool that does not exist.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jschema.h"
#include "log.h"
#include "schemas.h"
#include "server.h"
#include "xmalloc.h"

#define TOOLS_IGNORED_SHOWN	8	/* unknown fields named, at most */
#define TOOLS_NAME_SHOWN	64	/* bytes of a field's name shown */

/* A note added to the description of every input field so named, as
 * tools/list serves it (the hosts there are, for "host"). */
static struct {
	const char	*field;
	char		*note;
} tools_note;

/* Each tool's entry and tier, with its schema once tools_init has paired
 * them; task: a call of it may wait long, so it may become a task; app:
 * only a view calls it (its _meta.ui.visibility lacks "model"). */
static struct tool {
	const struct tool_entry	*entry;
	int			 tier;		/* the most held back offering it */
	bool			 task;
	struct json_doc		*doc;
	const struct json	*def;
	const struct json	*input;
	bool			 app;
} tools[] = {
	{ &tool_start_entry, SAFETY_MUTATING, false, NULL, NULL, NULL, false },
	{ &tool_read_entry, SAFETY_READONLY, true, NULL, NULL, NULL, false },
	{ &tool_run_entry, SAFETY_MUTATING, true, NULL, NULL, NULL, false },
	{ &tool_stop_entry, SAFETY_DESTRUCTIVE, false, NULL, NULL, NULL, false },
	{ &tool_pane_capture_entry, SAFETY_READONLY, false, NULL, NULL, NULL,
	    false },
	{ &tool_keys_entry, SAFETY_MUTATING, true, NULL, NULL, NULL, false },
	{ &tool_list_entry, SAFETY_READONLY, false, NULL, NULL, NULL, false },
#ifdef PROGMUX_SECRET_PAGE
	{ &tool_secret_entry, SAFETY_MUTATING, false, NULL, NULL, NULL, false },
#endif
	{ &tool_view_entry, SAFETY_READONLY, false, NULL, NULL, NULL, false },
};
#define NTOOLS (sizeof tools / sizeof tools[0])

/* Is name (len bytes) one of our tools, whatever the settings? */
static bool
tools_exists(const char *name, size_t len)
{
	size_t	t;

	for (t = 0; t < NTOOLS; t++)
		if (strlen(tools[t].entry->name) == len &&
		    memcmp(tools[t].entry->name, name, len) == 0)
			return (true);
	return (false);
}

/* The name of tool i, for lists of them; NULL past the last. */
const char *
tools_name(size_t i)
{
	return (i < NTOOLS ? tools[i].entry->name : NULL);
}

/* Is the named tool in PROGMUX_TOOLS (or is there no such list)? */
static bool
tools_allowed(const char *name)
{
	const char	*p, *end;
	size_t		 len = strlen(name), n;

	if (cfg.tools == NULL)
		return (true);
	/* config.c left it as names separated by single commas. */
	for (p = cfg.tools; *p != '\0'; p = *end == ',' ? end + 1 : end) {
		end = strchr(p, ',');
		if (end == NULL)
			end = p + strlen(p);
		n = (size_t)(end - p);
		if (n == len && memcmp(p, name, len) == 0)
			return (true);
	}
	return (false);
}

/* Does the client get tool i: in the tier and the allow-list? */
bool
tools_offered(size_t i)
{
	return (i < NTOOLS && cfg.safety <= tools[i].tier &&
	    tools_allowed(tools[i].entry->name));
}

/*
 * A PROGMUX_TOOLS value: tool names separated by commas (spaces around
 * them allowed), into list as "a,b"; every unknown name is named in the
 * error, with the setting that gave it.
 */
static int
tools_parse_list(const struct cfg_given *g, struct buf *list, char **cause)
{
	struct buf	 bad = BUF_INIT;
	const char	*p, *end, *q;
	size_t		 nbad = 0, i;

	for (p = g->value; *p != '\0'; p = *end == ',' ? end + 1 : end) {
		if ((end = strchr(p, ',')) == NULL)
			end = p + strlen(p);
		for (q = end; q > p && q[-1] == ' '; q--)
			;
		while (p < q && *p == ' ')
			p++;
		if (!tools_exists(p, (size_t)(q - p))) {
			buf_printf(&bad, "%s\"%.*s\"", nbad++ ? ", " : "",
			    (int)(q - p), p);
			continue;
		}
		buf_printf(list, "%s%.*s", list->len ? "," : "", (int)(q - p),
		    p);
	}
	if (nbad == 0)
		return (0);
	buf_adds(&bad, " (tools: ");
	for (i = 0; tools_name(i) != NULL; i++)
		buf_printf(&bad, "%s%s", i ? ", " : "", tools_name(i));
	buf_addc(&bad, ')');
	xasprintf(cause, "%s: no tool named %s", g->from, buf_cstr(&bad));
	buf_free(&bad);
	return (-1);
}

/* PROGMUX_TOOLS, and --tools: every value given is checked; the last
 * one (cfg.tools) is kept as "a,b". */
static int
tools_allow_list(char **cause)
{
	const struct cfg_given	*g;
	struct buf		 list = BUF_INIT;
	bool			 last = true;

	for (g = cfg.tools_given; g != NULL; g = g->next) {
		buf_reset(&list);
		if (tools_parse_list(g, &list, cause) == -1) {
			buf_free(&list);
			return (-1);
		}
		/* (The last value given is cfg.tools, unless it was empty.) */
		if (last && cfg.tools != NULL) {
			free(cfg.tools);
			cfg.tools = xstrdup(buf_cstr(&list));
		}
		last = false;
	}
	buf_free(&list);
	return (0);
}

/* Tools allowed by name but outside the tier are said at start. */
static void
tools_tier_warn(void)
{
	char	 probe[80];
	char	*list;
	size_t	 i, offered = 0;

	if (cfg.tools == NULL)
		return;
	xasprintf(&list, ",%s,", cfg.tools);
	for (i = 0; tools_name(i) != NULL; i++) {
		snprintf(probe, sizeof probe, ",%s,", tools_name(i));
		if (tools_offered(i))
			offered++;
		else if (strstr(list, probe) != NULL)
			log_warn("PROGMUX_TOOLS: %s is outside the %s tier "
			    "(PROGMUX_SAFETY), so it is not offered",
			    tools_name(i), config_tier_name());
	}
	if (offered == 0)
		log_warn("PROGMUX_TOOLS and PROGMUX_SAFETY leave no tool to "
		    "offer");
	free(list);
}

/*
 * What the model is told of the server, in either era: not what each
 * tool does (their descriptions say it) but how they relate and what
 * holds across them, the facts a model gets wrong: the wait ceiling
 * against its client's own cut, what waitingForInput and inputHidden
 * ask of it, that a password is never typed by it, and when programs
 * end. Made once the settings are read (the ceiling is the one in
 * force); where ask_user_secret is not built, the person types the
 * password in the pane.
 */
static char	*tools_instructions_text;

/* Write the instructions for the settings in force. */
static void
tools_instructions_make(void)
{
	struct buf	b = BUF_INIT;
	bool		secret = tools_offered_name("ask_user_secret");

	buf_printf(&b, "progmux runs argv in tmux panes, never through a shell "
	    "(for pipes or globs pass [\"sh\",\"-c\",\"...\"]). run_program "
	    "starts, waits and reads in one call; start_program returns at once "
	    "and read_program follows with the cursor each read returns. "
	    "Every wait ends within %lld ms (PROGMUX_WAIT_MAX_MS): if your "
	    "client cuts a call sooner, pass a smaller timeoutMs and read "
	    "again. waitingForInput true: the program waits for keys; answer "
	    "with send_keys. inputHidden true: it asks for a password; ",
	    (long long)cfg.wait_max_ms);
	if (secret)
		buf_adds(&b, "call ask_user_secret so the person types it, and "
		    "never type a password with send_keys. ");
	else
		buf_adds(&b, "ask the person to type it in the pane, and never "
		    "type a password with send_keys. ");
	buf_adds(&b, "Programs end when their lifetimeMs runs out and when "
	    "this server exits; stop_program ends one sooner. list_programs "
	    "finds lost programIds; capture_pane shows full-screen programs.");
	free(tools_instructions_text);
	tools_instructions_text = xstrdup(buf_cstr(&b));
	buf_free(&b);
}

/* The server's instructions, for initialize and server/discover. */
const char *
tools_instructions(void)
{
	return (tools_instructions_text != NULL ? tools_instructions_text :
	    "");
}

/* Does a tool definition say only a view may call it: _meta.ui.visibility
 * without "model"? */
static bool
tools_def_app_only(const struct json *def)
{
	const struct json	*vis;
	size_t			 i;

	vis = json_get(json_get(json_get(def, "_meta"), "ui"), "visibility");
	if (json_type(vis) != JSON_ARRAY)
		return (false);
	for (i = 0; i < json_len(vis); i++)
		if (json_type(json_at(vis, i)) == JSON_STRING &&
		    strcmp(json_str(json_at(vis, i), NULL), "model") == 0)
			return (false);
	return (true);
}

/* Check PROGMUX_TOOLS, parse every embedded schema and pair it with its
 * handler. */
int
tools_init(char **cause)
{
	const struct schema_blob	*sb;
	struct json_doc			*doc;
	const struct json		*name;
	char				*why = NULL;
	unsigned			 i;
	size_t				 t;

	for (i = 0; i < schema_blob_count; i++) {
		sb = &schema_blobs[i];
		if ((doc = json_parse(sb->json, sb->len, &why)) == NULL) {
			xasprintf(cause, "schemas/%s.json: %s", sb->name, why);
			free(why);
			return (-1);
		}
		name = json_get(json_root(doc), "name");
		for (t = 0; t < NTOOLS; t++)
			if (name != NULL && json_type(name) == JSON_STRING &&
			    strcmp(json_str(name, NULL),
			    tools[t].entry->name) == 0)
				break;
		if (t == NTOOLS) {
			log_debug("schemas/%s.json: no handler, not listed",
			    sb->name);
			json_doc_free(doc);
			continue;
		}
		tools[t].doc = doc;
		tools[t].def = json_root(doc);
		tools[t].app = tools_def_app_only(tools[t].def);
		/* The schemas themselves are checked by the unit tests
		 * (test_jschema), not at every start. */
		tools[t].input = json_get(tools[t].def, "inputSchema");
		if (tools[t].input == NULL) {
			xasprintf(cause, "schemas/%s.json: no inputSchema",
			    sb->name);
			return (-1);
		}
	}
	if (tools_allow_list(cause) == -1)
		return (-1);
	tools_tier_warn();
	tools_instructions_make();
	return (0);
}

/* Is key (klen bytes) one of _meta's keys for MCP Apps: "ui", or the
 * older flat "ui/resourceUri"? */
static bool
tools_ui_key(const char *key, size_t klen)
{
	return ((klen == 2 && memcmp(key, "ui", 2) == 0) ||
	    (klen == 14 && memcmp(key, "ui/resourceUri", 14) == 0));
}

/* _meta without its MCP Apps keys, for a client that has no view. */
static void
tools_put_meta(struct jw *w, const struct json *meta)
{
	const char	*key;
	size_t		 i, klen;

	jw_obj_begin(w);
	for (i = 0; i < json_len(meta); i++) {
		key = json_key_at(meta, i, &klen);
		if (tools_ui_key(key, klen))
			continue;
		jw_keyn(w, key, klen);
		jw_value(w, json_at(meta, i));
	}
	jw_obj_end(w);
}

/* Add note to the description of every input field named field. */
void
tools_set_note(const char *field, const char *note)
{
	tools_note.field = field;
	free(tools_note.note);
	tools_note.note = xstrdup(note);
}

/* A field's schema d, its description with the note added. */
static void
tools_put_field(struct jw *w, const struct json *d)
{
	const char	*key;
	size_t		 i, klen;
	struct buf	 b = BUF_INIT;

	jw_obj_begin(w);
	for (i = 0; i < json_len(d); i++) {
		key = json_key_at(d, i, &klen);
		jw_keyn(w, key, klen);
		if (klen != 11 || memcmp(key, "description", 11) != 0 ||
		    json_type(json_at(d, i)) != JSON_STRING) {
			jw_value(w, json_at(d, i));
			continue;
		}
		buf_adds(&b, json_str(json_at(d, i), NULL));
		buf_adds(&b, tools_note.note);
		jw_str(w, buf_cstr(&b));
		buf_free(&b);
	}
	jw_obj_end(w);
}

/*
 * Write v with the note added to the field's description wherever v (or
 * what is in it) holds that field's schema in a "properties" object
 * (props: v is one).
 */
static void
tools_put_noted(struct jw *w, const struct json *v, bool props)
{
	const char	*key;
	size_t		 i, klen, flen;

	if (tools_note.field == NULL || json_type(v) != JSON_OBJECT) {
		jw_value(w, v);
		return;
	}
	flen = strlen(tools_note.field);
	jw_obj_begin(w);
	for (i = 0; i < json_len(v); i++) {
		key = json_key_at(v, i, &klen);
		jw_keyn(w, key, klen);
		if (props && klen == flen && memcmp(key, tools_note.field,
		    flen) == 0)
			tools_put_field(w, json_at(v, i));
		else
			tools_put_noted(w, json_at(v, i), !props && klen ==
			    10 && memcmp(key, "properties", 10) == 0);
	}
	jw_obj_end(w);
}

/*
 * Every tool's definition, for tools/list, in the table's fixed order.
 * With tasks (2025-11-25's experimental tasks), a tool whose call may
 * wait long says a task is optional for it (never required: clients
 * that do not know tasks refuse such a tool). Without ui (a client that
 * renders no view), the tools only a view calls are left out and the
 * others' _meta loses what links them to the view.
 */
void
tools_list(struct jw *w, bool tasks, bool ui)
{
	const struct json	*def;
	const char		*key;
	size_t			 t, i, klen;
	bool			 task;

	for (t = 0; t < NTOOLS; t++) {
		if ((def = tools[t].def) == NULL || !tools_offered(t) ||
		    (tools[t].app && !ui))
			continue;
		task = tasks && tools[t].task;
		if (!task && ui) {
			tools_put_noted(w, def, false);
			continue;
		}
		jw_obj_begin(w);
		for (i = 0; i < json_len(def); i++) {
			key = json_key_at(def, i, &klen);
			if (klen == 9 && memcmp(key, "execution", 9) == 0 &&
			    task)
				continue;
			jw_keyn(w, key, klen);
			if (klen == 5 && memcmp(key, "_meta", 5) == 0 && !ui &&
			    json_type(json_at(def, i)) == JSON_OBJECT)
				tools_put_meta(w, json_at(def, i));
			else
				tools_put_noted(w, json_at(def, i), false);
		}
		if (task) {
			jw_key(w, "execution");
			jw_obj_begin(w);
			jw_key(w, "taskSupport");
			jw_str(w, "optional");
			jw_obj_end(w);
		}
		jw_obj_end(w);
	}
}

/* The index of the named tool, offered or not, or NTOOLS. */
static size_t
tools_index(const char *name)
{
	size_t	t;

	for (t = 0; t < NTOOLS; t++)
		if (strcmp(tools[t].entry->name, name) == 0)
			break;
	return (t);
}

/* May a call of the named tool become a task (its waits may be long)? */
bool
tools_task_ok(const char *name)
{
	size_t	t = tools_index(name);

	return (t < NTOOLS && tools[t].task && tools_offered(t));
}

/* Is the named tool offered? */
bool
tools_offered_name(const char *name)
{
	return (tools_offered(tools_index(name)));
}

/* Does only a view call the named tool (it is listed only to clients
 * that render the view)? */
bool
tools_app_only(const char *name)
{
	size_t	t = tools_index(name);

	return (t < NTOOLS && tools[t].app);
}

/* A client's field name, quoted and cut short, on one line. */
static void
tools_name_shown(struct buf *b, const char *key, size_t klen)
{
	size_t	i;

	buf_addc(b, '"');
	for (i = 0; i < klen && i < TOOLS_NAME_SHOWN; i++)
		buf_addc(b, (unsigned char)key[i] < 0x20 ? '?' : key[i]);
	buf_adds(b, klen > TOOLS_NAME_SHOWN ? "...\"" : "\"");
}

/*
 * Fields the schema does not name: one a sibling tool takes is an error
 * pointing there; any other is ignored, and named in *said for the
 * result's text.
 */
static int
tools_unknown_fields(const struct tool *tool, const struct json *args,
    char **said, struct toolres *res)
{
	const struct tool_entry	*e = tool->entry;
	const struct json	*props = json_get(tool->input, "properties");
	const char		*key;
	struct buf		 b = BUF_INIT;
	char			 probe[80];
	size_t			 i, klen, n = 0;

	for (i = 0; i < json_len(args); i++) {
		key = json_key_at(args, i, &klen);
		if (props != NULL && json_getn(props, key, klen) != NULL)
			continue;
		snprintf(probe, sizeof probe, ",%s,", key);
		if (e->other_fields != NULL && strlen(key) == klen &&
		    strstr(e->other_fields, probe) != NULL) {
			toolres_error(res, e->other_hint, key);
			buf_free(&b);
			return (-1);
		}
		if (++n > TOOLS_IGNORED_SHOWN)
			continue;	/* counted, not named */
		buf_adds(&b, n == 1 ? "" : ", ");
		tools_name_shown(&b, key, klen);
	}
	if (n > TOOLS_IGNORED_SHOWN)
		buf_printf(&b, " and %zu more", n - TOOLS_IGNORED_SHOWN);
	if (n > 0)
		xasprintf(said, "ignored unknown field%s %s",
		    n == 1 ? "" : "s", buf_cstr(&b));
	buf_free(&b);
	return (0);
}

/*
 * A NUL in a string argument is refused by name: ids, pane ids and names
 * are C strings from here on, so "p1\u0000junk" would act on p1. Only
 * input (bytes for standard input) may hold one; argv has its own check.
 */
static int
tools_nul_fields(const char *name, const struct json *args,
    struct toolres *res)
{
	const struct json	*v;
	const char		*key, *s;
	size_t			 i, klen, len;

	for (i = 0; i < json_len(args); i++) {
		key = json_key_at(args, i, &klen);
		v = json_at(args, i);
		if (json_type(v) != JSON_STRING || strcmp(key, "input") == 0)
			continue;
		s = json_str(v, &len);
		if (memchr(s, '\0', len) == NULL)
			continue;
		toolres_error(res, "%s: %s contains a NUL character (\\u0000), "
		    "which no %s can hold: remove it", name, key, key);
		return (-1);
	}
	return (0);
}

/* Check args against the tool's schema, then run it: a call for rpc,
 * answered now or later. */
int
tools_call(struct mcp_req *rpc, const char *name, const struct json *args)
{
	struct tool		*tool = NULL;
	struct toolres		 res;
	struct json_doc		*empty = NULL;
	struct req		*req;
	char			*cause = NULL, *said = NULL;
	size_t			 t;

	/* A tool outside the tier or the allow-list does not exist. */
	for (t = 0; t < NTOOLS; t++)
		if (tools[t].def != NULL && tools_offered(t) &&
		    strcmp(tools[t].entry->name, name) == 0)
			tool = &tools[t];
	if (tool == NULL)
		return (-1);
	req = tools_req_new(rpc, tool->entry, tool->app);
	if (args == NULL) {
		empty = json_parse("{}", 2, NULL);
		args = json_root(empty);
	}
	toolres_init(&res);
	if (tools_unknown_fields(tool, args, &said, &res) == 0 &&
	    tools_nul_fields(name, args, &res) == 0 &&
	    jschema_validate(tool->input, args, &cause) == -1) {
		toolres_error(&res, "invalid arguments for %s: %s", name,
		    cause);
		free(cause);
	}
	if (said != NULL)
		tools_req_ignored(req, said);
	if (res.is_error) {
		tools_reply(req, &res);
		toolres_free(&res);
	} else {
		toolres_free(&res);
		tool->entry->run(req, args);
	}
	json_doc_free(empty);
	return (0);
}

/* Argument helpers: values already passed the schema. An integer
 * argument, or dflt. */
int64_t
tools_arg_int(const struct json *args, const char *key, int64_t dflt)
{
	const struct json	*v = json_get(args, key);

	/* json_int truncates a fraction and clamps to int64_t. */
	if (v == NULL || json_type(v) != JSON_NUMBER)
		return (dflt);
	return (json_int(v));
}

/* A boolean argument, or dflt. */
bool
tools_arg_bool(const struct json *args, const char *key, bool dflt)
{
	const struct json	*v = json_get(args, key);

	if (v == NULL || json_type(v) != JSON_BOOL)
		return (dflt);
	return (json_bool(v));
}

/* A string argument (len set if not NULL), or NULL. */
const char *
tools_arg_str(const struct json *args, const char *key, size_t *len)
{
	const struct json	*v = json_get(args, key);

	if (v == NULL || json_type(v) != JSON_STRING)
		return (NULL);
	return (json_str(v, len));
}

/*
 * A pane id argument (the schema holds it to ^%\d+$) as the number tmux
 * reads it: tmux takes "%01" for "%1", so a guard or lookup comparing
 * the text given would be fooled. The canonical "%N" goes in buf; digits
 * beyond any pane tmux can have give a number no pane has (tmux then
 * says so). NULL if the argument is absent.
 */
const char *
tools_arg_pane(const struct json *args, const char *key,
    char buf[TOOLS_PANE_ID_MAX])
{
	const char	*s = tools_arg_str(args, key, NULL), *d;
	size_t		 n;

	/* Behind a hub, our panes may be named with its name for us. */
	n = cfg.host_name != NULL ? strlen(cfg.host_name) : 0;
	if (s != NULL && n > 0 && strncmp(s, cfg.host_name, n) == 0 &&
	    s[n] == ':')
		s += n + 1;
	if (s == NULL || (*s != '%' && strchr(s, ':') == NULL))
		return (s);
	for (d = s + 1; *d == '0' && d[1] != '\0'; d++)
		;
	n = strlen(d);
	/* (Another host's pane: never ours; the protocol routes those.) */
	if (n > TOOLS_PANE_ID_MAX - 2 || *s != '%') {
		d = "99999999999999999999";	/* past UINT_MAX: none */
		n = strlen(d);
	}
	buf[0] = '%';
	memcpy(buf + 1, d, n + 1);
	return (buf);
}

/*
 * A pane id as a client's text shows it: behind a hub, with the name it
 * knows us by ("box:%4", what send_keys and capture_pane take there);
 * else as it is. pane may be NULL.
 */
const char *
tools_pane_shown(const char *pane, char buf[TOOLS_PANE_SHOWN_MAX])
{
	if (pane == NULL || cfg.host_name == NULL)
		return (pane);
	snprintf(buf, TOOLS_PANE_SHOWN_MAX, "%s:%s", cfg.host_name, pane);
	return (buf);
}
