/*
 * schema_check.c — does a JSON Schema use only what the front's validator
 * (server/jschema.c) implements, each keyword with a value of the right
 * kind? A test's tool: test_jschema checks schemas/ and the seeds with it,
 * fuzz_json the schemas it makes; the binaries need none of it, as the
 * schemas they serve are embedded at build time and checked here.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jschema.h"
#include "pattern.h"
#include "schema_check.h"
#include "xmalloc.h"

/* Type names "type" may use. */
static const char *const schema_types[] = {
	"null", "boolean", "integer", "number", "string", "array", "object"
};

static int	schema_check_node(const struct json *, struct buf *, char **);

/* Set *cause to "where: what" for schema_check. */
static int __attribute__((format(printf, 3, 4)))
schema_check_fail(struct buf *where, char **cause, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (cause != NULL)
		xasprintf(cause, "%s: %s", where->len == 0 ? "#" :
		    buf_cstr(where), s == NULL ? "error" : s);
	free(s);
	return (-1);
}

/* Check a subschema at where + "/" + seg. */
static int
schema_check_sub(const struct json *s, struct buf *where, const char *seg,
    size_t segn, char **cause)
{
	size_t	old = where->len;
	int	r;

	if (old == 0)
		buf_addc(where, '#');
	buf_addc(where, '/');
	buf_add(where, seg, segn);
	r = schema_check_node(s, where, cause);
	where->len = old;
	return (r);
}

/* Is v a type name, or a non-empty list of them? */
static bool
schema_check_types(const struct json *v, const char **bad)
{
	const struct json	*e;
	const char		*p;
	size_t			 i, j, n;

	*bad = NULL;
	n = json_type(v) == JSON_ARRAY ? json_len(v) : 1;
	if (json_type(v) == JSON_ARRAY && n == 0)
		return (false);
	for (i = 0; i < n; i++) {
		e = json_type(v) == JSON_ARRAY ? json_at(v, i) : v;
		if ((p = json_str(e, NULL)) == NULL)
			return (false);
		for (j = 0; j < sizeof schema_types / sizeof *schema_types;
		    j++) {
			if (strcmp(p, schema_types[j]) == 0)
				break;
		}
		if (j == sizeof schema_types / sizeof *schema_types) {
			*bad = p;
			return (false);
		}
	}
	return (true);
}

/* Check one keyword k (klen bytes) of a schema object, with value v. */
static int
schema_check_keyword(const char *k, size_t klen, const struct json *v,
    struct buf *where, char **cause)
{
	struct pattern		*pat;
	const char		*p;
	size_t			 i, j, n;
	char			*err = NULL, idx[32];

	switch (jschema_kind(k, klen)) {
	case JSCHEMA_K_ANNOTATION:
		return (0);
	case JSCHEMA_K_TYPE:
		if (schema_check_types(v, &p))
			return (0);
		if (p != NULL)
			return (schema_check_fail(where, cause,
			    "unknown type \"%s\"", p));
		break;
	case JSCHEMA_K_PROPERTIES:
		if (json_type(v) != JSON_OBJECT)
			break;
		for (i = 0; i < json_len(v); i++) {
			p = json_key_at(v, i, &n);
			j = where->len;
			buf_adds(where, where->len == 0 ? "#/" : "/");
			buf_add(where, k, klen);
			if (schema_check_sub(json_at(v, i), where, p, n,
			    cause) != 0)
				return (-1);
			where->len = j;
		}
		return (0);
	case JSCHEMA_K_REQUIRED:
		if (json_type(v) != JSON_ARRAY)
			break;
		for (i = 0; i < json_len(v); i++) {
			if (json_type(json_at(v, i)) != JSON_STRING)
				goto bad;
		}
		return (0);
	case JSCHEMA_K_BOOL:
		if (json_type(v) == JSON_BOOL)
			return (0);
		break;
	case JSCHEMA_K_SCHEMA:
		return (schema_check_sub(v, where, k, klen, cause));
	case JSCHEMA_K_COUNT:
		if (json_is_integral(v) && json_num(v) >= 0)
			return (0);
		return (schema_check_fail(where, cause, "\"%s\" must be a "
		    "non-negative integer", k));
	case JSCHEMA_K_NUMBER:
		if (json_type(v) == JSON_NUMBER && isfinite(json_num(v)))
			return (0);
		break;
	case JSCHEMA_K_ENUM:
		if (json_type(v) == JSON_ARRAY && json_len(v) != 0)
			return (0);
		break;
	case JSCHEMA_K_SCHEMAS:
		if (json_type(v) != JSON_ARRAY || json_len(v) == 0)
			break;
		for (i = 0; i < json_len(v); i++) {
			j = (size_t)snprintf(idx, sizeof idx, "%s/%zu", k, i);
			if (schema_check_sub(json_at(v, i), where, idx, j,
			    cause) != 0)
				return (-1);
		}
		return (0);
	case JSCHEMA_K_PATTERN:
		if ((p = json_str(v, &n)) == NULL)
			break;
		if ((pat = pattern_compile(p, n, PATTERN_ECMA,
		    &err)) == NULL) {
			schema_check_fail(where, cause, "pattern %s cannot "
			    "be used: it %s", p, err);
			free(err);
			return (-1);
		}
		pattern_free(pat);
		return (0);
	default:
		return (schema_check_fail(where, cause, "unsupported keyword "
		    "\"%.*s\"", (int)klen, k));
	}
bad:
	return (schema_check_fail(where, cause, "invalid value for \"%s\"",
	    k));
}

/* Check one schema (an object) at where. */
static int
schema_check_node(const struct json *s, struct buf *where, char **cause)
{
	const char	*k;
	size_t		 i, n;

	if (json_type(s) != JSON_OBJECT)
		return (schema_check_fail(where, cause, "a schema must be an "
		    "object (got %s)", json_type_name(json_type(s))));
	for (i = 0; i < json_len(s); i++) {
		k = json_key_at(s, i, &n);
		if (schema_check_keyword(k, n, json_at(s, i), where,
		    cause) != 0)
			return (-1);
	}
	return (0);
}

/* Check that a schema uses only the keywords implemented here. */
int
schema_check(const struct json *schema, char **cause)
{
	struct buf	 where = BUF_INIT;
	int		 r;

	if (cause != NULL)
		*cause = NULL;
	r = schema_check_node(schema, &where, cause);
	buf_free(&where);
	return (r);
}
