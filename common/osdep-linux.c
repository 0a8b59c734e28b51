/*
 * osdep-linux.c — osdep.h on Linux: pidfd_open, prctl, and /proc.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "osdep.h"

struct osdep_proc {
	pid_t	pid;
	pid_t	ppid;
	int	mark;	/* 0 not known, 1 below root, 2 not */
};

int
osdep_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return ((int)syscall(SYS_pidfd_open, pid, 0));
#else
	(void)pid;
	errno = ENOSYS;
	return (-1);
#endif
}

int
osdep_subreaper(void)
{
	return (prctl(PR_SET_CHILD_SUBREAPER, 1));
}

int
osdep_parent_death(int sig, pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, sig) == -1)
		return (-1);
	if (getppid() != parent) {
		errno = ESRCH;
		return (-1);
	}
	return (0);
}

/* pid, parent and state of /proc/PID/stat; -1 if it is gone. The
 * command name may hold anything, so the fields are read after its last
 * ')'. */
static int
osdep_stat(const char *pid, pid_t *ppid, char *state)
{
	char	path[64], line[512], *p;
	ssize_t	n;
	int	fd, pp;

	snprintf(path, sizeof path, "/proc/%.32s/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	n = read(fd, line, sizeof line - 1);
	close(fd);
	if (n <= 0)
		return (-1);
	line[n] = '\0';
	if ((p = strrchr(line, ')')) == NULL ||
	    sscanf(p + 1, " %c %d", state, &pp) != 2)
		return (-1);
	*ppid = (pid_t)pp;
	return (0);
}

/* Every live process with its parent; how many, or -1. */
static ssize_t
osdep_table(struct osdep_proc **out)
{
	struct osdep_proc	*t = NULL;
	struct dirent		*de;
	DIR			*d;
	size_t			 n = 0, cap = 0;
	pid_t			 ppid;
	char			 state;

	if ((d = opendir("/proc")) == NULL)
		return (-1);
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]) ||
		    osdep_stat(de->d_name, &ppid, &state) == -1 ||
		    state == 'Z' || state == 'X')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			if ((t = reallocarray(t, cap, sizeof *t)) == NULL) {
				closedir(d);
				return (-1);
			}
		}
		t[n].pid = (pid_t)atol(de->d_name);
		t[n].ppid = ppid;
		t[n].mark = 0;
		n++;
	}
	closedir(d);
	*out = t;
	return ((ssize_t)n);
}

/* For qsort and bsearch: by pid. */
static int
osdep_cmp(const void *a, const void *b)
{
	const struct osdep_proc	*x = a, *y = b;

	return (x->pid < y->pid ? -1 : x->pid > y->pid);
}

/* Is t[i] a descendant of root? Memoised in mark (1 yes, 2 no); the walk
 * up stops at root, at a process not in the table, or at a loop. */
static bool
osdep_below(struct osdep_proc *t, size_t n, size_t i, pid_t root)
{
	struct osdep_proc	 key, *p;
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

int
osdep_signal_descendants(pid_t root, int sig)
{
	struct osdep_proc	*t = NULL;
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
		if (sig != 0)
			kill(t[i].pid, sig);
		if (sig == SIGTERM)
			kill(t[i].pid, SIGCONT);
	}
	free(t);
	return (count);
}
