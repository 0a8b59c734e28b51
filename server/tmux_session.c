/*
 * tmux_session.c — progmux's own session, and the idle window it is
 * made with.
 *
 * The control client attaches with `new-session -A -s SESSION`: to our
 * session, made (with the server) if it is missing. A session cannot be
 * empty, so one we make gets a window running our idle process
 * (`progmux-reaper --idle OURPID RUNDIR`, separate words, no shell),
 * never the person's shell. Once attached, the session's pane whose
 * process has exactly that command line (read through /proc) is ours:
 * it is made to close when it exits, and removed at exit. A session we
 * only attached to has no idle pane of ours. The commands are built
 * here and sent by the client (tmux.c), which calls this file, never the
 * other way round. When programs outlive us on their leases, the idle
 * window is left to close by itself once we have gone (tmux_session_
 * linger): it waits for our control client to go first, so that none of
 * the windows left can be the session's last to close while tmux still
 * holds a departing control client (tmux 3.3a can crash then).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "osdep.h"
#include "server.h"
#include "xmalloc.h"

static struct {
	char	 pidarg[32];	/* our pid, as the idle process is told */
	char	*idle_pane;	/* our idle window's pane, once found */
	bool	 linger;	/* at exit, it closes by itself */
} ts;

/*
 * The words after `tmux -C` (with the socket's and robust mode's -f
 * before them): attach to our session, making it with our idle process
 * in its window if need be. Put at argv[*n] on; they stay valid until
 * the next call.
 */
void
tmux_session_argv(char **argv, size_t *n)
{
	snprintf(ts.pidarg, sizeof ts.pidarg, "%ld", (long)getpid());
	argv[(*n)++] = (char *)"new-session";
	argv[(*n)++] = (char *)"-A";
	argv[(*n)++] = (char *)"-s";
	argv[(*n)++] = cfg.session;
	/* Separate words: exec'd as they are, no shell, no tmux parsing. */
	argv[(*n)++] = cfg.reaper_path;
	argv[(*n)++] = (char *)"--idle";
	argv[(*n)++] = ts.pidarg;
	argv[(*n)++] = cfg.rundir;
}

/* Is pid our own idle process (progmux-reaper --idle OURPID RUNDIR)? */
static bool
tmux_session_is_idle(long pid)
{
	char	 cmd[4096], want[4096];
	ssize_t	 n;
	int	 wn;

	if ((n = osdep_cmdline((pid_t)pid, cmd, sizeof cmd)) <= 0)
		return (false);
	wn = snprintf(want, sizeof want, "%s%c--idle%c%ld%c%s%c",
	    cfg.reaper_path, '\0', '\0', (long)getpid(), '\0', cfg.rundir,
	    '\0');
	return (wn > 0 && (size_t)wn < sizeof want && n == wn &&
	    memcmp(cmd, want, (size_t)n) == 0);
}

/*
 * The session's panes (tmux_session_find's answer): the one running our
 * idle process is ours (a session we made). It closes when it exits,
 * even if the person's configuration says remain-on-exit: the command
 * that says so is put in cmd (true), and we remove it ourselves at exit.
 */
bool
tmux_session_found(const char *out, size_t len, struct buf *cmd)
{
	char	*text, *line, *save, id[32];
	long	 pid;
	bool	 found = false;

	if (ts.idle_pane != NULL)
		return (false);
	text = xstrndup(out, len);
	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%%%30[0-9] %ld", id + 1, &pid) != 2 ||
		    !tmux_session_is_idle(pid))
			continue;
		id[0] = '%';
		ts.idle_pane = xstrdup(id);
		buf_printf(cmd, "set-option -p -t %s remain-on-exit off", id);
		found = true;
		break;
	}
	free(text);
	return (found);
}

/* Attached: the command that lists the session's panes (true), unless
 * ours is known. */
bool
tmux_session_find(struct buf *cmd)
{
	struct buf	t = BUF_INIT;

	if (ts.idle_pane != NULL)
		return (false);
	buf_printf(&t, "=%s", cfg.session);
	buf_adds(cmd, "list-panes -s -t ");
	tmux_quote(cmd, buf_cstr(&t));
	buf_adds(cmd, " -F '#{pane_id} #{pane_pid}'");
	buf_free(&t);
	return (true);
}

/*
 * At exit: our idle window goes (the command in cmd, true), if we made
 * the session. If our programs' panes are gone too and no one else's
 * window is in it, the session goes with it, and tmux exits if it was
 * the last: we leave the server as we found it.
 */
bool
tmux_session_leave(struct buf *cmd)
{
	if (ts.idle_pane == NULL || ts.linger)
		return (false);
	buf_printf(cmd, "kill-pane -t %s", ts.idle_pane);
	return (true);
}

/* At exit, programs outlive us: the idle window closes by itself, after
 * our control client has gone. */
void
tmux_session_linger(void)
{
	ts.linger = true;
}

/* The client went: the pane id may name another pane now. */
void
tmux_session_forget(void)
{
	free(ts.idle_pane);
	ts.idle_pane = NULL;
}
