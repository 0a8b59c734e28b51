/*
 * server.h — the front process: declarations shared by server/ files,
 * one section per file. docs/ARCHITECTURE.md ("The layers of the front")
 * says what each layer is and which arrows are never drawn.
 *
 * Layers, each calling only the ones below it:
 *
 *   set-up     main.c (start-up, the exit, reaping children), keeper.c
 *   protocol   mcp.c (stdin, the envelope, the one method table of both
 *              eras) over its method families, each exporting its rows:
 *              mcp_session.c, mcp_tools.c, task.c, resource.c,
 *              mcp_listen.c, and beside them mcp_hosts.c (calls for
 *              other hosts) over mcp_hosts_link.c (the hosts and their
 *              links); over mcp_req.c (the request and its context,
 *              replies, the output queue). Their own header is
 *              mcp_req.h; this one shows only stdin and stdout of them
 *   tools      tool_start.c, tool_run.c, tool_read.c, tool_stop.c,
 *              tool_list.c, tool_pane.c, tool_keys.c, tool_secret.c
 *              (with its page, secret_page.c, over its own HTTP,
 *              page_http.c), tool_view.c (the view's own call), with
 *              select.c (what a reply shows of a program's text),
 *              watch.c (a call waiting on a program) and report.c (how
 *              they report a program)
 *   dispatch   tools.c: the tool table, arguments, the call and its
 *              services; below the tool files (as tmux's cmd-queue.c),
 *              running them through their entries; the protocol gives
 *              it its reply functions at set-up
 *   links      host_link.c: a host's link, its command spoken to as an
 *              MCP client; knows no request, tool or program
 *   programs   program.c (the table and each program's lifecycle), made
 *              of pane.c (its FIFOs and pane), reaper_link.c (its
 *              reaper) and waiting.c (does it wait for input?); the
 *              three get callbacks and never call program.c
 *   tmux       tmux.c, the control-mode client, with tmux_parse.c (its
 *              lines and quoting, pure), tmux_probe.c (which tmux and how
 *              it is run), tmux_lock.c (the attach lock), tmux_session.c
 *              (our session)
 *
 * all over config.c (settings, read by all), loop.c (the poll loop every
 * layer registers its descriptors, timers and before-sleep work with),
 * quiet.c (warnings about an end the exit may explain) and common/.
 * A program tells what changes to the waiters its callers registered
 * (program_wait); a warning for the client goes through the log sink the
 * protocol sets (log_set_sink).
 */
#ifndef PROGMUX_SERVER_H
#define PROGMUX_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"
#include "json.h"
#include "spool_read.h"
#include "textbuf.h"

/* config.c */
struct cfg_host {		/* a host the person configured */
	char		 *name;		/* what the model picks */
	char		 *command;	/* run by /bin/sh -c */
};
#define CFG_HOSTS_MAX		32	/* hosts configured, at most */
#define CFG_HOST_NAME_MAX	16	/* bytes of a host's name */
struct cfg_given {		/* a value given, and by which setting */
	char		 *from;
	char		 *value;
	struct cfg_given *next;
};
struct config {
	char		*tmux_bin;		/* LIBTMUX_TMUX_BIN or "tmux" */
	char		*socket_name;		/* -L */
	char		*socket_path;		/* -S */
	char		*session;		/* PROGMUX_SESSION */
	bool		 robust;
	int64_t		 wait_max_ms;		/* PROGMUX_WAIT_MAX_MS */
	int64_t		 secret_page_ms;	/* PROGMUX_SECRET_PAGE_MS */
	int64_t		 output_max_bytes;	/* PROGMUX_OUTPUT_MAX_BYTES */
	int64_t		 total_output_max_bytes; /* ..._TOTAL_OUTPUT_MAX_BYTES */
	int64_t		 keep_ended;		/* PROGMUX_KEEP_ENDED */
	int64_t		 max_programs;		/* PROGMUX_MAX_PROGRAMS */
	int64_t		 lifetime_max_ms;	/* PROGMUX_LIFETIME_MAX_MS */
	int64_t		 pane_max_cells;	/* PROGMUX_PANE_MAX_CELLS */
	int64_t		 orphan_grace_ms;	/* PROGMUX_ORPHAN_GRACE_MS: 0
						   in robust mode */
	char		*reaper_path;		/* progmux-reaper beside us */
	char		*rundir;		/* private runtime directory */
	int		 rundir_fd;		/* it, opened: reached only so */
	char		 rundir_id[48];		/* its "DEV:INO" (rundir.h) */
	int		 lock_fd;		/* its lock, held shared */
	char		*lease_dir;		/* the rendezvous (rundir.h), */
	int		 lease_fd;		/* opened, or -1: no lease */
	char		 lease_id[48];		/* its "DEV:INO" */
	bool		 check;			/* --check: report and exit */
	int64_t		 safety;		/* PROGMUX_SAFETY: SAFETY_* */
	char		*tools;			/* PROGMUX_TOOLS: "a,b" or NULL */
	struct cfg_given *tools_given;		/* every value given, for
						   tools.c to check */
	struct cfg_host	*hosts;			/* PROGMUX_HOSTS, --host */
	size_t		 nhosts;
	bool		 hosts_flag;		/* --host given: the
						   variable's are dropped */
	char		*host_name;		/* the name a hub knows us
						   by (initialize), or NULL */
};
/* Safety tiers, by how much they hold back: each offers the tools of
 * those above it too; 0, the default, offers every tool. */
#define SAFETY_DESTRUCTIVE	0
#define SAFETY_MUTATING		1
#define SAFETY_READONLY		2
extern struct config cfg;

int	config_load(int argc, char **argv, char **cause);
const char *config_tier_name(void);
void	config_rundir_leave(void);
int	config_rundir_check(char **cause);
const char *config_tmux_conf(char **cause);	/* robust mode's tmux.conf */
const struct cfg_host *config_host(const char *name, size_t len);
bool	config_host_name_ok(const char *name, size_t len, bool epoch);

/* keeper.c — the front's parent, there when the front is not */
int	keeper_start(void);	/* in the front: a watch of the keeper, or -1 */

/* mcp.c, mcp_req.c, mcp_hosts_link.c — the protocol wing (its own
 * header: mcp_req.h), as the rest of the front sees it: stdin in, stdout
 * out, and the hosts' links ended */
struct mcp_req;
struct req;

void	mcp_init(void);
void	mcp_input(const char *, size_t);	/* bytes from stdin */
void	mcp_input_eof(void);
bool	mcp_input_paused(void);		/* stdin waits for the client */
void	mcp_input_resume(void);
bool	mcp_input_held(void);		/* lines read, not yet taken */
bool	mcp_output_pending(void);
int	mcp_flush(int fd);
bool	mcp_replies_owed(void);		/* requests not yet replied to */
void	mcp_hosts_shutdown(void);	/* exiting: the hosts' links end */

/* tools.c — the tool table, tiers and allow-list, tools/list and the
 * argument checks; tools_req.c — a call being run (struct req) with its
 * results, answer, timers, progress and elicitation */
struct toolres {
	struct buf	 sc;		/* structuredContent, a JSON object */
	struct jw	 w;
	struct buf	 text;		/* the human-readable text block */
	bool		 is_error;
};

/*
 * One tool, as tmux's cmd_entry: what runs it and what settles it. A
 * call (struct req, opaque here) is the tool's from run until it answers
 * (tools_reply, tools_error); its state is the tool's (tools_set_state),
 * and each of its timers runs one of these when it comes due.
 */
struct tool_entry {
	const char	 *name;
	void		(*run)(struct req *, const struct json *args);
	void		(*cancel)(struct req *);	/* client gave up */
	void		(*timeout)(struct req *);	/* deadline passed */
	void		(*progress)(struct req *);	/* time for a note */
	const char	 *other_fields;	/* fields a sibling tool takes */
	const char	 *other_hint;
	void		(*wake)(struct req *);	/* time to look again */
	struct program	*(*program)(struct req *); /* the one it waits on */
	void		(*elicited)(struct req *, const char *action);
};
#define TOOLS_PROGRESS_MS	1000	/* between progress notifications */
#define TOOLS_REPLY_MAX		(4u * 1024 * 1024) /* bytes of any tool's reply */

void	toolres_init(struct toolres *);
void	toolres_free(struct toolres *);
void	toolres_error(struct toolres *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
int	tools_init(char **cause);
const char *tools_name(size_t);		/* each in turn; NULL at the end */
bool	tools_offered(size_t);		/* in the tier and allow-list */
bool	tools_offered_name(const char *);
void	tools_list(struct jw *, bool tasks, bool ui);
bool	tools_app_only(const char *name);	/* only a view calls it */
/* Programs adopted at start-up (ids taken): the first result says so. */
void	tools_adopted(char **ids, size_t n);
bool	tools_task_ok(const char *name);	/* may become a task */
const char *tools_instructions(void);
void	tools_set_note(const char *field, const char *note);
void	tools_result_put(struct buf *, const char *text, size_t len,
	    const char *sc, size_t sclen, bool is_error);
/*
 * How the protocol answers a call: mcp_tools.c gives these at its
 * set-up, so the tool layer calls no JSON-RPC itself. bind: the call a
 * later cancellation reaches; answer: the result (the request is then
 * done); progress notifications, if the client asked for them.
 */
struct tools_rpc {
	void	(*bind)(struct mcp_req *, struct req *);
	void	(*answer)(struct mcp_req *, const char *result, size_t len);
	bool	(*wants_progress)(const struct mcp_req *);
	void	(*progress)(struct mcp_req *, double progress, double total,
		    const char *message);
	/* URL-mode elicitation (tools_elicit_url): 0 the client has none,
	 * 1 asked (the answer comes to tools_elicited), 2 the call was
	 * answered input_required (2026-07-28; the rpc is freed). */
	int	(*elicit_url)(struct mcp_req *, const char *url,
		    const char *message, const char *id);
	void	(*elicit_done)(const char *id);
	/* A call made again after input_required: its requestState and
	 * the person's action (only while the call is being made). */
	bool	(*resumed)(struct mcp_req *, const char **state,
		    const char **action);
};
void	tools_set_rpc(const struct tools_rpc *);
/* From the protocol: 0 and the call answers (now or later); -1 if no
 * such tool. The client gave up on a call: it goes without an answer. */
int	tools_call(struct mcp_req *, const char *name,
	    const struct json *args);
/* tools.c's, making a call: bound to its request, then the unknown
 * fields it was given (said at the end of its result). */
struct req *tools_req_new(struct mcp_req *, const struct tool_entry *,
	    bool app);
void	tools_req_ignored(struct req *, char *said);
void	tools_cancel(struct req *);
/* The program a waiting call waits on (NULL: none yet), for its task. */
struct program *tools_program(struct req *);
/* For the tool files: answer a call (and forget it), keep state, set
 * its timers (DEADLINE_NONE clears one), send progress. */
void	tools_reply(struct req *, struct toolres *);
void	tools_error(struct req *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	*tools_state(const struct req *);
void	tools_set_state(struct req *, void *);
void	tools_set_entry(struct req *, const struct tool_entry *);
void	tools_set_deadline(struct req *, int64_t when);	/* timeout then */
void	tools_set_wake(struct req *, int64_t when);	/* wake then */
void	tools_progress_start(struct req *);	/* progress, if asked */
#define TOOLS_ELICIT_NONE	0	/* the client cannot: say it otherwise */
#define TOOLS_ELICIT_ASKED	1	/* the answer comes to .elicited */
#define TOOLS_ELICIT_RETURNED	2	/* the call was answered: req is gone */
int	tools_elicit_url(struct req *, const char *url, const char *message,
	    const char *id);
void	tools_elicit_done(const char *id);
bool	tools_elicit_resumed(struct req *, const char **state,
	    const char **action);
void	tools_elicited(struct req *, const char *action);
void	tools_progress_send(struct req *, double progress, double total,
	    const char *message);
int64_t	tools_arg_int(const struct json *, const char *, int64_t dflt);
bool	tools_arg_bool(const struct json *, const char *, bool dflt);
const char *tools_arg_str(const struct json *, const char *, size_t *len);
#define TOOLS_PANE_ID_MAX	24	/* "%" digits NUL, canonical */
const char *tools_arg_pane(const struct json *, const char *,
	    char buf[TOOLS_PANE_ID_MAX]);
#define TOOLS_PANE_SHOWN_MAX	64	/* "box.2:%4" NUL */
const char *tools_pane_shown(const char *pane,
	    char buf[TOOLS_PANE_SHOWN_MAX]);

/* tool_start.c, tool_run.c, tool_read.c, tool_stop.c, tool_list.c,
 * tool_pane.c, tool_keys.c, tool_secret.c, tool_view.c */
extern const struct tool_entry tool_start_entry;
extern const struct tool_entry tool_run_entry;
extern const struct tool_entry tool_read_entry;
extern const struct tool_entry tool_stop_entry;
extern const struct tool_entry tool_list_entry;
extern const struct tool_entry tool_pane_capture_entry;
extern const struct tool_entry tool_keys_entry;
extern const struct tool_entry tool_secret_entry;
extern const struct tool_entry tool_view_entry;

/* tool_start.c — the start run_program makes too: made(req, program,
 * arg) once the pane exists, or made(NULL, NULL, arg) once the start
 * failed (the call answered) or was given up */
struct program;
struct program_spec;
typedef void	(*tool_start_cb)(struct req *, struct program *, void *);
void	tool_start_program(struct req *, const struct json *args,
	    struct program_spec *, tool_start_cb made, void *arg);
void	tool_start_cancel(struct req *);
void	tool_start_forget(struct program *);
struct program *tool_start_waits_on(struct req *);

/* secret_ask.c — one ask of ask_user_secret, from its page to the pane */
struct secret_page;
/* One page for one program's prompt. */
struct secret_ask {
	uint64_t		 prog;		/* program_seq of it */
	char			*pane;
	struct secret_page	*page;
	struct req		*req;		/* the call waiting, or NULL */
	int64_t			 wait_ms;	/* timeoutMs */
	int64_t			 asked_ms;	/* when the page opened */
	char			 eid[33];	/* elicitationId, requestState */
	bool			 mrtr;		/* asked by input_required: the
						   outcome waits for the call
						   made again */
	bool			 over;		/* typed (why NULL) or not */
	size_t			 chars;		/* characters typed */
	size_t			 typed_from, typed_len;
	const char		*why;		/* nothing typed: why */
	struct secret_ask	*next;
};

void	secret_ask_add(struct secret_ask *);
struct secret_ask *secret_ask_find(uint64_t prog, const char *eid);
void	secret_ask_free(struct secret_ask *);
const char *secret_ask_why_not(struct program *);
const char *secret_ask_check(void *arg);
void	secret_ask_came(void *arg, const char *secret, size_t len,
	    const char *why);
void	secret_ask_result(struct toolres *, struct secret_ask *,
	    struct program *);
void	secret_ask_untyped(struct secret_ask *);
void	secret_ask_reply(struct secret_ask *, struct req *, struct program *);

/* tool_read.c — send_keys' reply is answered as a read is */
struct watch;
/* What a reply adds to a read's answer (ask_user_secret's): put writes
 * its fields (w, text NULL), then its text (w NULL, text). */
struct tool_read_extra {
	void	(*put)(struct jw *w, struct buf *text, void *arg);
	void	*arg;
	size_t	 chars;
};
void	tool_read_answer(struct watch *, struct req *, void *);
void	tool_read_reply(struct req *, struct program *, const char *pane,
	    size_t typed_from, size_t typed_len, bool screen, int64_t wait_ms,
	    struct tool_read_extra *);
struct sel;
struct ready;
void	tool_read_reply_sel(struct req *, struct program *, const char *pane,
	    size_t typed_from, size_t typed_len, bool screen, int64_t wait_ms,
	    struct sel *, struct ready *, struct tool_read_extra *);
int	tool_read_clauses(struct req *, const struct json *args,
	    const char *dir, struct sel *, struct ready **);

struct sel;
struct ready;
/* tool_pane.c — what capture_pane and send_keys (tool_keys.c) share:
 * the call waiting for tmux, the check of the pane progmux runs in */
struct tool_pane_op {
	struct req	*req;		/* NULL once cancelled */
	struct program_waiter *held;	/* keys held until it runs */
	char		*pane;
	int64_t		 max_lines;
	char		*keys;		/* send_keys: what to type */
	size_t		 keys_len;
	bool		 literal;
	bool		 enter;
	/* While the panes are listed: the call to run then, on a copy of
	 * its arguments. */
	void		(*then)(struct req *, const struct json *);
	struct json_doc	*args;
	int64_t		 wait_ms;	/* send_keys' timeoutMs */
	uint64_t	 prog;		/* the program whose pane it is, or 0 */
	size_t		 typed_from;	/* where the line typed into began */
	size_t		 typed_len;	/* the text's length then */
	bool		 alt;		/* the pane showed its alternate
					   screen when the keys went */
	struct sel	*sel;		/* send_keys' until, tail, or NULL */
	struct ready	*ready;		/* its readiness clauses, or NULL */
};

bool	tool_pane_is_ours(const char *pane);
void	tool_pane_park(struct req *, struct tool_pane_op *);
void	tool_pane_reply(struct tool_pane_op *, struct toolres *);
void	tool_pane_op_free(struct tool_pane_op *);
void	tool_pane_cancel(struct req *);
void	tool_pane_fail(struct tool_pane_op *, const char *what, const char *out);
void	tool_pane_guard(struct req *, const struct json *args,
	    void (*then)(struct req *, const struct json *));
/* (cb as tmux_cb: tmux's answer.) */
void	tool_pane_type_secret(const char *pane, const char *secret,
	    void (*cb)(void *, bool, const char *, size_t), void *arg);
void	tool_pane_enter(const char *pane,
	    void (*cb)(void *, bool, const char *, size_t), void *arg);

/* report.c — how the program tools report a program, in the structured
 * result and in the text alike */
struct program;
struct report {
	struct program	*p;
	size_t		 cursor;	/* where the reply's text ends */
	bool		 ended;		/* the reply's "ended" */
	bool		 waiting;	/* waits for input now */
	bool		 hidden;	/* with echo off (a password?) */
	size_t		 us, ue;	/* its unfinished line: text[us, ue) */
	const struct ports *ports;	/* its tree's, if walked (ports.c) */
	const struct spool_gap *gap;	/* the gap its range took in, or NULL */
};
const char *report_text_at(const struct textbuf *, size_t off);
void	report_make(struct report *, struct program *, size_t cursor,
	    bool ended, bool waiting);
void	report_put(struct jw *, const struct report *);
void	report_put_brief(struct jw *, const struct report *);
void	report_put_exit(struct jw *, const struct program *);
void	report_put_ids(struct jw *, struct program *);
void	report_line(struct buf *, const struct report *);
void	report_list_line(struct buf *, const struct report *, int64_t left_ms,
	    const char *started);
#define REPORT_ARGS_MAX	32	/* arguments a list shows (report_argv) */
size_t	report_cut_len(const char *);
size_t	report_argv(const struct program *, const char **arg,
	    size_t *shown_len, size_t *chars, bool *cut);
void	report_unknown(struct buf *, const char *id);
void	report_task(struct buf *, struct program *, int64_t *cursor);

/* select.c — what a reply shows of a program's text: the first page at a
 * cursor, until's line and the lines before it, the last lines (tail),
 * the lines a filter matches with context; one scan, sliced, shown in
 * the structured result and the text alike */
struct pattern;
/* Why a read returned (reason). */
enum sel_reason {
	SEL_R_TEXT,		/* new lines came, and their burst is over */
	SEL_R_FULL,		/* a page of them */
	SEL_R_MATCHED,		/* until's line came */
	SEL_R_ENDED,		/* the program ended or was stopped */
	SEL_R_INPUT,		/* it waits for input */
	SEL_R_TIMEOUT,		/* the wait ran out */
	SEL_R_SCAN,		/* scanning what was there ran out of time */
	SEL_R_SCREEN,		/* its alternate screen settled */
	SEL_R_PORT,		/* untilPort: it listens on the port */
	SEL_R_URL,		/* untilUrl answered below 400 */
	SEL_R_FILE,		/* untilFile is there (and matches) */
	SEL_R_QUIET,		/* untilQuietMs of quiet after a line */
	SEL_R_READY		/* it said READY=1 on NOTIFY_SOCKET */
};
/* What a wait is for (watch.c): when the read may answer. */
enum sel_wait {
	SEL_WAIT_LINES,		/* new whole lines, their burst over */
	SEL_WAIT_MATCH,		/* until's line */
	SEL_WAIT_MATCHES,	/* filter: matching lines, their burst over */
	SEL_WAIT_END,		/* the end, or a prompt (tail, a run) */
	SEL_WAIT_SCREEN,	/* the alternate screen to settle */
	SEL_WAIT_READY		/* a readiness clause (ready.c), the end */
};
struct sel_hit {
	size_t		 off;		/* the line's offset */
	size_t		 line;		/* its number */
	bool		 until;		/* until's line, not a filter's */
};
struct sel {
	size_t		 start;		/* the cursor asked */
	size_t		 max_lines;	/* lines a reply holds (SIZE_MAX) */
	size_t		 tail;		/* the last lines or matches, or 0 */
	size_t		 context;	/* filter's context lines */
	struct pattern	*until;		/* owned, or NULL */
	struct pattern	*filter;	/* owned, or NULL */
	bool		 last;		/* show the range's end, not its start */
	enum sel_wait	 wait;

	size_t		 scan;		/* the next line to look at */
	size_t		 line;		/* its number, from 1 */
	size_t		 start_line;	/* the cursor's line number */
	size_t		 scanned, matched;
	size_t		 until_end;	/* after until's line, or 0 */
	size_t		 cand;		/* no line before it matches */
	size_t		 pass;		/* bytes sel_pass looks at */
	size_t		 pass_skip;	/* lines before it looks again */
	char		*failed;	/* a limit stopped a match: why */

	struct buf	 out;		/* a filter's first page */
	size_t		 out_lines, out_chars, shown_end, shown_raw, after;
	bool		 full;		/* its next group did not fit */
	struct sel_hit	*ring;		/* a filter's last hits (last) */
	size_t		 ring_cap, ring_n, ring_next;
	struct spool_view v;		/* the text, as the scan reads it */
	struct spool_view cv;		/* and as lines are shown */
};
/* What a reply shows of it (sel_show). */
struct sel_shown {
	size_t		 cursor;	/* after what the reply covers */
	size_t		 first;		/* where what is shown begins */
	size_t		 skipped;	/* lines before it left out */
	size_t		 lines;		/* lines shown */
	size_t		 shown_raw;	/* characters of the text shown */
	size_t		 hits;		/* a filter's matches shown (last) */
	bool		 crossed;	/* its range took in the gap: */
	struct spool_gap gap;		/* the middle that was not kept */
};
#define SEL_ARG_CURSOR	0x1	/* cursor, as read_program takes it */
#define SEL_ARG_UNTIL	0x2	/* until */
#define SEL_SCAN_DONE	0
#define SEL_SCAN_MORE	1
#define SEL_SCAN_MATCHED 2
#define SEL_SCAN_FULL	3
#define SEL_SCAN_FAILED	4
#define SEL_SCAN_US	2000	/* matching per loop turn, at most */
int	sel_parse(struct sel *, const struct json *args, unsigned what,
	    char **cause);
void	sel_begin(struct sel *, const struct textbuf *);
void	sel_free(struct sel *);
int	sel_scan(struct sel *, const struct textbuf *, bool final,
	    int64_t budget_us);
void	sel_show(struct sel *, const struct textbuf *, bool over,
	    struct buf *out, struct sel_shown *);
void	sel_put(struct jw *, const struct sel *, const struct sel_shown *);
void	sel_note(struct buf *, const struct sel *, const struct sel_shown *);
const char *sel_reason_name(enum sel_reason);
void	sel_reason_text(struct buf *, enum sel_reason, int64_t timeout_ms);

/* ready.c — what ends a wait beside until: untilPort, untilUrl,
 * untilFile (untilFileMatch), untilQuietMs */
struct ready;
int	ready_parse(struct ready **, const struct json *args, const char *dir,
	    char **cause);
void	ready_start(struct ready *, void (*kick)(void *), void *arg);
int	ready_check(struct ready *, struct program *, size_t floor,
	    int64_t now, int64_t *next);
struct ports *ready_take_ports(struct ready *);
void	ready_note(struct buf *, const struct ready *);
void	ready_free(struct ready *);

/* watch.c — a call waiting on a program until what it asked for is
 * there: read_program, send_keys' reply, run_program's wait */
struct watch;
typedef void	(*watch_answer_cb)(struct watch *, struct req *, void *arg);
struct watch	*watch_new(struct req *, struct program *, struct sel *,
		     int64_t timeout_ms, int64_t deadline, watch_answer_cb,
		     void *arg);
void		 watch_reply_of(struct watch *, const char *pane,
		     size_t typed_from, size_t typed_len, bool screen);
void		 watch_start(struct watch *);
void		 watch_own_arg(struct watch *, void (*)(void *));
void		 watch_ready(struct watch *, struct ready *, bool notify);
void		 watch_timeout(struct req *);
void		 watch_wake(struct req *);
void		 watch_cancel(struct req *);
void		 watch_progress(struct req *);
struct program	*watch_req_program(struct req *);
/* A tool_entry's hooks for a call waiting as a read does (run, if not
 * NULL, starts it). */
#define WATCH_ENTRY(n, r) {						\
	.name = (n), .run = (r), .cancel = watch_cancel,		\
	.timeout = watch_timeout, .wake = watch_wake,			\
	.progress = watch_progress, .program = watch_req_program	\
}
void		*watch_arg(const struct watch *);
struct program	*watch_program(const struct watch *);
struct sel	*watch_sel(struct watch *);
enum sel_reason	 watch_reason(const struct watch *);
bool		 watch_input(const struct watch *);
const struct ports *watch_ports(const struct watch *);
const struct ready *watch_clauses(const struct watch *);
int64_t		 watch_timeout_ms(const struct watch *);
const char	*watch_pane(const struct watch *);
size_t		 watch_typed_from(const struct watch *);
const char	*watch_screen(const struct watch *);

/* loop.c — the one poll loop: descriptor callbacks and timers */
#define LOOP_READ	0x1
#define LOOP_WRITE	0x2
struct loop_timer;
/* fired: what of the registered interest happened (LOOP_READ, ...). */
typedef void	(*loop_fd_cb)(int fd, int fired, void *arg);
typedef void	(*loop_timer_cb)(void *arg);
void	loop_fd_add(int fd, int mask, loop_fd_cb, void *arg);
void	loop_fd_mask(int fd, int mask);
void	loop_fd_del(int fd);
struct loop_timer *loop_timer_new(loop_timer_cb, void *arg);
void	loop_timer_set(struct loop_timer *, int64_t when);	/* absolute ms */
void	loop_timer_clear(struct loop_timer *);
bool	loop_timer_pending(const struct loop_timer *);
int64_t	loop_timer_when(const struct loop_timer *);
void	loop_timer_free(struct loop_timer *);
int64_t	loop_next_deadline(int64_t deadline);
uint64_t loop_turn(void);
void	loop_before_sleep(loop_timer_cb, void *arg);	/* each turn */
void	loop_run_once(int64_t deadline);

/* ports.c — the TCP ports a process tree listens on, walked a slice of
 * each loop turn */
struct ports;
typedef void	(*ports_cb)(void *arg);
struct ports	*ports_walk(pid_t root, ports_cb done, void *arg);
void		 ports_free(struct ports *);
bool		 ports_over(const struct ports *);
bool		 ports_has(const struct ports *, unsigned port);
void		 ports_put(struct jw *, const struct ports *);
void		 ports_text(struct buf *, const struct ports *);

/* probe.c — an http:// URL of this machine: does it answer below 400? */
struct probe;
typedef void	(*probe_cb)(void *arg);
struct probe	*probe_new(const char *url, probe_cb done, void *arg,
		     char **cause);
void		 probe_start(struct probe *);
bool		 probe_busy(const struct probe *);
int		 probe_status(const struct probe *);
const char	*probe_why(const struct probe *);
void		 probe_free(struct probe *);

/* quiet.c — warnings about an end that the exit may explain */
void	quiet_warn(const char *logger, char *warning, char *notice);
void	quiet_exit(void);

/* tmux.c — the control-mode client: its state, its queue of commands */
typedef void (*tmux_cb)(void *arg, bool ok, const char *out, size_t len);
int	tmux_start(char **cause);
void	tmux_shutdown(void);		/* at exit: the last commands */
void	tmux_stop(void);		/* at exit: the client goes */
bool	tmux_alive(void);
bool	tmux_idle(void);
/* Queue a command line (already quoted); cb gets its output. */
void	tmux_command(const char *line, tmux_cb, void *arg);
void	tmux_command_secret(const char *line, tmux_cb, void *arg);
bool	tmux_reaped(pid_t, int status);
bool	tmux_children(void);		/* a child of ours is not reaped */
unsigned tmux_generation(void);

/* tmux_parse.c — pure: control-mode lines, quoting, error hints */
struct tmux_parse {
	bool		 in_block;
	unsigned long	 time;		/* its %begin's time and number: only */
	unsigned long	 num;		/* the %end or %error with both ends it */
	bool		 ours;		/* the block answers our command */
	struct buf	 block;		/* its output lines */
};
enum tmux_line_kind {
	TMUX_LINE_NONE,		/* inside a block, or not ours to act on */
	TMUX_LINE_OK,		/* our block ended with %end: ps->block */
	TMUX_LINE_ERROR,	/* our block ended with %error */
	TMUX_LINE_ATTACHED,	/* %session-changed */
	TMUX_LINE_EXIT		/* %exit: *reason says why */
};
void	tmux_parse_reset(struct tmux_parse *);
enum tmux_line_kind tmux_parse_line(struct tmux_parse *, const char *line,
	    size_t len, const char **reason);
/* Quote one word for tmux's command parser. */
void	tmux_quote(struct buf *, const char *);
/* What to add to tmux's error text for a command ("" if nothing). */
const char *tmux_error_hint(const char *out);

/* tmux_probe.c — how every tmux of ours is run; tmux's version
 * (`tmux -V`); --check's server test */
void	tmux_argv_build(void);		/* from the settings, anew */
/* The directories tmux is looked for in after PATH: where Homebrew
 * (arm64, Intel) and MacPorts put it, which a GUI app's PATH lacks. */
extern const char *const tmux_dirs[];
/* The first executable file name in the directories of path (a
 * PATH-style list), then in dirs (NULL-terminated): its path into out,
 * 0; -1 if none. */
int	tmux_search(const char *name, const char *path,
	    const char *const *dirs, char *out, size_t size);
/* How to install tmux here: the command of the first package manager
 * found on PATH, else where they live, else the system's usual ones. */
const char *tmux_install_advice(void);
char	**tmux_client_argv(void);	/* tmux binary + socket arguments */
const char *tmux_server_key(void);	/* which server: its socket's path */
bool	tmux_probe_child(void);		/* `tmux -V` not reaped yet */
typedef void (*tmux_probe_cb)(const char *cause);	/* NULL: usable */
const char *tmux_version(void);
bool	tmux_probe_usable(void);
int	tmux_probe_start(tmux_probe_cb, char **cause);	/* in the loop */
void	tmux_probe_kill(void);
bool	tmux_probe_reaped(pid_t, int status);
int	tmux_probe(char **version, char **cause);	/* waits: not in the loop */
int	tmux_server_running(void);	/* waits: for --check only */
int	tmux_nofile_check(char **cause);	/* enough descriptors? */
struct tmux_client {		/* the control client's process */
	pid_t	 pid;
	int	 in;		/* we read its stdout */
	int	 out;		/* we write its stdin */
	int	 err;		/* we read its stderr, or -1 */
};
int	tmux_client_spawn(const char *conf, struct tmux_client *,
	    char **cause);
bool	tmux_run_wait(const char *command, int64_t wait_ms); /* waits */

/* tmux_lock.c — the attach lock, taken while a client attaches */
bool	tmux_lock_take(void (*cb)(void));	/* true: cb once it is over */
void	tmux_lock_release(void);

/* tmux_session.c — our own session and its idle window */
void	tmux_session_argv(char **argv, size_t *n);	/* new-session ... */
bool	tmux_session_find(struct buf *cmd);	/* attached: list-panes */
bool	tmux_session_found(const char *, size_t, struct buf *cmd);
bool	tmux_session_leave(struct buf *cmd);	/* at exit: kill-pane */
void	tmux_session_linger(void);	/* at exit: programs outlive us */
void	tmux_session_forget(void);	/* the client went */

/* program.c — the table of programs and each one's lifecycle */
enum program_state {
	PROGRAM_STARTING,	/* pane being made */
	PROGRAM_PIPING,		/* pane made; pipe-pane and the reaper due */
	PROGRAM_GATED,		/* piped: the reaper has the pane */
	PROGRAM_RUNNING,	/* the program runs */
	PROGRAM_STOPPING,	/* stop asked; its end not yet known */
	PROGRAM_ENDED,		/* end known: text complete */
	PROGRAM_CLOSED,		/* ended, and its reaper gone: evictable */
	PROGRAM_DROPPED		/* off the table; freed after dispatch */
};

/* How a program stands, as the seed names it (program_outcome_name). */
enum program_outcome {
	OUTCOME_RUNNING,
	OUTCOME_COMPLETED,
	OUTCOME_NOT_STARTED,
	OUTCOME_EXPIRED,
	OUTCOME_STOPPED,
	OUTCOME_GONE
};

/* What a waiter is told. */
enum program_event {
	PROGRAM_PANE,		/* the pane exists */
	PROGRAM_TEXT,		/* text arrived */
	PROGRAM_LAUNCHED,	/* the program runs and has the terminal */
	PROGRAM_STATE,		/* the state changed */
	PROGRAM_WAITING,	/* it waits for input: an episode none told */
	PROGRAM_READY,		/* it said READY=1 on its NOTIFY_SOCKET */
	PROGRAM_DROP		/* about to be dropped: let go of it now */
};
typedef void (*program_cb)(struct program *, enum program_event, void *);

/* What start_program and run_program asked for; program_new owns it. */
struct program_spec {
	char		**argv;
	size_t		  argc;
	size_t		  shown;	/* first word of argv as asked */
	char		 *dir;
	char		 *from_pane;
	bool		  split;
	int64_t		  width, height;
	int64_t		  lifetime_ms;
	bool		  keep_pane;	/* pane stays after the end */
	char		 *input;	/* run_program's input, until sent */
	size_t		  input_len;
	bool		  has_input;
	bool		  separate_stderr;
	bool		  inherit_shell; /* argv runs in the login shell's
					    script (tool_start.c) */
	int64_t		  grace_ms;	/* it outlives us this long, for a
					   new front to adopt (never past
					   its lifetime) */
	bool		  grace_set;	/* asked (orphanGraceMs) */
};

void		 program_spec_free(struct program_spec *);
void		 programs_init(void);
struct program	*program_new(void);
int		 program_start(struct program *, struct program_spec *,
		     char **cause);
struct program	*program_find(const char *id);
struct program	*program_by_seq(uint64_t);
struct program	*program_by_pane(const char *);
struct program	*program_first(void);
struct program	*program_next(struct program *);
int		 programs_admit(char **cause);
void		 program_told_end(struct program *);
void		 program_told_id(struct program *);
bool		 program_id_told(const struct program *);
struct program_waiter;
struct program_waiter *program_wait(struct program *, program_cb, void *);
void		 program_unwait(struct program_waiter *);
void		 program_stop(struct program *, int64_t grace_ms);
void		 program_drop(struct program *);
void		 programs_collect(void);
size_t		 programs_shutdown(void);
/* What a reaper's lease says of its program (adopt.c), for
 * program_adopt. */
struct program_adoption {
	char			*id;		/* "p<N>" */
	uint64_t		 seq;		/* N */
	struct program_spec	 spec;		/* taken */
	int64_t			 started_ms;	/* its start, our clock */
	int64_t			 started_real;
	char			*pane;
	pid_t			 pane_pid;
	bool			 stopping;	/* stop_program was asked */
	int			 fd;		/* the reaper's socket */
	struct buf		 in;		/* what it sent after "adopted" */
};
struct program	*program_adopt(struct program_adoption *, char **cause);
bool		 program_adopted(const struct program *);
const char	*program_signal_name(int);
/* Accessors. */
enum program_state program_state(const struct program *);
bool		 program_ended(const struct program *);
bool		 program_launched(const struct program *);
bool		 program_has_screen(const struct program *);
const char	*program_id(const struct program *);
uint64_t	 program_seq(const struct program *);
const struct program_spec *program_spec(const struct program *);
const char	*program_pane_id(const struct program *);
const struct textbuf *program_text(const struct program *);
const struct textbuf *program_errtext(const struct program *);
const char	*program_outcome(const struct program *);
enum program_outcome program_outcome_of(const struct program *);
int64_t		 program_exit_status(const struct program *);
int		 program_signal(const struct program *);
bool		 program_lost_end(const struct program *);
bool		 program_cut(const struct program *);
uint64_t	 program_dropped(const struct program *);
const char	*program_why(const struct program *);
int64_t		 program_started_ms(const struct program *);
int64_t		 program_started_real(const struct program *);
/* Waiting for input: checked in /proc only while a call needs it. */
#define PROGRAM_QUIET_MS	30	/* quiet this long before a check */
#define PROGRAM_UNKNOWN_MS	500	/* /proc cannot tell: a line this still */
#define PROGRAM_KEYS_SETTLE_MS	100	/* keys typed: let it read them */
#define PROGRAM_CONFIRM_MS	40	/* seen waiting again this much later */
int64_t		 program_text_ms(const struct program *);
void		 program_keys_sent(struct program *);
bool		 program_waiting(struct program *);
bool		 program_input_hidden(struct program *);
bool		 program_waiting_due(struct program *, int64_t now);
void		 program_episode_tell(struct program *);
pid_t		 program_pid(const struct program *);
bool		 program_ready(const struct program *);
bool		 program_ready_due(const struct program *);
void		 program_ready_tell(struct program *);
const char	*program_status(const struct program *);

/* pane.c — a program's FIFOs and its pane: new-window, pipe-pane */
struct pane;
/* What the pane tells its owner (the owner handle first). */
struct pane_cb {
	void	(*made)(void *owner);		/* pane_id, pane_pid set */
	void	(*failed)(void *owner, const char *why); /* not made */
	void	(*piped)(void *owner);		/* pipe-pane attached */
	void	(*pipe_failed)(void *owner, const char *why);
};
struct pane	*pane_new(const char *program_id, const struct program_spec *,
		     const struct pane_cb *, void *owner, char **cause);
/* An adopted program's pane, made by a progmux before us: checked to be
 * there with its process on our server (its terminal learnt). */
struct pane	*pane_adopt(const char *program_id, const char *id,
		    pid_t pid);
void		 pane_free(struct pane *);
int		 pane_fifos(struct pane *, char **cause);
void		 pane_make(struct pane *);
void		 pane_pipe(struct pane *);
void		 pane_kill(struct pane *);
void		 pane_release_fifos(struct pane *);
void		 pane_unlink_fifos(struct pane *, bool release);
const char	*pane_id(const struct pane *);
pid_t		 pane_pid(const struct pane *);
int		 pane_input_hidden(const struct pane *);
bool		 pane_is(const struct pane *, const char *id);
const char	*pane_err_name(const struct pane *);
void		 pane_take_fds(struct pane *, int *out, int *ctl, int *err);

/* reaper_link.c — a program's reaper: spawn, socket, frames */
struct reaper_link;
/* How the reaper said the program ended. */
struct reaper_end {
	const char	*how;		/* END_* (proto.h) */
	int64_t		 status;	/* -1: none */
	int64_t		 sig;		/* 0: none */
	bool		 lost_end;
	bool		 cut;
	const char	*why;		/* or NULL */
};
/* What the reaper's link tells its owner (the owner handle first). */
struct spool_news;
struct reaper_cb {
	void	(*text)(void *, const struct spool_news *); /* in the spool */
	void	(*errtext)(void *, const struct spool_news *);
	void	(*dropped)(void *, int64_t total); /* bytes left out */
	void	(*launched)(void *);		/* the program runs */
	void	(*notify)(void *, bool ready, const char *status); /* its
						   READY=1, its STATUS= */
	void	(*end)(void *, const struct reaper_end *);
	void	(*fail)(void *, const char *why); /* it cannot go on */
	void	(*gone)(void *);		/* its socket closed */
	void	(*closed)(void *);		/* and it was reaped */
};
#define REAPER_LINK_FDS	4	/* output, control, stderr, spool */
struct reaper_link *reaper_link_spawn(const char *program_id,
		     const struct program_spec *, const char *err_name,
		     int64_t started_ms, int64_t started_real,
		     int fds[REAPER_LINK_FDS], const struct reaper_cb *,
		     void *owner, char **cause);
/* The link to an adopted program's reaper (not our child): its socket,
 * and the frames it sent already (in: taken), told now. */
struct reaper_link *reaper_link_adopt(const char *program_id, int fd,
		     struct buf *in, const struct reaper_cb *, void *owner);
void		 reaper_link_take(struct reaper_link *);
/* Let the reaper go without a word (it holds the program for its
 * lease): the socket closed, its exit not waited for. */
void		 reaper_link_let_go(struct reaper_link *);
/* Reapers of ours not reaped yet that the exit waits for. */
size_t		 reaper_links_waited(void);
void		 reaper_link_free(struct reaper_link *);
void		 reaper_link_close(struct reaper_link *);
bool		 reaper_link_closed(const struct reaper_link *);
bool		 reaper_link_open(const struct reaper_link *);
void		 reaper_link_quit(struct reaper_link *);
void		 reaper_link_pane(struct reaper_link *, const char *pane,
		     pid_t pid);
void		 reaper_link_stop(struct reaper_link *, int64_t grace_ms);
void		 reaper_link_flush(struct reaper_link *);
bool		 reaper_links_reaped(pid_t, int status);
void		 reaper_links_exiting(void);

/* adopt.c — at start-up, the programs an earlier progmux left on a lease
 * (proto.h): found in the rendezvous, adopted if they are ours to take;
 * their ids, in order (the array and its strings allocated) */
size_t		 adopt_start(char ***ids);

/* host_link.c — a link to a progmux on another host: the person's
 * command, spoken to as an MCP client */
struct host_link;
#define HOST_LINK_META	"io.progmux/host"	/* initialize's _meta: the
						   name the far side takes */
#define HOST_LINK_SAID	300	/* bytes of its last stderr line kept */
/* A request's answer (the response object), or msg NULL and why: the
 * link ended first. */
typedef void	(*host_call_cb)(void *arg, const struct json *msg,
		    const char *why);
struct host_link_cb {
	void	(*ready)(void *owner);		/* initialize answered */
	void	(*notify)(void *owner, const char *method,
		    const struct json *params);
	void	(*ended)(void *owner, const char *why);	/* then it is gone */
};
struct host_link *host_link_start(const char *name, const char *command,
		     const struct host_link_cb *, void *owner, char **cause);
bool		 host_link_usable(const struct host_link *);
int64_t		 host_link_next_id(const struct host_link *);
const char	*host_link_version(const struct host_link *);
int64_t		 host_link_call(struct host_link *, const char *method,
		     const char *params, size_t len, host_call_cb, void *arg);
void		 host_link_forget(struct host_link *, int64_t id, bool cancel);
void		 host_link_end(struct host_link *, const char *why);
bool		 host_links_reaped(pid_t, int status);
void		 host_links_shutdown(void);
void		 host_links_kill(void);
bool		 host_links_alive(void);
int		 host_link_check(const char *name, const char *command,
		     int64_t wait_ms, char *version, size_t size, char **cause);

/* waiting.c — does a program wait for keyboard input? */
struct waiting;
struct waiting	*waiting_new(void (*tell)(void *), void *arg);
void		 waiting_free(struct waiting *);
int64_t		 waiting_text_ms(const struct waiting *);
void		 waiting_text(struct waiting *);
void		 waiting_keys(struct waiting *, bool armed);
bool		 waiting_now(struct waiting *, pid_t pid, const struct textbuf *);
bool		 waiting_due(struct waiting *, pid_t pid, const struct textbuf *,
		     int64_t now);
void		 waiting_told(struct waiting *);

/*
 * Test hooks, compiled only into the test builds (-DPROGMUX_TESTING: the
 * unit tests' server objects, the fuzz harnesses); the binaries carry
 * none of them (scripts/check/symbols.sh).
 */
#ifdef PROGMUX_TESTING
const char	*mcp_protocol_version(void);	/* the fuzz harness resets it */
size_t		 tools_waiting(void);		/* calls not yet answered */
void		 loop_run_timers(int64_t now);	/* a turn of timers only */
/* The fuzz harness's fixtures: a program that ran, made by hand. */
void		 program_fixture(struct program *, struct program_spec *,
		     const char *pane, const char *text, bool ended);
struct pane	*pane_fixture(const char *id);
#endif

#endif
