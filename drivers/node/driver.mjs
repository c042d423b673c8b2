#!/usr/bin/env node
// A rescind-driver/1 driver (docs/driver-protocol.md) for the capabilities `canonical`,
// `host-keys` and `grants`, profile splash-v5. Node.js 20, standard library only.
//
//   rescind check --impl "node drivers/node/driver.mjs"

import { createInterface } from 'node:readline';

import { canonicalInput } from './canonical.mjs';
import { DriverError } from './errors.mjs';
import { fields } from './fields.mjs';
import { grantsOperation } from './grants.mjs';
import { hostKeysOperation } from './hostkeys.mjs';
import { parseJson } from './json.mjs';

const PROTOCOL = 'rescind-driver/1';

const HELLO = {
  protocol: PROTOCOL,
  implementation: { name: 'rescind-node-driver', version: '1.0.0' },
  capabilities: ['canonical', 'host-keys', 'grants'],
  profiles: ['splash-v5'],
};

function operation(op) {
  if (op === 'canonical.input') return canonicalInput;
  const [family, name] = op.split(/\.(.*)/s);
  if (family === 'host-keys') return hostKeysOperation(name);
  if (family === 'grants') return grantsOperation(name);
  return undefined;
}

function answer(op, args) {
  if (op === 'hello') return { ok: HELLO };
  if (op === 'bye') return { ok: {} };
  const run = operation(op);
  if (run === undefined) return { unsupported: `${op} is not implemented by this driver` };
  try {
    return { ok: run(args) };
  } catch (error) {
    if (!(error instanceof DriverError)) throw error;
    // Every operation here is a pure computation: a failure certainly had no effect.
    return { error: { code: error.code, definite: true, ...error.details } };
  }
}

// Requests are parsed with the same number-preserving parser as payloads, so a payload
// value inside a request keeps its number text; a lone surrogate escape is kept, not refused.
function handle(line) {
  const request = fields(parseJson(line, { strictSurrogates: false }));
  const id = Number(request.id.text);
  const reply = answer(request.op, fields(request.args));
  process.stdout.write(`${JSON.stringify({ id, ...reply })}\n`);
  return request.op !== 'bye';
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  if (line.trim() === '') return;
  if (!handle(line)) lines.close();
});
lines.on('close', () => process.stdin.destroy());
