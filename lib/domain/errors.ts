/**
 * The domain's own failures, named for what went wrong rather than for an HTTP status: the HTTP
 * layer (lib/http/errors.ts) decides how each is answered. Storage failures are classified in
 * lib/storage/failures.ts; everything else is a bug.
 */

import type { ConflictHolder } from '../model/responses';

/** The thing asked for does not exist for this caller (or is not theirs: the two look the same). */
export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
}

/**
 * Stored data is not what this code writes: damaged, or written by a newer version. The request
 * fails closed rather than answer with invented or half-read data.
 */
export class IntegrityError extends Error {
  override readonly name = 'IntegrityError';
}

/**
 * A request that passed the shape checks but breaks a rule only the domain can judge (an expiry
 * already past, for a ban that is not an idempotent repeat). Names the field and the issue, as
 * the HTTP layer's own validation does.
 */
export class InvalidInputError extends Error {
  override readonly name = 'InvalidInputError';
  constructor(
    readonly field: string,
    readonly issue: string,
    message: string,
  ) {
    super(message);
  }
}

/** What the caller presented opens nothing: unknown, altered or ended (a player's page link). */
export class UnauthorizedError extends Error {
  override readonly name = 'UnauthorizedError';
}

/** The caller's key may not do this to this thing (its scope, games or reach fall short). */
export class ForbiddenError extends Error {
  override readonly name = 'ForbiddenError';
}

/**
 * The request is valid but the publisher's state refuses it (a limit reached), or someone else
 * holds the thing: then `holder` says who, and since or until when (the 409's `error.holder`).
 */
export class ConflictError extends Error {
  override readonly name = 'ConflictError';
  constructor(
    message: string,
    readonly holder?: ConflictHolder,
  ) {
    super(message);
  }
}

/**
 * A feed cursor that points before events past the retention: they are gone for good, so reading
 * on from it would skip them. The client resyncs from the snapshot (410 `cursor_expired`).
 */
export class CursorExpiredError extends Error {
  override readonly name = 'CursorExpiredError';
}

/**
 * The request is valid, but the service asks the caller to come back later: what it would add to
 * is still being worked through (a 429 `rate_limited`, with Retry-After).
 */
export class SlowDownError extends Error {
  override readonly name = 'SlowDownError';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}
