/*
 * test_jschema.c — the JSON Schema validator (server/jschema.c).
 *
 * The seeds' inputSchemas and outputSchemas (copied byte for byte into
 * tests/fixtures/seeds/, read at test time from the repository root) are
 * run against many valid and invalid argument and result objects; each
 * failure must name the field and the rule. Then the pieces on their own:
 * patterns (the ECMA-262 flavour) and those that do not compile, anyOf,
 * enum by value, lengths in code points, paths, unsupported keywords,
 * and schema_check. Last,
 * every schemas/NAME.json is checked here, which start-up no longer does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "jschema.h"
#include "schema_check.h"

static struct json_doc	*start_doc;
static struct json_doc	*read_doc;

/* Read a file of the repository (tests run from its root). */
static char *
read_fixture(const char *path, size_t *len)
{
	static const char *const prefixes[] = { "", "../", "../../" };
	char	 full[512], *s = NULL;
	FILE	*f = NULL;
	size_t	 i, cap = 0, n = 0, r;

	for (i = 0; f == NULL && i < sizeof prefixes / sizeof prefixes[0];
	    i++) {
		snprintf(full, sizeof full, "%s%s", prefixes[i], path);
		f = fopen(full, "rb");
	}
	if (f == NULL)
		fail_msg("cannot open %s (run the tests from the repository "
		    "root)", path);
	for (;;) {
		if (n == cap) {
			cap = cap == 0 ? 65536 : cap * 2;
			s = realloc(s, cap);
			assert_non_null(s);
		}
		if ((r = fread(s + n, 1, cap - n, f)) == 0)
			break;
		n += r;
	}
	fclose(f);
	*len = n;
	return (s);
}

/* Parse a fixture file. */
static struct json_doc *
load_fixture(const char *path)
{
	struct json_doc	*d;
	char		*text, *cause = NULL;
	size_t		 len;

	text = read_fixture(path, &len);
	d = json_parse(text, len, &cause);
	if (d == NULL)
		fail_msg("%s: %s", path, cause);
	free(text);
	return (d);
}

/* Load the seeds once. */
static int
setup(void **state)
{
	(void)state;
	start_doc = load_fixture("tests/fixtures/seeds/start_program.json");
	read_doc = load_fixture("tests/fixtures/seeds/read_program.json");
	return (0);
}

/* Free the seeds. */
static int
teardown(void **state)
{
	(void)state;
	json_doc_free(start_doc);
	json_doc_free(read_doc);
	return (0);
}

/* Parse a NUL-terminated JSON text or fail. */
static struct json_doc *
parse(const char *text)
{
	struct json_doc	*d;
	char		*cause = NULL;

	if ((d = json_parse(text, strlen(text), &cause)) == NULL)
		fail_msg("bad test JSON [%s]: %s", text, cause);
	return (d);
}

/*
 * Validate instance against schema: expect it valid if the list of wanted
 * substrings is empty (NULL first), else invalid with a message holding
 * every one of them.
 */
static void
check_one(const struct json *schema, const char *instance, ...)
{
	struct json_doc	*d = parse(instance);
	char		*cause = (char *)1;
	const char	*want;
	va_list		 ap;
	int		 r;

	r = jschema_validate(schema, json_root(d), &cause);
	va_start(ap, instance);
	want = va_arg(ap, const char *);
	if (want == NULL) {
		if (r != 0)
			fail_msg("%s: unexpected error: %s", instance, cause);
		assert_null(cause);
	} else {
		if (r == 0)
			fail_msg("%s: accepted, wanted \"%s\"", instance, want);
		assert_non_null(cause);
		for (; want != NULL; want = va_arg(ap, const char *)) {
			if (strstr(cause, want) == NULL)
				fail_msg("%s: message \"%s\" lacks \"%s\"",
				    instance, cause, want);
		}
		free(cause);
	}
	va_end(ap);
	json_doc_free(d);
}

#define OK(s, i)	check_one((s), (i), (const char *)NULL)
#define BAD(s, i, ...)	check_one((s), (i), __VA_ARGS__, (const char *)NULL)

/* The same with a schema given as text. */
static void
check_text(const char *schema, const char *instance, int valid,
    const char *want)
{
	struct json_doc	*s = parse(schema);

	if (valid)
		OK(json_root(s), instance);
	else
		BAD(json_root(s), instance, want);
	json_doc_free(s);
}

/* A string of n copies of unit. */
static char *
repeat(const char *unit, size_t n, const char *pre, const char *post)
{
	size_t	 ul = strlen(unit), i;
	char	*s = malloc(strlen(pre) + ul * n + strlen(post) + 1), *p;

	p = stpcpy(s, pre);
	for (i = 0; i < n; i++)
		p = stpcpy(p, unit);
	strcpy(p, post);
	return (s);
}

/* start_program's inputSchema. */
static void
test_start_input(void **state)
{
	const struct json	*s;
	char			*t;

	(void)state;
	s = json_get(json_root(start_doc), "inputSchema");
	assert_non_null(s);

	OK(s, "{\"argv\":[\"git\",\"status\",\"--short\"]}");
	OK(s, "{\"argv\":[\"a\"],\"fromPaneId\":\"%0\",\"placement\":\"split\","
	    "\"width\":80,\"height\":1,\"lifetimeMs\":1,"
	    "\"startDirectory\":\"/tmp\"}");
	OK(s, "{\"argv\":[\"a\"],\"width\":10000,\"height\":10000,"
	    "\"lifetimeMs\":9007199254740991,\"placement\":\"window\"}");
	OK(s, "{\"argv\":[\"\"]}");
	OK(s, "{\"argv\":[\"a\"],\"width\":80.0}");
	OK(s, "{\"argv\":[\"a\"],\"width\":1e3}");
	OK(s, "{\"argv\":[\"a\"],\"width\":1e4}");
	/* the input schema has no additionalProperties: extras pass */
	OK(s, "{\"argv\":[\"a\"],\"other\":1}");

	BAD(s, "{}", "(root)", "missing required field \"argv\"");
	BAD(s, "{\"width\":80}", "(root)", "\"argv\"");
	BAD(s, "{\"argv\":\"git status\"}", "argv", "must be an array",
	    "string");
	BAD(s, "{\"argv\":null}", "argv", "must be an array", "null");
	BAD(s, "{\"argv\":{}}", "argv", "array", "object");
	BAD(s, "{\"argv\":[]}", "argv: must have at least 1 item");
	t = repeat("\"x\",", 256, "{\"argv\":[", "\"y\"]}");
	BAD(s, t, "argv: must have at most 256 items", "257");
	free(t);
	t = repeat("\"x\",", 255, "{\"argv\":[", "\"y\"]}");
	OK(s, t);
	free(t);
	BAD(s, "{\"argv\":[\"a\",1]}", "argv[1]: must be a string",
	    "number");
	BAD(s, "{\"argv\":[\"a\",\"b\",null]}", "argv[2]", "string");
	BAD(s, "{\"argv\":[[\"a\"]]}", "argv[0]", "string", "array");

	BAD(s, "{\"argv\":[\"a\"],\"fromPaneId\":\"1\"}", "fromPaneId",
	    "must match ^%\\d+$", "\"1\"");
	BAD(s, "{\"argv\":[\"a\"],\"fromPaneId\":\"%x\"}", "fromPaneId",
	    "\"%x\"");
	OK(s, "{\"argv\":[\"a\"],\"fromPaneId\":\"%12\"}");
	BAD(s, "{\"argv\":[\"a\"],\"fromPaneId\":\"%\"}", "fromPaneId");
	BAD(s, "{\"argv\":[\"a\"],\"fromPaneId\":\"%12x\"}", "fromPaneId");
	BAD(s, "{\"argv\":[\"a\"],\"fromPaneId\":\"x%12\"}", "fromPaneId");
	BAD(s, "{\"argv\":[\"a\"],\"fromPaneId\":\"%12\\n\"}", "fromPaneId");
	BAD(s, "{\"argv\":[\"a\"],\"fromPaneId\":\"%1\\u00002\"}",
	    "fromPaneId");
	BAD(s, "{\"argv\":[\"a\"],\"fromPaneId\":12}", "fromPaneId",
	    "must be a string (got number)");

	BAD(s, "{\"argv\":[\"a\"],\"placement\":\"tab\"}",
	    "placement: must be one of \"window\", \"split\" (got \"tab\")");
	BAD(s, "{\"argv\":[\"a\"],\"placement\":\"Window\"}", "placement");
	BAD(s, "{\"argv\":[\"a\"],\"placement\":1}", "placement", "string");

	BAD(s, "{\"argv\":[\"a\"],\"width\":0}",
	    "width: must be greater than 0 (got 0)");
	BAD(s, "{\"argv\":[\"a\"],\"width\":-1}", "width",
	    "greater than 0", "-1");
	BAD(s, "{\"argv\":[\"a\"],\"width\":10001}",
	    "width: must be at most 10000 (got 10001)");
	BAD(s, "{\"argv\":[\"a\"],\"width\":1.5}",
	    "width: must be an integer (got 1.5)");
	BAD(s, "{\"argv\":[\"a\"],\"width\":\"80\"}", "width",
	    "must be an integer (got string)");
	BAD(s, "{\"argv\":[\"a\"],\"width\":1.00001e4}", "width", "integer");
	BAD(s, "{\"argv\":[\"a\"],\"width\":true}", "width", "boolean");
	BAD(s, "{\"argv\":[\"a\"],\"height\":0}", "height", "greater than 0");
	BAD(s, "{\"argv\":[\"a\"],\"height\":-0.0}", "height");
	BAD(s, "{\"argv\":[\"a\"],\"lifetimeMs\":0}", "lifetimeMs",
	    "greater than 0");
	BAD(s, "{\"argv\":[\"a\"],\"lifetimeMs\":9007199254740992}",
	    "lifetimeMs", "at most 9007199254740991");
	BAD(s, "{\"argv\":[\"a\"],\"lifetimeMs\":9007199254740993}",
	    "lifetimeMs", "at most");
	BAD(s, "{\"argv\":[\"a\"],\"lifetimeMs\":1e400}", "lifetimeMs",
	    "integer");
	BAD(s, "{\"argv\":[\"a\"],\"startDirectory\":[]}", "startDirectory",
	    "string");
	BAD(s, "[]", "(root)", "must be an object (got array)");
	BAD(s, "null", "(root)", "object");
}

/* read_program's inputSchema. */
static void
test_read_input(void **state)
{
	const struct json	*s;
	char			*t;

	(void)state;
	s = json_get(json_root(read_doc), "inputSchema");
	OK(s, "{\"programId\":\"p1\"}");
	OK(s, "{\"programId\":\"p1\",\"cursor\":0,\"timeoutMs\":0,"
	    "\"maxLines\":1}");
	OK(s, "{\"programId\":\"p1\",\"cursor\":9007199254740991}");
	BAD(s, "{}", "(root): missing required field \"programId\"");
	BAD(s, "{\"programId\":\"\"}", "programId",
	    "must be at least 1 character long", "\"\"");
	t = repeat("a", 64, "{\"programId\":\"", "\"}");
	OK(s, t);
	free(t);
	t = repeat("a", 65, "{\"programId\":\"", "\"}");
	BAD(s, t, "programId: must be at most 64 characters long (got 65)");
	free(t);
	/* lengths are code points: 64 two-byte characters are fine */
	t = repeat("\xc3\xa9", 64, "{\"programId\":\"", "\"}");
	OK(s, t);
	free(t);
	t = repeat("\\u00e9", 65, "{\"programId\":\"", "\"}");
	BAD(s, t, "programId", "at most 64");
	free(t);
	t = repeat("\xf0\x9f\x98\x80", 64, "{\"programId\":\"", "\"}");
	OK(s, t);
	free(t);
	BAD(s, "{\"programId\":7}", "programId", "must be a string");
	BAD(s, "{\"programId\":\"p\",\"cursor\":-1}",
	    "cursor: must be at least 0 (got -1)");
	BAD(s, "{\"programId\":\"p\",\"cursor\":\"0\"}", "cursor", "integer");
	BAD(s, "{\"programId\":\"p\",\"timeoutMs\":1.5}",
	    "timeoutMs: must be an integer (got 1.5)");
	BAD(s, "{\"programId\":\"p\",\"timeoutMs\":-5}", "timeoutMs",
	    "at least 0");
	BAD(s, "{\"programId\":\"p\",\"maxLines\":0}", "maxLines",
	    "greater than 0");
	BAD(s, "{\"programId\":\"p\",\"maxLines\":null}", "maxLines",
	    "integer", "null");
}

/* A read_program result with one field replaced (or removed, or added). */
static char *
read_result(const char *field, const char *value)
{
	static const char *const fields[][2] = {
		{ "cursor", "12" }, { "effectiveTimeoutMs", "30000" },
		{ "ended", "false" }, { "exitStatus", "null" },
		{ "lostEnd", "false" }, { "outcome", "\"running\"" },
		{ "outputComplete", "false" }, { "outputCut", "false" },
		{ "signal", "null" }, { "text", "\"hello\\n\"" }
	};
	char	*s = malloc(4096), *p = s;
	size_t	 i;
	int	 found = 0;

	p += sprintf(p, "{");
	for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		const char *v = fields[i][1];

		if (field != NULL && strcmp(field, fields[i][0]) == 0) {
			found = 1;
			if ((v = value) == NULL)
				continue;
		}
		p += sprintf(p, "%s\"%s\":%s", p == s + 1 ? "" : ",",
		    fields[i][0], v);
	}
	if (field != NULL && !found)
		p += sprintf(p, ",\"%s\":%s", field, value);
	sprintf(p, "}");
	return (s);
}

/* read_program's outputSchema. */
static void
test_read_output(void **state)
{
	const struct json	*s;
	char			*t;

	(void)state;
	s = json_get(json_root(read_doc), "outputSchema");
#define R_OK(f, v) do { t = read_result(f, v); OK(s, t); free(t); } while (0)
#define R_BAD(f, v, ...) do {						\
	t = read_result(f, v); BAD(s, t, __VA_ARGS__); free(t);		\
} while (0)
	R_OK(NULL, NULL);
	R_OK("exitStatus", "0");
	R_OK("exitStatus", "127");
	R_OK("exitStatus", "-1");
	R_BAD("exitStatus", "\"x\"", "exitStatus", "anyOf",
	    "must be an integer (got string)", "must be null");
	R_BAD("exitStatus", "1.5", "exitStatus", "anyOf");
	R_BAD("exitStatus", "false", "exitStatus", "boolean");
	R_OK("signal", "\"SIGTERM\"");
	R_OK("signal", "null");
	R_BAD("signal", "9", "signal: must be a string or null (got number)");
	R_OK("outcome", "\"not_started\"");
	R_OK("outcome", "\"gone\"");
	R_BAD("outcome", "\"finished\"", "outcome", "must be one of",
	    "\"running\"", "\"finished\"");
	R_BAD("outcome", "null", "outcome", "string");
	R_BAD("text", NULL, "(root): missing required field \"text\"");
	R_BAD("cursor", NULL, "missing required field \"cursor\"");
	R_BAD("signal", NULL, "missing required field \"signal\"");
	R_BAD("extra", "1", "(root): unknown field \"extra\"");
	R_BAD("Text", "\"x\"", "unknown field \"Text\"");
	R_BAD("ended", "\"yes\"", "ended: must be a boolean (got string)");
	R_BAD("cursor", "-9007199254740992", "cursor",
	    "at least -9007199254740991");
	R_BAD("text", "1", "text", "string");
#undef R_OK
#undef R_BAD
	BAD(s, "{}", "(root)", "missing required field");
}

/* start_program's outputSchema. */
static void
test_start_output(void **state)
{
	const struct json	*s;

	(void)state;
	s = json_get(json_root(start_doc), "outputSchema");
	OK(s, "{\"effectiveLifetimeMs\":600000,\"paneId\":\"%3\","
	    "\"programId\":\"p-1\"}");
	BAD(s, "{\"effectiveLifetimeMs\":600000,\"paneId\":\"3\","
	    "\"programId\":\"p-1\"}", "paneId", "must match");
	BAD(s, "{\"effectiveLifetimeMs\":600000,\"paneId\":\"%3\"}",
	    "missing required field \"programId\"");
	BAD(s, "{\"effectiveLifetimeMs\":600000,\"paneId\":\"%3\","
	    "\"programId\":\"p\",\"pid\":1}", "unknown field \"pid\"");
	BAD(s, "{\"effectiveLifetimeMs\":6e5,\"paneId\":\"%3\","
	    "\"programId\":\"p\",\"x\\u0000y\":1}", "unknown field",
	    "\"x\\u0000y\"");
	BAD(s, "{\"effectiveLifetimeMs\":0.5,\"paneId\":\"%3\","
	    "\"programId\":\"p\"}", "effectiveLifetimeMs", "integer");
}

/* Patterns in the ECMA-262 flavour of the one engine (pattern.c):
 * anchors, literals, \d, classes, ? * +, and what ECMA-262 adds. */
static void
test_patterns(void **state)
{
	static const struct {
		const char	*pattern;	/* as JSON string contents */
		const char	*value;		/* as JSON string contents */
		int		 match;
	} cases[] = {
		{ "^%\\\\d+$", "%12", 1 },
		{ "^%\\\\d+$", "%", 0 },
		{ "^%\\\\d+$", "12", 0 },
		{ "^%\\\\d+$", "%1a", 0 },
		{ "^%\\\\d+$", "x%1", 0 },
		{ "^%\\\\d+$", "%1\\n", 0 },		/* $ is the very end */
		{ "^%\\\\d+$", "%\xd9\xa3", 0 },	/* \d is ASCII only */
		{ "abc", "xxabcxx", 1 },		/* not anchored */
		{ "abc", "ab", 0 },
		{ "^abc", "abcx", 1 },
		{ "^abc", "xabc", 0 },
		{ "abc$", "xabc", 1 },
		{ "abc$", "abcx", 0 },
		{ "^[a-z_][a-z0-9_]*$", "snake_case1", 1 },
		{ "^[a-z_][a-z0-9_]*$", "1abc", 0 },
		{ "^[a-z_][a-z0-9_]*$", "", 0 },
		{ "^a?b$", "b", 1 },
		{ "^a?b$", "ab", 1 },
		{ "^a?b$", "aab", 0 },
		{ "^a*b*$", "", 1 },
		{ "^a*b*$", "aabbb", 1 },
		{ "^a*b*$", "aba", 0 },
		{ "^a+$", "", 0 },
		{ "^a*a*a*a*a*a*a*a*a*a*a*a*b$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaac", 0 },
		{ "^[^a]$", "\xc3\xa9", 1 },		/* one code point */
		{ "^[^a]$", "\xf0\x9f\x98\x80", 1 },
		{ "^[^a]$", "a", 0 },
		{ "^[^a]$", "bc", 0 },
		{ "^[^\\\\d]+$", "abc", 1 },
		{ "^[^\\\\d]+$", "a1", 0 },
		{ "^[\\\\d_-]+$", "1-2_3", 1 },
		{ "^[-a]$", "-", 1 },
		{ "^[a-]$", "-", 1 },
		{ "^[\\\\]\\\\[]+$", "][", 1 },
		{ "^[\\\\^]$", "^", 1 },
		{ "^\\\\.\\\\$\\\\^$", ".$^", 1 },
		{ "^\\\\.$", "x", 0 },
		{ "^a/b-c$", "a/b-c", 1 },
		{ "^a$", "a\\u0000", 0 },		/* NUL is a character */
		{ "^a[^b]c$", "a\\u0000c", 1 },
		{ "b", "a\\u0000b", 1 },
		{ "", "anything", 1 },
		{ "^$", "", 1 },
		{ "^$", "x", 0 },
		{ "^\\\\w+$", "snake_case1", 1 },	/* not in the old */
		{ "^\\\\w+$", "a-b", 0 },
		{ "^(?:ab|cd){2}$", "abcd", 1 },
		{ "^(?:ab|cd){2}$", "abc", 0 },
		{ "^a.c$", "a\\u00e9c", 1 },
		{ "^\\\\u0041$", "A", 1 },		/* ECMA's \u */
		{ "^\\\\u{1F600}$", "\\ud83d\\ude00", 1 },
		{ "\\\\bword\\\\b", "a word here", 1 },
		{ "\\\\bword\\\\b", "swordfish", 0 },
		{ "^(?=.*\\\\d)\\\\w+$", "abc1", 1 },	/* lookahead */
		{ "^(?=.*\\\\d)\\\\w+$", "abc", 0 },
		{ "^[]$", "", 0 },			/* [] matches nothing */
		{ "^[^]$", "x", 1 },			/* [^] anything */
	};
	char	schema[256], inst[256];
	size_t	i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(schema, sizeof schema,
		    "{\"type\":\"string\",\"pattern\":\"%s\"}",
		    cases[i].pattern);
		snprintf(inst, sizeof inst, "\"%s\"", cases[i].value);
		check_text(schema, inst, cases[i].match, "must match");
	}
}

/* Patterns that do not compile are refused by schema_check and are
 * schema errors for jschema_validate, never a silent pass. */
static void
test_patterns_unsupported(void **state)
{
	static const char *const bad[] = {
		"[a", "[z-a]", "\\\\", "*a", "+", "?", "(a", "a)", "a**",
		"\\\\C", "(?<", "x{2,1}", "\\\\1", "(?P<n>a)(?P<n>b)",
		"(?:[[:alpha:]]{1,1000}){1,2000}"	/* compiled size */
	};
	char		 schema[160], *cause;
	struct json_doc	*s, *v;
	size_t		 i;

	(void)state;
	v = parse("\"a\"");
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(schema, sizeof schema, "{\"pattern\":\"%s\"}", bad[i]);
		s = parse(schema);
		cause = NULL;
		if (jschema_validate(json_root(s), json_root(v), &cause) == 0)
			fail_msg("pattern %s accepted", bad[i]);
		assert_non_null(strstr(cause, "pattern"));
		free(cause);
		if (schema_check(json_root(s), &cause) == 0)
			fail_msg("schema_check accepted pattern %s", bad[i]);
		assert_non_null(strstr(cause, "pattern"));
		free(cause);
		json_doc_free(s);
	}
	json_doc_free(v);
}

/* anyOf: one alternative is enough; if none matches, each says why. */
static void
test_anyof(void **state)
{
	static const char any[] =
	    "{\"anyOf\":[{\"type\":\"string\",\"maxLength\":2},"
	    "{\"type\":\"integer\"}]}";

	(void)state;
	check_text(any, "\"ab\"", 1, NULL);
	check_text(any, "3", 1, NULL);
	check_text(any, "\"abc\"", 0, "at most 2 characters");
	check_text(any, "1.5", 0, "must match one of the anyOf alternatives");
	check_text("{\"properties\":{\"a\":{\"anyOf\":[{\"properties\":{\"b\":"
	    "{\"type\":\"string\"}}}]}}}", "{\"a\":{\"b\":1}}", 0,
	    "a.b: must be a string");
}

/* enum compares by value (1 == 1.0). */
static void
test_enum(void **state)
{
	(void)state;
	check_text("{\"enum\":[1,2]}", "1.0", 1, NULL);
	check_text("{\"enum\":[1,2]}", "2e0", 1, NULL);
	check_text("{\"enum\":[1,2]}", "3", 0, "must be one of 1, 2 (got 3)");
	check_text("{\"enum\":[1,2]}", "\"1\"", 0, "one of");
	check_text("{\"enum\":[null,[1],{\"a\":true}]}", "{\"a\":true}", 1,
	    NULL);
	check_text("{\"enum\":[null,[1],{\"a\":true}]}", "[1,2]", 0, "one of");
}

/* minLength and maxLength count code points. */
static void
test_lengths(void **state)
{
	static const char s[] = "{\"minLength\":2,\"maxLength\":3}";

	(void)state;
	check_text(s, "\"\xc3\xa9\"", 0, "at least 2 characters");
	check_text(s, "\"\xc3\xa9\xc3\xa9\"", 1, NULL);
	check_text(s, "\"\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\"",
	    1, NULL);
	check_text(s, "\"\\ud83d\\ude00\\ud83d\\ude00\"", 1, NULL);
	check_text(s, "\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\"", 0,
	    "at most 3 characters long (got 4)");
	check_text(s, "\"a\\u0000\"", 1, NULL);
	check_text(s, "1", 1, NULL);	/* not a string: rule does not apply */
	check_text("{\"maxLength\":1}", "\"\\ud800\"", 1, NULL);
}

/* Deep paths, type lists, numbers, additionalProperties, long values. */
static void
test_structure(void **state)
{
	char	*t;

	(void)state;
	check_text("{\"properties\":{\"a\":{\"properties\":{\"b\":{\"items\":"
	    "{\"type\":\"string\"}}}}}}", "{\"a\":{\"b\":[\"x\",1]}}", 0,
	    "a.b[1]: must be a string (got number)");
	check_text("{\"items\":{\"items\":{\"type\":\"null\"}}}",
	    "[[null],[null,0]]", 0, "[1][1]: must be null (got number)");
	check_text("{\"type\":[\"string\",\"null\"]}", "null", 1, NULL);
	check_text("{\"type\":[\"string\",\"integer\",\"null\"]}", "[]", 0,
	    "must be a string, an integer or null (got array)");
	check_text("{\"type\":\"number\"}", "1e400", 1, NULL);
	check_text("{\"type\":\"integer\"}", "12345678901234567890", 1, NULL);
	check_text("{\"type\":\"integer\"}", "1.0", 1, NULL);
	check_text("{\"exclusiveMinimum\":0}", "0", 0,
	    "must be greater than 0 (got 0)");
	check_text("{\"exclusiveMinimum\":0}", "0.001", 1, NULL);
	check_text("{\"minimum\":-1.5}", "-1.5", 1, NULL);
	check_text("{\"minimum\":-1.5}", "-1.50001", 0, "at least -1.5");
	check_text("{\"maximum\":9007199254740991}", "9007199254740992", 0,
	    "at most 9007199254740991");
	check_text("{\"additionalProperties\":false,\"properties\":{\"a\":{}}}",
	    "{\"a\":1,\"b\":2}", 0, "(root): unknown field \"b\"");
	check_text("{\"additionalProperties\":true,\"properties\":{\"a\":{}}}",
	    "{\"a\":1,\"b\":2}", 1, NULL);
	check_text("{\"minItems\":1,\"maxItems\":2}", "[]", 0,
	    "at least 1 item (got 0)");
	check_text("{\"minItems\":1,\"maxItems\":2}", "[1,2,3]", 0,
	    "at most 2 items (got 3)");
	/* annotations are ignored */
	check_text("{\"$schema\":\"x\",\"title\":\"t\",\"description\":\"d\"}",
	    "1", 1, NULL);
	/* a keyword we do not implement is a schema error, not ignored */
	check_text("{\"const\":1}", "1", 0, "\"const\", which is not supported");
	check_text("{\"properties\":{\"a\":{\"multipleOf\":2}}}", "{\"a\":3}",
	    0, "a: the schema here uses \"multipleOf\"");
	check_text("true", "1", 0, "not an object");
	/* long values are cut short in messages */
	t = repeat("a", 1000, "\"", "\"");
	check_text("{\"enum\":[\"b\"]}", t, 0, "...");
	{
		struct json_doc	*s = parse("{\"enum\":[\"b\"]}"), *v = parse(t);
		char		*cause;

		assert_int_equal(jschema_validate(json_root(s), json_root(v),
		    &cause), -1);
		assert_true(strlen(cause) < 200);
		free(cause);
		assert_int_equal(jschema_validate(json_root(s), json_root(v),
		    NULL), -1);
		json_doc_free(s);
		json_doc_free(v);
	}
	free(t);
}

/* Check a schema text with schema_check. */
static void
check_schema(const char *schema, int ok, const char *want)
{
	struct json_doc	*d = parse(schema);
	char		*cause = NULL;
	int		 r;

	r = schema_check(json_root(d), &cause);
	if (ok) {
		if (r != 0)
			fail_msg("%s: %s", schema, cause);
		assert_null(cause);
	} else {
		if (r == 0)
			fail_msg("%s: accepted", schema);
		if (want != NULL && strstr(cause, want) == NULL)
			fail_msg("%s: \"%s\" lacks \"%s\"", schema, cause,
			    want);
		free(cause);
	}
	json_doc_free(d);
}

/* schema_check: the seeds pass; what we do not implement is refused. */
static void
test_check(void **state)
{
	static const char *const names[] = { "inputSchema", "outputSchema" };
	const struct json	*meta;
	char			*cause;
	size_t			 i;

	(void)state;
	for (i = 0; i < 2; i++) {
		assert_int_equal(schema_check(json_get(json_root(start_doc),
		    names[i]), &cause), 0);
		assert_int_equal(schema_check(json_get(json_root(read_doc),
		    names[i]), &cause), 0);
		meta = json_get(json_get(json_root(read_doc), "meta"),
		    "com.git-pull.libtmux-mcp/capability");
		assert_int_equal(schema_check(json_get(meta, names[i]),
		    &cause), 0);
	}
	check_schema("{\"$ref\":\"#/definitions/x\"}", 0, "\"$ref\"");
	check_schema("{\"properties\":{\"a\":{\"$ref\":\"#\"}}}", 0,
	    "#/properties/a: unsupported keyword \"$ref\"");
	check_schema("{\"properties\":{\"a\":{\"items\":{\"patternProperties\":"
	    "{}}}}}", 0, "#/properties/a/items: unsupported keyword "
	    "\"patternProperties\"");
	check_schema("{\"anyOf\":[{},{\"multipleOf\":2}]}", 0,
	    "#/anyOf/1: unsupported keyword \"multipleOf\"");
	check_schema("{\"requird\":[\"a\"]}", 0,
	    "unsupported keyword \"requird\"");
	check_schema("{\"oneOf\":[{}]}", 0, "unsupported keyword \"oneOf\"");
	check_schema("{\"const\":1}", 0, "unsupported keyword \"const\"");
	check_schema("{\"exclusiveMaximum\":1}", 0, "\"exclusiveMaximum\"");
	check_schema("{\"uniqueItems\":true}", 0, "\"uniqueItems\"");
	check_schema("{\"default\":1}", 0, "\"default\"");
	check_schema("{\"type\":\"strin\"}", 0, "unknown type");
	check_schema("{\"type\":[]}", 0, "\"type\"");
	check_schema("{\"type\":7}", 0, "\"type\"");
	check_schema("{\"minLength\":-1}", 0, "non-negative integer");
	check_schema("{\"maxItems\":1.5}", 0, "non-negative integer");
	check_schema("{\"exclusiveMinimum\":true}", 0, "\"exclusiveMinimum\"");
	check_schema("{\"maximum\":\"10\"}", 0, "\"maximum\"");
	check_schema("{\"items\":[{}]}", 0, "#/items");
	check_schema("{\"required\":[1]}", 0, "\"required\"");
	check_schema("{\"properties\":[]}", 0, "\"properties\"");
	check_schema("{\"properties\":{\"a\":1}}", 0, "#/properties/a");
	check_schema("{\"enum\":[]}", 0, "\"enum\"");
	check_schema("{\"anyOf\":{}}", 0, "\"anyOf\"");
	check_schema("{\"additionalProperties\":{}}", 0,
	    "\"additionalProperties\"");
	check_schema("{\"pattern\":\"^\\\\w+(\"}", 0, "pattern");
	check_schema("{\"pattern\":\"^\\\\w+$\"}", 1, NULL);
	check_schema("[]", 0, "must be an object");
	check_schema("true", 0, "must be an object");
	check_schema("{}", 1, NULL);
	check_schema("{\"$schema\":\"http://json-schema.org/draft-07/schema#\","
	    "\"title\":\"t\",\"description\":\"d\","
	    "\"type\":\"object\",\"additionalProperties\":false,"
	    "\"properties\":{\"a\":{\"type\":[\"integer\",\"null\"],"
	    "\"minimum\":0,\"exclusiveMinimum\":-1,\"maximum\":5}},"
	    "\"required\":[\"a\"],\"enum\":[{}],\"anyOf\":[{}],"
	    "\"items\":{\"pattern\":\"^[a-z]\\\\d*$\"},\"minItems\":0,"
	    "\"maxItems\":1,\"minLength\":0,\"maxLength\":1}", 1, NULL);
}

/* Are two schemas the same but for their descriptions and titles? */
static int
same_rules(const struct json *a, const struct json *b)
{
	const char	*k;
	size_t		 i, n, na = 0, nb = 0;

	if (json_type(a) != JSON_OBJECT || json_type(b) != JSON_OBJECT)
		return (json_equal(a, b));
	for (i = 0; i < json_len(a); i++) {
		k = json_key_at(a, i, &n);
		if (strcmp(k, "description") == 0 || strcmp(k, "title") == 0)
			continue;
		na++;
		if (!same_rules(json_at(a, i), json_getn(b, k, n)))
			return (0);
	}
	for (i = 0; i < json_len(b); i++) {
		k = json_key_at(b, i, &n);
		nb += (strcmp(k, "description") != 0 && strcmp(k, "title") != 0);
	}
	return (na == nb);
}

/*
 * Does a served schema keep a seed's? The same rules (descriptions and
 * titles aside), except that its properties may add optional ones: every
 * seed property is there with the same rules, and the required list (like
 * every other keyword) is the seed's exactly, so what is added is never
 * required.
 */
static int
keeps_seed(const struct json *ours, const struct json *seed)
{
	const struct json	*op, *sp;
	const char		*k;
	size_t			 i, n;

	for (i = 0; i < json_len(ours); i++) {
		k = json_key_at(ours, i, &n);
		if (strcmp(k, "description") == 0 || strcmp(k, "title") == 0 ||
		    strcmp(k, "properties") == 0)
			continue;
		if (!same_rules(json_at(ours, i), json_getn(seed, k, n)))
			return (0);
	}
	for (i = 0; i < json_len(seed); i++) {
		k = json_key_at(seed, i, &n);
		if (strcmp(k, "description") != 0 && strcmp(k, "title") != 0 &&
		    json_getn(ours, k, n) == NULL)
			return (0);
	}
	op = json_get(ours, "properties");
	sp = json_get(seed, "properties");
	if ((op == NULL) != (sp == NULL))
		return (0);
	for (i = 0; sp != NULL && i < json_len(sp); i++) {
		k = json_key_at(sp, i, &n);
		if (!same_rules(json_getn(op, k, n), json_at(sp, i)))
			return (0);
	}
	return (1);
}

/*
 * Every schemas/NAME.json (what the server embeds and serves) passes
 * schema_check, input and output schema, in the tool and in its _meta
 * copy, so start-up need not check them; and start_program and
 * read_program keep the seeds' rules (their descriptions may differ, and
 * they may add optional properties).
 */
static void
test_schema_files(void **state)
{
	static const char *const names[] = { "inputSchema", "outputSchema" };
	const struct json	*root, *meta, *sch;
	struct json_doc		*d;
	const char		*tool;
	char			*cause;
	glob_t			 g;
	size_t			 i, j, seeds = 0;

	(void)state;
	/* Tests run from the repository root. */
	assert_int_equal(glob("schemas/*.json", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 7);
	for (i = 0; i < g.gl_pathc; i++) {
		d = load_fixture(g.gl_pathv[i]);
		root = json_root(d);
		tool = json_str(json_get(root, "name"), NULL);
		assert_non_null(tool);
		meta = json_get(json_get(root, "_meta"),
		    "io.progmux/capability");
		for (j = 0; j < 2; j++) {
			sch = json_get(root, names[j]);
			assert_non_null(sch);
			cause = NULL;
			if (schema_check(sch, &cause) != 0)
				fail_msg("%s %s: %s", g.gl_pathv[i], names[j],
				    cause);
			assert_true(json_equal(sch, json_get(meta, names[j])));
		}
		if (strcmp(tool, "start_program") == 0 ||
		    strcmp(tool, "read_program") == 0) {
			seeds++;
			sch = json_root(tool[0] == 's' ? start_doc : read_doc);
			assert_true(json_equal(json_get(root, "name"),
			    json_get(sch, "name")));
			assert_true(json_equal(json_get(root, "annotations"),
			    json_get(sch, "annotations")));
			for (j = 0; j < 2; j++) {
				if (!keeps_seed(json_get(root, names[j]),
				    json_get(sch, names[j])))
					fail_msg("%s: %s differs from the "
					    "seed's", g.gl_pathv[i], names[j]);
			}
		}
		json_doc_free(d);
	}
	assert_int_equal(seeds, 2);
	globfree(&g);
	/* The check can fail: a seed property dropped, or an addition made
	 * required, is caught. */
	{
		struct json_doc	*a, *b, *c2;

		a = parse("{\"type\":\"object\",\"properties\":{"
		    "\"x\":{\"type\":\"integer\"}},\"required\":[\"x\"]}");
		b = parse("{\"type\":\"object\",\"properties\":{"
		    "\"x\":{\"type\":\"integer\"},\"y\":{}},\"required\":"
		    "[\"x\",\"y\"]}");
		c2 = parse("{\"type\":\"object\",\"properties\":{"
		    "\"y\":{}},\"required\":[\"x\"]}");
		assert_true(keeps_seed(json_root(a), json_root(a)));
		assert_false(keeps_seed(json_root(b), json_root(a)));
		assert_false(keeps_seed(json_root(c2), json_root(a)));
		json_doc_free(a);
		json_doc_free(b);
		json_doc_free(c2);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start_input),
		cmocka_unit_test(test_read_input),
		cmocka_unit_test(test_read_output),
		cmocka_unit_test(test_start_output),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_patterns_unsupported),
		cmocka_unit_test(test_anyof),
		cmocka_unit_test(test_enum),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_schema_files),
	};

	return (cmocka_run_group_tests(tests, setup, teardown));
}
