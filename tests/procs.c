/*
 * procs.c — the processes the tests look at (procs.h): through the port
 * where it has the call, the system's own way where it has none.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#ifdef __APPLE__
#include <libproc.h>
#include <sys/proc.h>
#include <sys/proc_info.h>
#include <sys/sysctl.h>
#endif

#include "client.h"
#include "osdep.h"
#include "osdep-port.h"
#include "procs.h"

#define PROCS_CMD_MAX	4096	/* bytes of a command line looked at */

/* Called for each process with its command line (words each ending in
 * a NUL, n bytes); a true return stops the walk. */
typedef bool (*procs_fn)(pid_t, const char *cmd, size_t n, void *);

/* Walk the port's process table (zombies left out), this process
 * aside; -1 if it cannot be read. */
static int
procs_each(procs_fn fn, void *arg)
{
	struct osdep_row	*t = NULL;
	char			 cmd[PROCS_CMD_MAX];
	ssize_t			 n, i, len;

	if ((n = osdep_table(&t)) == -1)
		return (-1);
	for (i = 0; i < n; i++) {
		if (t[i].pid == getpid() ||
		    (len = osdep_cmdline(t[i].pid, cmd, sizeof cmd - 1)) <= 0)
			continue;
		cmd[len] = '\0';
		if (fn(t[i].pid, cmd, (size_t)len, arg))
			break;
	}
	free(t);
	return (0);
}

/* What a walk for a needle gathers. */
struct procs_match {
	const char	*needle;
	pid_t		*out;
	int		 max, count;
};

/* Does the command line, its words joined by spaces, hold the needle? */
static bool
procs_match_one(pid_t pid, const char *cmd, size_t n, void *arg)
{
	struct procs_match	*m = arg;
	char			 line[PROCS_CMD_MAX];
	size_t			 i;

	for (i = 0; i < n; i++)
		line[i] = cmd[i] == '\0' ? ' ' : cmd[i];
	line[n] = '\0';
	if (strstr(line, m->needle) != NULL) {
		if (m->count < m->max)
			m->out[m->count] = pid;
		m->count++;
	}
	return (false);
}

/* The processes (this one aside) whose command line holds needle: up
 * to max of them into out; how many there are, or -1. */
static int
procs_matching(const char *needle, pid_t *out, int max)
{
	struct procs_match	m = { needle, out, max, 0 };

	if (procs_each(procs_match_one, &m) == -1)
		return (-1);
	return (m.count);
}

int
pmx_count_procs(const char *needle)
{
	return (procs_matching(needle, NULL, 0));
}

pid_t
pmx_find_proc(const char *needle)
{
	pid_t	pid;

	return (procs_matching(needle, &pid, 1) > 0 ? pid : -1);
}

int
pmx_kill_procs(const char *needle)
{
	pid_t	pids[1024];
	int	i, n, count = 0;

	if ((n = procs_matching(needle, pids, 1024)) == -1)
		return (-1);
	for (i = 0; i < n && i < 1024; i++)
		if (kill(pids[i], SIGKILL) == 0)
			count++;
	return (count);
}

/* The last part of a path. */
static const char *
base_name(const char *path)
{
	const char	*slash = strrchr(path, '/');

	return (slash != NULL ? slash + 1 : path);
}

/*
 * Is this command line (NUL-separated words, n bytes) a tmux: a program
 * named tmux, run directly or through the dynamic loader, as the wrappers
 * of scripts/test/tmux-versions.sh run theirs ("ld-linux-x86-64.so.2
 * --library-path DIRS .../tmux -S ...")?
 */
static bool
procs_is_tmux(const char *cmd, size_t n)
{
	static const char	*with_value[] = { "--library-path", "--preload",
				    "--audit", "--argv0", "--inhibit-rpath",
				    "--glibc-hwcaps-prepend",
				    "--glibc-hwcaps-mask" };
	const char		*w = cmd, *end = cmd + n;
	size_t			 i;

	if (strcmp(base_name(w), "tmux") == 0)
		return (true);
	if (strncmp(base_name(w), "ld-linux", 8) != 0 &&
	    strncmp(base_name(w), "ld.so", 5) != 0)
		return (false);
	for (w += strlen(w) + 1; w < end && strncmp(w, "--", 2) == 0;
	    w += strlen(w) + 1) {
		for (i = 0; i < sizeof with_value / sizeof *with_value; i++)
			if (strcmp(w, with_value[i]) == 0)
				break;
		if (i < sizeof with_value / sizeof *with_value &&
		    (w += strlen(w) + 1) >= end)
			return (false);
	}
	return (w < end && strcmp(base_name(w), "tmux") == 0);
}

/* A tmux naming the directory (arg) is killed. */
static bool
procs_kill_tmux(pid_t pid, const char *cmd, size_t n, void *arg)
{
	const char	*dir = arg;

	if (procs_is_tmux(cmd, n) && memmem(cmd, n, dir, strlen(dir)) != NULL)
		kill(pid, SIGKILL);
	return (false);
}

void
pmx_kill_by_dir(const char *dir)
{
	if (strncmp(dir, "/tmp/progmux-test-", 18) == 0)
		(void)procs_each(procs_kill_tmux, (void *)dir);
}

/* pid's environment, its entries each ending in a NUL (allocated), and
 * its length; NULL if it cannot be read. */
static char *
procs_environ(pid_t pid, size_t *len)
{
#ifdef __APPLE__
	int		 mib[3] = { CTL_KERN, KERN_ARGMAX, 0 }, argmax;
	char		*args, *env;
	const char	*words;
	size_t		 size = sizeof argmax;
	ssize_t		 n;

	if (sysctl(mib, 2, &argmax, &size, NULL, 0) == -1 || argmax <= 0 ||
	    (args = malloc((size_t)argmax)) == NULL)
		return (NULL);
	mib[1] = KERN_PROCARGS2;
	mib[2] = (int)pid;
	size = (size_t)argmax;
	env = NULL;
	if (sysctl(mib, 3, args, &size, NULL, 0) == 0 &&
	    (n = osdep_procargs(args, size, &words)) != -1) {
		*len = size - (size_t)(words + n - args);
		if ((env = malloc(*len + 1)) != NULL) {
			memcpy(env, words + n, *len);
			env[*len] = '\0';
		}
	}
	free(args);
	return (env);
#else
	char	path[64];

	snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
	return (pmx_read_file(path, len));
#endif
}

/* Does pid's environment hold an entry that is env, or (name) that
 * begins "name="? 1 or 0; -1 if it cannot be read. */
static int
procs_env_has(pid_t pid, const char *entry, bool name)
{
	char	*data, *p;
	size_t	 len, n = strlen(entry);
	int	 found = 0;

	if ((data = procs_environ(pid, &len)) == NULL)
		return (-1);
	for (p = data; p < data + len && !found; p += strlen(p) + 1)
		found = strncmp(p, entry, n) == 0 && p[n] == (name ? '=' :
		    '\0');
	free(data);
	return (found);
}

int
pmx_has_env_var(pid_t pid, const char *name)
{
	return (procs_env_has(pid, name, true));
}

/* One more live process with the entry (arg)? */
static bool
procs_count_env_one(pid_t pid, const char *cmd, size_t n, void *arg)
{
	struct procs_match	*m = arg;

	(void)cmd;
	(void)n;
	if (procs_env_has(pid, m->needle, false) == 1 && pmx_alive(pid))
		m->count++;
	return (false);
}

int
pmx_count_env(const char *env)
{
	struct procs_match	m = { env, NULL, 0, 0 };

	if (procs_each(procs_count_env_one, &m) == -1)
		return (-1);
	return (m.count);
}

/* SIGKILL the process if its environment has the entry (arg). */
static bool
procs_kill_env_one(pid_t pid, const char *cmd, size_t n, void *arg)
{
	struct procs_match	*m = arg;

	(void)cmd;
	(void)n;
	if (pid != getpid() && procs_env_has(pid, m->needle, false) == 1 &&
	    kill(pid, SIGKILL) == 0)
		m->count++;
	return (false);
}

int
pmx_kill_env(const char *env)
{
	struct procs_match	m = { env, NULL, 0, 0 };

	if (procs_each(procs_kill_env_one, &m) == -1)
		return (-1);
	return (m.count);
}

int
pmx_children(pid_t pid, pid_t *out, int max)
{
	return (osdep_children(pid, out, max));
}

bool
pmx_alive(pid_t pid)
{
	struct osdep_proc	p;

	return (osdep_proc(pid, &p) == 0 && p.state != 'Z' && p.state != 'X');
}

bool
pmx_zombie(pid_t pid)
{
#ifdef __APPLE__
	struct proc_bsdshortinfo	si;

	/* (A zombie is found only when asked for: the 1.) */
	return (proc_pidinfo(pid, PROC_PIDT_SHORTBSDINFO, 1, &si,
	    sizeof si) == (int)sizeof si && si.pbsi_status == SZOMB);
#else
	struct osdep_proc	p;

	return (osdep_proc(pid, &p) == 0 && p.state == 'Z');
#endif
}

pid_t
pmx_ppid(pid_t pid)
{
	struct osdep_proc	p;

	return (osdep_proc(pid, &p) == 0 ? p.ppid : -1);
}

ssize_t
pmx_cmdline(pid_t pid, char *buf, size_t size)
{
	ssize_t	n;

	if (size == 0 || (n = osdep_cmdline(pid, buf, size - 1)) <= 0)
		return (-1);
	buf[n] = '\0';
	return (n);
}

/* Does the command line (n bytes) have word as one of its words; with
 * only, as its only word, by its last part? */
static bool
procs_has_word(const char *cmd, size_t n, const char *word, bool only)
{
	const char	*w;

	if (only)
		return (strlen(cmd) + 1 >= n &&
		    strcmp(base_name(cmd), word) == 0);
	for (w = cmd; w < cmd + n; w += strlen(w) + 1)
		if (strcmp(w, word) == 0)
			return (true);
	return (false);
}

/* The first child of pid whose command line has word (only: as its one
 * word, by its last part). */
static pid_t
procs_child(pid_t pid, const char *word, bool only)
{
	pid_t	kids[64];
	char	cmd[PROCS_CMD_MAX];
	ssize_t	len;
	int	n, i;

	n = pmx_children(pid, kids, 64);
	for (i = 0; i < n; i++)
		if ((len = pmx_cmdline(kids[i], cmd, sizeof cmd)) > 0 &&
		    procs_has_word(cmd, (size_t)len, word, only))
			return (kids[i]);
	return (-1);
}

pid_t
pmx_child_with(pid_t pid, const char *word)
{
	return (procs_child(pid, word, false));
}

pid_t
pmx_reaper_of(pid_t front)
{
	return (procs_child(front, "progmux-reaper", true));
}

long
pmx_status_kb(pid_t pid, const char *field)
{
#ifdef __APPLE__
	struct proc_taskinfo	ti;

	if (strcmp(field, "VmRSS") != 0 || proc_pidinfo(pid,
	    PROC_PIDTASKINFO, 0, &ti, sizeof ti) != (int)sizeof ti)
		return (-1);
	return ((long)(ti.pti_resident_size / 1024));
#else
	char	 path[64], *text, *p;
	size_t	 len, flen = strlen(field);
	long	 kb = -1;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	if ((text = pmx_read_file(path, &len)) == NULL)
		return (-1);
	for (p = text; p != NULL; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (strncmp(p, field, flen) == 0 && p[flen] == ':') {
			kb = strtol(p + flen + 1, NULL, 10);
			break;
		}
	}
	free(text);
	return (kb);
#endif
}

#ifdef __APPLE__
/* One descriptor as libproc has it. */
static void
procs_fd_of(pid_t pid, const struct proc_fdinfo *fi, struct pmx_fd *f)
{
	struct vnode_fdinfowithpath	vi;
	mode_t				mode;

	f->fd = fi->proc_fd;
	f->kind = '?';
	snprintf(f->what, sizeof f->what, "type %u", fi->proc_fdtype);
	switch (fi->proc_fdtype) {
	case PROX_FDTYPE_SOCKET:
		f->kind = 's';
		break;
	case PROX_FDTYPE_PIPE:
		f->kind = 'p';
		break;
	case PROX_FDTYPE_KQUEUE:
		f->kind = 'x';
		break;
	case PROX_FDTYPE_VNODE:
		if (proc_pidfdinfo(pid, fi->proc_fd, PROC_PIDFDVNODEPATHINFO,
		    &vi, sizeof vi) != (int)sizeof vi)
			break;
		mode = (mode_t)vi.pvip.vip_vi.vi_stat.vst_mode;
		f->kind = S_ISDIR(mode) ? 'd' : S_ISFIFO(mode) ? 'p' : 'f';
		snprintf(f->what, sizeof f->what, "%s", vi.pvip.vip_path);
		break;
	}
}

int
pmx_fds(pid_t pid, struct pmx_fd *out, int max)
{
	struct proc_fdinfo	fds[512];
	int			n, i;

	if ((n = proc_pidinfo(pid, PROC_PIDLISTFDS, 0, fds, sizeof fds)) <= 0)
		return (-1);
	n /= (int)PROC_PIDLISTFD_SIZE;
	for (i = 0; i < n && i < max; i++)
		procs_fd_of(pid, &fds[i], &out[i]);
	return (i);
}
#else
/* One descriptor as /proc has it: its link, then what it is. */
static void
procs_fd_of(const char *dir, const char *name, struct pmx_fd *f)
{
	char		path[400];
	struct stat	sb;
	ssize_t		n;

	f->fd = atoi(name);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((n = readlink(path, f->what, sizeof f->what - 1)) < 0)
		n = 0;
	f->what[n] = '\0';
	if (strncmp(f->what, "socket:", 7) == 0)
		f->kind = 's';
	else if (strncmp(f->what, "pipe:", 5) == 0)
		f->kind = 'p';
	else if (strcmp(f->what, "anon_inode:[pidfd]") == 0)
		f->kind = 'x';
	else if (f->what[0] != '/' || stat(path, &sb) == -1)
		f->kind = '?';
	else
		f->kind = S_ISDIR(sb.st_mode) ? 'd' : S_ISFIFO(sb.st_mode) ?
		    'p' : 'f';
}

int
pmx_fds(pid_t pid, struct pmx_fd *out, int max)
{
	char		 dir[64];
	DIR		*d;
	struct dirent	*de;
	int		 n = 0;

	snprintf(dir, sizeof dir, "/proc/%ld/fd", (long)pid);
	if ((d = opendir(dir)) == NULL)
		return (-1);
	while ((de = readdir(d)) != NULL && n < max)
		if (isdigit((unsigned char)de->d_name[0]))
			procs_fd_of(dir, de->d_name, &out[n++]);
	closedir(d);
	return (n);
}
#endif
