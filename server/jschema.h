/*
 * jschema.h — validate a JSON value against a JSON Schema: the keywords
 * our schemas (the files in schemas/) use, and only those.
 *
 * type (a name or a list of names; "integer" is a number with no
 * fractional part), properties, required, additionalProperties (true or
 * false), items (one schema), minItems, maxItems, minLength, maxLength
 * (counted in code points, as JSON Schema says), minimum, maximum,
 * exclusiveMinimum (the draft-07 number form), enum (by value: 1 == 1.0),
 * anyOf and pattern; $schema, title and description are ignored.
 *
 * pattern is an ECMA-262 regex as JSON Schema says, run by the front's
 * one engine (pattern.h, PCRE2 with PATTERN_ECMA): it matches code
 * points, so a negated class matches "é" whole, and a NUL byte is an
 * ordinary character.
 *
 * Any other keyword is a schema error for jschema_validate(), never a
 * silent pass (tests/schema_check.c checks that schemas/ uses none).
 */
#ifndef PROGMUX_JSCHEMA_H
#define PROGMUX_JSCHEMA_H

#include "json.h"

/*
 * Returns 0 when instance is valid. Otherwise -1, and *cause is an
 * allocated message naming the place and the rule broken, for people and
 * agents to act on, e.g.:
 *   "argv: must have at least 1 item"
 *   "width: must be greater than 0 (got 0)"
 *   "argv[2]: must be a string (got number)"
 *   "placement: must be one of \"window\", \"split\" (got \"tab\")"
 *   "(root): missing required field \"argv\""
 *   "fromPaneId: must match ^%\\d+$ (got \"1\")"
 * Only the first error found is reported.
 */
int	jschema_validate(const struct json *schema, const struct json *instance,
	    char **cause);

/* What each keyword's value is (jschema_kind). */
enum jschema_kind {
	JSCHEMA_K_ANNOTATION,	/* ignored */
	JSCHEMA_K_TYPE,		/* a type name or a list of them */
	JSCHEMA_K_PROPERTIES,	/* an object of schemas */
	JSCHEMA_K_REQUIRED,	/* a list of strings */
	JSCHEMA_K_BOOL,		/* true or false */
	JSCHEMA_K_SCHEMA,	/* one schema */
	JSCHEMA_K_COUNT,	/* a non-negative integer */
	JSCHEMA_K_NUMBER,	/* a finite number */
	JSCHEMA_K_ENUM,		/* a non-empty list of values */
	JSCHEMA_K_SCHEMAS,	/* a non-empty list of schemas */
	JSCHEMA_K_PATTERN	/* a pattern (pattern.c, ECMA-262 flavour) */
};

/* The kind of keyword k (klen bytes), or -1 if jschema_validate does not
 * implement it. */
int	jschema_kind(const char *k, size_t klen);

#endif
