import {
  measureAppealRoundTrips,
  measureFeedPage,
  measureRoundTrips,
  measureWebhookRoundTrips,
  seedListingDevice,
  startInProcess,
} from './in-process';

/**
 * Part 3 of `npm run bench` alone, in seconds: the storage calls of each operation (the feed page
 * and the appeals included) against its floor, on the same in-memory store and in the same order
 * as the whole run. `npx tsx bench/round-trips.ts`; exits 1 when a count is off its floor.
 */

process.env.LOG_LEVEL = 'silent';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const env = await startInProcess();
await seedListingDevice(env);
const rows = [
  ...(await measureRoundTrips(env)),
  await measureFeedPage(env),
  ...(await measureAppealRoundTrips(env)),
  ...(await measureWebhookRoundTrips(env)),
];
await env.close();
console.table(rows.map((r) => ({ operation: r.operation, calls: r.calls, floor: r.floor, ...r.by_command })));
const off = rows.filter((r) => r.calls !== r.floor);
console.error(`${rows.length - off.length} of ${rows.length} operations at their floor`);
process.exitCode = off.length === 0 ? 0 : 1;
