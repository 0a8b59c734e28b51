// view.js — the view's side of MCP Apps (io.modelcontextprotocol/ui,
// 2026-01-26), without an SDK: JSON-RPC over postMessage with the host
// (window.parent), ui/initialize then ui/notifications/initialized; the
// result of the tool that opened the view (start_program, run_program,
// list_programs) says which program to show; view_update, a bounded long
// poll, brings what changed, one call after another, never sooner than
// VIEW_MIN_MS apart; Stop and Ctrl-C call stop_program and send_keys. The
// program's text is untrusted: it is only ever set as text.
(function () {
	var VERSION = '2026-01-26';
	var WAIT_MS = 25000;		// view_update's wait
	var VIEW_MIN_MS = 100;		// between two calls, at least
	var RETRY_MS = 2000;		// after a failed call
	var OUT_LINES = 2000;		// lines of output kept on the page

	var nextId = 1, pending = new Map(), torn = false;
	var sel = null, cursor = null, seen = null, gen = 0;
	var actions = { stop: false, interrupt: false }, shown = null;
	var $ = function (id) { return document.getElementById(id); };

	function send(msg) {
		window.parent.postMessage(msg, '*');
	}

	// A request to the host; its result, or a rejection with its error.
	function request(method, params) {
		var id = nextId++;
		return new Promise(function (resolve, reject) {
			pending.set(id, { resolve: resolve, reject: reject });
			send({ jsonrpc: '2.0', id: id, method: method, params: params });
		});
	}

	function notify(method, params) {
		send({ jsonrpc: '2.0', method: method, params: params || {} });
	}

	function callTool(name, args) {
		return request('tools/call', { name: name, arguments: args });
	}

	function status(text) {
		$('status').textContent = text;
	}

	function showError(text) {
		var e = $('error');
		e.hidden = !text;
		e.textContent = text || '';
	}

	function resultText(r) {
		var c = (r && r.content) || [];
		for (var i = 0; i < c.length; i++)
			if (c[i].type === 'text')
				return c[i].text;
		return '';
	}

	// The host's theme and style variables (hostContext).
	function applyContext(ctx) {
		if (!ctx)
			return;
		if (ctx.theme)
			document.documentElement.style.colorScheme = ctx.theme;
		var vars = ctx.styles && ctx.styles.variables;
		if (vars)
			Object.keys(vars).forEach(function (k) {
				if (/^--[a-z0-9-]+$/.test(k) && typeof vars[k] === 'string')
					document.documentElement.style.setProperty(k, vars[k]);
			});
	}

	// Show program id from now on (from its start, cursor unknown).
	function select(id) {
		if (id === sel)
			return;
		sel = id;
		cursor = null;
		seen = null;
		shown = null;
		$('out').replaceChildren();
		gen++;
		follow(gen);
	}

	// A tool result the host passed on: the program it names is shown.
	function fromResult(r) {
		var sc = r && r.structuredContent;
		if (!sc)
			return;
		if (typeof sc.programId === 'string')
			select(sc.programId);
		else if (Array.isArray(sc.programs) && sc.programs.length > 0 &&
		    sel === null) {
			var live = sc.programs.filter(function (p) { return !p.ended; });
			var p = live.length ? live[live.length - 1] :
			    sc.programs[sc.programs.length - 1];
			select(p.programId);
		}
	}

	function stateOf(p) {
		if (p.waitingForInput)
			return ['waiting for input', 'waiting'];
		if (p.outcome === 'completed')
			return ['completed, exit ' + p.exitStatus,
			    p.exitStatus === 0 ? '' : 'failed'];
		if (p.outcome === 'running')
			return ['running', 'running'];
		return [p.outcome + (p.signal ? ' (' + p.signal + ')' : ''),
		    p.outcome === 'stopped' ? '' : 'failed'];
	}

	function renderList(programs) {
		var body = $('list');
		var rows = programs.map(function (p) {
			var tr = document.createElement('tr');
			var cells = [p.programId, p.argv.join(' '),
			    p.ended ? p.outcome : 'running', p.paneId || ''];
			cells.forEach(function (t, i) {
				var td = document.createElement('td');
				td.textContent = t;
				if (i === 1) {
					td.className = 'cmd';
					td.title = t;
				}
				tr.appendChild(td);
			});
			tr.dataset.id = p.programId;
			if (p.programId === sel)
				tr.className = 'sel';
			tr.addEventListener('click', function () {
				select(p.programId);
			});
			return tr;
		});
		body.replaceChildren.apply(body, rows);
		$('empty').hidden = programs.length > 0;
	}

	// Lines of text at the end of the output, the unfinished one apart.
	function appendOut(prog) {
		var out = $('out');
		var unf = out.querySelector('.unf');
		if (unf)
			unf.remove();
		if (cursor === null || prog.from !== cursor) {
			out.replaceChildren();
			if (prog.from > 0) {
				var skip = document.createElement('div');
				skip.className = 'skip';
				skip.textContent = '[earlier output left out]';
				out.appendChild(skip);
			}
		}
		if (prog.text) {
			var lines = prog.text.replace(/\n$/, '').split('\n');
			var frag = document.createDocumentFragment();
			lines.forEach(function (l) {
				var d = document.createElement('div');
				d.className = 'line';
				d.textContent = l;
				frag.appendChild(d);
			});
			out.appendChild(frag);
			var all = out.querySelectorAll('.line');
			for (var i = 0; i < all.length - OUT_LINES; i++)
				all[i].remove();
		}
		if (prog.unfinishedLine) {
			var u = document.createElement('div');
			u.className = 'unf';
			u.textContent = prog.unfinishedLine;
			out.appendChild(u);
		}
		cursor = prog.cursor;
		out.scrollTop = out.scrollHeight;
	}

	function renderProgram(prog) {
		var detail = $('detail');
		shown = prog;
		detail.hidden = !prog;
		if (!prog) {
			if (sel !== null)
				status(sel + ' is no longer held');
			return;
		}
		var st = stateOf(prog);
		$('title').textContent = prog.programId + ': ' + prog.argv.join(' ');
		$('state').textContent = st[0];
		$('state').className = 'badge ' + st[1];
		var note = $('note');
		if (prog.inputHidden) {
			note.hidden = false;
			note.textContent = 'It asks for a password. The agent gets it ' +
			    'from you through ask_user_secret\'s one-time page; ' +
			    'never type it here or in the chat.';
		} else
			note.hidden = true;
		var screen = $('screen');
		if (prog.screen) {
			screen.hidden = false;
			$('noscreen').hidden = true;
			ProgmuxTerm.render(screen, prog.screen);
		} else {
			screen.hidden = true;
			$('noscreen').hidden = !prog.ended;
		}
		appendOut(prog);
		$('stop').disabled = !actions.stop;
		$('interrupt').disabled = !actions.interrupt || prog.ended ||
		    !prog.paneId;
	}

	function render(sc) {
		actions = sc.actions;
		if (sel === null && sc.programs.length > 0) {
			fromResult({ structuredContent: sc });	// the newest
			return;
		}
		renderList(sc.programs);
		renderProgram(sc.program);
		status(sc.programs.length + ' program' +
		    (sc.programs.length === 1 ? '' : 's'));
	}

	function sleep(ms) {
		return new Promise(function (r) { setTimeout(r, ms); });
	}

	// Follow what changes, call after call, while g is the current
	// selection's generation.
	async function follow(g) {
		while (!torn && g === gen) {
			var args = { timeoutMs: WAIT_MS };
			if (sel !== null)
				args.programId = sel;
			if (sel !== null && cursor !== null)
				args.cursor = cursor;
			if (seen !== null)
				args.seen = seen;
			var t0 = Date.now(), r;
			try {
				r = await callTool('view_update', args);
			} catch (e) {
				if (g !== gen || torn)
					return;
				showError('view_update: ' + (e && e.message || e));
				await sleep(RETRY_MS);
				continue;
			}
			if (g !== gen || torn)
				return;
			if (r.isError || !r.structuredContent) {
				showError(resultText(r) || 'view_update failed');
				await sleep(RETRY_MS);
				continue;
			}
			showError('');
			render(r.structuredContent);
			seen = r.structuredContent.seen;
			if (Date.now() - t0 < VIEW_MIN_MS)
				await sleep(VIEW_MIN_MS - (Date.now() - t0));
		}
	}

	// The buttons: the same tools, and the same checks, as the agent's.
	async function act(button, name, args) {
		button.disabled = true;
		try {
			var r = await callTool(name, args);
			showError(r.isError ? name + ': ' + resultText(r) : '');
		} catch (e) {
			showError(name + ': ' + (e && e.message || e));
		}
		button.disabled = false;
	}

	$('stop').addEventListener('click', function () {
		if (shown)
			act($('stop'), 'stop_program', { programId: shown.programId });
	});
	$('interrupt').addEventListener('click', function () {
		if (shown && shown.paneId)
			act($('interrupt'), 'send_keys', { paneId: shown.paneId,
			    keys: 'C-c', enter: false });
	});

	// Requests and notifications from the host.
	function onRequest(msg) {
		var reply = function (result) {
			send({ jsonrpc: '2.0', id: msg.id, result: result });
		};
		if (msg.method === 'ui/resource-teardown') {
			torn = true;
			reply({});
		} else if (msg.method === 'ping')
			reply({});
		else
			send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601,
			    message: 'method not found: ' + msg.method } });
	}

	function onNotification(msg) {
		var p = msg.params || {};
		if (msg.method === 'ui/notifications/tool-result')
			fromResult(p);
		else if (msg.method === 'ui/notifications/host-context-changed')
			applyContext(p);
		else if (msg.method === 'ui/notifications/tool-cancelled')
			status('the call was cancelled');
	}

	window.addEventListener('message', function (ev) {
		var msg = ev.data;
		if (ev.source !== window.parent || !msg || msg.jsonrpc !== '2.0')
			return;
		if (msg.method === undefined && pending.has(msg.id)) {
			var w = pending.get(msg.id);
			pending.delete(msg.id);
			if (msg.error)
				w.reject(new Error(msg.error.message));
			else
				w.resolve(msg.result);
		} else if (msg.method !== undefined && msg.id !== undefined)
			onRequest(msg);
		else if (msg.method !== undefined)
			onNotification(msg);
	});

	// Tell the host the page's size as it changes (its height follows
	// the content where the host lets it).
	var last = '';
	function sizeChanged() {
		var el = document.documentElement;
		var w = Math.ceil(el.scrollWidth), h = Math.ceil(el.scrollHeight);
		if (w + 'x' + h === last)
			return;
		last = w + 'x' + h;
		notify('ui/notifications/size-changed', { width: w, height: h });
	}

	async function start() {
		var init;
		try {
			init = await request('ui/initialize', {
				protocolVersion: VERSION,
				appInfo: { name: 'progmux-view', version: '1' },
				appCapabilities: { availableDisplayModes: ['inline'] }
			});
		} catch (e) {
			status('the host did not answer: ' + (e && e.message || e));
			return;
		}
		applyContext(init && init.hostContext);
		notify('ui/notifications/initialized', {});
		new ResizeObserver(sizeChanged).observe(document.body);
		status('waiting for a program');
		follow(gen);
	}

	start();
})();
