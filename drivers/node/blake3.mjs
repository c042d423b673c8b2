// BLAKE3 (unkeyed hash mode, 32-byte output), written from the public BLAKE3
// specification because Node's standard library has no BLAKE3. The whole message is
// in memory, so this is a one-shot hash: chunk chaining values are merged on a stack
// exactly as the specification's incremental hasher does.

const IV = Uint32Array.of(
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
);
const PERMUTATION = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];
const CHUNK_START = 1;
const CHUNK_END = 2;
const PARENT = 4;
const ROOT = 8;
const BLOCK_LEN = 64;
const CHUNK_LEN = 1024;

// The message schedule of each of the 7 rounds, precomputed once.
const SCHEDULE = (() => {
  const rounds = [];
  let order = Array.from({ length: 16 }, (_, i) => i);
  for (let round = 0; round < 7; round += 1) {
    rounds.push(order);
    order = PERMUTATION.map((i) => order[i]);
  }
  return rounds;
})();

const rotr = (x, n) => (x >>> n) | (x << (32 - n));

function mix(s, a, b, c, d, x, y) {
  s[a] = (s[a] + s[b] + x) | 0;
  s[d] = rotr(s[d] ^ s[a], 16);
  s[c] = (s[c] + s[d]) | 0;
  s[b] = rotr(s[b] ^ s[c], 12);
  s[a] = (s[a] + s[b] + y) | 0;
  s[d] = rotr(s[d] ^ s[a], 8);
  s[c] = (s[c] + s[d]) | 0;
  s[b] = rotr(s[b] ^ s[c], 7);
}

const state = new Uint32Array(16);

// Returns the first 8 output words: all this hasher ever needs (chaining values and a
// 32-byte root output).
function compress(cv, block, counter, blockLen, flags) {
  state.set(cv, 0);
  state.set(IV.subarray(0, 4), 8);
  state[12] = counter % 0x100000000;
  state[13] = Math.floor(counter / 0x100000000);
  state[14] = blockLen;
  state[15] = flags;
  for (const m of SCHEDULE) {
    mix(state, 0, 4, 8, 12, block[m[0]], block[m[1]]);
    mix(state, 1, 5, 9, 13, block[m[2]], block[m[3]]);
    mix(state, 2, 6, 10, 14, block[m[4]], block[m[5]]);
    mix(state, 3, 7, 11, 15, block[m[6]], block[m[7]]);
    mix(state, 0, 5, 10, 15, block[m[8]], block[m[9]]);
    mix(state, 1, 6, 11, 12, block[m[10]], block[m[11]]);
    mix(state, 2, 7, 8, 13, block[m[12]], block[m[13]]);
    mix(state, 3, 4, 9, 14, block[m[14]], block[m[15]]);
  }
  const out = new Uint32Array(8);
  for (let i = 0; i < 8; i += 1) out[i] = state[i] ^ state[i + 8];
  return out;
}

function blockWords(bytes, offset, length) {
  const padded = new Uint8Array(BLOCK_LEN);
  padded.set(bytes.subarray(offset, offset + length));
  const view = new DataView(padded.buffer);
  const words = new Uint32Array(16);
  for (let i = 0; i < 16; i += 1) words[i] = view.getUint32(i * 4, true);
  return words;
}

// A deferred compression: the last one of the tree is run with ROOT added.
function chunkOutput(bytes, start, end, chunkIndex) {
  let cv = IV;
  let offset = start;
  let flags = CHUNK_START;
  // Every block but the last updates the chaining value; an empty chunk has one empty block.
  while (end - offset > BLOCK_LEN) {
    cv = compress(cv, blockWords(bytes, offset, BLOCK_LEN), chunkIndex, BLOCK_LEN, flags);
    offset += BLOCK_LEN;
    flags = 0;
  }
  const length = end - offset;
  return {
    cv,
    block: blockWords(bytes, offset, length),
    counter: chunkIndex,
    blockLen: length,
    flags: flags | CHUNK_END,
  };
}

function parentOutput(left, right) {
  const block = new Uint32Array(16);
  block.set(left, 0);
  block.set(right, 8);
  return { cv: IV, block, counter: 0, blockLen: BLOCK_LEN, flags: PARENT };
}

const chainingValue = (o) => compress(o.cv, o.block, o.counter, o.blockLen, o.flags);

/** BLAKE3 of `bytes` (a Uint8Array) as 32 bytes. */
export function blake3(bytes) {
  const chunkCount = Math.max(1, Math.ceil(bytes.length / CHUNK_LEN));
  const stack = [];
  for (let index = 0; index < chunkCount - 1; index += 1) {
    let cv = chainingValue(chunkOutput(bytes, index * CHUNK_LEN, (index + 1) * CHUNK_LEN, index));
    // Merge completed subtrees: one merge per trailing zero bit of the chunk count so far.
    let total = index + 1;
    while ((total & 1) === 0) {
      cv = chainingValue(parentOutput(stack.pop(), cv));
      total >>>= 1;
    }
    stack.push(cv);
  }
  const last = chunkCount - 1;
  let output = chunkOutput(bytes, last * CHUNK_LEN, bytes.length, last);
  while (stack.length > 0) output = parentOutput(stack.pop(), chainingValue(output));
  const words = compress(output.cv, output.block, output.counter, output.blockLen, output.flags | ROOT);
  const digest = new Uint8Array(32);
  const view = new DataView(digest.buffer);
  for (let i = 0; i < 8; i += 1) view.setUint32(i * 4, words[i], true);
  return digest;
}

/** Lowercase hex BLAKE3 of the concatenation of `parts` (Uint8Arrays). */
export function blake3Hex(...parts) {
  return Buffer.from(blake3(Buffer.concat(parts))).toString('hex');
}
