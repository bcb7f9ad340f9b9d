import { scopes } from '@kernel/scopes';
import type { components } from '../../client/src/api-types';
import type { Call, Failure } from '../client';

/**
 * What the console knows of the API beyond the typed client: the generated schemas it shows,
 * what each scope is for, and how an answer that is not a success is told to the moderator.
 */

export type Schemas = components['schemas'];
export type Ban = Schemas['RevokedBan'];
export type Policy = Schemas['Policy'];
export type Enforcement = Schemas['Enforcement'];
export type Scope = Schemas['ApiKey']['scopes'][number];
export type FieldIssue = Schemas['FieldIssue'];
export type ErrorEnvelope = Schemas['Error'];
export type { Call };
export { scopes };

/** Any answer or failure, as the console reads it when it is not the success it asked for. */
export type AnyAnswer = { ok: boolean; status: number; body: unknown; retryAfter: number | null } | Failure;

export interface Problem {
  text: string;
  /** The API's per-field issues (400), for the form to put under its fields. */
  fields: FieldIssue[];
  status: number;
}

const envelope = (answer: AnyAnswer): ErrorEnvelope['error'] | undefined => {
  const body = answer.body as Partial<ErrorEnvelope> | null;
  return body && typeof body === 'object' && body.error && typeof body.error.message === 'string'
    ? body.error
    : undefined;
};

const requestIdOf = (answer: AnyAnswer): string => {
  const body = answer.body as Partial<ErrorEnvelope> | null;
  return body && typeof body.request_id === 'string' ? ` (request ${body.request_id})` : '';
};

const wait = (seconds: number | null) => (seconds === null ? 'in a moment' : `in ${seconds} s`);

/** One clear sentence for an answer that is not a success; nothing is ever left half-done by the page. */
export const explain = (answer: AnyAnswer): Problem => {
  if ('kind' in answer) {
    return {
      status: 0,
      fields: [],
      text:
        answer.kind === 'network'
          ? 'Could not reach the API (network error). Check the connection and try again.'
          : `The answer did not come from the API (HTTP ${answer.httpStatus ?? '?'}, not its JSON). Try again in a moment.`,
    };
  }
  const error = envelope(answer);
  const message = error?.message ?? `HTTP ${answer.status}`;
  const id = requestIdOf(answer);
  const fields = error?.details ?? [];
  switch (answer.status) {
    case 401:
      return {
        status: 401,
        fields,
        text: `The API refused this key (401): it is unknown, revoked or expired.${id}`,
      };
    case 403:
      return { status: 403, fields, text: `Not allowed (403): ${message}.${id}` };
    case 429:
      return {
        status: 429,
        fields,
        text: `Too many requests (429): try again ${wait(answer.retryAfter)}.${id}`,
      };
    case 503:
      return {
        status: 503,
        fields,
        text: `The service is unavailable (503): try again ${wait(answer.retryAfter)}. Trying again is safe.${id}`,
      };
    case 500:
      return {
        status: 500,
        fields,
        text: `The API failed (500 internal error). Quote the request id when reporting it.${id}`,
      };
    case 409:
      // Someone else holds the thing or decided it: who, and when in the moderator's own time.
      return { status: 409, fields, text: `${error?.holder ? holderWords(error.holder) : message}${id}` };
    default:
      return { status: answer.status, fields, text: `${message}${id}` };
  }
};

/** A time of day in the browser's time zone: "14:05". */
export const clockTime = (iso: string): string =>
  new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

/** Who holds an appeal, or decided it, and when, in local time (the 409's `error.holder`). */
export const holderWords = (holder: Schemas['ConflictHolder']): string =>
  holder.reason === 'claimed'
    ? `Held by ${actorLabel(holder.actor)} until ${clockTime(holder.until ?? holder.at)}: only they can decide it until then, or an admin who takes it over.`
    : `Already decided by ${actorLabel(holder.actor)} at ${formatTime(holder.at)}: an appeal is decided once.`;

/** The holder a 409 names, if it names one. */
export const holderOf = (answer: AnyAnswer): Schemas['ConflictHolder'] | undefined =>
  answer.status === 409 ? envelope(answer)?.holder : undefined;

/** The scope a 403 names ("This key lacks the scope bans:write"), if it names one. */
export const lackedScope = (answer: AnyAnswer): Scope | undefined => {
  if (answer.status !== 403) return undefined;
  const named = /lacks the scope (\S+)/.exec(envelope(answer)?.message ?? '')?.[1];
  return scopes.find((s) => s === named);
};

/** What each scope lets the console do, for the key panel. */
export const scopeUses: Record<Scope, string> = {
  'bans:read': 'look up devices: bans and enforcement',
  'bans:write': 'create and revoke bans, erase a device',
  'policy:read': 'read the policy',
  'policy:write': 'change the policy',
  'keys:manage': 'manage API keys and webhooks',
  'audit:read': 'read the audit trail',
  'appeals:write': "file appeals on a player's behalf",
  'appeals:decide': 'work the appeals queue: decide appeals, read their stats',
  'people:manage': "manage the publisher's people: invite, disable, change roles",
  'bans:import': 'import bans with their history (creation, expiry, revocation times)',
  'data:export': 'export everything the publisher holds, and all of it about one device',
};

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** "in 3 days", "2 hours ago": how far a time is from now, in the largest whole unit. */
export const fromNow = (iso: string, now = Date.now()): string => {
  const delta = new Date(iso).getTime() - now;
  for (const [unit, ms] of UNITS)
    if (Math.abs(delta) >= ms) return relative.format(Math.trunc(delta / ms), unit);
  return relative.format(Math.trunc(delta / 1000), 'second');
};

/** "3 days", "40 minutes": a length of time in its largest whole unit (an age, a time to decision). */
export const formatDuration = (seconds: number): string => {
  const ms = Math.max(0, seconds) * 1000;
  const [unit, size] = UNITS.find(([, size]) => ms >= size) ?? ['second', 1000];
  return new Intl.NumberFormat(undefined, { style: 'unit', unit, unitDisplay: 'long' }).format(
    Math.trunc(ms / size),
  );
};

export const formatTime = (iso: string | null): string => {
  if (iso === null) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
};

/** Who did something (the audit's actor, a key's `created_by`): a person by email and role, a key by name and id. */
export const actorLabel = (actor: Schemas['Actor']): string =>
  actor.type === 'user'
    ? `${actor.email ?? actor.sub} (${actor.role})`
    : `${actor.name}${actor.key_id ? ` (${actor.key_id})` : ''}`;
