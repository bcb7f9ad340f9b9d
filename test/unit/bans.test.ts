import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { isActive } from '@kernel/policy-rules';
import { REVOKE_REASONS } from '@kernel/revoke-reasons';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setClock } from '../../lib/clock';
import { banIdOf } from '../../lib/domain/ban-ids';
import { createBan, listSocialBans } from '../../lib/domain/bans';
import { defaultPolicyFlags } from '../../lib/domain/policy';
import { revokeBanRequestSchema } from '../../lib/model/requests';
import type { Actor } from '../../lib/model/responses';
import {
  auditActorPrefix,
  auditDevicePrefix,
  auditPartition,
  banKey,
  bannedDeviceKey,
  counterKey,
  devicePartition,
  idempotencyKey,
  partitions,
  policyKey,
  reasonsKey,
  reversedBannedDeviceKey,
} from '../../lib/storage/keys';

const ddb = mockClient(DynamoDBDocumentClient);
const conditionFailed = () =>
  Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });

const actor: Actor = { type: 'key', key_id: 'key_abcdefghijkl', name: 'game server' };
const request = { device_id: 'dev-1', ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' } as const;

const idem = idempotencyKey('pub-a', 'game-1', 'k-1');

// The service's clock (lib/clock.ts), set a second later for each test: its creates are stamped with
// a time of their own.
let clock = Date.UTC(2026, 10, 23, 12);
beforeEach(() => {
  ddb.reset();
  clock += 1000;
  setClock(() => clock);
  ddb.on(UpdateCommand).resolves({ Attributes: { value: 42 } });
  ddb.on(PutCommand).resolves({});
  // No reason catalogue (its read runs beside the counter's); tests of the idempotency record add theirs.
  ddb.on(GetCommand, { Key: reasonsKey('pub-a') }).resolves({});
  // No ban on the device yet (its Query runs beside the counter's); the already_active tests add theirs.
  ddb.on(QueryCommand).resolves({ Items: [] });
});
afterEach(() => {
  vi.restoreAllMocks();
  setClock(undefined);
});

/** The id the create took: the counter item it added to, its count 42, and the clock's last reading. */
const takenId = () => {
  const pk = String(ddb.commandCalls(UpdateCommand)[0]?.args[0].input.Key?.pk);
  return banIdOf(clock, Number(pk.slice(partitions.counter.length)), 42);
};
const banSk = (id: number) => banKey('dev-1', id).sk;

describe('createBan', () => {
  it('takes an id from the counter, puts the ban conditionally beside its two entries among banned devices, then its event and its copies under its actor and device: 9 calls without a key (the reason catalogue read and the device Query beside the counter)', async () => {
    const result = await createBan('pub-a', 'game-1', request, actor);

    expect(result).toEqual({
      ban_id: takenId(),
      device_id: 'dev-1',
      ban_type: 'cheat',
      scope: 'game',
      publisher_id: 'pub-a',
      game_id: 'game-1',
      status: 'created',
    });
    expect(ddb.calls()).toHaveLength(9);
    const counter = ddb.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(counter).toMatchObject({
      Key: { pk: expect.stringMatching(new RegExp(`^${partitions.counter}\\d\\d$`)), sk: counterKey(0).sk },
      UpdateExpression: 'ADD #value :one',
      ReturnValues: 'UPDATED_NEW',
    });
    const put = ddb.commandCalls(PutCommand)[0]?.args[0].input;
    expect(put?.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(put?.Item).toMatchObject({
      pk: devicePartition('dev-1'),
      sk: banSk(takenId()),
      ban_id: takenId(),
      publisher_id: 'pub-a',
      game_id: 'game-1',
      expires_at: null,
      revoked_at: null,
      created_by: actor,
    });
    expect(put?.Item).not.toHaveProperty('details_json');
    // Beside the ban, its entry in the publisher's index of banned devices: its own item, no condition.
    const entry = ddb.commandCalls(PutCommand)[1]?.args[0].input;
    expect(entry?.Item).toEqual({
      ...bannedDeviceKey('pub-a', 'dev-1', takenId()),
      device_id: 'dev-1',
      game_id: 'game-1',
      created_at: put?.Item?.created_at,
    });
    expect(entry?.ConditionExpression).toBeUndefined();
    // And under the id reversed, so the end of an id finds it too.
    const reversed = ddb.commandCalls(PutCommand)[2]?.args[0].input;
    expect(reversed?.Item).toEqual({
      ...entry?.Item,
      ...reversedBannedDeviceKey('pub-a', 'dev-1', takenId()),
    });
    expect(reversed?.Item?.sk).toBe(`#1-ved#${String(takenId()).padStart(16, '0')}`);
    const event = ddb.commandCalls(PutCommand)[3]?.args[0].input;
    expect(event?.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(event?.Item).toMatchObject({
      pk: auditPartition('pub-a'),
      sk: expect.stringMatching(/^EVENT#\d{4}-.*Z#evt_[A-Za-z0-9_-]{24}$/),
      type: 'ban.created',
      device_id: 'dev-1',
      event: { type: 'ban.created', ban_id: takenId(), actor, reason_code: 'aimbot' },
    });
    // After the event, its copies for the actor and device filters: the same attributes, no condition.
    const eventAt = String(event?.Item?.sk).slice('EVENT#'.length);
    const copies = ddb
      .commandCalls(PutCommand)
      .slice(4)
      .map((c) => c.args[0].input);
    expect(copies.map((copy) => copy.Item?.sk)).toEqual([
      `${auditActorPrefix(String(actor.key_id))}${eventAt}`,
      `${auditDevicePrefix('dev-1')}${eventAt}`,
    ]);
    for (const copy of copies) {
      expect(copy.ConditionExpression).toBeUndefined();
      expect(copy.Item).toEqual({ ...event?.Item, sk: copy.Item?.sk, actor_id: actor.key_id });
    }
  });

  it('withdraws a ban made without a key when its event cannot be written, and lets the failure through', async () => {
    const throttled = Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
    ddb.on(PutCommand, { Item: { pk: auditPartition('pub-a') } }).rejects(throttled);
    ddb.on(DeleteCommand).resolves({});

    await expect(createBan('pub-a', 'game-1', request, actor)).rejects.toBe(throttled);

    const deleted = ddb.commandCalls(DeleteCommand).map((c) => c.args[0].input.Key);
    expect(deleted).toEqual([
      { pk: auditPartition('pub-a'), sk: expect.stringMatching(/^EVENT#/) },
      { pk: auditPartition('pub-a'), sk: expect.stringMatching(/^BY#/) },
      { pk: auditPartition('pub-a'), sk: expect.stringMatching(/^DEV#dev-1#/) },
      bannedDeviceKey('pub-a', 'dev-1', takenId()),
      reversedBannedDeviceKey('pub-a', 'dev-1', takenId()),
      banKey('dev-1', takenId()),
    ]);
  });

  it('claims the idempotency key with a record holding the whole ban before the ban and its event: 10 calls with a new key', async () => {
    await createBan('pub-a', 'game-1', { ...request, idempotency_key: 'k-1', details: { match: 7 } }, actor);

    expect(ddb.calls()).toHaveLength(10);
    const [claim, ban] = ddb.commandCalls(PutCommand).map((c) => c.args[0].input);
    expect(claim).toMatchObject({
      Item: idem,
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    expect(claim?.Item?.ban).toMatchObject({ ban_id: takenId(), details_json: '{"match":7}' });
    expect(ban?.Item).toMatchObject({
      sk: banSk(takenId()),
      details_json: '{"match":7}',
      idempotency_key: 'k-1',
    });
  });

  it('returns idempotent_ok with the original ban when the key repeats, and re-puts its item if missing', async () => {
    const original = {
      ban_id: 7,
      device_id: 'dev-1',
      ban_type: 'social',
      scope: 'global',
      publisher_id: 'pub-a',
      game_id: 'game-1',
      reason_code: 'x',
      created_at: '2026-01-01T00:00:00.000Z',
      expires_at: null,
      revoked_at: null,
    };
    ddb.on(PutCommand, { Item: { pk: idem.pk } }).rejects(conditionFailed());
    ddb.on(GetCommand, { Key: idem }).resolves({ Item: { ...idem, ban: original } });

    const result = await createBan('pub-a', 'game-1', { ...request, idempotency_key: 'k-1' }, actor);

    expect(result).toEqual({
      ban_id: 7,
      device_id: 'dev-1',
      ban_type: 'social',
      scope: 'global',
      publisher_id: 'pub-a',
      game_id: 'game-1',
      status: 'idempotent_ok',
    });
    expect(ddb.commandCalls(GetCommand, { Key: idem })[0]?.args[0].input).toMatchObject({
      Key: idem,
      ConsistentRead: true,
    });
    const rePut = ddb.commandCalls(PutCommand)[1]?.args[0].input;
    expect(rePut).toMatchObject({
      Item: banKey('dev-1', 7),
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  });

  it('answers created when its own idempotency claim landed but the answer was lost and the retry failed the condition', async () => {
    ddb.on(PutCommand, { Item: { pk: idem.pk } }).rejects(conditionFailed());
    ddb.on(GetCommand, { Key: idem }).callsFake((input) => ({
      Item: { ...input.Key, ban: ddb.commandCalls(PutCommand)[0]?.args[0].input.Item?.ban },
    }));

    const result = await createBan('pub-a', 'game-1', { ...request, idempotency_key: 'k-1' }, actor);

    expect(result).toMatchObject({ ban_id: takenId(), status: 'created' });
    expect(ddb.commandCalls(PutCommand)[1]?.args[0].input.Item).toMatchObject({ sk: banSk(takenId()) });
  });

  it('answers created when a racing repeat already put the ban item', async () => {
    ddb.on(PutCommand, { Item: { pk: devicePartition('dev-1') } }).rejects(conditionFailed());
    const result = await createBan('pub-a', 'game-1', request, actor);
    expect(result).toMatchObject({ status: 'created', ban_id: takenId() });
  });

  it("answers already_active with the caller's own ban in force of the same terms, and writes nothing", async () => {
    const inForce = {
      ...banKey('dev-1', 9),
      ban_id: 9,
      device_id: 'dev-1',
      ban_type: 'cheat',
      scope: 'game',
      publisher_id: 'pub-a',
      game_id: 'game-1',
      reason_code: 'aimbot',
      created_at: '2026-01-01T00:00:00.000Z',
      expires_at: '2099-01-01T00:00:00.000Z',
      revoked_at: null,
    };
    // The filter runs in DynamoDB; what it lets through may still have expired.
    const expired = { ...inForce, ...banKey('dev-1', 8), ban_id: 8, expires_at: '2026-02-01T00:00:00.000Z' };
    ddb.on(QueryCommand).resolves({ Items: [inForce, expired] });
    ddb.on(GetCommand, { Key: idempotencyKey('pub-a', 'game-1', 'new-key') }).resolves({});

    const result = await createBan('pub-a', 'game-1', { ...request, idempotency_key: 'new-key' }, actor);

    expect(result).toEqual({
      ban_id: 9,
      device_id: 'dev-1',
      ban_type: 'cheat',
      scope: 'game',
      publisher_id: 'pub-a',
      game_id: 'game-1',
      status: 'already_active',
      reason_code: 'aimbot',
      created_at: '2026-01-01T00:00:00.000Z',
      expires_at: '2099-01-01T00:00:00.000Z',
    });
    const query = ddb.commandCalls(QueryCommand)[0]?.args[0].input;
    expect(query).toMatchObject({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :ban)',
      FilterExpression:
        'publisher_id = :publisher AND ban_type = :type AND #scope = :scope AND reason_code = :reason AND revoked_at = :null AND game_id = :game',
      ExpressionAttributeValues: expect.objectContaining({
        ':pk': devicePartition('dev-1'),
        ':publisher': 'pub-a',
        ':game': 'game-1',
      }),
      ConsistentRead: true,
    });
    // The key's record read (unclaimed), and no put, delete or event.
    expect(ddb.commandCalls(GetCommand, { Key: idempotencyKey('pub-a', 'game-1', 'new-key') })).toHaveLength(
      1,
    );
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
    expect(ddb.commandCalls(DeleteCommand)).toHaveLength(0);
  });

  it('reads no device bans with allow_duplicate, and makes the ban', async () => {
    const result = await createBan('pub-a', 'game-1', { ...request, allow_duplicate: true }, actor);
    expect(result).toMatchObject({ status: 'created' });
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('lets a storage failure through untouched so the chain can answer 503', async () => {
    ddb.on(PutCommand).rejects(Object.assign(new Error('slow down'), { name: 'ThrottlingException' }));
    await expect(createBan('pub-a', 'game-1', request, actor)).rejects.toMatchObject({
      name: 'ThrottlingException',
    });
  });
});

const stored = (banId: number, overrides: Record<string, unknown> = {}) => ({
  ...banKey('dev-1', banId),
  ban_id: banId,
  device_id: 'dev-1',
  ban_type: 'social',
  scope: 'global',
  publisher_id: 'pub-a',
  game_id: 'game-1',
  reason_code: 'spam',
  details_json: '{"secret":true}',
  created_at: '2026-01-01T00:00:00.000Z',
  expires_at: null,
  revoked_at: null,
  ...overrides,
});

const policyOf = (publisherId: string) => ({
  Item: { publisher_id: publisherId, ...defaultPolicyFlags, updated_at: '2026-01-01T00:00:00.000Z' },
});

describe('listSocialBans', () => {
  beforeEach(() => {
    ddb.on(GetCommand, { Key: policyKey('pub-a') }).resolves(policyOf('pub-a'));
    ddb.on(GetCommand, { Key: policyKey('pub-b') }).resolves(policyOf('pub-b'));
  });

  it('reads the device newest first with the visibility rule as a filter, one Query per storage page', async () => {
    ddb
      .on(QueryCommand)
      .resolvesOnce({
        Items: [stored(9), stored(8)],
        LastEvaluatedKey: banKey('dev-1', 8),
      })
      .resolvesOnce({ Items: [stored(3)] });

    const list = await listSocialBans('pub-b', 'game-2', 'dev-1', { status: 'all', limit: 50 });

    expect(ddb.commandCalls(QueryCommand)).toHaveLength(2);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(1);
    expect(ddb.calls()).toHaveLength(3);
    const query = ddb.commandCalls(QueryCommand)[0]?.args[0].input;
    expect(query).toMatchObject({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :ban)',
      ScanIndexForward: false,
      ConsistentRead: true,
      ExpressionAttributeValues: {
        ':pk': devicePartition('dev-1'),
        ':type': 'social',
        ':publisher': 'pub-b',
        ':game': 'game-2',
      },
    });
    expect(ddb.commandCalls(QueryCommand)[1]?.args[0].input.ExclusiveStartKey).toEqual(banKey('dev-1', 8));
    expect(list.items.map((b) => b.ban_id)).toEqual([9, 8, 3]);
    // Another publisher's metadata is private; a global ban has no game.
    expect(list.items[0]).toMatchObject({ details_json: null, game_id: null, publisher_id: 'pub-a' });
  });

  it('shows the owner its details and the game of a game ban', async () => {
    ddb.on(QueryCommand).resolves({ Items: [stored(5, { scope: 'game' })] });
    const list = await listSocialBans('pub-a', 'game-1', 'dev-1', { status: 'active', limit: 50 });
    expect(list.items[0]).toMatchObject({ details_json: { secret: true }, game_id: 'game-1' });
  });

  it('counts every visible ban whatever the filter and page, and pages by cursor', async () => {
    const past = '2020-01-01T00:00:00.000Z';
    ddb.on(QueryCommand).resolves({
      Items: [
        stored(6),
        stored(5, { expires_at: past }),
        stored(4),
        stored(3, { revoked_at: past }),
        stored(2),
        stored(1),
      ],
    });

    const first = await listSocialBans('pub-a', 'game-1', 'dev-1', { status: 'active', limit: 2 });
    expect(first.counts).toEqual({ active: 4, inactive: 2, total: 6 });
    expect(first.items.map((b) => b.ban_id)).toEqual([6, 4]);
    expect(first.next_cursor).toBe(4);

    const second = await listSocialBans('pub-a', 'game-1', 'dev-1', {
      status: 'active',
      limit: 2,
      cursor: 4,
    });
    expect(second.counts).toEqual(first.counts);
    expect(second.items.map((b) => b.ban_id)).toEqual([2, 1]);
    expect(second.next_cursor).toBeNull();

    const inactive = await listSocialBans('pub-a', 'game-1', 'dev-1', { status: 'inactive', limit: 50 });
    expect(inactive.items.map((b) => b.ban_id)).toEqual([5, 3]);
  });
});

describe('isActive', () => {
  const now = '2026-06-01T00:00:00.000Z';
  it.each([
    [{ revoked_at: null, expires_at: null }, true],
    [{ revoked_at: null, expires_at: '2026-06-01T00:00:00.001Z' }, true],
    [{ revoked_at: null, expires_at: now }, false],
    [{ revoked_at: '2026-01-01T00:00:00.000Z', expires_at: null }, false],
  ])('is %o → %s', (ban, expected) => {
    expect(isActive(ban, now)).toBe(expected);
  });
});

describe('the revoke reasons the console offers', () => {
  it('are each a reason code the revoke route takes, listed once', () => {
    const codes = REVOKE_REASONS.map((r) => r.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const reason_code of codes)
      expect(revokeBanRequestSchema.safeParse({ reason_code }).success, reason_code).toBe(true);
  });
});
