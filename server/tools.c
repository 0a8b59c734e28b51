/*
 * tools.c — the tool table, built from the schemas embedded at build time.
 *
 * Each schemas/NAME.json is the whole tool definition that tools/list
 * serves (name, title, description, inputSchema, outputSchema,
 * annotations, _meta). A tool is listed only when it has both a schema and
 * a handler here. Arguments are checked generically against the
 * inputSchema (jschema.c) before a handler sees them, and fields the
 * schema does not name are refused by name, so handlers only read values
 * that are known to be well formed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jschema.h"
#include "log.h"
#include "schemas.h"
#include "server.h"
#include "xmalloc.h"

struct tool {
	const char	 *name;
	void		(*call)(struct req *, const struct json *);
	const char	 *other_fields;	/* fields a sibling tool takes */
	const char	 *other_hint;
	struct json_doc	 *doc;
	const struct json *def;
	const struct json *input;
};

static struct tool tools[] = {
	{ "start_program", tool_start_program,
	  ",input,keep,inheritShell,separateStderr,timeoutMs,maxLines,",
	  "start_program takes no %s: use run_program for input, keep, "
	  "inheritShell, separateStderr or a wait, or read_program to read",
	  NULL, NULL, NULL },
	{ "read_program", tool_read_program, NULL, NULL, NULL, NULL, NULL },
	{ "run_program", tool_run_program, NULL, NULL, NULL, NULL, NULL },
	{ "stop_program", tool_stop_program, NULL, NULL, NULL, NULL, NULL },
	{ "capture_pane", tool_capture_pane, NULL, NULL, NULL, NULL, NULL },
	{ "send_keys", tool_send_keys, NULL, NULL, NULL, NULL, NULL },
	{ "list_programs", tool_list_programs, NULL, NULL, NULL, NULL, NULL },
};
#define NTOOLS (sizeof tools / sizeof tools[0])

void
toolres_init(struct toolres *res)
{
	memset(res, 0, sizeof *res);
	jw_init(&res->w, &res->sc);
}

void
toolres_free(struct toolres *res)
{
	buf_free(&res->sc);
	buf_free(&res->text);
}

/* Make res a tool error with this message. */
void
tool_error(struct toolres *res, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) == -1)
		s = NULL;
	va_end(ap);
	buf_reset(&res->text);
	buf_adds(&res->text, s ? s : "error");
	free(s);
	res->is_error = true;
}

/* Parse every embedded schema and pair it with its handler. */
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
			    strcmp(json_str(name, NULL), tools[t].name) == 0)
				break;
		if (t == NTOOLS) {
			log_debug("schemas/%s.json: no handler, not listed",
			    sb->name);
			json_doc_free(doc);
			continue;
		}
		tools[t].doc = doc;
		tools[t].def = json_root(doc);
		/* The schemas themselves are checked by the unit tests
		 * (test_jschema), not at every start. */
		tools[t].input = json_get(tools[t].def, "inputSchema");
		if (tools[t].input == NULL) {
			xasprintf(cause, "schemas/%s.json: no inputSchema",
			    sb->name);
			return (-1);
		}
	}
	return (0);
}

void
tools_list(struct jw *w)
{
	size_t	t;

	for (t = 0; t < NTOOLS; t++)
		if (tools[t].def != NULL)
			jw_value(w, tools[t].def);
}

/* Fields the schema does not name are refused, by name. */
static int
tools_unknown_fields(const struct tool *tool, const struct json *args,
    struct toolres *res)
{
	const struct json	*props = json_get(tool->input, "properties");
	const char		*key;
	char			 probe[80];
	size_t			 i, klen;

	for (i = 0; i < json_len(args); i++) {
		key = json_key_at(args, i, &klen);
		if (props != NULL && json_get(props, key) != NULL &&
		    strlen(key) == klen)
			continue;
		snprintf(probe, sizeof probe, ",%s,", key);
		if (tool->other_fields != NULL && strlen(key) == klen &&
		    strstr(tool->other_fields, probe) != NULL) {
			tool_error(res, tool->other_hint, key);
			return (-1);
		}
		tool_error(res, "unknown field \"%.*s\": %s takes only the "
		    "fields its inputSchema lists", (int)(klen > 64 ? 64 :
		    klen), key, tool->name);
		return (-1);
	}
	return (0);
}

int
tools_call(struct req *req, const char *name, const struct json *args)
{
	struct tool		*tool = NULL;
	struct toolres		 res;
	struct json_doc		*empty = NULL;
	char			*cause = NULL;
	size_t			 t;

	for (t = 0; t < NTOOLS; t++)
		if (tools[t].def != NULL && strcmp(tools[t].name, name) == 0)
			tool = &tools[t];
	if (tool == NULL)
		return (-1);
	if (args == NULL) {
		empty = json_parse("{}", 2, NULL);
		args = json_root(empty);
	}
	toolres_init(&res);
	if (tools_unknown_fields(tool, args, &res) == 0 &&
	    jschema_validate(tool->input, args, &cause) == -1) {
		tool_error(&res, "invalid arguments for %s: %s", name, cause);
		free(cause);
	}
	if (res.is_error) {
		tools_reply(req, &res);
		toolres_free(&res);
	} else {
		toolres_free(&res);
		tool->call(req, args);
	}
	json_doc_free(empty);
	return (0);
}

/* Answer req with res and forget req. */
void
tools_reply(struct req *req, struct toolres *res)
{
	struct buf	 b = BUF_INIT;
	struct jw	 w;

	jw_init(&w, &b);
	jw_obj_begin(&w);
	jw_key(&w, "content");
	jw_arr_begin(&w);
	jw_obj_begin(&w);
	jw_key(&w, "type");
	jw_str(&w, "text");
	jw_key(&w, "text");
	jw_strn(&w, res->text.data ? res->text.data : "", res->text.len);
	jw_obj_end(&w);
	jw_arr_end(&w);
	if (!res->is_error && res->sc.len > 0) {
		jw_key(&w, "structuredContent");
		jw_raw(&w, res->sc.data, res->sc.len);
	}
	jw_key(&w, "isError");
	jw_bool(&w, res->is_error);
	jw_obj_end(&w);
	mcp_reply_result(req, b.data, b.len);
	buf_free(&b);
	mcp_req_done(req);
}

void
tools_cancel(struct req *req)
{
	if (req->kind == REQ_PANE || req->kind == REQ_KEYS)
		pane_request_cancel(req);
	else
		program_request_cancel(req);
}

void
tools_progress(struct req *req)
{
	program_request_progress(req);
}

void
tools_timeout(struct req *req)
{
	program_request_timeout(req);
}

/* Argument helpers: values already passed the schema. */
int64_t
arg_int(const struct json *args, const char *key, int64_t dflt)
{
	const struct json	*v = json_get(args, key);

	/* json_int truncates a fraction and clamps to int64_t. */
	if (v == NULL || json_type(v) != JSON_NUMBER)
		return (dflt);
	return (json_int(v));
}

bool
arg_bool(const struct json *args, const char *key, bool dflt)
{
	const struct json	*v = json_get(args, key);

	if (v == NULL || json_type(v) != JSON_BOOL)
		return (dflt);
	return (json_bool(v));
}

const char *
arg_str(const struct json *args, const char *key, size_t *len)
{
	const struct json	*v = json_get(args, key);

	if (v == NULL || json_type(v) != JSON_STRING)
		return (NULL);
	return (json_str(v, len));
}
