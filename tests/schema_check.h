/*
 * schema_check.h — check that a schema uses only what jschema_validate
 * implements (tests/schema_check.c).
 */
#ifndef PROGMUX_SCHEMA_CHECK_H
#define PROGMUX_SCHEMA_CHECK_H

#include "json.h"

/*
 * Check that a schema uses only what jschema_validate implements, each
 * keyword with a value of the right kind (a pattern that compiles, counts
 * that are non-negative integers...), in every subschema. Returns 0, or -1
 * with an allocated *cause naming the place as a JSON pointer and the
 * problem, e.g. "#/properties/a: unsupported keyword \"$ref\"".
 */
int	schema_check(const struct json *schema, char **cause);

#endif
