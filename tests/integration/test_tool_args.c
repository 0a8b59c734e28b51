/*
 * test_tool_args.c — the tools build/progmux lists and the arguments they take.
 *
 * Each test starts its own progmux on a private tmux server (tests/client.c),
 * or several with settings of their own: the shape of tools/list,
 * start_program's and read_program's schemas against the seeds in
 * tests/fixtures/seeds, a tools/list cursor never given out, arguments that
 * break the inputSchema as tool errors, unknown fields ignored and named,
 * and the tools that PROGMUX_SAFETY's tiers and PROGMUX_TOOLS leave (bad
 * values of either stop progmux at start).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "harness.h"
#include "xmalloc.h"

/* Assert that obj has member key of type type; return it. */
static const struct json *
member(const struct json *obj, const char *key, enum json_type type)
{
	const struct json	*v = json_get(obj, key);

	if (v == NULL)
		fail_msg("missing \"%s\"", key);
	if (json_type(v) != type)
		fail_msg("\"%s\" is a %s, not a %s", key,
		    json_type_name(json_type(v)), json_type_name(type));
	return (v);
}

/* Pins: every tool has name, title, description, both schemas of type
 * object, annotations and the io.progmux/capability _meta block. */
static void
test_tools_list_shape(void **state)
{
	struct pmx		*c = *state;
	struct json_doc		*d;
	const struct json	*tools, *t, *s, *cap;
	const char		*keys[] = { "toolset", "tmuxEffects",
				    "processReach", "outputClasses",
				    "mayExposeSecrets",
				    "mayReturnUntrustedContent" };
	size_t			 i, k;

	tools = list_tools(c, &d);
	assert_true(json_len(tools) >= 2);
	assert_non_null(find_tool(tools, "start_program"));
	assert_non_null(find_tool(tools, "read_program"));
	for (i = 0; i < json_len(tools); i++) {
		t = json_at(tools, i);
		assert_int_equal(json_type(t), JSON_OBJECT);
		assert_true(strlen(json_str(member(t, "name", JSON_STRING),
		    NULL)) > 0);
		assert_true(strlen(json_str(member(t, "title", JSON_STRING),
		    NULL)) > 0);
		assert_true(strlen(json_str(member(t, "description",
		    JSON_STRING), NULL)) > 0);
		s = member(t, "inputSchema", JSON_OBJECT);
		assert_string_equal(json_str(member(s, "type", JSON_STRING),
		    NULL), "object");
		s = member(t, "outputSchema", JSON_OBJECT);
		assert_string_equal(json_str(member(s, "type", JSON_STRING),
		    NULL), "object");
		member(t, "annotations", JSON_OBJECT);
		s = member(t, "_meta", JSON_OBJECT);
		cap = member(s, "io.progmux/capability", JSON_OBJECT);
		for (k = 0; k < sizeof keys / sizeof *keys; k++)
			if (json_get(cap, keys[k]) == NULL)
				fail_msg("%s: _meta capability lacks %s",
				    json_str(json_get(t, "name"), NULL),
				    keys[k]);
	}
	json_doc_free(d);
}

/* Keys whose object maps names to schemas (a key there is not a keyword). */
static bool
names_map(const char *key, size_t len)
{
	const char	*maps[] = { "properties", "patternProperties", "$defs",
			    "definitions", "dependentSchemas" };
	size_t		 i;

	for (i = 0; i < sizeof maps / sizeof *maps; i++)
		if (strlen(maps[i]) == len && memcmp(maps[i], key, len) == 0)
			return (true);
	return (false);
}

/* A "description" keyword (not a property called description)? */
static bool
is_desc(const char *key, size_t len, bool names)
{
	return (!names && len == 11 && memcmp(key, "description", 11) == 0);
}

/* Deep equality that ignores "description" keywords at any depth. */
static bool
equal_nodesc(const struct json *a, const struct json *b, bool names)
{
	const struct json	*bv;
	const char		*k;
	size_t			 i, klen, na = 0, nb = 0;

	if (json_type(a) != json_type(b))
		return (false);
	switch (json_type(a)) {
	case JSON_ARRAY:
		if (json_len(a) != json_len(b))
			return (false);
		for (i = 0; i < json_len(a); i++)
			if (!equal_nodesc(json_at(a, i), json_at(b, i), false))
				return (false);
		return (true);
	case JSON_OBJECT:
		for (i = 0; i < json_len(a); i++) {
			k = json_key_at(a, i, &klen);
			if (is_desc(k, klen, names))
				continue;
			na++;
			if ((bv = json_getn(b, k, klen)) == NULL)
				return (false);
			if (!equal_nodesc(json_at(a, i), bv, !names &&
			    names_map(k, klen)))
				return (false);
		}
		for (i = 0; i < json_len(b); i++) {
			k = json_key_at(b, i, &klen);
			if (!is_desc(k, klen, names))
				nb++;
		}
		return (na == nb);
	default:
		return (json_equal(a, b));
	}
}

/*
 * Does served extend seed: equal to it (descriptions aside) except for
 * names added to a map of names (new optional properties; a required
 * list is an array, so it must stay as it is)?
 */
static bool
extends_nodesc(const struct json *served, const struct json *seed,
    bool names)
{
	const struct json	*sv;
	const char		*k;
	size_t			 i, klen, na = 0, nb = 0;

	if (json_type(served) != json_type(seed))
		return (false);
	switch (json_type(seed)) {
	case JSON_ARRAY:
		if (json_len(served) != json_len(seed))
			return (false);
		for (i = 0; i < json_len(seed); i++)
			if (!extends_nodesc(json_at(served, i),
			    json_at(seed, i), false))
				return (false);
		return (true);
	case JSON_OBJECT:
		for (i = 0; i < json_len(seed); i++) {
			k = json_key_at(seed, i, &klen);
			if (is_desc(k, klen, names))
				continue;
			nb++;
			if ((sv = json_getn(served, k, klen)) == NULL)
				return (false);
			if (!extends_nodesc(sv, json_at(seed, i), !names &&
			    names_map(k, klen)))
				return (false);
		}
		for (i = 0; i < json_len(served); i++) {
			k = json_key_at(served, i, &klen);
			if (!is_desc(k, klen, names))
				na++;
		}
		return (names || na == nb);
	default:
		return (json_equal(served, seed));
	}
}

/* Parse tests/fixtures/seeds/NAME.json. */
static struct json_doc *
load_seed(const char *name)
{
	struct json_doc	*d;
	char		 path[256], *text = NULL, *cause = NULL;
	size_t		 cap = 0, len = 0;
	FILE		*f;
	size_t		 n;

	snprintf(path, sizeof path, "tests/fixtures/seeds/%s.json", name);
	if ((f = fopen(path, "r")) == NULL)
		fail_msg("cannot open %s (run from the repository root)", path);
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			text = xrealloc(text, cap);
		}
		if ((n = fread(text + len, 1, cap - len, f)) == 0)
			break;
		len += n;
	}
	fclose(f);
	if ((d = json_parse(text, len, &cause)) == NULL)
		fail_msg("%s: %s", path, cause);
	free(text);
	return (d);
}

/* Pins: start_program's and read_program's inputSchema, outputSchema and
 * annotations are the seeds' field for field (descriptions aside), but
 * for optional properties added beside the seeds' own. */
static void
test_tools_match_seeds(void **state)
{
	struct pmx		*c = *state;
	struct json_doc		*d, *seed[2];
	const struct json	*tools, *t, *s;
	const char		*names[] = { "start_program", "read_program" };
	const char		*fields[] = { "inputSchema", "outputSchema",
				    "annotations" };
	size_t			 i, f;

	tools = list_tools(c, &d);
	for (i = 0; i < 2; i++) {
		seed[i] = load_seed(names[i]);
		s = json_root(seed[i]);
		if ((t = find_tool(tools, names[i])) == NULL)
			fail_msg("%s is not listed", names[i]);
		for (f = 0; f < 3; f++) {
			assert_non_null(json_get(s, fields[f]));
			if (!extends_nodesc(json_get(t, fields[f]),
			    json_get(s, fields[f]), false))
				fail_msg("%s.%s differs from the seed",
				    names[i], fields[f]);
		}
	}
	/* The comparison can fail: the two tools' schemas differ, and a
	 * seed does not extend what adds to it. */
	assert_false(equal_nodesc(json_get(json_root(seed[0]), "inputSchema"),
	    json_get(json_root(seed[1]), "inputSchema"), false));
	assert_false(extends_nodesc(json_get(json_root(seed[0]),
	    "inputSchema"), json_get(json_root(seed[1]), "inputSchema"),
	    false));
	t = find_tool(tools, "read_program");
	assert_false(extends_nodesc(json_get(json_root(seed[1]),
	    "outputSchema"), json_get(t, "outputSchema"), false));
	json_doc_free(seed[0]);
	json_doc_free(seed[1]);
	json_doc_free(d);
}

/* Pins: tools/list with a cursor it never gave out is -32602. */
static void
test_tools_list_bad_cursor(void **state)
{
	struct pmx	*c = *state;

	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":"
	    "\"tools/list\",\"params\":{\"cursor\":\"no-such-cursor\"}}",
	    -32602, "7");
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":"
	    "\"tools/list\",\"params\":{\"cursor\":\"\"}}", -32602, "8");
}

/* Call tool with args; assert an isError result whose text holds want. */
static void
expect_tool_error(struct pmx *c, const char *tool, const char *args,
    const char *want)
{
	struct json_doc		*d;
	const struct json	*r, *ie;
	const char		*text;

	if ((d = pmx_call(c, tool, args, REPLY_MS)) == NULL)
		fail_msg("%s %s: no reply", tool, args);
	assert_envelope(d);
	if ((r = json_get(json_root(d), "result")) == NULL)
		fail_msg("%s %s: a JSON-RPC error, not a tool error", tool,
		    args);
	ie = json_get(r, "isError");
	if (ie == NULL || json_type(ie) != JSON_BOOL || !json_bool(ie))
		fail_msg("%s %s: isError is not true", tool, args);
	member(r, "content", JSON_ARRAY);
	text = pmx_text(d);
	if (strstr(text, want) == NULL)
		fail_msg("%s %s: message does not mention %s: %s", tool, args,
		    want, text);
	json_doc_free(d);
}

/* Pins: arguments that break the inputSchema are isError results naming
 * the field, and run_program's fields point at run_program (fields the
 * tool does not know at all: test_unknown_fields_ignored). */
static void
test_argument_validation(void **state)
{
	struct pmx	*c = *state;

	expect_tool_error(c, "start_program", "{}", "argv");
	expect_tool_error(c, "start_program", "{\"argv\":[]}", "argv");
	expect_tool_error(c, "start_program", "{\"argv\":\"true\"}", "argv");
	expect_tool_error(c, "start_program", "{\"argv\":[1]}", "argv");
	expect_tool_error(c, "start_program", "{\"argv\":[\"true\"],"
	    "\"width\":0}", "width");
	expect_tool_error(c, "start_program", "{\"argv\":[\"true\"],"
	    "\"height\":1.5}", "height");
	expect_tool_error(c, "start_program", "{\"argv\":[\"true\"],"
	    "\"input\":\"x\"}", "run_program");
	expect_tool_error(c, "start_program", "{\"argv\":[\"true\"],"
	    "\"placement\":\"sideways\"}", "placement");
	expect_tool_error(c, "read_program", "{\"programId\":\"\"}",
	    "programId");
	expect_tool_error(c, "read_program", "{}", "programId");
	expect_tool_error(c, "read_program", "{\"programId\":\"p1\","
	    "\"timeoutMs\":-1}", "timeoutMs");
	/* Arguments left out or null are an empty object. */
	send_line(c, "{\"jsonrpc\":\"2.0\",\"id\":\"n\",\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"start_program\","
	    "\"arguments\":null}}");
	{
		struct json_doc	*d = next_line(c);

		assert_true(pmx_is_error(d));
		assert_non_null(strstr(pmx_text(d), "argv"));
		json_doc_free(d);
	}
}

#define TIER_WAIT_MS	20000	/* a call that goes to tmux, loaded */

/* The last line of a tools/call result's text. */
static const char *
last_text_line(const struct json_doc *d)
{
	const char	*text = pmx_text(d), *nl;

	if (text == NULL)
		fail_msg("no text in the result");
	nl = strrchr(text, '\n');
	return (nl != NULL ? nl + 1 : text);
}

/* Call tool with args: it must run (no isError) and its text must end
 * with the line want; returns the reply. */
static struct json_doc *
call_noting(struct pmx *c, const char *tool, const char *args,
    const char *want)
{
	struct json_doc	*d;

	if ((d = pmx_call(c, tool, args, TIER_WAIT_MS)) == NULL)
		fail_msg("%s %s: no valid reply", tool, args);
	if (pmx_result(d) == NULL || pmx_is_error(d))
		fail_msg("%s %s did not run: %s", tool, args,
		    pmx_result(d) ? pmx_text(d) : "a JSON-RPC error");
	if (strcmp(last_text_line(d), want) != 0)
		fail_msg("%s %s: last text line is \"%s\", not \"%s\"", tool,
		    args, last_text_line(d), want);
	return (d);
}

/*
 * Pins: a field a tool does not know is ignored on every tool
 * (Gemini CLI's wait_for_previous), and the result's last text line names
 * it; no inputSchema forbids other fields; a known field with a bad value
 * is still an error naming it, with the ignored field noted too; a field
 * of run_program given to start_program is still an error pointing there.
 */
static void
test_unknown_fields_ignored(void **state)
{
	struct pmx		*c = *state;
	struct json_doc		*d, *ld;
	const struct json	*tools, *in;
	const char		*note = "ignored unknown field "
				    "\"wait_for_previous\"";
	char			 args[256], *id, *pane;
	size_t			 i;

	tools = list_tools(c, &ld);
	for (i = 0; i < json_len(tools); i++) {
		in = json_get(json_at(tools, i), "inputSchema");
		if (json_get(in, "additionalProperties") != NULL &&
		    json_type(json_get(in, "additionalProperties")) ==
		    JSON_BOOL && !json_bool(json_get(in,
		    "additionalProperties")))
			fail_msg("%s's inputSchema forbids other fields",
			    json_str(json_get(json_at(tools, i), "name"),
			    NULL));
	}
	json_doc_free(ld);

	d = call_noting(c, "run_program", "{\"argv\":[\"echo\",\"ran\"],"
	    "\"wait_for_previous\":false}", note);
	assert_string_equal(json_str(json_get(pmx_sc(d), "text"), NULL),
	    "ran\n");
	json_doc_free(d);
	d = call_noting(c, "start_program", "{\"argv\":[\"sleep\",\"30\"],"
	    "\"wait_for_previous\":true}", note);
	id = xstrdup(json_str(json_get(pmx_sc(d), "programId"), NULL));
	pane = xstrdup(json_str(json_get(pmx_sc(d), "paneId"), NULL));
	json_doc_free(d);
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"timeoutMs\":0,"
	    "\"wait_for_previous\":true}", id);
	json_doc_free(call_noting(c, "read_program", args, note));
	snprintf(args, sizeof args, "{\"paneId\":\"%s\","
	    "\"wait_for_previous\":true}", pane);
	json_doc_free(call_noting(c, "capture_pane", args, note));
	snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":\"x\","
	    "\"enter\":false,\"wait_for_previous\":true}", pane);
	json_doc_free(call_noting(c, "send_keys", args, note));
	json_doc_free(call_noting(c, "list_programs",
	    "{\"wait_for_previous\":true}", note));
	/* Two at once, both named. */
	json_doc_free(call_noting(c, "list_programs",
	    "{\"wait_for_previous\":true,\"bogus\":1}",
	    "ignored unknown fields \"wait_for_previous\", \"bogus\""));
	/* A known field with a bad value: still an error, naming it. */
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"graceMs\":"
	    "\"soon\",\"wait_for_previous\":true}", id);
	expect_tool_error(c, "stop_program", args, "graceMs");
	expect_tool_error(c, "stop_program", args, note);
	/* A sibling tool's field is no client's extra. */
	expect_tool_error(c, "start_program", "{\"argv\":[\"true\"],"
	    "\"keep\":true,\"wait_for_previous\":true}", "run_program");
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"graceMs\":0,"
	    "\"wait_for_previous\":true}", id);
	json_doc_free(call_noting(c, "stop_program", args, note));
	free(id);
	free(pane);
}

/* The names in a tools array, sorted, joined by spaces (allocated). */
static char *
tool_names(const struct json *tools)
{
	const char	*names[32], *t;
	struct buf	 b = BUF_INIT;
	size_t		 n = 0, i, j;

	for (i = 0; i < json_len(tools) && n < 32; i++)
		names[n++] = json_str(json_get(json_at(tools, i), "name"),
		    NULL);
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (i = 0; i < n; i++)
		buf_printf(&b, "%s%s", i ? " " : "", names[i]);
	buf_addc(&b, '\0');
	return (b.data);
}

/* Calling tool must get the unknown-tool error, -32602. */
static void
expect_no_tool(struct pmx *c, const char *tool, const char *args)
{
	struct json_doc		*d;
	const struct json	*e;

	if ((d = pmx_call(c, tool, args, TIER_WAIT_MS)) == NULL)
		fail_msg("%s: no reply", tool);
	if ((e = json_get(json_root(d), "error")) == NULL)
		fail_msg("%s was called, not refused as unknown: %s", tool,
		    pmx_result(d) ? pmx_text(d) : "?");
	assert_int_equal(json_int(json_get(e, "code")), -32602);
	if (strstr(json_str(json_get(e, "message"), NULL), "unknown tool") ==
	    NULL)
		fail_msg("%s: not the unknown-tool error: %s", tool,
		    json_str(json_get(e, "message"), NULL));
	json_doc_free(d);
}

/* ask_user_secret exists in a build with its page's library (the
 * tests are built with the binaries' flags). */
#ifdef PROGMUX_SECRET_PAGE
#define SECRET_TOOL	"ask_user_secret "
#else
#define SECRET_TOOL	""
#endif

/* progmux --help's line on --safety must name each of names (separated
 * by spaces), so a person choosing a tier sees what it offers. */
static void
expect_help_names(const char *names)
{
	const char	*bin = getenv("PROGMUX_BIN");
	char		*argv[] = { (char *)(bin ? bin : "build/progmux"),
			    (char *)"--help", NULL };
	char		*out, *line, *nl, *copy, *name, *last;
	int		 st;

	if ((out = pmx_run_capture(argv, &st)) == NULL || st != 0)
		fail_msg("progmux --help: exit status %d", st);
	if ((line = strstr(out, "--safety")) == NULL)
		fail_msg("progmux --help has no --safety line: %s", out);
	if ((nl = strchr(line, '\n')) != NULL)
		*nl = '\0';
	copy = xstrdup(names);
	for (name = strtok_r(copy, " ", &last); name != NULL;
	    name = strtok_r(NULL, " ", &last))
		if (strstr(line, name) == NULL)
			fail_msg("--help's --safety line does not name %s: %s",
			    name, line);
	free(copy);
	free(out);
}

/* Start progmux with env; tools/list must name exactly want (sorted). */
static void
open_expect_tools(struct pmx *c, const char *const *env, const char *want)
{
	struct json_doc	*d;
	char		*got;

	if (pmx_open(c, env) == -1)
		fail_msg("progmux with %s did not start", env[0]);
	got = tool_names(list_tools(c, &d));
	if (strcmp(got, want) != 0)
		fail_msg("%s: tools/list names \"%s\", not \"%s\"", env[0],
		    got, want);
	free(got);
	json_doc_free(d);
}

/*
 * Pins: PROGMUX_SAFETY's tiers list exactly their tools (readonly:
 * read_program, capture_pane, list_programs; mutating: also start_program,
 * run_program, send_keys, ask_user_secret where it is built; destructive:
 * also stop_program), and a call to a
 * tool outside the tier gets the unknown-tool error while one inside runs;
 * --help's --safety line names every tool, view_update (listed only to a
 * client that shows views) too.
 */
static void
test_safety_tiers(void **state)
{
	const char	*ro[] = { "PROGMUX_SAFETY=readonly", NULL };
	const char	*mu[] = { "PROGMUX_SAFETY=mutating", NULL };
	const char	*de[] = { "PROGMUX_SAFETY=destructive", NULL };
	struct pmx	 c;
	struct json_doc	*d;

	(void)state;
	open_expect_tools(&c, ro, "capture_pane list_programs read_program");
	expect_no_tool(&c, "start_program", "{\"argv\":[\"true\"]}");
	expect_no_tool(&c, "run_program", "{\"argv\":[\"true\"]}");
	expect_no_tool(&c, "send_keys", "{\"paneId\":\"%0\",\"keys\":\"x\"}");
	expect_no_tool(&c, "stop_program", "{\"programId\":\"p1\"}");
	d = pmx_call(&c, "list_programs", "{}", TIER_WAIT_MS);
	assert_non_null(d);
	assert_false(pmx_is_error(d));
	json_doc_free(d);
	assert_int_equal(pmx_close(&c), 0);

	open_expect_tools(&c, mu, SECRET_TOOL "capture_pane list_programs "
	    "read_program run_program send_keys start_program");
	expect_no_tool(&c, "stop_program", "{\"programId\":\"p1\"}");
	d = pmx_call(&c, "run_program", "{\"argv\":[\"true\"]}", TIER_WAIT_MS);
	assert_non_null(d);
	assert_false(pmx_is_error(d));
	json_doc_free(d);
	assert_int_equal(pmx_close(&c), 0);

	open_expect_tools(&c, de, SECRET_TOOL "capture_pane list_programs "
	    "read_program run_program send_keys start_program stop_program");
	assert_int_equal(pmx_close(&c), 0);
	expect_help_names(SECRET_TOOL "capture_pane list_programs "
	    "read_program run_program send_keys start_program stop_program "
	    "view_update");
}

/*
 * Pins: PROGMUX_TOOLS allows only the tools it names, within the tier: a
 * named tool outside the tier stays out, an unnamed one inside it too.
 */
static void
test_tools_allow_list(void **state)
{
	const char	*env[] = { "PROGMUX_TOOLS=read_program, stop_program,"
			    "run_program", "PROGMUX_SAFETY=mutating", NULL };
	const char	*all[] = { "PROGMUX_TOOLS=list_programs", NULL };
	struct pmx	 c;

	(void)state;
	open_expect_tools(&c, env, "read_program run_program");
	expect_no_tool(&c, "stop_program", "{\"programId\":\"p1\"}");
	expect_no_tool(&c, "capture_pane", "{\"paneId\":\"%0\"}");
	expect_no_tool(&c, "list_programs", "{}");
	assert_int_equal(pmx_close(&c), 0);
	open_expect_tools(&c, all, "list_programs");
	expect_no_tool(&c, "stop_program", "{\"programId\":\"p1\"}");
	assert_int_equal(pmx_close(&c), 0);
}

/* progmux with env must exit 2 at once, with one line on stderr holding
 * each of the needles. */
static void
expect_start_error(const char *const *env, const char *const *needles)
{
	struct pmx	 c;
	const char	*nl;
	int		 st;

	assert_int_equal(pmx_open_bare(&c, env), 0);
	st = pmx_wait_exit(&c, TIER_WAIT_MS);
	pmx_drain_err(&c);
	buf_addc(&c.errlog, '\0');
	if (st != 2)
		fail_msg("%s: exit status %d, not 2 (stderr: %s)", env[0], st,
		    c.errlog.data);
	nl = strchr(c.errlog.data, '\n');
	if (nl == NULL || nl[1] != '\0')
		fail_msg("%s: not one line on stderr: %s", env[0],
		    c.errlog.data);
	for (; *needles != NULL; needles++)
		if (strstr(c.errlog.data, *needles) == NULL)
			fail_msg("%s: stderr lacks %s: %s", env[0], *needles,
			    c.errlog.data);
	c.errlog.len--;
	pmx_close(&c);
}

/*
 * Pins: a bad PROGMUX_SAFETY, or PROGMUX_TOOLS naming tools that do not
 * exist, stops progmux at start with exit 2 and one line naming the
 * variable (and each unknown name); the flags --safety and --tools do the
 * same, and --check prints the tools they leave.
 */
static void
test_tier_settings_bad(void **state)
{
	const char	*e1[] = { "PROGMUX_SAFETY=everything", NULL };
	const char	*n1[] = { "PROGMUX_SAFETY", "\"everything\"", NULL };
	const char	*e2[] = { "PROGMUX_TOOLS=read_program,rm_rf,zap", NULL };
	const char	*n2[] = { "PROGMUX_TOOLS", "\"rm_rf\"", "\"zap\"", NULL };
	const char	*bin = getenv("PROGMUX_BIN");
	struct pmx	 c;
	char		 tmpdir[300], sock[320];
	char		*out;
	int		 st;
	char		*argv[] = { (char *)"env", tmpdir, sock,
			    (char *)bin, (char *)"--check",
			    (char *)"--safety=readonly",
			    (char *)"--tools=capture_pane,stop_program",
			    NULL };

	(void)state;
	expect_start_error(e1, n1);
	expect_start_error(e2, n2);
	/* A directory and socket for --check, removed by pmx_close. */
	assert_int_equal(pmx_open_bare(&c, e1), 0);
	assert_int_equal(pmx_wait_exit(&c, TIER_WAIT_MS), 2);
	snprintf(tmpdir, sizeof tmpdir, "TMPDIR=%s", c.dir);
	snprintf(sock, sizeof sock, "PROGMUX_SOCKET_PATH=%s", c.sock);
	assert_non_null(bin);
	out = pmx_run_capture(argv, &st);
	assert_non_null(out);
	if (strstr(out, "tools:       readonly tier and PROGMUX_TOOLS: "
	    "capture_pane\n") == NULL)
		fail_msg("--check does not show the tools left: %s", out);
	free(out);
	argv[5] = (char *)"--safety=all";
	out = pmx_run_capture(argv, &st);
	assert_int_equal(st, 2);
	free(out);
	argv[5] = (char *)"--tools=nope";
	out = pmx_run_capture(argv, &st);
	assert_int_equal(st, 2);
	free(out);
	pmx_close(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, rpc_setup, rpc_teardown)
		T(test_tools_list_shape),
		T(test_tools_match_seeds),
		T(test_tools_list_bad_cursor),
		T(test_argument_validation),
		T(test_unknown_fields_ignored),
		cmocka_unit_test(test_safety_tiers),
		cmocka_unit_test(test_tools_allow_list),
		cmocka_unit_test(test_tier_settings_bad),
#undef T
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}

