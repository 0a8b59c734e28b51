/*
 * pane.c — a program's FIFOs and its tmux pane.
 *
 * The FIFOs (output, the launcher's control, standard error's) are made
 * in the runtime directory before the pane and the reaper exist, so the
 * pane can be made while the reaper starts. The pane is made over the
 * control client; its steps run as tmux callbacks, which hold the
 * program's sequence number rather than a pointer, since a program may be
 * dropped while a command is in flight:
 *
 *   FIFOs made -> [display-message for fromPaneId] -> new-window or
 *   split-window -> [resize] -> program_pane_made (the start answers) ->
 *   pipe-pane, on the next loop turn (program_pipe) -> pipe-pane answered
 *   -> program_pane_piped ("pane" to the reaper: the launcher's gate opens)
 *
 * The program waits at the launcher's gate until pipe-pane is attached,
 * so no output is lost.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "fdutil.h"
#include "log.h"
#include "server.h"
#include "xmalloc.h"

struct pane {
	uint64_t	 seq;		/* its program's */
	char		*id;		/* "%N" once made */
	unsigned	 gen;		/* tmux_generation() it belongs to */
	pid_t		 pid;
	int		 retries;
	bool		 killed;
	char		*ctl;		/* the launcher's control FIFO */
	char		*out;		/* the output FIFO pipe-pane writes */
	char		*err;		/* standard error's FIFO, or NULL */
	int		 out_rfd;	/* its read end, till the reaper's */
};

static void	pane_command(struct pane *, const char *, const char *);

#define PANE_ARG(pn)	((void *)(uintptr_t)(pn)->seq)

/* The pane of the program whose sequence number a callback holds. */
static struct pane *
pane_from_arg(void *arg, struct program **pp)
{
	*pp = program_by_seq((uint64_t)(uintptr_t)arg);
	return (*pp != NULL ? program_pane(*pp) : NULL);
}

/* Make one of the program's FIFOs in the runtime directory. */
static int
pane_mkfifo(const char *id, const char *suffix, char **path, char **cause)
{
	xasprintf(path, "%s/%s.%s", cfg.rundir, id, suffix);
	unlink(*path);
	if (mkfifo(*path, 0600) == -1) {
		if (errno == EMFILE || errno == ENFILE)
			xasprintf(cause, "cannot make FIFO %s: %s", *path,
			    fd_strerror(errno));
		else
			xasprintf(cause, "cannot make FIFO %s: %s (is the "
			    "runtime directory still there?)", *path,
			    strerror(errno));
		free(*path);
		*path = NULL;
		return (-1);
	}
	return (0);
}

/*
 * A pane for p, not yet made: its FIFOs. The output FIFO has a reader
 * from the start: ours, handed to the reaper when it is spawned. Whatever
 * reaches the pane before the reaper runs (the echo of keys typed at once,
 * say) waits in the FIFO; with no reader, pipe-pane's cat would die of
 * EPIPE on its first write and the program's output and end would never
 * be read. With p NULL (a fixture), no FIFOs.
 */
struct pane *
pane_new(struct program *p, char **cause)
{
	struct pane	*pn;
	const char	*id;

	pn = xcalloc(1, sizeof *pn);
	pn->out_rfd = -1;
	if (p == NULL)
		return (pn);
	pn->seq = program_seq(p);
	id = program_id(p);
	if (pane_mkfifo(id, "out", &pn->out, cause) == -1 ||
	    pane_mkfifo(id, "ctl", &pn->ctl, cause) == -1 ||
	    (program_spec(p)->separate_stderr &&
	    pane_mkfifo(id, "err", &pn->err, cause) == -1))
		goto fail;
	pn->out_rfd = open(pn->out, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (pn->out_rfd == -1) {
		xasprintf(cause, "cannot open FIFO %s: %s", pn->out,
		    fd_strerror(errno));
		goto fail;
	}
	return (pn);
fail:
	pane_unlink_fifos(pn, true);
	pane_free(pn);
	return (NULL);
}

/* Free a pane (its FIFOs unlinked already). */
void
pane_free(struct pane *pn)
{
	if (pn->out_rfd != -1)
		close(pn->out_rfd);
	free(pn->id);
	free(pn->ctl);
	free(pn->out);
	free(pn->err);
	free(pn);
}

/*
 * Open each FIFO once, both ways, without blocking: a launcher or a
 * pipe-pane cat blocked in open() on one (its reaper never opened it) is
 * released and sees EOF, instead of hanging on forever.
 */
void
pane_release_fifos(struct pane *pn)
{
	char	*paths[] = { pn->out, pn->ctl, pn->err };
	size_t	 i;
	int	 fd;

	for (i = 0; i < sizeof paths / sizeof *paths; i++) {
		if (paths[i] == NULL)
			continue;
		if ((fd = open(paths[i], O_RDONLY | O_NONBLOCK | O_CLOEXEC)) !=
		    -1)
			close(fd);
		if ((fd = open(paths[i], O_WRONLY | O_NONBLOCK | O_CLOEXEC)) !=
		    -1)
			close(fd);
	}
}

/* Remove the FIFOs (the reaper removes them too when it goes); with no
 * reaper holding them (release), free whatever waits in open() first. */
void
pane_unlink_fifos(struct pane *pn, bool release)
{
	char	**paths[] = { &pn->out, &pn->ctl, &pn->err };
	size_t	  i;

	if (pn->out_rfd != -1) {
		close(pn->out_rfd);
		pn->out_rfd = -1;
	}
	if (release)
		pane_release_fifos(pn);
	for (i = 0; i < sizeof paths / sizeof *paths; i++) {
		if (*paths[i] == NULL)
			continue;
		unlink(*paths[i]);
		free(*paths[i]);
		*paths[i] = NULL;
	}
}

/* The output FIFO's read end, for the reaper: the caller closes it. */
int
pane_take_out_fd(struct pane *pn)
{
	int	fd = pn->out_rfd;

	pn->out_rfd = -1;
	return (fd);
}

const char *
pane_ctl_path(const struct pane *pn)
{
	return (pn->ctl);
}

const char *
pane_out_path(const struct pane *pn)
{
	return (pn->out);
}

const char *
pane_err_path(const struct pane *pn)
{
	return (pn->err);
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

/* The pane is made: its id and its first process, on today's server. */
void
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
	return (pn->id != NULL && strcmp(pn->id, id) == 0 &&
	    pn->gen == tmux_generation());
}

/* Remove the pane over the control client (errors do not matter). */
void
pane_kill(struct pane *pn)
{
	struct buf	b = BUF_INIT;

	if (pn->id == NULL || pn->killed || !tmux_alive())
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

/* pipe-pane answered: release the launcher's gate. */
static void
pane_piped(void *arg, bool ok, const char *out, size_t len)
{
	struct program	*p;
	struct pane	*pn = pane_from_arg(arg, &p);
	char		*why;

	(void)len;
	if (pn == NULL)
		return;
	if (!ok) {
		/* start_program was answered when the pane was made. */
		xasprintf(&why, "tmux could not attach pipe-pane to %s: %s",
		    pn->id, out);
		program_abandon(p, why);
		free(why);
		return;
	}
	program_pane_piped(p);
}

/* Pipe the pane's output into the output FIFO. */
void
pane_pipe(struct pane *pn)
{
	struct buf	b = BUF_INIT, sh = BUF_INIT;

	buf_printf(&b, "pipe-pane -O -t %s ", pn->id);
	/*
	 * The FIFO path is ours: letters, digits and /._- only. Opened
	 * read-write first as fd 3, the write-only open cannot block; with
	 * fd 3 closed, cat has no read end of its own, so with no reaper
	 * reading its first write fails (EPIPE) instead of it waiting in
	 * open() for ever.
	 */
	buf_printf(&sh, "exec cat 3<>%s >%s 3>&-", pn->out, pn->out);
	tmux_quote(&b, buf_cstr(&sh));
	buf_free(&sh);
	tmux_command(buf_cstr(&b), pane_piped, PANE_ARG(pn));
	buf_free(&b);
}

/* resize-pane or resize-window answered. */
static void
pane_resized(void *arg, bool ok, const char *out, size_t len)
{
	struct program	*p;
	struct pane	*pn = pane_from_arg(arg, &p);

	(void)len;
	if (pn != NULL && !ok)
		log_warn("%s: resizing %s: %s", program_id(p), pn->id, out);
}

/* new-window or split-window answered "%N PID". */
static void
pane_made(void *arg, bool ok, const char *out, size_t len)
{
	const struct program_spec	*spec;
	struct program			*p;
	struct pane			*pn = pane_from_arg(arg, &p);
	struct buf			 b = BUF_INIT;
	char				*why, id[32];
	long				 pid;

	(void)len;
	if (pn == NULL) {
		/* Dropped meanwhile: the pane has no owner. */
		if (ok && sscanf(out, "%31s", id) == 1 && id[0] == '%') {
			buf_printf(&b, "kill-pane -t %s", id);
			tmux_command(buf_cstr(&b), NULL, NULL);
			buf_free(&b);
		}
		return;
	}
	spec = program_spec(p);
	if (!ok && !tmux_alive() && pn->ctl != NULL &&
	    spec->from_pane == NULL && pn->retries++ < 3) {
		/*
		 * The control client died under the command (the server was
		 * killed; a new client may still reach the dying server):
		 * try again on a fresh one, a few times.
		 */
		pane_command(pn, NULL, NULL);
		return;
	}
	if (!ok || sscanf(out, "%31s %ld", id, &pid) != 2 || id[0] != '%') {
		xasprintf(&why, "tmux could not make a pane for the program: "
		    "%s", ok ? "unexpected answer" : out);
		program_start_failed(p, why);
		free(why);
		return;
	}
	pane_set(pn, id, (pid_t)pid);
	if (spec->width > 0 || spec->height > 0) {
		buf_printf(&b, "%s -t %s", spec->split ? "resize-pane" :
		    "resize-window", pn->id);
		if (spec->width > 0)
			buf_printf(&b, " -x %lld", (long long)spec->width);
		if (spec->height > 0)
			buf_printf(&b, " -y %lld", (long long)spec->height);
		tmux_command(buf_cstr(&b), pane_resized, PANE_ARG(pn));
		buf_free(&b);
	}
	program_pane_made(p);
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
	const struct program_spec	*spec;
	struct program			*p = program_by_seq(pn->seq);
	struct buf			 b = BUF_INIT, t = BUF_INIT;

	spec = program_spec(p);
	if (spec->split)
		buf_adds(&b, "split-window -d -P -F '#{pane_id} #{pane_pid}'");
	else if (target != NULL)
		buf_adds(&b, "new-window -a -d -P -F '#{pane_id} #{pane_pid}'");
	else
		buf_adds(&b, "new-window -d -P -F '#{pane_id} #{pane_pid}'");
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
	if (!spec->split) {
		buf_adds(&b, " -n ");
		pane_window_name(&t, spec->argv[0]);
		tmux_quote(&b, buf_cstr(&t));
	}
	buf_free(&t);
	buf_adds(&b, " -- ");
	tmux_quote(&b, cfg.reaper_path);
	buf_adds(&b, " --launch ");
	tmux_quote(&b, pn->ctl);
	tmux_command(buf_cstr(&b), pane_made, PANE_ARG(pn));
	buf_free(&b);
}

/* display-message answered "%P<TAB>@W<TAB>path" for fromPaneId. */
static void
pane_from_pane(void *arg, bool ok, const char *out, size_t len)
{
	struct program	*p;
	struct pane	*pn = pane_from_arg(arg, &p);
	const char	*from;
	char		*tab, *why, *copy;
	size_t		 plen;

	(void)len;
	if (pn == NULL)
		return;
	from = program_spec(p)->from_pane;
	plen = strlen(from);
	if (!ok || strncmp(out, from, plen) != 0 || out[plen] != '\t' ||
	    (tab = strchr(out + plen + 1, '\t')) == NULL) {
		xasprintf(&why, "fromPaneId %s names no pane on this tmux "
		    "server; list panes with `tmux list-panes -a` or pass a "
		    "paneId that start_program returned", from);
		program_start_failed(p, why);
		free(why);
	} else {
		copy = xstrdup(out + plen + 1);
		tab = copy + (tab - (out + plen + 1));
		*tab = '\0';
		pane_command(pn, program_spec(p)->split ? from : copy,
		    tab + 1);
		free(copy);
	}
}

/* Make the pane (beside fromPaneId if given). */
void
pane_make(struct pane *pn)
{
	struct program	*p = program_by_seq(pn->seq);
	const char	*from = program_spec(p)->from_pane;
	struct buf	 b = BUF_INIT;

	if (from == NULL) {
		pane_command(pn, NULL, NULL);
		return;
	}
	buf_adds(&b, "display-message -p -t ");
	tmux_quote(&b, from);
	/* display-message falls back to another pane when the target is
	 * missing, so ask for the pane's id too and compare. */
	buf_adds(&b, " '#{pane_id}\t#{window_id}\t#{pane_current_path}'");
	tmux_command(buf_cstr(&b), pane_from_pane, PANE_ARG(pn));
	buf_free(&b);
}
