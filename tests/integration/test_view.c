/*
 * test_view.c — the view (MCP Apps) as the protocol offers it, end to end
 * against build/progmux.
 *
 * A client whose capabilities name io.modelcontextprotocol/ui (initialize
 * in the 2025 era, each request's _meta in 2026-07-28) with HTML views
 * among its mimeTypes is offered the view: the extension in the
 * capabilities, ui://progmux/view listed and read (one page that names
 * nothing to fetch), view_update listed with visibility ["app"], and
 * start_program, run_program and list_programs linked to the view by
 * _meta.ui.resourceUri and the older ui/resourceUri. Any other client
 * sees none of it, cannot call view_update, and gets the same text from
 * every tool. view_update answers at once the first time, then only once
 * what it shows changed (new output: the text and the screen, colours
 * kept) or when its wait is over, saying the same seen. The browser side
 * (the page in chromium inside the MCP Apps SDK's host) is make
 * test-view's (tests/view/view.mjs).
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

#define UI_CAPS	"{\"extensions\":{\"io.modelcontextprotocol/ui\":" \
	"{\"mimeTypes\":[\"text/html;profile=mcp-app\"]}}}"
#define META(caps)	"\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":" \
	"\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":" caps "}"
#define VIEW_URI	"ui://progmux/view"

/*
 * progmux on its own private tmux server, initialized by a client with
 * these capabilities (JSON); the initialize result's document in *dp.
 */
static void
open_caps(struct pmx *c, const char *caps, struct json_doc **dp)
{
	char	*out, params[512];

	if (pmx_prepare(c) == -1)
		fail_msg("no directory");
	out = pmx_tmux(c, "-f", "/dev/null", "new-session", "-d", "-s",
	    "base", "-x", "80", "-y", "24", "cat", "-", NULL);
	if (out == NULL)
		fail_msg("no tmux server");
	free(out);
	c->own_tmux = true;
	if (pmx_spawn(c, NULL, false) == -1)
		fail_msg("progmux did not start");
	snprintf(params, sizeof params, "{\"protocolVersion\":\"2025-11-25\","
	    "\"capabilities\":%s,\"clientInfo\":{\"name\":\"t\","
	    "\"version\":\"1\"}}", caps);
	request_ok(c, "initialize", params, dp);
	send_line(c, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"}");
}

/* Is tool linked to the view (both _meta keys), or not at all? */
static void
assert_linked(const struct json *tool, bool linked)
{
	const struct json	*meta = json_get(tool, "_meta");
	const char		*name = json_str(json_get(tool, "name"), NULL);

	assert_non_null(json_get(meta, "io.progmux/capability"));
	if (!linked) {
		if (json_get(meta, "ui") != NULL ||
		    json_get(meta, "ui/resourceUri") != NULL)
			fail_msg("%s names the view", name);
		return;
	}
	if (json_get(json_get(meta, "ui"), "resourceUri") == NULL ||
	    strcmp(json_str(json_get(json_get(meta, "ui"), "resourceUri"),
	    NULL), VIEW_URI) != 0)
		fail_msg("%s: no _meta.ui.resourceUri", name);
	if (json_get(meta, "ui/resourceUri") == NULL ||
	    strcmp(json_str(json_get(meta, "ui/resourceUri"), NULL),
	    VIEW_URI) != 0)
		fail_msg("%s: no _meta[\"ui/resourceUri\"]", name);
}

/* A tools/list result's tools: the view there, or none of it. */
static void
assert_tools(const struct json *tools, bool view)
{
	const struct json	*v = find_tool(tools, "view_update"), *vis;
	const char		*linked[] = { "start_program", "run_program",
				    "list_programs" };
	size_t			 i;

	for (i = 0; i < 3; i++) {
		assert_non_null(find_tool(tools, linked[i]));
		assert_linked(find_tool(tools, linked[i]), view);
	}
	assert_linked(find_tool(tools, "read_program"), false);
	if (!view) {
		assert_null(v);
		return;
	}
	assert_non_null(v);
	vis = json_get(json_get(json_get(v, "_meta"), "ui"), "visibility");
	assert_int_equal(json_len(vis), 1);
	assert_string_equal(json_str(json_at(vis, 0), NULL), "app");
}

/* Has a resources/list result the view, of its MIME type? */
static bool
lists_view(const struct json *r)
{
	const struct json	*res = json_get(r, "resources"), *e;
	size_t			 i;

	for (i = 0; i < json_len(res); i++) {
		e = json_at(res, i);
		if (strcmp(json_str(json_get(e, "uri"), NULL), VIEW_URI) == 0) {
			assert_string_equal(json_str(json_get(e, "mimeType"),
			    NULL), "text/html;profile=mcp-app");
			return (true);
		}
	}
	return (false);
}

/* A resources/read of the view's result: one HTML page, of the
 * extension's MIME type, declaring no ui.csp (the default policy), that
 * names nothing to fetch. */
static void
assert_page(const struct json *r)
{
	const struct json	*c = json_at(json_get(r, "contents"), 0);
	const char		*html;

	assert_non_null(c);
	assert_string_equal(json_str(json_get(c, "uri"), NULL), VIEW_URI);
	assert_string_equal(json_str(json_get(c, "mimeType"), NULL),
	    "text/html;profile=mcp-app");
	assert_null(json_get(json_get(json_get(c, "_meta"), "ui"), "csp"));
	html = json_str(json_get(c, "text"), NULL);
	assert_non_null(html);
	assert_true(strncmp(html, "<!DOCTYPE html>", 15) == 0);
	assert_non_null(strstr(html, "</html>"));
	assert_null(strstr(html, "https://"));
	assert_null(strstr(html, "http://"));
	assert_null(strstr(html, " src="));
	assert_null(strstr(html, "<link"));
}

/* Pins: a 2025 client without the extension is offered nothing of the
 * view: not the extension, not view_update (a call of it is an unknown
 * tool), no link to it, not the resource. */
static void
test_view_not_offered(void **state)
{
	struct pmx		*c = *state;
	struct json_doc		*d;
	const struct json	*r;

	open_caps(c, "{}", &d);
	assert_null(json_get(json_get(json_get(json_root(d), "result"),
	    "capabilities"), "extensions"));
	json_doc_free(d);
	assert_tools(list_tools(c, &d), false);
	json_doc_free(d);
	r = request_ok(c, "resources/list", NULL, &d);
	assert_false(lists_view(r));
	json_doc_free(d);
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":\"r\",\"method\":"
	    "\"resources/read\",\"params\":{\"uri\":\"" VIEW_URI "\"}}",
	    -32002, "\"r\"");
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":\"v\",\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"view_update\","
	    "\"arguments\":{}}}", -32602, "\"v\"");
}

/* Pins: a 2025 client declaring the extension (HTML among its
 * mimeTypes) is offered the view: the extension, view_update for the
 * view alone, the links, the page. */
static void
test_view_offered_2025(void **state)
{
	struct pmx		*c = *state;
	struct json_doc		*d;
	const struct json	*r;

	open_caps(c, UI_CAPS, &d);
	assert_non_null(json_get(json_get(json_get(json_get(json_root(d),
	    "result"), "capabilities"), "extensions"),
	    "io.modelcontextprotocol/ui"));
	json_doc_free(d);
	assert_tools(list_tools(c, &d), true);
	json_doc_free(d);
	r = request_ok(c, "resources/list", NULL, &d);
	assert_true(lists_view(r));
	json_doc_free(d);
	assert_page(request_ok(c, "resources/read", "{\"uri\":\"" VIEW_URI
	    "\"}", &d));
	json_doc_free(d);
}

/* Pins: a client whose extension lists only other mimeTypes has no
 * view. */
static void
test_view_other_mime(void **state)
{
	struct pmx	*c = *state;
	struct json_doc	*d;

	open_caps(c, "{\"extensions\":{\"io.modelcontextprotocol/ui\":"
	    "{\"mimeTypes\":[\"text/uri-list\"]}}}", &d);
	assert_null(json_get(json_get(json_get(json_root(d), "result"),
	    "capabilities"), "extensions"));
	json_doc_free(d);
	assert_tools(list_tools(c, &d), false);
	json_doc_free(d);
}

/* Pins: in the 2026-07-28 era each request's own capabilities decide,
 * on one server: with the extension the view is there, without it not. */
static void
test_view_2026(void **state)
{
	struct pmx		*c = *state;
	struct json_doc		*d;
	const struct json	*r;

	if (pmx_open(c, NULL) == -1)
		fail_msg("progmux did not start");
	r = request_ok(c, "server/discover", "{" META(UI_CAPS) "}", &d);
	assert_non_null(json_get(json_get(json_get(r, "capabilities"),
	    "extensions"), "io.modelcontextprotocol/ui"));
	json_doc_free(d);
	r = request_ok(c, "tools/list", "{" META(UI_CAPS) "}", &d);
	assert_tools(json_get(r, "tools"), true);
	json_doc_free(d);
	assert_page(request_ok(c, "resources/read", "{\"uri\":\"" VIEW_URI
	    "\"," META(UI_CAPS) "}", &d));
	json_doc_free(d);
	r = request_ok(c, "tools/list", "{" META("{}") "}", &d);
	assert_tools(json_get(r, "tools"), false);
	json_doc_free(d);
	r = request_ok(c, "server/discover", "{" META("{}") "}", &d);
	assert_null(json_get(json_get(json_get(r, "capabilities"),
	    "extensions"), "io.modelcontextprotocol/ui"));
	json_doc_free(d);
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":"
	    "\"resources/read\",\"params\":{\"uri\":\"" VIEW_URI "\","
	    META("{}") "}}", -32602, "7");
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"view_update\","
	    "\"arguments\":{}," META("{}") "}}", -32602, "8");
}

/* The text block of a 2026 run_program with caps, its program's and
 * pane's ids made neutral (allocated). */
static char *
run_text(struct pmx *c, const char *caps)
{
	char			 params[1024], *t, *p;
	struct json_doc		*d;
	const struct json	*r;
	const char		*id, *pane;

	snprintf(params, sizeof params, "{\"name\":\"run_program\","
	    "\"arguments\":{\"argv\":[\"printf\",\"a\\\\nb\\\\n\"]},"
	    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
	    "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":"
	    "%s}}", caps);
	r = request_ok(c, "tools/call", params, &d);
	id = json_str(json_get(json_get(r, "structuredContent"), "programId"),
	    NULL);
	pane = json_str(json_get(json_get(r, "structuredContent"), "paneId"),
	    NULL);
	assert_non_null(id);
	assert_non_null(pane);
	t = xstrdup(json_str(json_get(json_at(json_get(r, "content"), 0),
	    "text"), NULL));
	while ((p = strstr(t, id)) != NULL)
		memset(p, '#', strlen(id));
	while ((p = strstr(t, pane)) != NULL)
		memset(p, '#', strlen(pane));
	json_doc_free(d);
	return (t);
}

/* Pins: a tool's text is the same for a client with the view as for one
 * without. */
static void
test_view_same_text(void **state)
{
	struct pmx	*c = *state;
	char		*with, *without;

	if (pmx_open(c, NULL) == -1)
		fail_msg("progmux did not start");
	with = run_text(c, UI_CAPS);
	without = run_text(c, "{}");
	assert_string_equal(with, without);
	assert_non_null(strstr(with, "a\nb\n"));
	free(with);
	free(without);
}

/* view_update with args (JSON), which must succeed (checked against its
 * outputSchema); its structuredContent's document. */
static struct json_doc *
view(struct pmx *c, const char *args)
{
	struct json_doc	*d = pmx_call(c, "view_update", args, 40000);

	if (d == NULL || pmx_is_error(d))
		fail_msg("view_update %s: %s", args, d ? pmx_text(d) :
		    "no valid answer");
	return (d);
}

/* The program part of a view_update answer. */
static const struct json *
shown(const struct json_doc *d)
{
	return (sc_get(d, "program"));
}

/* Pins: view_update answers at once the first time; then only once what
 * it shows changed: a line typed makes the program print, and the text
 * and the screen (with its colours as escape sequences and the cursor's
 * place) come; with nothing changing it answers when its wait is over,
 * saying the same seen. Stopped, the program is shown as gone. */
static void
test_view_follows(void **state)
{
	struct pmx		*c = *state;
	struct json_doc		*d, *w;
	const struct json	*p, *scr;
	char			*id, *pane, args[512], seen[64];
	int64_t			 rid;
	int			 tries;

	open_caps(c, UI_CAPS, &d);
	json_doc_free(d);
	id = pmx_start_program(c, "{\"argv\":[\"sh\",\"-c\",\"printf '\\\\033"
	    "[1;31mred\\\\033[0m\\\\n'; read x; echo got-$x; sleep 30\"]}",
	    &pane);
	assert_non_null(id);
	/* Until its screen is there: each call waits for a change. */
	snprintf(args, sizeof args, "{\"programId\":\"%s\"}", id);
	d = view(c, args);
	for (tries = 0; tries < 20 && (json_type(json_get(shown(d),
	    "screen")) != JSON_OBJECT || strstr(json_str(json_get(json_get(
	    shown(d), "screen"), "lines"), NULL), "red") == NULL); tries++) {
		snprintf(args, sizeof args, "{\"programId\":\"%s\",\"seen\":"
		    "\"%s\",\"timeoutMs\":2000}", id, sc_str(d, "seen"));
		json_doc_free(d);
		d = view(c, args);
	}
	p = shown(d);
	scr = json_get(p, "screen");
	assert_int_equal(json_type(scr), JSON_OBJECT);
	/* Bold red as SGR, the text plain. */
	assert_non_null(strstr(json_str(json_get(scr, "lines"), NULL),
	    "\033["));
	assert_non_null(strstr(json_str(json_get(scr, "lines"), NULL),
	    "red"));
	assert_int_equal(json_int(json_get(scr, "width")), 80);
	assert_int_equal(json_int(json_get(scr, "cursorY")), 1);
	assert_int_equal(json_int(json_get(scr, "cursorX")), 0);
	assert_string_equal(json_str(json_get(p, "programId"), NULL), id);
	assert_string_equal(json_str(json_get(p, "text"), NULL), "red\n");
	assert_int_equal(json_len(sc_get(d, "programs")), 1);
	snprintf(seen, sizeof seen, "%s", sc_str(d, "seen"));

	/* Waiting now; a line typed wakes it with the reply. (The keys
	 * reach tmux after the call's first capture: a call that answered
	 * without waiting for a change would not have them.) */
	snprintf(args, sizeof args, "{\"name\":\"view_update\",\"arguments\":"
	    "{\"programId\":\"%s\",\"cursor\":%lld,\"seen\":\"%s\","
	    "\"timeoutMs\":20000}}", id, (long long)json_int(json_get(p,
	    "cursor")), seen);
	rid = pmx_send(c, "tools/call", args);
	json_doc_free(d);
	snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":\"hello\"}",
	    pane);
	json_doc_free(sc_call_ok(c, "send_keys", args));
	if ((w = pmx_wait(c, rid, 25000)) == NULL)
		fail_msg("view_update did not answer");
	assert_false(pmx_is_error(w));
	p = shown(w);
	assert_non_null(strstr(json_str(json_get(p, "text"), NULL),
	    "got-hello\n"));
	assert_string_not_equal(sc_str(w, "seen"), seen);
	snprintf(seen, sizeof seen, "%s", sc_str(w, "seen"));
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":%lld,"
	    "\"seen\":\"%s\",\"timeoutMs\":300}", id, (long long)json_int(
	    json_get(p, "cursor")), seen);
	json_doc_free(w);

	/* Nothing changes: the wait ends, with the same seen and no text. */
	d = view(c, args);
	assert_string_equal(sc_str(d, "seen"), seen);
	assert_string_equal(json_str(json_get(shown(d), "text"), NULL), "");
	json_doc_free(d);

	snprintf(args, sizeof args, "{\"programId\":\"%s\"}", id);
	json_doc_free(sc_call_ok(c, "stop_program", args));
	d = view(c, args);
	assert_true(sc_null(d, "program"));
	assert_int_equal(json_len(sc_get(d, "programs")), 0);
	json_doc_free(d);
	free(id);
	free(pane);
}

/* A fresh struct pmx per test; each test opens progmux as it needs. */
static int
setup(void **state)
{
	*state = xcalloc(1, sizeof (struct pmx));
	return (0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, rpc_teardown)
		T(test_view_not_offered),
		T(test_view_offered_2025),
		T(test_view_other_mime),
		T(test_view_2026),
		T(test_view_same_text),
		T(test_view_follows),
#undef T
	};

	return (HARNESS_RUN("view", tests, NULL, NULL));
}
