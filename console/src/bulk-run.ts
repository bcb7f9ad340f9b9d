import { BATCH_MAX_DEVICES } from '@kernel/requests';
import { type AnyAnswer, type Ban, type Call, explain, formatTime, type Schemas } from './api';
import { type BanTerms, type BanType, newIdempotencyKey } from './ban-terms';
import { check } from './validation';

/**
 * A bulk run's pieces: the pasted list, each device's work (a create, or the revocation of the
 * caller's own bans) and its outcome in words, the idempotency keys kept for the session.
 */

export type BatchResult = Schemas['EnforcementBatch']['results'][number];

/** Requests in flight at once during a run: enough to be quick, few enough not to be throttled. */
export const BULK_CONCURRENCY = 4;

export interface DeviceList {
  /** Distinct valid ids, in the order pasted: what is sent. */
  valid: string[];
  invalid: Array<{ id: string; problem: string }>;
  /** How many repeats were merged. */
  duplicates: number;
  /** More distinct ids than a batch takes: nothing is sent. */
  tooMany: boolean;
}

/** The pasted text as ids: split on newlines, commas and spaces, repeats merged, each checked. */
export const parseDeviceList = (text: string): DeviceList => {
  const all = text.split(/[\s,]+/).filter((id) => id !== '');
  const distinct = [...new Set(all)];
  const invalid: DeviceList['invalid'] = [];
  const valid: string[] = [];
  for (const id of distinct) {
    const problem = check('device_id', id);
    if (problem) invalid.push({ id, problem });
    else valid.push(id);
  }
  return {
    valid,
    invalid,
    duplicates: all.length - distinct.length,
    tooMany: distinct.length > BATCH_MAX_DEVICES,
  };
};

export type Outcome =
  | { kind: 'pending' }
  | { kind: 'created' | 'idempotent_ok'; banId: number }
  /** Not sent, or sent and answered already_active: the same ban of yours is in force. */
  | { kind: 'skipped'; banId: number; expiresAt: string | null; foundBy: 'check' | 'api' }
  | { kind: 'revoked'; banIds: number[] }
  | { kind: 'nothing' }
  | { kind: 'failed'; code: string; text: string }
  | { kind: 'not_sent' };

export const failed = (outcome: Outcome) => outcome.kind === 'failed' || outcome.kind === 'not_sent';

/** A refusal as the report shows it: the API's error code (or what kept the answer away) and one sentence. */
export const failure = (answer: AnyAnswer, before = ''): Outcome => {
  const body = answer.body as { error?: { code?: unknown } } | null;
  const code =
    'kind' in answer
      ? answer.kind
      : typeof body?.error?.code === 'string'
        ? body.error.code
        : `http_${answer.status}`;
  return { kind: 'failed', code, text: `${before}${explain(answer).text}` };
};

export const outcomeWords = (outcome: Outcome): string => {
  switch (outcome.kind) {
    case 'pending':
      return 'waiting';
    case 'created':
      return `created ban ${outcome.banId}`;
    case 'idempotent_ok':
      return `idempotent_ok: ban ${outcome.banId} was already made by this batch`;
    case 'skipped':
      return `skipped, already banned: ban ${outcome.banId} is in force, ${
        outcome.expiresAt === null ? 'permanent' : `until ${formatTime(outcome.expiresAt)}`
      } (${outcome.foundBy === 'check' ? 'found by the Check, not sent' : 'the API answered already_active'})`;
    case 'revoked':
      return `revoked ${outcome.banIds.length} (${outcome.banIds.map((id) => `ban ${id}`).join(', ')})`;
    case 'nothing':
      return 'nothing to revoke';
    case 'failed':
      return `${outcome.code}: ${outcome.text}`;
    case 'not_sent':
      return 'not sent: the run was stopped';
  }
};

/** One device's work in a run: a create, or the revocation of the caller's own bans. */
export type Task = (deviceId: string) => Promise<Outcome>;

export interface Run {
  /** What the report says the run did ("Ban: cheat, game scope, reason aimbot"). */
  label: string;
  /** The list and game it was started for. */
  question: string;
  devices: string[];
  outcomes: Record<string, Outcome>;
  running: boolean;
  /** Why it ended early, if it did. */
  stopped: null | 'stop' | 'changed';
  task: Task;
}

/**
 * Idempotency keys by device, game and form values, for as long as the session lasts (its `call`):
 * the same batch sent again, whole or its failures, makes no second ban.
 */
export const keysBySession = new WeakMap<Call, Map<string, string>>();
export const idempotencyKeyFor = (call: Call, identity: string) => {
  const keys = keysBySession.get(call) ?? new Map<string, string>();
  keysBySession.set(call, keys);
  const key = keys.get(identity) ?? newIdempotencyKey();
  keys.set(identity, key);
  return key;
};

/** Every active ban of the type on the device that the caller can see, all pages. */
export const activeBans = async (call: Call, game: string, deviceId: string, type: BanType) => {
  const bans: Ban[] = [];
  let cursor: number | undefined;
  for (;;) {
    const answer = await call('get', '/v1/device/{device_id}/bans', {
      path: { device_id: deviceId },
      query: { status: 'active', type, limit: 200, ...(cursor === undefined ? {} : { cursor }) },
      game,
    });
    if (answer.status !== 200) return { ok: false as const, answer };
    bans.push(...answer.body.items);
    if (answer.body.next_cursor === null) return { ok: true as const, bans };
    cursor = answer.body.next_cursor;
  }
};

/**
 * The devices the Check found restricted by the caller's own ban of these terms in force (the same
 * type, scope and reason, and game for a game ban), each with that ban: a run skips them. The
 * Check lists the bans your policy enforces; one it does not is found by the API (already_active).
 */
export const alreadyBanned = (
  results: readonly BatchResult[] | null,
  publisher: string | null,
  game: string,
  terms: Pick<BanTerms, 'ban_type' | 'scope' | 'reason_code'>,
): Map<string, Ban> => {
  const found = new Map<string, Ban>();
  if (!results || publisher === null) return found;
  for (const result of results) {
    if ('error' in result) continue;
    const same = result.bans.find(
      (b) =>
        b.publisher_id === publisher &&
        b.ban_type === terms.ban_type &&
        b.scope === terms.scope &&
        b.reason_code === terms.reason_code &&
        (terms.scope !== 'game' || b.game_id === game),
    );
    if (same) found.set(result.device_id, same);
  }
  return found;
};

/**
 * A create of the same ban on each device, but none on a device in `skip` (the Check found the ban
 * there): the same device, game and values get the same key, whichever retry sends it, and the
 * API's already_active (another moderator's ban, made since) is a skip, not a ban made.
 */
export const banTask =
  (call: Call, game: string, terms: BanTerms, skip: ReadonlyMap<string, Ban> = new Map()): Task =>
  async (deviceId) => {
    const found = skip.get(deviceId);
    if (found) return { kind: 'skipped', banId: found.ban_id, expiresAt: found.expires_at, foundBy: 'check' };
    const idempotency_key = idempotencyKeyFor(call, JSON.stringify([game, deviceId, terms]));
    const answer = await call('post', '/v1/bans', {
      body: { ...terms, device_id: deviceId, idempotency_key },
      game,
    });
    if (answer.status === 201) return { kind: 'created', banId: answer.body.ban_id };
    if (answer.status === 200)
      return answer.body.status === 'already_active'
        ? { kind: 'skipped', banId: answer.body.ban_id, expiresAt: answer.body.expires_at, foundBy: 'api' }
        : { kind: 'idempotent_ok', banId: answer.body.ban_id };
    return failure(answer);
  };

/** Revoking the caller's own active bans of the type on each device: another publisher's ban is theirs to revoke. */
export const revokeTask =
  (call: Call, game: string, publisher: string, type: BanType, reason: string): Task =>
  async (deviceId) => {
    const listed = await activeBans(call, game, deviceId, type);
    if (!listed.ok) return failure(listed.answer);
    const own = listed.bans.filter((b) => b.publisher_id === publisher);
    if (own.length === 0) return { kind: 'nothing' };
    const revoked: number[] = [];
    for (const b of own) {
      const answer = await call('post', '/v1/device/{device_id}/bans/{ban_id}/revoke', {
        path: { device_id: deviceId, ban_id: b.ban_id },
        body: { reason_code: reason },
        game,
      });
      if (answer.status !== 200)
        return failure(
          answer,
          revoked.length ? `revoked ${revoked.join(', ')}, then ban ${b.ban_id}: ` : `ban ${b.ban_id}: `,
        );
      revoked.push(b.ban_id);
    }
    return { kind: 'revoked', banIds: revoked };
  };
