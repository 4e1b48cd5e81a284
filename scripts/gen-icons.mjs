#!/usr/bin/env node
// The MCP icons (issue #13): a PNG per icon and theme, drawn here from simple vector geometry, so that the server,
// every tool, the prompts and the resources can carry `data:` icons (VS Code ignores SVG icons and, over our Unix
// socket, loads only `data:` URIs). A dev-time script with no dependencies: plain Node ≥ 20, nothing downloaded.
//
//   node scripts/gen-icons.mjs              writes media/icons/<name>-{light,dark}.png and src/mcp/icon-data.ts
//   node scripts/gen-icons.mjs --check      writes nothing; exits 1 if any of those files differs from a fresh render
//   node scripts/gen-icons.mjs --sheet F    also writes a contact sheet (every icon, both themes, on light and dark
//                                           backgrounds, 4× and 1×) to the PNG file F, for a person to look at
//
// Deterministic to the byte on any machine: the geometry uses only + − × ÷ and √ (correctly rounded in IEEE 754; no
// Math.sin/cos/atan2, whose last bits may differ between engines), each pixel is the coverage of 8×8 sub-samples, and
// the PNGs are compressed by the small deflate encoder below rather than node:zlib, whose output may change with the
// zlib build and the CPU features it finds. (node:zlib is used only for the contact sheet, which is never compared.)
//
// A tool without an entry in ICONS gets the `tool` glyph, so a new tool needs no edit here.
//
// Style: 32×32 RGBA on a transparent background, glyphs drawn in 2 px strokes inside a 2 px margin; the light-theme
// variant is a dark glyph (#424242, for light backgrounds), the dark-theme variant a light one (#C5C5C5). The server
// icon is the msgbrowse mark of media/icon.png: a white speech bubble with three dots on a blue tile.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ICON_DIR = path.join(ROOT, 'media', 'icons');
const DATA_FILE = path.join(ROOT, 'src', 'mcp', 'icon-data.ts');

const SIZE = 32;
const SUB = 8; // sub-samples per pixel along each axis
const STROKE = 2;

const THEMES = {
  light: { ink: [0x42, 0x42, 0x42], tile: [0x2f, 0x6f, 0xeb], paper: [0xff, 0xff, 0xff] },
  dark: { ink: [0xc5, 0xc5, 0xc5], tile: [0x3b, 0x7c, 0xf0], paper: [0xff, 0xff, 0xff] },
};

// ── Signed distance functions (negative inside, in pixels at 32×32) ──────────────────────────────────────────────

const len = (x, y) => Math.sqrt(x * x + y * y);

function segDist(px, py, ax, ay, bx, by) {
  const dx = bx - ax;
  const dy = by - ay;
  const l2 = dx * dx + dy * dy;
  let t = l2 === 0 ? 0 : ((px - ax) * dx + (py - ay) * dy) / l2;
  t = t < 0 ? 0 : Math.min(t, 1);
  return len(px - ax - t * dx, py - ay - t * dy);
}

const circle = (cx, cy, r) => (x, y) => len(x - cx, y - cy) - r;

/** A rectangle from (x0, y0) to (x1, y1) with corners rounded to radius r. */
const rrect = (x0, y0, x1, y1, r) => {
  const cx = (x0 + x1) / 2;
  const cy = (y0 + y1) / 2;
  const hx = (x1 - x0) / 2 - r;
  const hy = (y1 - y0) / 2 - r;
  return (x, y) => {
    const qx = Math.abs(x - cx) - hx;
    const qy = Math.abs(y - cy) - hy;
    return len(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
  };
};

/** A line from a to b with round caps, of width w (a capsule). */
const line =
  (ax, ay, bx, by, w = STROKE) =>
  (x, y) =>
    segDist(x, y, ax, ay, bx, by) - w / 2;

/** A polyline through points [[x, y], …] of width w, with round joins and caps. */
const polyline =
  (pts, w = STROKE) =>
  (x, y) => {
    let d = Infinity;
    for (let i = 0; i + 1 < pts.length; i++)
      d = Math.min(d, segDist(x, y, pts[i][0], pts[i][1], pts[i + 1][0], pts[i + 1][1]));
    return d - w / 2;
  };

/** A closed polygon [[x, y], …] (exact distance, even-odd inside test). */
const polygon = (pts) => (x, y) => {
  let d = Infinity;
  let inside = false;
  for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
    const [ax, ay] = pts[j];
    const [bx, by] = pts[i];
    d = Math.min(d, segDist(x, y, ax, ay, bx, by));
    if (by > y !== ay > y && x < ((ax - bx) * (y - by)) / (ay - by) + bx) inside = !inside;
  }
  return inside ? -d : d;
};

/**
 * The arc of the circle (cx, cy, r) swept clockwise on screen from direction `from` to direction `to` (vectors, need
 * not be unit), stroked at width w with round caps.
 */
const arc = (cx, cy, r, from, to, w = STROKE) => {
  const n = (v) => [v[0] / len(v[0], v[1]), v[1] / len(v[0], v[1])];
  const s = n(from);
  const e = n(to);
  const cross = (a, bx, by) => a[0] * by - a[1] * bx; // > 0: (bx, by) is clockwise of a (y points down)
  const large = cross(s, e[0], e[1]) < 0;
  const sx = cx + s[0] * r;
  const sy = cy + s[1] * r;
  const ex = cx + e[0] * r;
  const ey = cy + e[1] * r;
  return (x, y) => {
    const vx = x - cx;
    const vy = y - cy;
    const afterStart = cross(s, vx, vy) >= 0;
    const beforeEnd = cross(e, vx, vy) <= 0;
    const inSector = large ? afterStart || beforeEnd : afterStart && beforeEnd;
    const d = inSector ? Math.abs(len(vx, vy) - r) : Math.min(len(x - sx, y - sy), len(x - ex, y - ey));
    return d - w / 2;
  };
};

/** A four-pointed star (a sparkle) centred on (cx, cy): points at radius R, waist at radius r. */
const sparkle = (cx, cy, R, r) =>
  polygon([
    [cx, cy - R],
    [cx + r, cy - r],
    [cx + R, cy],
    [cx + r, cy + r],
    [cx, cy + R],
    [cx - r, cy + r],
    [cx - R, cy],
    [cx - r, cy - r],
  ]);

const union =
  (...fs) =>
  (x, y) => {
    let d = Infinity;
    for (const f of fs) d = Math.min(d, f(x, y));
    return d;
  };
const intersect =
  (...fs) =>
  (x, y) => {
    let d = -Infinity;
    for (const f of fs) d = Math.max(d, f(x, y));
    return d;
  };
/** The outline of a shape, w wide, centred on its edge. */
const outline =
  (f, w = STROKE) =>
  (x, y) =>
    Math.abs(f(x, y)) - w / 2;
/** A shape grown by g on every side. */
const grow = (f, g) => (x, y) => f(x, y) - g;

/** A speech bubble: a rounded rectangle and a tail (a triangle whose base lies inside the rectangle). */
const bubble = (x0, y0, x1, y1, r, tail) => union(rrect(x0, y0, x1, y1, r), polygon(tail));

// ── The icons: layers painted in order; `ink` paints, `clear` erases (to part one shape from another) ─────────────

const ink = (f) => ({ paint: 'ink', f });
const clear = (f) => ({ paint: 'clear', f });
const paint = (colour, f) => ({ paint: colour, f });
/** Erase a gap of g px around a shape before it is drawn over another (the shape's outline must be drawn next). */
const gapAround = (f, g = 1.5) => clear(grow(f, STROKE / 2 + g));

/** A lens of radius r centred on (cx, cy) and a 3 px handle on the diagonal, its round end centred on (end, ·). */
const handleOf = (cx, cy, r, end) =>
  line(cx + (r + 0.5) * Math.SQRT1_2, cy + (r + 0.5) * Math.SQRT1_2, end, cy - cx + end, 3);
const magnifier = (cx, cy, r, end) => [ink(outline(circle(cx, cy, r))), ink(handleOf(cx, cy, r, end))];

/** An arc swept clockwise from direction `from` to `to`, with a filled arrowhead at its end pointing onward. */
const circularArrow = (cx, cy, r, from, to) => {
  const l = len(to[0], to[1]);
  const [ex, ey] = [to[0] / l, to[1] / l];
  const [tx, ty] = [-ey, ex]; // the clockwise tangent at the end
  const [px, py] = [cx + ex * r, cy + ey * r];
  const head = polygon([
    [px + 2.6 * tx, py + 2.6 * ty],
    [px + 2.6 * ex - 0.8 * tx, py + 2.6 * ey - 0.8 * ty],
    [px - 2.6 * ex - 0.8 * tx, py - 2.6 * ey - 0.8 * ty],
  ]);
  return [ink(arc(cx, cy, r, from, to)), ink(head)];
};

/** Layers drawn in a frame centred on (16, 16) whose x axis points up and to the right (45° anticlockwise). */
const rotated45 = (layers) =>
  layers.map(({ paint: p, f }) => ({
    paint: p,
    f: (x, y) => f((x - 16 - (y - 16)) * Math.SQRT1_2, (x - 16 + (y - 16)) * Math.SQRT1_2),
  }));

const ICONS = {
  // The msgbrowse mark (media/icon.png): a blue tile, a white bubble, three blue dots.
  server: [
    paint('tile', rrect(2, 2, 30, 30, 7)),
    paint(
      'paper',
      bubble(7, 8, 25, 21.5, 4.5, [
        [9, 19],
        [14.5, 19],
        [9, 26],
      ]),
    ),
    paint('tile', circle(11.5, 14.75, 1.35)),
    paint('tile', circle(16, 14.75, 1.35)),
    paint('tile', circle(20.5, 14.75, 1.35)),
  ],

  // Two overlapping speech bubbles: the conversations.
  list_conversations: (() => {
    const back = bubble(11, 3, 29, 17, 3.5, [
      [21, 14],
      [26, 14],
      [26, 21],
    ]);
    const front = bubble(3, 11, 21, 25, 3.5, [
      [6, 22],
      [11, 22],
      [6, 29],
    ]);
    return [ink(outline(back)), gapAround(front), ink(outline(front))];
  })(),

  // One speech bubble with two lines of text.
  get_conversation: [
    ink(
      outline(
        bubble(3, 4, 29, 23, 4, [
          [8, 20],
          [15, 20],
          [8, 28],
        ]),
      ),
    ),
    ink(line(9, 11, 23, 11)),
    ink(line(9, 16, 19, 16)),
  ],

  // A magnifier.
  search_messages: magnifier(13, 13, 9, 28.5),

  // A magnifier and a sparkle: search by meaning.
  semantic_search: (() => {
    const star = sparkle(24, 8, 6, 1.4);
    return [...magnifier(12, 16, 8, 24.5), clear(grow(star, 1.5)), ink(star)];
  })(),

  // A message with what comes before and after it: a bubble between an up and a down chevron.
  get_context: [
    ink(
      polyline([
        [10, 8],
        [16, 3],
        [22, 8],
      ]),
    ),
    ink(outline(rrect(4, 11, 28, 21, 3))),
    ink(line(9, 16, 23, 16)),
    ink(
      polyline([
        [10, 24],
        [16, 29],
        [22, 24],
      ]),
    ),
  ],

  // A picture: a frame, a sun and a mountain.
  list_media: (() => {
    const frame = rrect(3, 5, 29, 27, 3);
    return [
      ink(outline(frame)),
      ink(circle(21.5, 11.5, 2.5)),
      ink(
        intersect(
          polygon([
            [3, 28],
            [12, 16],
            [19, 23],
            [22, 20],
            [29, 26],
            [29, 28],
          ]),
          frame,
        ),
      ),
    ];
  })(),

  // A chain link: two open links and the bar that joins them, on the diagonal.
  list_links: rotated45([
    ink(arc(-7, 0, 6, [0, 1], [0, -1])),
    ink(line(-7, -6, -3, -6)),
    ink(line(-7, 6, -3, 6)),
    ink(arc(7, 0, 6, [0, -1], [0, 1])),
    ink(line(3, -6, 7, -6)),
    ink(line(3, 6, 7, 6)),
    ink(line(-4.5, 0, 4.5, 0)),
  ]),

  // A notebook (the journal): a spiral-bound cover with lines of writing.
  get_journal_day: [
    ink(outline(rrect(8, 3, 27, 29, 2.5))),
    ink(line(5, 9, 11, 9)),
    ink(line(5, 16, 11, 16)),
    ink(line(5, 23, 11, 23)),
    ink(line(15, 10, 22, 10)),
    ink(line(15, 15, 22, 15)),
  ],

  // A calendar page with a circular arrow: the same day in other years.
  on_this_day: [
    ink(outline(rrect(3, 5, 29, 28, 3))),
    ink(line(4, 11, 28, 11)),
    ink(line(10, 3, 10, 7)),
    ink(line(22, 3, 22, 7)),
    ...circularArrow(16, 19.75, 4.5, [1, -0.25], [0.55, -1]),
  ],

  // A person and a magnifier.
  search_contacts: (() => {
    const lens = circle(23, 22, 4.5);
    return [
      ink(outline(circle(13, 10, 5))),
      ink(arc(13, 28, 9, [-1, 0], [1, 0])),
      clear(union(grow(lens, STROKE / 2 + 1.5), grow(handleOf(23, 22, 4.5, 28.5), 1.5))),
      ...magnifier(23, 22, 4.5, 28.5),
    ];
  })(),

  // A contact card: a person and two lines.
  get_contact: (() => {
    const card = rrect(3, 6, 29, 26, 3);
    return [
      ink(outline(card)),
      ink(circle(11, 13, 2.75)),
      ink(intersect(circle(11, 23.5, 5.5), (_x, y) => y - 21.5, card)),
      ink(line(18, 13, 25, 13)),
      ink(line(18, 18, 23, 18)),
    ];
  })(),

  // Any tool without a glyph of its own above (src/mcp/icons.ts): a speech bubble with three dots.
  tool: [
    ink(
      outline(
        bubble(3, 5, 29, 23, 4, [
          [8, 20],
          [15, 20],
          [8, 28],
        ]),
      ),
    ),
    ink(circle(10.5, 14, 1.75)),
    ink(circle(16, 14, 1.75)),
    ink(circle(21.5, 14, 1.75)),
  ],

  // Prompts: two sparkles.
  prompt: [ink(sparkle(13, 18, 11, 2.6)), ink(sparkle(25, 7, 5, 1.2))],

  // Resources: a page with a folded corner and lines of text.
  resource: [
    ink(
      outline(
        polygon([
          [7, 3],
          [19, 3],
          [25, 9],
          [25, 29],
          [7, 29],
        ]),
      ),
    ),
    ink(
      polyline([
        [19, 3],
        [19, 9],
        [25, 9],
      ]),
    ),
    ink(line(11, 16, 21, 16)),
    ink(line(11, 21, 21, 21)),
  ],
};

// ── Rasterising ──────────────────────────────────────────────────────────────────────────────────────────────────

/** RGBA bytes of an icon at SIZE×SIZE: each pixel averages SUB×SUB sub-samples of the painted layers. */
function render(layers, theme) {
  const colours = THEMES[theme];
  const out = Buffer.alloc(SIZE * SIZE * 4);
  // Transparent pixels keep the icon's first colour: flat colour channels compress better.
  const base = colours[layers[0].paint] ?? colours.ink;
  for (let py = 0; py < SIZE; py++) {
    for (let px = 0; px < SIZE; px++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let n = 0;
      for (let sy = 0; sy < SUB; sy++) {
        for (let sx = 0; sx < SUB; sx++) {
          const x = px + (sx + 0.5) / SUB;
          const y = py + (sy + 0.5) / SUB;
          let c = null;
          for (const layer of layers) {
            if (layer.f(x, y) <= 0) c = layer.paint === 'clear' ? null : colours[layer.paint];
          }
          if (c) {
            r += c[0];
            g += c[1];
            b += c[2];
            n++;
          }
        }
      }
      const o = (py * SIZE + px) * 4;
      if (n === 0) {
        out[o] = base[0];
        out[o + 1] = base[1];
        out[o + 2] = base[2];
        out[o + 3] = 0;
      } else {
        out[o] = Math.round(r / n);
        out[o + 1] = Math.round(g / n);
        out[o + 2] = Math.round(b / n);
        out[o + 3] = Math.round((255 * n) / (SUB * SUB));
      }
    }
  }
  return out;
}

/** Every glyph stays inside a 2 px margin: nothing is painted in the outer two rows and columns. */
function assertMargin(name, rgba) {
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const border = x < 2 || y < 2 || x >= SIZE - 2 || y >= SIZE - 2;
      if (border && rgba[(y * SIZE + x) * 4 + 3] !== 0)
        throw new Error(`icon ${name} paints pixel (${x}, ${y}) in the 2 px margin`);
    }
  }
}

// ── PNG encoding ─────────────────────────────────────────────────────────────────────────────────────────────────

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(buf) {
  let c = 0xffffffff;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function adler32(buf) {
  let a = 1;
  let b = 0;
  for (let i = 0; i < buf.length; i++) {
    a = (a + buf[i]) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** Bits packed least-significant first, as deflate wants them. */
class BitWriter {
  bytes = [];
  acc = 0;
  n = 0;
  bits(value, count) {
    for (let i = 0; i < count; i++) this.#bit((value >>> i) & 1);
  }
  /** A Huffman code: most-significant bit first. */
  code(value, count) {
    for (let i = count - 1; i >= 0; i--) this.#bit((value >>> i) & 1);
  }
  #bit(b) {
    this.acc |= b << this.n;
    if (++this.n === 8) {
      this.bytes.push(this.acc);
      this.acc = 0;
      this.n = 0;
    }
  }
  finish() {
    if (this.n > 0) this.bytes.push(this.acc);
    return Buffer.from(this.bytes);
  }
}

const LEN_BASE = [
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
];
const LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
  8193, 12289, 16385, 24577,
];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];

/** The fixed Huffman code of a literal/length symbol (RFC 1951 §3.2.6). */
function writeSymbol(w, sym) {
  if (sym < 144) w.code(0x30 + sym, 8);
  else if (sym < 256) w.code(0x190 + sym - 144, 9);
  else if (sym < 280) w.code(sym - 256, 7);
  else w.code(0xc0 + sym - 280, 8);
}

function writeMatch(w, length, dist) {
  let i = LEN_BASE.length - 1;
  while (LEN_BASE[i] > length) i--;
  writeSymbol(w, 257 + i);
  w.bits(length - LEN_BASE[i], LEN_EXTRA[i]);
  let j = DIST_BASE.length - 1;
  while (DIST_BASE[j] > dist) j--;
  w.code(j, 5);
  w.bits(dist - DIST_BASE[j], DIST_EXTRA[j]);
}

/** A zlib stream: one deflate block with the fixed Huffman codes, LZ77 with hash chains and one-step lazy matching. */
function deflate(data) {
  const w = new BitWriter();
  w.bits(1, 1); // BFINAL
  w.bits(1, 2); // BTYPE = fixed Huffman
  const MAX_CHAIN = 1024;
  const head = new Map();
  const prev = new Int32Array(data.length).fill(-1);
  const key = (i) => data[i] | (data[i + 1] << 8) | (data[i + 2] << 16);
  const insert = (i) => {
    if (i + 2 >= data.length) return;
    const k = key(i);
    prev[i] = head.has(k) ? head.get(k) : -1;
    head.set(k, i);
  };
  const longest = (i) => {
    let best = 0;
    let bestDist = 0;
    if (i + 2 >= data.length) return [0, 0];
    const k = key(i);
    let j = head.has(k) ? head.get(k) : -1;
    const max = Math.min(258, data.length - i);
    for (let chain = 0; j >= 0 && chain < MAX_CHAIN && i - j <= 32768; chain++, j = prev[j]) {
      let l = 0;
      while (l < max && data[j + l] === data[i + l]) l++;
      if (l > best) {
        best = l;
        bestDist = i - j;
        if (l === max) break;
      }
    }
    return best >= 3 ? [best, bestDist] : [0, 0];
  };
  let i = 0;
  while (i < data.length) {
    const [l, d] = longest(i);
    if (l > 0) {
      insert(i);
      const [l2] = longest(i + 1);
      if (l2 > l) {
        writeSymbol(w, data[i]);
        i++;
        continue;
      }
      writeMatch(w, l, d);
      for (let k = 1; k < l; k++) insert(i + k);
      i += l;
    } else {
      writeSymbol(w, data[i]);
      insert(i);
      i++;
    }
  }
  writeSymbol(w, 256);
  const body = w.finish();
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(adler32(data));
  return Buffer.concat([Buffer.from([0x78, 0xda]), body, trailer]);
}

/** Each row with the PNG filter (None, Sub, Up, Average, Paeth) of least absolute sum, the usual heuristic. */
function filterRows(rgba, width, height, bpp) {
  const stride = width * bpp;
  const out = Buffer.alloc(height * (stride + 1));
  const cand = Array.from({ length: 5 }, () => Buffer.alloc(stride));
  for (let y = 0; y < height; y++) {
    const row = rgba.subarray(y * stride, (y + 1) * stride);
    const up = y > 0 ? rgba.subarray((y - 1) * stride, y * stride) : Buffer.alloc(stride);
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? row[x - bpp] : 0;
      const b = up[x];
      const c = x >= bpp ? up[x - bpp] : 0;
      const p = a + b - c;
      const pa = Math.abs(p - a);
      const pb = Math.abs(p - b);
      const pc = Math.abs(p - c);
      const paeth = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      cand[0][x] = row[x];
      cand[1][x] = (row[x] - a) & 0xff;
      cand[2][x] = (row[x] - b) & 0xff;
      cand[3][x] = (row[x] - ((a + b) >> 1)) & 0xff;
      cand[4][x] = (row[x] - paeth) & 0xff;
    }
    let best = 0;
    let bestSum = Infinity;
    for (let f = 0; f < 5; f++) {
      let s = 0;
      for (const v of cand[f]) s += v < 128 ? v : 256 - v;
      if (s < bestSum) {
        bestSum = s;
        best = f;
      }
    }
    out[y * (stride + 1)] = best;
    cand[best].copy(out, y * (stride + 1) + 1);
  }
  return out;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, crc]);
}

/** A PNG of 8-bit RGBA (colour type 6) or RGB (2) pixels; `compress` turns the filtered rows into a zlib stream. */
function encodePng(pixels, width, height, { channels = 4, compress = deflate } = {}) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = channels === 4 ? 6 : 2;
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const idat = compress(filterRows(pixels, width, height, channels));
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

// ── Outputs ──────────────────────────────────────────────────────────────────────────────────────────────────────

const fileStem = (name) => name.replaceAll('_', '-');

function build() {
  const files = new Map();
  const rendered = {};
  for (const [name, layers] of Object.entries(ICONS)) {
    rendered[name] = {};
    for (const theme of Object.keys(THEMES)) {
      const rgba = render(layers, theme);
      assertMargin(name, rgba);
      const png = encodePng(rgba, SIZE, SIZE);
      rendered[name][theme] = { rgba, png };
      files.set(path.join(ICON_DIR, `${fileStem(name)}-${theme}.png`), png);
    }
  }
  const lines = [
    '// Generated by scripts/gen-icons.mjs — do not edit. Change the script and run `node scripts/gen-icons.mjs`.',
    `// ${SIZE}×${SIZE} RGBA PNGs, base64; the same bytes as media/icons/<name>-<theme>.png (\`_\` in a name becomes \`-\`).`,
    '// Light: a dark glyph for light themes; dark: a light glyph for dark themes. Built into data: URIs by icons.ts.',
    '',
    '/** Width and height, in pixels, of every icon below. */',
    `export const ICON_SIZE = ${SIZE};`,
    '',
    '/** Every icon, by name: the server, each tool with a glyph of its own (by tool name), `tool` for the others, prompts and resources. */',
    'export const ICON_PNG_BASE64 = {',
  ];
  for (const [name, themes] of Object.entries(rendered)) {
    lines.push(`  ${name}: {`);
    for (const [theme, { png }] of Object.entries(themes)) lines.push(`    ${theme}: '${png.toString('base64')}',`);
    lines.push('  },');
  }
  lines.push('} as const;', '', 'export type IconName = keyof typeof ICON_PNG_BASE64;', '');
  files.set(DATA_FILE, Buffer.from(lines.join('\n')));
  return { files, rendered };
}

/** Every icon in both themes on a light and a dark background, 4× and 1×: a row per icon. */
function contactSheet(rendered) {
  const BGS = [
    [0xff, 0xff, 0xff],
    [0xf3, 0xf3, 0xf3],
    [0x1f, 0x1f, 0x1f],
    [0x25, 0x25, 0x26],
  ];
  const SCALE = 4;
  const PAD = 8;
  const cell = SIZE * SCALE + 2 * PAD;
  const small = SIZE + 2 * PAD;
  // columns: for each background (light, light2, dark, dark2): light icon 4×, dark icon 4×, light 1×, dark 1×
  const names = Object.keys(rendered);
  const colW = [cell, cell, small, small];
  const groupW = colW.reduce((a, b) => a + b, 0);
  const width = groupW * BGS.length;
  const height = cell * names.length;
  const px = Buffer.alloc(width * height * 3);
  const blit = (rgba, scale, ox, oy, bg) => {
    for (let y = 0; y < SIZE * scale; y++) {
      for (let x = 0; x < SIZE * scale; x++) {
        const s = (Math.floor(y / scale) * SIZE + Math.floor(x / scale)) * 4;
        const a = rgba[s + 3] / 255;
        const o = ((oy + y) * width + ox + x) * 3;
        for (let c = 0; c < 3; c++) px[o + c] = Math.round(rgba[s + c] * a + bg[c] * (1 - a));
      }
    }
  };
  names.forEach((name, row) => {
    BGS.forEach((bg, g) => {
      const gx = g * groupW;
      for (let y = row * cell; y < (row + 1) * cell; y++) {
        for (let x = gx; x < gx + groupW; x++) px.set(bg, (y * width + x) * 3);
      }
      let x = gx;
      for (const [i, theme] of ['light', 'dark', 'light', 'dark'].entries()) {
        const scale = i < 2 ? SCALE : 1;
        const oy = row * cell + (i < 2 ? PAD : (cell - SIZE) / 2);
        blit(rendered[name][theme].rgba, scale, x + PAD, oy, bg);
        x += colW[i];
      }
    });
  });
  return encodePng(px, width, height, { channels: 3, compress: (d) => zlib.deflateSync(d) });
}

const args = process.argv.slice(2);
const check = args.includes('--check');
const sheetAt = args.includes('--sheet') ? args[args.indexOf('--sheet') + 1] : undefined;
const { files, rendered } = build();

if (check) {
  const stale = [];
  for (const [file, bytes] of files) {
    if (!fs.existsSync(file) || !fs.readFileSync(file).equals(bytes)) stale.push(path.relative(ROOT, file));
  }
  const expected = new Set([...files.keys()].map((f) => path.basename(f)));
  const extra = fs.existsSync(ICON_DIR)
    ? fs.readdirSync(ICON_DIR).filter((f) => f.endsWith('.png') && !expected.has(f))
    : [];
  for (const f of extra) stale.push(`media/icons/${f} (not generated)`);
  if (stale.length) {
    console.error(
      `gen-icons --check: ${stale.length} file(s) differ from a fresh render; run \`node scripts/gen-icons.mjs\`:`,
    );
    for (const f of stale) console.error(`  ${f}`);
    process.exit(1);
  }
  console.log(`gen-icons --check: ${files.size} files up to date.`);
} else {
  fs.mkdirSync(ICON_DIR, { recursive: true });
  let total = 0;
  for (const [file, bytes] of files) {
    fs.writeFileSync(file, bytes);
    total += bytes.length;
  }
  console.log(`gen-icons: wrote ${files.size} files (${total} bytes) to media/icons/ and src/mcp/icon-data.ts.`);
}
if (sheetAt) {
  fs.writeFileSync(path.resolve(sheetAt), contactSheet(rendered));
  console.log(`gen-icons: contact sheet at ${sheetAt}`);
}
