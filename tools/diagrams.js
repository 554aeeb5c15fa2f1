#!/usr/bin/env node
// diagrams.js - the build-up diagrams of the decks: ideas a lecturer would draw on the
// board one step at a time, as a sequence of SVG frames (slides/img/build/NAME_K.svg,
// K = 0, 1, ...), each frame the one before plus one step.  The numbers in them are
// computed here by the algorithm they show, never typed.  Fonts: Liberation Sans, which
// tools/setup-slides.sh installs.  `node tools/diagrams.js [OUT_DIR]` rewrites them all.
//   scan_hillis_steele  an inclusive scan of 8 values: each step adds the value
//                       `offset` places to the left (1, 2, 4)
//   scan_shuffle        the same inside a warp: lanes' registers by __shfl_up_sync
//   multisplit          a warp ranks digits by ballots: one ballot a bit, the lanes of
//                       the same digit, each lane's rank among them
//   reduce_then_scan    stage 05.3's three kernels: counts a tile, the [digit][tile]
//                       table scanned digit-major, the runs written
//   bin_margins         stage 06's bins: equal widths, the exact thresholds, the margins
//                       where a cheap guess is sure (06.2, 06.6)
//   fusion              stage 06.5's trade: distances stored and read twice, or computed twice
//   mma_fragments       what one lane holds of an integer mma's A, B and C (stage 06.8)
//   scan_blelloch       the work-efficient exclusive scan: up-sweep, clear the root,
//                       down-sweep
//   match_any           a crowded warp ranked by atomicOr (lanes take turns) and by
//                       __match_any_sync (stage 07.6), and the tile's choice
//   lookback            decoupled look-back: a tile walks back over the tiles before it,
//                       adding their counts, until one that knows its whole prefix
'use strict';
const fs = require('fs');
const path = require('path');

const out = process.argv[2] || path.join(__dirname, '..', 'slides', 'img', 'build');
const W = 1000, FONT = 'Liberation Sans, sans-serif';
const INK = '#111', LINE = '#444', NEW = '#fdae6b', OLD = '#deebf7', DONE = '#a1d99b', WAIT = '#eeeeee';

function svg(height, title, body) {
    return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${height}" width="${W}" ` +
        `height="${height}" font-family="${FONT}">\n<title>${title}</title>\n` +
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" ' +
        `markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="${LINE}"/>` +
        `</marker></defs>\n<rect width="${W}" height="${height}" fill="white"/>\n${body}</svg>\n`;
}
function text(x, y, s, size = 20, anchor = 'middle', weight = 'normal') {
    s = String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    return `<text x="${x}" y="${y}" font-size="${size}" text-anchor="${anchor}" fill="${INK}"` +
        (weight !== 'normal' ? ` font-weight="${weight}"` : '') + `>${s}</text>\n`;
}
function box(x, y, w, h, fill, label, size = 22) {
    return `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="4" fill="${fill}" ` +
        `stroke="${LINE}" stroke-width="1.5"/>\n` + text(x + w / 2, y + h / 2 + size * 0.35, label, size);
}
function arrow(x1, y1, x2, y2) {
    return `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${LINE}" stroke-width="2" ` +
        'marker-end="url(#arrow)"/>\n';
}
function write(name, frames) {
    frames.forEach((frame, k) => fs.writeFileSync(path.join(out, `${name}_${k}.svg`), frame));
    return frames.length;
}

// a row of 8 cells: x of cell i
const CELL = 70, GAP = 20, LEFT = 200;
const cellX = (i) => LEFT + i * (CELL + GAP);
const INPUT = [3, 1, 7, 0, 4, 1, 6, 3];

// shuffle: the same steps inside a warp, lane registers read by __shfl_up_sync
function hillisSteele(shuffle) {
    const rows = [{ label: shuffle ? 'lane v' : 'input', values: INPUT.slice(), offset: 0 }];
    for (let offset = 1; offset < INPUT.length; offset *= 2) {
        const prev = rows[rows.length - 1].values;
        rows.push({ label: shuffle ? `shfl_up ${offset}` : `+ ${offset} left`, offset,
                    values: prev.map((v, i) => (i >= offset ? v + prev[i - offset] : v)) });
    }
    const rowY = (r) => 30 + r * 100, height = 30 + rows.length * 100;
    const frames = [];
    for (let shown = 1; shown <= rows.length; shown++) {
        let body = '';
        for (let r = 0; r < shown; r++) {
            const row = rows[r], y = rowY(r), newest = r === shown - 1 && r > 0;
            body += text(20, y + 32, row.label, 20, 'start', 'bold');
            row.values.forEach((v, i) => {
                const added = r > 0 && i >= row.offset;
                body += box(cellX(i), y, CELL, 44, newest && added ? NEW : r === rows.length - 1 ? DONE : OLD, v);
                if (newest && added)
                    body += arrow(cellX(i - row.offset) + CELL / 2, y - 100 + 46, cellX(i) + CELL / 2 - 4, y - 2);
            });
        }
        const steps = shown - 1;
        const who = shuffle ? 'lane' : 'thread', wait = shuffle ? 'no barrier: a register exchange' : 'each a barrier';
        body += text(W / 2, height - 12, steps === 0 ? `n values, one a ${who}` + (shuffle ? ' (drawn: 8 of 32 lanes)' : '')
            : `step ${steps}: ${who} i adds the value of ${who} i - ${rows[steps].offset}` +
              (shuffle ? ` (__shfl_up_sync(v, ${rows[steps].offset}))` : '') +
              (shown === rows.length ? ` - ${steps} steps, ${wait}` : ''), 20);
        frames.push(svg(height + 10, `${shuffle ? 'warp shuffle' : 'Hillis-Steele'} inclusive scan, ${steps} of ` +
            `${rows.length - 1} steps`, body));
    }
    return write(shuffle ? 'scan_shuffle' : 'scan_hillis_steele', frames);
}

function blelloch() {
    const n = INPUT.length, a = INPUT.slice(), rows = [{ label: 'input', values: a.slice(), changed: [] }];
    for (let d = 1; d < n; d *= 2) { // up-sweep: partial sums to the right of each pair
        const changed = [];
        for (let i = 2 * d - 1; i < n; i += 2 * d) { a[i] += a[i - d]; changed.push([i, i - d]); }
        rows.push({ label: `up ${d}`, values: a.slice(), changed });
    }
    a[n - 1] = 0;
    rows.push({ label: 'root = 0', values: a.slice(), changed: [[n - 1, -1]] });
    for (let d = n / 2; d >= 1; d /= 2) { // down-sweep: swap and add
        const changed = [];
        for (let i = 2 * d - 1; i < n; i += 2 * d) {
            const left = a[i - d];
            a[i - d] = a[i];
            a[i] += left;
            changed.push([i, i - d], [i - d, i]);
        }
        rows.push({ label: `down ${d}`, values: a.slice(), changed });
    }
    const rowY = (r) => 16 + r * 56, height = 16 + rows.length * 56 + 34;
    const frames = [];
    for (let shown = 1; shown <= rows.length; shown++) {
        let body = '';
        for (let r = 0; r < shown; r++) {
            const row = rows[r], y = rowY(r), newest = r === shown - 1 && r > 0;
            const hit = new Set(row.changed.map((c) => c[0]));
            body += text(20, y + 26, row.label, 20, 'start', 'bold');
            row.values.forEach((v, i) =>
                body += box(cellX(i), y, CELL, 36, newest && hit.has(i) ? NEW : r === rows.length - 1 ? DONE : OLD, v));
            if (newest)
                for (const [to, from] of row.changed)
                    if (from >= 0)
                        body += arrow(cellX(from) + CELL / 2, y - 19, cellX(to) + CELL / 2 + (from < to ? -4 : 4), y - 2);
        }
        const ups = Math.log2(n);
        const what = shown === 1 ? 'n values; the tree is drawn in place'
            : shown <= 1 + ups ? 'up-sweep: each pair\'s right cell takes the pair\'s sum (n - 1 additions)'
            : shown === 2 + ups ? 'the root becomes 0: the sum of nothing'
            : 'down-sweep: the left child takes the parent\'s value, the right child parent + old left' +
              (shown === rows.length ? ' - an exclusive scan' : '');
        body += text(W / 2, height - 10, what, 20);
        frames.push(svg(height + 10, `Blelloch exclusive scan, row ${shown} of ${rows.length}`, body));
    }
    return write('scan_blelloch', frames);
}

function lookback() {
    // tile b's count of one digit; tiles 0..5; tile 5 looks back
    const counts = [4, 2, 5, 3, 1, 6], me = 5;
    const state = ['P', 'A', 'P', 'A', 'A', 'X']; // what the words hold when tile 5 starts
    const prefix = [4, 0, 11, 0, 0, 0];           // inclusive prefixes known (P) so far
    prefix[2] = counts[0] + counts[1] + counts[2];
    const TW = 130, TG = 22, TL = 40, y = 90;
    const tileX = (b) => TL + b * (TW + TG);
    const word = (b, st) => st === 'X' ? 'not ready' : st === 'A' ? `A: ${counts[b]}` : `P: ${st === 'P' && b === me ? prefix[me] : prefix[b]}`;
    const fill = (st) => (st === 'X' ? WAIT : st === 'A' ? OLD : DONE);
    const frames = [];
    // frame 0: the tiles and their words; then one frame per tile read; then publish
    let before = 0, reads = [];
    for (let j = me - 1; j >= 0; j--) {
        before += state[j] === 'P' ? prefix[j] : counts[j];
        reads.push({ j, before });
        if (state[j] === 'P') break;
    }
    prefix[me] = before + counts[me];
    for (let f = 0; f <= reads.length + 1; f++) {
        let body = text(W / 2, 30, 'one digit\'s word of each tile: its count (A), or its whole prefix (P)', 20);
        for (let b = 0; b <= me; b++) {
            const st = b === me && f === reads.length + 1 ? 'P' : state[b];
            body += text(tileX(b) + TW / 2, y - 12, `tile ${b}` + (b === me ? ' (me)' : ''), 19, 'middle', b === me ? 'bold' : 'normal');
            body += box(tileX(b), y, TW, 50, fill(st), word(b, st), 20);
            body += text(tileX(b) + TW / 2, y + 78, `count ${counts[b]}`, 18);
        }
        const done = reads.slice(0, Math.min(f, reads.length));
        done.forEach((r, k) => {
            const from = k === 0 ? me : reads[k - 1].j;
            body += `<path d="M ${tileX(from) + TW / 2} ${y + 100} Q ${(tileX(from) + tileX(r.j)) / 2 + TW / 2} ${y + 150} ` +
                `${tileX(r.j) + TW / 2 + 6} ${y + 100}" fill="none" stroke="${LINE}" stroke-width="2" marker-end="url(#arrow)"/>\n`;
        });
        let what;
        if (f === 0)
            what = `tile ${me} has counted its keys (${counts[me]}); it needs the keys of this digit in tiles 0-${me - 1}`;
        else if (f <= reads.length) {
            const r = reads[f - 1];
            what = state[r.j] === 'P'
                ? `tile ${r.j} knows its whole prefix: ${r.before} keys before me - stop`
                : `tile ${r.j} holds only its count: add it (${r.before} so far), look further back`;
        } else
            what = `publish my prefix, ${before} + ${counts[me]} = ${prefix[me]}: the tiles after me stop here`;
        body += text(W / 2, y + 200, what, 20);
        frames.push(svg(y + 220, `decoupled look-back, frame ${f}`, body));
    }
    return write('lookback', frames);
}

// rows of lanes, a frame a row: the first row the lanes' digits (coloured by digit), each
// later row added in its own frame, the newest highlighted, its note under the picture
function laneRowFrames(title, digits, rows) {
    const rowY = (r) => 20 + r * 80, height = 20 + rows.length * 80 + 30;
    const colour = ['#9ecae1', '#a1d99b', '#fdae6b', '#bcbddc'];
    const laneX = (l) => 170 + l * 100; // wider than cellX: a cell may hold a lane mask
    const frames = [];
    for (let shown = 1; shown <= rows.length; shown++) {
        let body = '';
        for (let r = 0; r < shown; r++) {
            const row = rows[r], y = rowY(r);
            body += text(20, y + 29, row.label, 19, 'start', 'bold');
            row.cells.forEach((c, l) => body += box(laneX(l), y, 92, 42, r === 0 ? colour[digits[l]] :
                r === shown - 1 ? NEW : OLD, c, row.small ? 18 : 22));
            if (r === shown - 1 && row.note)
                body += text(W / 2, height - 10, row.note, 19);
        }
        frames.push(svg(height + 10, `${title}, row ${shown} of ${rows.length}`, body));
    }
    return frames;
}

// a warp ranks 2-bit digits with ballots (drawn: 8 lanes): one ballot a bit, the lanes
// that agree with this lane on every bit share its digit, and its rank is how many of
// those are below it
function multisplit() {
    const digits = [2, 0, 3, 2, 1, 0, 2, 3], lanes = digits.length, bits = 2;
    const ballot = (b) => digits.reduce((m, d, l) => m | (((d >> b) & 1) << l), 0);
    const ballots = [ballot(0), ballot(1)];
    const full = (1 << lanes) - 1;
    const same = digits.map((d) => {
        let m = full;
        for (let b = 0; b < bits; b++) m &= (d >> b) & 1 ? ballots[b] : ~ballots[b] & full;
        return m;
    });
    const popc = (m) => m.toString(2).split('').filter((c) => c === '1').length;
    const rank = same.map((m, l) => popc(m & ((1 << l) - 1)));
    const mask = (m) => Array.from({ length: lanes }, (_, l) => ((m >> l) & 1 ? '1' : '0')).join('');
    const rows = [
        { label: 'digit', note: 'each lane holds one key\'s digit (2 bits here, 8 in the sort)',
          cells: digits.map(String) },
        { label: 'ballot bit 0', note: `one word for the warp: ${mask(ballots[0])} (lane 0 first)`,
          cells: digits.map((d) => String(d & 1)) },
        { label: 'ballot bit 1', note: `one word for the warp: ${mask(ballots[1])}`,
          cells: digits.map((d) => String((d >> 1) & 1)) },
        { label: 'same digit', note: 'the ballots (or their complements) ANDed: the lanes that share my digit',
          cells: same.map(mask), small: true },
        { label: 'rank', note: 'popc(same & lanes below me): my place among my digit\'s keys',
          cells: rank.map(String) },
    ];
    return write('multisplit', laneRowFrames('warp multisplit by ballots', digits, rows));
}

// a crowded warp ranked two ways (stage 07.6): by atomicOr, the lanes of one digit take
// turns at its word; __match_any_sync hands every lane the mask of its digit's lanes in
// one instruction; the rank is the same popcount; the tile's counts say which to use
function matchAny() {
    const digits = [2, 2, 0, 2, 3, 2, 2, 0], lanes = digits.length;
    const same = digits.map((d) => digits.reduce((m, e, l) => m | ((e === d ? 1 : 0) << l), 0));
    const popc = (m) => m.toString(2).split('').filter((c) => c === '1').length;
    const below = same.map((m, l) => popc(m & ((1 << l) - 1)));
    const mask = (m) => Array.from({ length: lanes }, (_, l) => ((m >> l) & 1 ? '1' : '0')).join('');
    const counts = {};
    digits.forEach((d) => { counts[d] = (counts[d] || 0) + 1; });
    const busiest = Object.keys(counts).reduce((a, d) => (counts[d] > counts[a] ? d : a));
    const squares = Object.values(counts).reduce((t, c) => t + c * c, 0);
    const rows = [
        { label: 'digit', cells: digits.map(String),
          note: 'a crowded warp: many of its keys share one digit' },
        { label: 'atomicOr turn', cells: below.map((r) => String(r + 1)),
          note: `07.3: each lane ORs its bit into its digit's word: digit ${busiest}'s ${counts[busiest]} lanes take turns (in some order)` },
        { label: 'match_any', cells: same.map(mask), small: true,
          note: '07.6: __match_any_sync(digit) gives each lane the lanes of its digit, in one instruction' },
        { label: 'rank', cells: below.map(String),
          note: 'popc(lanes of my digit below me): the same rank either way' },
        { label: 'which way', cells: digits.map(() => 'match'),
          note: `the tile's counts decide: squared counts sum to ${squares} > ${lanes}^2 / 32: crowded, rank by match` },
    ];
    return write('match_any', laneRowFrames('a crowded warp ranked by atomicOr and by match', digits, rows));
}

// reduce-then-scan, stage 05.3's three kernels, on 16 keys of 2-bit digits in 4 tiles:
// each tile counts its digits (upsweep); the [digit][tile] table is scanned digit-major
// (scan); each tile writes its keys of digit d from the scanned entry on (downsweep)
function reduceThenScan() {
    const keys = [2, 0, 3, 1, 1, 2, 0, 2, 3, 0, 1, 1, 0, 3, 2, 2], tiles = 4, per = 4, bins = 4;
    const count = Array.from({ length: bins }, (_, d) =>
        Array.from({ length: tiles }, (_, t) => keys.slice(t * per, t * per + per).filter((k) => k === d).length));
    const start = [];
    let run = 0;
    for (let d = 0; d < bins; d++) {
        start.push([]);
        for (let t = 0; t < tiles; t++) { start[d].push(run); run += count[d][t]; }
    }
    const out = [];
    for (let d = 0; d < bins; d++) for (let t = 0; t < tiles; t++)
        keys.slice(t * per, t * per + per).forEach((k) => { if (k === d) out.push({ k, t }); });
    const colour = ['#9ecae1', '#a1d99b', '#fdae6b', '#bcbddc'];
    const KW = 40, KG = 5, TG = 26, kx = (i) => 130 + i * (KW + KG) + Math.floor(i / per) * TG;
    const ox = (i) => 130 + i * (KW + KG); /* the output: one array, no tiles */
    const TX = 300, CW = 90, cx = (t) => TX + t * (CW + 10);
    const frames = [];
    for (let f = 0; f < 4; f++) {
        let body = text(20, 45, 'keys', 19, 'start', 'bold');
        keys.forEach((k, i) => body += box(kx(i), 20, KW, 40, colour[k], k, 20));
        for (let t = 0; t < tiles; t++) body += text(kx(t * per) + (per * (KW + KG) - KG) / 2, 82, `tile ${t}`, 17);
        if (f >= 1) {
            body += text(20, 125, f === 1 ? '1. upsweep: each tile counts its digits' : '2. scan, digit-major: where each tile\'s run of d starts', 19, 'start', 'bold');
            for (let t = 0; t < tiles; t++) body += text(cx(t) + CW / 2, 160, `tile ${t}`, 17);
            for (let d = 0; d < bins; d++) {
                body += text(cx(0) - 20, 195 + d * 44, `digit ${d}`, 17, 'end');
                for (let t = 0; t < tiles; t++)
                    body += box(cx(t), 170 + d * 44, CW, 36, f >= 2 ? NEW : OLD,
                        f >= 2 ? `${start[d][t]}` : `${count[d][t]}`, 19);
            }
        }
        if (f === 3) {
            body += text(20, 375, '3. downsweep: each tile writes its runs from those places', 19, 'start', 'bold');
            out.forEach((o, i) => {
                body += box(ox(i), 390, KW, 40, colour[o.k], o.k, 20);
                body += text(ox(i) + KW / 2, 452, `t${o.t}`, 18);
            });
        }
        const what = ['16 keys, 2-bit digits, 4 tiles: where does each key go?',
            'a tile reads its keys once and writes only its counts: the [digit][tile] table',
            'one exclusive scan of the table, digit 0\'s tiles first: all of digit 0 before digit 1 ...',
            `tile 2's keys of digit 1 start at ${start[1][2]}: each key lands at its run's start + its rank in the tile`][f];
        body += text(W / 2, 490, what, 19);
        frames.push(svg(505, `reduce-then-scan, frame ${f}`, body));
    }
    return write('reduce_then_scan', frames);
}

// what one thread holds of an integer mma (m16n8k32, u8): with g = lane / 4 and
// t = lane % 4, A words (row g and g + 8; word t and 4 + t of the 32 dimensions), B words
// (query g; words t and 4 + t), C sums (reference g and g + 8; queries 2t, 2t + 1) - the
// PTX manual's fragment tables, as 06_nn_histogram/imma_layout.h writes them
function mmaFragments() {
    // drawn as the product A x B = C, side by side, so that the cells are big enough to read
    const lane = 5, g = lane >> 2, t = lane & 3, CWD = 34, RH = 23, TOP = 62;
    const A = { x: 40, y: TOP, rows: 16, cols: 8 }, C = { x: 680, y: TOP, rows: 16, cols: 8 };
    const B = { x: 360, y: TOP + 4 * RH, rows: 8, cols: 8 };
    const mine = {
        A: [[g, t, 'a0'], [g + 8, t, 'a1'], [g, 4 + t, 'a2'], [g + 8, 4 + t, 'a3']],
        B: [[t, g, 'b0'], [4 + t, g, 'b1']],
        C: [[g, 2 * t, 'c0'], [g, 2 * t + 1, 'c1'], [g + 8, 2 * t, 'c2'], [g + 8, 2 * t + 1, 'c3']],
    };
    function grid(m, name, held, what) {
        let body = '';
        const hit = new Map(held.map(([r, c, l]) => [`${r},${c}`, l]));
        for (let r = 0; r < m.rows; r++)
            for (let c = 0; c < m.cols; c++) {
                const l = hit.get(`${r},${c}`);
                body += `<rect x="${m.x + c * CWD}" y="${m.y + r * RH}" width="${CWD}" height="${RH}" ` +
                    `fill="${l ? NEW : OLD}" stroke="${LINE}" stroke-width="0.8"/>\n`;
                if (l) body += text(m.x + c * CWD + CWD / 2, m.y + r * RH + RH - 5, l, 19);
            }
        body += text(m.x + (m.cols * CWD) / 2, m.y - 12, name, 19, 'middle', 'bold');
        return body + what.map((line, k) => text(m.x + (m.cols * CWD) / 2, m.y + m.rows * RH + 26 + k * 23, line, 19)).join('');
    }
    const steps = ['A', 'B', 'C'];
    const frames = [];
    for (let f = 0; f <= steps.length; f++) {
        let body = grid(A, 'A: 16 references x 32 B', f >= 1 ? mine.A : [], ['a column: one 32-bit word']);
        body += text(B.x - 20, TOP + 8 * RH + 8, 'x', 28, 'middle', 'bold');
        body += grid(B, 'B: 32 B x 8 queries', f >= 2 ? mine.B : [], ['a row: one word']);
        body += text(C.x - 20, TOP + 8 * RH + 8, '=', 28, 'middle', 'bold');
        body += grid(C, 'C += A B: int32 sums', f >= 3 ? mine.C : [], ['16 references x 8 queries']);
        const what = [
            'one mma.sync m16n8k32 (u8): the warp multiplies A by B into C - each lane holds a piece',
            `lane ${lane} (g = lane / 4 = ${g}, t = lane % 4 = ${t}): A words of references g and g + 8, words t and 4 + t`,
            `... B words of query g: words t and 4 + t - 2 registers`,
            `... and 4 sums of C: references g and g + 8, queries 2t and 2t + 1`][f];
        body += text(W / 2, TOP + 16 * RH + 70, what, 19);
        frames.push(svg(TOP + 16 * RH + 84, `mma fragments of lane ${lane}, frame ${f}`, body));
    }
    return write('mma_fragments', frames);
}

// stage 06's bins: K equal widths of the distance between a query's nearest and
// farthest reference; the thresholds (the smallest distance of each bin) decide exactly;
// a cheap guess decides wherever it is farther than a margin from every threshold
function thresholds() {
    const K = 5, dmin = 2, dmax = 12, margin = 0.25;
    const dists = [2.0, 3.1, 4.02, 5.5, 6.05, 8.7, 9.98, 12.0];
    const bin = (d) => Math.min(K - 1, Math.floor((K * (d - dmin)) / (dmax - dmin)));
    const thr = Array.from({ length: K - 1 }, (_, j) => dmin + ((j + 1) * (dmax - dmin)) / K);
    const AX = 80, AW = 800, AY = 180, px = (d) => AX + ((d - dmin) / (dmax - dmin)) * AW;
    const colour = ['#9ecae1', '#a1d99b', '#fdae6b', '#bcbddc', '#fdd0a2'];
    const unsure = (d) => thr.some((x) => Math.abs(d - x) < margin);
    const frames = [];
    for (let f = 0; f < 4; f++) {
        let body = '';
        for (let b = 0; b < K; b++) {
            const x0 = px(dmin + (b * (dmax - dmin)) / K), x1 = px(dmin + ((b + 1) * (dmax - dmin)) / K);
            body += `<rect x="${x0}" y="${AY - 30}" width="${x1 - x0}" height="30" fill="${colour[b]}" stroke="${LINE}"/>\n`;
            body += text((x0 + x1) / 2, AY - 8, `bin ${b}`, 18);
        }
        body += arrow(AX - 10, AY + 2, AX + AW + 30, AY + 2);
        body += text(AX, AY + 28, 'nearest', 17) + text(AX + AW, AY + 28, 'farthest', 17);
        body += text(AX + AW + 40, AY + 8, 'distance', 17, 'start');
        if (f >= 1)
            thr.forEach((x, j) => {
                body += `<line x1="${px(x)}" y1="${AY - 60}" x2="${px(x)}" y2="${AY + 2}" stroke="${INK}" stroke-width="2.5"/>\n`;
                body += text(px(x), AY - 68, `x${j + 1}`, 18, 'middle', 'bold');
            });
        if (f >= 2)
            thr.forEach((x) => body += `<rect x="${px(x - margin)}" y="${AY + 40}" width="${px(x + margin) - px(x - margin)}" ` +
                `height="60" fill="#fee0d2" stroke="none"/>\n`);
        if (f >= 3)
            dists.forEach((d) => {
                const u = unsure(d);
                body += `<circle cx="${px(d)}" cy="${AY + 70}" r="9" fill="${u ? NEW : DONE}" stroke="${LINE}"/>\n`;
                body += text(px(d), AY + 115, `${bin(d)}`, 18, 'middle', u ? 'bold' : 'normal');
            });
        const what = [
            'a query\'s K bins split the distances from its nearest to its farthest reference into equal widths',
            'the thresholds: x_j, the smallest distance in bin j - comparing with them is exact, the rule itself',
            'a cheap guess of the bin is sure wherever the distance is farther than a margin from every x_j',
            'green: the guess is the bin, no lookup; orange: within a margin, compared with the thresholds'][f];
        body += text(W / 2, 340, what, 18);
        frames.push(svg(355, `bins, thresholds and margins, frame ${f}`, body));
    }
    return write('bin_margins', frames);
}

// the fusion trade-off of stage 06.5: the unfused pipeline writes the q x r distances
// and reads them twice; the fused one never stores them but computes them twice
function fusion() {
    const BW = 190, BH = 56, col = (c) => 40 + c * 240;
    const stage = (x, y, label, fill) => box(x, y, BW, BH, fill, label, 18);
    const mem = (x, y, label) => `<rect x="${x}" y="${y}" width="${BW}" height="${BH}" rx="14" ` +
        `fill="#fee0d2" stroke="${LINE}" stroke-width="1.5" stroke-dasharray="6 4"/>\n` + text(x + BW / 2, y + 35, label, 18);
    const frames = [];
    for (let f = 0; f < 3; f++) {
        let body = text(20, 40, 'unfused (06.4)', 20, 'start', 'bold');
        body += stage(col(0), 60, 'distances', OLD) + arrow(col(0) + BW, 88, col(1) - 4, 88);
        body += mem(col(1), 60, 'q x r floats') + arrow(col(1) + BW, 88, col(2) - 4, 88);
        body += stage(col(2), 60, 'min / max', OLD) + arrow(col(2) + BW, 88, col(3) - 4, 88);
        body += stage(col(3), 60, 'histogram', OLD);
        body += `<path d="M ${col(1) + BW / 2} ${60 + BH} Q ${col(2) + BW / 2} ${60 + BH + 70} ${col(3) + BW / 2} ${60 + BH + 2}" ` +
            `fill="none" stroke="${LINE}" stroke-width="2" marker-end="url(#arrow)"/>\n`;
        body += text(W / 2, 215, 'the distances go to memory once (4qr bytes) and are read twice (8qr): 12qr bytes', 18);
        if (f >= 1) {
            body += text(20, 270, 'fused (06.5)', 20, 'start', 'bold');
            body += stage(col(0), 290, 'pass 1: distances', NEW) + arrow(col(0) + BW, 318, col(1) - 4, 318);
            body += stage(col(1), 290, 'keep min / max', NEW) + arrow(col(1) + BW, 318, col(2) - 4, 318);
            body += stage(col(2), 290, 'pass 2: distances', NEW) + arrow(col(2) + BW, 318, col(3) - 4, 318);
            body += stage(col(3), 290, 'bin in shared', NEW);
            body += text(W / 2, 380, 'no distance leaves the multiprocessor: 0 bytes of them - but each is computed twice (2 x 2dqr operations)', 17);
        }
        if (f >= 2)
            body += text(W / 2, 430, 'fusion pays where the distances were bound by memory, not where the arithmetic was: measure it', 18, 'middle', 'bold');
        frames.push(svg(450, `fusion, frame ${f}`, body));
    }
    return write('fusion', frames);
}

fs.mkdirSync(out, { recursive: true });
const made = hillisSteele(false) + hillisSteele(true) + blelloch() + multisplit() + reduceThenScan() + lookback() + thresholds() + fusion() + mmaFragments() + matchAny();
console.log(`diagrams: ${made} frames in ${out}`);
