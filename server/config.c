/*
 * config.c — settings from the environment, then flags.
 *
 * An MCP client gives a server only its environment and argv, so every
 * setting is an environment variable first; each flag mirrors one and wins
 * over it. libtmux's variables are honoured too, so a configuration
 * written for libtmux's server works unchanged.
 *
 * The runtime directory is made here too, and robust mode's private tmux
 * server lives in it: its socket's path is chosen here, and its
 * configuration written here (config_tmux_conf, at the first start).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "fdutil.h"
#include "log.h"
#include "osdep.h"
#include "proto.h"
#include "rundir.h"
#include "server.h"
#include "xmalloc.h"

#define CONFIG_RUNDIR_WAIT_MS	1000	/* for our tmux server to go, at exit */

struct config cfg;

struct setting {
	const char	*flag;		/* --flag */
	const char	*env;		/* its variable */
	const char	*alt_env;	/* libtmux's variable, if any */
	int		 kind;		/* 's' string, 'i' integer, 'b' bool,
					   'y' safety tier, 't' tool list,
					   'h' hosts */
	void		*where;
	int64_t		 min, max;
	const char	*dflt;
	const char	*help;
};

static const struct setting settings[] = {
	{ "socket-name", "PROGMUX_SOCKET_NAME", "LIBTMUX_SOCKET_NAME", 's',
	  &cfg.socket_name, 0, 0, NULL,
	  "tmux socket name (tmux -L); default: tmux's own default" },
	{ "socket-path", "PROGMUX_SOCKET_PATH", "LIBTMUX_SOCKET_PATH", 's',
	  &cfg.socket_path, 0, 0, NULL,
	  "tmux socket path (tmux -S); wins over socket-name" },
	{ "tmux-bin", "PROGMUX_TMUX_BIN", "LIBTMUX_TMUX_BIN", 's',
	  &cfg.tmux_bin, 0, 0, "tmux", "the tmux binary" },
	{ "session", "PROGMUX_SESSION", NULL, 's', &cfg.session, 0, 0,
	  "progmux", "session that holds programs started without "
	  "fromPaneId" },
	{ "robust", "PROGMUX_ROBUST", NULL, 'b', &cfg.robust, 0, 1, "0",
	  "robust mode: a private tmux server that dies with progmux" },
	{ "wait-max-ms", "PROGMUX_WAIT_MAX_MS", NULL, 'i', &cfg.wait_max_ms,
	  0, 3600000, "30000", "ceiling on any wait (read_program, "
	  "run_program)" },
	{ "secret-page-ms", "PROGMUX_SECRET_PAGE_MS", NULL, 'i',
	  &cfg.secret_page_ms, 1, 3600000, "300000", "how long "
	  "ask_user_secret's page takes a secret" },
	{ "output-max-bytes", "PROGMUX_OUTPUT_MAX_BYTES", NULL, 'i',
	  &cfg.output_max_bytes, 1024, (int64_t)1 << 40, "1073741824",
	  "text kept per program, on disk in the runtime directory; beyond "
	  "it the middle is dropped, the head and the end kept (outputCut)" },
	{ "total-output-max-bytes", "PROGMUX_TOTAL_OUTPUT_MAX_BYTES", NULL,
	  'i', &cfg.total_output_max_bytes, 1024, (int64_t)1 << 50,
	  "4294967296", "text kept for all programs together; a start past "
	  "it, or with the runtime directory's file system full, is "
	  "refused" },
	{ "keep-ended", "PROGMUX_KEEP_ENDED", NULL, 'i', &cfg.keep_ended, 0,
	  100000, "32", "ended programs kept readable; one unread is never "
	  "dropped: this many unread refuse a start" },
	{ "max-programs", "PROGMUX_MAX_PROGRAMS", NULL, 'i',
	  &cfg.max_programs, 1, 100000, "64", "programs alive at once" },
	{ "lifetime-max-ms", "PROGMUX_LIFETIME_MAX_MS", NULL, 'i',
	  &cfg.lifetime_max_ms, 1000, 86400000, "3600000",
	  "ceiling on lifetimeMs" },
	{ "orphan-grace-ms", "PROGMUX_ORPHAN_GRACE_MS", NULL, 'i',
	  &cfg.orphan_grace_ms, 0, 86400000, "60000", "how long a program "
	  "outlives progmux for the next progmux to adopt it (desktop mode; "
	  "never past its lifetime); 0: it ends with progmux. Robust mode: "
	  "always 0" },
	{ "pane-max-cells", "PROGMUX_PANE_MAX_CELLS", NULL, 'i',
	  &cfg.pane_max_cells, 1, 100000000, "4000000", "largest pane a start "
	  "may ask for, width x (height + the session's history-limit): "
	  "what tmux may keep of it" },
	{ "safety", "PROGMUX_SAFETY", NULL, 'y', &cfg.safety, 0, 0,
	  "destructive", "tools offered: readonly (read_program, "
	  "capture_pane, list_programs, view_update), mutating (also "
	  "start_program, run_program, send_keys, ask_user_secret) or "
	  "destructive (also stop_program)" },
	{ "tools", "PROGMUX_TOOLS", NULL, 't', &cfg.tools, 0, 0, NULL,
	  "only these tools (comma-separated names), within the safety "
	  "tier; default: all of the tier" },
	{ "host", "PROGMUX_HOSTS", NULL, 'h', &cfg.hosts, 0, 0, NULL,
	  "a host start_program and run_program may name: NAME=COMMAND, "
	  "COMMAND (run by /bin/sh -c) starting a progmux on its standard "
	  "input and output there; repeatable (the variable: one a line)" },
};

/* PROGMUX_SAFETY's values, by SAFETY_* number. */
static const char *config_tiers[] = { "destructive", "mutating", "readonly" };
#define NTIERS (sizeof config_tiers / sizeof config_tiers[0])
#define NSETTINGS (sizeof settings / sizeof settings[0])

/* A safety tier by name. */
static int
config_set_tier(const struct setting *s, const char *from, const char *v,
    char **cause)
{
	size_t	i;

	for (i = 0; i < NTIERS; i++)
		if (v != NULL && strcmp(v, config_tiers[i]) == 0) {
			*(int64_t *)s->where = (int64_t)i;
			return (0);
		}
	xasprintf(cause, "%s: \"%s\" is not a safety tier (use readonly, "
	    "mutating or destructive)", from, v ? v : "");
	return (-1);
}

/* A list of tool names, kept as given (tools.c checks the names, of
 * every value given, when it starts) with where it came from. Empty:
 * none. */
static int
config_set_tools(const struct setting *s, const char *from, const char *v)
{
	struct cfg_given	*g;

	free(*(char **)s->where);
	*(char **)s->where = v != NULL && *v != '\0' ? xstrdup(v) : NULL;
	if (*(char **)s->where != NULL) {
		g = xcalloc(1, sizeof *g);
		g->from = xstrdup(from);
		g->value = xstrdup(v);
		g->next = cfg.tools_given;
		cfg.tools_given = g;
	}
	return (0);
}

/*
 * Is name (len bytes) a host's name: 1 to CFG_HOST_NAME_MAX letters,
 * digits, '-' or '_'? With epoch, also such a name followed by '.' and
 * the number of its link ("box.2", as ids carry it).
 */
bool
config_host_name_ok(const char *name, size_t len, bool epoch)
{
	size_t	i, n;

	n = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_-");
	if (n > len)
		n = len;
	if (n == 0 || n > CFG_HOST_NAME_MAX)
		return (false);
	if (n == len)
		return (true);
	if (!epoch || name[n] != '.' || len - n < 2 || len - n > 10 ||
	    name[n + 1] == '0')
		return (false);
	for (i = n + 1; i < len; i++)
		if (name[i] < '0' || name[i] > '9')
			return (false);
	return (true);
}

/* The configured host named name (len bytes), or NULL. */
const struct cfg_host *
config_host(const char *name, size_t len)
{
	size_t	i;

	for (i = 0; i < cfg.nhosts; i++)
		if (strlen(cfg.hosts[i].name) == len &&
		    memcmp(cfg.hosts[i].name, name, len) == 0)
			return (&cfg.hosts[i]);
	return (NULL);
}

/* One host, "NAME=COMMAND" (len bytes), from setting from. */
static int
config_add_host(const char *from, const char *v, size_t len, char **cause)
{
	const char	*eq = memchr(v, '=', len), *c;
	size_t		 n;

	if (eq == NULL || !config_host_name_ok(v, (size_t)(eq - v), false)) {
		xasprintf(cause, "%s: \"%.*s\" is not NAME=COMMAND with a NAME "
		    "of 1 to %d letters, digits, - or _", from, (int)len, v,
		    CFG_HOST_NAME_MAX);
		return (-1);
	}
	n = (size_t)(eq - v);
	for (c = eq + 1; c < v + len && (*c == ' ' || *c == '\t'); c++)
		;
	if (c == v + len) {
		xasprintf(cause, "%s: host %.*s has no command (NAME=COMMAND)",
		    from, (int)n, v);
		return (-1);
	}
	if (config_host(v, n) != NULL) {
		xasprintf(cause, "%s: host %.*s is given twice", from, (int)n,
		    v);
		return (-1);
	}
	if (cfg.nhosts == CFG_HOSTS_MAX) {
		xasprintf(cause, "%s: more than %d hosts", from,
		    CFG_HOSTS_MAX);
		return (-1);
	}
	cfg.hosts = xreallocarray(cfg.hosts, cfg.nhosts + 1,
	    sizeof *cfg.hosts);
	cfg.hosts[cfg.nhosts].name = xstrndup(v, n);
	cfg.hosts[cfg.nhosts].command = xstrndup(c, (size_t)(v + len - c));
	cfg.nhosts++;
	return (0);
}

/* Forget the hosts given so far. */
static void
config_hosts_clear(void)
{
	size_t	i;

	for (i = 0; i < cfg.nhosts; i++) {
		free(cfg.hosts[i].name);
		free(cfg.hosts[i].command);
	}
	free(cfg.hosts);
	cfg.hosts = NULL;
	cfg.nhosts = 0;
}

/*
 * Hosts: PROGMUX_HOSTS holds one NAME=COMMAND a line (empty lines and
 * lines starting with # are passed over); each --host gives one, and
 * the flags, if any, replace the variable's.
 */
static int
config_set_hosts(const char *from, const char *v, char **cause)
{
	const char	*p, *nl;
	size_t		 len;

	if (v == NULL)
		v = "";
	if (strncmp(from, "--", 2) == 0) {
		if (!cfg.hosts_flag)
			config_hosts_clear();
		cfg.hosts_flag = true;
		return (config_add_host(from, v, strlen(v), cause));
	}
	for (p = v; *p != '\0'; p = *nl == '\n' ? nl + 1 : nl) {
		if ((nl = strchr(p, '\n')) == NULL)
			nl = p + strlen(p);
		len = (size_t)(nl - p);
		while (len > 0 && (p[len - 1] == '\r' || p[len - 1] == ' '))
			len--;
		while (len > 0 && (*p == ' ' || *p == '\t')) {
			p++;
			len--;
		}
		if (len == 0 || *p == '#')
			continue;
		if (config_add_host(from, p, len, cause) == -1)
			return (-1);
	}
	return (0);
}

/* Set one setting from text; -1 with *cause when the value is bad. */
static int
config_set(const struct setting *s, const char *from, const char *v,
    char **cause)
{
	char		*end;
	long long	 n;

	switch (s->kind) {
	case 's':
		free(*(char **)s->where);
		/* Empty: the default (none for the socket settings). */
		if (v == NULL || *v == '\0')
			v = s->dflt;
		*(char **)s->where = v != NULL ? xstrdup(v) : NULL;
		return (0);
	case 'b':
		if (v == NULL || strcmp(v, "1") == 0 || strcmp(v, "true") == 0 ||
		    strcmp(v, "yes") == 0 || strcmp(v, "on") == 0)
			*(bool *)s->where = true;
		else if (*v == '\0' || strcmp(v, "0") == 0 ||
		    strcmp(v, "false") == 0 || strcmp(v, "no") == 0 ||
		    strcmp(v, "off") == 0)
			*(bool *)s->where = false;
		else {
			xasprintf(cause, "%s: \"%s\" is not a boolean (use 1 "
			    "or 0)", from, v);
			return (-1);
		}
		return (0);
	case 'y':
		return (config_set_tier(s, from, v, cause));
	case 't':
		return (config_set_tools(s, from, v));
	case 'h':
		return (config_set_hosts(from, v, cause));
	default:
		errno = 0;
		n = v == NULL ? 0 : strtoll(v, &end, 10);
		if (v == NULL || *v == '\0' || *end != '\0' || errno != 0 ||
		    n < s->min || n > s->max) {
			xasprintf(cause, "%s: \"%s\" is not a whole number "
			    "from %lld to %lld", from, v ? v : "",
			    (long long)s->min, (long long)s->max);
			return (-1);
		}
		*(int64_t *)s->where = n;
		return (0);
	}
}

static void
config_usage(void)
{
	size_t	i;

	printf("usage: progmux [--flag=value ...]\n"
	    "An MCP server on stdio that runs programs in tmux panes.\n\n"
	    "Each flag mirrors an environment variable; the flag wins.\n");
	for (i = 0; i < NSETTINGS; i++) {
		const struct setting *s = &settings[i];

		printf("  --%-18s %-26s %s%s%s%s\n", s->flag, s->env, s->help,
		    s->dflt ? " (default " : "", s->dflt ? s->dflt : "",
		    s->dflt ? ")" : "");
		if (s->alt_env)
			printf("  %-20s %-26s also read, as libtmux does\n",
			    "", s->alt_env);
	}
	printf("  --%-18s %-26s %s\n", "check", "", "check tmux, the socket, "
	    "the runtime directory and each host, print the settings, exit");
	printf("  --%-18s %-26s %s\n", "help", "", "this text");
	printf("  --%-18s %-26s %s\n", "version", "", "print the version");
}

/*
 * Where the runtime directory goes: XDG_RUNTIME_DIR, else TMPDIR, else
 * /tmp (one that is unset, empty or not writable is passed over), into
 * buf without a trailing slash, and which variable chose it. Where the
 * system sweeps TMPDIR or /tmp of files unused for days (macOS), a
 * directory it never sweeps instead (osdep_unswept_dir): a robust run
 * lasts longer than that, and its socket, lock and config are never
 * read again once made.
 */
static const char *
config_rundir_base(const char **var, char *buf, size_t size)
{
	static const char	*vars[] = { "XDG_RUNTIME_DIR", "TMPDIR" };
	const char		*v = NULL;
	size_t			 i, n;

	*var = NULL;
	for (i = 0; i < sizeof vars / sizeof *vars; i++) {
		v = getenv(vars[i]);
		if (v != NULL && *v != '\0' && access(v, W_OK) == 0) {
			*var = vars[i];
			break;
		}
	}
	if (*var == NULL)
		v = NULL;
	if ((*var == NULL || i == 1) &&
	    osdep_unswept_dir(v, buf, size) == 1 && access(buf, W_OK) == 0)
		return (buf);
	snprintf(buf, size, "%s", v != NULL ? v : "/tmp");
	n = strlen(buf);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	return (buf);
}

/*
 * A tmux named without a slash is the first on PATH, else one where
 * macOS's package managers put it (tmux_dirs), found once and run by
 * its path by every tmux command of ours (the reapers' and the
 * keeper's too); one found nowhere is left as named, and its first run
 * says how to install tmux.
 */
static void
config_tmux_bin(void)
{
	char	path[PATH_MAX];

	if (strchr(cfg.tmux_bin, '/') == NULL && tmux_search(cfg.tmux_bin,
	    getenv("PATH"), tmux_dirs, path, sizeof path) == 0) {
		free(cfg.tmux_bin);
		cfg.tmux_bin = xstrdup(path);
	}
}

/*
 * The rendezvous of the leases (rundir.h), beside the runtime directory:
 * without it a program cannot outlive progmux to be adopted, and its
 * grace is 0 (said once, on stderr).
 */
static void
config_lease(int bfd, const char *base)
{
	char	 name[64], *cause = NULL;
	int	 fd;

	if (cfg.lease_fd != -1)
		return;		/* made at the first start: kept */
	if ((fd = rundir_lease_open(bfd, name, sizeof name, &cause)) == -1) {
		log_warn("no program can outlive progmux to be adopted: %s/%s; "
		    "remove it, or point TMPDIR elsewhere", base, cause);
		free(cause);
		cfg.orphan_grace_ms = 0;
		return;
	}
	cfg.lease_fd = fd_above(fd, PROTO_FD_END);
	xasprintf(&cfg.lease_dir, "%s/%s", base, name);
	rundir_id(cfg.lease_fd, cfg.lease_id, sizeof cfg.lease_id);
}

/*
 * Make the runtime directory: private, 0700, under a parent no other
 * user can change (rundir_base_open refuses any other: another user could
 * swap our directory for theirs), made and then only reached through its
 * descriptor, with its lock held for as long as we or a reaper of ours
 * lives. Directories there of instances that died whole go first
 * (rundir.h).
 */
static int
config_rundir(char **cause)
{
	struct sockaddr_un	 sa;
	const char		*base, *var;
	char			 name[32], *why = NULL, *path, buf[PATH_MAX];
	int			 bfd, dfd, fd;

	base = config_rundir_base(&var, buf, sizeof buf);
	/* Robust mode's private socket, <dir>/tmux, must fit sun_path (104
	 * bytes on macOS, 108 on Linux) with its NUL. */
	if (cfg.robust && strlen(base) + strlen("/" RUNDIR_PREFIX "XXXXXX/tmux")
	    >= sizeof sa.sun_path) {
		xasprintf(cause, "the runtime directory under %s would be too "
		    "long for robust mode's tmux socket: %zu bytes, and a "
		    "socket's path holds %zu. Set %s to a shorter directory",
		    base, strlen(base) + strlen("/" RUNDIR_PREFIX
		    "XXXXXX/tmux"), sizeof sa.sun_path - 1, var != NULL ? var :
		    "TMPDIR");
		return (-1);
	}
	if ((bfd = rundir_base_open(base, &why)) == -1) {
		xasprintf(cause, "cannot make the runtime directory under %s "
		    "(%s): %s, so another user could replace it. Set %s to "
		    "a directory only you (or root) can change, such as one "
		    "under your home directory", base, var != NULL ? var :
		    "the default: XDG_RUNTIME_DIR and TMPDIR are not set",
		    why, var != NULL ? var : "TMPDIR");
		free(why);
		return (-1);
	}
	rundir_sweep(base);
	if (!cfg.robust)
		config_lease(bfd, base);
	/* (Above the descriptors reapers are given: see below.) */
	bfd = fd_above(bfd, PROTO_FD_END);
	if ((dfd = fd_above(rundir_make(bfd, name, sizeof name),
	    PROTO_FD_END)) == -1) {
		xasprintf(cause, "cannot make a runtime directory under %s: "
		    "%s (set %s to a writable directory)", base,
		    fd_strerror(errno), var ? var : "TMPDIR");
		close(bfd);
		return (-1);
	}
	xasprintf(&path, "%s/%s", base, name);
	/* The path reaches tmux and sh -c (pipe-pane): keep it plain. */
	if (strspn(path, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789/._-") != strlen(path)) {
		xasprintf(cause, "runtime directory %s has characters other "
		    "than letters, digits and /._- (set %s to a plain path)",
		    path, var ? var : "TMPDIR");
		goto fail;
	}
	/*
	 * The lock lives at the fd number reapers get it as (anything we
	 * inherited there is close-on-exec and unused): no other descriptor
	 * posix_spawn moves can be that number, and a reaper gets it from a
	 * copy (reaper_link.c).
	 */
	if ((fd = rundir_lock_at(dfd)) == -1 || (fd != PROTO_LOCK_FD &&
	    compat_dup3(fd, PROTO_LOCK_FD, O_CLOEXEC) == -1)) {
		xasprintf(cause, "cannot make the lock file in runtime "
		    "directory %s: %s", path, fd_strerror(errno));
		if (fd != -1)
			close(fd);
		goto fail;
	}
	if (fd != PROTO_LOCK_FD)
		close(fd);
	close(bfd);
	free(cfg.rundir);
	if (cfg.rundir_fd != -1)
		close(cfg.rundir_fd);
	cfg.lock_fd = PROTO_LOCK_FD;
	cfg.rundir = path;
	cfg.rundir_fd = dfd;
	rundir_id(dfd, cfg.rundir_id, sizeof cfg.rundir_id);
	return (0);

fail:
	close(dfd);
	unlinkat(bfd, name, AT_REMOVEDIR);
	close(bfd);
	free(path);
	return (-1);
}

/*
 * Is the runtime directory still there, under its path? If it was
 * removed (or its path now names another directory), make a new one: a
 * start then goes on in it, and nothing is read from or run out of what
 * took the old one's place. The old lock is let go (reapers of ours in
 * the old directory keep their own hold).
 */
int
config_rundir_check(char **cause)
{
	struct stat	st, want;

	if (cfg.rundir_fd != -1 && fstat(cfg.rundir_fd, &want) == 0 &&
	    want.st_nlink > 0 && lstat(cfg.rundir, &st) == 0 &&
	    st.st_dev == want.st_dev && st.st_ino == want.st_ino)
		return (0);
	log_warn("the runtime directory %s was removed or replaced; making "
	    "a new one", cfg.rundir);
	if (cfg.lock_fd != -1) {
		close(cfg.lock_fd);
		cfg.lock_fd = -1;
	}
	return (config_rundir(cause));
}

/*
 * On the way out: let go of the lock, and remove the runtime directory
 * if no reaper of ours holds it any more (else the last one does).
 */
void
config_rundir_leave(void)
{
	if (cfg.lock_fd != -1) {
		close(cfg.lock_fd);
		cfg.lock_fd = -1;
	}
	if (cfg.rundir != NULL)
		rundir_remove_path(cfg.rundir, CONFIG_RUNDIR_WAIT_MS);
}

/*
 * Robust mode's private server is born with its options, from a file in
 * the runtime directory beside its socket: no moment exists at which it
 * runs without them. When our control client goes (however we die), its
 * session is destroyed, and an empty or unattached server exits. Written
 * at the first start (through the directory's descriptor) and kept; it
 * goes with the directory. Its path, or NULL with *cause.
 */
const char *
config_tmux_conf(char **cause)
{
	static const char	 conf[] =
	    "set-option -s exit-empty on\n"
	    "set-option -s exit-unattached on\n"
	    "set-option -g destroy-unattached on\n"
	    "set-option -g default-size 80x24\n";
	static char		*path;
	char			*want;
	int			 fd;

	if (path != NULL)
		return (path);
	xasprintf(&want, "%s/tmux.conf", cfg.rundir);
	unlinkat(cfg.rundir_fd, "tmux.conf", 0);
	fd = openat(cfg.rundir_fd, "tmux.conf", O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd == -1 || fd_write_all(fd, conf, sizeof conf - 1) == -1) {
		xasprintf(cause, "cannot write %s: %s", want,
		    fd_strerror(errno));
		if (fd != -1)
			close(fd);
		free(want);
		return (NULL);
	}
	close(fd);
	path = want;
	return (path);
}

/* progmux-reaper lives beside progmux (started as argv0). */
static int
config_reaper(const char *argv0, char **cause)
{
	char	 self[PATH_MAX];
	char	*slash;

	if (osdep_self_exe(argv0, self, sizeof self) == -1) {
		xasprintf(cause, "cannot find my own path: %s",
		    strerror(errno));
		return (-1);
	}
	if ((slash = strrchr(self, '/')) != NULL)
		*slash = '\0';
	xasprintf(&cfg.reaper_path, "%s/progmux-reaper", self);
	if (access(cfg.reaper_path, X_OK) != 0) {
		xasprintf(cause, "%s is missing or not executable: install "
		    "it beside progmux", cfg.reaper_path);
		return (-1);
	}
	if (strpbrk(cfg.reaper_path, "'#;\"\\$\n") != NULL) {
		xasprintf(cause, "%s: install progmux in a directory whose "
		    "path has no quote, #, ;, $ or backslash",
		    cfg.reaper_path);
		return (-1);
	}
	return (0);
}

/* The tier's name, for people. */
const char *
config_tier_name(void)
{
	return (cfg.safety >= 0 && (size_t)cfg.safety < NTIERS ?
	    config_tiers[cfg.safety] : "?");
}

/*
 * Load settings: defaults, environment, then flags. Returns 0, 1 when a
 * flag like --help was handled and the program should exit 0, or -1 with
 * *cause for a bad value (exit 2).
 */
int
config_load(int argc, char **argv, char **cause)
{
	const struct setting	*s;
	const char		*v, *eq;
	char			*name, *from;
	size_t			 i;
	int			 a;

	memset(&cfg, 0, sizeof cfg);
	cfg.lock_fd = cfg.rundir_fd = cfg.lease_fd = -1;
	for (i = 0; i < NSETTINGS; i++) {
		s = &settings[i];
		if (s->dflt && config_set(s, "default", s->dflt, cause) == -1)
			return (-1);
		if (s->alt_env && (v = getenv(s->alt_env)) != NULL &&
		    *v != '\0' && config_set(s, s->alt_env, v, cause) == -1)
			return (-1);
		if ((v = getenv(s->env)) != NULL && *v != '\0' &&
		    config_set(s, s->env, v, cause) == -1)
			return (-1);
	}
	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--help") == 0 ||
		    strcmp(argv[a], "-h") == 0) {
			config_usage();
			return (1);
		}
		if (strcmp(argv[a], "--check") == 0) {
			cfg.check = true;
			continue;
		}
		if (strcmp(argv[a], "--version") == 0 ||
		    strcmp(argv[a], "-V") == 0) {
			printf("progmux %s (%s)\n", PROGMUX_VERSION,
			    PROGMUX_TARGET);
			return (1);
		}
		if (strncmp(argv[a], "--", 2) != 0) {
			xasprintf(cause, "unknown argument \"%s\" (see "
			    "progmux --help)", argv[a]);
			return (-1);
		}
		eq = strchr(argv[a] + 2, '=');
		name = eq ? xstrndup(argv[a] + 2, (size_t)(eq - argv[a] - 2)) :
		    xstrdup(argv[a] + 2);
		for (i = 0; i < NSETTINGS; i++)
			if (strcmp(settings[i].flag, name) == 0)
				break;
		if (i == NSETTINGS) {
			xasprintf(cause, "unknown flag --%s (see progmux "
			    "--help)", name);
			free(name);
			return (-1);
		}
		s = &settings[i];
		v = eq ? eq + 1 : NULL;
		if (v == NULL && s->kind != 'b') {
			if (a + 1 >= argc) {
				xasprintf(cause, "--%s needs a value", name);
				free(name);
				return (-1);
			}
			v = argv[++a];
		}
		xasprintf(&from, "--%s", name);
		free(name);
		if (config_set(s, from, v, cause) == -1) {
			free(from);
			return (-1);
		}
		free(from);
	}
	if (cfg.socket_path != NULL) {
		free(cfg.socket_name);
		cfg.socket_name = NULL;
	}
	config_tmux_bin();
	/* Robust mode: nothing outlives progmux, whatever is asked. */
	if (cfg.robust)
		cfg.orphan_grace_ms = 0;
	if (config_reaper(argc > 0 ? argv[0] : NULL, cause) == -1 || config_rundir(cause) == -1)
		return (-1);
	if (cfg.robust) {
		/* A private server in the runtime directory, never the
		 * person's own. */
		free(cfg.socket_name);
		free(cfg.socket_path);
		cfg.socket_name = NULL;
		xasprintf(&cfg.socket_path, "%s/tmux", cfg.rundir);
	}
	return (0);
}
