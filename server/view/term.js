// term.js — a pane's screen as capture-pane -e gives it (text with SGR
// escape sequences: colours and attributes, as tmux keeps each cell), made
// into runs of styled text, and those into the page. tmux has already
// rendered the screen; what is left is SGR, cell widths and the cursor.
// Other sequences (OSC 8 hyperlinks of newer tmux, any CSI) are skipped.
// Text is only ever set as text (textContent), never as HTML.
'use strict';
var ProgmuxTerm = (function () {
	// xterm's 16 colours.
	var BASE = ['#000000', '#cd0000', '#00cd00', '#cdcd00', '#0000ee',
	    '#cd00cd', '#00cdcd', '#e5e5e5', '#7f7f7f', '#ff0000', '#00ff00',
	    '#ffff00', '#5c5cff', '#ff00ff', '#00ffff', '#ffffff'];

	function hex2(n) {
		return (n < 16 ? '0' : '') + n.toString(16);
	}

	// Colour n of the 256.
	function palette(n) {
		var r, g, b, l, steps = [0, 95, 135, 175, 215, 255];
		if (n < 16)
			return BASE[n];
		if (n < 232) {
			n -= 16;
			r = steps[Math.floor(n / 36)];
			g = steps[Math.floor(n / 6) % 6];
			b = steps[n % 6];
			return '#' + hex2(r) + hex2(g) + hex2(b);
		}
		l = 8 + (n - 232) * 10;
		return '#' + hex2(l) + hex2(l) + hex2(l);
	}

	function plain() {
		return { fg: null, bg: null, bold: false, dim: false,
		    italic: false, under: false, blink: false, inverse: false,
		    hidden: false, strike: false, over: false };
	}

	function copy(s) {
		var c = {}, k;
		for (k in s)
			c[k] = s[k];
		return c;
	}

	// An extended colour (38/48/58) from params at i: [colour, next i].
	function extended(p, i) {
		var r, g, b;
		if (p[i] && p[i].sub) {		// 38:5:n or 38:2:[cs]:r:g:b
			var s = p[i].sub;
			if (s[0] === 5)
				return [palette(s[1] & 255), i + 1];
			if (s[0] === 2) {
				var o = s.length >= 5 ? s.length - 3 : 1;
				r = s[o] & 255; g = s[o + 1] & 255;
				b = s[o + 2] & 255;
				return ['#' + hex2(r) + hex2(g) + hex2(b), i + 1];
			}
			return [null, i + 1];
		}
		if (p[i + 1] && p[i + 1].n === 5)
			return [palette((p[i + 2] ? p[i + 2].n : 0) & 255), i + 3];
		if (p[i + 1] && p[i + 1].n === 2) {
			r = (p[i + 2] ? p[i + 2].n : 0) & 255;
			g = (p[i + 3] ? p[i + 3].n : 0) & 255;
			b = (p[i + 4] ? p[i + 4].n : 0) & 255;
			return ['#' + hex2(r) + hex2(g) + hex2(b), i + 5];
		}
		return [null, i + 2];
	}

	// Apply SGR parameters (text between "ESC [" and "m") to style s.
	function sgr(s, text) {
		var p = text === '' ? [{ n: 0 }] : text.split(';').map(function (x) {
			var parts = x.split(':');
			var n = parts[0] === '' ? 0 : parseInt(parts[0], 10);
			if (parts.length > 1)
				return { n: n, sub: parts.slice(1).map(function (y) {
				    return y === '' ? 0 : parseInt(y, 10); }) };
			return { n: isNaN(n) ? 0 : n };
		});
		var i = 0, n, e;
		while (i < p.length) {
			n = p[i].n;
			if (n === 0) {
				var fresh = plain();
				for (var k in fresh)
					s[k] = fresh[k];
			} else if (n === 1) s.bold = true;
			else if (n === 2) s.dim = true;
			else if (n === 3) s.italic = true;
			else if (n === 4) s.under = !(p[i].sub && p[i].sub[0] === 0);
			else if (n === 5 || n === 6) s.blink = true;
			else if (n === 7) s.inverse = true;
			else if (n === 8) s.hidden = true;
			else if (n === 9) s.strike = true;
			else if (n === 21) s.under = true;
			else if (n === 22) { s.bold = false; s.dim = false; }
			else if (n === 23) s.italic = false;
			else if (n === 24) s.under = false;
			else if (n === 25) s.blink = false;
			else if (n === 27) s.inverse = false;
			else if (n === 28) s.hidden = false;
			else if (n === 29) s.strike = false;
			else if (n >= 30 && n <= 37) s.fg = BASE[n - 30];
			else if (n === 38) {
				e = extended(p, i);
				s.fg = e[0];
				i = e[1];
				continue;
			} else if (n === 39) s.fg = null;
			else if (n >= 40 && n <= 47) s.bg = BASE[n - 40];
			else if (n === 48) {
				e = extended(p, i);
				s.bg = e[0];
				i = e[1];
				continue;
			} else if (n === 49) s.bg = null;
			else if (n === 53) s.over = true;
			else if (n === 55) s.over = false;
			else if (n === 58) {
				i = extended(p, i)[1];	// underline colour: not shown
				continue;
			} else if (n >= 90 && n <= 97) s.fg = BASE[n - 90 + 8];
			else if (n >= 100 && n <= 107) s.bg = BASE[n - 100 + 8];
			i++;
		}
	}

	// The cells a code point takes: 0 (combining), 1, or 2 (wide).
	function width(c) {
		if (c < 0x300)
			return 1;
		if ((c >= 0x300 && c <= 0x36f) || (c >= 0x483 && c <= 0x489) ||
		    (c >= 0x591 && c <= 0x5bd) || (c >= 0x610 && c <= 0x61a) ||
		    (c >= 0x64b && c <= 0x65f) || (c >= 0x200b && c <= 0x200f) ||
		    (c >= 0x20d0 && c <= 0x20ff) || (c >= 0xfe00 && c <= 0xfe0f) ||
		    (c >= 0xfe20 && c <= 0xfe2f) || (c >= 0xe0100 && c <= 0xe01ef))
			return 0;
		if ((c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0x303e) ||
		    (c >= 0x3041 && c <= 0x33ff) || (c >= 0x3400 && c <= 0x4dbf) ||
		    (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xa000 && c <= 0xa4cf) ||
		    (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ||
		    (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
		    (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1f64f) ||
		    (c >= 0x1f900 && c <= 0x1f9ff) || (c >= 0x20000 && c <= 0x3fffd))
			return 2;
		return 1;
	}

	// The screen's rows: each a list of cells { t: text, w: cells, s:
	// style }, a wide character one cell of width 2, a combining mark
	// joined to the cell before it.
	function parse(lines) {
		var rows = [], row = [], s = plain(), cur = copy(s), i = 0, c, m;
		var n = lines.length, re = /\x1b\[([0-9;:?<=>]*)([@-~])/y;
		while (i < n) {
			c = lines.charCodeAt(i);
			if (c === 10) {
				rows.push(row);
				row = [];
				i++;
				continue;
			}
			if (c === 27) {
				re.lastIndex = i;
				if ((m = re.exec(lines)) !== null) {
					if (m[2] === 'm' && !/[?<=>]/.test(m[1])) {
						sgr(s, m[1]);
						cur = copy(s);
					}
					i = re.lastIndex;
					continue;
				}
				if (lines[i + 1] === ']' || lines[i + 1] === 'P' ||
				    lines[i + 1] === '_' || lines[i + 1] === '^') {
					// A string: to BEL or ST.
					var end = i + 2;
					while (end < n && lines.charCodeAt(end) !== 7 &&
					    !(lines.charCodeAt(end) === 27 &&
					    lines[end + 1] === '\\'))
						end++;
					i = end < n && lines.charCodeAt(end) === 7 ?
					    end + 1 : end + 2;
					continue;
				}
				i += 2;		// a two-byte sequence
				continue;
			}
			var cp = lines.codePointAt(i), len = cp > 0xffff ? 2 : 1;
			var t = lines.substr(i, len), w;
			i += len;
			if (cp < 32 || cp === 127)
				continue;
			w = width(cp);
			if (w === 0 && row.length > 0) {
				row[row.length - 1].t += t;
				continue;
			}
			row.push({ t: t, w: w === 0 ? 1 : w, s: cur });
		}
		rows.push(row);
		return rows;
	}

	// The CSS of a style.
	function css(s) {
		var fg = s.fg, bg = s.bg, out = [], deco = [];
		if (s.inverse) {
			fg = s.bg || 'var(--term-bg)';
			bg = s.fg || 'var(--term-fg)';
		}
		if (fg) out.push('color:' + fg);
		if (bg) out.push('background-color:' + bg);
		if (s.bold) out.push('font-weight:bold');
		if (s.dim) out.push('opacity:0.6');
		if (s.italic) out.push('font-style:italic');
		if (s.under) deco.push('underline');
		if (s.strike) deco.push('line-through');
		if (s.over) deco.push('overline');
		if (deco.length) out.push('text-decoration:' + deco.join(' '));
		if (s.hidden) out.push('visibility:hidden');
		return out.join(';');
	}

	// Put screen (view_update's screen) into pre: a span per run of cells
	// of one style, the cursor's cell apart.
	function render(pre, screen) {
		var rows = parse(screen.lines), doc = pre.ownerDocument;
		var frag = doc.createDocumentFragment(), y, x, col, cell;
		var height = Math.max(screen.height, 1);
		while (rows.length < height)
			rows.push([]);
		rows.length = height;
		for (y = 0; y < rows.length; y++) {
			var row = rows[y], runs = [], want = -1;
			if (y === screen.cursorY)
				want = screen.cursorX;
			col = 0;
			for (x = 0; x < row.length; x++) {
				cell = row[x];
				var atCur = want >= col && want < col + cell.w;
				var last = runs[runs.length - 1];
				if (!atCur && last && !last.cur && last.s === cell.s)
					last.t += cell.t;
				else
					runs.push({ t: cell.t, s: cell.s, cur: atCur });
				col += cell.w;
			}
			if (want >= col) {
				if (want > col)
					runs.push({ t: ' '.repeat(want - col), s: null,
					    cur: false });
				runs.push({ t: ' ', s: null, cur: true });
			}
			for (x = 0; x < runs.length; x++) {
				var span = doc.createElement('span');
				span.textContent = runs[x].t;
				if (runs[x].s) {
					var style = css(runs[x].s);
					if (style)
						span.setAttribute('style', style);
				}
				if (runs[x].cur)
					span.className = screen.cursorVisible ?
					    'cur on' : 'cur';
				frag.appendChild(span);
			}
			if (y + 1 < rows.length)
				frag.appendChild(doc.createTextNode('\n'));
		}
		pre.replaceChildren(frag);
		pre.style.minWidth = screen.width + 'ch';
	}

	return { parse: parse, render: render, css: css, palette: palette,
	    width: width };
})();
if (typeof module === 'object' && module.exports)
	module.exports = ProgmuxTerm;
