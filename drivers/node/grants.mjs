// Capability grants, their fingerprint, attenuation, the session manifest and the
// identifier checks (docs/spec/grants.md, rules GR-1..GR-29).

import { blake3Hex } from './blake3.mjs';
import { u64be, utf8 } from './bytes.mjs';
import { DriverError, serialization } from './errors.mjs';
import { JsonNumber, JsonObject, compareCodePoints, parseJson, writeString } from './json.mjs';
import { checkToken } from './tokens.mjs';

const GRANT_TAG = utf8('splash-compensation-grant-v1');
// GR-14: declaration order, not alphabetical.
const KINDS = ['file_root', 'executable', 'network_origin', 'secret'];
const FORMATS = ['text', 'json'];
const LIMITS = ['max_calls', 'max_input_bytes', 'max_output_bytes', 'max_compensations'];
const U32_MAX = 4294967295;
const U16_MAX = 65535;
const MAX_RESOURCES = 64;
const MAX_GRANTS = 128;
const PROTOCOL_VERSION = 5;

// ---- decoding (GR-5..GR-9, GR-23, GR-26) ----

function parseObject(text) {
  const value = parseJson(text, { maxNesting: 127 });
  if (!(value instanceof JsonObject)) throw serialization('expected_object');
  return value;
}

/** The known members of an object; a known member written twice is an error (GR-8). */
function knownMembers(object, names) {
  if (!(object instanceof JsonObject)) throw serialization('expected_object');
  const record = Object.create(null);
  for (const [key, value] of object.members) {
    if (!names.includes(key)) continue;
    if (key in record) throw serialization('duplicate_field');
    record[key] = value;
  }
  return record;
}

function required(record, name) {
  if (!(name in record)) throw serialization('missing_field');
  return record[name];
}

function unsigned(value, maximum) {
  if (!(value instanceof JsonNumber) || !/^(0|[1-9][0-9]*)$/.test(value.written)) {
    throw serialization('invalid_type');
  }
  const number = Number(value.written);
  if (number > maximum) throw serialization('invalid_value');
  return number;
}

function string(value) {
  if (typeof value !== 'string') throw serialization('invalid_type');
  return value;
}

function oneOf(value, names) {
  if (!names.includes(value)) throw serialization('unknown_variant');
  return value;
}

const selectorKey = (s) => `${s.kind}\u0000${s.id}`;

function compareSelectors(a, b) {
  return KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind) || Buffer.compare(utf8(a.id), utf8(b.id));
}

/** A selector list as a sorted set (GR-9, GR-14). */
function selectorSet(value) {
  if (!Array.isArray(value)) throw serialization('invalid_type');
  const unique = new Map();
  for (const item of value) {
    const record = knownMembers(item, ['kind', 'id']);
    const selector = {
      kind: oneOf(required(record, 'kind'), KINDS),
      id: string(required(record, 'id')),
    };
    unique.set(selectorKey(selector), selector);
  }
  return [...unique.values()].sort(compareSelectors);
}

function decodeGrant(object) {
  const record = knownMembers(object, ['tool', 'format', ...LIMITS, 'resources']);
  const grant = {
    tool: string(required(record, 'tool')),
    format: oneOf(required(record, 'format'), FORMATS),
  };
  for (const name of ['max_calls', 'max_input_bytes', 'max_output_bytes']) {
    grant[name] = unsigned(required(record, name), U32_MAX);
  }
  // GR-6: absent means the default; null is a type error, not a default.
  grant.max_compensations = 'max_compensations' in record ? unsigned(record.max_compensations, U32_MAX) : 0;
  grant.resources = 'resources' in record ? selectorSet(record.resources) : [];
  return grant;
}

/** Optional members where null is the same as absent (GR-18). */
function decodeGrantAttenuation(object) {
  const record = knownMembers(object, [...LIMITS, 'resources']);
  const attenuation = {};
  for (const name of LIMITS) {
    if (record[name] !== undefined && record[name] !== null) attenuation[name] = unsigned(record[name], U32_MAX);
  }
  if (record.resources !== undefined && record.resources !== null) {
    attenuation.resources = selectorSet(record.resources);
  }
  return attenuation;
}

function decodeManifest(object) {
  const record = knownMembers(object, ['protocol_version', 'session_id', 'grants']);
  const grants = required(record, 'grants');
  if (!Array.isArray(grants)) throw serialization('invalid_type');
  return {
    protocol_version: unsigned(required(record, 'protocol_version'), U16_MAX),
    session_id: string(required(record, 'session_id')),
    grants: grants.map(decodeGrant),
  };
}

function decodeManifestAttenuation(object) {
  const record = knownMembers(object, ['allowed_tools', 'grants']);
  const result = { grants: new Map() };
  if (record.allowed_tools !== undefined && record.allowed_tools !== null) {
    if (!Array.isArray(record.allowed_tools)) throw serialization('invalid_type');
    result.allowed_tools = [...new Set(record.allowed_tools.map(string))].sort(compareCodePoints);
  }
  if (record.grants !== undefined) {
    if (!(record.grants instanceof JsonObject)) throw serialization('invalid_type');
    // GR-26: a repeated tool key keeps the last value.
    for (const [tool, value] of record.grants.members) result.grants.set(tool, decodeGrantAttenuation(value));
  }
  return result;
}

// ---- validation (GR-11, GR-24) ----

function validateGrant(grant) {
  checkToken(grant.tool, 'tool');
  if (grant.max_calls === 0) throw new DriverError('invalid_grant', { reason: 'max_calls must be greater than zero' });
  if (grant.max_input_bytes === 0 || grant.max_output_bytes === 0) {
    throw new DriverError('invalid_grant', { reason: 'byte limits must be greater than zero' });
  }
  if (grant.resources.length > MAX_RESOURCES) throw new DriverError('too_many_resources', { maximum: MAX_RESOURCES });
  for (const selector of grant.resources) checkToken(selector.id, 'resource selector');
  return grant;
}

function validateManifest(manifest) {
  if (manifest.protocol_version !== PROTOCOL_VERSION) {
    throw new DriverError('unsupported_version', { actual: manifest.protocol_version });
  }
  if (manifest.grants.length > MAX_GRANTS) throw new DriverError('too_many_grants', { maximum: MAX_GRANTS });
  checkToken(manifest.session_id, 'session id');
  const seen = new Set();
  for (const grant of manifest.grants) {
    validateGrant(grant);
    if (seen.has(grant.tool)) throw new DriverError('duplicate_grant', { tool: grant.tool });
    seen.add(grant.tool);
  }
  return manifest;
}

// ---- encoding (GR-13..GR-15, GR-18, GR-23, GR-26) ----

const writeSelectors = (selectors) =>
  `[${selectors.map((s) => `{"kind":${writeString(s.kind)},"id":${writeString(s.id)}}`).join(',')}]`;

function encodeGrant(grant) {
  const limits = LIMITS.map((name) => `"${name}":${grant[name]}`).join(',');
  return `{"tool":${writeString(grant.tool)},"format":${writeString(grant.format)},${limits},"resources":${writeSelectors(grant.resources)}}`;
}

function encodeGrantAttenuation(attenuation) {
  const members = LIMITS.filter((name) => name in attenuation).map((name) => `"${name}":${attenuation[name]}`);
  if (attenuation.resources !== undefined) members.push(`"resources":${writeSelectors(attenuation.resources)}`);
  return `{${members.join(',')}}`;
}

const encodeManifest = (manifest) =>
  `{"protocol_version":${manifest.protocol_version},"session_id":${writeString(manifest.session_id)},"grants":[${manifest.grants.map(encodeGrant).join(',')}]}`;

function encodeManifestAttenuation(attenuation) {
  const members = [];
  if (attenuation.allowed_tools !== undefined) {
    members.push(`"allowed_tools":[${attenuation.allowed_tools.map(writeString).join(',')}]`);
  }
  const tools = [...attenuation.grants.keys()].sort(compareCodePoints);
  const grants = tools.map((tool) => `${writeString(tool)}:${encodeGrantAttenuation(attenuation.grants.get(tool))}`);
  members.push(`"grants":{${grants.join(',')}}`);
  return `{${members.join(',')}}`;
}

function grantResult(grant) {
  const encoded = encodeGrant(grant);
  const bytes = utf8(encoded);
  return { encoded, fingerprint: blake3Hex(GRANT_TAG, u64be(bytes.length), bytes) };
}

// ---- attenuation (GR-17..GR-22, GR-27..GR-29) ----

function attenuateGrant(parent, attenuation) {
  const child = { tool: parent.tool, format: parent.format };
  for (const name of LIMITS) child[name] = attenuation[name] ?? parent[name];
  if (child.max_calls === 0 || child.max_input_bytes === 0 || child.max_output_bytes === 0) {
    throw new DriverError('invalid_grant', { reason: 'attenuated limits must be greater than zero' });
  }
  if (LIMITS.some((name) => child[name] > parent[name])) throw new DriverError('attenuation_widens_limits');
  if (attenuation.resources === undefined) {
    child.resources = parent.resources;
  } else {
    const granted = new Set(parent.resources.map(selectorKey));
    if (!attenuation.resources.every((s) => granted.has(selectorKey(s)))) {
      throw new DriverError('attenuation_expands_resources');
    }
    child.resources = attenuation.resources;
  }
  return child;
}

function attenuateManifest(parent, attenuation) {
  const parentTools = new Set(parent.grants.map((grant) => grant.tool));
  for (const tool of [...attenuation.grants.keys()].sort(compareCodePoints)) {
    if (!parentTools.has(tool)) throw new DriverError('unknown_tool', { tool });
  }
  if (attenuation.allowed_tools !== undefined) {
    for (const tool of attenuation.allowed_tools) {
      checkToken(tool, 'tool');
      if (!parentTools.has(tool)) throw new DriverError('unknown_tool', { tool });
    }
  }
  const allowed = attenuation.allowed_tools === undefined ? parentTools : new Set(attenuation.allowed_tools);
  const grants = parent.grants
    .filter((grant) => allowed.has(grant.tool))
    .map((grant) =>
      attenuation.grants.has(grant.tool) ? attenuateGrant(grant, attenuation.grants.get(grant.tool)) : grant,
    );
  return validateManifest({ protocol_version: PROTOCOL_VERSION, session_id: parent.session_id, grants });
}

// ---- operations ----

const validGrant = (text) => validateGrant(decodeGrant(parseObject(text)));
const validManifest = (text) => validateManifest(decodeManifest(parseObject(text)));

const OPERATIONS = {
  grant: (args) => grantResult(validGrant(args.grant)),
  grant_attenuate: (args) => {
    // Each attenuation text is decoded before its parent is validated (GR-17 then applies).
    let grant = decodeGrant(parseObject(args.grant));
    for (const text of args.attenuations) {
      const attenuation = decodeGrantAttenuation(parseObject(text));
      grant = attenuateGrant(validateGrant(grant), attenuation);
    }
    return grantResult(validateGrant(grant));
  },
  grant_attenuation_json: (args) => ({
    normalized: encodeGrantAttenuation(decodeGrantAttenuation(parseObject(args.attenuation))),
  }),
  manifest: (args) => ({ manifest: encodeManifest(validManifest(args.manifest)) }),
  manifest_attenuate: (args) => {
    const parent = decodeManifest(parseObject(args.manifest));
    const attenuation = decodeManifestAttenuation(parseObject(args.attenuation));
    const result = attenuateManifest(validateManifest(parent), attenuation);
    return { manifest: encodeManifest(result), tools: result.grants.map((grant) => grant.tool) };
  },
  manifest_attenuation_json: (args) => ({
    normalized: encodeManifestAttenuation(decodeManifestAttenuation(parseObject(args.attenuation))),
  }),
  resource_selector: (args) => {
    const selector = { kind: oneOf(args.kind, KINDS), id: checkToken(args.id, 'resource selector') };
    return { resource: writeSelectors([selector]).slice(1, -1) };
  },
  compensation_key: (args) => {
    checkToken(args.value, 'compensation key');
    if (!args.value.startsWith('cmp-')) throw new DriverError('invalid_compensation_key');
    return { value: args.value };
  },
  grant_fingerprint_string: (args) => {
    if (typeof args.value !== 'string' || !/^[0-9a-f]{64}$/.test(args.value)) {
      throw new DriverError('invalid_compensation_grant_fingerprint');
    }
    return { value: args.value };
  },
};

/** Dispatch `grants.<name>`; `undefined` when the name is not a grants operation. */
export function grantsOperation(name) {
  return OPERATIONS[name];
}
