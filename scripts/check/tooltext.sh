#!/bin/sh
# tooltext.sh — the tool text a model reads stays under its budget: every
# tool's description and input schema (compact JSON, as tools/list sends
# it) in schemas/*.json, counted in characters, under 18,000 together.
# Prints each tool's count and the total. A tool only a view calls
# (_meta.ui.visibility without "model", MCP Apps) is printed apart and not
# counted: progmux lists it only to clients that render the view, and
# those must keep it out of the model's tools (the extension's
# "Visibility").
set -u
cd "$(dirname "$0")/../.." || exit 1
exec node -e '
const fs = require("fs");
const MAX = 18000;
let total = 0;
for (const f of fs.readdirSync("schemas").filter(f => f.endsWith(".json")).sort()) {
	const t = JSON.parse(fs.readFileSync("schemas/" + f, "utf8"));
	const n = [...(t.description || "")].length +
	    [...JSON.stringify(t.inputSchema)].length;
	const vis = t._meta && t._meta.ui && t._meta.ui.visibility;
	if (Array.isArray(vis) && !vis.includes("model")) {
		console.log(`tooltext: ${t.name} ${n} (the view'"'"'s alone: not counted)`);
		continue;
	}
	console.log(`tooltext: ${t.name} ${n}`);
	total += n;
}
console.log(`tooltext: ${total} characters of ${MAX} at most`);
process.exit(total < MAX ? 0 : 1);
'
