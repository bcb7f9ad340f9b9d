import { InvalidInputError } from './errors';

/**
 * A listing's cursor: the sort key it stopped at, opaque to the caller (base64url). Read back only
 * when `valid` accepts the key, so a forged or foreign cursor is a 400, never a Query from
 * somewhere else.
 */
export const cursorOf = (sk: string) => Buffer.from(sk).toString('base64url');

export const sortKeyOf = (
  cursor: string,
  valid: (sk: string) => boolean,
  message = 'must be a next_cursor this API returned',
): string => {
  const sk = Buffer.from(cursor, 'base64url').toString();
  if (!valid(sk)) throw new InvalidInputError('cursor', 'invalid', message);
  return sk;
};
