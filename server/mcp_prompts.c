/*
 * mcp_prompts.c — the prompts: the workflows a person starts from the
 * client (Claude Code shows them as /progmux:NAME, Gemini CLI and VS Code
 * as slash commands too), each a user message that teaches the model how
 * the tools go together for that task: run a command and check it; start
 * a server and wait until it is ready; find why a program is quiet;
 * answer a password prompt.
 *
 * prompts/list and prompts/get, in both eras. A prompt is offered while
 * every tool it uses is (PROGMUX_SAFETY, PROGMUX_TOOLS, and
 * ask_user_secret where it is built); the set is fixed for the server's
 * life, so listChanged is false. An argument is text the person typed,
 * put in the message as it is (at most PROMPT_ARG_MAX bytes).
 *
 * Layer: protocol (a method family); asks the tool table what is offered
 * and answers through mcp_req.c.
 */
#include <stdio.h>
#include <string.h>

#include "mcp_req.h"

#define PROMPT_ARG_MAX	4096	/* bytes of one argument */
#define PROMPT_ARGS	2	/* arguments of a prompt, at most */
#define PROMPT_TOOLS	3	/* tools a prompt uses, at most */

struct prompt_arg {
	const char	*name;
	const char	*description;
	bool		 required;
};

struct prompt {
	const char		*name;
	const char		*title;
	const char		*description;
	const char		*needs[PROMPT_TOOLS];	/* tools it uses */
	struct prompt_arg	 args[PROMPT_ARGS];
	/* The message, with the arguments given (a missing one NULL). */
	void			(*text)(struct buf *, const char *const *);
};

/* run-and-check. */
static void
prompt_run(struct buf *b, const char *const *a)
{
	buf_printf(b, "Run `%s` with run_program and check that it worked.\n"
	    "- Pass argv as separate words ([\"make\", \"test\"]); use "
	    "[\"sh\", \"-c\", \"...\"] only when it needs a shell's pipes, "
	    "globs, variables or &&.\n"
	    "- Judge by outcome and exitStatus, not by the text alone: "
	    "outcome completed with exitStatus 0 is success.\n"
	    "- outcome running means it outlived the wait: go on with "
	    "read_program from the cursor it returned until ended is true.\n"
	    "- If it failed, read its last lines (read_program with tail) and "
	    "say what went wrong.\n", a[0]);
	if (a[1] != NULL)
		buf_printf(b, "Success looks like this: %s\n", a[1]);
}

/* start-and-wait. */
static void
prompt_server(struct buf *b, const char *const *a)
{
	buf_printf(b, "Start `%s` with start_program; it returns at once with "
	    "a programId and leaves the program running.\n"
	    "- Wait until it is ready with read_program and until set to ",
	    a[0]);
	if (a[1] != NULL)
		buf_printf(b, "this pattern: %s\n", a[1]);
	else
		buf_adds(b, "a pattern for the line it prints once ready, such "
		    "as (?i)listening|ready|started\n");
	buf_adds(b, "- A read waits at most the server's ceiling: while "
	    "matched is false and it still runs, read again from the cursor "
	    "the last read returned. Never sleep and guess.\n"
	    "- If it ended instead, its output says why: report it.\n"
	    "- Leave it running for what comes next. It ends when its "
	    "lifetimeMs runs out or when this server exits; stop_program "
	    "ends it sooner.\n");
}

/* why-is-it-quiet. */
static void
prompt_quiet(struct buf *b, const char *const *a)
{
	if (a[0] != NULL)
		buf_printf(b, "Find out why program %s has gone quiet.\n", a[0]);
	else
		buf_adds(b, "Find out why a program has gone quiet (if you do "
		    "not know its programId, list_programs finds it).\n");
	buf_adds(b, "1. list_programs: is it still running, is it "
	    "waitingForInput, how much lifetime is left?\n"
	    "2. read_program with tail set to 20: its last lines, and the "
	    "unfinishedLine it is writing.\n"
	    "3. capture_pane on its paneId when it draws a screen (progress "
	    "bars, full-screen programs): what a person would see.\n"
	    "4. waitingForInput true: it waits for keys; answer with "
	    "send_keys (with timeoutMs, to get its reply). inputHidden true: "
	    "it asks for a password; use ask_user_secret, never send_keys.\n"
	    "Then say which it is: working, waiting for input, stuck, or "
	    "ended.\n");
}

/* answer-password. */
static void
prompt_password(struct buf *b, const char *const *a)
{
	if (a[0] != NULL)
		buf_printf(b, "Program %s waits for a password (inputHidden is "
		    "true).\n", a[0]);
	else
		buf_adds(b, "A program waits for a password (inputHidden is "
		    "true; list_programs says which).\n");
	buf_adds(b, "- Call ask_user_secret with its programId and a message "
	    "saying what the password is for: the person types it on a "
	    "one-time page, and it goes to the program without passing "
	    "through you.\n"
	    "- Never type a password with send_keys, and never ask the person "
	    "to write it in the chat.\n"
	    "- Then read_program from the cursor ask_user_secret returned, to "
	    "see whether it was accepted.\n");
}

static const struct prompt prompts[] = {
	{ "run-and-check", "Run a command and check it",
	  "Run a command to its end and judge it by its exit status.",
	  { "run_program", "read_program", NULL },
	  { { "command", "The command to run, as you would type it.", true },
	    { "expect", "What success looks like (optional).", false } },
	  prompt_run },
	{ "start-and-wait", "Start a server and wait until it is ready",
	  "Start a long-running program (a dev server, a watcher) and wait "
	  "for the line that says it is ready.",
	  { "start_program", "read_program", NULL },
	  { { "command", "The command that starts it.", true },
	    { "ready", "A regular expression for its ready line "
	      "(optional).", false } },
	  prompt_server },
	{ "why-is-it-quiet", "Why is this program quiet?",
	  "Find out whether a program works, waits for input or is stuck: "
	  "its state, its last lines, its screen.",
	  { "list_programs", "read_program", "capture_pane" },
	  { { "programId", "The program (optional: list_programs finds "
	      "it).", false } },
	  prompt_quiet },
	{ "answer-password", "Answer a password prompt",
	  "Get a password a program asks for from the person, through "
	  "ask_user_secret's one-time page, never through the chat.",
	  { "ask_user_secret", "read_program", NULL },
	  { { "programId", "The program asking (optional: list_programs "
	      "finds it).", false } },
	  prompt_password },
};
#define NPROMPTS	(sizeof prompts / sizeof prompts[0])

/* Is every tool prompt p uses offered? */
static bool
prompt_offered(const struct prompt *p)
{
	size_t	i;

	for (i = 0; i < PROMPT_TOOLS && p->needs[i] != NULL; i++)
		if (!tools_offered_name(p->needs[i]))
			return (false);
	return (true);
}

/* Is any prompt offered? */
bool
mcp_prompts_offered(void)
{
	size_t	i;

	for (i = 0; i < NPROMPTS; i++)
		if (prompt_offered(&prompts[i]))
			return (true);
	return (false);
}

/* A prompt's entry of prompts/list. */
static void
prompt_put(struct jw *w, const struct prompt *p)
{
	size_t	i;

	jw_obj_begin(w);
	jw_key(w, "name");
	jw_str(w, p->name);
	jw_key(w, "title");
	jw_str(w, p->title);
	jw_key(w, "description");
	jw_str(w, p->description);
	jw_key(w, "arguments");
	jw_arr_begin(w);
	for (i = 0; i < PROMPT_ARGS && p->args[i].name != NULL; i++) {
		jw_obj_begin(w);
		jw_key(w, "name");
		jw_str(w, p->args[i].name);
		jw_key(w, "description");
		jw_str(w, p->args[i].description);
		jw_key(w, "required");
		jw_bool(w, p->args[i].required);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

/* prompts/list: every prompt offered, in one page. */
static void
mcp_prompts_list(struct mcp_req *req, const struct json *params)
{
	struct buf	b = BUF_INIT;
	struct jw	w;
	size_t		i;

	if (mcp_cursor_refused(req, params, "the prompts"))
		return;
	req->ttl = MCP_TTL_FIXED;
	req->public = true;
	jw_init(&w, &b);
	jw_obj_begin(&w);
	jw_key(&w, "prompts");
	jw_arr_begin(&w);
	for (i = 0; i < NPROMPTS; i++)
		if (prompt_offered(&prompts[i]))
			prompt_put(&w, &prompts[i]);
	jw_arr_end(&w);
	jw_obj_end(&w);
	mcp_reply_jw(req, &b);
}

/* The prompt params.name names, if offered; else NULL, having answered
 * req. */
static const struct prompt *
mcp_prompts_find(struct mcp_req *req, const struct json *params)
{
	const struct json	*n = json_get(params, "name");
	struct buf		 b = BUF_INIT;
	const char		*s;
	size_t			 i, len;

	if (json_type(n) != JSON_STRING) {
		mcp_fail(req, -32602, "prompts/get: params.name must be a "
		    "prompt's name, a string");
		return (NULL);
	}
	s = json_str(n, &len);
	for (i = 0; i < NPROMPTS; i++)
		if (strlen(prompts[i].name) == len &&
		    memcmp(prompts[i].name, s, len) == 0 &&
		    prompt_offered(&prompts[i]))
			return (&prompts[i]);
	buf_adds(&b, "unknown prompt \"");
	mcp_quote_name(&b, s, len);
	buf_adds(&b, "\": prompts/list names the prompts there are");
	mcp_fail(req, -32602, buf_cstr(&b));
	buf_free(&b);
	return (NULL);
}

/*
 * The arguments of p from params.arguments into a (NULL when not
 * given); 0, or -1 having answered req with what is wrong: not strings,
 * too long, with a NUL, or a required one missing.
 */
static int
mcp_prompts_args(struct mcp_req *req, const struct prompt *p,
    const struct json *params, const char *a[PROMPT_ARGS])
{
	const struct json	*args = json_get(params, "arguments"), *v;
	const char		*why = NULL;
	char			 msg[256];
	size_t			 i, len;

	if (args != NULL && json_type(args) != JSON_OBJECT &&
	    json_type(args) != JSON_NULL) {
		mcp_fail(req, -32602, "prompts/get: params.arguments must be "
		    "an object of strings");
		return (-1);
	}
	for (i = 0; i < PROMPT_ARGS; i++) {
		a[i] = NULL;
		if (p->args[i].name == NULL)
			continue;
		v = json_get(args, p->args[i].name);
		if (v == NULL || json_type(v) == JSON_NULL ||
		    (json_type(v) == JSON_STRING && json_str(v, &len) != NULL &&
		    len == 0)) {
			if (p->args[i].required)
				why = "is required";
		} else if (json_type(v) != JSON_STRING)
			why = "must be a string";
		else if (len > PROMPT_ARG_MAX)
			why = "is longer than 4096 bytes";
		else if (memchr(json_str(v, NULL), '\0', len) != NULL)
			why = "contains a NUL character";
		else
			a[i] = json_str(v, NULL);
		if (why != NULL) {
			snprintf(msg, sizeof msg, "prompts/get %s: the argument "
			    "%s %s", p->name, p->args[i].name, why);
			mcp_fail(req, -32602, msg);
			return (-1);
		}
	}
	return (0);
}

/* prompts/get: the prompt's message, with its arguments. */
static void
mcp_prompts_get(struct mcp_req *req, const struct json *params)
{
	const struct prompt	*p;
	const char		*a[PROMPT_ARGS];
	struct buf		 b = BUF_INIT, text = BUF_INIT;
	struct jw		 w;

	if ((p = mcp_prompts_find(req, params)) == NULL ||
	    mcp_prompts_args(req, p, params, a) == -1)
		return;
	p->text(&text, a);
	req->ttl = 0;
	jw_init(&w, &b);
	jw_obj_begin(&w);
	jw_key(&w, "description");
	jw_str(&w, p->description);
	jw_key(&w, "messages");
	jw_arr_begin(&w);
	jw_obj_begin(&w);
	jw_key(&w, "role");
	jw_str(&w, "user");
	jw_key(&w, "content");
	jw_obj_begin(&w);
	jw_key(&w, "type");
	jw_str(&w, "text");
	jw_key(&w, "text");
	jw_strn(&w, text.data, text.len);
	jw_obj_end(&w);
	jw_obj_end(&w);
	jw_arr_end(&w);
	jw_obj_end(&w);
	mcp_reply_jw(req, &b);
	buf_free(&text);
}

/* The rows of the method table. */
const struct mcp_method mcp_prompts_methods[] = {
	{ "prompts/list", MCP_IN_2025|MCP_IN_2026, mcp_prompts_list },
	{ "prompts/get", MCP_IN_2025|MCP_IN_2026, mcp_prompts_get },
	{ NULL, 0, NULL }
};
