import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../lib/domain/change-events';
import { receiversOf, type StoredWebhook, webhooksConcerning } from '../../lib/domain/webhooks';
import { WEBHOOK_INDEX_PARTITION, webhookPartition } from '../../lib/storage/keys';

/**
 * The dispatcher reads the webhooks of the publishers a batch concerns, one partition each, and
 * the index of publishers with webhooks only when a global ban is among the events: never every
 * publisher's webhooks for every batch.
 */

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  ddb.on(QueryCommand).resolves({ Items: [] });
  ddb.on(QueryCommand, { ExpressionAttributeValues: { ':pk': WEBHOOK_INDEX_PARTITION } }).resolves({
    Items: [{ sk: 'pub-a' }, { sk: 'pub-b' }, { sk: 'pub-c' }],
  });
});

const banEvent = (publisher: string, scope: 'game' | 'publisher' | 'global') =>
  ({
    type: 'ban.created',
    event_id: 'evt_x',
    occurred_at: '2026-11-24T00:00:00.000Z',
    publisher_id: publisher,
    device_id: 'd',
    ban: { scope, game_id: 'g1' },
  }) as unknown as ChangeEvent;

const partitionsRead = () =>
  ddb
    .commandCalls(QueryCommand)
    .map((call) => call.args[0].input.ExpressionAttributeValues?.[':pk'])
    .sort();

describe('the webhooks a batch concerns', () => {
  it('reads only the owners of game and publisher bans, one partition each, never the index', async () => {
    await webhooksConcerning([
      banEvent('pub-a', 'game'),
      banEvent('pub-a', 'publisher'),
      banEvent('pub-b', 'game'),
    ]);
    expect(partitionsRead()).toEqual([webhookPartition('pub-a'), webhookPartition('pub-b')]);
  });

  it('reads the index and every indexed publisher for a global ban', async () => {
    await webhooksConcerning([banEvent('pub-a', 'global')]);
    expect(partitionsRead()).toEqual(
      [
        WEBHOOK_INDEX_PARTITION,
        webhookPartition('pub-a'),
        webhookPartition('pub-b'),
        webhookPartition('pub-c'),
      ].sort(),
    );
  });
});

describe("the webhooks an appeal's events go to", () => {
  const hook = (publisher_id: string, games: string[] | null): StoredWebhook => ({
    webhook_id: `wh_${publisher_id}_${games?.join('_') ?? 'all'}`,
    publisher_id,
    url: 'https://example.com/hook',
    events: ['appeal.created'],
    games,
    created_at: '2026-11-24T00:00:00.000Z',
    slot: 0,
  });
  const appealEvent = (banGame: string | null) =>
    ({
      type: 'appeal.created',
      event_id: 'evt_a',
      occurred_at: '2026-11-24T00:00:00.000Z',
      publisher_id: 'owner',
      filer_publisher_id: 'filer',
      ban_game_id: banGame,
      device_id: 'd',
      appeal: { filed_by: { publisher_id: 'filer', game_id: 'filer-game' } },
    }) as unknown as ChangeEvent;
  const hooks = [
    hook('owner', null),
    hook('owner', ['owner-game']),
    hook('owner', ['filer-game']),
    hook('filer', null),
    hook('filer', ['filer-game']),
    hook('filer', ['other-game']),
    hook('stranger', null),
  ];
  const ids = (event: ChangeEvent) => receiversOf(event, hooks).map((w) => w.webhook_id);

  it("reaches the owner's webhooks bound to the game of its game ban, and the filer's bound to the game it was filed from", () => {
    expect(ids(appealEvent('owner-game'))).toEqual([
      'wh_owner_all',
      'wh_owner_owner-game',
      'wh_filer_all',
      'wh_filer_filer-game',
    ]);
  });

  it("reaches only the owner's unbound webhooks for a publisher or global ban, as a key bound to games reads it", () => {
    expect(ids(appealEvent(null))).toEqual(['wh_owner_all', 'wh_filer_all', 'wh_filer_filer-game']);
  });
});
