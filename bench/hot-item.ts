import { pathToFileURL } from 'node:url';
import { type InProcess, measureRoundTrips, startInProcess } from './in-process';
import { operations } from './operations';

/**
 * The hottest item of ban creation. DynamoDB serves about 1,000 writes a second on one item (1 KB
 * each), so the item written by the largest share of creates caps how fast creates can go, for
 * every publisher together. One counter item for every ban id was written by every create: 1/2 of
 * all writes, a ceiling near 1,000 creates/s. lib/domain/ban-ids.ts spreads the ids over
 * BAN_ID_SHARDS (32) counters.
 *
 * Measured over `creates` creates through the same in-process path as the round trips (the
 * "create ban" operation: one UpdateItem on a counter, one PutItem of the ban), counting the
 * writes per item (pk + sk) with the storage probe. One process takes the counters in turn; many
 * Lambda instances each start at a random counter, so across a fleet the spread is even on average.
 *
 * Runs alone: `npx tsx bench/hot-item.ts` (a few seconds); `npm run bench` includes its rows.
 */

export const HOT_ITEM_CREATES = 1_000;
/** DynamoDB's write limit on one item (one partition), in writes of up to 1 KB a second. */
export const ITEM_WRITES_PER_SECOND = 1_000;

export const measureHotItem = async (env: InProcess, creates = HOT_ITEM_CREATES) => {
  // Imported once the store is chosen: the storage client reads its settings at import.
  const { BAN_ID_SHARDS } = await import('../lib/domain/ban-ids');
  const create = operations.find((op) => op.name === 'create ban');
  if (!create) throw new Error('no "create ban" operation');
  env.probe.reset();
  for (let i = 0; i < creates; i++) await env.invoke(create.route, create.event('bench-publisher'));
  const writes = env.probe.writes();
  env.probe.reset();
  const [hottestItem = 'none', hottestWrites = 0] = writes[0] ?? [];
  const totalWrites = writes.reduce((sum, [, n]) => sum + n, 0);
  const perCreate = hottestWrites / creates;
  return {
    creates,
    counters: BAN_ID_SHARDS,
    total_writes: totalWrites,
    items_written: writes.length,
    hottest_item: hottestItem,
    hottest_writes: hottestWrites,
    /** The hottest item's share of all writes (one counter for every id: 1/2). */
    hottest_share: totalWrites ? hottestWrites / totalWrites : 0,
    hottest_writes_per_create: perCreate,
    /** Creates a second before the hottest item reaches DynamoDB's per-item limit. */
    ceiling_creates_per_s: perCreate ? ITEM_WRITES_PER_SECOND / perCreate : Number.POSITIVE_INFINITY,
    /** The next most written items, for the record. */
    top_items: writes.slice(0, 5).map(([item, n]) => ({ item, writes: n })),
  };
};

export type HotItem = Awaited<ReturnType<typeof measureHotItem>>;

const thousands = (n: number) => Math.round(n).toLocaleString('en-US');
const percent = (share: number) => `${(share * 100).toFixed(1)} %`;

/** The report's rows (bench/run.ts): the hottest item's share of the writes, and the ceiling it sets. */
export const hotItemRows = (hot: HotItem) => {
  // Round-robin over the counters: no counter takes more than its even share, rounded up.
  const evenShare = Math.ceil(hot.creates / hot.counters);
  const targetCeiling = (ITEM_WRITES_PER_SECOND * hot.creates) / evenShare;
  return [
    {
      part: '3b hot item',
      subject: `largest share of writes on one item (${thousands(hot.creates)} creates)`,
      value: `${hot.hottest_writes} of ${thousands(hot.total_writes)} writes (${percent(hot.hottest_share)}), on ${percent(hot.hottest_writes_per_create)} of creates`,
      baseline: `one counter: ${thousands(hot.creates)} of ${thousands(2 * hot.creates)} (50.0 %)`,
      ratio: fixed(hot.hottest_share / 0.5, 3),
      target: `≤ ${evenShare} writes (1/${hot.counters} of creates)`,
      ok: hot.hottest_writes <= evenShare,
    },
    {
      part: '3b hot item',
      subject: 'creation ceiling from the hottest item',
      value: `~${thousands(Math.round(hot.ceiling_creates_per_s / 1000) * 1000)} creates/s (${thousands(ITEM_WRITES_PER_SECOND)} ÷ ${hot.hottest_writes_per_create})`,
      baseline: `one counter: ~${thousands(ITEM_WRITES_PER_SECOND)} creates/s (${thousands(ITEM_WRITES_PER_SECOND)} writes/s per item)`,
      ratio: fixed(hot.ceiling_creates_per_s / ITEM_WRITES_PER_SECOND, 1),
      target: `≥ ${thousands(targetCeiling)} creates/s (${hot.counters} even counters)`,
      ok: hot.ceiling_creates_per_s >= targetCeiling,
    },
  ];
};

const fixed = (n: number, digits: number) => Number(n.toFixed(digits));

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.env.LOG_LEVEL = 'silent';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const env = await startInProcess();
  const roundTrips = (await measureRoundTrips(env)).filter((r) => r.operation.startsWith('create ban'));
  const started = performance.now();
  const hot = await measureHotItem(env);
  const seconds = (performance.now() - started) / 1000;
  await env.close();
  console.table(
    roundTrips.map((r) => ({ operation: r.operation, calls: r.calls, floor: r.floor, ...r.by_command })),
  );
  console.table(hotItemRows(hot));
  console.log(JSON.stringify({ ...hot, seconds: fixed(seconds, 1) }, null, 2));
}
