#!/bin/sh
# docs.sh — the documents against the code, so that they cannot drift.
#
# Fails when:
#  - a setting server/config.c reads (its settings[] table: the flag, the
#    variable, libtmux's twin, the default and, for a number, its range;
#    the variables it looks at for the runtime directory) or a variable
#    the front reads with getenv() is missing from progmux.1, or the man
#    page gives another default or range than config.c;
#  - a tool in schemas/*.json is missing from the README's tools table or
#    from progmux.1's TOOLS, or the documents give another number of tools
#    ("calls eight tools", "its eight tools") than schemas/ holds;
#  - server.json does not offer every setting of config.c with its
#    default, or offers another, or mcpb-manifest.mjs has no title for one;
#  - README.md is longer than README_MAX lines (260);
#  - a relative link in README.md or docs/*.md names a file that is not
#    there, or a heading a Markdown file does not have.
#
# Prints one "ok - " / "not ok - " line per check and a cmocka-style
# summary for scripts/test/test.sh; exits non-zero on any failure. Reads only
# the tree: no build, no tmux.
set -u
cd "$(dirname "$0")/../.."
MAN=progmux.1
README=README.md
README_MAX=${README_MAX:-260}
passed=0
failed=0
failed_names=""

ok() { passed=$((passed + 1)); echo "ok - $1"; }
notok() {
	failed=$((failed + 1))
	failed_names="$failed_names
$1"
	echo "not ok - $1"
}

# The man page's text with every line a macro's arguments: the macro
# name, quotes and escapes taken off, so "Default" and ".Ql tmux" read
# "Default tmux".
man_words() {
	sed -e 's/\\-/-/g' -e 's/\\&//g' -e 's/\\e/\\/g' \
	    -e 's/^\.[A-Za-z][A-Za-z]* *//' -e 's/ N[so] / /g' "$@"
}

# The .It entry of OPTIONS for --FLAG, as one line of words.
man_option() {
	awk -v flag="$1" '
	    /^\.Sh / { in_opts = ($2 == "OPTIONS") }
	    in_opts && /^\.It / {
		line = $0; gsub(/\\-/, "-", line)
		on = (index(line, "Fl -" flag " ") || line == ".It Fl -" flag ||
		    index(line, "Fl -" flag ","))
		if (on) { print; next }
	    }
	    in_opts && /^\.(El|Sh)/ { on = 0 }
	    on { print }' "$MAN" | man_words | tr '\n' ' ' | tr -s ' '
}

[ -f "$MAN" ] || { echo "not ok - $MAN is missing"; exit 1; }

# ------------------------------------------------------------ settings
# config.c's table, one entry a line: flag env alt kind min max default.
# Each entry opens with { "flag", "ENV", ...; the fields before the help
# text hold no comma of their own.
settings=$(awk '
    /^static const struct setting settings\[\] = \{/ { on = 1; next }
    on && /^\};/ { on = 0 }
    on { buf = buf " " $0 }
    END {
	n = split(buf, e, /\{ "/)
	for (i = 2; i <= n; i++) {
		s = "\"" e[i]
		gsub(/[\t ]+/, " ", s)
		split(s, f, /, */)
		for (j = 1; j <= 8; j++) {
			gsub(/^ +| +$/, "", f[j]); gsub(/"/, "", f[j])
			gsub(/\(int64_t\)/, "", f[j]); gsub(/ /, "", f[j])
		}
		print f[1], f[2], f[3], f[4], f[6], f[7], f[8]
	}
    }' server/config.c)
if [ -z "$settings" ]; then
	notok "settings found in server/config.c's settings[] table"
fi
while read -r flag env alt kind min max dflt; do
	[ -n "$flag" ] || continue
	entry=$(man_option "$flag")
	what="--$flag ($env)"
	if [ -z "$entry" ]; then
		notok "$what is in $MAN's OPTIONS"
		continue
	fi
	ok "$what is in $MAN's OPTIONS"
	if grep -q "^\.It Ev $env\$" "$MAN"; then
		ok "$env is in $MAN's ENVIRONMENT"
	else
		notok "$env is in $MAN's ENVIRONMENT"
	fi
	if [ "$alt" != NULL ]; then
		if grep -q "Ev $alt\$" "$MAN"; then
			ok "$alt (for $env) is in $MAN"
		else
			notok "$alt (for $env) is in $MAN"
		fi
	fi
	if [ "$dflt" != NULL ]; then
		if echo "$entry" | grep -Eq "Default $dflt([ .,(]|\$)"; then
			ok "$what: $MAN says its default, $dflt"
		else
			notok "$what: config.c's default is $dflt, $MAN says \"$(echo "$entry" |
			    grep -o 'Default [^ ]*' || echo none)\""
		fi
	fi
	if [ "$kind" = "'i'" ]; then
		lo=$(($min)) hi=$(($max))
		if echo "$entry" | grep -q " $lo to $hi[ .]"; then
			ok "$what: $MAN says its range, $lo to $hi"
		else
			notok "$what: config.c's range is $lo to $hi, $MAN says otherwise"
		fi
	fi
done <<EOF
$settings
EOF

# The variables the front reads itself: config.c's runtime directory
# bases and every getenv("NAME") of server/ and common/ (PATH is looked
# through as a shell does: no setting of ours).
vars=$( {
	sed -n '/static const char.*vars\[\] = {/s/.*{\(.*\)}.*/\1/p' \
	    server/config.c | tr ',' '\n'
	grep -ho 'getenv("[A-Z_]*")' server/*.c common/*.c
} | sed -n 's/.*"\([A-Z_][A-Z_]*\)".*/\1/p' | grep -vx PATH | sort -u)
for v in $vars; do
	if grep -Eq "^\.It Ev $v( ,|\$)|Ev [A-Z_]+ , Ev $v( |\$)" "$MAN"; then
		ok "$v is in $MAN's ENVIRONMENT"
	else
		notok "$v (read by the front) is in $MAN's ENVIRONMENT"
	fi
done

# ------------------------------------------------------------ packages
# server.json (the MCP registry's entry) offers every setting of config.c
# by its variable, with config.c's default, and nothing else; the MCP
# Bundle's manifest (scripts/package/mcpb-manifest.mjs) has a title for
# each, or make mcpb stops.
pkg=$(node -e '
const s = JSON.parse(require("fs").readFileSync("server.json", "utf8"));
for (const v of s.packages[0].environmentVariables)
	console.log(v.name, v.default === undefined ? "NULL" : v.default);
') || notok "server.json's variables could be read (node)"
while read -r flag env alt kind min max dflt; do
	[ -n "$flag" ] || continue
	got=$(echo "$pkg" | awk -v e="$env" '$1 == e { print $2 }')
	case $kind/$got in		# a flag's default, as JSON says it
	"'b'/false") got=0 ;;
	"'b'/true") got=1 ;;
	esac
	if [ -z "$got" ]; then
		notok "$env is offered in server.json"
	elif [ "$got" != "$dflt" ]; then
		notok "$env: config.c's default is $dflt, server.json's $got"
	else
		ok "$env is offered in server.json, default $dflt"
	fi
done <<EOF
$settings
EOF
while read -r env dflt; do
	[ -n "$env" ] || continue
	echo "$settings" | awk -v e="$env" '$2 == e { f = 1 } END { exit !f }' ||
	    notok "$env (server.json) is a setting of server/config.c"
	grep -q "^  $env: '" scripts/package/mcpb-manifest.mjs ||
	    notok "$env (server.json) has a title in mcpb-manifest.mjs"
done <<EOF
$pkg
EOF

# ------------------------------------------------------------ tools
for f in schemas/*.json; do
	name=$(sed -n 's/^ *"name": *"\([a-z_]*\)".*/\1/p' "$f" | head -1)
	[ -n "$name" ] || name=$(basename "$f" .json)
	if sed -n '/^## Tools/,/^## /p' "$README" | grep -q "^| \`$name\` |"; then
		ok "$name ($f) has a row in the README's tools table"
	else
		notok "$name ($f) has a row in the README's tools table"
	fi
	if sed -n '/^\.Sh TOOLS/,/^\.Sh /p' "$MAN" | grep -q "^\.It Ic $name\$"; then
		ok "$name ($f) is in $MAN's TOOLS"
	else
		notok "$name ($f) is in $MAN's TOOLS"
	fi
done

# The number of tools, in words, wherever a document says how many
# progmux has ("calls eight tools", "its eight tools", "progmux's eight
# tools", across a line break too): the README must say it. A tool only
# the view may call (_meta.ui.visibility without "model") is not the
# agent's and is not counted.
n=$(node -e '
const fs = require("fs");
let n = 0;
for (const f of fs.readdirSync("schemas").filter((f) => f.endsWith(".json"))) {
	const v = JSON.parse(fs.readFileSync("schemas/" + f, "utf8"))._meta?.ui?.visibility;
	if (!v || v.includes("model")) n++;
}
console.log(n);') || { notok "the tools in schemas/ could not be counted (node)"; n=0; }
word=$(echo zero one two three four five six seven eight nine ten eleven \
    twelve | cut -d' ' -f$((n + 1)))
counts() {	# counts FILE: each such phrase of FILE, one a line
	tr '\n' ' ' <"$1" | tr -s ' ' |
	    grep -oE "(calls|its|progmux's) [a-z]+ tools"
}
if [ -n "$word" ] && counts "$README" | grep -qx "calls $word tools"; then
	ok "$README says the agent calls $word tools (schemas/ has $n)"
else
	notok "$README says the agent calls ${word:-$n} tools (schemas/ has $n)"
fi
said=0
for doc in "$README" docs/*.md; do
	bad=$(counts "$doc" | grep -v " $word tools\$" | sort -u |
	    sed 's/.*/"&"/' | tr '\n' ' ')
	if [ -n "$bad" ]; then
		notok "$doc says ${bad}but schemas/ has $n tools"
		said=1
	fi
done
[ "$said" = 0 ] && ok "every count of the tools in the documents is $n"

# ------------------------------------------------------------ README
n=$(wc -l <"$README")
if [ "$n" -le "$README_MAX" ]; then
	ok "$README is $n lines (at most $README_MAX)"
else
	notok "$README is $n lines (at most $README_MAX)"
fi

# ------------------------------------------------------------ links
# The anchors a Markdown file has: each heading as GitHub spells it
# (lower case; spaces to hyphens; punctuation but - and _ dropped).
anchors() {
	sed -n 's/^#\{1,6\} //p' "$1" | tr 'A-Z' 'a-z' |
	    sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g'
}

# Every [text](target) that is not a URL: the file must be there, and an
# anchor into a Markdown file (or into the page itself) one of its
# headings.
for doc in "$README" docs/*.md; do
	[ -f "$doc" ] || continue
	dir=$(dirname "$doc")
	bad=0
	for t in $(grep -o '\]([^)]*)' "$doc" | sed 's/^](\(.*\))$/\1/'); do
		case $t in
		http://* | https://* | mailto:*) continue ;;
		esac
		p=${t%%#*}
		if [ -n "$p" ] && [ ! -e "$dir/$p" ]; then
			notok "$doc links to $t, which is not there"
			bad=1
			continue
		fi
		case $t in *'#'*) ;; *) continue ;; esac
		target=$dir/$p
		[ -n "$p" ] || target=$doc
		case $target in *.md) ;; *) continue ;; esac
		if ! anchors "$target" | grep -qx -- "${t#*#}"; then
			notok "$doc links to $t: $target has no such heading"
			bad=1
		fi
	done
	[ "$bad" = 0 ] && ok "every relative link of $doc names a file (and heading) that is there"
done

echo "$passed passed, $failed failed"
echo "[  PASSED  ] $passed test(s)."
if [ "$failed" -gt 0 ]; then
	echo "[  FAILED  ] $failed test(s), listed below:"
	echo "$failed_names" | sed -n 's/^./[  FAILED  ] &/p'
	exit 1
fi
