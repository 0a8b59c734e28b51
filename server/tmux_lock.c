/*
 * tmux_lock.c — the attach lock: our instances attach one at a time.
 *
 * tmux 3.3a (and later, up to at least 3.5a) can crash when a
 * notification reaches a control client still identifying itself, which
 * happens when two attach at the same moment. Our own instances take
 * turns: one lock per user, held from spawning the client until it is
 * attached (tmux.c takes it and lets it go). A private (robust) server
 * needs none. Failing to lock is not fatal; it only loses the protection.
 *
 * A lock held by another is not waited for in a call: a timer in the
 * loop tries it again every TMUX_LOCK_RETRY_MS until it is ours or
 * TMUX_LOCK_WAIT_MS have passed, and the loop answers other requests
 * meanwhile.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "fdutil.h"
#include "log.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define TMUX_LOCK_WAIT_MS	3000
#define TMUX_LOCK_RETRY_MS	10	/* how often the loop tries it */

static struct {
	int		   fd;		/* held (or tried), or -1 */
	int64_t		   deadline;	/* then going without it */
	struct loop_timer *timer;	/* the next try */
	void		 (*cb)(void);	/* once ours, or the wait is over */
} tl = { .fd = -1 };

static void	tmux_lock_on_timer(void *);

/*
 * The lock's path, where only the user can write: tmux's own directory
 * (${TMUX_TMPDIR:-/tmp}/tmux-UID, made 0700 as tmux makes it). NULL if
 * that is not a private directory of ours.
 */
static char *
tmux_lock_path(void)
{
	const char	*base = getenv("TMUX_TMPDIR");
	struct stat	 sb;
	char		*dir, *path;
	uid_t		 uid = getuid();

	if (base == NULL || *base == '\0')
		base = "/tmp";
	xasprintf(&dir, "%s/tmux-%u", base, (unsigned)uid);
	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		log_warn("cannot make %s: %s; attaching without the lock", dir,
		    strerror(errno));
		free(dir);
		return (NULL);
	}
	if (lstat(dir, &sb) == -1 || !S_ISDIR(sb.st_mode) ||
	    sb.st_uid != uid || (sb.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		log_warn("%s is not a private directory of ours; attaching "
		    "without the lock", dir);
		free(dir);
		return (NULL);
	}
	xasprintf(&path, "%s/progmux-attach.lock", dir);
	free(dir);
	return (path);
}

/* Open the lock file: -1 if it cannot be had or is not a regular file
 * of ours (a name that is, is not used). */
static int
tmux_lock_open(void)
{
	struct stat	 sb;
	char		*path;
	int		 fd;

	if ((path = tmux_lock_path()) == NULL)
		return (-1);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW |
	    O_NONBLOCK, 0600);
	if (fd == -1) {
		log_warn("attach lock %s: %s; attaching without it", path,
		    errno == ELOOP ? "a symbolic link, not followed" :
		    fd_strerror(errno));
		free(path);
		return (-1);
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != getuid()) {
		log_warn("attach lock %s is not a regular file of ours; "
		    "attaching without it", path);
		close(fd);
		free(path);
		return (-1);
	}
	free(path);
	return (fd);
}

/* Try again at the retry's time, or at the wait's end if that is
 * sooner. */
static void
tmux_lock_arm(void)
{
	int64_t	when = now_ms() + TMUX_LOCK_RETRY_MS;

	if (tl.timer == NULL)
		tl.timer = loop_timer_new(tmux_lock_on_timer, NULL);
	loop_timer_set(tl.timer, when < tl.deadline ? when : tl.deadline);
}

/*
 * Take the attach lock if we can: false then, and the caller goes on
 * (with the lock, or without it if it cannot be had). True if another
 * holds it: cb runs from the loop once it is ours or TMUX_LOCK_WAIT_MS
 * have passed, unless tmux_lock_release comes first.
 */
bool
tmux_lock_take(void (*cb)(void))
{
	if (cfg.robust || tl.fd != -1)
		return (false);
	if ((tl.fd = tmux_lock_open()) == -1)
		return (false);
	if (flock(tl.fd, LOCK_EX | LOCK_NB) == 0)
		return (false);
	if (errno != EWOULDBLOCK) {
		close(tl.fd);
		tl.fd = -1;
		return (false);
	}
	tl.deadline = now_ms() + TMUX_LOCK_WAIT_MS;
	tl.cb = cb;
	tmux_lock_arm();
	log_debug("the attach lock is held; waiting up to %d ms",
	    TMUX_LOCK_WAIT_MS);
	return (true);
}

/* The timer: try the lock again; once it is ours, or the wait is over
 * (going without it), tell the caller. */
static void
tmux_lock_on_timer(void *arg)
{
	void	(*cb)(void) = tl.cb;

	(void)arg;
	if (tl.fd == -1 || cb == NULL)
		return;
	if (flock(tl.fd, LOCK_EX | LOCK_NB) == -1) {
		if (errno == EWOULDBLOCK && now_ms() < tl.deadline) {
			tmux_lock_arm();
			return;
		}
		log_warn("the attach lock stayed held for %d ms; attaching "
		    "without it", TMUX_LOCK_WAIT_MS);
		tmux_lock_release();
	}
	tl.cb = NULL;
	cb();
}

/* Let go of the lock (closing it releases it), or stop waiting for it. */
void
tmux_lock_release(void)
{
	if (tl.fd != -1) {
		close(tl.fd);
		tl.fd = -1;
	}
	tl.cb = NULL;
	loop_timer_clear(tl.timer);
}
