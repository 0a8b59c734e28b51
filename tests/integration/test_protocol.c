/*
 * test_protocol.c — the JSON-RPC and MCP layer of build/progmux, end to end.
 *
 * Each test starts its own progmux on a private tmux server (tests/client.c)
 * and drives it over its stdin and stdout: version negotiation, the
 * initialize result, ping, tools/list against the seeds, every JSON-RPC
 * error code, exact id echo, notifications, argument validation as tool
 * errors, notifications/cancelled, concurrency, 2025-03-26 batches, big and
 * too-big messages, framing, EOF, and a malformed-input fuzz run with a
 * fixed seed (PMX_FUZZ_SEED overrides it).
 *
 * "Nothing else came" is checked by sending a ping and requiring that the
 * very next line is its reply, since the server answers in order whatever
 * it can answer at once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "client.h"
#include "xmalloc.h"

#define WAIT_MS		5000	/* any reply expected at once */

/* Start progmux (negotiated 2025-06-18 by pmx_open). */
static int
setup(void **state)
{
	struct pmx	*c = xcalloc(1, sizeof *c);

	if (pmx_open(c, NULL) == -1) {
		fprintf(stderr, "could not start progmux\n");
		pmx_close(c);	/* the tmux server may be up */
		free(c);
		return (-1);
	}
	*state = c;
	return (0);
}

/* Drop replies nobody claimed, then end progmux and its tmux server. */
static int
teardown(void **state)
{
	struct pmx	*c = *state;
	struct json_doc	*d;

	while ((d = pmx_next(c, 0)) != NULL)
		json_doc_free(d);
	pmx_close(c);
	free(c);
	return (0);
}

/* Send a NUL-terminated line. */
static void
send_line(struct pmx *c, const char *s)
{
	pmx_send_raw(c, s, strlen(s));
}

/* The next line from progmux, which must come within WAIT_MS. */
static struct json_doc *
next_line(struct pmx *c)
{
	struct json_doc	*d = pmx_next(c, WAIT_MS);

	if (d == NULL)
		fail_msg("no reply within %d ms", WAIT_MS);
	return (d);
}

/* Every reply says "jsonrpc":"2.0" and has exactly one of result/error. */
static void
assert_envelope(const struct json_doc *d)
{
	const struct json	*root = json_root(d), *jv;
	bool			 res, err;

	assert_int_equal(json_type(root), JSON_OBJECT);
	jv = json_get(root, "jsonrpc");
	assert_non_null(jv);
	assert_int_equal(json_type(jv), JSON_STRING);
	assert_string_equal(json_str(jv, NULL), "2.0");
	res = json_get(root, "result") != NULL;
	err = json_get(root, "error") != NULL;
	assert_true(res != err);
}

/* The reply's id as sent on the wire, or NULL if it has none. */
static char *
id_raw(const struct json_doc *d)
{
	const struct json	*id = json_get(json_root(d), "id");
	const char		*raw;
	size_t			 len;

	if (id == NULL)
		return (NULL);
	raw = json_raw(id, &len);
	return (xstrndup(raw, len));
}

/* d is an error reply with this code; want_id is its raw id, or NULL for
 * "id": null (JSON-RPC 2.0 requires the member). */
static void
assert_error(const struct json_doc *d, int code, const char *want_id)
{
	const struct json	*e, *cd, *m;
	char			*got;

	assert_envelope(d);
	e = json_get(json_root(d), "error");
	if (e == NULL)
		fail_msg("expected error %d, got a result", code);
	cd = json_get(e, "code");
	assert_non_null(cd);
	assert_true(json_is_int(cd));
	if (json_int(cd) != code)
		fail_msg("expected error %d, got %lld (%s)", code,
		    (long long)json_int(cd), json_str(json_get(e, "message"),
		    NULL));
	m = json_get(e, "message");
	assert_non_null(m);
	assert_int_equal(json_type(m), JSON_STRING);
	got = id_raw(d);
	if (want_id == NULL)
		want_id = "null";
	if (got == NULL)
		fail_msg("error %d has no id member, expected %s", code,
		    want_id);
	assert_string_equal(got, want_id);
	free(got);
}

/* Send line; the next line must be error code with id want_id. */
static void
expect_error(struct pmx *c, const char *line, int code, const char *want_id)
{
	struct json_doc	*d;

	send_line(c, line);
	d = next_line(c);
	assert_error(d, code, want_id);
	json_doc_free(d);
}

/* Send a ping; the very next line must be its reply {}. */
static void
expect_ping_next(struct pmx *c)
{
	struct json_doc		*d;
	const struct json	*r, *id;
	int64_t			 n;

	n = pmx_send(c, "ping", NULL);
	d = next_line(c);
	assert_envelope(d);
	id = json_get(json_root(d), "id");
	if (id == NULL || !json_is_int(id) || json_int(id) != n)
		fail_msg("the line after the ping is not its reply");
	r = json_get(json_root(d), "result");
	assert_non_null(r);
	assert_int_equal(json_type(r), JSON_OBJECT);
	assert_int_equal(json_len(r), 0);
	json_doc_free(d);
}

/* Send a request; return its result (the document is in *dp). */
static const struct json *
request_ok(struct pmx *c, const char *method, const char *params,
    struct json_doc **dp)
{
	const struct json	*r;
	int64_t			 id;

	id = pmx_send(c, method, params);
	if ((*dp = pmx_wait(c, id, WAIT_MS)) == NULL)
		fail_msg("%s: no reply", method);
	assert_envelope(*dp);
	if ((r = json_get(json_root(*dp), "result")) == NULL)
		fail_msg("%s: error reply", method);
	return (r);
}

/* initialize with version v; the result's protocolVersion. */
static char *
negotiate(struct pmx *c, const char *v)
{
	struct json_doc		*d;
	const struct json	*r, *pv;
	char			 params[256];
	char			*got;

	snprintf(params, sizeof params, "{\"protocolVersion\":\"%s\","
	    "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\","
	    "\"version\":\"1\"}}", v);
	r = request_ok(c, "initialize", params, &d);
	pv = json_get(r, "protocolVersion");
	assert_non_null(pv);
	assert_int_equal(json_type(pv), JSON_STRING);
	got = xstrdup(json_str(pv, NULL));
	json_doc_free(d);
	return (got);
}

/* Pins: each supported version is echoed; an unknown one gets the newest. */
static void
test_version_negotiation(void **state)
{
	struct pmx	*c = *state;
	const char	*v[] = { "2024-11-05", "2025-03-26", "2025-06-18",
			    "2025-11-25" };
	char		*got;
	size_t		 i;

	for (i = 0; i < sizeof v / sizeof *v; i++) {
		got = negotiate(c, v[i]);
		assert_string_equal(got, v[i]);
		free(got);
	}
	got = negotiate(c, "1999-01-01");
	assert_string_equal(got, "2025-11-25");
	free(got);
	got = negotiate(c, "2099-12-31");
	assert_string_equal(got, "2025-11-25");
	free(got);
}

/* Pins: serverInfo has name "progmux" and a version; tools is offered. */
static void
test_initialize_result(void **state)
{
	struct pmx		*c = *state;
	struct json_doc		*d;
	const struct json	*r, *si, *caps, *t;

	r = request_ok(c, "initialize", "{\"protocolVersion\":\"2025-11-25\","
	    "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\","
	    "\"version\":\"1\"}}", &d);
	si = json_get(r, "serverInfo");
	assert_non_null(si);
	assert_string_equal(json_str(json_get(si, "name"), NULL), "progmux");
	t = json_get(si, "version");
	assert_non_null(t);
	assert_int_equal(json_type(t), JSON_STRING);
	assert_true(strlen(json_str(t, NULL)) > 0);
	caps = json_get(r, "capabilities");
	assert_non_null(caps);
	assert_int_equal(json_type(caps), JSON_OBJECT);
	t = json_get(caps, "tools");
	assert_non_null(t);
	assert_int_equal(json_type(t), JSON_OBJECT);
	json_doc_free(d);
}

/* Pins: ping answers {} (an empty object). */
static void
test_ping(void **state)
{
	expect_ping_next(*state);
}

/* The tools array of a tools/list reply (the document is in *dp). */
static const struct json *
list_tools(struct pmx *c, struct json_doc **dp)
{
	const struct json	*r, *tools;

	r = request_ok(c, "tools/list", NULL, dp);
	tools = json_get(r, "tools");
	assert_non_null(tools);
	assert_int_equal(json_type(tools), JSON_ARRAY);
	assert_null(json_get(r, "nextCursor"));
	return (tools);
}

/* The tool named name in a tools array, or NULL. */
static const struct json *
find_tool(const struct json *tools, const char *name)
{
	const struct json	*t, *n;
	size_t			 i;

	for (i = 0; i < json_len(tools); i++) {
		t = json_at(tools, i);
		n = json_get(t, "name");
		if (n != NULL && json_type(n) == JSON_STRING &&
		    strcmp(json_str(n, NULL), name) == 0)
			return (t);
	}
	return (NULL);
}

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

/* Pins: unparsable JSON is -32700 with "id": null, even when an id could
 * be guessed from the text, and the server goes on. */
static void
test_parse_error(void **state)
{
	struct pmx	*c = *state;

	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":", -32700,
	    NULL);
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}}",
	    -32700, NULL);
	expect_error(c, "not json at all", -32700, NULL);
	expect_error(c, "{'jsonrpc':'2.0'}", -32700, NULL);
	expect_ping_next(c);
}

/* Pins: valid JSON that is not an object is -32600 with "id": null. */
static void
test_not_an_object(void **state)
{
	struct pmx	*c = *state;

	expect_error(c, "42", -32600, NULL);
	expect_error(c, "\"x\"", -32600, NULL);
	expect_error(c, "null", -32600, NULL);
	expect_error(c, "true", -32600, NULL);
	expect_ping_next(c);
}

/* Pins: a missing or non-string method is -32600, with the id echoed, or
 * "id": null when there is none that can be echoed. */
static void
test_bad_method(void **state)
{
	struct pmx	*c = *state;

	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":1}", -32600, "1");
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":5}", -32600,
	    "2");
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":null}",
	    -32600, "3");
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":[\"ping\"]}",
	    -32600, "4");
	/* Without an id it is still no notification: it is answered. */
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"method\":{}}", -32600, NULL);
	/* An id that is neither string nor number cannot be echoed. */
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
	    -32600, NULL);
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}",
	    -32600, NULL);
	/* The id echoed wherever it stands; none at all is null. */
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"method\":5,\"id\":7}", -32600,
	    "7");
	expect_error(c, "{\"jsonrpc\":\"2.0\"}", -32600, NULL);
	expect_ping_next(c);
}

/* Pins: "jsonrpc" missing or other than the string "2.0" is -32600. */
static void
test_bad_jsonrpc(void **state)
{
	struct pmx	*c = *state;

	expect_error(c, "{\"id\":1,\"method\":\"ping\"}", -32600, "1");
	expect_error(c, "{\"jsonrpc\":\"1.0\",\"id\":2,\"method\":\"ping\"}",
	    -32600, "2");
	expect_error(c, "{\"jsonrpc\":2.0,\"id\":3,\"method\":\"ping\"}",
	    -32600, "3");
	expect_error(c, "{\"jsonrpc\":\"2.0\\u0000\",\"id\":4,\"method\":"
	    "\"ping\"}", -32600, "4");
	expect_ping_next(c);
}

/* Pins: an unknown method is -32601, also one that a NUL makes unknown. */
static void
test_unknown_method(void **state)
{
	struct pmx	*c = *state;

	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"no/such/method\"}", -32601, "1");
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	    "\"ping\\u0000x\"}", -32601, "2");
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"PING\"}",
	    -32601, "3");
}

/* Pins: tools/call for a tool that does not exist is -32602. */
static void
test_call_unknown_tool(void **state)
{
	struct pmx	*c = *state;

	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"tools/call\","
	    "\"params\":{\"name\":\"no_such_tool\",\"arguments\":{}}}", -32602,
	    "1");
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	    "\"tools/call\","
	    "\"params\":{\"name\":\"read_program\\u0000\",\"arguments\":{}}}",
	    -32602, "2");
}

/* Pins: tools/call arguments that are not an object are -32602. */
static void
test_call_arguments_not_object(void **state)
{
	struct pmx	*c = *state;

	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"tools/call\","
	    "\"params\":{\"name\":\"start_program\",\"arguments\":[]}}", -32602,
	    "1");
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	    "\"tools/call\","
	    "\"params\":{\"name\":\"start_program\",\"arguments\":\"x\"}}",
	    -32602, "2");
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
	    "\"tools/call\","
	    "\"params\":{\"name\":\"read_program\",\"arguments\":5}}", -32602,
	    "3");
}

/* Pins: tools/call without a (string) name, or without params, is -32602. */
static void
test_call_missing_name(void **state)
{
	struct pmx	*c = *state;

	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"tools/call\","
	    "\"params\":{\"arguments\":{}}}", -32602, "1");
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	    "\"tools/call\","
	    "\"params\":{\"name\":7}}", -32602, "2");
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
	    "\"tools/call\"}", -32602, "3");
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":"
	    "\"tools/call\","
	    "\"params\":[\"start_program\"]}", -32602, "4");
	expect_ping_next(c);
}

/* Pins: ids come back byte for byte: strings with their escapes, zero,
 * negatives, integers past 2^53 and 2^64, and a fraction. */
static void
test_id_echo(void **state)
{
	struct pmx	*c = *state;
	const char	*ids[] = { "\"abc\"", "\"a\\u0062\"", "\"\"", "0", "-1",
			    "-9223372036854775808", "12345678901234567890",
			    "9007199254740993", "1.5", "\"\\ud83d\\ude00\"",
			    "\"x\\ny\"", "1e3" };
	struct json_doc	*d;
	char		 line[256], *got;
	size_t		 i;

	for (i = 0; i < sizeof ids / sizeof *ids; i++) {
		snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%s,"
		    "\"method\":\"ping\"}", ids[i]);
		send_line(c, line);
		d = next_line(c);
		assert_envelope(d);
		assert_non_null(json_get(json_root(d), "result"));
		got = id_raw(d);
		assert_non_null(got);
		assert_string_equal(got, ids[i]);
		free(got);
		json_doc_free(d);
	}
	/* Errors echo the id exactly too. */
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":12345678901234567890,"
	    "\"method\":\"nope\"}", -32601, "12345678901234567890");
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":\"a\\u0062\","
	    "\"method\":\"nope\"}", -32601, "\"a\\u0062\"");
}

/* Pins: notifications, known or not, well formed or not, get no reply;
 * neither do responses the client sends us. */
static void
test_notifications_silent(void **state)
{
	struct pmx	*c = *state;

	send_line(c, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"}");
	send_line(c, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/none\","
	    "\"params\":{\"x\":1}}");
	send_line(c, "{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}");
	send_line(c, "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"no_such_tool\"}}");
	send_line(c, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/cancelled\",\"params\":{\"requestId\":999}}");
	send_line(c, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/cancelled\",\"params\":{}}");
	send_line(c, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/cancelled\",\"params\":\"junk\"}");
	send_line(c, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/cancelled\"}");
	send_line(c, "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}");
	send_line(c, "{\"jsonrpc\":\"2.0\",\"id\":6,\"error\":{\"code\":1,"
	    "\"message\":\"x\"}}");
	expect_ping_next(c);
}

/* Call tool with args; assert an isError result whose text holds want. */
static void
expect_tool_error(struct pmx *c, const char *tool, const char *args,
    const char *want)
{
	struct json_doc		*d;
	const struct json	*r, *ie;
	const char		*text;

	if ((d = pmx_call(c, tool, args, WAIT_MS)) == NULL)
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
 * Pins (issue 14): a field a tool does not know is ignored on every tool
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
 * run_program, send_keys; destructive: also stop_program), and a call to a
 * tool outside the tier gets the unknown-tool error while one inside runs.
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

	open_expect_tools(&c, mu, "capture_pane list_programs read_program "
	    "run_program send_keys start_program");
	expect_no_tool(&c, "stop_program", "{\"programId\":\"p1\"}");
	d = pmx_call(&c, "run_program", "{\"argv\":[\"true\"]}", TIER_WAIT_MS);
	assert_non_null(d);
	assert_false(pmx_is_error(d));
	json_doc_free(d);
	assert_int_equal(pmx_close(&c), 0);

	open_expect_tools(&c, de, "capture_pane list_programs read_program "
	    "run_program send_keys start_program stop_program");
	assert_int_equal(pmx_close(&c), 0);
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

/* Start ["sleep","30"]; its programId (allocated). */
static char *
start_sleeper(struct pmx *c)
{
	char	*id;

	id = pmx_start_program(c, "{\"argv\":[\"sleep\",\"30\"]}", NULL);
	if (id == NULL)
		fail_msg("start_program sleep 30 failed");
	return (id);
}

/* Send a read_program with this raw id and timeout (no waiting). */
static void
send_read(struct pmx *c, const char *rawid, const char *prog, int timeout)
{
	char	line[512];

	snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"read_program\","
	    "\"arguments\":{\"programId\":\"%s\",\"cursor\":0,"
	    "\"timeoutMs\":%d}}}", rawid, prog, timeout);
	send_line(c, line);
}

/* Send notifications/cancelled for this raw request id. */
static void
send_cancel(struct pmx *c, const char *rawid)
{
	char	line[256];

	snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/cancelled\",\"params\":{\"requestId\":%s,"
	    "\"reason\":\"test\"}}", rawid);
	send_line(c, line);
}

/* Pins: a cancelled waiting read is never answered; the server answers
 * the next ping at once and later reads normally. */
static void
test_cancel_drops_reply(void **state)
{
	struct pmx		*c = *state;
	struct json_doc		*d;
	const struct json	*sc;
	char			*prog, args[256];

	prog = start_sleeper(c);
	send_read(c, "4242", prog, 20000);
	send_cancel(c, "4242");
	expect_ping_next(c);
	/* An absence: nothing at all may arrive within a second. */
	if ((d = pmx_next(c, 1000)) != NULL)
		fail_msg("a reply came after the cancellation");
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"timeoutMs\":0}",
	    prog);
	d = pmx_call(c, "read_program", args, WAIT_MS);
	assert_non_null(d);
	assert_false(pmx_is_error(d));
	sc = pmx_sc(d);
	assert_non_null(sc);
	assert_string_equal(json_str(json_get(sc, "outcome"), NULL),
	    "running");
	assert_false(json_bool(json_get(sc, "ended")));
	json_doc_free(d);
	free(prog);
}

/* Pins: cancellation matches ids by value: a string "7" does not cancel
 * 7, big integers that share a double do not cancel each other, and a
 * string id with escapes matches its plain spelling. */
static void
test_cancel_matches_exact_id(void **state)
{
	struct pmx	*c = *state;
	struct json_doc	*d;
	char		*prog, *got;
	int64_t		 t0;
	int		 i, seen = 0;

	prog = start_sleeper(c);
	send_read(c, "12345678901234567890", prog, 300);
	send_read(c, "7", prog, 300);
	send_read(c, "\"ab\"", prog, 20000);
	send_cancel(c, "12345678901234567891");
	send_cancel(c, "\"7\"");
	send_cancel(c, "\"a\\u0062\"");
	t0 = now_ms();
	/* The first two time out and answer, in either order; "ab" was
	 * cancelled. */
	for (i = 0; i < 2; i++) {
		d = next_line(c);
		got = id_raw(d);
		if (strcmp(got, "12345678901234567890") == 0)
			seen |= 1;
		else if (strcmp(got, "7") == 0)
			seen |= 2;
		else
			fail_msg("reply for %s, which was cancelled", got);
		assert_false(pmx_is_error(d));
		free(got);
		json_doc_free(d);
	}
	assert_int_equal(seen, 3);
	assert_true(now_ms() - t0 < 3000);
	expect_ping_next(c);
	send_read(c, "9007199254740993", prog, 20000);
	send_cancel(c, "9007199254740993");
	expect_ping_next(c);
	if ((d = pmx_next(c, 500)) != NULL)
		fail_msg("a reply came for a cancelled request");
	free(prog);
}

/* Pins: a read waiting 10 s does not delay a ping. */
static void
test_ping_during_wait(void **state)
{
	struct pmx	*c = *state;
	char		*prog;
	int64_t		 t0;

	prog = start_sleeper(c);
	send_read(c, "\"long\"", prog, 10000);
	t0 = now_ms();
	expect_ping_next(c);
	assert_true(now_ms() - t0 < 1000);
	expect_ping_next(c);
	send_cancel(c, "\"long\"");
	expect_ping_next(c);
	free(prog);
}

/* The next line is a batch reply array; return it (document in *dp). */
static const struct json *
next_array(struct pmx *c, struct json_doc **dp)
{
	const struct json	*root;

	*dp = next_line(c);
	root = json_root(*dp);
	if (json_type(root) != JSON_ARRAY)
		fail_msg("expected a batch reply array");
	return (root);
}

/* Pins: with 2025-03-26 a batch gets one array with a reply per request
 * (none for notifications), in order; a batch of notifications gets
 * nothing; an empty array is a single -32600; a batch waits for a read. */
static void
test_batch_2025_03_26(void **state)
{
	struct pmx		*c = *state;
	struct json_doc		*d;
	const struct json	*a, *r;
	char			*v, *prog, line[512];

	v = negotiate(c, "2025-03-26");
	assert_string_equal(v, "2025-03-26");
	free(v);

	send_line(c, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},"
	    "{\"jsonrpc\":\"2.0\",\"id\":\"two\",\"method\":\"ping\"}]");
	a = next_array(c, &d);
	assert_int_equal(json_len(a), 2);
	assert_int_equal(json_int(json_get(json_at(a, 0), "id")), 1);
	assert_string_equal(json_str(json_get(json_at(a, 1), "id"), NULL),
	    "two");
	assert_non_null(json_get(json_at(a, 0), "result"));
	json_doc_free(d);

	/* Only notifications: no reply at all. */
	send_line(c, "[{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"},{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/cancelled\",\"params\":{\"requestId\":1}}]");
	expect_ping_next(c);

	/* Empty: one error object, not an array. */
	expect_error(c, "[]", -32600, NULL);
	expect_error(c, " [ ] ", -32600, NULL);

	/* Errors inside a batch, a tools/call failing early included. */
	send_line(c, "[1,{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"nope\"},"
	    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
	    "\"params\":{}},{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"start_program\","
	    "\"arguments\":{\"argv\":[]}}},[]]");
	a = next_array(c, &d);
	assert_int_equal(json_len(a), 5);
	r = json_get(json_get(json_at(a, 0), "error"), "code");
	assert_int_equal(json_int(r), -32600);
	r = json_get(json_get(json_at(a, 1), "error"), "code");
	assert_int_equal(json_int(r), -32601);
	r = json_get(json_get(json_at(a, 2), "error"), "code");
	assert_int_equal(json_int(r), -32602);
	r = json_get(json_get(json_at(a, 3), "result"), "isError");
	assert_true(json_bool(r));
	r = json_get(json_get(json_at(a, 4), "error"), "code");
	assert_int_equal(json_int(r), -32600);
	json_doc_free(d);

	/* A batch holding a waiting read answers when the read does. */
	prog = start_sleeper(c);
	snprintf(line, sizeof line, "[{\"jsonrpc\":\"2.0\",\"id\":\"r\","
	    "\"method\":\"tools/call\",\"params\":{\"name\":\"read_program\","
	    "\"arguments\":{\"programId\":\"%s\",\"timeoutMs\":300}}},"
	    "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}]", prog);
	send_line(c, line);
	a = next_array(c, &d);
	assert_int_equal(json_len(a), 2);
	json_doc_free(d);

	/* Cancelling the read drops it from its batch; the rest comes. */
	snprintf(line, sizeof line, "[{\"jsonrpc\":\"2.0\",\"id\":\"r2\","
	    "\"method\":\"tools/call\",\"params\":{\"name\":\"read_program\","
	    "\"arguments\":{\"programId\":\"%s\",\"timeoutMs\":20000}}},"
	    "{\"jsonrpc\":\"2.0\",\"id\":\"p2\",\"method\":\"ping\"}]", prog);
	send_line(c, line);
	send_cancel(c, "\"r2\"");
	a = next_array(c, &d);
	assert_int_equal(json_len(a), 1);
	assert_string_equal(json_str(json_get(json_at(a, 0), "id"), NULL),
	    "p2");
	json_doc_free(d);
	expect_ping_next(c);
	free(prog);
}

/* Pins: with 2025-06-18 and 2025-11-25 (and before any initialize would
 * give 2025-11-25) an array is one -32600 error, never processed. */
static void
test_batch_rejected(void **state)
{
	struct pmx	*c = *state;
	const char	*b = "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
			    "\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":2,"
			    "\"method\":\"ping\"}]";
	char		*v;

	expect_error(c, b, -32600, NULL);
	expect_error(c, "[]", -32600, NULL);
	v = negotiate(c, "2025-11-25");
	free(v);
	expect_error(c, b, -32600, NULL);
	v = negotiate(c, "2024-11-05");
	free(v);
	expect_error(c, b, -32600, NULL);
	expect_ping_next(c);
}

/* A ping line padded by a params._meta string of pad bytes. */
static char *
padded_ping(size_t pad, const char *id, size_t *len)
{
	struct buf	b = BUF_INIT;

	buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"ping\","
	    "\"params\":{\"_meta\":{\"pad\":\"", id);
	buf_reserve(&b, pad + 16);
	memset(b.data + b.len, 'a', pad);
	b.len += pad;
	buf_adds(&b, "\"}}}");
	*len = b.len;
	return (b.data);
}

/* Pins: an 8 MiB message is read whole and answered. */
static void
test_message_8mib(void **state)
{
	struct pmx	*c = *state;
	struct json_doc	*d;
	struct buf	 b = BUF_INIT;
	char		*line, *got;
	size_t		 len;

	line = padded_ping(8u << 20, "\"big\"", &len);
	pmx_send_raw(c, line, len);
	free(line);
	d = next_line(c);
	assert_envelope(d);
	got = id_raw(d);
	assert_string_equal(got, "\"big\"");
	free(got);
	assert_non_null(json_get(json_root(d), "result"));
	json_doc_free(d);

	/* A tools/call with a huge unknown field: the field is named. */
	buf_adds(&b, "{\"jsonrpc\":\"2.0\",\"id\":\"big2\",\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"read_program\","
	    "\"arguments\":{\"programId\":\"p9\",\"hugeField\":\"");
	buf_reserve(&b, (8u << 20) + 16);
	memset(b.data + b.len, 'z', 8u << 20);
	b.len += 8u << 20;
	buf_adds(&b, "\"}}}");
	pmx_send_raw(c, b.data, b.len);
	buf_free(&b);
	d = next_line(c);
	assert_true(pmx_is_error(d));
	assert_non_null(strstr(pmx_text(d), "hugeField"));
	json_doc_free(d);
	expect_ping_next(c);
}

/* Pins: a message over 16 MiB gets one -32700 "too large" error carrying
 * its id when that stands near its start, else "id": null, and the server
 * answers the next ping. */
static void
test_message_too_large(void **state)
{
	struct pmx		*c = *state;
	struct json_doc		*d;
	const struct json	*m;
	struct buf		 b = BUF_INIT;
	char			*line;
	size_t			 len;

	line = padded_ping(17u << 20, "1", &len);
	pmx_send_raw(c, line, len);
	free(line);
	d = next_line(c);
	assert_error(d, -32700, "1");
	m = json_get(json_get(json_root(d), "error"), "message");
	assert_non_null(strstr(json_str(m, NULL), "too large"));
	json_doc_free(d);
	expect_ping_next(c);
	/* Twice in a row, then a normal message right after. */
	line = padded_ping(20u << 20, "\"two\"", &len);
	pmx_send_raw(c, line, len);
	pmx_send_raw(c, line, len);
	free(line);
	d = next_line(c);
	assert_error(d, -32700, "\"two\"");
	json_doc_free(d);
	d = next_line(c);
	assert_error(d, -32700, "\"two\"");
	json_doc_free(d);
	expect_ping_next(c);
	/* No id in the message, or only after the padding: null. */
	line = padded_ping(17u << 20, "1", &len);
	memcpy(strstr(line, "\"id\""), "\"ix\"", 4);
	pmx_send_raw(c, line, len);
	free(line);
	d = next_line(c);
	assert_error(d, -32700, NULL);
	json_doc_free(d);
	buf_adds(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"params\":"
	    "{\"_meta\":{\"pad\":\"");
	buf_reserve(&b, 17u << 20);
	memset(b.data + b.len, 'a', 17u << 20);
	b.len += 17u << 20;
	buf_adds(&b, "\"}},\"id\":9}");
	pmx_send_raw(c, b.data, b.len);
	buf_free(&b);
	d = next_line(c);
	assert_error(d, -32700, NULL);
	json_doc_free(d);
	expect_ping_next(c);
}

#define SLOW_READS	5000	/* read_program requests a client sends */
#define SLOW_HWM_KB	(128 * 1024)	/* the front's peak RSS may reach */
#define SLOW_ASAN_KB	(64 * 1024)	/* more for AddressSanitizer's own */

/* A number from /proc/PID/status (kB), or -1. */
static long
status_kb(pid_t pid, const char *field)
{
	char	 path[64], *text, *at;
	size_t	 len;
	long	 kb = -1;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	if ((text = pmx_read_file(path, &len)) == NULL)
		return (-1);
	if ((at = strstr(text, field)) != NULL && at[strlen(field)] == ':')
		kb = strtol(at + strlen(field) + 1, NULL, 10);
	free(text);
	return (kb);
}

/* Write what c's stdin takes now from b (non-blocking); false if none. */
static bool
slow_write(struct pmx *c, struct buf *b)
{
	ssize_t	n;
	bool	any = false;

	while (b->len > 0) {
		n = write(c->to, b->data, b->len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		buf_drain(b, (size_t)n);
		any = true;
	}
	return (any);
}

/* Check one reply line: id want, and the same bytes as the model after
 * the id (the reply to the same read). */
static void
slow_check(const char *line, size_t len, int64_t want, struct buf *model)
{
	char		 head[64];
	struct json_doc	*d;
	const char	*after;
	size_t		 hl, rest;

	hl = (size_t)snprintf(head, sizeof head,
	    "{\"jsonrpc\":\"2.0\",\"id\":%lld,", (long long)want);
	if (len < hl || memcmp(line, head, hl) != 0)
		fail_msg("reply %lld out of order or malformed: %.80s",
		    (long long)want, line);
	after = line + hl;
	rest = len - hl;
	if (model->len == 0) {
		if ((d = json_parse(line, len, NULL)) == NULL)
			fail_msg("reply %lld is not JSON", (long long)want);
		if (pmx_is_error(d) || strncmp(json_str(json_get(pmx_sc(d),
		    "text"), NULL), "1\n2\n3\n", 6) != 0)
			fail_msg("reply %lld is not the page read",
			    (long long)want);
		json_doc_free(d);
		buf_add(model, after, rest);
		return;
	}
	if (rest != model->len || memcmp(after, model->data, rest) != 0)
		fail_msg("reply %lld differs from the first (%zu bytes, not "
		    "%zu)", (long long)want, rest, model->len);
}

/*
 * Pins: a client that sends 5000 reads of a full page without reading
 * any reply does not make the front's memory grow with them: its peak
 * RSS (VmHWM) stays under SLOW_HWM_KB (more under AddressSanitizer),
 * where queueing every reply took about 290 MB. The front stops taking requests and the client's writes
 * stall; once the client reads, every reply arrives, in order, each the
 * whole page (byte for byte the first reply but for its id).
 */
static void
test_slow_client_bounded(void **state)
{
	struct pmx	 c2, *c = &c2;
	const char	*env[2] = { NULL, NULL };
	char		*asan, *maps, path[64];
	size_t		 len;
	long		 limit;
	struct json_doc	*d;
	struct buf	 out = BUF_INIT, in = BUF_INIT, model = BUF_INIT;
	struct pollfd	 pfd[3];
	char		*prog, *nl;
	int64_t		 first, next, deadline;
	long		 hwm;
	ssize_t		 n;
	int		 i, pending, npfd;

	/*
	 * Under AddressSanitizer freed blocks wait in a quarantine (256 MB
	 * by default), which would count here as the front's own memory:
	 * keep it small. Other builds ignore the variable.
	 */
	(void)state;
	xasprintf(&asan, "ASAN_OPTIONS=%s%squarantine_size_mb=4",
	    getenv("ASAN_OPTIONS") ? getenv("ASAN_OPTIONS") : "",
	    getenv("ASAN_OPTIONS") ? ":" : "");
	env[0] = asan;
	assert_int_equal(pmx_open(c, env), 0);
	d = pmx_call(c, "run_program", "{\"argv\":[\"seq\",\"1\",\"200000\"],"
	    "\"keep\":true,\"timeoutMs\":60000}", 90000);
	assert_non_null(d);
	assert_false(pmx_is_error(d));
	assert_string_equal(json_str(json_get(pmx_sc(d), "outcome"), NULL),
	    "completed");
	prog = xstrdup(json_str(json_get(pmx_sc(d), "programId"), NULL));
	json_doc_free(d);

	first = c->next_id + 1000;
	for (i = 0; i < SLOW_READS; i++)
		buf_printf(&out, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":"
		    "\"tools/call\",\"params\":{\"name\":\"read_program\","
		    "\"arguments\":{\"programId\":\"%s\",\"cursor\":0}}}\n",
		    (long long)(first + i), prog);
	assert_int_equal(fcntl(c->to, F_SETFL, O_NONBLOCK), 0);

	/*
	 * Write without reading until everything is written and read by
	 * the front, or until its stdin stays full for 5 s (it holds back).
	 */
	deadline = now_ms() + 120000;
	while (now_ms() < deadline) {
		if (!slow_write(c, &out)) {
			if (out.len == 0) {
				if (ioctl(c->to, FIONREAD, &pending) == -1 ||
				    pending == 0)
					break;
			}
			pfd[0] = (struct pollfd){ c->to, POLLOUT, 0 };
			pfd[1] = (struct pollfd){ c->err, POLLIN, 0 };
			if (poll(pfd, 2, 5000) == 0)
				break;
			if (pfd[1].revents)
				pmx_drain_err(c);
			if (out.len == 0 && !(pfd[0].revents & POLLOUT))
				continue;
		}
	}

	/* Now read every reply, writing the rest as the front takes it. */
	next = first;
	deadline = now_ms() + 300000;
	while (next < first + SLOW_READS && now_ms() < deadline) {
		while ((nl = memchr(in.data ? in.data : "", '\n', in.len)) !=
		    NULL) {
			slow_check(in.data, (size_t)(nl - in.data), next++,
			    &model);
			buf_drain(&in, (size_t)(nl - in.data) + 1);
		}
		npfd = 0;
		pfd[npfd++] = (struct pollfd){ c->from, POLLIN, 0 };
		pfd[npfd++] = (struct pollfd){ c->err, POLLIN, 0 };
		if (out.len > 0)
			pfd[npfd++] = (struct pollfd){ c->to, POLLOUT, 0 };
		if (poll(pfd, npfd, 1000) <= 0)
			continue;
		if (pfd[1].revents)
			pmx_drain_err(c);
		if (npfd == 3 && pfd[2].revents)
			slow_write(c, &out);
		if (pfd[0].revents) {
			buf_reserve(&in, 1 << 20);
			n = read(c->from, in.data + in.len, 1 << 20);
			if (n == 0)
				fail_msg("progmux closed stdout");
			if (n > 0)
				in.len += (size_t)n;
		}
	}
	assert_int_equal(next, first + SLOW_READS);
	assert_int_equal(in.len, 0);
	hwm = status_kb(c->front, "VmHWM");
	assert_true(hwm > 0);
	/* A sanitizer build keeps shadow memory and redzones as well. */
	snprintf(path, sizeof path, "/proc/%ld/maps", (long)c->front);
	maps = pmx_read_file(path, &len);
	assert_non_null(maps);
	limit = SLOW_HWM_KB + (strstr(maps, "libasan") ? SLOW_ASAN_KB : 0);
	free(maps);
	if (hwm > limit)
		fail_msg("progmux peaked at %ld kB of RSS, over %ld", hwm,
		    limit);
	fprintf(stderr, "slow client: progmux peak RSS %ld kB\n", hwm);
	assert_int_equal(fcntl(c->to, F_SETFL, 0), 0);
	expect_ping_next(c);
	assert_int_equal(pmx_close(c), 0);
	free(asan);
	free(prog);
	buf_free(&out);
	buf_free(&in);
	buf_free(&model);
}

/* Pins: CRLF line endings are accepted. */
static void
test_crlf(void **state)
{
	struct pmx	*c = *state;
	struct json_doc	*d;
	char		*got;

	send_line(c, "{\"jsonrpc\":\"2.0\",\"id\":\"crlf\",\"method\":"
	    "\"ping\"}\r");
	d = next_line(c);
	got = id_raw(d);
	assert_string_equal(got, "\"crlf\"");
	assert_non_null(json_get(json_root(d), "result"));
	free(got);
	json_doc_free(d);
	/* Two CRLF messages in one write. */
	send_line(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r");
	d = next_line(c);
	assert_int_equal(json_int(json_get(json_root(d), "id")), 1);
	json_doc_free(d);
	d = next_line(c);
	assert_int_equal(json_int(json_get(json_root(d), "id")), 2);
	json_doc_free(d);
}

/* Pins: empty and blank lines are ignored, not answered. */
static void
test_empty_lines(void **state)
{
	struct pmx	*c = *state;

	send_line(c, "");
	send_line(c, "   ");
	send_line(c, "\r");
	send_line(c, "\t \r");
	send_line(c, "\n\n");
	expect_ping_next(c);
}

/* Pins: a message split over many writes is put back together. */
static void
test_split_writes(void **state)
{
	struct pmx	*c = *state;
	const char	*m = "{\"jsonrpc\":\"2.0\",\"id\":\"split\","
			    "\"method\":\"ping\"}\n";
	struct json_doc	*d;
	char		*got;
	size_t		 i;

	for (i = 0; m[i] != '\0'; i++) {
		if (write(c->to, m + i, 1) != 1)
			fail_msg("write: short");
		if (i % 8 == 0)
			poll(NULL, 0, 1);
	}
	d = next_line(c);
	got = id_raw(d);
	assert_string_equal(got, "\"split\"");
	free(got);
	json_doc_free(d);
}

/* Pins: stdin EOF ends progmux with status 0 within 2 s. */
static void
test_eof_exit(void **state)
{
	struct pmx	*c = *state;
	int64_t		 t0;
	int		 st;

	expect_ping_next(c);
	t0 = now_ms();
	close(c->to);
	c->to = -1;
	st = pmx_wait_exit(c, 2000);
	assert_int_equal(st, 0);
	assert_true(now_ms() - t0 < 2000);
}

/* Pins: EOF with a read waiting on a running program still exits 0
 * within 2 s, and a last line without LF is still answered. */
static void
test_eof_exit_busy(void **state)
{
	struct pmx	*c = *state;
	const char	*last = "{\"jsonrpc\":\"2.0\",\"id\":\"last\","
			    "\"method\":\"ping\"}";
	struct json_doc	*d;
	char		*prog, *got;
	int64_t		 t0;
	int		 st;

	prog = start_sleeper(c);
	send_read(c, "\"w\"", prog, 20000);
	if (write(c->to, last, strlen(last)) != (ssize_t)strlen(last))
		fail_msg("write: short");
	t0 = now_ms();
	close(c->to);
	c->to = -1;
	st = pmx_wait_exit(c, 2000);
	assert_int_equal(st, 0);
	assert_true(now_ms() - t0 < 2000);
	/* The waiting read may or may not be answered on the way out. */
	for (;;) {
		d = next_line(c);
		got = id_raw(d);
		assert_non_null(got);
		if (strcmp(got, "\"last\"") == 0)
			break;
		assert_string_equal(got, "\"w\"");
		free(got);
		json_doc_free(d);
	}
	free(got);
	json_doc_free(d);
	free(prog);
}

/* The fuzz run's generator: the harness's xorshift64*, seeded. */
static uint64_t
fuzz_rand(void)
{
	return (pmx_rand());
}

/* A number in [0, n). */
static size_t
fuzz_below(size_t n)
{
	return ((size_t)(fuzz_rand() % n));
}

enum fuzz_want {
	WANT_NONE,		/* a notification or response: silence */
	WANT_ERROR,		/* this error code, this id */
	WANT_ANSWER		/* a result or an error, this id */
};

struct fuzz_expect {
	enum fuzz_want	 want;
	int		 code;
	char		*id;	/* raw, or NULL for none */
};

/* What the server must answer to a line, from JSON-RPC's rules. */
static void
fuzz_oracle(const char *p, size_t len, struct fuzz_expect *ex)
{
	struct json_doc		*doc;
	const struct json	*root, *id, *jv, *m;
	const char		*raw;
	size_t			 n;

	memset(ex, 0, sizeof *ex);
	while (len > 0 && strchr(" \t\r", p[len - 1]) != NULL && p[len - 1])
		len--;
	while (len > 0 && strchr(" \t\r", *p) != NULL && *p) {
		p++;
		len--;
	}
	if (len == 0) {
		ex->want = WANT_NONE;
		return;
	}
	ex->want = WANT_ERROR;
	if ((doc = json_parse(p, len, NULL)) == NULL) {
		ex->code = -32700;
		return;
	}
	root = json_root(doc);
	ex->code = -32600;
	if (json_type(root) != JSON_OBJECT) {
		json_doc_free(doc);
		return;		/* a batch is refused under 2025-06-18 */
	}
	id = json_get(root, "id");
	if (id != NULL && (json_type(id) == JSON_STRING ||
	    json_type(id) == JSON_NUMBER)) {
		raw = json_raw(id, &n);
		ex->id = xstrndup(raw, n);
	}
	jv = json_get(root, "jsonrpc");
	m = json_get(root, "method");
	if (jv == NULL || json_type(jv) != JSON_STRING) {
		json_doc_free(doc);
		return;
	}
	json_str(jv, &n);
	if (n != 3 || strcmp(json_str(jv, NULL), "2.0") != 0)
		;	/* -32600, with the id if it has one */
	else if (m == NULL && (json_get(root, "result") != NULL ||
	    json_get(root, "error") != NULL))
		ex->want = WANT_NONE;	/* a response */
	else if (m == NULL || json_type(m) != JSON_STRING)
		;
	else if (id != NULL && ex->id == NULL)
		;	/* an id that cannot be echoed: -32600, id null */
	else if (id == NULL)
		ex->want = WANT_NONE;	/* a notification */
	else
		ex->want = WANT_ANSWER;
	json_doc_free(doc);
}

/* Print a line for a failure report, escaped, at most 200 bytes. */
static void
fuzz_show(const char *p, size_t len)
{
	size_t	i;

	for (i = 0; i < len && i < 200; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
			fputc(p[i], stderr);
		else
			fprintf(stderr, "\\x%02x", (unsigned char)p[i]);
	}
	fprintf(stderr, "%s (%zu bytes)\n", len > 200 ? "..." : "", len);
}

/* Check one reply against what was expected of it. */
static bool
fuzz_check_reply(const struct json_doc *d, const struct fuzz_expect *ex,
    char *why, size_t whylen)
{
	const struct json	*root = json_root(d), *e, *r, *code;
	char			*got = id_raw(d);
	bool			 ok = false;
	int64_t			 cv;

	e = json_get(root, "error");
	r = json_get(root, "result");
	if (json_type(root) != JSON_OBJECT || (e == NULL) == (r == NULL)) {
		snprintf(why, whylen, "not one response object");
		goto out;
	}
	/* No id that can be echoed: "id": null, never a missing member. */
	if (got == NULL || strcmp(got, ex->id ? ex->id : "null") != 0) {
		snprintf(why, whylen, "id %s, expected %s", got ? got : "none",
		    ex->id ? ex->id : "null");
		goto out;
	}
	if (e != NULL) {
		code = json_get(e, "code");
		cv = code && json_is_int(code) ? json_int(code) : 0;
		if (ex->want == WANT_ERROR && cv != ex->code) {
			snprintf(why, whylen, "error %lld, expected %d",
			    (long long)cv, ex->code);
			goto out;
		}
		if (cv != -32600 && cv != -32601 && cv != -32602 &&
		    cv != -32700) {
			snprintf(why, whylen, "unexpected code %lld",
			    (long long)cv);
			goto out;
		}
	} else if (ex->want == WANT_ERROR) {
		snprintf(why, whylen, "a result, expected error %d", ex->code);
		goto out;
	} else if (json_type(r) != JSON_OBJECT) {
		snprintf(why, whylen, "result is not an object");
		goto out;
	}
	ok = true;
out:
	free(got);
	return (ok);
}

/* Send one fuzz line and a sentinel ping; check what came between. */
static void
fuzz_one(struct pmx *c, int n, const char *p, size_t len,
    const struct fuzz_expect *ex)
{
	struct json_doc		*d, *got[4];
	const struct json	*id;
	char			 sentinel[64], why[200] = "";
	int			 ngot = 0, i;
	bool			 ok = true;

	snprintf(sentinel, sizeof sentinel, "sentinel-%d", n);
	pmx_send_raw(c, p, len);
	{
		char	line[128];

		snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\","
		    "\"id\":\"%s\",\"method\":\"ping\"}", sentinel);
		send_line(c, line);
	}
	for (;;) {
		if ((d = pmx_next(c, WAIT_MS)) == NULL) {
			snprintf(why, sizeof why, "no sentinel reply (server "
			    "dead or stuck, or wrote a non-JSON line)");
			ok = false;
			break;
		}
		id = json_get(json_root(d), "id");
		if (json_type(json_root(d)) == JSON_OBJECT && id != NULL &&
		    json_type(id) == JSON_STRING &&
		    strcmp(json_str(id, NULL), sentinel) == 0) {
			json_doc_free(d);
			break;
		}
		if (ngot < 4)
			got[ngot++] = d;
		else
			json_doc_free(d);
	}
	if (ok && ngot != (ex->want == WANT_NONE ? 0 : 1)) {
		snprintf(why, sizeof why, "%d replies, expected %d", ngot,
		    ex->want == WANT_NONE ? 0 : 1);
		ok = false;
	}
	if (ok && ngot == 1)
		ok = fuzz_check_reply(got[0], ex, why, sizeof why);
	for (i = 0; i < ngot; i++)
		json_doc_free(got[i]);
	if (!ok) {
		fprintf(stderr, "fuzz line %d: %s; the line: ", n, why);
		fuzz_show(p, len);
		fail();
	}
}

/* Run one line whose answer the oracle decides. */
static void
fuzz_run(struct pmx *c, int *n, const char *p, size_t len)
{
	struct fuzz_expect	ex;

	fuzz_oracle(p, len, &ex);
	fuzz_one(c, (*n)++, p, len, &ex);
	free(ex.id);
}

/* Run one line that must be a -32700 parse error. */
static void
fuzz_run_unparsable(struct pmx *c, int *n, const char *p, size_t len)
{
	struct fuzz_expect	ex = { WANT_ERROR, -32700, NULL };

	fuzz_one(c, (*n)++, p, len, &ex);
}

/* Valid requests (none starts anything) to cut and mutate. */
static const char *fuzz_templates[] = {
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
	"{\"jsonrpc\":\"2.0\",\"id\":\"x-2\",\"method\":\"tools/list\","
	    "\"params\":{}}",
	"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
	    "{\"name\":\"read_program\",\"arguments\":{\"programId\":\"p77\","
	    "\"cursor\":0,\"timeoutMs\":0,\"maxLines\":5}}}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
	    "\"params\":{\"requestId\":\"abc\",\"reason\":\"\\u00e9\\n\"}}",
	"{ \"jsonrpc\" : \"2.0\" , \"id\" : -12 , \"method\" : \"nope\" , "
	    "\"params\" : { \"a\" : [ 1 , 2.5e-3 , true , false , null ] } }",
	"{\"jsonrpc\":\"2.0\",\"id\":\"\\ud83d\\ude00\",\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"read_program\","
	    "\"arguments\":[]}}",
};
#define FUZZ_NTEMPLATES	(sizeof fuzz_templates / sizeof *fuzz_templates)

/* JSON-ish pieces for random token soup. */
static const char *fuzz_tokens[] = {
	"{", "}", "[", "]", ",", ":", "\"jsonrpc\"", "\"2.0\"", "\"id\"",
	"\"method\"", "\"params\"", "\"ping\"", "\"tools/list\"",
	"\"tools/call\"", "\"read_program\"", "\"name\"", "\"arguments\"",
	"\"result\"", "\"error\"", "\"notifications/cancelled\"",
	"\"requestId\"", "1", "-0", "0.5", "1e999", "-1e-999",
	"123456789012345678901234567890", "null", "true", "false", "nul",
	"\"\\ud800\"", "\"\\u0000\"", "\"\\x\"", "\"", "\\", "\"abc",
	" ", "\t", "\r", "01", "+1", ".5", "1.", "\"\\u12\"", "tru",
	"{\"jsonrpc\":\"2.0\"", "\"id\":7", "\"method\":\"ping\"", "\x01",
};
#define FUZZ_NTOKENS	(sizeof fuzz_tokens / sizeof *fuzz_tokens)

/* Pins: 1,000+ random, truncated and malformed lines each get exactly the
 * right answer (or none for notifications), and the server still works. */
static void
test_fuzz(void **state)
{
	struct pmx		*c = *state;
	struct buf		 b = BUF_INIT;
	struct json_doc		*d;
	const struct json	*tools;
	const char		*t, *env;
	size_t			 i, j, k, len;
	int			 n = 0, round;
	char			*v;

	pmx_srand(0x9e3779b97f4a7c15ULL);
	if ((env = getenv("PMX_FUZZ_SEED")) != NULL)
		pmx_srand(strtoull(env, NULL, 0) | 1);

	/* Random bytes, no newline. */
	for (round = 0; round < 300; round++) {
		buf_reset(&b);
		len = 1 + fuzz_below(200);
		for (i = 0; i < len; i++) {
			char ch = (char)fuzz_below(256);

			buf_addc(&b, ch == '\n' ? '?' : ch);
		}
		fuzz_run(c, &n, b.data, b.len);
	}
	/* Every proper prefix of every template. */
	for (i = 0; i < FUZZ_NTEMPLATES; i++) {
		t = fuzz_templates[i];
		for (j = 1; j < strlen(t); j++)
			fuzz_run_unparsable(c, &n, t, j);
		fuzz_run(c, &n, t, strlen(t));
	}
	/* Templates with a byte changed, dropped or doubled. */
	for (round = 0; round < 300; round++) {
		t = fuzz_templates[fuzz_below(FUZZ_NTEMPLATES)];
		len = strlen(t);
		k = fuzz_below(len);
		buf_reset(&b);
		buf_add(&b, t, k);
		switch (fuzz_below(3)) {
		case 0: {
			char ch = (char)fuzz_below(256);

			buf_addc(&b, ch == '\n' ? ' ' : ch);
			buf_add(&b, t + k + 1, len - k - 1);
			break;
		}
		case 1:
			buf_add(&b, t + k + 1, len - k - 1);
			break;
		default:
			buf_add(&b, t + k, len - k);
			buf_add(&b, t + k, len - k);
			break;
		}
		fuzz_run(c, &n, b.data, b.len);
	}
	/* Token soup. */
	for (round = 0; round < 300; round++) {
		buf_reset(&b);
		len = 1 + fuzz_below(30);
		for (i = 0; i < len; i++)
			buf_adds(&b, fuzz_tokens[fuzz_below(FUZZ_NTOKENS)]);
		fuzz_run(c, &n, b.data, b.len);
	}
	/* Deep nesting. */
	buf_reset(&b);
	for (i = 0; i < 10000; i++)
		buf_addc(&b, '[');
	fuzz_run_unparsable(c, &n, b.data, b.len);
	for (i = 0; i < 10000; i++)
		buf_addc(&b, ']');
	fuzz_run(c, &n, b.data, b.len);
	buf_reset(&b);
	for (i = 0; i < 10000; i++)
		buf_adds(&b, "{\"a\":");
	fuzz_run_unparsable(c, &n, b.data, b.len);
	for (k = 0; k < 3; k++) {
		size_t depth = k == 0 ? 100 : k == 1 ? 126 : 300;

		buf_reset(&b);
		buf_adds(&b, "{\"jsonrpc\":\"2.0\",\"id\":\"deep\",\"method\":"
		    "\"ping\",\"params\":{\"x\":");
		for (i = 0; i < depth; i++)
			buf_addc(&b, '[');
		for (i = 0; i < depth; i++)
			buf_addc(&b, ']');
		buf_adds(&b, "}}");
		fuzz_run(c, &n, b.data, b.len);
	}
	/* Invalid UTF-8 anywhere is a parse error. */
	{
		const char *bad[] = { "\xff", "\xc0\xaf", "\xed\xa0\x80",
		    "\xf4\x90\x80\x80", "\xe2\x82", "\x80", "\xf8\x88\x80\x80",
		    "\xc3" };

		for (i = 0; i < sizeof bad / sizeof *bad; i++) {
			buf_reset(&b);
			buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"id\":1,"
			    "\"method\":\"ping\",\"params\":{\"x\":"
			    "\"a%sb\"}}", bad[i]);
			fuzz_run_unparsable(c, &n, b.data, b.len);
			buf_reset(&b);
			buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"id\":1,"
			    "\"method\":\"ping%s\"}", bad[i]);
			fuzz_run_unparsable(c, &n, b.data, b.len);
		}
	}
	/* Lone surrogates, escapes, control characters, huge numbers. */
	{
		const char *odd[] = {
		    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\","
			"\"params\":{\"x\":\"\\ud800\"}}",
		    "{\"jsonrpc\":\"2.0\",\"id\":\"\\udc00x\",\"method\":"
			"\"ping\"}",
		    "{\"jsonrpc\":\"2.0\",\"id\":\"\\ud800\\u0041\",\"method\":"
			"\"ping\"}",
		    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"\\ud800\"}",
		    "{\"jsonrpc\":\"2.0\",\"id\":\"\\udbff\\udfff\",\"method\":"
			"\"ping\"}",
		    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\","
			"\"params\":{\"x\":\"\\u12G4\"}}",
		    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\","
			"\"params\":{\"x\":\"tab\there\"}}",
		    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\","
			"\"params\":{\"x\":\"\\q\"}}",
		    "{\"jsonrpc\":\"2.0\",\"id\":1e999,\"method\":\"ping\"}",
		    "{\"jsonrpc\":\"2.0\",\"id\":-1e-999,\"method\":\"ping\"}",
		    "{\"jsonrpc\":\"2.0\",\"id\":"
			"-123456789012345678901234567890,\"method\":\"ping\"}",
		    "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\","
			"\"params\":{\"name\":\"read_program\",\"arguments\":"
			"{\"programId\":\"p1\",\"timeoutMs\":1e999}}}",
		    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\","
			"\"params\":{\"name\":\"read_program\",\"arguments\":"
			"{\"programId\":\"p1\",\"cursor\":"
			"99999999999999999999999999999999999}}}",
		    "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\","
			"\"params\":{\"name\":\"start_program\",\"arguments\":"
			"{\"argv\":[\"true\"],\"width\":1e400}}}",
		    "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\","
			"\"params\":{\"x\":-0.0e-0}}",
		    "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\","
			"\"params\":{\"x\":01}}",
		    "{\"jsonrpc\":\"2.0\",\"id\":11,\"id\":\"twice\","
			"\"method\":\"ping\"}",
		    "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"ping\"} x",
		    "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"ping\"}{}",
		    "\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":"
			"\"ping\"}",
		};

		for (i = 0; i < sizeof odd / sizeof *odd; i++)
			fuzz_run(c, &n, odd[i], strlen(odd[i]));
		/* A NUL byte inside a line. */
		fuzz_run_unparsable(c, &n, "{\"jsonrpc\":\"2.0\"\0}", 18);
		/* A thousand-digit id. */
		buf_reset(&b);
		buf_adds(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"ping\","
		    "\"id\":");
		for (i = 0; i < 1000; i++)
			buf_addc(&b, (char)('1' + i % 9));
		buf_addc(&b, '}');
		fuzz_run(c, &n, b.data, b.len);
	}
	buf_free(&b);
	assert_true(n >= 1000);

	/* Still alive and correct. */
	v = negotiate(c, "2025-06-18");
	assert_string_equal(v, "2025-06-18");
	free(v);
	expect_ping_next(c);
	tools = list_tools(c, &d);
	assert_non_null(find_tool(tools, "start_program"));
	assert_non_null(find_tool(tools, "read_program"));
	json_doc_free(d);
}

/* The notifications held while waiting for a reply, with method m. */
static int
count_held(struct pmx *c, const char *m, const char *key, const char *want,
    double *last)
{
	struct json_doc		*d;
	const struct json	*p, *v;
	int			 n = 0;
	struct json_doc		*keep[64];
	int			 nkeep = 0, i;

	while ((d = pmx_next(c, 0)) != NULL) {
		v = json_get(json_root(d), "method");
		if (v == NULL || strcmp(json_str(v, NULL), m) != 0) {
			if (nkeep < 64)
				keep[nkeep++] = d;
			else
				json_doc_free(d);
			continue;
		}
		p = json_get(json_root(d), "params");
		assert_non_null(p);
		v = json_get(p, key);
		assert_non_null(v);
		if (json_type(v) == JSON_STRING)
			assert_string_equal(json_str(v, NULL), want);
		else {
			char	num[32];

			snprintf(num, sizeof num, "%lld",
			    (long long)json_int(v));
			assert_string_equal(num, want);
		}
		if (last != NULL) {
			/* progress only grows; total, when sent, is the wait */
			v = json_get(p, "progress");
			assert_non_null(v);
			assert_true(json_num(v) > *last);
			*last = json_num(v);
		}
		n++;
		json_doc_free(d);
	}
	for (i = 0; i < nkeep; i++)
		json_doc_free(keep[i]);
	return (n);
}

/* Pins: a run_program that carries _meta.progressToken gets
 * notifications/progress with that token (string or number, echoed as
 * sent), growing progress, before its result; one without gets none. */
static void
test_progress_notifications(void **state)
{
	struct pmx	*c = *state;
	struct json_doc	*d;
	int64_t		 id;
	double		 last = -1;
	int		 n;

	id = pmx_send(c, "tools/call", "{\"name\":\"run_program\","
	    "\"arguments\":{\"argv\":[\"sleep\",\"2.5\"],\"timeoutMs\":20000},"
	    "\"_meta\":{\"progressToken\":\"tok-1\"}}");
	d = pmx_wait(c, id, 30000);
	assert_non_null(d);
	assert_false(pmx_is_error(d));
	json_doc_free(d);
	n = count_held(c, "notifications/progress", "progressToken", "tok-1",
	    &last);
	if (n < 1)
		fail_msg("no progress notification in a 2.5 s run");

	id = pmx_send(c, "tools/call", "{\"name\":\"run_program\","
	    "\"arguments\":{\"argv\":[\"sleep\",\"1.5\"],\"timeoutMs\":20000},"
	    "\"_meta\":{\"progressToken\":42}}");
	d = pmx_wait(c, id, 30000);
	assert_non_null(d);
	json_doc_free(d);
	last = -1;
	assert_true(count_held(c, "notifications/progress", "progressToken",
	    "42", &last) >= 1);

	id = pmx_send(c, "tools/call", "{\"name\":\"run_program\","
	    "\"arguments\":{\"argv\":[\"sleep\",\"1.5\"],\"timeoutMs\":20000}}");
	d = pmx_wait(c, id, 30000);
	assert_non_null(d);
	json_doc_free(d);
	assert_int_equal(count_held(c, "notifications/progress",
	    "progressToken", "", NULL), 0);
}

/* Pins: logging/setLevel takes the eight RFC 5424 names and refuses
 * others with -32602; a refused start (a ceiling) is told as a warning
 * notifications/message before the tool's error, and not told once the
 * level is above warning. */
static void
test_logging(void **state)
{
	static const char *const env[] = { "PROGMUX_MAX_PROGRAMS=1", NULL };
	struct pmx	*c0 = *state, c;
	struct json_doc	*d;
	int64_t		 id;
	char		*prog;

	id = pmx_send(c0, "logging/setLevel", "{\"level\":\"loud\"}");
	d = pmx_wait(c0, id, WAIT_MS);
	assert_non_null(d);
	assert_int_equal(json_int(json_get(json_get(json_root(d), "error"),
	    "code")), -32602);
	json_doc_free(d);

	memset(&c, 0, sizeof c);
	assert_int_equal(pmx_open(&c, env), 0);
	prog = pmx_start_program(&c, "{\"argv\":[\"sleep\",\"30\"]}", NULL);
	assert_non_null(prog);
	id = pmx_send(&c, "logging/setLevel", "{\"level\":\"warning\"}");
	d = pmx_wait(&c, id, WAIT_MS);
	assert_non_null(pmx_result(d));
	json_doc_free(d);
	d = pmx_call(&c, "start_program", "{\"argv\":[\"true\"]}", WAIT_MS);
	assert_true(pmx_is_error(d));
	json_doc_free(d);
	assert_int_equal(count_held(&c, "notifications/message", "level",
	    "warning", NULL), 1);

	id = pmx_send(&c, "logging/setLevel", "{\"level\":\"error\"}");
	d = pmx_wait(&c, id, WAIT_MS);
	assert_non_null(pmx_result(d));
	json_doc_free(d);
	d = pmx_call(&c, "start_program", "{\"argv\":[\"true\"]}", WAIT_MS);
	assert_true(pmx_is_error(d));
	json_doc_free(d);
	assert_int_equal(count_held(&c, "notifications/message", "level",
	    "warning", NULL), 0);
	free(prog);
	assert_int_equal(pmx_close(&c), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_version_negotiation),
		T(test_initialize_result),
		T(test_ping),
		T(test_tools_list_shape),
		T(test_tools_match_seeds),
		T(test_tools_list_bad_cursor),
		T(test_parse_error),
		T(test_not_an_object),
		T(test_bad_method),
		T(test_bad_jsonrpc),
		T(test_unknown_method),
		T(test_call_unknown_tool),
		T(test_call_arguments_not_object),
		T(test_call_missing_name),
		T(test_id_echo),
		T(test_notifications_silent),
		T(test_argument_validation),
		T(test_unknown_fields_ignored),
		cmocka_unit_test(test_safety_tiers),
		cmocka_unit_test(test_tools_allow_list),
		cmocka_unit_test(test_tier_settings_bad),
		T(test_cancel_drops_reply),
		T(test_cancel_matches_exact_id),
		T(test_ping_during_wait),
		T(test_batch_2025_03_26),
		T(test_batch_rejected),
		T(test_message_8mib),
		T(test_message_too_large),
		T(test_slow_client_bounded),
		T(test_crlf),
		T(test_empty_lines),
		T(test_split_writes),
		T(test_eof_exit),
		T(test_eof_exit_busy),
		T(test_fuzz),
		T(test_progress_notifications),
		T(test_logging),
#undef T
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
