#!/bin/sh
# tooltext.sh — the tool text a model reads stays under its budget: every
# tool's description and input schema (compact JSON, as tools/list sends
# it) in schemas/*.json, counted in characters, under 18,000 together.
# Prints each tool's count and the total.
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
	console.log(`tooltext: ${t.name} ${n}`);
	total += n;
}
console.log(`tooltext: ${total} characters of ${MAX} at most`);
process.exit(total < MAX ? 0 : 1);
'
