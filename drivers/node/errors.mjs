// A typed failure: a stable snake_case code, compared by the runner, plus optional
// informative details (never payload text) that the runner ignores.
export class DriverError extends Error {
  constructor(code, details = {}) {
    super(code);
    this.code = code;
    this.details = details;
  }
}

// Every JSON parse failure is one code; the reason only helps a human reading logs.
export const serialization = (reason) => new DriverError('serialization', { reason });
