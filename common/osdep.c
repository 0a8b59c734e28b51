/*
 * osdep.c — what every port shares (osdep.h): the walks of the process
 * table the port reads (osdep_table), the parent watch, an exit
 * descriptor of the parent (osdep_pidfd), the parse of macOS's
 * KERN_PROCARGS2 (pure, so that every system's tests reach it), where
 * runtime files go on every system but macOS, and the walk of a tree's
 * listening ports, whose sockets the port reads (osdep_ports_proc).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "osdep.h"
#include "osdep-port.h"

#ifndef __APPLE__
/* TMPDIR is kept as it is: only macOS sweeps it within days, of files
 * still in use (osdep-darwin.c). Linux's systemd ages /tmp by 10 days,
 * and XDG_RUNTIME_DIR, read first, lasts as long as the user's sessions. */
int
osdep_unswept_dir(const char *base, char *buf, size_t size)
{
	(void)base;
	(void)buf;
	(void)size;
	return (0);
}
#endif

int
osdep_parent_watch(pid_t parent)
{
	int	fd;

	if ((fd = osdep_pidfd(parent)) == -1)
		return (-1);
	/* Watching whoever has its pid now would be no watch. */
	if (getppid() != parent) {
		close(fd);
		errno = ESRCH;
		return (-1);
	}
	return (fd);
}

/* What the kernel pads the executable's path to: a pointer's size in
 * the process read (every process is 64-bit on macOS 13 and newer). */
#define OSDEP_PROCARGS_ALIGN	8

ssize_t
osdep_procargs(const char *args, size_t len, const char **words)
{
	const char	*p, *end = args + len, *w;
	size_t		 off;
	int		 argc;

	if (len < sizeof argc)
		return (-1);
	memcpy(&argc, args, sizeof argc);
	p = args + sizeof argc;
	if (argc <= 0 || (w = memchr(p, '\0', (size_t)(end - p))) == NULL)
		return (-1);
	/*
	 * The words begin where the path's padding ends, not at the first
	 * byte that is no NUL: an empty first word is a NUL of its own.
	 */
	off = (size_t)(w + 1 - p);
	off = (off + OSDEP_PROCARGS_ALIGN - 1) & ~(size_t)
	    (OSDEP_PROCARGS_ALIGN - 1);
	if (off > (size_t)(end - p))
		return (-1);
	for (w++; w < p + off; w++)
		if (*w != '\0')
			return (-1);
	*words = p + off;
	for (w = *words; argc > 0; argc--) {
		if (w >= end || (w = memchr(w, '\0', (size_t)(end - w))) ==
		    NULL)
			return (-1);
		w++;
	}
	return ((ssize_t)(w - *words));
}

/* For qsort and bsearch: by pid. */
static int
osdep_cmp(const void *a, const void *b)
{
	const struct osdep_row	*x = a, *y = b;

	return (x->pid < y->pid ? -1 : x->pid > y->pid);
}

/* Is t[i] a descendant of root? Memoised in mark (1 yes, 2 no); the walk
 * up stops at root, at a process not in the table, or at a loop. */
static bool
osdep_below(struct osdep_row *t, size_t n, size_t i, pid_t root)
{
	struct osdep_row	 key, *p;
	size_t			 depth = 0, k, path[64];
	int			 v;

	for (k = i;; ) {
		if (t[k].mark != 0) {
			v = t[k].mark;
			break;
		}
		if (t[k].ppid == root) {
			v = 1;
			break;
		}
		key.pid = t[k].ppid;
		if (depth == sizeof path / sizeof *path || t[k].ppid <= 1 ||
		    (p = bsearch(&key, t, n, sizeof *t, osdep_cmp)) == NULL) {
			v = 2;
			break;
		}
		path[depth++] = k;
		k = (size_t)(p - t);
		if (k == i) {
			v = 2;
			break;
		}
	}
	t[i].mark = v;
	while (depth > 0)
		t[path[--depth]].mark = v;
	return (v == 1);
}

/* Signal one process of a walk (SIGTERM with SIGCONT; 0: none). */
static void
osdep_signal_one(pid_t pid, int sig)
{
	if (sig != 0)
		kill(pid, sig);
	if (sig == SIGTERM)
		kill(pid, SIGCONT);
}

int
osdep_signal_descendants(pid_t root, int sig)
{
	struct osdep_row	*t = NULL;
	ssize_t			 n;
	size_t			 i;
	int			 count = 0;

	if ((n = osdep_table(&t)) == -1)
		return (-1);
	qsort(t, (size_t)n, sizeof *t, osdep_cmp);
	for (i = 0; i < (size_t)n; i++) {
		if (t[i].pid == root || !osdep_below(t, (size_t)n, i, root))
			continue;
		count++;
		osdep_signal_one(t[i].pid, sig);
	}
	free(t);
	return (count);
}

int
osdep_signal_group_session(pid_t pgrp, pid_t sid, int sig)
{
	struct osdep_row	*t = NULL;
	ssize_t			 n;
	size_t			 i;
	int			 count = 0;
	pid_t			 self = getpid();

	if ((n = osdep_table(&t)) == -1)
		return (-1);
	for (i = 0; i < (size_t)n; i++) {
		if (t[i].pid == self || !((pgrp > 0 && t[i].pgrp == pgrp) ||
		    (sid > 0 && t[i].sid == sid)))
			continue;
		count++;
		osdep_signal_one(t[i].pid, sig);
	}
	free(t);
	return (count);
}

/* Begin a walk of the ports root's tree listens on (nothing is read
 * before its first step); NULL with ENOSYS where the port cannot tell. */
struct osdep_ports *
osdep_ports_new(pid_t root)
{
	struct osdep_ports	*w;

	if (!(osdep_features() & OSDEP_PORTS)) {
		errno = ENOSYS;
		return (NULL);
	}
	if ((w = calloc(1, sizeof *w)) == NULL ||
	    (w->tree = calloc(OSDEP_PORTS_PROCS, sizeof *w->tree)) == NULL) {
		free(w);
		return (NULL);
	}
	w->tree[w->ntree++] = root;
	return (w);
}

/* The next process of the tree to look at, its children queued behind
 * it; 0 once there is none. */
static pid_t
osdep_ports_take(struct osdep_ports *w)
{
	pid_t	pid, kids[256];
	int	i, n;

	while (w->next < w->ntree) {
		pid = w->tree[w->next++];
		n = osdep_ports_children(pid, kids, (int)(sizeof kids /
		    sizeof *kids));
		for (i = 0; i < n; i++) {
			if (w->ntree == OSDEP_PORTS_PROCS) {
				w->cut |= OSDEP_PORTS_CUT_PROCS;
				break;
			}
			w->tree[w->ntree++] = kids[i];
		}
		if (osdep_ports_proc(w, pid) == 0)
			return (pid);
	}
	return (0);
}

int
osdep_ports_step(struct osdep_ports *w, int work)
{
	if (!w->opened) {
		/* The port's first look, a step of its own; one that fails
		 * finds nothing. */
		w->opened = true;
		w->over = osdep_ports_open(w, w->tree[0]) != 0;
		return (w->over ? 1 : 0);
	}
	while (!w->over && work-- > 0) {
		if (w->cur == 0 && (w->cur = osdep_ports_take(w)) == 0) {
			osdep_ports_done(w);
			w->over = true;
			break;
		}
		if (w->sockets >= OSDEP_PORTS_SOCKETS) {
			w->cut |= OSDEP_PORTS_CUT_SOCKETS;
			osdep_ports_done(w);
			w->over = true;
			break;
		}
		if (osdep_ports_next(w) == 1)
			w->cur = 0;
	}
	return (w->over ? 1 : 0);
}

void
osdep_ports_add(struct osdep_ports *w, int family, const unsigned char *addr,
    unsigned port)
{
	struct osdep_listen	*l;
	size_t			 i, len = family == AF_INET ? 4 : 16;

	for (i = 0; i < w->nfound; i++) {
		l = &w->found[i];
		if (l->family == family && l->port == port &&
		    memcmp(l->addr, addr, len) == 0)
			return;
	}
	if (w->nfound == OSDEP_PORTS_FOUND) {
		w->cut |= OSDEP_PORTS_CUT_FOUND;
		return;
	}
	l = &w->found[w->nfound++];
	memset(l, 0, sizeof *l);
	l->family = family;
	memcpy(l->addr, addr, len);
	l->port = port;
}

size_t
osdep_ports_found(const struct osdep_ports *w, const struct osdep_listen **v)
{
	*v = w->found;
	return (w->nfound);
}

int
osdep_ports_cut(const struct osdep_ports *w)
{
	return (w->cut);
}

void
osdep_ports_free(struct osdep_ports *w)
{
	if (w == NULL)
		return;
	osdep_ports_close(w);
	free(w->tree);
	free(w);
}
