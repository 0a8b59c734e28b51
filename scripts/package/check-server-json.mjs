// check-server-json.mjs — server.json, the MCP Registry's description of
// progmux, checked against the Registry's schema and against what it
// describes.
//
//   node scripts/package/check-server-json.mjs AJV_DIR PROGMUX
//
// AJV_DIR is a node_modules holding ajv and ajv-formats (pinned in
// tests/package/package.json); PROGMUX a progmux binary, whose --help
// lists the settings. The schema is the Registry's 2025-12-11 release,
// https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json,
// read from PROGMUX_REGISTRY_SCHEMA (default ../shared/mcp-registry/
// server.schema.json beside the repository) and taken only with the
// SHA-256 pinned below: no network is used (neither Debian's nor npm's
// registry serves it; where it is not there, the rules it states for a
// name, a description and the fields are checked instead, and a "skip"
// line says so). Checked:
//
//   - server.json validates against that schema (JSON Schema draft-07,
//     formats included), and its $schema names that release;
//   - a copy with a description over the schema's 100 characters and one
//     without a name are both refused (so the validation can fail);
//   - its version and its npm package's version are VERSION's, the npm
//     package is "progmux" over stdio, and the main package's package.json
//     (build/npm/progmux) has that version and mcpName = server.json's name,
//     as the Registry requires of npm packages;
//   - every environment variable it names is a setting progmux --help
//     lists, PROGMUX_ROBUST among them.
//
// Prints one line per check and "N passed, M failed"; exits 1 on any
// failure.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
const SCHEMA_SHA256 = 'd4c163f299ece68b7432f4e44c4108f2fdb663d99dc088c8344142e5b0a4b520';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const [ajvDir, progmux] = process.argv.slice(2);
// Each check's verdict, in order; printed by finish().
const verdicts = [];

function check(name, ok, why) {
  verdicts.push({ name, ok: Boolean(ok), why: ok || !why ? '' : String(why).slice(0, 800) });
  return ok;
}

function finish() {
  for (const v of verdicts)
    console.log(v.ok ? `ok - ${v.name}` : `FAIL - ${v.name}${v.why ? ': ' + v.why : ''}`);
  const bad = verdicts.filter((v) => !v.ok).length;
  console.log(`${verdicts.length - bad} passed, ${bad} failed`);
  process.exit(bad ? 1 : 0);
}

if (!ajvDir || !progmux) {
  console.error('usage: check-server-json.mjs AJV_DIR PROGMUX');
  process.exit(2);
}
const schemaFile = process.env.PROGMUX_REGISTRY_SCHEMA ||
  path.resolve(root, '..', 'shared', 'mcp-registry', 'server.schema.json');
const doc = JSON.parse(readFileSync(path.join(root, 'server.json'), 'utf8'));
check('server.json names the 2025-12-11 schema ($schema)', doc.$schema === SCHEMA_URL, doc.$schema);
if (!existsSync(schemaFile)) {
  // Neither registry this project may use serves the schema: where it
  // has not been put beside the repository, the rules below that the
  // schema states for what server.json holds are checked, and it says so.
  console.log(`skip - the Registry's schema is not at ${schemaFile} (put the ` +
    `2025-12-11 release there, sha256 ${SCHEMA_SHA256}, or name it in ` +
    'PROGMUX_REGISTRY_SCHEMA): server.json checked against its stated rules only');
  check('a name of 3 to 200 characters, reverse-DNS, one slash',
    /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/.test(doc.name || '') && doc.name.length >= 3 &&
    doc.name.length <= 200, doc.name);
  check('a description of 1 to 100 characters', typeof doc.description === 'string' &&
    doc.description.length >= 1 && doc.description.length <= 100, doc.description);
  check('a version, and no field the schema does not know',
    typeof doc.version === 'string' && Object.keys(doc).every((k) => ['$schema', 'name',
      'title', 'description', 'version', 'packages', 'repository', 'websiteUrl', 'icons',
      'remotes', '_meta'].includes(k)), Object.keys(doc).join(', '));
} else {
  const bytes = readFileSync(schemaFile);
  const sum = createHash('sha256').update(bytes).digest('hex');
  if (!check('the schema is the pinned one (sha256)', sum === SCHEMA_SHA256,
    `${schemaFile} has sha256 ${sum}, not ${SCHEMA_SHA256}`))
    finish();
  const schema = JSON.parse(bytes.toString('utf8'));
  check('the schema is the 2025-12-11 release ($id)', schema.$id === SCHEMA_URL, schema.$id);
  const require = createRequire(path.resolve(ajvDir, 'x.js'));
  const Ajv = require('ajv');
  const addFormats = require('ajv-formats');
  // strict off: the schema carries "example", which is no draft-07 keyword.
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  const errors = (v) => (v.errors || []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
  check('server.json validates against the schema', validate(doc), errors(validate));
  const long = { ...doc, description: 'x'.repeat(101) };
  check('a description over 100 characters is refused', !validate(long));
  const nameless = { ...doc };
  delete nameless.name;
  check('a server.json without a name is refused', !validate(nameless));
}

const version = readFileSync(path.join(root, 'VERSION'), 'utf8').trim();
const pkg = (doc.packages || [])[0] || {};
check('server.json has VERSION\'s version', doc.version === version, `${doc.version} != ${version}`);
check('its one package is npm\'s "progmux" at VERSION, over stdio',
  doc.packages.length === 1 && pkg.registryType === 'npm' && pkg.identifier === 'progmux' &&
  pkg.version === version && pkg.transport && pkg.transport.type === 'stdio',
  JSON.stringify(pkg).slice(0, 300));
const mainJson = path.join(root, 'build', 'npm', 'progmux', 'package.json');
if (check('build/npm/progmux/package.json is there (make npm)', existsSync(mainJson))) {
  const main = JSON.parse(readFileSync(mainJson, 'utf8'));
  check('the main package has that name and version', main.name === pkg.identifier &&
    main.version === pkg.version, `${main.name}@${main.version}`);
  check('its mcpName is server.json\'s name', main.mcpName === doc.name,
    `${main.mcpName} != ${doc.name}`);
}

const help = execFileSync(progmux, ['--help'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const env = (pkg.environmentVariables || []).map((e) => e.name);
const unknown = env.filter((n) => !new RegExp(`\\b${n}\\b`).test(help));
check('every environment variable it names is a setting progmux --help lists',
  env.length > 0 && unknown.length === 0, `not in progmux --help: ${unknown.join(', ')}`);
check('PROGMUX_ROBUST is among them', env.includes('PROGMUX_ROBUST'), env.join(', '));
finish();
