import type { BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import { startLocalApi } from '../infra/local/server';
import { median } from './storage-probe';

/**
 * Part 12, the reach of a policy change: `POST /v1/policy/preview` (lib/domain/policy-reach.ts)
 * over POLICY_REACH_BANS (default 100,000) live bans, against reading the same live items straight
 * from the store (the same three partitions, whole items, 1 MB pages), in the same run, on
 * `npm start`'s API in this process on the embedded store. The bans are written straight into the
 * live sets (the API would take many minutes to make them): 60 % global bans of five publishers
 * (the bench's publisher one of them) on 30,000 devices, so quorums meet and fail, 20 % publisher
 * bans and 20 % game bans of the bench's publisher, a quarter of them social, an eighth expiring
 * later. The draft turns game bans off, social global bans on, and asks a quorum of 2, so every
 * device is judged under both policies. Two kinds of preview (lib/domain/live-set-copy.ts): cold,
 * the server's copies of the live sets forgotten first (each live set read whole), and warm, right
 * after another publisher's global ban went through the API and its feed (the copies catch up on
 * the feed). Each runs POLICY_REACH_RUNS (default 5) times, alternating with the store's reads;
 * the medians are reported. Exactness is checked: the last warm answer must equal a cold one made
 * after it, with nothing written between.
 *
 * Alone: `npx tsx bench/policy-reach.ts`; quicker: `POLICY_REACH_BANS=10000 npx tsx bench/policy-reach.ts`.
 */

export interface PolicyReachFigures {
  bans: number;
  /** The server's copies of the live sets forgotten first. */
  cold_ms: number;
  /** After one ban went through the feed since the last preview. */
  preview_ms: number;
  store_ms: number;
  devices_with_bans: number;
}

const PUBLISHERS = ['bench-reach', 'reach-b', 'reach-c', 'reach-d', 'reach-e'] as const;

export const measurePolicyReach = async (
  options: { bans?: number; runs?: number } = {},
): Promise<PolicyReachFigures> => {
  const bans = options.bans ?? Number(process.env.POLICY_REACH_BANS ?? 100_000);
  const runs = options.runs ?? Number(process.env.POLICY_REACH_RUNS ?? 5);
  const api = await startLocalApi({
    port: 0,
    console: false,
    env: { ...process.env, DYNAMODB_ENDPOINT: '', TABLE_NAME: '', DATA_DIR: ':memory:' },
  });
  try {
    // Imported after the store is chosen: the storage client reads its settings at import.
    const { createApiKey } = await import('../lib/domain/api-keys');
    // The same module the server's handler runs (sources, not bundles): its copies are these.
    const { clearLiveSetCopies } = await import('../lib/domain/live-set-copy');
    const { dynamo, tableName: boundTable } = await import('../lib/storage/client');
    const tableName = boundTable();
    const { BatchWriteCommand, QueryCommand } = await import('@aws-sdk/lib-dynamodb');
    const keys = await import('../lib/storage/keys');
    const publisher = PUBLISHERS[0];
    const game = 'g-reach';
    const { api_key: apiKey } = await createApiKey(publisher, 'bench');
    const { api_key: otherKey } = await createApiKey(PUBLISHERS[1], 'bench');
    const partitions = [
      keys.publisherFeedPartition(publisher),
      keys.gameFeedPartition(publisher, game),
      keys.GLOBAL_FEED_PARTITION,
    ];

    const item = (i: number) => {
      const tenth = i % 10;
      const scope = tenth < 6 ? 'global' : tenth < 8 ? 'publisher' : 'game';
      const by = scope === 'global' ? PUBLISHERS[i % PUBLISHERS.length] : publisher;
      const device = `reach-device-${String(i % 30_000).padStart(6, '0')}`;
      const ban = {
        ban_id: 1_000_000 + i,
        device_id: device,
        ban_type: i % 4 === 0 ? 'social' : 'cheat',
        scope,
        publisher_id: by,
        game_id: game,
        reason_code: 'bench_reason',
        created_at: '2026-11-01T00:00:00.000Z',
        expires_at: i % 8 === 0 ? '2099-01-01T00:00:00.000Z' : null,
        revoked_at: null,
      };
      const partition =
        scope === 'global' ? partitions[2] : scope === 'publisher' ? partitions[0] : partitions[1];
      return {
        PutRequest: {
          Item: {
            ...keys.liveBanKey(partition as string, device, ban.ban_id),
            device_id: device,
            occurred_at: ban.created_at,
            ban,
          },
        },
      };
    };
    for (let from = 0; from < bans; from += 25 * 8)
      await Promise.all(
        Array.from({ length: 8 }, async (_, b) => {
          const start = from + b * 25;
          let requests = Array.from({ length: Math.max(0, Math.min(25, bans - start)) }, (_, k) =>
            item(start + k),
          );
          while (requests.length > 0) {
            const answer: BatchWriteCommandOutput = await dynamo.send(
              new BatchWriteCommand({ RequestItems: { [tableName]: requests } }),
            );
            requests = (answer.UnprocessedItems?.[tableName] ?? []) as typeof requests;
          }
        }),
      );

    const draft = { enforce_game: false, enforce_social_global: true, global_quorum: 2 };
    const preview = async () => {
      const started = performance.now();
      const res = await fetch(`${api.url}/v1/policy/preview`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'x-game-id': game, 'content-type': 'application/json' },
        body: JSON.stringify(draft),
      });
      const body = (await res.json()) as { devices_with_bans: number; evaluated_at?: string };
      if (res.status !== 200) throw new Error(`preview answered ${res.status}: ${JSON.stringify(body)}`);
      return { ms: performance.now() - started, devices: body.devices_with_bans, body };
    };
    /** Another publisher's global ban, through the API and the dispatcher (live set and feed). */
    let made = 0;
    const banThroughFeed = async () => {
      made += 1;
      const res = await fetch(`${api.url}/v1/bans`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${otherKey}`,
          'x-game-id': 'g-other',
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          device_id: `reach-device-${String(made * 7).padStart(6, '0')}`,
          ban_type: 'cheat',
          scope: 'global',
          reason_code: 'bench_reason',
        }),
      });
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
      await api.events?.drain();
    };
    const storeRead = async () => {
      const started = performance.now();
      let read = 0;
      for (const partition of partitions) {
        let start: Record<string, unknown> | undefined;
        do {
          const page = await dynamo.send(
            new QueryCommand({
              TableName: tableName,
              KeyConditionExpression: 'pk = :pk AND begins_with(sk, :live)',
              ExpressionAttributeValues: { ':pk': partition, ':live': keys.LIVE_BAN_PREFIX },
              ConsistentRead: true,
              ...(start ? { ExclusiveStartKey: start } : {}),
            }),
          );
          read += page.Items?.length ?? 0;
          start = page.LastEvaluatedKey;
        } while (start);
      }
      if (read < bans) throw new Error(`the store gave ${read} of ${bans} live items`);
      return performance.now() - started;
    };
    const coldTimes: number[] = [];
    const previewTimes: number[] = [];
    const storeTimes: number[] = [];
    let devices = 0;
    let warm: Record<string, unknown> = {};
    for (let run = 0; run < runs; run += 1) {
      clearLiveSetCopies();
      coldTimes.push((await preview()).ms);
      await banThroughFeed();
      const answer = await preview();
      previewTimes.push(answer.ms);
      devices = answer.devices;
      warm = answer.body;
      storeTimes.push(await storeRead());
    }
    clearLiveSetCopies();
    const { evaluated_at: _warmAt, ...warmCounts } = warm;
    const { evaluated_at: _coldAt, ...coldCounts } = (await preview()).body;
    if (JSON.stringify(warmCounts) !== JSON.stringify(coldCounts))
      throw new Error(`warm ${JSON.stringify(warmCounts)} != cold ${JSON.stringify(coldCounts)}`);
    return {
      bans,
      cold_ms: median(coldTimes),
      preview_ms: median(previewTimes),
      store_ms: median(storeTimes),
      devices_with_bans: devices,
    };
  } finally {
    await api.close();
  }
};

const round = (n: number, digits = 2) => Number(n.toFixed(digits));

export const policyReachRows = (f: PolicyReachFigures) => [
  {
    part: '12 policy reach',
    subject: `POST /v1/policy/preview over ${f.bans.toLocaleString('en')} live bans (${f.devices_with_bans.toLocaleString('en')} devices), a ban through the feed since the last (Save, after the Policy view's count when it opened)`,
    value: `${round(f.preview_ms / 1000)} s`,
    baseline: `the store's Queries of the same items ${round(f.store_ms / 1000)} s`,
    ratio: round(f.preview_ms / f.store_ms),
    target: '< 1 s locally',
    ok: f.preview_ms < 1000,
  },
  {
    part: '12 policy reach',
    subject: 'the same, cold: the live sets read whole (a new process)',
    value: `${round(f.cold_ms / 1000)} s`,
    baseline: `the store's Queries of the same items ${round(f.store_ms / 1000)} s`,
    ratio: round(f.cold_ms / f.store_ms),
    target: 'reported',
    ok: true,
  },
];

if (import.meta.url === `file://${process.argv[1]}`) {
  process.env.LOG_LEVEL ??= 'silent';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const figures = await measurePolicyReach();
  console.log(JSON.stringify(figures, null, 2));
  console.table(policyReachRows(figures));
  process.exit(0);
}
