/*
 * test_prompts.c — what the client offers the person and tells the
 * model, end to end against build/progmux: the prompts (prompts/list,
 * prompts/get) in both eras, and the server's instructions.
 *
 * The instructions state the facts a model gets wrong, each checked
 * here: every wait ends within PROGMUX_WAIT_MAX_MS (the value in force)
 * and a client that cuts a call sooner wants a smaller timeoutMs;
 * waitingForInput is answered with send_keys; inputHidden means
 * ask_user_secret and never typing a password (where ask_user_secret is
 * not offered, the person types it in the pane); programs end at their
 * lifetimeMs and when the server exits. About 120 words. A prompt is
 * offered while the tools it uses are; its arguments are checked.
 * tests/e2e (e2e.mjs, eras.mjs) reads both through the official SDK
 * clients.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "harness.h"
#include "xmalloc.h"

#define META	"\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":" \
	"\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}"
#define INIT	"{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}," \
	"\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}"

/* progmux with env, not yet initialized (no tmux is needed here). */
static struct pmx *
open_env(void **state, const char *const *env)
{
	struct pmx	*c = xcalloc(1, sizeof *c);

	*state = c;
	if (pmx_open_bare(c, env) == -1)
		fail_msg("progmux did not start");
	return (c);
}

/* initialize's result (the document in *dp). */
static const struct json *
initialize(struct pmx *c, struct json_doc **dp)
{
	const struct json	*r = request_ok(c, "initialize", INIT, dp);

	send_line(c, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"}");
	return (r);
}

/* The sentence of text holding word (up to ". " either side), which must
 * be there (allocated). */
static char *
sentence(const char *text, const char *word)
{
	const char	*at = strstr(text, word), *a, *b;

	if (at == NULL)
		fail_msg("the instructions do not say %s: %s", word, text);
	for (a = at; a > text && !(a[-1] == ' ' && a - 1 > text &&
	    a[-2] == '.'); a--)
		;
	if ((b = strstr(at, ". ")) == NULL)
		b = text + strlen(text);
	return (xstrndup(a, (size_t)(b - a)));
}

/* Does the sentence holding word also hold each of the others? */
static void
said_with(const char *text, const char *word, ...)
{
	va_list		 ap;
	const char	*o;
	char		*s = sentence(text, word);

	va_start(ap, word);
	while ((o = va_arg(ap, const char *)) != NULL)
		if (strstr(s, o) == NULL)
			fail_msg("\"%s\" does not say %s", s, o);
	va_end(ap);
	free(s);
}

/* Words in text. */
static size_t
words(const char *text)
{
	size_t	n = 0;
	bool	in = false;

	for (; *text != '\0'; text++) {
		if (isspace((unsigned char)*text))
			in = false;
		else if (!in) {
			in = true;
			n++;
		}
	}
	return (n);
}

/* The facts, in instructions given with PROGMUX_WAIT_MAX_MS=12345. */
static void
assert_facts(const char *text, bool secret)
{
	said_with(text, "12345 ms", "PROGMUX_WAIT_MAX_MS", NULL);
	said_with(text, "cuts", "timeoutMs", NULL);
	said_with(text, "waitingForInput", "send_keys", NULL);
	said_with(text, "inputHidden", "password", NULL);
	if (secret)
		said_with(text, "ask_user_secret", "never type a password",
		    NULL);
	else {
		said_with(text, "never type a password", "person", NULL);
		assert_null(strstr(text, "ask_user_secret"));
	}
	said_with(text, "lifetimeMs", "server exits", NULL);
	if (words(text) < 80 || words(text) > 150)
		fail_msg("%zu words, not about 120: %s", words(text), text);
}

/* Pins: the instructions, in both eras, state the facts with the wait
 * ceiling in force. */
static void
test_instructions(void **state)
{
	const char *const	 env[] = { "PROGMUX_WAIT_MAX_MS=12345", NULL };
	struct pmx		*c = open_env(state, env);
	struct json_doc		*d, *d2;
	const char		*t;

	t = json_str(json_get(initialize(c, &d), "instructions"), NULL);
	assert_non_null(t);
#ifdef PROGMUX_SECRET_PAGE
	assert_facts(t, true);
#else
	assert_facts(t, false);
#endif
	assert_string_equal(json_str(json_get(request_ok(c, "server/discover",
	    "{" META "}", &d2), "instructions"), NULL), t);
	json_doc_free(d);
	json_doc_free(d2);
}

/* Pins: where ask_user_secret is not offered, the instructions send the
 * person to the pane and still forbid typing a password. */
static void
test_instructions_no_secret(void **state)
{
	const char *const	 env[] = { "PROGMUX_WAIT_MAX_MS=12345",
				    "PROGMUX_TOOLS=start_program,read_program,"
				    "send_keys,list_programs", NULL };
	struct pmx		*c = open_env(state, env);
	struct json_doc		*d;

	assert_facts(json_str(json_get(initialize(c, &d), "instructions"),
	    NULL), false);
	json_doc_free(d);
}

/* The prompts of a prompts/list result, by name, in a "a,b," list. */
static char *
prompt_names(const struct json *r)
{
	const struct json	*ps = json_get(r, "prompts");
	struct buf		 b = BUF_INIT;
	size_t			 i;

	assert_int_equal(json_type(ps), JSON_ARRAY);
	for (i = 0; i < json_len(ps); i++)
		buf_printf(&b, "%s,", json_str(json_get(json_at(ps, i),
		    "name"), NULL));
	buf_cstr(&b);
	return (b.data);
}

/* A prompts/get result's one user message, text (which must hold each
 * needle). */
static void
assert_message(const struct json *r, ...)
{
	const struct json	*m = json_at(json_get(r, "messages"), 0);
	const char		*t, *needle;
	va_list			 ap;

	assert_int_equal(json_len(json_get(r, "messages")), 1);
	assert_string_equal(json_str(json_get(m, "role"), NULL), "user");
	assert_string_equal(json_str(json_get(json_get(m, "content"), "type"),
	    NULL), "text");
	t = json_str(json_get(json_get(m, "content"), "text"), NULL);
	va_start(ap, r);
	while ((needle = va_arg(ap, const char *)) != NULL)
		if (strstr(t, needle) == NULL)
			fail_msg("the message lacks %s: %s", needle, t);
	va_end(ap);
}

/* Pins: a 2025 client is offered the prompts (the capability, the list
 * with their arguments); each gives its message with the arguments in
 * it; a missing or bad argument or an unknown prompt is -32602. */
static void
test_prompts_2025(void **state)
{
	struct pmx		*c = open_env(state, NULL);
	struct json_doc		*d;
	const struct json	*r, *a;
	char			*names, line[6000];

	r = initialize(c, &d);
	assert_non_null(json_get(json_get(r, "capabilities"), "prompts"));
	json_doc_free(d);
	r = request_ok(c, "prompts/list", NULL, &d);
	names = prompt_names(r);
#ifdef PROGMUX_SECRET_PAGE
	assert_string_equal(names, "run-and-check,start-and-wait,"
	    "why-is-it-quiet,answer-password,");
#else
	assert_string_equal(names, "run-and-check,start-and-wait,"
	    "why-is-it-quiet,");
#endif
	free(names);
	a = json_at(json_get(json_at(json_get(r, "prompts"), 0), "arguments"),
	    0);
	assert_string_equal(json_str(json_get(a, "name"), NULL), "command");
	assert_true(json_bool(json_get(a, "required")));
	json_doc_free(d);

	assert_message(request_ok(c, "prompts/get", "{\"name\":"
	    "\"run-and-check\",\"arguments\":{\"command\":\"make test\","
	    "\"expect\":\"0 failures\"}}", &d), "`make test`", "run_program",
	    "exitStatus", "0 failures", NULL);
	json_doc_free(d);
	assert_message(request_ok(c, "prompts/get", "{\"name\":"
	    "\"start-and-wait\",\"arguments\":{\"command\":\"npm run dev\","
	    "\"ready\":\"Local:\"}}", &d), "`npm run dev`", "start_program",
	    "until", "Local:", NULL);
	json_doc_free(d);
	assert_message(request_ok(c, "prompts/get", "{\"name\":"
	    "\"why-is-it-quiet\",\"arguments\":{\"programId\":\"p7\"}}", &d),
	    "p7", "list_programs", "tail", "capture_pane", "waitingForInput",
	    "send_keys", NULL);
	json_doc_free(d);
#ifdef PROGMUX_SECRET_PAGE
	assert_message(request_ok(c, "prompts/get", "{\"name\":"
	    "\"answer-password\"}", &d), "inputHidden", "ask_user_secret",
	    "Never type a password", NULL);
	json_doc_free(d);
#endif
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/get\","
	    "\"params\":{\"name\":\"run-and-check\"}}", -32602, "1");
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/get\","
	    "\"params\":{\"name\":\"run-and-check\",\"arguments\":"
	    "{\"command\":7}}}", -32602, "2");
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"prompts/get\","
	    "\"params\":{\"name\":\"nope\"}}", -32602, "3");
	snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":"
	    "\"prompts/get\",\"params\":{\"name\":\"run-and-check\","
	    "\"arguments\":{\"command\":\"%0*d\"}}}", 4097, 0);
	expect_error(c, line, -32602, "4");
}

/* Pins: the prompts in the 2026-07-28 era, with caching hints. */
static void
test_prompts_2026(void **state)
{
	struct pmx		*c = open_env(state, NULL);
	struct json_doc		*d;
	const struct json	*r;

	r = request_ok(c, "server/discover", "{" META "}", &d);
	assert_non_null(json_get(json_get(r, "capabilities"), "prompts"));
	json_doc_free(d);
	r = request_ok(c, "prompts/list", "{" META "}", &d);
	assert_true(json_len(json_get(r, "prompts")) >= 3);
	assert_true(json_int(json_get(r, "ttlMs")) > 0);
	assert_string_equal(json_str(json_get(r, "cacheScope"), NULL),
	    "public");
	assert_string_equal(json_str(json_get(r, "resultType"), NULL),
	    "complete");
	json_doc_free(d);
	assert_message(request_ok(c, "prompts/get", "{\"name\":"
	    "\"run-and-check\",\"arguments\":{\"command\":\"ls\"}," META "}",
	    &d), "`ls`", NULL);
	json_doc_free(d);
}

/* Pins: a prompt whose tools the safety tier holds back is not offered:
 * readonly leaves only why-is-it-quiet. */
static void
test_prompts_tier(void **state)
{
	const char *const	 env[] = { "PROGMUX_SAFETY=readonly", NULL };
	struct pmx		*c = open_env(state, env);
	struct json_doc		*d;
	char			*names;

	initialize(c, &d);
	json_doc_free(d);
	names = prompt_names(request_ok(c, "prompts/list", NULL, &d));
	assert_string_equal(names, "why-is-it-quiet,");
	free(names);
	json_doc_free(d);
	expect_error(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/get\","
	    "\"params\":{\"name\":\"run-and-check\",\"arguments\":"
	    "{\"command\":\"ls\"}}}", -32602, "1");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_teardown(f, rpc_teardown)
		T(test_instructions),
		T(test_instructions_no_secret),
		T(test_prompts_2025),
		T(test_prompts_2026),
		T(test_prompts_tier),
#undef T
	};

	return (HARNESS_RUN("prompts", tests, NULL, NULL));
}
