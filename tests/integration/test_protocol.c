/*
 * test_protocol.c — the JSON-RPC and MCP layer of build/progmux, end to end.
 *
 * Each test starts its own progmux on a private tmux server (tests/client.c)
 * and drives it over its stdin and stdout: version negotiation, the
 * initialize result, ping, every JSON-RPC error code, exact id echo,
 * notifications, notifications/cancelled, concurrency, 2025-03-26 batches,
 * progress notifications and logging. The tool list and the arguments are
 * pinned by test_tool_args.c, framing and flow control by test_framing.c,
 * malformed input at random by test_protocol_fuzz.c; rpc.h holds the
 * helpers they share.
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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "harness.h"
#include "xmalloc.h"

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
	d = pmx_call(c, "read_program", args, REPLY_MS);
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
 * sent), growing progress, before its result; one without gets none; a
 * read_program's wait and send_keys' reply get them too. */
static void
test_progress_notifications(void **state)
{
	struct pmx	*c = *state;
	struct json_doc	*d;
	char		*prog, *pane, args[400];
	int64_t		 id, cursor;
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

	/* Every wait: a read of a quiet program, and send_keys' reply. */
	prog = pmx_start_program(c, "{\"argv\":[\"sh\",\"-c\",\"echo up; "
	    "read x; sleep 2.5; echo done; exec sleep 30\"]}", &pane);
	assert_non_null(prog);
	free(pmx_read_until(c, prog, "up\n", 20000));
	snprintf(args, sizeof args, "{\"name\":\"send_keys\",\"arguments\":"
	    "{\"paneId\":\"%s\",\"keys\":\"go\",\"timeoutMs\":20000},"
	    "\"_meta\":{\"progressToken\":\"tok-k\"}}", pane);
	d = pmx_wait(c, pmx_send(c, "tools/call", args), 30000);
	assert_non_null(d);
	assert_non_null(strstr(pmx_text(d), "done\n"));
	cursor = json_int(json_get(pmx_sc(d), "cursor"));
	json_doc_free(d);
	last = -1;
	assert_true(count_held(c, "notifications/progress", "progressToken",
	    "tok-k", &last) >= 1);
	snprintf(args, sizeof args, "{\"name\":\"read_program\",\"arguments\":"
	    "{\"programId\":\"%s\",\"cursor\":%lld,\"timeoutMs\":2500},"
	    "\"_meta\":{\"progressToken\":\"tok-r\"}}", prog,
	    (long long)cursor);
	d = pmx_wait(c, pmx_send(c, "tools/call", args), 30000);
	assert_non_null(d);
	json_doc_free(d);
	last = -1;
	assert_true(count_held(c, "notifications/progress", "progressToken",
	    "tok-r", &last) >= 1);
	free(prog);
	free(pane);
}

/* At log level level, a start refused (a ceiling) on c is told by
 * warnings warning notifications/message. */
static void
refused_at_level(struct pmx *c, const char *level, int warnings)
{
	struct json_doc	*d;
	char		 params[64];
	int64_t		 id;

	snprintf(params, sizeof params, "{\"level\":\"%s\"}", level);
	id = pmx_send(c, "logging/setLevel", params);
	d = pmx_wait(c, id, REPLY_MS);
	assert_non_null(pmx_result(d));
	json_doc_free(d);
	d = pmx_call(c, "start_program", "{\"argv\":[\"true\"]}", REPLY_MS);
	assert_true(pmx_is_error(d));
	json_doc_free(d);
	assert_int_equal(count_held(c, "notifications/message", "level",
	    "warning", NULL), warnings);
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
	d = pmx_wait(c0, id, REPLY_MS);
	assert_non_null(d);
	assert_int_equal(json_int(json_get(json_get(json_root(d), "error"),
	    "code")), -32602);
	json_doc_free(d);

	memset(&c, 0, sizeof c);
	assert_int_equal(pmx_open(&c, env), 0);
	prog = pmx_start_program(&c, "{\"argv\":[\"sleep\",\"30\"]}", NULL);
	assert_non_null(prog);
	refused_at_level(&c, "warning", 1);
	refused_at_level(&c, "error", 0);
	free(prog);
	assert_int_equal(pmx_close(&c), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, rpc_setup, rpc_teardown)
		T(test_version_negotiation),
		T(test_initialize_result),
		T(test_ping),
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
		T(test_cancel_drops_reply),
		T(test_cancel_matches_exact_id),
		T(test_ping_during_wait),
		T(test_batch_2025_03_26),
		T(test_batch_rejected),
		T(test_progress_notifications),
		T(test_logging),
#undef T
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}

