import { isRole } from '@kernel/people';
import type { Actor } from './responses';

/** Reading who did something back from storage (no zod: the events dispatcher's bundle uses it). */

const isString = (value: unknown): value is string => typeof value === 'string';

/**
 * An actor as stored, or undefined if it is none. Actors stored before people could sign in have
 * no `type`: they were keys, and read as keys.
 */
export const actorFromStored = (value: unknown): Actor | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const stored = value as Record<string, unknown>;
  if (stored.type === 'user') {
    const { sub, email, role } = stored;
    if (!isString(sub) || !(email === null || isString(email)) || !isRole(role)) return undefined;
    return { type: 'user', sub, email, role };
  }
  if (stored.type !== undefined && stored.type !== 'key') return undefined;
  const { key_id, name } = stored;
  if (!(key_id === null || isString(key_id)) || !isString(name)) return undefined;
  return { type: 'key', key_id, name };
};
