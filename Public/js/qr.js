// A small QR code encoder (ISO/IEC 18004): byte mode, error correction level M, versions 1 to 10 (up to 213 bytes of
// UTF-8), enough for a patient link. `qrMatrix` makes the modules; `drawQR` draws them on a canvas with the quiet
// zone. No outside library: the page draws the code itself, so the link never leaves the browser.

// Per version: [error-correction codewords per block, [blocks, data codewords per block]…] at level M.
const BLOCKS = [null,
  [10, [1, 16]], [16, [1, 28]], [26, [1, 44]], [18, [2, 32]], [24, [2, 43]],
  [16, [4, 27]], [18, [4, 31]], [22, [2, 38], [2, 39]], [22, [3, 36], [2, 37]], [26, [4, 43], [1, 44]]];
const ALIGNMENT = [null, [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46],
  [6, 28, 50]];
export const MAX_VERSION = 10;

// ---- Reed–Solomon over GF(256), polynomial x⁸+x⁴+x³+x²+1 ------------------------------------------------------

const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
for (let i = 0, x = 1; i < 255; i++) {
  EXP[i] = x;
  LOG[x] = i;
  x <<= 1;
  if (x & 0x100) x ^= 0x11d;
}
for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255];
const mul = (a, b) => (a && b ? EXP[LOG[a] + LOG[b]] : 0);

/** The `degree` error-correction codewords of `data`. */
function reedSolomon(data, degree) {
  // The generator (x − α⁰)(x − α¹)…(x − α^(degree−1)), highest coefficient (1) left out.
  let gen = [1];
  for (let i = 0; i < degree; i++) {
    const next = new Array(gen.length + 1).fill(0);
    for (let j = 0; j < gen.length; j++) {
      next[j] ^= gen[j];
      next[j + 1] ^= mul(gen[j], EXP[i]);
    }
    gen = next;
  }
  const rest = new Array(degree).fill(0);
  for (const byte of data) {
    const factor = byte ^ rest.shift();
    rest.push(0);
    for (let j = 0; j < degree; j++) rest[j] ^= mul(gen[j + 1], factor);
  }
  return rest;
}

// ---- Data codewords -----------------------------------------------------------------------------------------------

const dataCapacity = (version) => BLOCKS[version].slice(1).reduce((n, [count, size]) => n + count * size, 0);

/** The data and error-correction codewords of `bytes` in `version`, interleaved as they are placed. */
function codewords(bytes, version) {
  const capacity = dataCapacity(version);
  const bits = [];
  const put = (value, length) => { for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1); };
  put(0b0100, 4); // byte mode
  put(bytes.length, version < 10 ? 8 : 16);
  for (const b of bytes) put(b, 8);
  put(0, Math.min(4, capacity * 8 - bits.length));
  while (bits.length % 8) bits.push(0);
  const data = [];
  for (let i = 0; i < bits.length; i += 8) data.push(bits.slice(i, i + 8).reduce((v, b) => (v << 1) | b, 0));
  for (let pad = 0xec; data.length < capacity; pad ^= 0xec ^ 0x11) data.push(pad);
  const [ecLength, ...groups] = BLOCKS[version];
  const blocks = [];
  let at = 0;
  for (const [count, size] of groups) {
    for (let i = 0; i < count; i++, at += size) {
      const block = data.slice(at, at + size);
      blocks.push({ data: block, ec: reedSolomon(block, ecLength) });
    }
  }
  const out = [];
  const longest = Math.max(...blocks.map((b) => b.data.length));
  for (let i = 0; i < longest; i++) for (const b of blocks) if (i < b.data.length) out.push(b.data[i]);
  for (let i = 0; i < ecLength; i++) for (const b of blocks) out.push(b.ec[i]);
  return out;
}

// ---- The matrix ---------------------------------------------------------------------------------------------------

/** BCH remainder of `value` by `poly` (`bits`: the remainder's length). */
function bch(value, poly, bits) {
  const degree = Math.floor(Math.log2(poly));
  let v = value << degree;
  for (let i = Math.floor(Math.log2(v || 1)); i >= degree; i--) if ((v >>> i) & 1) v ^= poly << (i - degree);
  return v & ((1 << bits) - 1);
}

const MASKS = [
  (x, y) => (x + y) % 2 === 0, (x, y) => y % 2 === 0, (x) => x % 3 === 0, (x, y) => (x + y) % 3 === 0,
  (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0, (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
  (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0, (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
];

function build(version, words, mask) {
  const size = 17 + 4 * version;
  const dark = Array.from({ length: size }, () => new Array(size).fill(false));
  const fixed = Array.from({ length: size }, () => new Array(size).fill(false));
  const set = (x, y, on) => { dark[y][x] = on; fixed[y][x] = true; };
  // Finder patterns with their separators.
  for (const [cx, cy] of [[3, 3], [size - 4, 3], [3, size - 4]]) {
    for (let dy = -4; dy <= 4; dy++) {
      for (let dx = -4; dx <= 4; dx++) {
        const x = cx + dx, y = cy + dy;
        if (x < 0 || y < 0 || x >= size || y >= size) continue;
        const d = Math.max(Math.abs(dx), Math.abs(dy));
        set(x, y, d !== 2 && d !== 4);
      }
    }
  }
  // Timing patterns.
  for (let i = 8; i < size - 8; i++) { set(6, i, i % 2 === 0); set(i, 6, i % 2 === 0); }
  // Alignment patterns, except where they would cover a finder.
  const at = ALIGNMENT[version];
  for (const ay of at) {
    for (const ax of at) {
      if ((ax === 6 && ay === 6) || (ax === 6 && ay === at.at(-1)) || (ax === at.at(-1) && ay === 6)) continue;
      for (let dy = -2; dy <= 2; dy++) {
        for (let dx = -2; dx <= 2; dx++) set(ax + dx, ay + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
      }
    }
  }
  // Format information (level M = 00, then the mask), and the dark module.
  const format = ((mask << 10) | bch(mask, 0x537, 10)) ^ 0x5412;
  const bit = (v, i) => ((v >>> i) & 1) === 1;
  for (let i = 0; i <= 5; i++) set(8, i, bit(format, i));
  set(8, 7, bit(format, 6));
  set(8, 8, bit(format, 7));
  set(7, 8, bit(format, 8));
  for (let i = 9; i < 15; i++) set(14 - i, 8, bit(format, i));
  for (let i = 0; i < 8; i++) set(size - 1 - i, 8, bit(format, i));
  for (let i = 8; i < 15; i++) set(8, size - 15 + i, bit(format, i));
  set(8, size - 8, true);
  // Version information (7 and up).
  if (version >= 7) {
    const info = (version << 12) | bch(version, 0x1f25, 12);
    for (let i = 0; i < 18; i++) {
      const a = size - 11 + (i % 3), b = Math.floor(i / 3);
      set(a, b, bit(info, i));
      set(b, a, bit(info, i));
    }
  }
  // The codewords, two columns at a time from the right, up and down in turn, masked.
  let i = 0;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    for (let vert = 0; vert < size; vert++) {
      for (let j = 0; j < 2; j++) {
        const x = right - j;
        const y = ((right + 1) & 2) === 0 ? size - 1 - vert : vert;
        if (fixed[y][x]) continue;
        const on = i < words.length * 8 && bit(words[i >> 3], 7 - (i & 7));
        i++;
        dark[y][x] = on !== MASKS[mask](x, y);
      }
    }
  }
  return dark;
}

/** The penalty of a matrix (the standard's four rules), to choose the mask. */
function penalty(m) {
  const size = m.length;
  let score = 0;
  const lines = [...m, ...m.map((_, x) => m.map((row) => row[x]))];
  for (const line of lines) {
    let run = 1;
    for (let i = 1; i <= size; i++) {
      if (i < size && line[i] === line[i - 1]) run++;
      else { if (run >= 5) score += run - 2; run = 1; }
    }
    const text = line.map((d) => (d ? '1' : '0')).join('');
    for (const pattern of ['10111010000', '00001011101']) {
      for (let k = text.indexOf(pattern); k >= 0; k = text.indexOf(pattern, k + 1)) score += 40;
    }
  }
  for (let y = 0; y < size - 1; y++) {
    for (let x = 0; x < size - 1; x++) {
      const c = m[y][x];
      if (c === m[y][x + 1] && c === m[y + 1][x] && c === m[y + 1][x + 1]) score += 3;
    }
  }
  const darkCount = m.reduce((n, row) => n + row.filter(Boolean).length, 0);
  score += Math.floor(Math.abs(darkCount * 20 - size * size * 10) / (size * size)) * 10;
  return score;
}

/**
 * The modules of `text` (UTF-8, byte mode, level M) as rows of booleans (true: dark), in the smallest version that
 * holds it; `mask` 0…7 forces a mask, else the one of least penalty. Throws a RangeError past version 10.
 */
export function qrMatrix(text, { mask, version: wanted } = {}) {
  const bytes = new TextEncoder().encode(text);
  let version = wanted ?? 1;
  const fits = (v) => 4 + (v < 10 ? 8 : 16) + bytes.length * 8 <= dataCapacity(v) * 8;
  while (version <= MAX_VERSION && !fits(version)) {
    if (wanted) break;
    version++;
  }
  if (version > MAX_VERSION || !fits(version)) throw new RangeError(`too long for a version ${MAX_VERSION} QR code`);
  const words = codewords(bytes, version);
  if (mask != null) return build(version, words, mask);
  let best = null, bestScore = Infinity;
  for (let k = 0; k < 8; k++) {
    const m = build(version, words, k);
    const score = penalty(m);
    if (score < bestScore) { best = m; bestScore = score; }
  }
  return best;
}

/** Draws `text` as a QR code on `canvas` (black on white, a quiet zone of 4 modules, `scale` pixels a module). */
export function drawQR(canvas, text, { scale = 6 } = {}) {
  const m = qrMatrix(text);
  const size = (m.length + 8) * scale;
  canvas.width = size;
  canvas.height = size;
  const g = canvas.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, size, size);
  g.fillStyle = '#000';
  m.forEach((row, y) => row.forEach((on, x) => { if (on) g.fillRect((x + 4) * scale, (y + 4) * scale, scale, scale); }));
  canvas.dataset.modules = String(m.length);
  return m;
}
