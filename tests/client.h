/*
 * client.h — drive build/progmux over a pipe, as an MCP client does.
 *
 * Used by the integration tests and the benchmarks. Each harness gets its
 * own temporary directory with a private tmux server on a socket inside it
 * (tmux -S DIR/tmux.sock -f /dev/null), started and killed by the harness
 * with the tmux under test (pmx_tmux_bin); the default tmux server is
 * never touched. Every tools/call result that is not an error is
 * validated against the tool's outputSchema from schemas/, so each call
 * in a test also checks the contract.
 */
#ifndef PROGMUX_TEST_CLIENT_H
#define PROGMUX_TEST_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"
#include "json.h"
#include "procs.h"
#include "timeutil.h"

struct held;

struct pmx {
	char		 dir[256];	/* temporary directory */
	char		 sock[300];	/* private tmux socket */
	bool		 own_tmux;	/* we started that server */
	pid_t		 pid;		/* progmux as started: the keeper */
	pid_t		 front;		/* its child, the front (or -1) */
	int		 to;		/* its stdin */
	int		 from;		/* its stdout */
	int		 err;		/* its stderr, kept in errlog */
	struct buf	 rbuf;
	int64_t		 read_us;	/* when stdout was last read (now_us) */
	int64_t		 read_real_ns;	/* the same, CLOCK_REALTIME in ns */
	size_t		 line_len;	/* bytes of the last line read */
	struct buf	 errlog;
	int64_t		 next_id;
	struct held	*held;		/* replies read but not yet claimed */
	struct json_doc	*schemas[16];
	int		 nschemas;
};

/* Make the directory and tmux server; start progmux with extra env
 * ("NAME=value" strings, NULL-terminated; may be NULL) and initialize. */
int	pmx_open(struct pmx *, const char *const *env);
/* The same, without starting a tmux server (robust mode, or none). */
int	pmx_open_no_tmux(struct pmx *, const char *const *env);
/* The directory only: progmux is started later with pmx_spawn. */
int	pmx_prepare(struct pmx *);
/* The directory only, and progmux started but not initialized. */
int	pmx_open_bare(struct pmx *, const char *const *env);
/* Start (another) progmux on the same tmux server. */
int	pmx_spawn(struct pmx *, const char *const *env, bool initialize);
/* Close stdin, wait for exit (bounded), kill the tmux server, rm -rf. */
int	pmx_close(struct pmx *);
/* SIGKILL c's front and let go of it (its keeper is waited for, its pipes
 * closed, its stderr kept in errlog): c is ready for pmx_spawn, on the
 * same directory and tmux server. */
void	pmx_kill_front(struct pmx *);
/* Sockets waiting in c's lease rendezvous, TMPDIR/progmux.lease.UID
 * (programs outliving their front). */
int	pmx_lease_sockets(const struct pmx *);
/* Wait (at most ms) until n sockets wait there: how many do. */
int	pmx_wait_lease_sockets(const struct pmx *, int n, int ms);
/* Another progmux on c's directory and tmux server, driven through twin
 * (with env, initialized or not); pmx_twin_close ends only it. */
int	pmx_twin(struct pmx *twin, const struct pmx *c,
	    const char *const *env, bool initialize);
int	pmx_twin_close(struct pmx *twin);
/* Wait for progmux to exit (up to ms); its status or -1. */
int	pmx_wait_exit(struct pmx *, int ms);

/* Send one raw line (a newline is added). */
void	pmx_send_raw(struct pmx *, const char *, size_t);
/* Send a request; returns its id. params is JSON text or NULL. */
int64_t	pmx_send(struct pmx *, const char *method, const char *params);
/* Wait for the reply with this id (other replies are kept for later). */
struct json_doc *pmx_wait(struct pmx *, int64_t id, int ms);
/* Wait for the next line, whatever it is. */
struct json_doc *pmx_next(struct pmx *, int ms);
/* The next line progmux writes, as JSON, bypassing replies held for
 * pmx_wait (NULL on timeout, EOF or a line that is not JSON); it sets
 * read_us and read_real_ns. */
struct json_doc *pmx_read_line(struct pmx *, int ms);
/* Keep progmux's stderr drained into errlog (it must never block). */
void	pmx_drain_err(struct pmx *);
/* A whole file (allocated, NUL-terminated) and its length, or NULL. */
char	*pmx_read_file(const char *, size_t *);
/* Write n lines "line 001"... to c->dir/name; its path (free it), or
 * NULL if it could not be written. */
char	*pmx_lines_file(struct pmx *, const char *name, int n);
/* Call a tool; args is JSON text. Returns the response; the result is
 * checked against the outputSchema unless isError. */
struct json_doc *pmx_call(struct pmx *, const char *tool, const char *args,
	    int ms);
/* From a tools/call response: the result, its structuredContent, its
 * isError and its first text block. */
const struct json *pmx_result(const struct json_doc *);
const struct json *pmx_sc(const struct json_doc *);
bool		 pmx_is_error(const struct json_doc *);
const char	*pmx_text(const struct json_doc *);

/* start_program with args; returns the programId (allocated) or NULL. */
char	*pmx_start_program(struct pmx *, const char *args, char **pane);
/* read_program until ended (or ms pass); the whole text (allocated) and
 * the last structuredContent as a document. */
char	*pmx_read_all(struct pmx *, const char *id, int ms,
	    struct json_doc **last);
/* read_program until the text holds needle; the text (allocated), or NULL
 * if the program ended or ms passed without it. */
char	*pmx_read_until(struct pmx *, const char *id, const char *needle,
	    int ms);

/* Is line one of the lines of text (a pane id among list-panes')? */
bool	pmx_has_line(const char *text, const char *line);
/* Run argv to completion (stdin and stderr /dev/null); its stdout
 * (allocated) and *status, its exit status or 128 if a signal ended it. */
char	*pmx_run_capture(char **argv, int *status);

/* The tmux under test: $PROGMUX_TEST_TMUX, or tmux. The harness starts,
 * inspects and ends its private server with it and passes it to progmux
 * as PROGMUX_TMUX_BIN (a test's own env wins), so no client ever talks
 * to a server of another version. */
const char *pmx_tmux_bin(void);
/* Run the tmux under test on the private socket with argv words; its
 * stdout (allocated) or NULL if it failed (pmx_tmux_at on c's socket). */
#define pmx_tmux(c, ...)	pmx_tmux_at((c)->sock, __VA_ARGS__)

/* Format a JSON string value (with quotes) for building arguments. */
char	*pmx_jstr(const char *);

/* Wait up to ms for pane ("%N") to be gone from c's tmux server: true
 * once it is, false if it is still there then. */
bool	pmx_wait_pane_gone(struct pmx *, const char *pane, int ms);

/* In a child about to become progmux for c: the environment every
 * progmux of a harness gets (c's socket and directory, the tmux under
 * test, nothing of an outer tmux, PROGMUX_ORPHAN_GRACE_MS=0: programs
 * end with it), env on top, then the exec of
 * $PROGMUX_BIN or build/progmux. Never returns. */
void	pmx_exec_progmux(const struct pmx *, const char *const *env)
	    __attribute__((noreturn));

/* Make DIR/repo, DIR being c's directory: a git repository of 6 commits
 * of 4 files each, for git log to print. Its path (allocated), or NULL
 * if git failed. */
char	*pmx_git_repo(struct pmx *);

/* Run tmux on another socket (-S sock); its stdout (allocated) or NULL. */
char	*pmx_tmux_at(const char *sock, ...) __attribute__((sentinel));
/* The value after "key " in progmux's start line on stderr, up to the
 * next comma (allocated), waited for up to ms; NULL if none. The line
 * names the socket ("socket") and the "runtime directory". */
char	*pmx_start_field(struct pmx *, const char *key, int ms);
/* The first line progmux wrote on stderr (allocated), or NULL after ms. */
char	*pmx_first_err_line(struct pmx *, int ms);

/* Descriptor limits for the progmux started by later pmx_open and
 * pmx_spawn calls (0, 0: leave them as they are). */
void	pmx_set_nofile(unsigned long soft, unsigned long hard);

/* A seeded xorshift generator (rand.h): the same numbers for the same seed. */
void	 pmx_srand(uint64_t seed);
uint64_t pmx_rand(void);
/* A seed from PMX_SEED if set, else from the clock; tests print it. */
uint64_t pmx_seed(void);

#endif
