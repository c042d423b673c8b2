// Tool payloads: canonical JSON, canonical input bytes and both input fingerprints
// (docs/spec/canonical.md, rules CJ-22..CJ-29).

import { blake3Hex } from './blake3.mjs';
import { lengthPrefixed, u64be, utf8 } from './bytes.mjs';
import { DriverError, serialization } from './errors.mjs';
import { JsonObject, canonicalJson, decodeUtf8, maxDepth, parseJson } from './json.mjs';

const MAX_PARSE_NESTING = 127;
const MAX_PAYLOAD_DEPTH = 32;
const WORKER_INPUT_TAG = utf8('splash-worker-operation-input-v1');
const HOST_INPUT_TAG = utf8('splash-workflow-operation-input-v1');

/** Parse payload text as splash-v5 JSON (numbers kept as text, the reserved number key read). */
export function parsePayloadJson(text) {
  return parseJson(text, { maxNesting: MAX_PARSE_NESTING, reservedNumberKey: true });
}

/** Canonical JSON of a parsed payload after the envelope and depth checks (CJ-22, CJ-23). */
export function checkedCanonicalJson(value) {
  if (!Array.isArray(value) && !(value instanceof JsonObject)) {
    throw new DriverError('invalid_json_envelope');
  }
  if (maxDepth(value) > MAX_PAYLOAD_DEPTH) throw new DriverError('json_payload_too_deep');
  return canonicalJson(value);
}

/** `format`, the body length, then the body (CJ-25, CJ-26). */
export const canonicalInputBytes = (format, body) => Buffer.concat([utf8(format), lengthPrefixed(body)]);

export const workerInputFingerprint = (input) => blake3Hex(WORKER_INPUT_TAG, input);

export const hostInputFingerprint = (input) => blake3Hex(HOST_INPUT_TAG, u64be(input.length), input);

/** The `canonical.input` operation. */
export function canonicalInput(args) {
  if (args.profile !== undefined && args.profile !== 'splash-v5') {
    throw new DriverError('unsupported_profile');
  }
  const raw = args.hex !== undefined ? Buffer.from(args.hex, 'hex') : utf8(args.text);
  const text = decodeUtf8(raw);
  let body;
  const result = {};
  if (args.format === 'json') {
    const json = checkedCanonicalJson(parsePayloadJson(text));
    result.canonicalJson = json;
    body = utf8(json);
  } else if (args.format === 'text') {
    body = raw;
  } else {
    throw serialization('unknown_format');
  }
  if (args.maxInputBytes !== undefined && body.length > Number(args.maxInputBytes.text)) {
    throw new DriverError('input_too_large', { actual: body.length, maximum: Number(args.maxInputBytes.text) });
  }
  const input = canonicalInputBytes(args.format, body);
  return {
    ...result,
    canonicalInputHex: input.toString('hex'),
    size: body.length,
    workerInputFingerprint: workerInputFingerprint(input),
    hostInputFingerprint: hostInputFingerprint(input),
  };
}
