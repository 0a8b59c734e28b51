/*
 * fuzz_json.c — libFuzzer harness for the JSON reader and writer.
 *
 * Each input is parsed. A small independent recursive-descent checker
 * (RFC 8259, valid UTF-8, at most JSON_MAX_DEPTH nested containers) must
 * agree on whether it is JSON. On success the value is written back with
 * jw_value, which must give valid UTF-8 with no raw newline that parses
 * again to an equal value (json_equal) and writes out identically. The
 * input is also escaped as a string with json_put_string, which must parse
 * back to itself when it is valid UTF-8. Finally the value is used as a
 * JSON Schema (schema_check, and validating the value against itself),
 * which exercises the pattern translation; inputs with a counted repeat
 * ("{2") are skipped there, as glibc's regcomp takes its time over big ones.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "jschema.h"
#include "schema_check.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

struct ref {
	const uint8_t	*s;
	size_t		 n;
	size_t		 i;
};

static int	ref_value(struct ref *, int);

/* Skip JSON whitespace. */
static void
ref_ws(struct ref *r)
{
	while (r->i < r->n && (r->s[r->i] == ' ' || r->s[r->i] == '\t' ||
	    r->s[r->i] == '\n' || r->s[r->i] == '\r'))
		r->i++;
}

/* Is the byte at i a digit? */
static int
ref_digit(struct ref *r)
{
	return (r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9');
}

/* A hex digit? */
static int
ref_hex(uint8_t c)
{
	return ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F'));
}

/* A string, opening quote at i. */
static int
ref_string(struct ref *r)
{
	int	k;

	r->i++;
	for (;;) {
		if (r->i >= r->n)
			return (0);
		if (r->s[r->i] == '"') {
			r->i++;
			return (1);
		}
		if (r->s[r->i] < 0x20)
			return (0);
		if (r->s[r->i] != '\\') {
			r->i++;
			continue;
		}
		if (++r->i >= r->n)
			return (0);
		switch (r->s[r->i]) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n':
		case 'r': case 't':
			r->i++;
			break;
		case 'u':
			for (k = 1; k <= 4; k++) {
				if (r->i + k >= r->n ||
				    !ref_hex(r->s[r->i + k]))
					return (0);
			}
			r->i += 5;
			break;
		default:
			return (0);
		}
	}
}

/* A number. */
static int
ref_number(struct ref *r)
{
	if (r->i < r->n && r->s[r->i] == '-')
		r->i++;
	if (r->i < r->n && r->s[r->i] == '0')
		r->i++;
	else if (ref_digit(r))
		while (ref_digit(r))
			r->i++;
	else
		return (0);
	if (r->i < r->n && r->s[r->i] == '.') {
		r->i++;
		if (!ref_digit(r))
			return (0);
		while (ref_digit(r))
			r->i++;
	}
	if (r->i < r->n && (r->s[r->i] == 'e' || r->s[r->i] == 'E')) {
		r->i++;
		if (r->i < r->n && (r->s[r->i] == '+' || r->s[r->i] == '-'))
			r->i++;
		if (!ref_digit(r))
			return (0);
		while (ref_digit(r))
			r->i++;
	}
	return (1);
}

/* A literal word. */
static int
ref_word(struct ref *r, const char *w)
{
	size_t	l = strlen(w);

	if (r->n - r->i < l || memcmp(r->s + r->i, w, l) != 0)
		return (0);
	r->i += l;
	return (1);
}

/* An array or object, opening bracket at i, depth counting it. */
static int
ref_container(struct ref *r, int depth)
{
	int	obj = (r->s[r->i] == '{');

	if (depth > JSON_MAX_DEPTH)
		return (0);
	r->i++;
	ref_ws(r);
	if (r->i < r->n && r->s[r->i] == (obj ? '}' : ']')) {
		r->i++;
		return (1);
	}
	for (;;) {
		ref_ws(r);
		if (obj) {
			if (r->i >= r->n || r->s[r->i] != '"' || !ref_string(r))
				return (0);
			ref_ws(r);
			if (r->i >= r->n || r->s[r->i] != ':')
				return (0);
			r->i++;
		}
		if (!ref_value(r, depth))
			return (0);
		ref_ws(r);
		if (r->i >= r->n)
			return (0);
		if (r->s[r->i] == ',') {
			r->i++;
			continue;
		}
		if (r->s[r->i] == (obj ? '}' : ']')) {
			r->i++;
			return (1);
		}
		return (0);
	}
}

/* Any value, with depth open containers around it. */
static int
ref_value(struct ref *r, int depth)
{
	ref_ws(r);
	if (r->i >= r->n)
		return (0);
	switch (r->s[r->i]) {
	case '{': case '[':
		return (ref_container(r, depth + 1));
	case '"':
		return (ref_string(r));
	case 't':
		return (ref_word(r, "true"));
	case 'f':
		return (ref_word(r, "false"));
	case 'n':
		return (ref_word(r, "null"));
	default:
		return (ref_number(r));
	}
}

/* Is s a JSON text? */
static int
ref_valid(const uint8_t *s, size_t n)
{
	struct ref	r = { s, n, 0 };

	if (!utf8_valid((const char *)s, n))
		return (0);
	if (!ref_value(&r, 0))
		return (0);
	ref_ws(&r);
	return (r.i == n);
}

/* Use a parsed value as a schema, against itself. */
static void
schema_self(const uint8_t *data, size_t size, const struct json *j)
{
	char	*cause;
	size_t	 i;

	for (i = 0; i + 1 < size; i++) {
		if (data[i] == '{' && data[i + 1] >= '0' && data[i + 1] <= '9')
			return;
	}
	if (schema_check(j, &cause) == 0) {
		if (cause != NULL)
			abort();
	} else {
		if (cause == NULL)
			abort();
		free(cause);
	}
	if (jschema_validate(j, j, &cause) == 0) {
		if (cause != NULL)
			abort();
	} else {
		if (cause == NULL || !utf8_valid(cause, strlen(cause)))
			abort();
		free(cause);
	}
}

/* Write a value compactly into b. */
static void
write_value(struct buf *b, const struct json *j)
{
	struct jw	w;

	jw_init(&w, b);
	jw_value(&w, j);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_doc	*d, *d2;
	struct buf	 b = BUF_INIT, b2 = BUF_INIT;
	char		*cause = NULL;
	const char	*s;
	size_t		 len;
	int		 ok;

	ok = ref_valid(data, size);
	d = json_parse((const char *)data, size, &cause);
	if ((d != NULL) != ok) {
		fprintf(stderr, "json_parse %s, reference %s (%s)\n",
		    d != NULL ? "accepts" : "refuses",
		    ok ? "accepts" : "refuses", cause ? cause : "");
		abort();
	}
	if (d == NULL) {
		if (cause == NULL)
			abort();
		free(cause);
	} else {
		write_value(&b, json_root(d));
		if (!utf8_valid(b.data, b.len) ||
		    memchr(b.data, '\n', b.len) != NULL)
			abort();
		d2 = json_parse(b.data, b.len, &cause);
		if (d2 == NULL) {
			fprintf(stderr, "re-parse failed: %s\n", cause);
			abort();
		}
		if (!json_equal(json_root(d), json_root(d2)) ||
		    !json_equal(json_root(d2), json_root(d)))
			abort();
		write_value(&b2, json_root(d2));
		if (b.len != b2.len || memcmp(b.data, b2.data, b.len) != 0)
			abort();
		json_doc_free(d2);
		schema_self(data, size, json_root(d));
		json_doc_free(d);
	}

	/* The input as a string value. */
	buf_reset(&b);
	json_put_string(&b, (const char *)data, size);
	if (!utf8_valid(b.data, b.len) || memchr(b.data, '\n', b.len) != NULL)
		abort();
	if ((d = json_parse(b.data, b.len, &cause)) == NULL) {
		fprintf(stderr, "escaped string refused: %s\n", cause);
		abort();
	}
	s = json_str(json_root(d), &len);
	if (utf8_valid((const char *)data, size) &&
	    (len != size || memcmp(s, data, size) != 0))
		abort();
	if (!utf8_valid(s, len))
		abort();
	json_doc_free(d);
	buf_free(&b);
	buf_free(&b2);
	return (0);
}
