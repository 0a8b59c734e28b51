/*
 * test_eras.c — the two protocol eras of build/progmux, end to end.
 *
 * A 2026-07-28 request (one whose params._meta carries a protocol
 * version, or server/discover) is served on its own: its _meta is
 * required, another version is -32022 with the versions spoken, the
 * result carries resultType, serverInfo and, where cacheable, ttlMs and
 * cacheScope; the methods the era removed are -32601; a log message goes
 * only to a request that asked for a level. A 2025 client is served as
 * before: it is sent no resource notification until it uses resources,
 * the experimental tasks are 2025-11-25's only, and a resource not there
 * is -32002. tests/e2e/eras.mjs drives the same with the official client,
 * tasks and subscriptions included.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "harness.h"
#include "xmalloc.h"
#include "timeutil.h"

#define META	"\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":" \
	"\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}"

/* Pins: a modern request needs its _meta (-32602); another version is
 * -32022 naming the one spoken and echoing the one asked. */
static void
test_modern_meta(void **state)
{
	struct pmx		*c = *state;
	struct json_doc		*d;
	const struct json	*data, *sup;

	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"server/discover\"}", -32602, "1");
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	    "\"server/discover\",\"params\":{\"_meta\":{\"io.modelcontextprotocol"
	    "/protocolVersion\":\"2026-07-28\"}}}", -32602, "2");
	send_line(c, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\","
	    "\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
	    "\"1999-01-01\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
	d = next_line(c);
	assert_error(d, -32022, "3");
	data = json_get(json_get(json_root(d), "error"), "data");
	sup = json_get(data, "supported");
	assert_int_equal(json_len(sup), 1);
	assert_string_equal(json_str(json_at(sup, 0), NULL), "2026-07-28");
	assert_string_equal(json_str(json_get(data, "requested"), NULL),
	    "1999-01-01");
	json_doc_free(d);
}

/* Pins: server/discover's result: resultType, the version spoken, the
 * tasks extension and resources, our serverInfo in _meta, caching hints;
 * tools/list's too. */
static void
test_modern_discover(void **state)
{
	struct pmx		*c = *state;
	struct json_doc		*d;
	const struct json	*r, *caps, *si;

	r = request_ok(c, "server/discover", "{" META "}", &d);
	assert_string_equal(json_str(json_get(r, "resultType"), NULL),
	    "complete");
	assert_string_equal(json_str(json_at(json_get(r, "supportedVersions"),
	    0), NULL), "2026-07-28");
	caps = json_get(r, "capabilities");
	assert_non_null(json_get(json_get(caps, "extensions"),
	    "io.modelcontextprotocol/tasks"));
	assert_non_null(json_get(caps, "resources"));
	assert_null(json_get(caps, "tasks"));
	si = json_get(json_get(r, "_meta"), "io.modelcontextprotocol/serverInfo");
	assert_string_equal(json_str(json_get(si, "name"), NULL), "progmux");
	assert_true(json_int(json_get(r, "ttlMs")) > 0);
	assert_string_equal(json_str(json_get(r, "cacheScope"), NULL),
	    "public");
	json_doc_free(d);
	r = request_ok(c, "tools/list", "{" META "}", &d);
	assert_string_equal(json_str(json_get(r, "resultType"), NULL),
	    "complete");
	assert_non_null(json_get(r, "ttlMs"));
	/* ask_user_secret too where it is built (its page's library). */
#ifdef PROGMUX_SECRET_PAGE
	assert_int_equal(json_len(json_get(r, "tools")), 8);
#else
	assert_int_equal(json_len(json_get(r, "tools")), 7);
#endif
	/* No task field on a modern tool: the server decides per call. */
	assert_null(json_get(json_at(json_get(r, "tools"), 2), "execution"));
	json_doc_free(d);
}

/* Pins: ping, logging/setLevel, initialize and resources/subscribe are
 * not of the 2026-07-28 era: -32601. */
static void
test_modern_removed(void **state)
{
	struct pmx	*c = *state;
	const char	*m[] = { "ping", "logging/setLevel", "initialize",
			    "resources/subscribe" };
	char		 line[512];
	size_t		 i;

	for (i = 0; i < sizeof m / sizeof *m; i++) {
		snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%zu,"
		    "\"method\":\"%s\",\"params\":{" META "}}", 10 + i, m[i]);
		snprintf(line + 400, 16, "%zu", 10 + i);
		expect_error(c, line, -32601, line + 400);
	}
}

/* Send a modern start_program of argv (JSON); its result document. */
static struct json_doc *
modern_start(struct pmx *c, const char *argv, const char *level)
{
	char		 params[512];
	struct json_doc	*d;

	snprintf(params, sizeof params, "{\"name\":\"start_program\","
	    "\"arguments\":{\"argv\":%s},\"_meta\":{\"io.modelcontextprotocol/"
	    "protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/"
	    "clientCapabilities\":{}%s%s%s}}", argv, level ? ",\"io."
	    "modelcontextprotocol/logLevel\":\"" : "", level ? level : "",
	    level ? "\"" : "");
	pmx_send(c, "tools/call", params);
	if ((d = pmx_next(c, REPLY_MS)) == NULL)
		fail_msg("no reply to start_program");
	return (d);
}

/* Pins: a log message (a ceiling reached) goes to a modern request only
 * if it set a log level, and then before its reply. */
static void
test_modern_log_level(void **state)
{
	struct pmx	*c = *state;
	struct json_doc	*d;

	d = modern_start(c, "[\"sleep\",\"30\"]", NULL);
	assert_non_null(json_get(json_root(d), "result"));
	assert_false(pmx_is_error(d));
	json_doc_free(d);
	/* The ceiling (PROGMUX_MAX_PROGRAMS=1): refused, and no message. */
	d = modern_start(c, "[\"sleep\",\"30\"]", NULL);
	assert_non_null(json_get(json_root(d), "result"));
	assert_true(pmx_is_error(d));
	json_doc_free(d);
	/* With a level: the warning first, then the refusal. */
	d = modern_start(c, "[\"sleep\",\"30\"]", "warning");
	assert_string_equal(json_str(json_get(json_root(d), "method"), NULL),
	    "notifications/message");
	json_doc_free(d);
	d = next_line(c);
	assert_true(pmx_is_error(d));
	json_doc_free(d);
}

/* Start progmux at most one program at a time. */
static int
setup_one(void **state)
{
	struct pmx		*c = xcalloc(1, sizeof *c);
	const char *const	 env[] = { "PROGMUX_MAX_PROGRAMS=1", NULL };

	if (pmx_open(c, env) == -1) {
		pmx_close(c);
		free(c);
		return (-1);
	}
	*state = c;
	return (0);
}

/* Pins: a 2025 client that never used resources is sent nothing new when
 * programs come; once it has listed them, a new program brings
 * notifications/resources/list_changed. */
static void
test_legacy_quiet_until_used(void **state)
{
	struct pmx		*c = *state;
	struct json_doc		*d;
	const struct json	*r;
	char			*id;
	int64_t			 end;

	id = pmx_start_program(c, "{\"argv\":[\"sleep\",\"30\"]}", NULL);
	assert_non_null(id);
	free(id);
	/*
	 * What is pinned is an absence, so it takes a span of time: two and
	 * a half looks (one a second, MCP_POLL_MS), after which nothing but
	 * the ping's reply may have come.
	 */
	usleep(2500 * 1000);
	expect_ping_next(c);
	r = request_ok(c, "resources/list", NULL, &d);
	assert_int_equal(json_len(json_get(r, "resources")), 2);
	assert_null(json_get(r, "resultType"));
	json_doc_free(d);
	id = pmx_start_program(c, "{\"argv\":[\"sleep\",\"30\"]}", NULL);
	assert_non_null(id);
	free(id);
	end = now_ms() + REPLY_MS;
	for (;;) {
		if ((d = pmx_next(c, (int)(end - now_ms()))) == NULL)
			fail_msg("no notifications/resources/list_changed");
		if (json_str(json_get(json_root(d), "method"), NULL) != NULL &&
		    strcmp(json_str(json_get(json_root(d), "method"), NULL),
		    "notifications/resources/list_changed") == 0)
			break;
		json_doc_free(d);
	}
	json_doc_free(d);
}

/* Pins: before 2025-11-25 (pmx_open negotiates 2025-06-18) there are no
 * tasks: no capability, no execution field, a call's "task" ignored; a
 * resource not there is -32002 with its uri. */
static void
test_legacy_no_tasks(void **state)
{
	struct pmx		*c = *state;
	struct json_doc		*d;
	const struct json	*r, *e;
	size_t			 i;

	r = request_ok(c, "tools/list", NULL, &d);
	for (i = 0; i < json_len(json_get(r, "tools")); i++)
		assert_null(json_get(json_at(json_get(r, "tools"), i),
		    "execution"));
	json_doc_free(d);
	r = request_ok(c, "tools/call", "{\"name\":\"run_program\","
	    "\"arguments\":{\"argv\":[\"echo\",\"hi\"]},\"task\":{}}", &d);
	assert_null(json_get(r, "task"));
	assert_non_null(json_get(r, "content"));
	json_doc_free(d);
	send_line(c, "{\"jsonrpc\":\"2.0\",\"id\":\"r\",\"method\":"
	    "\"resources/read\",\"params\":{\"uri\":\"progmux://programs/p99/"
	    "output\"}}");
	d = next_line(c);
	assert_error(d, -32002, "\"r\"");
	e = json_get(json_get(json_root(d), "error"), "data");
	assert_string_equal(json_str(json_get(e, "uri"), NULL),
	    "progmux://programs/p99/output");
	json_doc_free(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, rpc_setup, rpc_teardown)
		T(test_modern_meta),
		T(test_modern_discover),
		T(test_modern_removed),
		cmocka_unit_test_setup_teardown(test_modern_log_level,
		    setup_one, rpc_teardown),
		T(test_legacy_quiet_until_used),
		T(test_legacy_no_tasks),
#undef T
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
