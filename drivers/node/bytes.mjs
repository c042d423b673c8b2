// Byte-string helpers shared by the digest recipes (docs/spec/host-keys.md HK-1).

export const utf8 = (text) => Buffer.from(text, 'utf8');

/** The 8-byte big-endian form of a length. */
export function u64be(n) {
  const out = Buffer.alloc(8);
  out.writeBigUInt64BE(BigInt(n));
  return out;
}

/** A length prefix followed by the bytes. */
export const lengthPrefixed = (bytes) => Buffer.concat([u64be(bytes.length), bytes]);
