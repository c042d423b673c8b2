// Host-side derivations: plan fingerprint, canonical input, host input fingerprint,
// op- and cmp- keys (docs/spec/host-keys.md, rules HK-1..HK-10).

import { blake3Hex } from './blake3.mjs';
import { lengthPrefixed, u64be, utf8 } from './bytes.mjs';
import { canonicalInputBytes, hostInputFingerprint, parsePayloadJson } from './canonical.mjs';
import { DriverError } from './errors.mjs';
import { fields, integer } from './fields.mjs';
import { canonicalJson, decodeUtf8, writeJson } from './json.mjs';
import { isToken } from './tokens.mjs';

const PLAN_TAG = utf8('splash-workflow-plan-v1');
const OPERATION_KEY_TAG = utf8('splash-workflow-operation-key-v1');
const COMPENSATION_KEY_TAG = utf8('splash-workflow-compensation-key-v1');
const MAX_STEPS = 1024;
const MAX_SOURCE_BYTES = 1048576;
const MAX_INPUT_BYTES = 262144;
const MAX_NONCE_BYTES = 128;
const MAX_EXPANSION_BYTES = 2 * 1048576;

/** A byte string argument: a UTF-8 string, `{"hex": ...}` or `{"repeat": text, "count": n}`. */
function byteString(value) {
  if (typeof value === 'string') return utf8(value);
  const spec = fields(value);
  if (spec.hex !== undefined) return Buffer.from(spec.hex, 'hex');
  const unit = utf8(spec.repeat);
  const count = integer(spec.count);
  // Bounded before allocation (docs/bounds.md): twice the 1 MiB frame cap.
  if (!Number.isSafeInteger(count) || count < 0 || count * Math.max(unit.length, 1) > MAX_EXPANSION_BYTES) {
    throw new DriverError('bad_request');
  }
  return utf8(spec.repeat.repeat(count));
}

/**
 * An input argument: a tool payload `{format, value}` (its canonical input bytes) or raw
 * bytes. A JSON value is written out in member order and read again as payload text, so
 * the reserved number key and the nesting limit apply as they do to any payload.
 */
function inputBytes(value) {
  const spec = fields(value);
  if (spec.format === undefined) return byteString(value);
  if (spec.format === 'json') {
    const json = canonicalJson(parsePayloadJson(writeJson(spec.value)));
    return canonicalInputBytes('json', utf8(json));
  }
  const text = typeof spec.value === 'string' ? utf8(spec.value) : byteString(spec.value);
  return canonicalInputBytes('text', utf8(decodeUtf8(text)));
}

// HK-3, in upstream's order: step count, total source bytes, then each step in plan order
// (its id grammar, then whether the id repeats).
function validatedPlan(stepsValue) {
  const steps = stepsValue.map(([id, source]) => ({ id, source: byteString(source) }));
  const sourceBytes = steps.reduce((total, step) => total + step.source.length, 0);
  if (steps.length < 1 || steps.length > MAX_STEPS || sourceBytes > MAX_SOURCE_BYTES) {
    throw new DriverError('invalid_plan');
  }
  const seen = new Set();
  for (const step of steps) {
    if (!isToken(step.id)) throw new DriverError('invalid_step_id');
    if (seen.has(step.id)) throw new DriverError('invalid_plan');
    seen.add(step.id);
  }
  const parts = [PLAN_TAG, u64be(steps.length)];
  for (const step of steps) parts.push(lengthPrefixed(utf8(step.id)), lengthPrefixed(step.source));
  return { steps, fingerprint: blake3Hex(...parts) };
}

function checkInputAndNonce(input, nonce) {
  if (input.length > MAX_INPUT_BYTES) {
    throw new DriverError('host_input_too_large', { actual: input.length, maximum: MAX_INPUT_BYTES });
  }
  if (nonce.length === 0) throw new DriverError('empty_operation_nonce');
  if (nonce.length > MAX_NONCE_BYTES) {
    throw new DriverError('operation_nonce_too_large', { actual: nonce.length, maximum: MAX_NONCE_BYTES });
  }
}

function operationKey(args) {
  const plan = validatedPlan(args.steps);
  if (!plan.steps.some((step) => step.id === args.step_id)) throw new DriverError('unknown_step');
  if (!isToken(args.tool)) throw new DriverError('invalid_tool');
  const input = inputBytes(args.input);
  const nonce = byteString(args.nonce);
  checkInputAndNonce(input, nonce);
  const digest = blake3Hex(
    OPERATION_KEY_TAG,
    ...[utf8(plan.fingerprint), utf8(args.step_id), utf8(args.tool), input, nonce].map(lengthPrefixed),
  );
  return { key: `op-${digest}` };
}

function compensationKey(args) {
  const input = inputBytes(args.input);
  const nonce = byteString(args.nonce);
  checkInputAndNonce(input, nonce);
  const parts = [
    args.plan_fingerprint,
    args.operation_key,
    args.tool,
    args.tenant_scope,
    args.grant_fingerprint,
  ].map(utf8);
  const digest = blake3Hex(COMPENSATION_KEY_TAG, ...[...parts, input, nonce].map(lengthPrefixed));
  return { key: `cmp-${digest}` };
}

const OPERATIONS = {
  plan_fingerprint: (args) => ({ fingerprint: validatedPlan(args.steps).fingerprint }),
  canonical_input: (args) => ({ canonical_input_hex: inputBytes(args.input).toString('hex') }),
  host_input_fingerprint: (args) => ({ fingerprint: hostInputFingerprint(inputBytes(args.input)) }),
  operation_key: operationKey,
  compensation_key: compensationKey,
};

/** Dispatch `host-keys.<name>`; `undefined` when the name is not a host-keys operation. */
export function hostKeysOperation(name) {
  return OPERATIONS[name];
}

