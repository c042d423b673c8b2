// Reading request arguments parsed by json.mjs (objects keep every member in order).

import { JsonNumber, JsonObject } from './json.mjs';

/** The members of a parsed object as a plain record; a repeated member keeps its last value. */
export function fields(value) {
  const record = Object.create(null);
  if (value instanceof JsonObject) for (const [key, member] of value.members) record[key] = member;
  return record;
}

/** A JSON integer argument as a JavaScript number (arguments are small counts). */
export const integer = (value) => (value instanceof JsonNumber ? Number(value.text) : Number.NaN);
