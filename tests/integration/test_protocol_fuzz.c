/*
 * test_protocol_fuzz.c — malformed input to build/progmux, at random.
 *
 * One test starts progmux on a private tmux server (tests/client.c) and
 * sends it 1,000+ lines: random bytes, every proper prefix of valid requests,
 * requests with a byte changed, dropped or doubled, token soup, deep
 * nesting, invalid UTF-8, odd escapes and numbers. Each is followed by a
 * sentinel ping; an oracle from JSON-RPC's rules says what must come
 * before the sentinel's reply (this error code and id, an answer, or
 * nothing), and afterwards the server must still work. The seed is fixed
 * (PMX_FUZZ_SEED overrides it).
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
		if ((d = pmx_next(c, REPLY_MS)) == NULL) {
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
		if (depth < JSON_MAX_DEPTH) {
			fuzz_run(c, &n, b.data, b.len);
			continue;
		}
		/* Too deep for us, as too large is: refused, with the id it
		 * carried first (the oracle's parser would say null). */
		{
			struct fuzz_expect ex = { WANT_ERROR, -32700,
			    (char *)"\"deep\"" };

			fuzz_one(c, n++, b.data, b.len, &ex);
		}
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, rpc_setup, rpc_teardown)
		T(test_fuzz),
#undef T
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}

