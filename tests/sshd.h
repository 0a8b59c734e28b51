/*
 * sshd.h — an sshd of a test's own, on 127.0.0.1: its host key and the
 * client's key made here, key authentication only, logging into root or
 * into a throwaway user that exists only for this sshd (copies of
 * /etc/passwd and /etc/shadow with the user added, bind-mounted over the
 * machine's in a mount namespace of its own). Needs root,
 * /usr/sbin/sshd, ssh-keygen, and unshare for a throwaway user;
 * scripts/build/install-packages.sh installs them. Used by the
 * integration suites and the benchmarks alike: nothing here fails a test
 * by itself.
 */
#ifndef PROGMUX_TEST_SSHD_H
#define PROGMUX_TEST_SSHD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct sshd {
	char	 dir[256];	/* its files: keys, configuration, log */
	char	 key[300];	/* the client's private key */
	char	 user[32];	/* who logs in */
	uid_t	 uid;		/* a throwaway user's, or 0 */
	int	 port;
	pid_t	 pid;		/* sshd, until stopped */
	bool	 made_run;	/* we made /run/sshd */
};

/* Run the words given (a NULL-terminated list, the first looked up in
 * PATH), their output dropped: the exit status, or -1 if they could not
 * run. */
int		 run_words(const char *first, ...) __attribute__((sentinel));
/* Why no sshd can be had here, or NULL. */
const char	*sshd_missing(bool user);
/*
 * Start one with its files in dir (made here, 0755). user NULL logs into
 * root; else a throwaway user of that name (a uid nobody has) whose home,
 * made here and its own, is home. extra: more lines of sshd_config, or
 * NULL. 0 once it listens, or -1 with *cause (allocated).
 */
int		 sshd_start(struct sshd *, const char *dir, const char *user,
		     const char *home, const char *extra, char **cause);
/* The ssh words that reach it, before the remote command: "ssh -F none
 * -i KEY ... -p PORT USER@127.0.0.1", into buf. */
void		 sshd_ssh(const struct sshd *, char *buf, size_t size);
/* Stop it and the sessions of its user; its files stay (in dir). */
void		 sshd_stop(struct sshd *);

#endif
