/*
 * view.h — the view: the MCP Apps page of server/view/, made one
 * self-contained HTML file and embedded whole at build time by
 * scripts/build/embed-view.sh (build/gen/view.c); resource.c serves it
 * as ui://progmux/view.
 */
#ifndef PROGMUX_VIEW_H
#define PROGMUX_VIEW_H

#include <stddef.h>

extern const char	view_html[];
extern const size_t	view_html_len;

#endif
