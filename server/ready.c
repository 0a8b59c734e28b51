/*
 * ready.c — the readiness clauses a wait takes beside until: untilPort
 * (the program's process tree listens on a port, or on any), untilUrl
 * (an http:// URL of this machine answers below 400), untilFile (a file
 * is there, its content matching untilFileMatch if given) and
 * untilQuietMs (no output for that long after a line). The first that
 * holds ends the wait (watch.c), and the reason names it.
 *
 * What costs something is asked only while a wait needs it, with a
 * bounded backoff (READY_GAP_MIN_MS doubling to READY_GAP_MAX_MS): a
 * port walk (ports.c, a slice of each loop turn), a GET (probe.c, from
 * the loop), a look at the file. A walk or a GET that ends tells the
 * wait to look again (its kick); the rest are looked at on the wait's
 * own timer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "compat.h"
#include "fdutil.h"
#include "osdep.h"
#include "pattern.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define READY_GAP_MIN_MS	50	/* between looks, at first */
#define READY_GAP_MAX_MS	500	/* and at most */
#define READY_FILE_MAX		(1024 * 1024)	/* bytes of it matched */

struct ready {
	bool		 has_port;
	unsigned	 port;		/* untilPort; 0: any */
	struct ports	*walk;		/* the last walk, over or not */
	int64_t		 port_at;	/* the next, at the earliest */
	int64_t		 port_gap;

	char		*url;		/* untilUrl */
	struct probe	*probe;
	int64_t		 url_at;
	int64_t		 url_gap;

	char		*file;		/* untilFile, absolute */
	struct pattern	*match;		/* untilFileMatch, or NULL */
	int64_t		 file_at;
	int64_t		 file_gap;
	int		 file_seen;	/* 0 not there, 1 there, 2 matches */
	char		*file_why;	/* a match that could not be made */

	int64_t		 quiet_ms;	/* untilQuietMs, or 0 */

	void		(*kick)(void *);
	void		*arg;
};

/* A walk or a GET is over: the wait looks again. */
static void
ready_kick(void *arg)
{
	struct ready	*rd = arg;

	if (rd->kick != NULL)
		rd->kick(rd->arg);
}

/* untilFile as a path progmux can look at: absolute, or relative to
 * the program's start directory (dir, NULL if none was given). */
static int
ready_file(struct ready *rd, const char *file, const char *dir,
    char **cause)
{
	if (*file == '/')
		rd->file = xstrdup(file);
	else if (dir != NULL && *dir == '/')
		xasprintf(&rd->file, "%s/%s", dir, file);
	else {
		xasprintf(cause, "untilFile \"%.200s\" is relative and the "
		    "program has no absolute startDirectory to take it from: "
		    "give its absolute path", file);
		return (-1);
	}
	return (0);
}

/*
 * The clauses args ask for (untilPort, untilUrl, untilFile with
 * untilFileMatch, untilQuietMs) into *rdp, NULL if none; dir is the
 * program's startDirectory (or NULL), for a relative untilFile. -1 with
 * *cause saying what is wrong and what to do.
 */
int
ready_parse(struct ready **rdp, const struct json *args, const char *dir,
    char **cause)
{
	struct ready	*rd;
	const char	*s, *m;
	char		*why = NULL;
	int64_t		 port;
	size_t		 len;

	*rdp = NULL;
	port = tools_arg_int(args, "untilPort", -1);
	s = tools_arg_str(args, "untilFile", NULL);
	m = tools_arg_str(args, "untilFileMatch", &len);
	if (m != NULL && s == NULL) {
		xasprintf(cause, "untilFileMatch goes with untilFile: it is "
		    "what that file's content must match");
		return (-1);
	}
	if (port < 0 && s == NULL && tools_arg_str(args, "untilUrl",
	    NULL) == NULL && tools_arg_int(args, "untilQuietMs", 0) <= 0)
		return (0);
	if (port >= 0 && !(osdep_features() & OSDEP_PORTS)) {
		xasprintf(cause, "untilPort cannot be waited for here: this "
		    "system cannot tell which ports a process listens on; wait "
		    "with untilUrl or until instead");
		return (-1);
	}
	rd = xcalloc(1, sizeof *rd);
	rd->port_gap = rd->url_gap = rd->file_gap = READY_GAP_MIN_MS;
	rd->has_port = port >= 0;
	rd->port = port >= 0 ? (unsigned)port : 0;
	rd->quiet_ms = tools_arg_int(args, "untilQuietMs", 0);
	if ((rd->url = (char *)tools_arg_str(args, "untilUrl", NULL)) !=
	    NULL) {
		rd->url = xstrdup(rd->url);
		if ((rd->probe = probe_new(rd->url, ready_kick, rd,
		    cause)) == NULL)
			goto fail;
	}
	if (s != NULL && ready_file(rd, s, dir, cause) == -1)
		goto fail;
	if (m != NULL && (rd->match = pattern_compile(m, len, PATTERN_LINES,
	    &why)) == NULL) {
		xasprintf(cause, "untilFileMatch %s; it takes a PCRE2 pattern, "
		    "as until does", why);
		free(why);
		goto fail;
	}
	*rdp = rd;
	return (0);
fail:
	ready_free(rd);
	return (-1);
}

/* From now on a walk or a GET that ends calls kick(arg). */
void
ready_start(struct ready *rd, void (*kick)(void *), void *arg)
{
	rd->kick = kick;
	rd->arg = arg;
}

/* Let go of the clauses and what they were asking. */
void
ready_free(struct ready *rd)
{
	if (rd == NULL)
		return;
	ports_free(rd->walk);
	probe_free(rd->probe);
	pattern_free(rd->match);
	free(rd->url);
	free(rd->file);
	free(rd->file_why);
	free(rd);
}

/* The next look: gap from now, then a longer one. */
static int64_t
ready_backoff(int64_t now, int64_t *gap)
{
	int64_t	at = now + *gap;

	*gap *= 2;
	if (*gap > READY_GAP_MAX_MS)
		*gap = READY_GAP_MAX_MS;
	return (at);
}

/* Is the file there (1), its content matching (2)? 0: not there. */
static int
ready_file_look(struct ready *rd)
{
	struct stat	 st;
	struct buf	 b = BUF_INIT;
	char		*why = NULL;
	ssize_t		 n;
	int		 fd, ret = 1;

	if (stat(rd->file, &st) == -1)
		return (0);
	if (rd->match == NULL)
		return (2);
	if (!S_ISREG(st.st_mode) || (fd = open(rd->file, O_RDONLY |
	    O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) == -1)
		return (1);
	while (b.len < READY_FILE_MAX && (n = fd_read_into(fd, &b,
	    READY_FILE_MAX - b.len)) > 0)
		;
	close(fd);
	switch (pattern_match(rd->match, b.data != NULL ? b.data : "",
	    b.len, &why)) {
	case 1:
		ret = 2;
		break;
	case -1:
		free(rd->file_why);
		rd->file_why = why;
		break;
	}
	buf_free(&b);
	return (ret);
}

/* untilQuietMs: a whole line since floor, and quiet since; else when it
 * would be quiet enough into *next. */
static bool
ready_quiet(struct ready *rd, struct program *p, size_t floor, int64_t now,
    int64_t *next)
{
	const struct textbuf	*t = program_text(p);
	int64_t			 at = program_text_ms(p) + rd->quiet_ms;

	if (floor >= t->len || compat_memrchr(t->data + floor, '\n',
	    t->len - floor) == NULL)
		return (false);		/* its text is told by an event */
	if (now >= at)
		return (true);
	if (at < *next)
		*next = at;
	return (false);
}

/*
 * Does a clause hold for p now (floor: where the wait's text begins)?
 * The reason it names (SEL_R_PORT ...), or -1 and, in *next, when to look
 * again at the latest (a walk or a GET that ends kicks sooner).
 */
int
ready_check(struct ready *rd, struct program *p, size_t floor, int64_t now,
    int64_t *next)
{
	pid_t	pid;

	if (rd->quiet_ms > 0 && ready_quiet(rd, p, floor, now, next))
		return (SEL_R_QUIET);
	if (rd->file != NULL && now >= rd->file_at) {
		if ((rd->file_seen = ready_file_look(rd)) == 2)
			return (SEL_R_FILE);
		rd->file_at = ready_backoff(now, &rd->file_gap);
	}
	if (rd->file != NULL && rd->file_at < *next)
		*next = rd->file_at;
	if (rd->has_port) {
		if (rd->walk != NULL && ports_over(rd->walk) &&
		    ports_has(rd->walk, rd->port))
			return (SEL_R_PORT);
		if ((rd->walk == NULL || ports_over(rd->walk)) &&
		    now >= rd->port_at) {
			if ((pid = program_pid(p)) > 0) {
				ports_free(rd->walk);
				rd->walk = ports_walk(pid, ready_kick, rd);
				rd->port_at = ready_backoff(now, &rd->port_gap);
			} else	/* not running yet (its start tells too) */
				rd->port_at = now + READY_GAP_MIN_MS;
		}
		/* (A walk under way says when it is over.) */
		if ((rd->walk == NULL || ports_over(rd->walk)) &&
		    rd->port_at < *next)
			*next = rd->port_at;
	}
	if (rd->probe != NULL) {
		if (!probe_busy(rd->probe) && probe_status(rd->probe) >= 100 &&
		    probe_status(rd->probe) < 400)
			return (SEL_R_URL);
		if (!probe_busy(rd->probe) && now >= rd->url_at) {
			probe_start(rd->probe);
			rd->url_at = ready_backoff(now, &rd->url_gap);
		}
		if (!probe_busy(rd->probe) && rd->url_at < *next)
			*next = rd->url_at;
	}
	return (-1);
}

/* The walk that found untilPort's port, for the reply (the clauses let
 * go of it); NULL if none did. */
struct ports *
ready_take_ports(struct ready *rd)
{
	struct ports	*ps = rd->walk;

	if (ps == NULL || !ports_over(ps) || !ports_has(ps, rd->port))
		return (NULL);
	rd->walk = NULL;
	return (ps);
}

/*
 * What the clauses saw last, for a wait that ended otherwise: "[untilUrl
 * http://127.0.0.1:8000/: last answered 503; untilPort 8000: not
 * listened on]".
 */
void
ready_note(struct buf *b, const struct ready *rd)
{
	const char	*sep = "[";
	int		 st;

	if (rd->has_port) {
		if (rd->port == 0)
			buf_printf(b, "%suntilPort 0: no port listened on", sep);
		else
			buf_printf(b, "%suntilPort %u: not listened on", sep,
			    rd->port);
		sep = "; ";
	}
	if (rd->probe != NULL) {
		st = probe_status(rd->probe);
		buf_printf(b, "%suntilUrl %.200s: ", sep, rd->url);
		if (st > 0)
			buf_printf(b, "last answered %d", st);
		else if (*probe_why(rd->probe) != '\0')
			buf_printf(b, "no answer (%s)", probe_why(rd->probe));
		else
			buf_adds(b, "not asked yet");
		sep = "; ";
	}
	if (rd->file != NULL) {
		buf_printf(b, "%suntilFile %.200s: %s", sep, rd->file,
		    rd->file_seen == 0 ? "not there" : "there, its content "
		    "not matching untilFileMatch");
		if (rd->file_why != NULL)
			buf_printf(b, " (%s)", rd->file_why);
		sep = "; ";
	}
	if (rd->quiet_ms > 0) {
		buf_printf(b, "%suntilQuietMs %lld: never that quiet after a "
		    "line", sep, (long long)rd->quiet_ms);
		sep = "; ";
	}
	if (*sep == ';')
		buf_adds(b, "]\n");
}
