/*
 * sshd.c — an sshd of a test's own on 127.0.0.1 (sshd.h).
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "osdep.h"
#include "sshd.h"
#include "xmalloc.h"

#define SSHD_BIN	"/usr/sbin/sshd"
#define SSHD_LISTEN_MS	10000	/* it listens by then */

int
run_words(const char *first, ...)
{
	char	*argv[16], *out;
	va_list	 ap;
	int	 n = 0, status;

	va_start(ap, first);
	for (argv[n] = (char *)first; argv[n] != NULL && n < 15;)
		argv[++n] = va_arg(ap, char *);
	va_end(ap);
	argv[n] = NULL;
	if ((out = pmx_run_capture(argv, &status)) == NULL)
		return (-1);
	free(out);
	return (status);
}

const char *
sshd_missing(bool user)
{
	if (geteuid() != 0)
		return ("needs root to run an sshd of its own");
	if (access(SSHD_BIN, X_OK) == -1)
		return ("no " SSHD_BIN " (scripts/build/install-packages.sh "
		    "installs openssh-server)");
	if (run_words("ssh", "-V", NULL) != 0)
		return ("no ssh (openssh-client)");
	if (user && run_words("unshare", "-m", "true", NULL) != 0)
		return ("unshare -m is not allowed here");
	return (NULL);
}

/* Write text to path with mode; -1 if it cannot. */
static int
sshd_write(const char *path, const char *text, size_t len, mode_t mode)
{
	int	fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)) == -1)
		return (-1);
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		return (-1);
	}
	return (close(fd));
}

/* A copy of file with line added, written to path. */
static int
sshd_copy_with(const char *file, const char *line, const char *path,
    mode_t mode)
{
	struct buf	 b = BUF_INIT;
	char		*text;
	size_t		 len;
	int		 rc;

	if ((text = pmx_read_file(file, &len)) == NULL)
		return (-1);
	buf_add(&b, text, len);
	free(text);
	buf_adds(&b, line);
	rc = sshd_write(path, b.data, b.len, mode);
	buf_free(&b);
	return (rc);
}

/* A TCP port on 127.0.0.1 nobody listens on now, or -1. */
static int
sshd_free_port(void)
{
	struct sockaddr_in	sa;
	socklen_t		len = sizeof sa;
	int			fd, port = -1;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return (-1);
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
		port = ntohs(sa.sin_port);
	close(fd);
	return (port);
}

/* Does something accept connections on 127.0.0.1:port within ms? */
static bool
sshd_listening(int port, int ms)
{
	struct sockaddr_in	sa;
	int64_t			deadline = now_ms() + ms;
	int			fd, rc;

	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)port);
	do {
		if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
			return (false);
		rc = connect(fd, (struct sockaddr *)&sa, sizeof sa);
		close(fd);
		if (rc == 0)
			return (true);
		poll(NULL, 0, 20);
	} while (now_ms() < deadline);
	return (false);
}

/* The throwaway user: a uid nobody has, its home, and the copies of
 * passwd and shadow that name it. */
static int
sshd_user(struct sshd *s, const char *user, const char *home)
{
	char	line[512], path[320];

	snprintf(s->user, sizeof s->user, "%s", user);
	for (s->uid = 61000; s->uid < 65000; s->uid++)
		if (getpwuid(s->uid) == NULL)
			break;
	if (s->uid == 65000 || mkdir(home, 0700) == -1 ||
	    chown(home, s->uid, s->uid) == -1)
		return (-1);
	snprintf(line, sizeof line, "%s:x:%d:%d::%s:/bin/sh\n", user,
	    (int)s->uid, (int)s->uid, home);
	snprintf(path, sizeof path, "%s/passwd", s->dir);
	if (sshd_copy_with("/etc/passwd", line, path, 0644) == -1)
		return (-1);
	snprintf(line, sizeof line, "%s:*:19000:0:99999:7:::\n", user);
	snprintf(path, sizeof path, "%s/shadow", s->dir);
	return (sshd_copy_with("/etc/shadow", line, path, 0600));
}

/* The keys: the host's, and the client's, allowed in. */
static int
sshd_keys(struct sshd *s)
{
	char	 path[320], *pub;
	size_t	 len;
	int	 rc;

	snprintf(path, sizeof path, "%s/host_key", s->dir);
	if (run_words("ssh-keygen", "-q", "-N", "", "-t", "ed25519", "-f",
	    path, NULL) != 0)
		return (-1);
	snprintf(s->key, sizeof s->key, "%s/client_key", s->dir);
	if (run_words("ssh-keygen", "-q", "-N", "", "-t", "ed25519", "-f",
	    s->key, NULL) != 0)
		return (-1);
	snprintf(path, sizeof path, "%s.pub", s->key);
	if ((pub = pmx_read_file(path, &len)) == NULL)
		return (-1);
	snprintf(path, sizeof path, "%s/authorized_keys", s->dir);
	rc = sshd_write(path, pub, len, 0644);
	free(pub);
	return (rc);
}

/* In the child: become the sshd (in its own mount namespace, with the
 * copies bind-mounted, for a throwaway user), which ends with the test
 * however the test ends (where the system has a parent-death signal). */
static void __attribute__((noreturn))
sshd_exec(struct sshd *s, const char *config, pid_t parent)
{
	char	path[320];
	int	fd;

	(void)osdep_parent_death(SIGTERM, parent);

	snprintf(path, sizeof path, "%s/sshd.log", s->dir);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600)) != -1)
		dup2(fd, 2);
	if ((fd = open("/dev/null", O_RDWR)) != -1) {
		dup2(fd, 0);
		dup2(fd, 1);
	}
	if (s->uid == 0)
		execl(SSHD_BIN, SSHD_BIN, "-D", "-e", "-f", config,
		    (char *)NULL);
	else
		execlp("unshare", "unshare", "-m", "--propagation", "private",
		    "sh", "-c", "mount --bind \"$1/passwd\" /etc/passwd && "
		    "mount --bind \"$1/shadow\" /etc/shadow && "
		    "exec " SSHD_BIN " -D -e -f \"$2\"", "sh", s->dir, config,
		    (char *)NULL);
	_exit(127);
}

int
sshd_start(struct sshd *s, const char *dir, const char *user,
    const char *home, const char *extra, char **cause)
{
	char	 cfg[2048], path[320];
	pid_t	 parent;

	memset(s, 0, sizeof *s);
	s->pid = -1;
	snprintf(s->dir, sizeof s->dir, "%s", dir);
	if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
		xasprintf(cause, "cannot make %s: %s", dir, strerror(errno));
		return (-1);
	}
	if (sshd_keys(s) == -1) {
		xasprintf(cause, "ssh-keygen failed in %s", dir);
		return (-1);
	}
	if (user == NULL)
		snprintf(s->user, sizeof s->user, "root");
	else if (sshd_user(s, user, home) == -1) {
		xasprintf(cause, "cannot make the user %s (home %s)", user,
		    home);
		return (-1);
	}
	if ((s->port = sshd_free_port()) == -1) {
		xasprintf(cause, "no free port on 127.0.0.1");
		return (-1);
	}
	snprintf(cfg, sizeof cfg, "Port %d\nListenAddress 127.0.0.1\n"
	    "HostKey %s/host_key\nAuthorizedKeysFile %s/authorized_keys\n"
	    "PidFile none\nPasswordAuthentication no\n"
	    "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
	    "PermitRootLogin prohibit-password\nAllowUsers %s\n"
	    "LogLevel ERROR\n%s", s->port, dir, dir, s->user,
	    extra != NULL ? extra : "");
	snprintf(path, sizeof path, "%s/sshd_config", dir);
	if (sshd_write(path, cfg, strlen(cfg), 0644) == -1) {
		xasprintf(cause, "cannot write %s", path);
		return (-1);
	}
	/* sshd needs its privilege separation directory. */
	if (access("/run/sshd", F_OK) == -1) {
		if (mkdir("/run/sshd", 0755) == -1) {
			xasprintf(cause, "cannot make /run/sshd: %s",
			    strerror(errno));
			return (-1);
		}
		s->made_run = true;
	}
	parent = getpid();
	if ((s->pid = fork()) == 0)
		sshd_exec(s, path, parent);
	if (s->pid == -1 || !sshd_listening(s->port, SSHD_LISTEN_MS)) {
		xasprintf(cause, "sshd did not start (see %s/sshd.log)", dir);
		sshd_stop(s);
		return (-1);
	}
	return (0);
}

void
sshd_ssh(const struct sshd *s, char *buf, size_t size)
{
	snprintf(buf, size, "ssh -F none -i %s -o IdentitiesOnly=yes "
	    "-o BatchMode=yes -o StrictHostKeyChecking=no "
	    "-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -p %d "
	    "%s@127.0.0.1", s->key, s->port, s->user);
}

void
sshd_stop(struct sshd *s)
{
	char	session[48];

	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
	}
	s->pid = -1;
	if (s->uid != 0) {
		/* Its sessions' processes: "sshd: pmxh123@notty" ... */
		snprintf(session, sizeof session, "sshd: %s", s->user);
		pmx_kill_procs(session);
	}
	if (s->made_run)
		rmdir("/run/sshd");
	s->made_run = false;
}
