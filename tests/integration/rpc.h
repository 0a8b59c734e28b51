/*
 * rpc.h — talking JSON-RPC to build/progmux, for the protocol test programs.
 *
 * Included by test_protocol.c, test_tool_args.c, test_framing.c and
 * test_protocol_fuzz.c after <cmocka.h> and "client.h": the setup and
 * teardown of a test that runs its own progmux (on a private tmux server,
 * tests/client.c), sending lines and reading replies that must come within
 * WAIT_MS, a reply's envelope, error code and raw id, initialize with a
 * given version, tools/list, and a sleeping program with read_program
 * requests on it.
 *
 * "Nothing else came" is checked by sending a ping and requiring that the
 * very next line is its reply (expect_ping_next), since the server answers
 * in order whatever it can answer at once.
 */
#ifndef PROGMUX_TEST_RPC_H
#define PROGMUX_TEST_RPC_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

#define WAIT_MS		5000	/* any reply expected at once */

/* Start progmux (negotiated 2025-06-18 by pmx_open). */
static inline int
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
static inline int
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
static inline void
send_line(struct pmx *c, const char *s)
{
	pmx_send_raw(c, s, strlen(s));
}

/* The next line from progmux, which must come within WAIT_MS. */
static inline struct json_doc *
next_line(struct pmx *c)
{
	struct json_doc	*d = pmx_next(c, WAIT_MS);

	if (d == NULL)
		fail_msg("no reply within %d ms", WAIT_MS);
	return (d);
}

/* Every reply says "jsonrpc":"2.0" and has exactly one of result/error. */
static inline void
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
static inline char *
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
static inline void
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
static inline void
expect_error(struct pmx *c, const char *line, int code, const char *want_id)
{
	struct json_doc	*d;

	send_line(c, line);
	d = next_line(c);
	assert_error(d, code, want_id);
	json_doc_free(d);
}

/* Send a ping; the very next line must be its reply {}. */
static inline void
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
static inline const struct json *
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
static inline char *
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

/* The tools array of a tools/list reply (the document is in *dp). */
static inline const struct json *
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
static inline const struct json *
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

/* Start ["sleep","30"]; its programId (allocated). */
static inline char *
start_sleeper(struct pmx *c)
{
	char	*id;

	id = pmx_start_program(c, "{\"argv\":[\"sleep\",\"30\"]}", NULL);
	if (id == NULL)
		fail_msg("start_program sleep 30 failed");
	return (id);
}

/* Send a read_program with this raw id and timeout (no waiting). */
static inline void
send_read(struct pmx *c, const char *rawid, const char *prog, int timeout)
{
	char	line[512];

	snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"read_program\","
	    "\"arguments\":{\"programId\":\"%s\",\"cursor\":0,"
	    "\"timeoutMs\":%d}}}", rawid, prog, timeout);
	send_line(c, line);
}

#endif
