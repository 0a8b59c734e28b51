/*
 * test_server_tmux.c — the quoting and the control-mode line parser
 * (server/tmux_parse.c, linked alone with common/).
 *
 * Quoting: each awkward word goes through tmux_quote() into a command
 * line `set-option -g @progmux_t WORD`, which a real tmux parses (from a
 * file, with source-file: the parser control-mode lines go through), and
 * `display-message -p '#{@progmux_t}'` prints the value back; it must be
 * the word, byte for byte. The tmux server is our own, on a socket in a
 * temporary directory (tmux -S), started with no session and killed at
 * the end; the directory is removed.
 *
 * Parsing: transcripts of control-mode lines are fed to
 * tmux_parse_line() as tmux.c feeds them, and each block it reports is
 * matched against a queue of the answers expected, in order, as tmux.c
 * matches blocks to its queued commands.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "buf.h"
#include "compat.h"
#include "server.h"

static char	test_dir[] = "/tmp/progmux-test-tmux-XXXXXX";
static char	test_sock[256];
static char	test_file[256];

/* The tmux under test: the harness's, or tmux on PATH. */
static const char *
test_tmux_bin(void)
{
	const char	*b = getenv("PROGMUX_TEST_TMUX");

	return (b != NULL && *b != '\0' ? b : "tmux");
}

/* Run tmux -u -S our socket with args; its stdout into out (if not
 * NULL). Returns its exit status, or -1. */
static int
test_tmux(struct buf *out, ...)
{
	char	*argv[16], buf[4096];
	va_list	 ap;
	int	 n = 0, fds[2], st;
	ssize_t	 got;
	pid_t	 pid;

	argv[n++] = (char *)test_tmux_bin();
	argv[n++] = (char *)"-u";
	argv[n++] = (char *)"-S";
	argv[n++] = test_sock;
	va_start(ap, out);
	while (n < 15 && (argv[n] = va_arg(ap, char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	if (compat_pipe2(fds, O_CLOEXEC) == -1)
		return (-1);
	if ((pid = fork()) == 0) {
		dup2(fds[1], STDOUT_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	while ((got = read(fds[0], buf, sizeof buf)) != 0) {
		if (got == -1 && errno == EINTR)
			continue;
		if (got == -1)
			break;
		if (out != NULL)
			buf_add(out, buf, (size_t)got);
	}
	close(fds[0]);
	if (pid == -1)
		return (-1);
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			return (-1);
	return (WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* Our own server: no session, kept while empty. */
static int
test_setup(void **state)
{
	(void)state;
	if (mkdtemp(test_dir) == NULL)
		return (-1);
	snprintf(test_sock, sizeof test_sock, "%s/tmux.sock", test_dir);
	snprintf(test_file, sizeof test_file, "%s/cmd", test_dir);
	return (test_tmux(NULL, "-f", "/dev/null", "start-server", ";",
	    "set-option", "-s", "exit-empty", "off", NULL) == 0 ? 0 : -1);
}

/* Kill our server; leave nothing behind. */
static int
test_teardown(void **state)
{
	(void)state;
	(void)test_tmux(NULL, "kill-server", NULL);
	unlink(test_file);
	unlink(test_sock);
	return (rmdir(test_dir));
}

/* word, quoted, through tmux's parser and back. */
static void
test_round_trip(const char *word)
{
	struct buf	 line = BUF_INIT, out = BUF_INIT;
	FILE		*f;

	buf_adds(&line, "set-option -g @progmux_t ");
	tmux_quote(&line, word);
	assert_null(memchr(line.data, '\n', line.len));
	f = fopen(test_file, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", buf_cstr(&line));
	assert_int_equal(fclose(f), 0);
	if (test_tmux(&out, "source-file", test_file, ";", "display-message",
	    "-p", "#{@progmux_t}", NULL) != 0)
		fail_msg("tmux refused: %s", buf_cstr(&line));
	buf_addc(&line, '\0');
	if (out.len != strlen(word) + 1 || memcmp(out.data, word,
	    strlen(word)) != 0 || out.data[out.len - 1] != '\n')
		fail_msg("%s gave back \"%.*s\" for \"%s\"", line.data,
		    (int)out.len, out.data ? out.data : "", word);
	buf_free(&line);
	buf_free(&out);
}

/* Every awkward word comes back exactly as it went. */
static void
test_quote_round_trip(void **state)
{
	static const char *const words[] = {
		"plain", "", " ", "two words", ";", "a;", "a ;", "a;b",
		"a \\;", "#{session_name}", "#", "#{", "##", "a#b",
		"'", "\"", "it's", "say \"hi\"", "'\"'\"", "$HOME", "${HOME}",
		"$", "~", "~/x", "~root", "a~b", "\\", "\\\\", "a\\", "\\n",
		"a\nb", "\n", "trailing\n", "cr\rhere", "tab\there",
		"\xc3\xa9t\xc3\xa9", "\xe2\x9c\x93 \xe6\x97\xa5\xe6\x9c\xac",
		"{", "}", "{a}", "%if", "%1", "%%", "-", "=", "a=b", "!",
		"&", "|", "`x`", "(x)", "*", "?", "[a]", "\"$HOME\" ';' #{a}",
	};
	size_t	i;

	(void)state;
	for (i = 0; i < sizeof words / sizeof words[0]; i++)
		test_round_trip(words[i]);
}

/* A word of only safe characters is left bare; others are quoted. */
static void
test_quote_bare(void **state)
{
	struct buf	b = BUF_INIT;

	(void)state;
	tmux_quote(&b, "%12");
	assert_string_equal(buf_cstr(&b), "%12");
	buf_reset(&b);
	tmux_quote(&b, "a;");
	assert_string_equal(buf_cstr(&b), "'a;'");
	buf_reset(&b);
	tmux_quote(&b, "");
	assert_string_equal(buf_cstr(&b), "''");
	buf_free(&b);
}

/* What the parser said about one line. */
struct test_event {
	enum tmux_line_kind	 kind;
	const char		*text;	/* the block, or the reason */
};

/* Feed lines (NULL-terminated); the non-NONE events must be want[]. */
static void
test_feed(const char *const *lines, const struct test_event *want,
    size_t nwant)
{
	struct tmux_parse	 ps;
	enum tmux_line_kind	 k;
	const char		*reason;
	char			*copy;
	size_t			 next = 0;

	memset(&ps, 0, sizeof ps);
	for (; *lines != NULL; lines++) {
		copy = strdup(*lines);
		reason = NULL;
		k = tmux_parse_line(&ps, copy, strlen(copy), &reason);
		if (k != TMUX_LINE_NONE) {
			if (next >= nwant)
				fail_msg("unexpected event %d at \"%s\"", k,
				    *lines);
			assert_int_equal(k, want[next].kind);
			if (k == TMUX_LINE_EXIT)
				assert_string_equal(reason, want[next].text);
			else if (k != TMUX_LINE_ATTACHED)
				assert_string_equal(buf_cstr(&ps.block),
				    want[next].text);
			next++;
		}
		free(copy);
	}
	assert_int_equal(next, nwant);
	buf_free(&ps.block);
}

/* Blocks answer the queued commands in order: output, error, empty. */
static void
test_parse_blocks(void **state)
{
	static const char *const lines[] = {
		"%begin 1700000000 5 1", "%7 1234", "%end 1700000000 5 1",
		"%begin 1700000000 6 1", "can't find pane: %99",
		"%error 1700000000 6 1",
		"%begin 1700000000 7 1", "%end 1700000000 7 1",
		"%begin 1700000000 8 1", "one", "", "three",
		"%end 1700000000 8 1", NULL };
	static const struct test_event want[] = {
		{ TMUX_LINE_OK, "%7 1234" },
		{ TMUX_LINE_ERROR, "can't find pane: %99" },
		{ TMUX_LINE_OK, "" },
		{ TMUX_LINE_OK, "one\n\nthree" } };

	(void)state;
	test_feed(lines, want, 4);
}

/* Output that looks like a guard line but carries other numbers (a pane
 * showing "%end 1 1 1") is output; only the %begin's own time and number
 * end the block. */
static void
test_parse_false_guards(void **state)
{
	static const char *const lines[] = {
		"%begin 1700000000 9 1",
		"%end 1 1 1", "%error 1700000000 10 1", "%end 1699999999 9 1",
		"%begin 1700000000 9 1", "%exit", "%session-changed $1 x",
		"%end 1700000000 9", "%endx 1700000000 9 1",
		"%end 1700000000 9 1", NULL };
	static const struct test_event want[] = {
		{ TMUX_LINE_OK, "%end 1 1 1\n%error 1700000000 10 1\n"
		    "%end 1699999999 9 1\n%begin 1700000000 9 1\n%exit\n"
		    "%session-changed $1 x\n%end 1700000000 9\n"
		    "%endx 1700000000 9 1" } };

	(void)state;
	test_feed(lines, want, 1);
}

/* A block not from our client (flags without 1) answers nothing. */
static void
test_parse_not_ours(void **state)
{
	static const char *const lines[] = {
		"%begin 1700000000 11 0", "someone else's",
		"%end 1700000000 11 0",
		"%begin 1700000000 12 1", "ours", "%end 1700000000 12 1",
		NULL };
	static const struct test_event want[] = {
		{ TMUX_LINE_OK, "ours" } };

	(void)state;
	test_feed(lines, want, 1);
}

/* Notifications outside blocks: attached, the exit with and without a
 * reason; others are not ours to act on. */
static void
test_parse_notifications(void **state)
{
	static const char *const lines[] = {
		"%sessions-changed", "%window-add @3",
		"%session-changed $0 progmux", "%output %1 hello",
		"%extended-output %1 0 : x", "%exit detached", "%exit", NULL };
	static const struct test_event want[] = {
		{ TMUX_LINE_ATTACHED, NULL },
		{ TMUX_LINE_EXIT, "detached" },
		{ TMUX_LINE_EXIT, "the session or server ended" } };

	(void)state;
	test_feed(lines, want, 3);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_blocks),
		cmocka_unit_test(test_parse_false_guards),
		cmocka_unit_test(test_parse_not_ours),
		cmocka_unit_test(test_parse_notifications),
		cmocka_unit_test(test_quote_bare),
		cmocka_unit_test_setup_teardown(test_quote_round_trip,
		    test_setup, test_teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
