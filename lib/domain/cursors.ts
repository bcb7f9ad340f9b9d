import { createHash } from 'node:crypto';
import { InvalidInputError } from './errors';

/**
 * A listing's cursor: the sort key it stopped at, bound to its reader (the listing and the
 * publisher it was returned to) by a tag over both, and opaque to the caller (base64url). Read
 * back only when the tag matches and `valid` accepts the key, so another publisher's cursor, a
 * position edited by hand or a key made up as a cursor is a 400, never a Query from somewhere
 * else. The tag is a digest, not a secret: it binds a position to its reader and catches what
 * was not returned as is; a position, however made, is only ever read within the reader's own
 * listing.
 */
const TAG_CHARS = 16;
const CURSOR = /^c1\.([A-Za-z0-9_-]{16})\.([\s\S]+)$/;

const tagOf = (reader: string, sk: string) =>
  createHash('sha256').update(`${reader}\n${sk}`).digest('base64url').slice(0, TAG_CHARS);

/** `reader` names the listing and its partition (whose key holds the publisher), e.g. `audit AUDIT#acme`. */
export const cursorOf = (reader: string, sk: string) =>
  Buffer.from(`c1.${tagOf(reader, sk)}.${sk}`).toString('base64url');

export const sortKeyOf = (
  reader: string,
  cursor: string,
  valid: (sk: string) => boolean,
  message = 'must be a next_cursor this API returned',
): string => {
  const match = CURSOR.exec(Buffer.from(cursor, 'base64url').toString());
  const sk = match?.[2];
  if (sk === undefined || match?.[1] !== tagOf(reader, sk) || !valid(sk))
    throw new InvalidInputError('cursor', 'invalid', message);
  return sk;
};
