import { PLAYER_LINK_HEADER } from '@kernel/player-links';
import type { Schemas } from '../api';

/**
 * The page's two requests, each with the link's secret in its header and never a key or a cookie:
 * the page, and an appeal. The answer is the body on success, else what the page says of it.
 */

export type Refusal =
  /** The link is unknown, altered or ended (401): only a new link helps. */
  | { kind: 'ended' }
  /** Busy or unreachable (429, 503, no answer): the same request may be tried again. */
  | { kind: 'unavailable' }
  /** The link does not let the player do this (403). */
  | { kind: 'not_allowed' }
  /** What it names is not on this page any more (404). */
  | { kind: 'gone' }
  /** Appealed already, or no longer appealable (409). */
  | { kind: 'conflict' }
  /** The request itself is wrong (400, 413): the text is too long or holds what it may not. */
  | { kind: 'invalid' };

export type Answer<T> = { ok: true; body: T } | { ok: false; refusal: Refusal };

const send = async <T>(
  secret: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<Answer<T>> => {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: {
        [PLAYER_LINK_HEADER]: secret,
        Accept: 'application/json',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    return { ok: false, refusal: { kind: 'unavailable' } };
  }
  let parsed: unknown;
  try {
    parsed = await res.json();
  } catch {
    return { ok: false, refusal: { kind: 'unavailable' } };
  }
  if (res.ok) return { ok: true, body: parsed as T };
  if (res.status === 401) return { ok: false, refusal: { kind: 'ended' } };
  if (res.status === 429 || res.status >= 500) return { ok: false, refusal: { kind: 'unavailable' } };
  // The API's own words are English: the page says each refusal in the player's language.
  if (res.status === 403) return { ok: false, refusal: { kind: 'not_allowed' } };
  if (res.status === 404) return { ok: false, refusal: { kind: 'gone' } };
  if (res.status === 409) return { ok: false, refusal: { kind: 'conflict' } };
  return { ok: false, refusal: { kind: 'invalid' } };
};

export const loadPage = (secret: string) =>
  send<Schemas['PlayerPage']>(secret, 'GET', '/v1/player/restrictions');

export const sendAppeal = (secret: string, appeal: Schemas['PlayerAppealRequest']) =>
  send<Schemas['PlayerAppealCreation']>(secret, 'POST', '/v1/player/appeals', appeal);
