// model.mjs — a scripted model on 127.0.0.1 for the agent clients.
//
// Speaks just enough of four APIs for the clients to run a whole agent turn
// against it: the Anthropic Messages API (POST /v1/messages, streamed as
// server-sent events or not, and count_tokens) for Claude Code, the Gemini
// API (models/M:streamGenerateContent?alt=sse, :generateContent,
// :countTokens) for Gemini CLI, the OpenAI Responses API (POST
// /v1/responses, streamed) for Codex, and OpenAI Chat Completions (POST
// /v1/chat/completions, streamed as server-sent events or not) for
// opencode, Kilo, Copilot CLI, Cline and Qwen Code.
//
// The script is kept in the conversation itself, not in the server: a
// request that offers progmux's tools is answered by the step that the
// number of progmux tool results already in it gives:
//   0 results: call run_program {argv: ["echo", "hi"]}
//   1 result:  call start_program {argv: ["sh", "-c", "echo started; ..."]}
//   2 results: call read_program {programId: <from the start result>,
//              timeoutMs: 5000} (Gemini: with wait_for_previous: true)
//   3 results: answer the text "finished"; but when the prompt asks for
//              "then a slow one" (Claude Code's interactive turn), call
//              run_program {argv: SLOW_ARGV}, a 20-second program, first:
//              Claude Code makes that call a task of the 2026-07-28 tasks
//              extension and tells the model its result when it is done.
// An Anthropic request whose prompt names HOSTS_MARK (Claude Code driving
// two hosts through one progmux) follows a third:
//   0 results: call start_program {argv: HOST_ARGV, host: "a"}
//   1 result:  call start_program {argv: HOST_ARGV, host: "b"}
//   2 results: call list_programs {}
//   3 results: answer the text "finished".
// Two more Anthropic scripts prove the lease (desktop mode): a prompt
// naming LEASE_START_MARK starts a dev server that keeps printing and
// leaves it running when the client exits:
//   0 results: call start_program {argv: DEV_ARGV}
//   1 result:  call read_program {programId, until: "^tick 3$",
//              timeoutMs: 10000}
//   2 results: answer the text "finished".
// A prompt naming LEASE_READ_MARK N (a later client, whose progmux
// adopted it) finds it, reads it to tick N and stops it:
//   0 results: call list_programs {}
//   1 result:  call read_program {programId: the first listed, until:
//              "^tick N$", timeoutMs: 10000}
//   2 results: call stop_program {programId: the same}
//   3 results: answer the text "finished".
// Chat Completions requests follow another script, a prompt answered:
//   0 results: call start_program {argv: PROMPT_ARGV} (prints "name? "
//              and reads a line)
//   1 result:  call read_program {programId, timeoutMs: 5000}: it returns
//              once the program waits at "name? "
//   2 results: call send_keys {paneId, keys: "progmux", timeoutMs: 5000}:
//              the reply is the program's "hello progmux"
//   3 results: answer the text "finished".
// A request without progmux's tools (a title, a classifier, a check that
// a client makes on the side) gets a short text, or for a JSON-schema
// request the smallest object that fits the schema.
//
// Every request is appended to the log as one JSON line: {api, path,
// body, step, tools, at (when it came, in ms since the epoch)}. Usage:
// node model.mjs LOGFILE PORTFILE; the port it listens on is written to
// PORTFILE once it listens. SIGTERM ends it.
import http from 'node:http';
import { appendFileSync, writeFileSync } from 'node:fs';

const [logFile, portFile] = process.argv.slice(2);
const TOOLS = ['run_program', 'start_program', 'read_program'];
const START_ARGV = ['sh', '-c', 'echo started; sleep 0.2; echo done'];
const SLOW_ARGV = ['sh', '-c', 'echo slow; sleep 20; echo slept'];
const SLOW_MARK = 'then a slow one';	/* in the prompt: the slow step */
const PROMPT_TOOLS = ['start_program', 'read_program', 'send_keys'];
const HOSTS_MARK = 'on host a and on host b';
const HOSTS_TOOLS = ['start_program', 'list_programs'];
const HOST_ARGV = ['sh', '-c', 'echo "on $HUBTEST_HOST"; sleep 30'];
const LEASE_START_MARK = 'Start the dev server with progmux and leave it running';
const LEASE_START_TOOLS = ['start_program', 'read_program'];
const LEASE_READ_MARK = 'read the dev server until tick ';
const LEASE_READ_TOOLS = ['list_programs', 'read_program', 'stop_program'];
const DEV_ARGV = ['sh', '-c', 'echo started; i=0; while :; do i=$((i+1)); ' +
  'echo tick $i; sleep 0.2; done; : progmux lease dev server'];
const PROMPT_ARGV = ['sh', '-c', 'printf "name? "; read n; echo "hello $n"'];

// The client's name for a progmux tool t among the names it offers.
function toolName(names, t) {
  return names.find((n) => n === t || n.endsWith('_' + t) ||
      n.endsWith('-' + t) || n.endsWith('.' + t) || n.endsWith('/' + t)) || null;
}

// The programId in a tool result, whatever shape the client gave it.
function findProgramId(v) {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  const m = /\\*"programId\\*"\s*:\s*\\*"([^"\\]+)\\*"/.exec(s) ||
      /programId[^A-Za-z0-9]+([A-Za-z0-9_-]+)/.exec(s);
  return m ? m[1] : null;
}

// The paneId in a tool result, whatever shape the client gave it.
function findPaneId(v) {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  const m = /\\*"paneId\\*"\s*:\s*\\*"(%\d+)/.exec(s) || /(%\d+)/.exec(s);
  return m ? m[1] : null;
}

// The prompt script's step after `results` progmux tool results (the
// first of them is start_program's).
function scriptedPrompt(results) {
  const start = results.length ? results[0] : null;
  switch (results.length) {
  case 0:
    return { tool: 'start_program', args: { argv: PROMPT_ARGV } };
  case 1:
    return { tool: 'read_program', args: {
      programId: findProgramId(start) || 'missing', timeoutMs: 5000 } };
  case 2:
    return { tool: 'send_keys', args: { paneId: findPaneId(start) || '%0',
      keys: 'progmux', timeoutMs: 5000 } };
  default:
    return { text: 'finished' };
  }
}

// The hosts script's step after `results` progmux tool results.
function scriptedHosts(results) {
  switch (results.length) {
  case 0:
    return { tool: 'start_program', args: { argv: HOST_ARGV, host: 'a' } };
  case 1:
    return { tool: 'start_program', args: { argv: HOST_ARGV, host: 'b' } };
  case 2:
    return { tool: 'list_programs', args: {} };
  default:
    return { text: 'finished' };
  }
}

// The lease's first script: its step after `results` progmux tool results.
function scriptedLeaseStart(results) {
  switch (results.length) {
  case 0:
    return { tool: 'start_program', args: { argv: DEV_ARGV } };
  case 1:
    return { tool: 'read_program', args: {
      programId: findProgramId(results[0].content) || 'missing',
      until: '^tick 3$', timeoutMs: 10000 } };
  default:
    return { text: 'finished' };
  }
}

// The lease's second script, reading to tick n: its step after
// `results` progmux tool results (the first is list_programs').
function scriptedLeaseRead(results, n) {
  const id = results.length ? findProgramId(results[0].content) || 'missing' : null;
  switch (results.length) {
  case 0:
    return { tool: 'list_programs', args: {} };
  case 1:
    return { tool: 'read_program', args: { programId: id,
      until: `^tick ${n}$`, timeoutMs: 10000 } };
  case 2:
    return { tool: 'stop_program', args: { programId: id } };
  default:
    return { text: 'finished' };
  }
}

// What the script says to do after `results` progmux tool results; slow
// (Claude Code) adds a run of a 20-second program, which becomes a task.
function scripted(results, lastResult, gemini, slow) {
  switch (results.length) {
  case 0:
    return { tool: 'run_program', args: { argv: ['echo', 'hi'] } };
  case 1:
    return { tool: 'start_program', args: { argv: START_ARGV } };
  case 2: {
    const args = { programId: findProgramId(lastResult) || 'missing',
      timeoutMs: 5000 };
    if (gemini) args.wait_for_previous = true;
    return { tool: 'read_program', args };
  }
  case 3:
    if (slow)
      return { tool: 'run_program', args: { argv: SLOW_ARGV } };
    return { text: 'finished' };
  default:
    return { text: 'finished' };
  }
}

// The smallest value that fits a JSON schema (for side requests).
function fit(schema) {
  if (!schema || typeof schema !== 'object') return 'ok';
  if (schema.enum) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (String(type).toLowerCase()) {
  case 'object': {
    const o = {};
    for (const [k, v] of Object.entries(schema.properties || {})) o[k] = fit(v);
    return o;
  }
  case 'array': return [];
  case 'boolean': return false;
  case 'number': case 'integer':
    return schema.minimum !== undefined ? schema.minimum : 1;
  default: return 'ok';
  }
}

// Write one server-sent event.
function sse(res, event, data) {
  if (event) res.write(`event: ${event}\n`);
  res.write(`data: ${JSON.stringify(data)}\n\n`);
}

let seq = 0;

// ---- Anthropic Messages API ------------------------------------------------

// Answer POST /v1/messages. Claude Code may defer MCP tools: their names
// are then only listed in the prompt and a ToolSearch call loads them, as
// the real model does first.
function anthropic(body, res, rec) {
  const names = (body.tools || []).map((t) => t.name);
  const text = JSON.stringify([body.system, body.messages]);
  const listed = [...new Set(text.match(/mcp__[A-Za-z0-9_-]+/g) || [])];
  const hosts = text.includes(HOSTS_MARK);
  const leaseStart = text.includes(LEASE_START_MARK);
  const leaseRead = new RegExp(LEASE_READ_MARK + '(\\d+)').exec(text);
  const tools = hosts ? HOSTS_TOOLS : leaseStart ? LEASE_START_TOOLS :
    leaseRead ? LEASE_READ_TOOLS : TOOLS;
  const used = new Map();
  const results = [];
  let searched = false;
  for (const m of body.messages || []) {
    if (!Array.isArray(m.content)) continue;
    for (const c of m.content) {
      if (c.type === 'tool_use') used.set(c.id, c.name);
      if (c.type !== 'tool_result') continue;
      const name = used.get(c.tool_use_id);
      if (name === 'ToolSearch') searched = true;
      else if (tools.some((t) => name === toolName(names.concat(listed), t)))
        results.push(c);
    }
  }
  const known = [...new Set(names.concat(listed))];
  let act;
  if (toolName(names, tools[0]) || (searched && toolName(known, tools[0]))) {
    if (hosts)
      act = scriptedHosts(results);
    else if (leaseStart)
      act = scriptedLeaseStart(results);
    else if (leaseRead)
      act = scriptedLeaseRead(results, Number(leaseRead[1]));
    else
      act = scripted(results, results.length ? results[results.length - 1].content : null,
        false, text.includes(SLOW_MARK));
    rec.step = results.length;
  } else if (names.includes('ToolSearch') && toolName(known, tools[0])) {
    act = { tool: 'ToolSearch', args: { query: 'select:' +
      tools.map((t) => toolName(known, t)).join(','), max_results: 5 } };
    rec.step = 'ToolSearch';
  } else {
    act = { text: 'ok' };
  }
  rec.tools = known.filter((n) => tools.some((t) => n.endsWith(t)));
  const id = `msg_${++seq}`;
  let content;
  if (act.tool) {
    const name = act.tool === 'ToolSearch' ? act.tool : toolName(known, act.tool);
    content = [{ type: 'tool_use', id: `toolu_${seq}`, name, input: act.args }];
  } else {
    content = [{ type: 'text', text: act.text }];
  }
  const stop = act.tool ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: 10, output_tokens: 5,
    cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, type: 'message', role: 'assistant',
      model: body.model, content, stop_reason: stop, stop_sequence: null, usage }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream',
    'cache-control': 'no-cache' });
  sse(res, 'message_start', { type: 'message_start', message: { id,
    type: 'message', role: 'assistant', model: body.model, content: [],
    stop_reason: null, stop_sequence: null, usage } });
  content.forEach((c, i) => {
    if (c.type === 'tool_use') {
      sse(res, 'content_block_start', { type: 'content_block_start', index: i,
        content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index: i,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(c.input) } });
    } else {
      sse(res, 'content_block_start', { type: 'content_block_start', index: i,
        content_block: { type: 'text', text: '' } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index: i,
        delta: { type: 'text_delta', text: c.text } });
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index: i });
  });
  sse(res, 'message_delta', { type: 'message_delta',
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: 5 } });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

// ---- Gemini API ------------------------------------------------------------

// Answer :generateContent and :streamGenerateContent.
function gemini(body, stream, res, rec) {
  const names = [];
  for (const t of body.tools || [])
    for (const f of t.functionDeclarations || []) names.push(f.name);
  const results = [];
  for (const c of body.contents || [])
    for (const p of c.parts || [])
      if (p.functionResponse && TOOLS.some((t) => p.functionResponse.name === toolName(names, t)))
        results.push(p.functionResponse);
  let parts;
  const gc = body.generationConfig || body.config || {};
  if (toolName(names, 'run_program')) {
    rec.step = results.length;
    const act = scripted(results, results.length ? results[results.length - 1].response : null, true);
    parts = act.tool ?
      [{ functionCall: { name: toolName(names, act.tool), args: act.args } }] :
      [{ text: act.text }];
  } else if (gc.responseJsonSchema || gc.responseSchema) {
    parts = [{ text: JSON.stringify(fit(gc.responseJsonSchema || gc.responseSchema)) }];
  } else {
    parts = [{ text: 'ok' }];
  }
  rec.tools = names.filter((n) => TOOLS.some((t) => n.endsWith(t)));
  const answer = { candidates: [{ content: { role: 'model', parts },
    finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5,
      totalTokenCount: 15 }, modelVersion: 'scripted' };
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  sse(res, null, answer);
  res.end();
}

// ---- OpenAI Responses API --------------------------------------------------

// The function tools a Responses request offers: name -> namespace (Codex
// puts an MCP server's tools in a namespace tool named mcp__SERVER).
function responsesTools(tools, ns = null, out = new Map()) {
  for (const t of tools || []) {
    if (t.type === 'namespace') responsesTools(t.tools, t.name, out);
    else if (t.name) out.set(t.name, ns);
  }
  return out;
}

// Answer POST /v1/responses.
function responses(body, res, rec) {
  const spaces = responsesTools(body.tools);
  const names = [...spaces.keys()];
  const calls = new Map();
  const results = [];
  for (const it of Array.isArray(body.input) ? body.input : []) {
    if (it.type === 'function_call') calls.set(it.call_id, it.name);
    if (it.type === 'function_call_output' &&
        TOOLS.some((t) => calls.get(it.call_id) === toolName(names, t)))
      results.push(it);
  }
  let item;
  const id = `resp_${++seq}`;
  if (toolName(names, 'run_program')) {
    rec.step = results.length;
    const act = scripted(results, results.length ? results[results.length - 1].output : null, false);
    if (act.tool) {
      const name = toolName(names, act.tool);
      item = { type: 'function_call', id: `fc_${seq}`, call_id: `call_${seq}`,
        name, arguments: JSON.stringify(act.args), status: 'completed' };
      if (spaces.get(name)) item.namespace = spaces.get(name);
    } else {
      item = { type: 'message', id: `msg_${seq}`, role: 'assistant',
        status: 'completed', content: [{ type: 'output_text', text: act.text,
          annotations: [] }] };
    }
  } else {
    item = { type: 'message', id: `msg_${seq}`, role: 'assistant',
      status: 'completed', content: [{ type: 'output_text', text: 'ok',
        annotations: [] }] };
  }
  rec.tools = names.filter((n) => TOOLS.some((t) => n.endsWith(t)));
  const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15 };
  const response = { id, object: 'response', created_at: Math.floor(Date.now() / 1000),
    status: 'completed', model: body.model, output: [item], usage };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(response));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  sse(res, 'response.created', { type: 'response.created',
    response: { ...response, status: 'in_progress', output: [] } });
  sse(res, 'response.output_item.added', { type: 'response.output_item.added',
    output_index: 0, item: { ...item, status: 'in_progress' } });
  if (item.type === 'message')
    sse(res, 'response.output_text.delta', { type: 'response.output_text.delta',
      item_id: item.id, output_index: 0, content_index: 0,
      delta: item.content[0].text });
  sse(res, 'response.output_item.done', { type: 'response.output_item.done',
    output_index: 0, item });
  sse(res, 'response.completed', { type: 'response.completed', response });
  res.end();
}

// ---- OpenAI Chat Completions ----------------------------------------------

// A chat message's content as text (a string, or an array of text parts).
function chatText(c) {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((p) => (typeof p === 'string' ? p : p.text || '')).join('');
  return c == null ? '' : JSON.stringify(c);
}

// Answer POST /v1/chat/completions with the prompt script.
function chat(body, res, rec) {
  const names = (body.tools || []).map((t) => (t.function ? t.function.name : t.name))
    .filter(Boolean);
  const calls = new Map();
  const results = [];
  for (const m of body.messages || []) {
    for (const c of m.tool_calls || [])
      calls.set(c.id, c.function ? c.function.name : c.name);
    if (m.role === 'tool' &&
        PROMPT_TOOLS.some((t) => calls.get(m.tool_call_id) === toolName(names, t)))
      results.push(chatText(m.content));
  }
  let act;
  if (toolName(names, 'start_program')) {
    rec.step = results.length;
    act = scriptedPrompt(results);
  } else if (body.response_format && body.response_format.json_schema) {
    act = { text: JSON.stringify(fit(body.response_format.json_schema.schema)) };
  } else {
    act = { text: 'ok' };
  }
  rec.tools = names.filter((n) => TOOLS.concat(PROMPT_TOOLS).some((t) => n.endsWith(t)));
  const id = `chatcmpl-${++seq}`;
  const created = Math.floor(Date.now() / 1000);
  const call = act.tool ? { id: `call_${seq}`, type: 'function',
    function: { name: toolName(names, act.tool), arguments: JSON.stringify(act.args) } } : null;
  const finish = call ? 'tool_calls' : 'stop';
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, object: 'chat.completion', created,
      model: body.model, choices: [{ index: 0, message: { role: 'assistant',
        content: call ? null : act.text, ...(call ? { tool_calls: [call] } : {}) },
      finish_reason: finish }], usage }));
    return;
  }
  const chunk = (delta, finishReason, extra) => ({ id, object: 'chat.completion.chunk',
    created, model: body.model, choices: [{ index: 0, delta,
      finish_reason: finishReason }], ...extra });
  res.writeHead(200, { 'content-type': 'text/event-stream',
    'cache-control': 'no-cache' });
  sse(res, null, chunk({ role: 'assistant', content: '' }, null));
  if (call)
    sse(res, null, chunk({ tool_calls: [{ index: 0, ...call }] }, null));
  else
    sse(res, null, chunk({ content: act.text }, null));
  sse(res, null, chunk({}, finish));
  if (body.stream_options && body.stream_options.include_usage)
    sse(res, null, { id, object: 'chat.completion.chunk', created,
      model: body.model, choices: [], usage });
  res.write('data: [DONE]\n\n');
  res.end();
}

// ---- the server ------------------------------------------------------------

const server = http.createServer((req, res) => {
  const at = Date.now();
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const url = new URL(req.url, 'http://127.0.0.1');
    let body = {};
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : {};
    } catch (e) {
      body = { unparsed: Buffer.concat(chunks).toString().slice(0, 2000) };
    }
    const rec = { method: req.method, path: url.pathname, search: url.search,
      api: null, step: null, tools: [], body, at };
    const p = url.pathname;
    try {
      if (req.method === 'POST' && p.endsWith('/messages/count_tokens')) {
        rec.api = 'anthropic';
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: 10 }));
      } else if (req.method === 'POST' && p.endsWith('/messages')) {
        rec.api = 'anthropic';
        anthropic(body, res, rec);
      } else if (req.method === 'POST' && p.endsWith(':countTokens')) {
        rec.api = 'gemini';
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ totalTokens: 10 }));
      } else if (req.method === 'POST' && p.endsWith(':streamGenerateContent')) {
        rec.api = 'gemini';
        gemini(body, true, res, rec);
      } else if (req.method === 'POST' && p.endsWith(':generateContent')) {
        rec.api = 'gemini';
        gemini(body, false, res, rec);
      } else if (req.method === 'POST' && p.endsWith('/chat/completions')) {
        rec.api = 'chat';
        chat(body, res, rec);
      } else if (req.method === 'POST' && p.endsWith('/responses')) {
        rec.api = 'responses';
        responses(body, res, rec);
      } else if (req.method === 'GET' && p.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'scripted',
          object: 'model', created: 0, owned_by: 'progmux' }], models: [] }));
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'not scripted', type: 'not_found' } }));
      }
    } catch (e) {
      rec.error = String(e && e.stack || e);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
    appendFileSync(logFile, JSON.stringify(rec) + '\n');
  });
});

server.listen(0, '127.0.0.1', () => {
  writeFileSync(portFile, String(server.address().port));
});
process.on('SIGTERM', () => { server.close(); process.exit(0); });
