/*
 * test_json.c — the JSON reader and writer (server/json.c).
 *
 * Reading: every escape, surrogates (paired, lone, reversed), NUL inside
 * strings, what jsmn lets through and we must refuse (number grammar,
 * literals, missing or doubled commas and colons, raw control characters,
 * invalid UTF-8, trailing data), depth at and past the limit, huge numbers,
 * every prefix of valid documents, big inputs. Writing: complete escaping,
 * invalid UTF-8 replaced by U+FFFD per maximal subpart (checked against an
 * independent decoder on random bytes), commas in nested structures,
 * numbers, and jw_value round trips.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* Parse text (NUL-terminated) or fail the test. */
static struct json_doc *
parse_ok(const char *text)
{
	struct json_doc	*d;
	char		*cause = NULL;

	d = json_parse(text, strlen(text), &cause);
	if (d == NULL)
		fail_msg("parse failed for [%s]: %s", text, cause);
	assert_null(cause);
	return (d);
}

/* Parse n bytes that must be refused, with a cause containing want. */
static void
parse_failn(const char *text, size_t n, const char *want)
{
	struct json_doc	*d;
	char		*cause = NULL;

	d = json_parse(text, n, &cause);
	if (d != NULL) {
		json_doc_free(d);
		fail_msg("parse accepted [%.*s]", (int)n, text);
	}
	assert_non_null(cause);
	if (want != NULL && strstr(cause, want) == NULL)
		fail_msg("[%.*s]: cause \"%s\" lacks \"%s\"", (int)n, text,
		    cause, want);
	free(cause);
}

/* The same for a NUL-terminated text. */
static void
parse_fail(const char *text, const char *want)
{
	parse_failn(text, strlen(text), want);
}

/* Parse a JSON string literal and compare its unescaped bytes. */
static void
check_string(const char *text, const char *want, size_t wantlen)
{
	struct json_doc	*d = parse_ok(text);
	const char	*s;
	size_t		 len;

	assert_int_equal(json_type(json_root(d)), JSON_STRING);
	s = json_str(json_root(d), &len);
	assert_int_equal(len, wantlen);
	assert_memory_equal(s, want, wantlen);
	assert_int_equal(s[len], '\0');
	json_doc_free(d);
}

/* Serialize a parsed text compactly. */
static char *
reserialize(const char *text)
{
	struct json_doc	*d = parse_ok(text);
	struct buf	 b = BUF_INIT;
	struct jw	 w;
	char		*s;

	jw_init(&w, &b);
	jw_value(&w, json_root(d));
	s = strdup(buf_cstr(&b));
	buf_free(&b);
	json_doc_free(d);
	return (s);
}

/* Every simple escape. */
static void
test_escapes(void **state)
{
	(void)state;
	check_string("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\b\f\n\r\t", 8);
	check_string("\"plain\"", "plain", 5);
	check_string("\"\"", "", 0);
	check_string("\"a\\nb\"", "a\nb", 3);
	check_string("\"\\u0041\\u00e9\\u20AC\"", "A\xc3\xa9\xe2\x82\xac", 6);
	check_string("\"\\u007f\\u0080\\u07ff\\u0800\\uffff\"",
	    "\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf", 11);
	check_string("\"caf\xc3\xa9 \xf0\x9f\x98\x80\"",
	    "caf\xc3\xa9 \xf0\x9f\x98\x80", 10);
}

/* Surrogate pairs combine; lone or reversed ones become U+FFFD. */
static void
test_surrogates(void **state)
{
	(void)state;
	check_string("\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80", 4);
	check_string("\"\\uD83D\\uDE00\"", "\xf0\x9f\x98\x80", 4);
	check_string("\"\\ud800\\udc00\"", "\xf0\x90\x80\x80", 4);
	check_string("\"\\udbff\\udfff\"", "\xf4\x8f\xbf\xbf", 4);
	check_string("\"\\ud800\"", "\xef\xbf\xbd", 3);
	check_string("\"\\udc00\"", "\xef\xbf\xbd", 3);
	check_string("\"\\udc00\\ud800\"", "\xef\xbf\xbd\xef\xbf\xbd", 6);
	check_string("\"\\ud800x\"", "\xef\xbf\xbdx", 4);
	check_string("\"\\ud800\\u0041\"", "\xef\xbf\xbd" "A", 4);
	check_string("\"\\ud800\\n\"", "\xef\xbf\xbd\n", 4);
	check_string("\"\\ud800\\ud800\\udc00\"",
	    "\xef\xbf\xbd\xf0\x90\x80\x80", 7);
	check_string("\"a\\udfffb\"", "a\xef\xbf\xbd" "b", 5);
}

/* \u0000 is kept inside a string, which keeps its length. */
static void
test_nul_in_string(void **state)
{
	struct json_doc	*d;
	const char	*k;
	size_t		 len;

	(void)state;
	check_string("\"a\\u0000b\"", "a\0b", 3);
	check_string("\"\\u0000\"", "\0", 1);
	d = parse_ok("{\"k\\u0000x\":1,\"k\":2}");
	k = json_key_at(json_root(d), 0, &len);
	assert_int_equal(len, 3);
	assert_memory_equal(k, "k\0x", 3);
	assert_int_equal(json_int(json_getn(json_root(d), "k\0x", 3)), 1);
	assert_int_equal(json_int(json_get(json_root(d), "k")), 2);
	json_doc_free(d);
}

/* Escapes jsmn or RFC 8259 do not have are refused. */
static void
test_invalid_escapes(void **state)
{
	(void)state;
	parse_fail("\"\\x41\"", "invalid escape");
	parse_fail("\"\\a\"", "invalid escape");
	parse_fail("\"\\'\"", "invalid escape");
	parse_fail("\"\\0\"", "invalid escape");
	parse_fail("\"\\U0041\"", "invalid escape");
	parse_fail("\"\\u12\"", NULL);
	parse_fail("\"\\u12G4\"", "\\u");
	parse_fail("\"\\u-123\"", "\\u");
	parse_fail("\"\\", NULL);
	parse_fail("\"\\\"", "unterminated");
	parse_fail("[\"\\u00\"]", NULL);
	parse_fail("{\"\\q\":1}", "invalid escape");
}

/* Raw control characters are not allowed in strings; DEL is. */
static void
test_control_chars(void **state)
{
	char	s[8];
	int	c;

	(void)state;
	for (c = 1; c < 0x20; c++) {
		snprintf(s, sizeof s, "\"a%cb\"", c);
		parse_fail(s, "control character");
	}
	parse_failn("\"a\0b\"", 5, NULL);
	parse_failn("[1]\0", 4, NULL);
	parse_failn("\0", 1, NULL);
	check_string("\"\x7f\"", "\x7f", 1);
	parse_fail("{\"a\nb\":1}", "control character");
}

/* The input must be valid UTF-8. */
static void
test_invalid_utf8(void **state)
{
	static const char *const bad[] = {
		"\"\xff\"", "\"\xfe\"", "\"\xc3\"", "\"\xc3x\"",
		"\"\x80\"", "\"\xbf\"", "\"\xc0\xaf\"", "\"\xc1\xbf\"",
		"\"\xe0\x80\xaf\"", "\"\xe0\x9f\xbf\"", "\"\xed\xa0\x80\"",
		"\"\xed\xbf\xbf\"", "\"\xf0\x80\x80\xaf\"",
		"\"\xf4\x90\x80\x80\"", "\"\xf5\x80\x80\x80\"",
		"\"\xe2\x82\"", "\"\xf0\x9f\x98\"", "[\"a\",\"\xe2\x28\xa1\"]",
		"{\"\xff\":1}", "[1,\xc3\xa9]", "\xef\xbb\xbf[]"
	};
	size_t	i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (i == sizeof bad / sizeof bad[0] - 2)
			parse_fail(bad[i], NULL);	/* é outside strings */
		else if (i == sizeof bad / sizeof bad[0] - 1)
			parse_fail(bad[i], NULL);	/* a BOM is no value */
		else
			parse_fail(bad[i], "invalid UTF-8");
	}
	assert_true(utf8_valid("", 0));
	assert_true(utf8_valid("a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 10));
	assert_true(utf8_valid("\xef\xbf\xbf\xf4\x8f\xbf\xbf", 7));
	assert_false(utf8_valid("\xed\xa0\x80", 3));
	assert_false(utf8_valid("\xc0\x80", 2));
	assert_false(utf8_valid("abcdefgh\xff", 9));
	assert_true(utf8_valid("a\0b", 3));
	check_string("\"\xe2\x80\xa8\"", "\xe2\x80\xa8", 3);
}

/* Build n nested arrays (or objects) around 1. */
static char *
nested(int n, int objects)
{
	size_t	 len = (size_t)n * 8 + 8, o = 0;
	char	*s = malloc(len);
	int	 i;

	for (i = 0; i < n; i++)
		o += (size_t)sprintf(s + o, "%s", objects ? "{\"a\":" : "[");
	o += (size_t)sprintf(s + o, "1");
	for (i = 0; i < n; i++)
		s[o++] = objects ? '}' : ']';
	s[o] = '\0';
	return (s);
}

/* Nesting up to JSON_MAX_DEPTH is accepted, deeper is refused. */
static void
test_depth(void **state)
{
	struct json_doc		*d;
	const struct json	*j;
	char			*s, *big;
	size_t			 n = 8 << 20;
	int			 i;

	(void)state;
	s = nested(JSON_MAX_DEPTH, 0);
	d = parse_ok(s);
	for (i = 0, j = json_root(d); i < JSON_MAX_DEPTH; i++) {
		assert_int_equal(json_type(j), JSON_ARRAY);
		j = json_at(j, 0);
	}
	assert_int_equal(json_int(j), 1);
	json_doc_free(d);
	free(s);
	s = nested(JSON_MAX_DEPTH, 1);
	json_doc_free(parse_ok(s));
	free(s);
	s = nested(JSON_MAX_DEPTH + 1, 0);
	parse_fail(s, "nesting deeper than 128 levels at byte 128");
	free(s);
	s = nested(JSON_MAX_DEPTH + 1, 1);
	parse_fail(s, "nesting deeper than 128 levels at byte 640");
	free(s);
	/* 8 MiB of brackets: refused at once, not after a quadratic walk. */
	big = malloc(n);
	memset(big, '[', n);
	parse_failn(big, n, "nesting deeper than 128 levels at byte 128");
	for (i = 0; i < (int)n; i += 2)
		big[i] = '{', big[i + 1] = '}';
	parse_failn(big, n, "after the value");
	free(big);
}

/* Each refusal names the fault and its byte, whichever pass finds it
 * (jsmn, or our checks after it). */
static void
test_messages(void **state)
{
	static const struct {
		const char	*text;
		size_t		 len;
		const char	*cause;
	} cases[] = {
		{ "", 0, "empty input" },
		{ "  ", 2, "no value, only whitespace" },
		{ ",", 1, "unexpected ',', expected a value at byte 0" },
		{ "[1,]", 4, "trailing comma at byte 2" },
		{ "[1 2]", 5, "unexpected '2', expected ',' or ']' at byte 3" },
		{ "{\"a\" 1}", 7, "unexpected '1' at byte 5" },
		{ "{1:2}", 5, "object key is not a string at byte 1" },
		{ "{\"a\":1,[]:2}", 12, "object key is not a string at byte 7" },
		{ "\"a\":1", 5, "unexpected data after the value at byte 3" },
		{ "[1]\0", 4, "unexpected data after the value at byte 3" },
		{ "{\"a\":1}}", 8, "unexpected data after the value at byte 7" },
		{ "1 2", 3, "unexpected data after the value at byte 2" },
		{ "\"ab\\x\"", 6, "invalid escape \\x in string at byte 3" },
		{ "[\"\\u12G4\"]", 10,
		    "invalid \\u escape (four hex digits needed) in string at "
		    "byte 2" },
		{ "[\"a\x01\"]", 6, "control character U+0001 in string at byte 3" },
		{ "\"a\0b\"", 5, "control character U+0000 in string at byte 2" },
		{ "[\"\xff\"]", 5, "invalid UTF-8 at byte 2" },
		{ "[1,\xff]", 5, "invalid UTF-8 at byte 3" },
		{ "[1,\xc3\xa9]", 6, "unexpected byte 0xc3 at byte 3" },
		{ "[\"abc", 5, "unterminated string starting at byte 1" },
		{ "[1", 2, "unexpected end of input at byte 2" },
		{ "[}", 2, "unexpected '}' at byte 1" },
		{ "[1\x01]", 4, "unexpected byte 0x01 at byte 2" },
		{ "{\"a\":1 2}", 9, "unexpected '2' at byte 7" },
		{ "[1,,2]", 6, "unexpected ',', expected a value at byte 3" },
		{ "{\"a\"::1}", 8, "unexpected ':', expected a value at byte 5" },
		{ "tru", 3, "invalid literal (true, false or null expected) at "
		    "byte 0" },
		{ "[01]", 4, "invalid number at byte 1" },
	};
	struct json_doc	*d;
	char		*cause;
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cause = NULL;
		d = json_parse(cases[i].text, cases[i].len, &cause);
		if (d != NULL)
			fail_msg("case %zu accepted", i);
		if (cause == NULL || strcmp(cause, cases[i].cause) != 0)
			fail_msg("case %zu: \"%s\", wanted \"%s\"", i, cause,
			    cases[i].cause);
		free(cause);
	}
}

/* Huge, negative-zero and big-integer numbers. */
static void
test_numbers(void **state)
{
	struct json_doc		*d;
	const struct json	*j;
	const char		*raw;
	size_t			 len;

	(void)state;
	d = parse_ok("[0,-0,1e400,-1e400,12345678901234567890,"
	    "9007199254740993,-9223372036854775808,9223372036854775807,"
	    "9223372036854775808,1.0,1e3,1E+3,1.5,1e-400,100e-2,0.0,1.25e2,"
	    "1.255e2,-7,2.5e-1,1.0000000000000000001,0e5,-0.0e-7]");
	j = json_root(d);
	assert_int_equal(json_len(j), 23);
	assert_true(json_is_int(json_at(j, 0)));
	assert_int_equal(json_int(json_at(j, 0)), 0);
	/* -0 */
	assert_true(json_is_int(json_at(j, 1)));
	assert_int_equal(json_int(json_at(j, 1)), 0);
	assert_true(signbit(json_num(json_at(j, 1))));
	assert_true(json_is_integral(json_at(j, 1)));
	/* 1e400: infinite, neither int nor integral */
	assert_true(isinf(json_num(json_at(j, 2))));
	assert_true(json_num(json_at(j, 2)) > 0);
	assert_false(json_is_int(json_at(j, 2)));
	assert_false(json_is_integral(json_at(j, 2)));
	assert_int_equal(json_int(json_at(j, 2)), INT64_MAX);
	assert_true(isinf(json_num(json_at(j, 3))));
	assert_int_equal(json_int(json_at(j, 3)), INT64_MIN);
	/* 12345678901234567890: too big for int64, still integral */
	assert_false(json_is_int(json_at(j, 4)));
	assert_true(json_is_integral(json_at(j, 4)));
	assert_true(json_num(json_at(j, 4)) > 1.2e19);
	raw = json_raw(json_at(j, 4), &len);
	assert_int_equal(len, 20);
	assert_memory_equal(raw, "12345678901234567890", 20);
	/* 9007199254740993: not a double, exact as int64 and raw */
	assert_true(json_is_int(json_at(j, 5)));
	assert_true(json_int(json_at(j, 5)) == 9007199254740993LL);
	raw = json_raw(json_at(j, 5), &len);
	assert_int_equal(len, 16);
	assert_memory_equal(raw, "9007199254740993", 16);
	assert_true(json_is_int(json_at(j, 6)));
	assert_true(json_int(json_at(j, 6)) == INT64_MIN);
	assert_true(json_is_int(json_at(j, 7)));
	assert_true(json_int(json_at(j, 7)) == INT64_MAX);
	assert_false(json_is_int(json_at(j, 8)));
	assert_true(json_is_integral(json_at(j, 8)));
	/* 1.0, 1e3, 1E+3: integral, not int tokens */
	assert_false(json_is_int(json_at(j, 9)));
	assert_true(json_is_integral(json_at(j, 9)));
	assert_int_equal(json_int(json_at(j, 9)), 1);
	assert_true(json_is_integral(json_at(j, 10)));
	assert_int_equal(json_int(json_at(j, 10)), 1000);
	assert_true(json_is_integral(json_at(j, 11)));
	assert_false(json_is_integral(json_at(j, 12)));
	assert_true(json_num(json_at(j, 12)) == 1.5);
	/* 1e-400 underflows to 0 but is not an integer */
	assert_false(json_is_integral(json_at(j, 13)));
	assert_true(json_is_integral(json_at(j, 14)));
	assert_true(json_is_integral(json_at(j, 15)));
	assert_true(json_is_integral(json_at(j, 16)));
	assert_false(json_is_integral(json_at(j, 17)));
	assert_true(json_is_int(json_at(j, 18)));
	assert_int_equal(json_int(json_at(j, 18)), -7);
	assert_true(json_num(json_at(j, 19)) == 0.25);
	assert_false(json_is_integral(json_at(j, 20)));
	assert_true(json_is_integral(json_at(j, 21)));
	assert_true(json_is_integral(json_at(j, 22)));
	json_doc_free(d);

	/* A number alone is a document, and keeps its raw text. */
	d = parse_ok(" 9007199254740993 ");
	raw = json_raw(json_root(d), &len);
	assert_int_equal(len, 16);
	assert_memory_equal(raw, "9007199254740993", 16);
	json_doc_free(d);
}

/* What RFC 8259 does not call a number is refused, alone or inside. */
static void
test_number_grammar(void **state)
{
	static const char *const bad[] = {
		"01", "-01", "00", "+1", ".5", "1.", "1e", "1e+", "1E-", "-",
		"--1", "0x10", "1.e5", "1.5e", "NaN", "Infinity", "-Infinity",
		"1_000", "1e5.5", "0.", "-.5", "1ee5", "1..2", "0-1", "1-"
	};
	static const char *const good[] = {
		"0", "-0", "1", "-1", "0.5", "-0.5", "1e5", "1E5", "1e+5",
		"1e-5", "1.5e10", "123456789", "0e0", "-0.0E-0"
	};
	char	s[64];
	size_t	i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		parse_fail(bad[i], NULL);
		snprintf(s, sizeof s, "[%s]", bad[i]);
		parse_fail(s, NULL);
		snprintf(s, sizeof s, "{\"a\":%s}", bad[i]);
		parse_fail(s, NULL);
		snprintf(s, sizeof s, "[1, %s ]", bad[i]);
		parse_fail(s, NULL);
	}
	for (i = 0; i < sizeof good / sizeof good[0]; i++) {
		json_doc_free(parse_ok(good[i]));
		snprintf(s, sizeof s, "[%s,%s]", good[i], good[i]);
		json_doc_free(parse_ok(s));
	}
	parse_fail("[01]", "invalid number");
}

/* Literals must be exactly true, false or null. */
static void
test_literals(void **state)
{
	static const char *const bad[] = {
		"tru", "True", "TRUE", "nul", "nulls", "truee", "falsey", "f",
		"[tru]", "[true1]", "{\"a\":nul}", "t", "n", "[nan]"
	};
	struct json_doc	*d;
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		parse_fail(bad[i], NULL);
	d = parse_ok("[true,false,null]");
	assert_int_equal(json_type(json_at(json_root(d), 0)), JSON_BOOL);
	assert_true(json_bool(json_at(json_root(d), 0)));
	assert_false(json_bool(json_at(json_root(d), 1)));
	assert_int_equal(json_type(json_at(json_root(d), 2)), JSON_NULL);
	json_doc_free(d);
	d = parse_ok("false");
	assert_int_equal(json_type(json_root(d)), JSON_BOOL);
	json_doc_free(d);
	d = parse_ok("null");
	assert_int_equal(json_type(json_root(d)), JSON_NULL);
	json_doc_free(d);
}

/* Every strict prefix of these documents is refused, cleanly. */
static void
test_truncated(void **state)
{
	static const char *const docs[] = {
		"{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/call\","
		    "\"params\":{\"name\":\"x\",\"arguments\":{\"argv\":"
		    "[\"a\",\"b\\n\\u00e9\\ud83d\\ude00\"],\"n\":-1.5e3}}}",
		"[1,true,false,null,\"s\",[],{},[[{}]],{\"a\":[1,{\"b\":2}]}]",
		"\"caf\xc3\xa9 \\\" \\\\ \\u20ac\"",
		"[-0.5e-7]",
		"{\"a\":{\"b\":{\"c\":[1,2,3]}}}",
		" [ 1 , 2 ] "
	};
	struct json_doc	*d;
	char		*cause;
	size_t		 i, n, len;

	(void)state;
	for (i = 0; i < sizeof docs / sizeof docs[0]; i++) {
		len = strlen(docs[i]);
		json_doc_free(parse_ok(docs[i]));
		for (n = 0; n < len; n++) {
			/* " [ 1 , 2 ]" without the final space is valid */
			if (i == 5 && n == len - 1)
				continue;
			cause = NULL;
			d = json_parse(docs[i], n, &cause);
			if (d != NULL)
				fail_msg("prefix %zu of doc %zu accepted", n,
				    i);
			assert_non_null(cause);
			free(cause);
		}
	}
	parse_fail("[1,2", "end of input");
	parse_fail("{\"a\":", "end of input");
	parse_fail("\"abc", "unterminated string");
	parse_fail("[\"abc", "unterminated string");
}

/* Nothing but whitespace may follow the value. */
static void
test_trailing(void **state)
{
	static const char *const bad[] = {
		"[1] x", "{} {}", "1 2", "\"a\"\"b\"", "[1]]", "null null",
		"{}}", "[],", "true false", "1,", "\"a\" 1", "[] []", "0 0",
		"{\"a\":1},", "[1]\x01"
	};
	size_t	i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		parse_fail(bad[i], NULL);
	parse_fail("[1] x", "after the value");
	json_doc_free(parse_ok("[1] \n\t\r"));
	json_doc_free(parse_ok("1\n"));
}

/* Structure that jsmn lets through but JSON does not have. */
static void
test_structure(void **state)
{
	static const char *const bad[] = {
		"[1,]", "[,1]", "[1 2]", "{\"a\" 1}", "{\"a\":1,}", "{\"a\"}",
		"{1:2}", "{\"a\":1 \"b\":2}", "[\"a\":1]", "[1:2]", "{,}", ":",
		",", "[}", "{]", "]", "}", "{\"a\":}", "{\"a\"::1}", "[1,,2]",
		"{\"a\":1,,\"b\":2}", "{\"a\",1}", "[true false]",
		"{\"a\":1:2}",
		"{[]:1}", "{{}:1}", "{null:1}", "[\"a\" \"b\"]", "[[1] [2]]",
		"{\"a\":{\"b\":1}\"c\":2}", "[\"a\",:]", "{:1}", "{\"a\":[1}",
		"[{\"a\":1]", "[,]", "[", "{", "'a'", "[undefined]", "{a:1}",
		"[1,2]]", "[\"a\"]\"", "/*c*/1", "[1]//"
	};
	size_t	i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		parse_fail(bad[i], NULL);
	parse_fail("[1,]", "trailing comma");
	parse_fail("{1:2}", NULL);
	parse_fail("{\"a\"}", "':'");
	parse_fail("[1 2]", "','");
}

/* Duplicate keys: all kept, the last one wins a lookup. */
static void
test_duplicate_keys(void **state)
{
	struct json_doc	*d;

	(void)state;
	d = parse_ok("{\"a\":1,\"b\":0,\"a\":2}");
	assert_int_equal(json_len(json_root(d)), 3);
	assert_int_equal(json_int(json_get(json_root(d), "a")), 2);
	assert_int_equal(json_int(json_get(json_root(d), "b")), 0);
	assert_null(json_get(json_root(d), "c"));
	json_doc_free(d);
}

/* Empty objects and arrays, alone and nested. */
static void
test_empty_containers(void **state)
{
	struct json_doc	*d;
	char		*s;

	(void)state;
	d = parse_ok("[]");
	assert_int_equal(json_type(json_root(d)), JSON_ARRAY);
	assert_int_equal(json_len(json_root(d)), 0);
	assert_null(json_at(json_root(d), 0));
	json_doc_free(d);
	d = parse_ok(" { } ");
	assert_int_equal(json_type(json_root(d)), JSON_OBJECT);
	assert_int_equal(json_len(json_root(d)), 0);
	assert_null(json_key_at(json_root(d), 0, NULL));
	json_doc_free(d);
	s = reserialize("[ [ ] , { } , { \"a\" : [ ] , \"b\" : { } } ]");
	assert_string_equal(s, "[[],{},{\"a\":[],\"b\":{}}]");
	free(s);
}

/* JSON whitespace is allowed anywhere between tokens; nothing else is. */
static void
test_whitespace(void **state)
{
	struct json_doc	*d;

	(void)state;
	d = parse_ok(" \t\r\n{ \"a\" :\n[ 1 ,\t2 ]\r, \"b\":null } \n");
	assert_int_equal(json_len(json_get(json_root(d), "a")), 2);
	json_doc_free(d);
	parse_fail("\v[]", NULL);
	parse_fail("[\f]", NULL);
	parse_fail("[1,\xc2\xa0 2]", NULL);
	parse_fail("", "empty");
	parse_fail(" \n\t ", NULL);
	parse_failn(NULL, 0, "empty");
}

/* Raw spans: request ids echo exactly. */
static void
test_raw(void **state)
{
	struct json_doc		*d;
	const struct json	*r;
	const char		*raw;
	size_t			 len;
	char			*copy;

	(void)state;
	copy = strdup("{\"id\": \"a\\u0062\" ,\"n\":  -12.50e+1 ,"
	    "\"o\":{ \"x\" : [1, 2] }}");
	d = parse_ok(copy);
	/* The doc keeps its own copy of the text. */
	memset(copy, 'X', strlen(copy));
	free(copy);
	r = json_root(d);
	raw = json_raw(json_get(r, "id"), &len);
	assert_int_equal(len, 9);
	assert_memory_equal(raw, "\"a\\u0062\"", 9);
	assert_string_equal(json_str(json_get(r, "id"), NULL), "ab");
	raw = json_raw(json_get(r, "n"), &len);
	assert_int_equal(len, 9);
	assert_memory_equal(raw, "-12.50e+1", 9);
	raw = json_raw(json_get(r, "o"), &len);
	assert_int_equal(len, 16);
	assert_memory_equal(raw, "{ \"x\" : [1, 2] }", 16);
	json_doc_free(d);
}

/* Accessors on every type, and on the wrong type. */
static void
test_accessors(void **state)
{
	struct json_doc		*d;
	const struct json	*r;
	size_t			 len;

	(void)state;
	assert_string_equal(json_type_name(JSON_NULL), "null");
	assert_string_equal(json_type_name(JSON_BOOL), "boolean");
	assert_string_equal(json_type_name(JSON_NUMBER), "number");
	assert_string_equal(json_type_name(JSON_STRING), "string");
	assert_string_equal(json_type_name(JSON_ARRAY), "array");
	assert_string_equal(json_type_name(JSON_OBJECT), "object");
	d = parse_ok("{\"s\":\"x\",\"n\":3,\"a\":[1,2,3],\"o\":{\"k\":true}}");
	r = json_root(d);
	assert_int_equal(json_len(r), 4);
	assert_string_equal(json_key_at(r, 2, &len), "a");
	assert_int_equal(len, 1);
	assert_int_equal(json_int(json_at(json_at(r, 2), 2)), 3);
	assert_null(json_at(json_at(r, 2), 3));
	assert_true(json_bool(json_get(json_get(r, "o"), "k")));
	/* wrong types read as empty */
	assert_null(json_str(json_get(r, "n"), &len));
	assert_int_equal(len, 0);
	assert_int_equal(json_len(json_get(r, "s")), 0);
	assert_null(json_get(json_get(r, "a"), "x"));
	assert_true(json_num(json_get(r, "s")) == 0);
	assert_false(json_bool(json_get(r, "n")));
	/* a missing node reads as absent */
	assert_null(json_get(json_get(r, "missing"), "x"));
	assert_int_equal(json_len(NULL), 0);
	assert_null(json_root(NULL));
	json_doc_free(NULL);
	json_doc_free(d);
}

/* Deep equality. */
static void
test_equal(void **state)
{
	static const char *const same[][2] = {
		{ "1", "1.0" }, { "1", "1e0" }, { "100", "1e2" },
		{ "-0", "0" },
		{ "{\"a\":1,\"b\":[2]}", "{\"b\":[2.0],\"a\":1}" },
		{ "\"a\\u0000\"", "\"a\\u0000\"" }, { "[]", " [ ] " },
		{ "\"\\u00e9\"", "\"\xc3\xa9\"" }, { "null", "null" },
		{ "{\"a\":1,\"a\":2}", "{\"a\":2}" }
	};
	static const char *const differ[][2] = {
		{ "1", "2" }, { "1", "\"1\"" }, { "[1,2]", "[2,1]" },
		{ "{\"a\":1}", "{\"a\":1,\"b\":2}" },
		{ "\"a\\u0000\"", "\"a\"" },
		{ "9007199254740993", "9007199254740992" }, { "true", "false" },
		{ "null", "false" }, { "{}", "[]" },
		{ "{\"a\":1}", "{\"b\":1}" }
	};
	struct json_doc	*a, *b;
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof same / sizeof same[0]; i++) {
		a = parse_ok(same[i][0]);
		b = parse_ok(same[i][1]);
		if (!json_equal(json_root(a), json_root(b)))
			fail_msg("%s != %s", same[i][0], same[i][1]);
		json_doc_free(a);
		json_doc_free(b);
	}
	for (i = 0; i < sizeof differ / sizeof differ[0]; i++) {
		a = parse_ok(differ[i][0]);
		b = parse_ok(differ[i][1]);
		if (json_equal(json_root(a), json_root(b)))
			fail_msg("%s == %s", differ[i][0], differ[i][1]);
		json_doc_free(a);
		json_doc_free(b);
	}
	a = parse_ok("[1, 2, 1.5, 9007199254740993]");
	assert_int_equal(json_num_cmp(json_at(json_root(a), 0),
	    json_at(json_root(a), 1)), -1);
	assert_int_equal(json_num_cmp(json_at(json_root(a), 2),
	    json_at(json_root(a), 0)), 1);
	assert_int_equal(json_num_cmp(json_at(json_root(a), 3),
	    json_at(json_root(a), 3)), 0);
	json_doc_free(a);
}

/* json_put_string of s (n bytes) as a C string. */
static char *
escape(const char *s, size_t n)
{
	struct buf	 b = BUF_INIT;
	char		*r;

	json_put_string(&b, s, n);
	r = strdup(buf_cstr(&b));
	buf_free(&b);
	return (r);
}

/* Check json_put_string(s) == want. */
static void
check_escape(const char *s, size_t n, const char *want)
{
	char	*got = escape(s, n);

	if (strcmp(got, want) != 0)
		fail_msg("escape: got %s want %s", got, want);
	free(got);
}

/* The writer escapes what JSON requires and replaces invalid UTF-8. */
static void
test_writer_escaping(void **state)
{
	char	all[128], *e;
	int	i;
	struct json_doc	*d;
	const char	*s;
	size_t		 len;

	(void)state;
	check_escape("", 0, "\"\"");
	check_escape("abc", 3, "\"abc\"");
	check_escape("\"\\/", 3, "\"\\\"\\\\/\"");
	check_escape("\b\f\n\r\t", 5, "\"\\b\\f\\n\\r\\t\"");
	check_escape("\x01\x1f\x7f", 3, "\"\\u0001\\u001f\x7f\"");
	check_escape("a\0b", 3, "\"a\\u0000b\"");
	check_escape("\xe2\x80\xa8\xe2\x80\xa9", 6, "\"\\u2028\\u2029\"");
	check_escape("caf\xc3\xa9\xf0\x9f\x98\x80", 9,
	    "\"caf\xc3\xa9\xf0\x9f\x98\x80\"");
	/* invalid UTF-8: one U+FFFD per maximal subpart */
	check_escape("\xff", 1, "\"\xef\xbf\xbd\"");
	check_escape("a\xc3", 2, "\"a\xef\xbf\xbd\"");
	check_escape("\xc3(", 2, "\"\xef\xbf\xbd(\"");
	check_escape("\xe2\x82", 2, "\"\xef\xbf\xbd\"");
	check_escape("\xe2\x82x", 3, "\"\xef\xbf\xbdx\"");
	check_escape("\xf0\x9f\x98", 3, "\"\xef\xbf\xbd\"");
	check_escape("\xed\xa0\x80", 3,
	    "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
	check_escape("\xc0\xaf", 2, "\"\xef\xbf\xbd\xef\xbf\xbd\"");
	check_escape("\xf4\x90\x80\x80", 4,
	    "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
	check_escape("\x80\xbf", 2, "\"\xef\xbf\xbd\xef\xbf\xbd\"");
	/* every ASCII byte survives a round trip, with no raw newline */
	for (i = 0; i < 128; i++)
		all[i] = (char)i;
	e = escape(all, 128);
	assert_null(strchr(e, '\n'));
	assert_null(strchr(e, '\r'));
	d = parse_ok(e);
	s = json_str(json_root(d), &len);
	assert_int_equal(len, 128);
	assert_memory_equal(s, all, 128);
	json_doc_free(d);
	free(e);
}

/*
 * Reference decoder for the round trip: a different construction from
 * json.c's (Unicode Table 3-7 as explicit ranges, byte by byte), writing
 * valid sequences through and U+FFFD per maximal subpart.
 */
static size_t
ref_sanitize(const unsigned char *s, size_t n, unsigned char *out)
{
	size_t	i = 0, o = 0, k, need;
	int	lo, hi;

	while (i < n) {
		unsigned char c = s[i];

		if (c <= 0x7f) {
			out[o++] = c;
			i++;
			continue;
		}
		lo = 0x80;
		hi = 0xbf;
		if (c >= 0xc2 && c <= 0xdf)
			need = 1;
		else if (c == 0xe0) {
			need = 2;
			lo = 0xa0;
		} else if ((c >= 0xe1 && c <= 0xec) || c == 0xee || c == 0xef)
			need = 2;
		else if (c == 0xed) {
			need = 2;
			hi = 0x9f;
		} else if (c == 0xf0) {
			need = 3;
			lo = 0x90;
		} else if (c >= 0xf1 && c <= 0xf3)
			need = 3;
		else if (c == 0xf4) {
			need = 3;
			hi = 0x8f;
		} else
			need = 0;
		for (k = 1; need != 0 && k <= need; k++) {
			if (i + k >= n)
				break;
			if (k == 1 && (s[i + 1] < lo || s[i + 1] > hi))
				break;
			if (k > 1 && (s[i + k] < 0x80 || s[i + k] > 0xbf))
				break;
		}
		if (need != 0 && k == need + 1) {
			memcpy(out + o, s + i, need + 1);
			o += need + 1;
			i += need + 1;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i += need == 0 ? 1 : k;
		}
	}
	return (o);
}

/* Random bytes: write, check the line, parse, compare with the reference. */
static void
test_writer_random(void **state)
{
	unsigned char	 in[64], want[64 * 3];
	char		*e;
	const char	*s;
	struct json_doc	*d;
	size_t		 n, wl, len;
	int		 round, i;

	(void)state;
	srand(12345);
	for (round = 0; round < 20000; round++) {
		n = (size_t)(rand() % 64);
		for (i = 0; i < (int)n; i++) {
			/* bias toward interesting bytes */
			switch (rand() % 4) {
			case 0: in[i] = (unsigned char)(rand() % 0x20); break;
			case 1: in[i] = (unsigned char)(0x80 + rand() % 0x80);
				break;
			case 2: in[i] = (unsigned char)"\xe2\x80\xa8\xed\xf0"
				    "\x9f\"\\"[rand() % 8]; break;
			default: in[i] = (unsigned char)rand(); break;
			}
		}
		e = escape((char *)in, n);
		assert_true(utf8_valid(e, strlen(e)));
		assert_null(strchr(e, '\n'));
		d = parse_ok(e);
		s = json_str(json_root(d), &len);
		wl = ref_sanitize(in, n, want);
		assert_int_equal(len, wl);
		assert_memory_equal(s, want, wl);
		if (utf8_valid((char *)in, n)) {
			assert_int_equal(len, n);
			assert_memory_equal(s, in, n);
		}
		json_doc_free(d);
		free(e);
	}
}

/* jw inserts commas and colons in nested structures. */
static void
test_jw_nesting(void **state)
{
	struct buf	b = BUF_INIT;
	struct jw	w;

	(void)state;
	jw_init(&w, &b);
	jw_obj_begin(&w);
	jw_key(&w, "a");
	jw_arr_begin(&w);
	jw_int(&w, 1);
	jw_obj_begin(&w);
	jw_key(&w, "b");
	jw_arr_begin(&w);
	jw_arr_end(&w);
	jw_obj_end(&w);
	jw_str(&w, "x");
	jw_arr_begin(&w);
	jw_arr_begin(&w);
	jw_arr_end(&w);
	jw_arr_begin(&w);
	jw_null(&w);
	jw_arr_end(&w);
	jw_arr_end(&w);
	jw_arr_end(&w);
	jw_key(&w, "c");
	jw_obj_begin(&w);
	jw_key(&w, "d");
	jw_null(&w);
	jw_keyn(&w, "e\0f", 3);
	jw_arr_begin(&w);
	jw_bool(&w, true);
	jw_bool(&w, false);
	jw_arr_end(&w);
	jw_obj_end(&w);
	jw_key(&w, "f");
	jw_double(&w, 1.5);
	jw_key(&w, "g");
	jw_str(&w, NULL);
	jw_key(&w, "h");
	jw_raw(&w, "\"id-7\"", 6);
	jw_key(&w, "i");
	jw_strn(&w, "a\nb", 3);
	jw_key(&w, "j");
	jw_obj_begin(&w);
	jw_obj_end(&w);
	jw_obj_end(&w);
	assert_string_equal(buf_cstr(&b),
	    "{\"a\":[1,{\"b\":[]},\"x\",[[],[null]]],"
	    "\"c\":{\"d\":null,\"e\\u0000f\":[true,false]},\"f\":1.5,"
	    "\"g\":null,\"h\":\"id-7\",\"i\":\"a\\nb\",\"j\":{}}");
	assert_int_equal(w.depth, 0);
	json_doc_free(parse_ok(buf_cstr(&b)));

	/* Top-level values are separate messages: no comma between them. */
	buf_reset(&b);
	jw_init(&w, &b);
	jw_int(&w, 1);
	jw_arr_begin(&w);
	jw_arr_end(&w);
	assert_string_equal(buf_cstr(&b), "1[]");
	buf_free(&b);
}

/* Nesting deeper than the comma table still comes out right. */
static void
test_jw_deep(void **state)
{
	struct buf	b = BUF_INIT;
	struct jw	w;
	struct json_doc	*d;
	char		*cause;
	int		 i, n = JSON_MAX_DEPTH + 20;

	(void)state;
	jw_init(&w, &b);
	for (i = 0; i < n; i++) {
		jw_arr_begin(&w);
		jw_int(&w, i);
	}
	for (i = 0; i < n; i++) {
		jw_int(&w, -i);
		jw_arr_end(&w);
	}
	/* valid JSON, only too deep for our reader */
	d = json_parse(b.data, b.len, &cause);
	assert_null(d);
	assert_non_null(strstr(cause, "nesting"));
	free(cause);
	assert_non_null(strstr(buf_cstr(&b), "[146,[147,"));
	assert_non_null(strstr(buf_cstr(&b), "[147,0],-1],-2]"));
	assert_string_equal(b.data + b.len - 6, ",-147]");
	assert_null(strstr(buf_cstr(&b), ",,"));
	assert_null(strstr(buf_cstr(&b), "[,"));
	buf_free(&b);
}

/* Numbers as written by jw. */
static void
test_jw_numbers(void **state)
{
	struct buf	b = BUF_INIT;
	struct jw	w;

	(void)state;
	jw_init(&w, &b);
	jw_arr_begin(&w);
	jw_int(&w, INT64_MIN);
	jw_int(&w, INT64_MAX);
	jw_double(&w, 0.1);
	jw_double(&w, 1e300);
	jw_double(&w, -0.0);
	jw_double(&w, NAN);
	jw_double(&w, INFINITY);
	jw_double(&w, -INFINITY);
	jw_double(&w, 1.0 / 3.0);
	jw_double(&w, 5e-324);
	jw_double(&w, 3);
	jw_arr_end(&w);
	assert_string_equal(buf_cstr(&b), "[-9223372036854775808,"
	    "9223372036854775807,0.1,1e+300,-0,null,"
	    "null,null,0.3333333333333333,4.94065645841247e-324,3]");
	json_doc_free(parse_ok(buf_cstr(&b)));
	buf_free(&b);
}

/* jw_value writes a parsed value back compactly and exactly. */
static void
test_jw_value(void **state)
{
	static const char *const docs[][2] = {
		{ " { \"a\" : [ 1 , 2.50 , -0 , 1E+400 , 9007199254740993 ] ,"
		  " \"b\" : { } ,"
		  " \"c\" : \"\\u00e9\\/\\ud83d\\ude00\\u0000\" } ",
		  "{\"a\":[1,2.50,-0,1E+400,9007199254740993],\"b\":{},"
		  "\"c\":\"\xc3\xa9/\xf0\x9f\x98\x80\\u0000\"}" },
		{ "\"\\u2028\xe2\x80\xa9\"", "\"\\u2028\\u2029\"" },
		{ "[true,false,null,[],[[]],{\"\":\"\"}]",
		  "[true,false,null,[],[[]],{\"\":\"\"}]" },
		{ "\"\\ud800\"", "\"\xef\xbf\xbd\"" },
		{ "{\"a\":1,\"a\":2}", "{\"a\":1,\"a\":2}" }
	};
	struct json_doc	*a, *b;
	char		*s;
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof docs / sizeof docs[0]; i++) {
		s = reserialize(docs[i][0]);
		assert_string_equal(s, docs[i][1]);
		a = parse_ok(docs[i][0]);
		b = parse_ok(s);
		assert_true(json_equal(json_root(a), json_root(b)));
		json_doc_free(a);
		json_doc_free(b);
		free(s);
	}
}

/* Big inputs parse in linear time: an 8 MiB string, long arrays. */
static void
test_big(void **state)
{
	struct json_doc		*d;
	size_t			 n = 8 << 20, i, o, len;
	char			*s;
	const char		*str;
	struct buf		 b = BUF_INIT;

	(void)state;
	/* an 8 MiB string with escapes scattered through it */
	s = malloc(n + 3);
	s[0] = '"';
	for (i = 1; i <= n; i++)
		s[i] = (char)('a' + i % 26);
	for (i = 1000; i + 2 < n; i += 4096) {
		s[i] = '\\';
		s[i + 1] = 'n';
	}
	s[n + 1] = '"';
	s[n + 2] = '\0';
	d = parse_ok(s);
	str = json_str(json_root(d), &len);
	assert_true(len < n && len > n - n / 1000);
	assert_int_equal(str[999], '\n');
	json_put_string(&b, str, len);
	assert_int_equal(b.len, n + 2);
	json_doc_free(d);
	buf_free(&b);
	free(s);

	/* about 4 million numbers in 8 MiB */
	s = malloc(n + 2);
	s[0] = '[';
	for (o = 1; o + 2 < n; o += 2) {
		s[o] = '0';
		s[o + 1] = ',';
	}
	s[o] = '0';
	s[o + 1] = ']';
	s[o + 2] = '\0';
	d = parse_ok(s);
	assert_int_equal(json_len(json_root(d)), (o + 1) / 2);
	json_doc_free(d);

	/* 100k objects in an array */
	o = 0;
	s[o++] = '[';
	for (i = 0; i < 100000; i++)
		o += (size_t)sprintf(s + o, "%s{\"k\":%zu}", i ? "," : "", i);
	s[o++] = ']';
	s[o] = '\0';
	d = parse_ok(s);
	assert_int_equal(json_len(json_root(d)), 100000);
	assert_int_equal(json_int(json_get(json_at(json_root(d), 99999),
	    "k")), 99999);
	json_doc_free(d);
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_surrogates),
		cmocka_unit_test(test_nul_in_string),
		cmocka_unit_test(test_invalid_escapes),
		cmocka_unit_test(test_control_chars),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_number_grammar),
		cmocka_unit_test(test_literals),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_trailing),
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_duplicate_keys),
		cmocka_unit_test(test_empty_containers),
		cmocka_unit_test(test_whitespace),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_accessors),
		cmocka_unit_test(test_equal),
		cmocka_unit_test(test_writer_escaping),
		cmocka_unit_test(test_writer_random),
		cmocka_unit_test(test_jw_nesting),
		cmocka_unit_test(test_jw_deep),
		cmocka_unit_test(test_jw_numbers),
		cmocka_unit_test(test_jw_value),
		cmocka_unit_test(test_big),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
