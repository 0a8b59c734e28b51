/*
 * schemas.h — the tool definitions, each file of schemas/ embedded byte for
 * byte. scripts/build/embed-schemas.sh writes the table (build/gen/schemas.c)
 * at build time; tools.c serves it.
 */
#ifndef PROGMUX_SCHEMAS_H
#define PROGMUX_SCHEMAS_H

#include <stddef.h>

struct schema_blob {
	const char	*name;		/* the file's base name, without .json */
	const char	*json;		/* its bytes, unchanged */
	size_t		 len;
};

extern const struct schema_blob schema_blobs[];
extern const unsigned schema_blob_count;

#endif
