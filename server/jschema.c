/*
 * jschema.c — validate a parsed JSON value against a JSON Schema, the
 * subset our schemas use (see jschema.h), and check that a schema uses
 * only that subset.
 *
 * The validator walks schema and instance together, keeping the instance
 * path ("argv[2]", "a.b") in a buffer, and stops at the first error. Its
 * messages name the path and the rule and show the offending value in
 * short compact JSON.
 *
 * "pattern" is the front's one regex engine (pattern.c, PCRE2) in its
 * ECMA-262 flavour, as JSON Schema defines the keyword, with its bounds:
 * a pattern it cannot compile is refused when the schema is checked, and
 * is a schema error (never a silent pass) when validating, as is a match
 * stopped by a limit.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jschema.h"
#include "pattern.h"
#include "utf8.h"
#include "xmalloc.h"

/* Longest rendering of an offending value in a message. */
#define JSCHEMA_SHOW_MAX	48

/* Every keyword our schemas use, and only those. */
static const struct {
	const char		*name;
	enum jschema_kind	 kind;
} jschema_keywords[] = {
	{ "$schema", JSCHEMA_K_ANNOTATION },
	{ "title", JSCHEMA_K_ANNOTATION },
	{ "description", JSCHEMA_K_ANNOTATION },
	{ "type", JSCHEMA_K_TYPE },
	{ "properties", JSCHEMA_K_PROPERTIES },
	{ "required", JSCHEMA_K_REQUIRED },
	{ "additionalProperties", JSCHEMA_K_BOOL },
	{ "items", JSCHEMA_K_SCHEMA },
	{ "minItems", JSCHEMA_K_COUNT },
	{ "maxItems", JSCHEMA_K_COUNT },
	{ "minLength", JSCHEMA_K_COUNT },
	{ "maxLength", JSCHEMA_K_COUNT },
	{ "minimum", JSCHEMA_K_NUMBER },
	{ "maximum", JSCHEMA_K_NUMBER },
	{ "exclusiveMinimum", JSCHEMA_K_NUMBER },
	{ "enum", JSCHEMA_K_ENUM },
	{ "anyOf", JSCHEMA_K_SCHEMAS },
	{ "pattern", JSCHEMA_K_PATTERN }
};
#define JSCHEMA_NKEYWORDS (sizeof jschema_keywords / sizeof jschema_keywords[0])

/* Validation state. */
struct jschema_ctx {
	struct buf	 path;
	char		*cause;
};

static int	jschema_node(struct jschema_ctx *, const struct json *,
		    const struct json *);

/* The kind of keyword k (klen bytes), or -1 if we do not support it. */
int
jschema_kind(const char *k, size_t klen)
{
	size_t	i;

	for (i = 0; i < JSCHEMA_NKEYWORDS; i++) {
		if (strlen(jschema_keywords[i].name) == klen &&
		    memcmp(jschema_keywords[i].name, k, klen) == 0)
			return ((int)jschema_keywords[i].kind);
	}
	return (-1);
}

/* Render a value briefly (compact JSON, cut at JSCHEMA_SHOW_MAX bytes). */
static void
jschema_show(struct buf *out, const struct json *v)
{
	struct buf	 b = BUF_INIT;
	struct jw	 w;
	const char	*str;
	size_t		 n;

	jw_init(&w, &b);
	if (json_type(v) == JSON_STRING && json_str(v, &n) != NULL &&
	    n > JSCHEMA_SHOW_MAX) {
		/* Escape only the start of a long string. */
		str = json_str(v, NULL);
		json_put_string(&b, str, utf8_char_start(str,
		    JSCHEMA_SHOW_MAX));
	} else
		jw_value(&w, v);
	n = b.len;
	if (n > JSCHEMA_SHOW_MAX) {
		/* Not in the middle of a character. */
		n = utf8_char_start(b.data, JSCHEMA_SHOW_MAX - 3);
		buf_add(out, b.data, n);
		buf_adds(out, "...");
	} else
		buf_add(out, b.data, n);
	buf_free(&b);
}

/* Record an error at the current path: "path: " then printf-style text,
 * then " (got V)" if v is not NULL. */
static int __attribute__((format(printf, 3, 4)))
jschema_fail(struct jschema_ctx *x, const struct json *v, const char *fmt, ...)
{
	struct buf	 b = BUF_INIT;
	va_list		 ap;
	char		*s;

	if (x->path.len == 0)
		buf_adds(&b, "(root)");
	else
		buf_add(&b, x->path.data, x->path.len);
	buf_adds(&b, ": ");
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (s != NULL) {
		buf_adds(&b, s);
		free(s);
	}
	if (v != NULL) {
		buf_adds(&b, " (got ");
		jschema_show(&b, v);
		buf_addc(&b, ')');
	}
	free(x->cause);
	x->cause = xstrdup(buf_cstr(&b));
	buf_free(&b);
	return (-1);
}

/* A JSON string as text for a message, quoted and escaped. */
static char *
jschema_quote(const char *s, size_t n)
{
	struct buf	 b = BUF_INIT;
	char		*r;

	json_put_string(&b, s, n);
	r = xstrdup(buf_cstr(&b));
	buf_free(&b);
	return (r);
}

/* A number from the schema, as written. */
static char *
jschema_numtext(const struct json *n)
{
	size_t		 len;
	const char	*raw = json_raw(n, &len);

	return (xstrndup(raw, len));
}

/* Does v have the type named name? */
static int
jschema_type_is(const struct json *v, const char *name)
{
	enum json_type	t = json_type(v);

	if (strcmp(name, "integer") == 0)
		return (json_is_integral(v));
	if (strcmp(name, "number") == 0)
		return (t == JSON_NUMBER);
	return (strcmp(name, json_type_name(t)) == 0);
}

/* "a string", "an integer", "null" for messages. */
static const char *
jschema_type_article(const char *name)
{
	if (strcmp(name, "null") == 0)
		return ("");
	if (strcmp(name, "integer") == 0 || strcmp(name, "array") == 0 ||
	    strcmp(name, "object") == 0)
		return ("an ");
	return ("a ");
}

/* Check "type" (a name or a list of names). */
static int
jschema_check_type(struct jschema_ctx *x, const struct json *t,
    const struct json *v)
{
	struct buf	 b = BUF_INIT;
	const char	*name;
	size_t		 i, n;
	int		 wants_int = 0, r;

	if (json_type(t) == JSON_STRING) {
		if (jschema_type_is(v, json_str(t, NULL)))
			return (0);
		n = 1;
	} else if (json_type(t) == JSON_ARRAY) {
		for (i = 0; i < json_len(t); i++) {
			if (json_type(json_at(t, i)) == JSON_STRING &&
			    jschema_type_is(v, json_str(json_at(t, i), NULL)))
				return (0);
		}
		n = json_len(t);
	} else
		return (0);
	for (i = 0; i < n; i++) {
		name = json_str(n == 1 && json_type(t) == JSON_STRING ? t :
		    json_at(t, i), NULL);
		if (name == NULL)
			continue;
		if (strcmp(name, "integer") == 0)
			wants_int = 1;
		if (i > 0)
			buf_adds(&b, i + 1 == n ? " or " : ", ");
		buf_adds(&b, jschema_type_article(name));
		buf_adds(&b, name);
	}
	/* Show the number itself when it is only its fraction that fails. */
	if (wants_int && json_type(v) == JSON_NUMBER)
		r = jschema_fail(x, v, "must be %s", buf_cstr(&b));
	else
		r = jschema_fail(x, NULL, "must be %s (got %s)", buf_cstr(&b),
		    json_type_name(json_type(v)));
	buf_free(&b);
	return (r);
}

/* Check "enum". */
static int
jschema_check_enum(struct jschema_ctx *x, const struct json *e,
    const struct json *v)
{
	struct buf	 b = BUF_INIT;
	size_t		 i;
	int		 r;

	if (json_type(e) != JSON_ARRAY)
		return (0);
	for (i = 0; i < json_len(e); i++) {
		if (json_equal(json_at(e, i), v))
			return (0);
	}
	for (i = 0; i < json_len(e) && i < 10; i++) {
		if (i > 0)
			buf_adds(&b, ", ");
		jschema_show(&b, json_at(e, i));
	}
	if (json_len(e) > 10)
		buf_adds(&b, ", ...");
	r = jschema_fail(x, v, "must be one of %s", buf_cstr(&b));
	buf_free(&b);
	return (r);
}

/* Check the numeric keywords. */
static int
jschema_check_number(struct jschema_ctx *x, const struct json *s,
    const struct json *v)
{
	static const struct {
		const char	*kw;
		int		 bad;	/* the comparison results that fail */
		int		 bad2;
		const char	*text;
	} rules[] = {
		{ "minimum", -1, -1, "must be at least" },
		{ "maximum", 1, 1, "must be at most" },
		{ "exclusiveMinimum", -1, 0, "must be greater than" }
	};
	const struct json	*lim;
	char			*t;
	size_t			 i;
	int			 c;

	for (i = 0; i < sizeof rules / sizeof rules[0]; i++) {
		lim = json_get(s, rules[i].kw);
		if (json_type(lim) != JSON_NUMBER)
			continue;
		c = json_num_cmp(v, lim);
		if (c == rules[i].bad || c == rules[i].bad2) {
			t = jschema_numtext(lim);
			jschema_fail(x, v, "%s %s", rules[i].text, t);
			free(t);
			return (-1);
		}
	}
	return (0);
}

/* A count limit from the schema ("minItems": 1), or -1 if absent. */
static double
jschema_limit(const struct json *s, const char *kw)
{
	const struct json	*l = json_get(s, kw);

	if (json_type(l) != JSON_NUMBER)
		return (-1);
	return (json_num(l));
}

/* Check the string keywords. */
static int
jschema_check_string(struct jschema_ctx *x, const struct json *s,
    const struct json *v)
{
	struct pattern		*pat;
	const struct json	*pj;
	const char		*str, *p;
	size_t			 n, cps, plen;
	double			 l;
	char			*err = NULL;
	int			 m;

	str = json_str(v, &n);
	cps = utf8_count(str, n);
	if ((l = jschema_limit(s, "minLength")) >= 0 && cps < l)
		return (jschema_fail(x, v, "must be at least %.0f character%s "
		    "long", l, l == 1 ? "" : "s"));
	if ((l = jschema_limit(s, "maxLength")) >= 0 && cps > l)
		return (jschema_fail(x, NULL, "must be at most %.0f "
		    "character%s long (got %zu)", l, l == 1 ? "" : "s", cps));
	pj = json_get(s, "pattern");
	if (json_type(pj) == JSON_STRING) {
		p = json_str(pj, &plen);
		if ((pat = pattern_compile(p, plen, PATTERN_ECMA,
		    &err)) == NULL) {
			jschema_fail(x, NULL, "schema pattern %s cannot be "
			    "used: it %s", p, err);
			free(err);
			return (-1);
		}
		m = pattern_match(pat, str, n, &err);
		pattern_free(pat);
		if (m == -1) {
			jschema_fail(x, NULL, "schema pattern %s cannot be "
			    "matched: it %s", p, err);
			free(err);
			return (-1);
		}
		if (m == 0)
			return (jschema_fail(x, v, "must match %s", p));
	}
	return (0);
}

/* Extend the path with a member name; returns the old length. */
static size_t
jschema_path_key(struct jschema_ctx *x, const char *k, size_t n)
{
	size_t	old = x->path.len;

	if (old != 0)
		buf_addc(&x->path, '.');
	buf_add(&x->path, k, n);
	return (old);
}

/* Check the object keywords. */
static int
jschema_check_object(struct jschema_ctx *x, const struct json *s,
    const struct json *v)
{
	const struct json	*props, *req, *sub;
	const char		*k;
	char			*q;
	size_t			 i, n, old;
	bool			 closed;

	req = json_get(s, "required");
	for (i = 0; i < json_len(req); i++) {
		k = json_str(json_at(req, i), &n);
		if (k != NULL && json_getn(v, k, n) == NULL) {
			q = jschema_quote(k, n);
			jschema_fail(x, NULL, "missing required field %s", q);
			free(q);
			return (-1);
		}
	}
	props = json_get(s, "properties");
	sub = json_get(s, "additionalProperties");
	closed = (json_type(sub) == JSON_BOOL && !json_bool(sub));
	for (i = 0; i < json_len(v); i++) {
		k = json_key_at(v, i, &n);
		if ((sub = json_getn(props, k, n)) == NULL) {
			if (!closed)
				continue;
			q = jschema_quote(k, n);
			jschema_fail(x, NULL, "unknown field %s", q);
			free(q);
			return (-1);
		}
		old = jschema_path_key(x, k, n);
		if (jschema_node(x, sub, json_at(v, i)) != 0)
			return (-1);
		x->path.len = old;
	}
	return (0);
}

/* Check the array keywords. */
static int
jschema_check_array(struct jschema_ctx *x, const struct json *s,
    const struct json *v)
{
	const struct json	*items;
	size_t			 i, n = json_len(v), old;
	double			 l;

	if ((l = jschema_limit(s, "minItems")) >= 0 && n < l)
		return (jschema_fail(x, NULL, "must have at least %.0f item%s "
		    "(got %zu)", l, l == 1 ? "" : "s", n));
	if ((l = jschema_limit(s, "maxItems")) >= 0 && n > l)
		return (jschema_fail(x, NULL, "must have at most %.0f item%s "
		    "(got %zu)", l, l == 1 ? "" : "s", n));
	if ((items = json_get(s, "items")) == NULL)
		return (0);
	for (i = 0; i < n; i++) {
		old = x->path.len;
		buf_printf(&x->path, "[%zu]", i);
		if (jschema_node(x, items, json_at(v, i)) != 0)
			return (-1);
		x->path.len = old;
	}
	return (0);
}

/* Validate v against sub in a fresh context at the same path; returns 0 or
 * -1 with the message, its path prefix dropped when it is ours, in *msg. */
static int
jschema_try(struct jschema_ctx *x, const struct json *sub,
    const struct json *v, char **msg)
{
	struct jschema_ctx	 y;
	size_t			 plen;
	const char		*p;

	memset(&y, 0, sizeof y);
	buf_add(&y.path, x->path.data, x->path.len);
	if (jschema_node(&y, sub, v) == 0) {
		buf_free(&y.path);
		*msg = NULL;
		return (0);
	}
	p = x->path.len == 0 ? "(root)" : buf_cstr(&x->path);
	plen = strlen(p);
	if (strncmp(y.cause, p, plen) == 0 &&
	    strncmp(y.cause + plen, ": ", 2) == 0)
		*msg = xstrdup(y.cause + plen + 2);
	else
		*msg = xstrdup(y.cause);
	free(y.cause);
	buf_free(&y.path);
	return (-1);
}

/* Check anyOf: the first alternative that matches will do; if none does,
 * say why each failed. */
static int
jschema_check_anyof(struct jschema_ctx *x, const struct json *l,
    const struct json *v)
{
	struct buf	 b = BUF_INIT;
	char		*m;
	size_t		 i;
	int		 r;

	for (i = 0; i < json_len(l); i++) {
		if (jschema_try(x, json_at(l, i), v, &m) == 0) {
			buf_free(&b);
			return (0);
		}
		if (b.len != 0)
			buf_adds(&b, "; or ");
		buf_adds(&b, m);
		free(m);
	}
	r = jschema_fail(x, NULL, "must match one of the anyOf alternatives: "
	    "%s", buf_cstr(&b));
	buf_free(&b);
	return (r);
}

/* Validate v against schema s at the current path. */
static int
jschema_node(struct jschema_ctx *x, const struct json *s,
    const struct json *v)
{
	const struct json	*c;
	const char		*k;
	size_t			 i, n;

	if (json_type(s) != JSON_OBJECT)
		return (jschema_fail(x, NULL, "the schema here is not an "
		    "object"));
	/* A keyword we do not know would go unchecked: refuse it. */
	for (i = 0; i < json_len(s); i++) {
		k = json_key_at(s, i, &n);
		if (jschema_kind(k, n) == -1)
			return (jschema_fail(x, NULL, "the schema here uses "
			    "\"%.*s\", which is not supported", (int)n, k));
	}
	if ((c = json_get(s, "type")) != NULL &&
	    jschema_check_type(x, c, v) != 0)
		return (-1);
	if ((c = json_get(s, "enum")) != NULL &&
	    jschema_check_enum(x, c, v) != 0)
		return (-1);
	switch (json_type(v)) {
	case JSON_NUMBER:
		if (jschema_check_number(x, s, v) != 0)
			return (-1);
		break;
	case JSON_STRING:
		if (jschema_check_string(x, s, v) != 0)
			return (-1);
		break;
	case JSON_OBJECT:
		if (jschema_check_object(x, s, v) != 0)
			return (-1);
		break;
	case JSON_ARRAY:
		if (jschema_check_array(x, s, v) != 0)
			return (-1);
		break;
	default:
		break;
	}
	if ((c = json_get(s, "anyOf")) != NULL)
		return (jschema_check_anyof(x, c, v));
	return (0);
}

/* Validate instance against schema; the first error goes to *cause. */
int
jschema_validate(const struct json *schema, const struct json *instance,
    char **cause)
{
	struct jschema_ctx	 x;
	int			 r;

	memset(&x, 0, sizeof x);
	r = jschema_node(&x, schema, instance);
	buf_free(&x.path);
	if (r == 0) {
		free(x.cause);
		if (cause != NULL)
			*cause = NULL;
		return (0);
	}
	if (cause != NULL)
		*cause = x.cause;
	else
		free(x.cause);
	return (-1);
}
