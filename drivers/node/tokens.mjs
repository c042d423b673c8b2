// The token grammar (docs/spec/grants.md GR-1): 1 to 128 bytes of a-z 0-9 . _ -.

import { DriverError } from './errors.mjs';

const TOKEN = /^[a-z0-9._-]{1,128}$/;

export const isToken = (value) => typeof value === 'string' && TOKEN.test(value);

/** `invalid_token` naming the field checked. */
export function checkToken(value, field) {
  if (!isToken(value)) throw new DriverError('invalid_token', { field });
  return value;
}
