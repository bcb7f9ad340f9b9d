import { HOT_ITEM_CREATES, measureHotItem } from './hot-item';
import {
  measureAppealRoundTrips,
  measureFeedPage,
  measureOverhead,
  measureRoundTrips,
  measureScale,
  measureWebhookRoundTrips,
  seedListingDevice,
  startInProcess,
} from './in-process';
import { measurePersonAuthorization } from './people';

const step = (name: string) => console.error(`  in-process: ${name}`);

/**
 * Parts 3, 3b, 4, 4b and 6 of `npm run bench`: the handlers called in this process over one
 * in-memory store (bench/in-process.ts), so they share its seeded data. Run by bench/run.ts in a
 * process of its own (bench/part.ts).
 */
export const measureInProcessParts = async (invocations: number, scaleSizes: readonly number[]) => {
  const env = await startInProcess();
  try {
    await seedListingDevice(env);
    step('round trips (and a feed page, and the appeals, and the webhooks)');
    const roundTrips = await measureRoundTrips(env);
    roundTrips.push(await measureFeedPage(env));
    roundTrips.push(...(await measureAppealRoundTrips(env)));
    roundTrips.push(...(await measureWebhookRoundTrips(env)));
    step(`hot item (writes per item over ${HOT_ITEM_CREATES} creates)`);
    const hotItem = await measureHotItem(env);
    step(`handler overhead (${invocations} warm invocations per operation)`);
    const overhead = await measureOverhead(env, invocations);
    step(`a person's access token through the authorizer (${invocations} warm, alternating with a key)`);
    const personAuth = await measurePersonAuthorization(env, invocations);
    step(`scale (${scaleSizes.join(', ')} visible bans)`);
    const scale = await measureScale(env, scaleSizes);
    return { roundTrips, hotItem, overhead, personAuth, scale };
  } finally {
    await env.close();
  }
};
