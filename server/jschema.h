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
 * Any other keyword, or a pattern that does not compile, is refused by
 * jschema_check() and is a schema error for jschema_validate(), never a
 * silent pass.
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

/*
 * Check that a schema uses only what jschema_validate implements, each
 * keyword with a value of the right kind (a pattern that compiles, counts
 * that are non-negative integers...), in every subschema. Returns 0, or -1
 * with an allocated *cause naming the place as a JSON pointer and the
 * problem, e.g. "#/properties/a: unsupported keyword \"$ref\"".
 */
int	jschema_check(const struct json *schema, char **cause);

#endif
