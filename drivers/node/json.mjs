// A JSON parser that keeps every number as its text (profile splash-v5 never turns a
// number into a binary float) and every object member in written order (grant decoding
// must see repeated members), and the canonical JSON writer of docs/spec/canonical.md.

import { serialization } from './errors.mjs';

/** A JSON number: its normalized text (CJ-16, CJ-17) and the text as written. */
export class JsonNumber {
  constructor(text, written) {
    this.text = text;
    this.written = written;
  }
}

/** A JSON object: members in written order, repeats included. */
export class JsonObject {
  constructor(members) {
    this.members = members;
  }

  /** Last occurrence wins (CJ-10). */
  get(key) {
    for (let i = this.members.length - 1; i >= 0; i -= 1) {
      if (this.members[i][0] === key) return this.members[i][1];
    }
    return undefined;
  }

  has(key) {
    return this.members.some(([k]) => k === key);
  }

  count(key) {
    return this.members.filter(([k]) => k === key).length;
  }
}

const RESERVED_NUMBER_KEY = '$serde_json::private::Number';
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const ESCAPES = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const NUMBER_SOURCE = '-?(?:0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?';
const NUMBER_AT = new RegExp(NUMBER_SOURCE, 'y');
const NUMBER_WHOLE = new RegExp(`^${NUMBER_SOURCE}$`);

/**
 * Parse one JSON text. `options.maxNesting` bounds nested containers (CJ-9);
 * `options.reservedNumberKey` turns on CJ-11; `options.strictSurrogates` rejects a lone
 * surrogate escape (CJ-8) instead of keeping it (request lines may carry one).
 */
export function parseJson(text, options = {}) {
  const { maxNesting = Infinity, reservedNumberKey = false, strictSurrogates = true } = options;
  let pos = 0;
  let nesting = 0;

  const fail = (reason) => {
    throw serialization(reason);
  };
  const skipWhitespace = () => {
    while (pos < text.length && WHITESPACE.has(text.charCodeAt(pos))) pos += 1;
  };

  function parseString() {
    pos += 1; // opening quote
    let out = '';
    let runStart = pos;
    for (;;) {
      if (pos >= text.length) fail('eof_while_parsing_string');
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        out += text.slice(runStart, pos);
        pos += 1;
        return out;
      }
      if (c < 0x20) fail('control_character_while_parsing_string');
      if (c !== 0x5c) {
        pos += 1;
        continue;
      }
      out += text.slice(runStart, pos);
      const e = text[pos + 1];
      if (e === undefined) fail('eof_while_parsing_string');
      if (e in ESCAPES) {
        out += ESCAPES[e];
        pos += 2;
      } else if (e === 'u') {
        pos += 2;
        out += parseUnicodeEscape();
      } else {
        fail('invalid_escape');
      }
      runStart = pos;
    }
  }

  function hex4() {
    const digits = text.slice(pos, pos + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(digits)) fail('invalid_escape');
    pos += 4;
    return parseInt(digits, 16);
  }

  // CJ-8: a high surrogate escape must be followed directly by a low surrogate escape.
  function parseUnicodeEscape() {
    const unit = hex4();
    const isHigh = unit >= 0xd800 && unit <= 0xdbff;
    const isLow = unit >= 0xdc00 && unit <= 0xdfff;
    if (!isHigh && !isLow) return String.fromCharCode(unit);
    if (isHigh && text.startsWith('\\u', pos)) {
      const save = pos;
      pos += 2;
      const low = hex4();
      if (low >= 0xdc00 && low <= 0xdfff) return String.fromCharCode(unit, low);
      if (!strictSurrogates) {
        pos = save;
        return String.fromCharCode(unit);
      }
    }
    if (strictSurrogates) fail('lone_surrogate');
    return String.fromCharCode(unit);
  }

  function enter() {
    nesting += 1;
    if (nesting > maxNesting) fail('recursion_limit_exceeded');
  }

  function parseArray() {
    enter();
    pos += 1;
    const items = [];
    skipWhitespace();
    if (text[pos] === ']') {
      pos += 1;
      nesting -= 1;
      return items;
    }
    for (;;) {
      items.push(parseValue());
      skipWhitespace();
      const c = text[pos];
      if (c === ']') {
        pos += 1;
        nesting -= 1;
        return items;
      }
      if (c !== ',') fail(c === undefined ? 'eof_while_parsing_list' : 'expected_list_comma_or_end');
      pos += 1;
      skipWhitespace();
      if (text[pos] === ']') fail('trailing_comma');
    }
  }

  function parseObject() {
    enter();
    pos += 1;
    const members = [];
    skipWhitespace();
    if (text[pos] === '}') {
      pos += 1;
      nesting -= 1;
      return new JsonObject(members);
    }
    for (;;) {
      skipWhitespace();
      if (text[pos] !== '"') fail(text[pos] === undefined ? 'eof_while_parsing_object' : 'key_must_be_a_string');
      const key = parseString();
      skipWhitespace();
      if (text[pos] !== ':') fail('expected_colon');
      pos += 1;
      const value = parseValue();
      members.push([key, value]);
      skipWhitespace();
      const c = text[pos];
      if (c === '}') {
        pos += 1;
        nesting -= 1;
        break;
      }
      if (c !== ',') fail(c === undefined ? 'eof_while_parsing_object' : 'expected_object_comma_or_end');
      pos += 1;
      skipWhitespace();
      if (text[pos] === '}') fail('trailing_comma');
    }
    return reservedNumberKey ? readReservedNumber(members) : new JsonObject(members);
  }

  // CJ-11: an object whose first key spells the reserved name is the number its string
  // value spells, and nothing else: another value type or a further member is an error.
  function readReservedNumber(members) {
    if (members.length === 0 || members[0][0] !== RESERVED_NUMBER_KEY) return new JsonObject(members);
    const spelled = members[0][1];
    if (typeof spelled !== 'string') fail('reserved_number_not_a_string');
    if (members.length > 1) fail('trailing_comma');
    const match = NUMBER_WHOLE.exec(spelled);
    if (match === null) fail('invalid_number');
    return normalizeNumber(match[0], match[1], match[2]);
  }

  function parseLiteral(word, value) {
    if (!text.startsWith(word, pos)) fail('expected_value');
    pos += word.length;
    return value;
  }

  function parseValue() {
    skipWhitespace();
    const c = text[pos];
    if (c === '{') return parseObject();
    if (c === '[') return parseArray();
    if (c === '"') return parseString();
    if (c === 't') return parseLiteral('true', true);
    if (c === 'f') return parseLiteral('false', false);
    if (c === 'n') return parseLiteral('null', null);
    if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER_AT.lastIndex = pos;
      const match = NUMBER_AT.exec(text);
      if (match === null) fail('invalid_number');
      pos += match[0].length;
      // A digit or dot straight after a number means the grammar was broken (`01`, `1.`).
      const next = text[pos];
      if (next !== undefined && /[0-9.eE+-]/.test(next)) fail('invalid_number');
      return normalizeNumber(match[0], match[1], match[2]);
    }
    fail(c === undefined ? 'eof_while_parsing_value' : 'expected_value');
    return undefined;
  }

  const value = parseValue();
  skipWhitespace();
  if (pos < text.length) fail('trailing_characters');
  return value;
}

// CJ-16, CJ-17: integers in plain decimal (so -0 is 0); fractions and exponents keep
// their text with a lowercase `e` and an explicit exponent sign.
function normalizeNumber(lexeme, fraction, exponent) {
  if (fraction === undefined && exponent === undefined) {
    return new JsonNumber(lexeme === '-0' ? '0' : lexeme, lexeme);
  }
  if (exponent === undefined) return new JsonNumber(lexeme, lexeme);
  const mantissa = lexeme.slice(0, lexeme.length - exponent.length);
  const digits = exponent.slice(1);
  const signed = digits[0] === '+' || digits[0] === '-' ? digits : `+${digits}`;
  return new JsonNumber(`${mantissa}e${signed}`, lexeme);
}

/** Decode UTF-8 bytes strictly (CJ-1); a byte-order mark is kept, so it is rejected later. */
export function decodeUtf8(bytes) {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw serialization('invalid_utf8');
  }
}

// CJ-14, CJ-15: escape only `"`, `\` and the C0 controls; everything else is raw UTF-8.
const SHORT_ESCAPES = { 0x08: '\\b', 0x09: '\\t', 0x0a: '\\n', 0x0c: '\\f', 0x0d: '\\r' };

export function writeString(value) {
  let out = '"';
  for (let i = 0; i < value.length; i += 1) {
    const c = value.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c < 0x20) out += SHORT_ESCAPES[c] ?? `\\u00${c.toString(16).padStart(2, '0')}`;
    else out += value[i];
  }
  return `${out}"`;
}

/** Sort keys by code point (CJ-13): UTF-8 byte order, not JavaScript's UTF-16 order. */
export function compareCodePoints(a, b) {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Canonical JSON text (CJ-12..CJ-17): sorted keys, last duplicate wins, no whitespace. */
export function canonicalJson(value) {
  if (value === null) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (value instanceof JsonNumber) return value.text;
  if (typeof value === 'string') return writeString(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const latest = new Map();
  for (const [key, member] of value.members) latest.set(key, member);
  const keys = [...latest.keys()].sort(compareCodePoints);
  return `{${keys.map((key) => `${writeString(key)}:${canonicalJson(latest.get(key))}`).join(',')}}`;
}

/** Compact JSON in written member order; a repeated key keeps its first place and last value. */
export function writeJson(value) {
  if (value === null || value === true || value === false) return String(value);
  if (value instanceof JsonNumber) return value.text;
  if (typeof value === 'string') return writeString(value);
  if (Array.isArray(value)) return `[${value.map(writeJson).join(',')}]`;
  const latest = new Map();
  for (const [key, member] of value.members) latest.set(key, member);
  return `{${[...latest].map(([key, member]) => `${writeString(key)}:${writeJson(member)}`).join(',')}}`;
}

/** Depth of a parsed value: the root is 1, every child one more (CJ-23). */
export function maxDepth(value) {
  if (Array.isArray(value)) return 1 + value.reduce((d, item) => Math.max(d, maxDepth(item)), 0);
  if (value instanceof JsonObject) {
    const latest = new Map(value.members);
    let deepest = 0;
    for (const member of latest.values()) deepest = Math.max(deepest, maxDepth(member));
    return 1 + deepest;
  }
  return 1;
}
