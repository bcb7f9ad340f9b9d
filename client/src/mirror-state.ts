import type { components } from './api-types.js';
import { type BanCopy, putBan } from './ban-copy.js';

/**
 * The mirror's copy and its state file. The file holds what `check` and `decide` read of each ban
 * and nothing else, is written in chunks that give the event loop back between them (hashed as
 * they go, for the checksum), to a new file renamed over the old one, and is read back only when
 * its format, checksum, game and shape all hold.
 */

type Schemas = components['schemas'];
type Policy = Schemas['Policy'];
type SnapshotItem = Schemas['EnforcementSnapshot']['items'][number];

/** A ban as the mirror keeps it: the snapshot's item (its device, and the ban as listings show it). */
export type MirroredBan = Omit<SnapshotItem, 'enforced'>;

export interface MirrorCopy extends BanCopy<MirroredBan> {
  policy: Policy;
  cursor: string;
  /** The store the copy was built from (the snapshot's); null when the server did not name it. */
  deploymentId: string | null;
}

export const emptyCopy = (policy: Policy, cursor: string, deploymentId: string | null): MirrorCopy => ({
  policy,
  cursor,
  deploymentId,
  devices: new Map(),
  count: 0,
});

/** /4: bound to its deployment, holding only what a check reads, each ban's statement of reasons included. */
export const STATE_FORMAT = 'device-ban-mirror/4';
const FORMAT_FAMILY = 'device-ban-mirror/';

/**
 * The fields kept of each ban, in the order of the file's tuples: what the rules read (scope,
 * ban_type, publisher_id, expires_at; ban_id for the order) and what `check` returns of an
 * enforced ban. Left out, as the copy always has them: device_id (the tuple's group), revoked_at
 * and revoke_reason_code (null: a revoked ban leaves the copy), created_by (null: the feed does
 * not carry it), enforced (judged at each check).
 */
export const BAN_FIELDS = [
  'ban_id',
  'ban_type',
  'scope',
  'publisher_id',
  'game_id',
  'reason_code',
  'details_json',
  'created_at',
  'expires_at',
  'player_message',
  'appealable',
  'appeal',
  'statement',
  'message_locale',
  'translations',
] as const;

const tupleOf = (ban: MirroredBan) => BAN_FIELDS.map((field) => ban[field]);

const banOf = (deviceId: string, tuple: readonly unknown[]): MirroredBan => {
  const ban: Record<string, unknown> = {};
  BAN_FIELDS.forEach((field, i) => {
    ban[field] = tuple[i];
  });
  return {
    ...(ban as Omit<MirroredBan, 'device_id' | 'revoked_at' | 'revoke_reason_code' | 'created_by'>),
    device_id: deviceId,
    revoked_at: null,
    revoke_reason_code: null,
    created_by: null,
  };
};

/** How the checksum is computed: the caller loads node:crypto (the file is node-only). */
export type Hash = { update(text: string): unknown; digest(encoding: 'hex'): string };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isNullableString = (value: unknown) => value === null || typeof value === 'string';

const validTuple = (tuple: unknown): tuple is unknown[] =>
  Array.isArray(tuple) &&
  tuple.length === BAN_FIELDS.length &&
  typeof tuple[0] === 'number' &&
  (tuple[1] === 'cheat' || tuple[1] === 'social') &&
  (tuple[2] === 'game' || tuple[2] === 'publisher' || tuple[2] === 'global') &&
  typeof tuple[3] === 'string' &&
  isNullableString(tuple[8]);

const CHECKSUM_KEY = ',"checksum":"';

/**
 * The stored copy, or why it cannot be used. The checksum is of every character before it, as
 * written, so it is checked on the text, not on a re-serialization.
 */
export const parseState = (text: string, gameId: string, hash: () => Hash): MirrorCopy | string => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'the state file is not JSON';
  }
  if (
    isRecord(value) &&
    typeof value.format === 'string' &&
    value.format !== STATE_FORMAT &&
    value.format.startsWith(FORMAT_FAMILY)
  )
    return `the state file is of another format (${value.format})`;
  if (!isRecord(value) || value.format !== STATE_FORMAT) return 'the state file is not a mirror state';
  const at = text.lastIndexOf(CHECKSUM_KEY);
  const { checksum } = value;
  if (typeof checksum !== 'string' || at < 0) return 'the state file has no checksum';
  const digest = hash();
  digest.update(text.slice(0, at));
  if (digest.digest('hex') !== checksum)
    return 'the state file was edited or damaged (its checksum does not match)';
  if (value.game_id !== gameId) return `the state file is for game ${String(value.game_id)}`;
  const { devices } = value;
  if (
    typeof value.cursor !== 'string' ||
    typeof value.publisher_id !== 'string' ||
    !isNullableString(value.deployment_id) ||
    !isRecord(value.policy) ||
    value.policy.publisher_id !== value.publisher_id ||
    JSON.stringify(value.ban_fields) !== JSON.stringify(BAN_FIELDS) ||
    !Array.isArray(devices) ||
    !devices.every(
      (entry) =>
        Array.isArray(entry) &&
        entry.length === 2 &&
        typeof entry[0] === 'string' &&
        Array.isArray(entry[1]) &&
        entry[1].every(validTuple),
    )
  )
    return 'the state file is damaged';
  const copy = emptyCopy(
    value.policy as unknown as Policy,
    value.cursor,
    (value.deployment_id as string | null) ?? null,
  );
  for (const [deviceId, tuples] of devices as Array<[string, unknown[][]]>)
    for (const tuple of tuples) putBan(copy, banOf(deviceId, tuple));
  return copy;
};

/** Text written between two yields to the event loop: a few milliseconds of serializing. */
const CHUNK_CHARS = 256 * 1024;

/**
 * Writes the copy to `file`: to a new file and renamed over the old one, so a crash leaves one or
 * the other whole. The new file has a random name and is created exclusively (never opened if
 * anything, such as a symlink another account planted in a shared folder, is already there),
 * readable by this account alone; the rename keeps that mode, so the state file is 0600 too.
 *
 * The copy may change between chunks (the polls go on). Its cursor and policy are taken first, so
 * a ban written later can only be newer than the cursor, and the replay from that cursor makes the
 * restored copy exact, as it does a snapshot read while bans change.
 */
export const writeState = async (
  file: string,
  copy: MirrorCopy,
  gameId: string,
): Promise<{ bytes: number }> => {
  const { open, rename, unlink } = await import('node:fs/promises');
  const { createHash, randomBytes } = await import('node:crypto');
  const head = `${JSON.stringify({
    format: STATE_FORMAT,
    game_id: gameId,
    publisher_id: copy.policy.publisher_id,
    deployment_id: copy.deploymentId,
    cursor: copy.cursor,
    policy: copy.policy,
    ban_fields: BAN_FIELDS,
  }).slice(0, -1)},"devices":[`;
  const hash = createHash('sha256');
  const temporary = `${file}.${randomBytes(12).toString('hex')}.tmp`;
  const handle = await open(temporary, 'wx', 0o600);
  let bytes = 0;
  const put = async (text: string) => {
    hash.update(text);
    bytes += (await handle.write(text)).bytesWritten;
  };
  try {
    try {
      let chunk = head;
      let first = true;
      for (const [deviceId, bans] of copy.devices) {
        chunk += `${first ? '' : ','}${JSON.stringify([deviceId, [...bans.values()].map(tupleOf)])}`;
        first = false;
        if (chunk.length >= CHUNK_CHARS) {
          await put(chunk);
          chunk = '';
        }
      }
      await put(`${chunk}]`);
      // The checksum last, over everything before it (parseState checks it the same way).
      const tail = `${CHECKSUM_KEY}${hash.digest('hex')}"}`;
      bytes += (await handle.write(tail)).bytesWritten;
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
  return { bytes };
};

/** JSON with object keys sorted: two values that mean the same compare equal. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isRecord(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
};

/** Devices compared between two yields to the event loop. */
const COMPARED_PER_TURN = 5_000;

/**
 * Where two copies at the same feed position disagree on what a check reads at `at`: the devices
 * whose bans in force differ, and whether the policies do. Bans ended by `at` are left out (one
 * copy may have pruned them, and no check reads them).
 */
export const compareCopies = async (
  a: MirrorCopy,
  b: MirrorCopy,
  at: string,
): Promise<{ devices: string[]; policy: boolean }> => {
  const inForce = (copy: MirrorCopy, deviceId: string) =>
    [...(copy.devices.get(deviceId)?.values() ?? [])]
      .filter((ban) => ban.expires_at === null || ban.expires_at > at)
      .sort((x, y) => x.ban_id - y.ban_id)
      .map((ban) => canonical(tupleOf(ban)))
      .join('\n');
  const devices: string[] = [];
  let seen = 0;
  for (const deviceId of new Set([...a.devices.keys(), ...b.devices.keys()])) {
    if (inForce(a, deviceId) !== inForce(b, deviceId)) devices.push(deviceId);
    seen += 1;
    if (seen % COMPARED_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  return { devices, policy: canonical(a.policy) !== canonical(b.policy) };
};
