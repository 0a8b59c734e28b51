/*
 * mcp_hosts_link.h — mcp_hosts_link.c's face to mcp_hosts.c, which
 * alone includes it beside it: mcp_hosts_link.c keeps the hosts the
 * person configured, each one's link and the calls waiting on it;
 * mcp_hosts.c, above it, sends a tools/call there and answers it. The
 * rest of the protocol sees both through mcp_req.h.
 */
#ifndef PROGMUX_MCP_HOSTS_LINK_H
#define PROGMUX_MCP_HOSTS_LINK_H

#include <sys/queue.h>

#include "mcp_req.h"

#define HOSTS_ENDS_KEPT	16	/* why each of a host's last links ended */

/* A host the person configured, and its link now. */
struct mcp_host {
	const struct cfg_host	*cfg;
	unsigned		 epoch;		/* links started: the number
						   of the latest */
	struct host_link	*link;		/* NULL: none now */
	char			 name[TOOLS_PANE_SHOWN_MAX]; /* the link's
						   name there: box, box.2 */
	char			*ended[HOSTS_ENDS_KEPT]; /* by epoch */
	LIST_HEAD(, mcp_fwd)	 fwds;		/* calls waiting on it */
	char			*res;		/* its resources: the entries
						   of its resources/list */
	size_t			 res_len;
	bool			 res_asking;	/* asked; ask again after */
	bool			 res_again;
};

/* A call forwarded to a host (host NULL: a list's own mark). */
struct mcp_fwd {
	struct mcp_req		*req;	/* NULL once the client let go */
	struct mcp_host		*host;
	struct host_link	*link;
	int64_t			 id;	/* ours, on the link */
	char			*status; /* its last progress message */
	struct mcp_gather	*gather; /* a part of a list, or NULL */
	int			 index;	/* its host's, in gather */
	LIST_ENTRY(mcp_fwd)	 entry;
};

/* mcp_hosts_link.c — the hosts and their links */
struct mcp_host	*mcp_hosts_at(size_t);	/* NULL past the last */
int		 mcp_hosts_find(const char *, size_t, unsigned *epoch);
void		 mcp_hosts_names(struct buf *);
const char	*mcp_hosts_ended(const struct mcp_host *, unsigned epoch);
const char	*mcp_hosts_link(struct mcp_host *);
struct mcp_fwd	*mcp_hosts_fwd_new(struct mcp_req *, struct mcp_host *);
void		 mcp_hosts_fwd_free(struct mcp_fwd *);
void		 mcp_hosts_answer(struct mcp_req *, const char *result,
		     size_t len);

#endif
