/*
 * pane.c — a program's FIFOs and its tmux pane.
 *
 * A pane is made for an owner (a program) with what it needs of the
 * program's spec (copied into its struct pane_spec), and tells its owner
 * what happens through
 * the callbacks it was made with (struct pane_cb), as tmux's job_run
 * takes its callbacks; it never looks its owner up. The FIFOs (output,
 * the launcher's control, standard error's) are made in the runtime
 * directory before the pane and the reaper exist, so the pane can be
 * made while the reaper starts. The pane is made over the control
 * client; its steps run as tmux callbacks that hold the pane itself:
 *
 *   control FIFO made -> [fromPaneId: display-message, its window, its
 *   directory] -> new-window or split-window (its answer says the pane's
 *   history-limit: one too large for the pane ceiling is removed, its
 *   launcher still at its gate) -> [resize] -> made() -> pane_pipe ->
 *   pipe-pane answered -> piped() (the reaper is told: the launcher's
 *   gate opens once the pane's writer is there)
 *
 * The output's and standard error's FIFOs (pane_fifos) are made while
 * tmux makes the pane: nothing opens them before the pane is piped.
 *
 * The owner may let go of its pane (pane_free) while a command is in
 * flight: the pane then lives on, owned by nobody, until the last answer
 * has come (a pane made meanwhile is killed), so a callback never finds
 * its pane freed.
 *
 * An adopted program's pane (pane_adopt) was made by an earlier
 * progmux: it has no FIFOs, its id and process come from its reaper's
 * lease, and tmux is asked whether that pane is there with that process
 * (and for its terminal); one that is not is never killed or typed into
 * by that id, which may name another pane.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/stat.h>

#include "compat.h"
#include "fdutil.h"
#include "log.h"
#include "proto.h"
#include "rundir.h"
#include "server.h"
#include "xmalloc.h"

/* A program's FIFOs, in the order of pane_take_fds: output, the
 * launcher's control, standard error's. */
enum { PANE_OUT, PANE_CTL, PANE_ERR, PANE_NFIFO };

static const char *const pane_fifo_suffix[PANE_NFIFO] = { "out", "ctl",
    "err" };

/* What the pane needs of its program, copied when it is made (a pane
 * outlives its owner while tmux still answers it). */
struct pane_spec {
	char		*program_id;	/* names the FIFOs: "p3.out" */
	char		*argv0;		/* names the window */
	char		*from_pane;	/* or NULL */
	bool		 split;
	int64_t		 width, height;	/* 0: tmux's default */
	bool		 separate_stderr;
};

struct pane {
	struct pane_spec	 spec;		/* a copy of what was asked */
	const struct pane_cb	*cb;
	void			*owner;		/* NULL once let go of */
	int			 inflight;	/* tmux commands answering us */

	char			*id;		/* "%N" once made */
	unsigned		 gen;		/* tmux_generation() of it */
	pid_t			 pid;
	char			*tty;		/* its terminal's path, or NULL */
	int			 retries;
	bool			 killed;
	bool			 foreign;	/* adopted, and not the pane
						   its reaper said */
	char			*dir;		/* its runtime directory */
	char			 dir_id[48];	/* "DEV:INO" (rundir.h) */
	char			*name[PANE_NFIFO]; /* "pN.out" ..., or NULL */
	int			 fd[PANE_NFIFO]; /* our ends, till the reaper's */
};

static void	pane_command(struct pane *, const char *, const char *);
static void	pane_release(struct pane *);
static void	pane_set(struct pane *, const char *, pid_t);

/* Queue a tmux command whose answer comes to fn with the pane. */
static void
pane_tmux(struct pane *pn, const char *line, tmux_cb fn)
{
	pn->inflight++;
	tmux_command(line, fn, pn);
}

/*
 * An answer for the pane came: the pane, or NULL if its owner let go of
 * it meanwhile (and then it is freed with the last answer).
 */
static struct pane *
pane_answered(void *arg)
{
	struct pane	*pn = arg;

	pn->inflight--;
	if (pn->owner != NULL)
		return (pn);
	if (pn->inflight == 0)
		pane_release(pn);
	return (NULL);
}

/*
 * Make one of the program's FIFOs in the runtime directory (through its
 * descriptor, never its path) and open our end: the output's and
 * standard error's for reading, the control FIFO both ways, so each
 * always has a reader and the launcher's read of the control FIFO sees
 * EOF only once nobody of ours holds it.
 */
static int
pane_mkfifo(struct pane *pn, int i, char **cause)
{
	static const int	 flags[PANE_NFIFO] = { O_RDONLY, O_RDWR,
	    O_RDONLY };

	xasprintf(&pn->name[i], "%s.%s", pn->spec.program_id,
	    pane_fifo_suffix[i]);
	unlinkat(cfg.rundir_fd, pn->name[i], 0);
	if (compat_mkfifoat(cfg.rundir_fd, pn->name[i], 0600) == -1 ||
	    (pn->fd[i] = rundir_open_fifo(cfg.rundir_fd, pn->name[i], flags[i] |
	    O_NONBLOCK)) == -1) {
		xasprintf(cause, "cannot make FIFO %s/%s: %s", pn->dir,
		    pn->name[i], fd_strerror(errno));
		return (-1);
	}
	return (0);
}

/* An empty pane: no FIFOs, no owner. */
static struct pane *
pane_alloc(void)
{
	struct pane	*pn;
	int		 i;

	pn = xcalloc(1, sizeof *pn);
	for (i = 0; i < PANE_NFIFO; i++)
		pn->fd[i] = -1;
	return (pn);
}

/*
 * A pane for owner, not yet made: its control FIFO, in the runtime
 * directory (made again if it went away meanwhile), which its launcher
 * opens first. pane_fifos makes the others.
 */
struct pane *
pane_new(const char *program_id, const struct program_spec *spec,
    const struct pane_cb *cb, void *owner, char **cause)
{
	struct pane	*pn = pane_alloc();

	pn->spec.program_id = xstrdup(program_id);
	pn->spec.argv0 = xstrdup(spec->argv[0]);
	pn->spec.from_pane = spec->from_pane != NULL ?
	    xstrdup(spec->from_pane) : NULL;
	pn->spec.split = spec->split;
	pn->spec.width = spec->width;
	pn->spec.height = spec->height;
	pn->spec.separate_stderr = spec->separate_stderr;
	pn->cb = cb;
	pn->owner = owner;
	if (config_rundir_check(cause) == -1)
		goto fail;
	pn->dir = xstrdup(cfg.rundir);
	memcpy(pn->dir_id, cfg.rundir_id, sizeof pn->dir_id);
	if (pane_mkfifo(pn, PANE_CTL, cause) == -1)
		goto fail;
	return (pn);
fail:
	pn->owner = NULL;
	pane_unlink_fifos(pn, true);
	pane_release(pn);
	return (NULL);
}

/*
 * The output's FIFO and standard error's (with separateStderr), made
 * while tmux makes the pane: nothing opens them before it is piped.
 * Whatever reaches the pane before the reaper runs (the echo of keys
 * typed at once, say) waits in the output FIFO, whose reader is ours
 * until the reaper takes it. On failure the owner drops the pane.
 */
int
pane_fifos(struct pane *pn, char **cause)
{
	if (pane_mkfifo(pn, PANE_OUT, cause) == -1)
		return (-1);
	if (pn->spec.separate_stderr && pane_mkfifo(pn, PANE_ERR, cause) == -1)
		return (-1);
	return (0);
}

#ifdef PROGMUX_TESTING
/* A pane that ran nothing (the fuzz harness's fixtures): only an id. */
struct pane *
pane_fixture(const char *id)
{
	struct pane	*pn = pane_alloc();

	pane_set(pn, id, 0);
	return (pn);
}
#endif

/* Free a pane now. */
static void
pane_release(struct pane *pn)
{
	int	i;

	for (i = 0; i < PANE_NFIFO; i++) {
		if (pn->fd[i] != -1)
			close(pn->fd[i]);
		free(pn->name[i]);
	}
	free(pn->spec.program_id);
	free(pn->spec.argv0);
	free(pn->spec.from_pane);
	free(pn->dir);
	free(pn->id);
	free(pn->tty);
	free(pn);
}

/* The owner lets go of its pane (its FIFOs unlinked already): freed now,
 * or once tmux has answered what is in flight. */
void
pane_free(struct pane *pn)
{
	pn->owner = NULL;
	if (pn->inflight == 0)
		pane_release(pn);
}

/*
 * Close the ends we still hold (no reaper took them): a launcher waiting
 * at its gate reads EOF on its control FIFO and leaves, and a pane's
 * writer finds no reader.
 */
void
pane_release_fifos(struct pane *pn)
{
	int	i;

	for (i = 0; i < PANE_NFIFO; i++) {
		if (pn->fd[i] != -1) {
			close(pn->fd[i]);
			pn->fd[i] = -1;
		}
	}
}

/* Remove the FIFOs' names (the launcher and the pane's writer remove
 * theirs once open; the reaper's exit, or the directory's removal, the
 * rest), and with release the ends we hold. */
void
pane_unlink_fifos(struct pane *pn, bool release)
{
	int	i;

	if (release)
		pane_release_fifos(pn);
	/* (In a runtime directory made since, they went with the old.) */
	if (strcmp(pn->dir_id, cfg.rundir_id) != 0)
		return;
	for (i = 0; i < PANE_NFIFO; i++) {
		if (pn->name[i] != NULL)
			unlinkat(cfg.rundir_fd, pn->name[i], 0);
	}
}

/* Our ends of the FIFOs, for the reaper (-1 for one there is not): the
 * caller closes them. */
void
pane_take_fds(struct pane *pn, int *out, int *ctl, int *err)
{
	*out = pn->fd[PANE_OUT];
	*ctl = pn->fd[PANE_CTL];
	*err = pn->fd[PANE_ERR];
	pn->fd[PANE_OUT] = pn->fd[PANE_CTL] = pn->fd[PANE_ERR] = -1;
}

/* Standard error's FIFO, by its name in the runtime directory, or NULL. */
const char *
pane_err_name(const struct pane *pn)
{
	return (pn->name[PANE_ERR]);
}

/* "%N" once made, else NULL. */
const char *
pane_id(const struct pane *pn)
{
	return (pn->id);
}

pid_t
pane_pid(const struct pane *pn)
{
	return (pn->pid);
}

/*
 * Does the program read its terminal with the input hidden: in line mode
 * (ICANON) with echo off (ECHO clear), as getpass, sudo, ssh, su and
 * read -s leave it? A full-screen program or a line editor (readline)
 * clears ICANON too and echoes for itself: not hidden. 1 hidden, 0 not,
 * -1 when it cannot be told (no terminal known, or it is gone). The
 * terminal's settings are read from a descriptor of our own on it,
 * opened without becoming our controlling terminal and without
 * blocking, and closed at once: POSIX, and exact (the settings the
 * program's read will use).
 */
int
pane_input_hidden(const struct pane *pn)
{
	struct termios	t;
	int		fd, r;

	if (pn->tty == NULL)
		return (-1);
	fd = open(pn->tty, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd == -1)
		return (-1);
	r = tcgetattr(fd, &t);
	close(fd);
	if (r == -1)
		return (-1);
	return ((t.c_lflag & ECHO) == 0 && (t.c_lflag & ICANON) != 0);
}

/* The pane is made: its id and its first process, on today's server. */
static void
pane_set(struct pane *pn, const char *id, pid_t pid)
{
	free(pn->id);
	pn->id = xstrdup(id);
	pn->pid = pid;
	pn->gen = tmux_generation();
}

/* Is this pane id on the tmux server of now? */
bool
pane_is(const struct pane *pn, const char *id)
{
	return (pn->id != NULL && strcmp(pn->id, id) == 0 && !pn->foreign &&
	    pn->gen == tmux_generation());
}

static void	pane_adopt_ask(struct pane *);

/* tmux answered "ID PID TTY" for an adopted pane: is it the one its
 * reaper named? (display-message falls back to another pane when the
 * target is missing: the id says.) The answer is the control client's
 * of now, so the pane is of its generation; if that client was replaced
 * under the question (one not attached in time, at start-up), ask its
 * successor, a few times. */
static void
pane_adopted(void *arg, bool ok, const char *out, size_t len)
{
	struct pane	*pn = pane_answered(arg);
	char		 id[32], tty[256];
	long		 pid = 0;
	int		 n;

	(void)len;
	if (pn == NULL)
		return;
	if (!ok && (pn->gen != tmux_generation() || !tmux_alive()) &&
	    pn->retries++ < 3) {
		pane_adopt_ask(pn);
		return;
	}
	pn->gen = tmux_generation();
	n = ok ? sscanf(out, "%31s %ld %255s", id, &pid, tty) : 0;
	if (n < 2 || strcmp(id, pn->id) != 0 || (pid_t)pid != pn->pid) {
		log_warn("%s: adopted, but pane %s is %s on this tmux server: "
		    "it is not removed or typed into by progmux",
		    pn->spec.program_id, pn->id, ok ? "another pane's now" :
		    "not there");
		pn->foreign = true;
		return;
	}
	free(pn->tty);
	pn->tty = n == 3 && tty[0] == '/' ? xstrdup(tty) : NULL;
}

/* An adopted program's pane: id and its first process, as its reaper
 * said; tmux is asked whether it is so. */
struct pane *
pane_adopt(const char *program_id, const char *id, pid_t pid)
{
	struct pane	*pn = pane_alloc();

	pn->spec.program_id = xstrdup(program_id);
	pn->owner = pn;		/* (answers are for it: no callbacks) */
	pane_set(pn, id, pid);
	pane_adopt_ask(pn);
	return (pn);
}

/* Ask tmux, over the control client of now, what pane pn's id is. */
static void
pane_adopt_ask(struct pane *pn)
{
	struct buf	 b = BUF_INIT;

	pn->gen = tmux_generation();
	buf_adds(&b, "display-message -p -t ");
	tmux_quote(&b, pn->id);
	buf_adds(&b, " '#{pane_id} #{pane_pid} #{pane_tty}'");
	pane_tmux(pn, buf_cstr(&b), pane_adopted);
	buf_free(&b);
}

/* Remove the pane over the control client (errors do not matter). */
void
pane_kill(struct pane *pn)
{
	struct buf	b = BUF_INIT;

	if (pn->id == NULL || pn->killed || pn->foreign || !tmux_alive())
		return;
	pn->killed = true;
	if (pn->gen != tmux_generation()) {
		/* Another client, maybe another server: %N may be another
		 * pane now. Its own launcher removes it, if it is there. */
		return;
	}
	buf_adds(&b, "kill-pane -t ");
	tmux_quote(&b, pn->id);
	tmux_command(buf_cstr(&b), NULL, NULL);
	buf_free(&b);
}

/* pipe-pane answered: the owner tells the reaper (or gives up). */
static void
pane_piped(void *arg, bool ok, const char *out, size_t len)
{
	struct pane	*pn = pane_answered(arg);
	char		*why;

	(void)len;
	if (pn == NULL)
		return;
	if (!ok) {
		/* start_program was answered when the pane was made. */
		xasprintf(&why, "tmux could not attach pipe-pane to %s: %s%s",
		    pn->id, out, tmux_error_hint(out));
		pn->cb->pipe_failed(pn->owner, why);
		free(why);
		return;
	}
	pn->cb->piped(pn->owner);
}

/*
 * Pipe the pane's output into the output FIFO, through our own writer
 * (`progmux-reaper --pipe`, pipe.c): it reaches the FIFO only through the
 * directory we made, drains tmux however slow we are (keeping up to the
 * text ceiling, at most PROTO_BACKLOG_MAX: the reaper writes to disk,
 * it falls behind only when stopped), and frames what it
 * passes on. Every word is ours (a plain path, numbers, a name), quoted
 * for sh -c inside a word quoted for tmux.
 */
void
pane_pipe(struct pane *pn)
{
	struct buf	b = BUF_INIT, sh = BUF_INIT;
	int64_t		backlog = cfg.output_max_bytes;

	if (backlog > PROTO_BACKLOG_MAX)
		backlog = PROTO_BACKLOG_MAX;
	buf_printf(&b, "pipe-pane -O -t %s ", pn->id);
	buf_printf(&sh, "exec '%s' --pipe '%s' %s %s %lld", cfg.reaper_path,
	    pn->dir, pn->dir_id, pn->name[PANE_OUT], (long long)backlog);
	tmux_quote(&b, buf_cstr(&sh));
	buf_free(&sh);
	pane_tmux(pn, buf_cstr(&b), pane_piped);
	buf_free(&b);
}

/* resize-pane or resize-window answered. */
static void
pane_resized(void *arg, bool ok, const char *out, size_t len)
{
	struct pane	*pn = pane_answered(arg);

	(void)len;
	if (pn != NULL && !ok)
		log_warn("%s: resizing %s: %s", pn->spec.program_id, pn->id,
		    out);
}

/* Kill a pane tmux made for nobody (its owner let go meanwhile). */
static void
pane_kill_stray(const char *out)
{
	struct buf	b = BUF_INIT;
	char		id[32];

	if (sscanf(out, "%31s", id) == 1 && id[0] == '%') {
		buf_adds(&b, "kill-pane -t ");
		tmux_quote(&b, id);
		tmux_command(buf_cstr(&b), NULL, NULL);
		buf_free(&b);
	}
}

static char	*pane_too_large(const struct pane *, const char *);

/* new-window or split-window answered "%N PID HISTORY TTY". */
static void
pane_made(void *arg, bool ok, const char *out, size_t len)
{
	struct pane	*pn = pane_answered(arg);
	struct buf	 b = BUF_INIT;
	char		*why, id[32], history[32];
	const char	*tty;
	long		 pid;
	int		 n, m;

	(void)len;
	if (pn == NULL) {
		if (ok)
			pane_kill_stray(out);
		return;
	}
	if (!ok && !tmux_alive() && pn->spec.from_pane == NULL &&
	    pn->retries++ < 3) {
		/*
		 * The control client died under the command (the server was
		 * killed; a new client may still reach the dying server):
		 * try again on a fresh one, a few times.
		 */
		pane_command(pn, NULL, NULL);
		return;
	}
	if (!ok || sscanf(out, "%31s %ld%n", id, &pid, &n) != 2 ||
	    id[0] != '%') {
		xasprintf(&why, "tmux could not make a pane for the program: "
		    "%s%s", ok ? "unexpected answer" : out,
		    ok ? "" : tmux_error_hint(out));
		pn->cb->failed(pn->owner, why);
		free(why);
		return;
	}
	pane_set(pn, id, (pid_t)pid);
	/* Its history-limit, then the path of its terminal, if tmux said (a
	 * path never holds a space, a tmux without pane_tty says nothing). */
	history[0] = '\0';
	if (sscanf(out + n, " %31[0-9]%n", history, &m) == 1)
		n += m;
	tty = out + n;
	while (*tty == ' ')
		tty++;
	free(pn->tty);
	pn->tty = *tty == '/' ? xstrndup(tty, strcspn(tty, " \r\n")) : NULL;
	/* The one check of the pane ceiling that counts: the pane's own
	 * history-limit. One too large goes before its launcher's gate
	 * opens: its program never runs. */
	if ((why = pane_too_large(pn, history)) != NULL) {
		pane_kill(pn);
		pn->cb->failed(pn->owner, why);
		free(why);
		return;
	}
	if (pn->spec.width > 0 || pn->spec.height > 0) {
		buf_printf(&b, "%s -t %s", pn->spec.split ? "resize-pane" :
		    "resize-window", pn->id);
		if (pn->spec.width > 0)
			buf_printf(&b, " -x %lld", (long long)pn->spec.width);
		if (pn->spec.height > 0)
			buf_printf(&b, " -y %lld", (long long)pn->spec.height);
		pane_tmux(pn, buf_cstr(&b), pane_resized);
		buf_free(&b);
	}
	pn->cb->made(pn->owner);
}

/* A window name from argv[0]: its base name, plain characters only. */
static void
pane_window_name(struct buf *b, const char *argv0)
{
	const char	*base = strrchr(argv0, '/');
	size_t		 n = 0;

	base = base ? base + 1 : argv0;
	for (; *base != '\0' && n < 32; base++, n++) {
		if (strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		    "0123456789._-+", *base) != NULL)
			buf_addc(b, *base);
		else
			buf_addc(b, '_');
	}
	if (n == 0)
		buf_adds(b, "program");
}

/* The command that makes the pane, running the launcher. */
static void
pane_command(struct pane *pn, const char *target, const char *cwd)
{
	struct buf	b = BUF_INIT, t = BUF_INIT;

	if (pn->spec.split)
		buf_adds(&b, "split-window");
	else
		buf_adds(&b, target != NULL ? "new-window -a" : "new-window");
	buf_adds(&b, " -d -P -F '#{pane_id} #{pane_pid} #{history_limit} "
	    "#{pane_tty}'");
	buf_adds(&b, " -t ");
	if (target != NULL)
		tmux_quote(&b, target);
	else {
		buf_printf(&t, "=%s:", cfg.session);
		tmux_quote(&b, buf_cstr(&t));
		buf_reset(&t);
	}
	if (cwd != NULL && *cwd != '\0') {
		buf_adds(&b, " -c ");
		tmux_quote(&b, cwd);
	}
	/* The launcher gives up on its reaper if we die before it comes. */
	buf_printf(&b, " -e PROGMUX_FRONT_PID=%ld", (long)getpid());
	if (!pn->spec.split) {
		buf_adds(&b, " -n ");
		pane_window_name(&t, pn->spec.argv0);
		tmux_quote(&b, buf_cstr(&t));
	}
	buf_free(&t);
	buf_adds(&b, " -- ");
	tmux_quote(&b, cfg.reaper_path);
	buf_adds(&b, " --launch ");
	tmux_quote(&b, pn->dir);
	buf_addc(&b, ' ');
	tmux_quote(&b, pn->dir_id);
	buf_addc(&b, ' ');
	tmux_quote(&b, pn->name[PANE_CTL]);
	pane_tmux(pn, buf_cstr(&b), pane_made);
	buf_free(&b);
}

/*
 * Is the pane too large for the pane ceiling, counting what tmux keeps
 * of it: its width times its height and its history (its history-limit,
 * which tmux gives every new pane from its session; none if tmux did not
 * say)? If so, why (for the start's error), else NULL. Checked when
 * tmux has made the pane, before anything runs in it or it is resized;
 * for fromPaneId before it is made too.
 */
static char *
pane_too_large(const struct pane *pn, const char *history)
{
	long long	 w, h, lines;
	char		*why, *end;

	w = pn->spec.width > 0 ? pn->spec.width : 80;
	h = pn->spec.height > 0 ? pn->spec.height : 24;
	lines = strtoll(history, &end, 10);
	if (end == history || lines < 0)
		lines = 0;		/* not told: the visible cells only */
	if (w * (h + lines) <= cfg.pane_max_cells)
		return (NULL);
	xasprintf(&why, "pane too large: %lld columns x (%lld rows + %lld "
	    "lines of history, the session's history-limit) is %lld cells "
	    "tmux may keep, more than the %lld allowed (PROGMUX_PANE_MAX_CELLS "
	    "or --pane-max-cells raises it); ask for a smaller width or "
	    "height", w, h, lines, w * (h + lines),
	    (long long)cfg.pane_max_cells);
	return (why);
}

/* display-message answered "%P<TAB>@W<TAB>history<TAB>path" for
 * fromPaneId. */
static void
pane_from_pane(void *arg, bool ok, const char *out, size_t len)
{
	struct pane	*pn = pane_answered(arg);
	const char	*from;
	char		*copy, *f[4], *save;
	size_t		 i;

	(void)len;
	if (pn == NULL)
		return;
	from = pn->spec.from_pane;
	copy = xstrdup(ok ? out : "");
	f[0] = strtok_r(copy, "\t", &save);
	for (i = 1; i < 4; i++)
		f[i] = strtok_r(NULL, i < 3 ? "\t" : "", &save);
	if (f[0] == NULL || strcmp(f[0], from) != 0 || f[2] == NULL) {
		xasprintf(&save, "fromPaneId %s names no pane on this tmux "
		    "server; list panes with `tmux list-panes -a` or pass a "
		    "paneId that start_program returned", from);
		pn->cb->failed(pn->owner, save);
		free(save);
	} else if ((save = pane_too_large(pn, f[2])) != NULL) {
		pn->cb->failed(pn->owner, save);
		free(save);
	} else
		pane_command(pn, pn->spec.split ? from : f[1],
		    f[3] != NULL ? f[3] : "");
	free(copy);
}

/* Make the pane: at once in our session, or beside fromPaneId once that
 * pane's window and directory are known (and its size fits the ceiling). */
void
pane_make(struct pane *pn)
{
	const char	*from = pn->spec.from_pane;
	struct buf	 b = BUF_INIT;

	if (from == NULL) {
		pane_command(pn, NULL, NULL);
		return;
	}
	buf_adds(&b, "display-message -p -t ");
	tmux_quote(&b, from);
	/* display-message falls back to another pane when the target is
	 * missing, so ask for the pane's id too and compare. */
	buf_adds(&b, " '#{pane_id}\t#{window_id}\t#{history-limit}\t"
	    "#{pane_current_path}'");
	pane_tmux(pn, buf_cstr(&b), pane_from_pane);
	buf_free(&b);
}
