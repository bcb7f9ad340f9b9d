/**
 * The API's input rules (lib/model/requests.ts, docs/api.md "Validation"), checked in the page
 * before a request is sent, so a moderator sees the same answer sooner. The API checks again and
 * its field errors are shown as well when it refuses.
 */

import {
  DEVICE_ID_PATTERN,
  DEVICE_ID_PREFIX_PATTERN,
  DEVICE_ID_PREFIX_RULE,
  DEVICE_ID_RULE,
} from '@kernel/device-ids';
import {
  APPEAL_TEXT_MAX,
  MULTILINE_TEXT_PATTERN,
  MULTILINE_TEXT_RULE,
  PLAYER_MESSAGE_MAX,
  PLAYER_MESSAGE_PATTERN,
  PLAYER_MESSAGE_RULE,
  playerMessageLength,
} from '@kernel/player-message';

export const rules = {
  device_id: { re: DEVICE_ID_PATTERN, message: DEVICE_ID_RULE },
  game_id: { re: /^[A-Za-z0-9._~:-]{1,64}$/, message: 'must be 1-64 characters of A-Z a-z 0-9 . _ ~ : -' },
  reason_code: { re: /^[A-Za-z0-9._:-]{1,64}$/, message: 'must be 1-64 characters of A-Z a-z 0-9 . _ : -' },
  idempotency_key: { re: /^[\x20-\x7E]{1,255}$/, message: 'must be 1-255 printable ASCII characters' },
  key_name: { re: /^[\s\S]{1,64}$/, message: 'must be 1-64 characters' },
} as const;

export type Rule = keyof typeof rules;

/** The rule's message when `value` breaks it, else undefined. */
export const check = (rule: Rule, value: string): string | undefined =>
  rules[rule].re.test(value) ? undefined : rules[rule].message;

/** A device id prefix (`GET /v1/devices?prefix=`): the API's rule and its words (kernel/device-ids.ts). */
export const checkDevicePrefix = (value: string): string | undefined =>
  DEVICE_ID_PREFIX_PATTERN.test(value) ? undefined : DEVICE_ID_PREFIX_RULE;

export const DETAILS_MAX_BYTES = 16 * 1024;
export const DETAILS_MAX_DEPTH = 32;

const depth = (value: unknown): number => {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, d] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== 'object') continue;
    max = Math.max(max, d);
    if (max > DETAILS_MAX_DEPTH) return max;
    for (const child of Object.values(node)) stack.push([child, d + 1]);
  }
  return max;
};

/** `details`: empty for none, else a JSON object of at most 16 KiB and 32 levels. */
export const parseDetails = (
  text: string,
): { ok: true; value: Record<string, unknown> | undefined } | { ok: false; message: string } => {
  if (text.trim() === '') return { ok: true, value: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: 'must be JSON, e.g. {"match": "m-77"}' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, message: 'must be a JSON object' };
  if (depth(value) > DETAILS_MAX_DEPTH)
    return { ok: false, message: `must nest at most ${DETAILS_MAX_DEPTH} levels` };
  if (new TextEncoder().encode(JSON.stringify(value)).length > DETAILS_MAX_BYTES)
    return { ok: false, message: 'must be at most 16 KiB serialised' };
  return { ok: true, value: value as Record<string, unknown> };
};

/**
 * A `datetime-local` value (the moderator's local time) as the API's RFC 3339 UTC time; empty is
 * none. It must be later than now.
 */
export const parseExpiry = (
  local: string,
  now = Date.now(),
): { ok: true; value: string | undefined } | { ok: false; message: string } => {
  if (local === '') return { ok: true, value: undefined };
  const date = new Date(local);
  if (Number.isNaN(date.getTime())) return { ok: false, message: 'must be a date and time' };
  if (date.getTime() <= now) return { ok: false, message: 'must be later than now' };
  return { ok: true, value: date.toISOString() };
};

/** A comma- or space-separated list of game ids; empty is none. */
export const parseGames = (
  text: string,
): { ok: true; value: string[] | undefined } | { ok: false; message: string } => {
  const games = text.split(/[\s,]+/).filter((g) => g !== '');
  if (games.length === 0) return { ok: true, value: undefined };
  const bad = games.find((g) => !rules.game_id.re.test(g));
  if (bad !== undefined) return { ok: false, message: `"${bad}" ${rules.game_id.message}` };
  if (games.length > 100) return { ok: false, message: 'must name at most 100 games' };
  return { ok: true, value: [...new Set(games)] };
};

const playerMessage = new RegExp(PLAYER_MESSAGE_PATTERN, 'u');

/** `player_message`: empty for none, else the API's rule (kernel/player-message.ts). */
export const parsePlayerMessage = (
  text: string,
): { ok: true; value: string | undefined } | { ok: false; message: string } => {
  if (text === '') return { ok: true, value: undefined };
  if (playerMessageLength(text) > PLAYER_MESSAGE_MAX)
    return { ok: false, message: `must be at most ${PLAYER_MESSAGE_MAX} characters` };
  if (!playerMessage.test(text)) return { ok: false, message: PLAYER_MESSAGE_RULE };
  return { ok: true, value: text };
};

const multilineText = new RegExp(MULTILINE_TEXT_PATTERN, 'u');

/** A decision's private `note`: empty for none, else the API's rule for an appeal's texts (newlines allowed). */
export const parseAppealText = (
  text: string,
): { ok: true; value: string | undefined } | { ok: false; message: string } => {
  if (text === '') return { ok: true, value: undefined };
  if (playerMessageLength(text) > APPEAL_TEXT_MAX)
    return { ok: false, message: `must be at most ${APPEAL_TEXT_MAX} characters` };
  if (!multilineText.test(text)) return { ok: false, message: MULTILINE_TEXT_RULE };
  return { ok: true, value: text };
};
