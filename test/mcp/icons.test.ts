/**
 * The MCP icons (src/mcp/icons.ts): every tool, the server, prompts and resources carry a light and a dark PNG `data:`
 * icon; each decodes to a well-formed 32×32 RGBA PNG with a transparent margin; and the committed bytes (icon-data.ts,
 * media/icons/) are what scripts/gen-icons.mjs renders, so the generator, not a hand edit, owns them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { ICON_PNG_BASE64, ICON_SIZE } from '../../src/mcp/icon-data';
import { PROMPT_ICONS, RESOURCE_ICONS, SERVER_ICONS, TOOL_ICON_NAMES, toolIcons, type Icon } from '../../src/mcp/icons';
import { EXPECTED_TOOLS } from './expected-tools';

const ROOT = path.resolve(__dirname, '..', '..');
const SCRIPT = path.join(ROOT, 'scripts', 'gen-icons.mjs');

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

interface Png {
  width: number;
  height: number;
  /** RGBA, row-major, unfiltered. */
  pixels: Buffer;
}

/** Decodes an 8-bit RGBA, non-interlaced PNG, asserting every structural rule on the way. */
function decodePng(bytes: Buffer, label: string): Png {
  assert.deepEqual(
    [...bytes.subarray(0, 8)],
    [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    `${label}: PNG signature`,
  );
  const chunks: { type: string; data: Buffer }[] = [];
  let o = 8;
  while (o < bytes.length) {
    assert.ok(o + 12 <= bytes.length, `${label}: truncated chunk at ${o}`);
    const length = bytes.readUInt32BE(o);
    const type = bytes.toString('latin1', o + 4, o + 8);
    const data = bytes.subarray(o + 8, o + 8 + length);
    assert.equal(
      bytes.readUInt32BE(o + 8 + length),
      crc32(bytes.subarray(o + 4, o + 8 + length)),
      `${label}: CRC of ${type}`,
    );
    chunks.push({ type, data });
    o += 12 + length;
  }
  assert.equal(o, bytes.length, `${label}: nothing after the last chunk`);
  assert.equal(chunks[0].type, 'IHDR', `${label}: IHDR first`);
  assert.equal(chunks.at(-1)!.type, 'IEND', `${label}: IEND last`);
  assert.equal(chunks.at(-1)!.data.length, 0, `${label}: empty IEND`);
  const ihdr = chunks[0].data;
  assert.equal(ihdr.length, 13, `${label}: IHDR length`);
  const width = ihdr.readUInt32BE(0);
  const height = ihdr.readUInt32BE(4);
  // bit depth 8, colour type 6 (RGBA), compression 0, filter method 0, no interlace
  assert.deepEqual([...ihdr.subarray(8)], [8, 6, 0, 0, 0], `${label}: 8-bit RGBA, not interlaced`);
  const raw = zlib.inflateSync(Buffer.concat(chunks.filter((c) => c.type === 'IDAT').map((c) => c.data)));
  const stride = width * 4;
  assert.equal(raw.length, height * (stride + 1), `${label}: IDAT inflates to height × (1 + 4 × width) bytes`);
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    assert.ok(filter <= 4, `${label}: row ${y} filter type ${filter}`);
    for (let x = 0; x < stride; x++) {
      const v = raw[y * (stride + 1) + 1 + x];
      const a = x >= 4 ? pixels[y * stride + x - 4] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const c = x >= 4 && y > 0 ? pixels[(y - 1) * stride + x - 4] : 0;
      const p = a + b - c;
      const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
      const predictor = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][filter];
      pixels[y * stride + x] = (v + predictor) & 0xff;
    }
  }
  return { width, height, pixels };
}

function bytesOf(icon: Icon): Buffer {
  const prefix = 'data:image/png;base64,';
  assert.ok(icon.src.startsWith(prefix), `a PNG data: URI, not ${icon.src.slice(0, 40)}`);
  const b64 = icon.src.slice(prefix.length);
  assert.match(b64, /^[A-Za-z0-9+/]+={0,2}$/, 'plain base64');
  return Buffer.from(b64, 'base64');
}

const alphaAt = (png: Png, x: number, y: number) => png.pixels[(y * png.width + x) * 4 + 3];

const ALL: [string, Icon[]][] = [
  ['server', SERVER_ICONS],
  ['prompts', PROMPT_ICONS],
  ['resources', RESOURCE_ICONS],
  ...EXPECTED_TOOLS.map((t): [string, Icon[]] => [`tool ${t}`, toolIcons(t)]),
];

describe('MCP icons', () => {
  it('every tool has icons, and no icon is for a tool that does not exist', () => {
    assert.deepEqual([...TOOL_ICON_NAMES].sort(), [...EXPECTED_TOOLS].sort());
    assert.throws(() => toolIcons('no_such_tool'), /no MCP icons for tool "no_such_tool"/);
  });

  for (const [what, icons] of ALL) {
    it(`${what}: a light and a dark 32×32 PNG data: icon, well-formed, each a glyph inside a transparent margin`, () => {
      assert.deepEqual(
        icons.map((i) => i.theme),
        ['light', 'dark'],
      );
      const decoded = icons.map((icon) => {
        const label = `${what} (${icon.theme})`;
        assert.equal(icon.mimeType, 'image/png');
        assert.deepEqual(icon.sizes, [`${ICON_SIZE}x${ICON_SIZE}`]);
        const bytes = bytesOf(icon);
        assert.ok(bytes.length < 2048, `${label}: ${bytes.length} bytes, under 2 KB`);
        const png = decodePng(bytes, label);
        const [w, h] = icon.sizes[0].split('x').map(Number);
        assert.equal(png.width, w, `${label}: width as in sizes`);
        assert.equal(png.height, h, `${label}: height as in sizes`);
        let opaque = 0;
        for (let y = 0; y < png.height; y++) {
          for (let x = 0; x < png.width; x++) {
            const a = alphaAt(png, x, y);
            if (a === 255) opaque++;
            const margin = x < 2 || y < 2 || x >= png.width - 2 || y >= png.height - 2;
            if (margin) assert.equal(a, 0, `${label}: pixel (${x}, ${y}) in the 2 px margin is transparent`);
          }
        }
        assert.ok(opaque >= 20, `${label}: a glyph (${opaque} opaque pixels)`);
        return png;
      });
      assert.notEqual(icons[0].src, icons[1].src, `${what}: light and dark differ`);
      assert.ok(!decoded[0].pixels.equals(decoded[1].pixels), `${what}: light and dark pixels differ`);
    });
  }

  it('a tool icon is dark for light themes and light for dark themes', () => {
    for (const tool of EXPECTED_TOOLS) {
      const [light, dark] = toolIcons(tool).map((i) => decodePng(bytesOf(i), tool));
      const luma = (png: Png) => {
        // the mean luma of the opaque pixels
        let sum = 0;
        let n = 0;
        for (let i = 0; i < png.pixels.length; i += 4) {
          if (png.pixels[i + 3] !== 255) continue;
          sum += 0.299 * png.pixels[i] + 0.587 * png.pixels[i + 1] + 0.114 * png.pixels[i + 2];
          n++;
        }
        return sum / n;
      };
      assert.ok(luma(light) < 100, `${tool}: light-theme glyph is dark`);
      assert.ok(luma(dark) > 160, `${tool}: dark-theme glyph is light`);
    }
  });

  it('the icons are the same objects each time and cannot be changed', () => {
    assert.equal(toolIcons('search_messages'), toolIcons('search_messages'));
    assert.ok(
      Object.isFrozen(SERVER_ICONS) && Object.isFrozen(SERVER_ICONS[0]) && Object.isFrozen(SERVER_ICONS[0].sizes),
    );
  });

  it('media/icons/ holds the same bytes as icon-data.ts', () => {
    const names = Object.keys(ICON_PNG_BASE64) as (keyof typeof ICON_PNG_BASE64)[];
    const expected = names.flatMap((n) => ['light', 'dark'].map((t) => `${n.replaceAll('_', '-')}-${t}.png`)).sort();
    assert.deepEqual(fs.readdirSync(path.join(ROOT, 'media', 'icons')).sort(), expected);
    for (const n of names) {
      for (const t of ['light', 'dark'] as const) {
        const file = path.join(ROOT, 'media', 'icons', `${n.replaceAll('_', '-')}-${t}.png`);
        assert.ok(
          fs.readFileSync(file).equals(Buffer.from(ICON_PNG_BASE64[n][t], 'base64')),
          `${file} matches icon-data.ts`,
        );
      }
    }
  });

  it('scripts/gen-icons.mjs --check: the committed icons are what the generator renders', () => {
    const r = spawnSync(process.execPath, [SCRIPT, '--check'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, `gen-icons --check failed:\n${r.stdout}${r.stderr}`);
  });

  it('scripts/gen-icons.mjs renders the same bytes from scratch, and --check catches a changed byte', () => {
    // A copy of the script in an empty tree writes its outputs there, never into the repository.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-icons-'));
    try {
      fs.mkdirSync(path.join(dir, 'scripts'));
      fs.mkdirSync(path.join(dir, 'src', 'mcp'), { recursive: true });
      fs.copyFileSync(SCRIPT, path.join(dir, 'scripts', 'gen-icons.mjs'));
      const gen = (...args: string[]) =>
        spawnSync(process.execPath, [path.join(dir, 'scripts', 'gen-icons.mjs'), ...args], { encoding: 'utf8' });
      const first = gen();
      assert.equal(first.status, 0, first.stderr);
      const data = path.join('src', 'mcp', 'icon-data.ts');
      assert.equal(
        fs.readFileSync(path.join(dir, data), 'utf8'),
        fs.readFileSync(path.join(ROOT, data), 'utf8'),
        'icon-data.ts rendered afresh',
      );
      for (const f of fs.readdirSync(path.join(ROOT, 'media', 'icons'))) {
        assert.ok(
          fs
            .readFileSync(path.join(dir, 'media', 'icons', f))
            .equals(fs.readFileSync(path.join(ROOT, 'media', 'icons', f))),
          f,
        );
      }
      const victim = path.join(dir, 'media', 'icons', 'get-contact-dark.png');
      const bytes = fs.readFileSync(victim);
      bytes[bytes.length - 20] ^= 1;
      fs.writeFileSync(victim, bytes);
      const check = gen('--check');
      assert.equal(check.status, 1, 'a changed byte fails --check');
      assert.match(check.stderr, /media[\\/]icons[\\/]get-contact-dark\.png/);
      assert.ok(fs.readFileSync(victim).equals(bytes), '--check writes nothing');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
