/*
 * jschema.h — validate a JSON value against a JSON Schema (draft-07 subset).
 *
 * Enough of JSON Schema for tool input and output schemas: type (a name or
 * a list; "integer" is a number with no fractional part), properties,
 * required, additionalProperties (false or a schema), items (one schema),
 * minItems, maxItems, minLength, maxLength (counted in code points, as
 * JSON Schema says), minimum, maximum, exclusiveMinimum, exclusiveMaximum
 * (draft-07 number forms), enum, const, pattern (ECMA-262 regexes of the
 * simple kind schemas use: anchors, classes, \d \w \s, quantifiers,
 * alternation; run with POSIX extended regexes after translation), anyOf,
 * oneOf, allOf, not. Unknown keywords, $schema, title and description are
 * ignored.
 *
 * Also: uniqueItems, minProperties, maxProperties, and the boolean schemas
 * true and false. Patterns see code points ('.' matches "é" whole), and a
 * string holding NUL bytes is matched whole, NUL being an ordinary
 * character (REG_STARTEND). A pattern that cannot be translated
 * (lookaround, backreferences, \b...) fails validation as a schema error
 * naming the pattern; jschema_check() finds such patterns beforehand.
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
 * keyword with a value of the right kind (a compilable pattern, counts that
 * are non-negative integers...), in every subschema. Annotations ($schema,
 * $id, $comment, title, description, default, examples, readOnly, format...)
 * are allowed. Returns 0, or -1 with an allocated *cause naming the place
 * as a JSON pointer and the problem, e.g.
 *   "#/properties/a: unsupported keyword \"$ref\" (it would change
 *   validation)"
 * for a keyword that would change validation ($ref, patternProperties, if,
 * multipleOf...) and "unknown keyword" for one JSON Schema does not have
 * (a typo would otherwise go unnoticed).
 */
int	jschema_check(const struct json *schema, char **cause);

#endif
