/*
 * server.h — the front process: declarations shared by server/ files.
 *
 * The front is one single-threaded poll loop (main.c) over stdin, stdout,
 * the tmux control client (tmux.c), a signalfd and one socket per reaper
 * (program.c). mcp.c speaks JSON-RPC, tools.c holds the tool table built
 * from the embedded schemas, and the tool_*.c files implement the tools.
 * Requests that cannot be answered at once (a read that waits, a start
 * waiting for tmux) stay in mcp.c's table until answered or cancelled.
 */
#ifndef PROGMUX_SERVER_H
#define PROGMUX_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"
#include "json.h"
#include "textbuf.h"

/* config.c */
struct config {
	char		*tmux_bin;		/* LIBTMUX_TMUX_BIN or "tmux" */
	char		*socket_name;		/* -L */
	char		*socket_path;		/* -S */
	char		*session;		/* PROGMUX_SESSION */
	bool		 robust;
	int64_t		 wait_max_ms;		/* PROGMUX_WAIT_MAX_MS */
	int64_t		 output_max_bytes;	/* PROGMUX_OUTPUT_MAX_BYTES */
	int64_t		 total_output_max_bytes; /* ..._TOTAL_OUTPUT_MAX_BYTES */
	int64_t		 keep_ended;		/* PROGMUX_KEEP_ENDED */
	int64_t		 max_programs;		/* PROGMUX_MAX_PROGRAMS */
	int64_t		 lifetime_max_ms;	/* PROGMUX_LIFETIME_MAX_MS */
	int64_t		 pane_max_cells;	/* PROGMUX_PANE_MAX_CELLS */
	char		*reaper_path;		/* progmux-reaper beside us */
	char		*rundir;		/* private runtime directory */
	bool		 check;			/* --check: report and exit */
};
extern struct config cfg;

int	config_load(int argc, char **argv, char **cause);
void	config_usage(void);

/* mcp.c — requests and replies */
struct batch;

struct req {
	char		*id;		/* raw JSON text of the id, echoed */
	char		*idkey;		/* the id by value, for cancellation */
	char		*method;
	struct batch	*batch;		/* the batch it came in, if any (mcp.c) */
	bool		 parked;	/* in the pending list */
	int64_t		 deadline;	/* for waiting requests */
	int		 kind;		/* REQ_* while it waits */
	struct program	*prog;		/* what it waits on */
	int64_t		 cursor;
	int64_t		 max_lines;
	int64_t		 timeout_ms;	/* effective */
	bool		 keep;		/* run_program's keep */
	void		*op;		/* REQ_PANE: its pending operation */
	char		*progress_token; /* raw JSON, if the client sent one */
	double		 progress_sent;
	int64_t		 progress_at;	/* next progress notification, or 0 */
	struct req	*next;		/* in mcp's pending list */
};
#define REQ_NONE	0
#define REQ_READ	1	/* read_program waiting for text or end */
#define REQ_START	2	/* start_program or run_program: pane coming */
#define REQ_RUN		3	/* run_program waiting for the end */
#define REQ_STOP	4	/* stop_program waiting for the end */
#define REQ_PANE	5	/* capture_pane, send_keys: tmux answers */
#define REQ_KEYS	6	/* send_keys held until its program runs */

void	mcp_init(void);
void	mcp_input(const char *, size_t);	/* bytes from stdin */
void	mcp_input_eof(void);
bool	mcp_input_paused(void);		/* stdin waits for the client */
void	mcp_input_resume(void);
bool	mcp_output_pending(void);
int	mcp_flush(int fd);
void	mcp_write_line(struct buf *);	/* queue one message (adds \n) */
struct req *mcp_pending_first(void);
void	mcp_req_park(struct req *);	/* keep it until answered */
void	mcp_req_done(struct req *);	/* unlink and free */
int64_t	mcp_next_deadline(void);
void	mcp_run_timers(void);
void	mcp_reply_error(const char *id, int code, const char *msg);
void	mcp_reply_result(struct req *, const char *result, size_t len);
void	mcp_req_error(struct req *, int code, const char *msg);
const char *mcp_protocol_version(void);	/* the fuzz harness resets it */
void	mcp_log(int level, const char *logger, const char *, ...)
	    __attribute__((format(printf, 3, 4)));
#define MCP_LOG_INFO	1
#define MCP_LOG_WARNING	3
#define MCP_LOG_ERROR	4
#define MCP_PROGRESS_MS	1000	/* between progress notifications */
void	mcp_progress(struct req *, double progress, double total,
	    const char *message);

/* tools.c */
struct toolres {
	struct buf	 sc;		/* structuredContent, a JSON object */
	struct jw	 w;
	struct buf	 text;		/* the human-readable text block */
	bool		 is_error;
};
void	toolres_init(struct toolres *);
void	toolres_free(struct toolres *);
void	tool_error(struct toolres *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

int	tools_init(char **cause);
void	tools_list(struct jw *);
/* Returns 0 and answers (now or later); -1 if no such tool. */
int	tools_call(struct req *, const char *name, const struct json *args);
void	tools_reply(struct req *, struct toolres *);
void	tools_cancel(struct req *);	/* the client gave up on it */
void	tools_timeout(struct req *);	/* its deadline passed */
void	tools_progress(struct req *);	/* time for a progress note */
int64_t	arg_int(const struct json *, const char *, int64_t dflt);
bool	arg_bool(const struct json *, const char *, bool dflt);
const char *arg_str(const struct json *, const char *, size_t *len);

/* tool_program.c — start_program, read_program, run_program, stop_program */
void	tool_start_program(struct req *, const struct json *);
void	tool_read_program(struct req *, const struct json *);
void	tool_run_program(struct req *, const struct json *);
void	tool_stop_program(struct req *, const struct json *);
void	program_requests_settle(struct program *);
void	program_request_timeout(struct req *);
void	program_request_cancel(struct req *);
void	program_request_progress(struct req *);

/* tool_pane.c — capture_pane, send_keys (list_programs: tool_program.c) */
void	tool_capture_pane(struct req *, const struct json *);
void	tool_send_keys(struct req *, const struct json *);
void	tool_list_programs(struct req *, const struct json *);
void	pane_request_cancel(struct req *);
void	pane_keys_release(struct req *);

/* tmux.c — the control-mode client */
typedef void (*tmux_cb)(void *arg, bool ok, const char *out, size_t len);
int	tmux_start(char **cause);
void	tmux_stop(void);
bool	tmux_alive(void);
bool	tmux_idle(void);
int	tmux_fd_in(void);		/* read tmux's output */
int	tmux_fd_out(void);		/* -1 unless commands are queued */
void	tmux_on_readable(void);
void	tmux_on_writable(void);
/* Queue a command line (already quoted); cb gets its output. */
void	tmux_command(const char *line, tmux_cb, void *arg);
/* Quote one word for tmux's command parser. */
void	tmux_quote(struct buf *, const char *);
char	**tmux_client_argv(void);	/* tmux binary + socket arguments */
const char *tmux_version(void);
bool	tmux_reaped(pid_t);
int64_t	tmux_deadline(void);
unsigned tmux_generation(void);
void	tmux_check_attach(void);
int	tmux_probe(char **version, char **cause);
int	tmux_server_running(void);

/* program.c — the table of programs and their reapers */
enum prog_state {
	P_STARTING,	/* reaper up, pane being made */
	P_RUNNING,
	P_ENDED		/* end reported; text complete */
};

struct program {
	char		*id;
	uint64_t	 seq;
	char		**argv;
	size_t		 argc;
	char		*pane;		/* "%N" once known */
	unsigned	 pane_gen;	/* tmux_generation() it belongs to */
	pid_t		 pane_pid;
	char		*from_pane;
	bool		 split;
	char		*dir;
	int64_t		 width, height;
	int64_t		 lifetime_ms;
	int64_t		 started_ms;	/* monotonic */
	int64_t		 started_real;	/* wall clock, for list_programs */
	enum prog_state	 state;
	bool		 launched;	/* the program runs, the terminal its */

	pid_t		 reaper_pid;
	int		 sock;
	struct buf	 sock_in;
	struct buf	 sock_out;
	bool		 reaper_gone;
	bool		 forgotten;	/* off the table; freed after dispatch */
	bool		 pane_killed;

	struct textbuf	 text;
	char		*outcome;	/* once ended: END_* */
	int64_t		 exit_status;	/* -1: none */
	int		 signal;	/* 0: none */
	bool		 lost_end;
	bool		 cut;
	char		*why;

	struct req	*start_req;	/* start or run waiting for the pane */
	bool		 run;		/* started by run_program */
	bool		 keep_pane;	/* pane stays after the end */
	char		*ctl;		/* the launcher's control FIFO */
	char		*out_path;	/* the output FIFO pipe-pane writes */
	int		 out_rfd;	/* its read end, until the reaper has it */
	char		*err_path;	/* standard error's FIFO, or NULL */
	int		 pane_retries;
	bool		 start_cancelled; /* the caller gave up on the start */
	bool		 stopping;	/* stop_program asked for its end */
	int64_t		 stop_grace;
	char		*input;		/* run_program's input, until sent */
	size_t		 input_len;
	bool		 has_input;
	bool		 inherit_shell;
	bool		 separate_stderr;
	struct textbuf	 errtext;	/* standard error, with separateStderr */
	uint64_t	 ended_seq;	/* order of ending, for eviction */
	struct program	*next;
};

void		 programs_init(void);
struct program	*program_find(const char *id);
struct program	*program_by_seq(uint64_t);
struct program	*program_first(void);
struct program	*program_by_pane(const char *);
size_t		 programs_alive(void);
size_t		 programs_text_kept(void);
void		 programs_make_room(void);
struct program	*program_new(void);
int		 program_make_fifos(struct program *, char **cause);
int		 program_spawn_reaper(struct program *, char **cause);
void		 program_abandon(struct program *, const char *why);
void		 program_on_readable(struct program *);
void		 program_on_writable(struct program *);
void		 program_reap_children(void);
void		 program_forget(struct program *);
void		 programs_collect(void);
void		 program_stop(struct program *, int64_t grace_ms);
void		 programs_shutdown(void);
/* Called by program.c when text arrives or the program ends. */
void		 program_changed(struct program *);
const char	*signal_name(int);
void		 program_make_pane(struct program *);
void		 program_start_failed(struct program *, const char *why);

#endif
