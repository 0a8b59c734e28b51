/*
 * osdep-posix.c — osdep.h with POSIX and ps(1) alone: what the code above
 * the port does on a system with none of Linux's facilities, and how
 * Linux tests that (make OSDEP=posix test; built with compat.h's
 * fallbacks too).
 *
 *   process table	one run of `ps -A -o pid= -o ppid= -o pgid= -o stat=`
 *			(ps itself left out), the session from getsid(2)
 *   a process		`ps -o ppid= -o pgid= -o stat= -o tpgid= -o tty=`
 *   command line	`ps -ww -o args=`: the words as ps joins them, split
 *			again at spaces (a word holding a space comes back
 *			as two: no OSDEP_CMDLINE_WORDS)
 *   own executable	argv[0], through PATH if it has no slash
 *   connect		in the checked directory (fchdir), by its name
 *   signals		a self-pipe (osdep-shared.c)
 *   exit descriptor	pidfd_open where the kernel has it, standing in for
 *			what every port has its own of (macOS: a kqueue)
 *			and POSIX has none of; else ENOSYS
 *
 * No subreaper, no parent-death signal (osdep-shared.c), no
 * close_range, no listening ports (POSIX has no way to a process's
 * sockets): ENOSYS. The
 * input-wait check cannot tell (server/ttywait-none.c).
 *
 * Each ps is a fork and exec (a few ms): fine for the tests, not for a
 * busy server, which is why a real port reads its table from the kernel.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

#include "buf.h"
#include "compat.h"
#include "cspawn.h"
#include "osdep.h"
#include "osdep-port.h"

#define OSDEP_PS_MAX	(4 * 1024 * 1024)	/* bytes of ps output read */

extern char	**environ;

int
osdep_features(void)
{
	return (0);
}

const char *
osdep_name(void)
{
	return ("posix");
}

/* POSIX has no call for a peer's credentials. */
int
osdep_peer_uid(int sock, uid_t *uid)
{
	(void)sock;
	(void)uid;
	errno = ENOSYS;
	return (-1);
}

/*
 * Run ps with argv (standard error and input /dev/null) and read what it
 * prints into out, NUL-terminated; its pid in *pid, if asked, so that a
 * table can leave it out. 0 if it exited 0, else -1.
 */
static int
osdep_ps(char *const argv[], struct buf *out, pid_t *pid)
{
	posix_spawn_file_actions_t	 fa;
	posix_spawnattr_t		 attr;
	char				 chunk[4096];
	int				 fds[2], st, err;
	ssize_t				 n;
	pid_t				 child;

	if (compat_pipe2(fds, O_CLOEXEC) == -1)
		return (-1);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	cspawn_attr_init(&attr);
	err = posix_spawnp(&child, "ps", &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(fds[1]);
	if (err != 0) {
		close(fds[0]);
		errno = err;
		return (-1);
	}
	if (pid != NULL)
		*pid = child;
	buf_reset(out);
	while ((n = read(fds[0], chunk, sizeof chunk)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			break;
		if (out->len < OSDEP_PS_MAX)
			buf_add(out, chunk, (size_t)n);
	}
	close(fds[0]);
	buf_addc(out, '\0');
	out->len--;
	while (waitpid(child, &st, 0) == -1)
		if (errno != EINTR)
			return (-1);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		errno = ESRCH;		/* no such process, mostly */
		return (-1);
	}
	return (0);
}

/* "1234" as ps's -p wants it. */
static void
osdep_pidarg(char *arg, size_t size, pid_t pid)
{
	snprintf(arg, size, "%ld", (long)pid);
}

/* The device number of a terminal ps named ("pts/3", "ttys003"); 0 for
 * none ("?", "??") or one that cannot be found. */
static int
osdep_tty(const char *name)
{
	char		path[PATH_MAX];
	struct stat	sb;

	if (name[0] == '?' || name[0] == '\0' || strchr(name, '.') != NULL)
		return (0);
	snprintf(path, sizeof path, "/dev/%s", name);
	if (stat(path, &sb) == -1 || !S_ISCHR(sb.st_mode))
		return (0);
	return ((int)sb.st_rdev);
}

int
osdep_proc(pid_t pid, struct osdep_proc *p)
{
	struct buf	 out = BUF_INIT;
	char		 arg[32], stat[16], tty[64];
	char		*argv[] = { (char *)"ps", (char *)"-o", (char *)"ppid=",
			    (char *)"-o", (char *)"pgid=", (char *)"-o",
			    (char *)"stat=", (char *)"-o", (char *)"tpgid=",
			    (char *)"-o", (char *)"tty=", (char *)"-p", arg,
			    NULL };
	long		 ppid, pgid, tpgid;
	int		 ret = -1;

	if (pid <= 0) {
		errno = ESRCH;
		return (-1);
	}
	osdep_pidarg(arg, sizeof arg, pid);
	if (osdep_ps(argv, &out, NULL) == -1)
		goto out;
	if (sscanf(buf_cstr(&out), " %ld %ld %15s %ld %63s", &ppid, &pgid,
	    stat, &tpgid, tty) != 5) {
		errno = ESRCH;
		goto out;
	}
	p->state = stat[0];
	p->ppid = (pid_t)ppid;
	p->pgrp = (pid_t)pgid;
	p->tty = osdep_tty(tty);
	p->tpgid = tpgid > 0 ? (pid_t)tpgid : 0;
	if ((p->sid = getsid(pid)) != -1)
		ret = 0;
out:
	buf_free(&out);
	return (ret);
}

/* Every live process with its parent, group and session: one ps. */
ssize_t
osdep_table(struct osdep_row **out)
{
	struct buf		 o = BUF_INIT;
	struct osdep_row	*t = NULL, *nt;
	char			*argv[] = { (char *)"ps", (char *)"-A",
				    (char *)"-o", (char *)"pid=", (char *)"-o",
				    (char *)"ppid=", (char *)"-o",
				    (char *)"pgid=", (char *)"-o",
				    (char *)"stat=", NULL };
	char			*line, *save, stat[16];
	long			 pid, ppid, pgid;
	size_t			 n = 0, cap = 0;
	pid_t			 ps, sid;

	if (osdep_ps(argv, &o, &ps) == -1) {
		buf_free(&o);
		return (-1);
	}
	for (line = strtok_r(o.data, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, " %ld %ld %ld %15s", &pid, &ppid, &pgid,
		    stat) != 4 || (pid_t)pid == ps || stat[0] == 'Z' ||
		    (sid = getsid((pid_t)pid)) == -1)
			continue;	/* ps, a zombie, or gone since */
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			if ((nt = realloc(t, cap * sizeof *t)) == NULL) {
				free(t);
				buf_free(&o);
				return (-1);
			}
			t = nt;
		}
		t[n].pid = (pid_t)pid;
		t[n].ppid = (pid_t)ppid;
		t[n].pgrp = (pid_t)pgid;
		t[n].sid = sid;
		t[n].mark = 0;
		n++;
	}
	buf_free(&o);
	*out = t;
	return ((ssize_t)n);
}

int
osdep_children(pid_t pid, pid_t *out, int max)
{
	struct osdep_row	*t = NULL;
	ssize_t			 n, i;
	int			 m = 0;

	if ((n = osdep_table(&t)) == -1)
		return (0);
	for (i = 0; i < n && m < max; i++)
		if (t[i].ppid == pid)
			out[m++] = t[i].pid;
	free(t);
	return (m);
}

ssize_t
osdep_cmdline(pid_t pid, char *buf, size_t size)
{
	struct buf	 out = BUF_INIT;
	char		 arg[32];
	char		*argv[] = { (char *)"ps", (char *)"-ww", (char *)"-o",
			    (char *)"args=", (char *)"-p", arg, NULL };
	size_t		 len, i;
	ssize_t		 ret = -1;

	osdep_pidarg(arg, sizeof arg, pid);
	if (pid > 0 && osdep_ps(argv, &out, NULL) == 0) {
		len = out.len;
		while (len > 0 && isspace((unsigned char)out.data[len - 1]))
			len--;
		/* The words, each ending in a NUL, as in Linux's cmdline. */
		if (len > 0 && len < size) {
			for (i = 0; i < len; i++)
				buf[i] = out.data[i] == ' ' ? '\0' :
				    out.data[i];
			buf[len] = '\0';
			ret = (ssize_t)len + 1;
		} else if (len > 0) {
			memcpy(buf, out.data, size);
			ret = (ssize_t)size;
		}
	}
	buf_free(&out);
	return (ret);
}

/* Is path an executable file? Its real path into buf, 0; else -1. */
static int
osdep_exe_at(const char *path, char *buf, size_t size)
{
	char		real[PATH_MAX];
	struct stat	sb;

	if (stat(path, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    access(path, X_OK) == -1 || realpath(path, real) == NULL ||
	    strlen(real) >= size)
		return (-1);
	memcpy(buf, real, strlen(real) + 1);
	return (0);
}

int
osdep_self_exe(const char *argv0, char *buf, size_t size)
{
	char		 path[PATH_MAX], *dirs, *dir, *save;
	const char	*env;
	size_t		 len;
	int		 ret = -1;

	if (argv0 == NULL || *argv0 == '\0') {
		errno = ENOENT;
		return (-1);
	}
	if (strchr(argv0, '/') != NULL)
		return (osdep_exe_at(argv0, buf, size));
	/* As the shell found it: the first in PATH. */
	if ((env = getenv("PATH")) == NULL) {
		len = confstr(_CS_PATH, NULL, 0);
		if (len == 0 || (dirs = malloc(len)) == NULL)
			return (-1);
		confstr(_CS_PATH, dirs, len);
	} else if ((dirs = strdup(env)) == NULL)
		return (-1);
	for (dir = strtok_r(dirs, ":", &save); dir != NULL && ret == -1;
	    dir = strtok_r(NULL, ":", &save)) {
		if (snprintf(path, sizeof path, "%s/%s", *dir ? dir : ".",
		    argv0) < (int)sizeof path)
			ret = osdep_exe_at(path, buf, size);
	}
	free(dirs);
	if (ret == -1)
		errno = ENOENT;
	return (ret);
}

int
osdep_close_range(int lowfd, int highfd, int cloexec)
{
	(void)lowfd;
	(void)highfd;
	(void)cloexec;
	errno = ENOSYS;
	return (-1);
}

int
osdep_pidfd(pid_t pid)
{
	return (compat_pidfd_open(pid));
}

int
osdep_ports_open(struct osdep_ports *w, pid_t root)
{
	(void)w;
	(void)root;
	errno = ENOSYS;
	return (-1);
}

int
osdep_ports_children(pid_t pid, pid_t *out, int max)
{
	return (osdep_children(pid, out, max));
}

int
osdep_ports_proc(struct osdep_ports *w, pid_t pid)
{
	(void)w;
	(void)pid;
	return (-1);
}

int
osdep_ports_next(struct osdep_ports *w)
{
	(void)w;
	return (1);
}

void
osdep_ports_done(struct osdep_ports *w)
{
	(void)w;
}

void
osdep_ports_close(struct osdep_ports *w)
{
	(void)w;
}
