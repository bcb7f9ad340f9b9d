import type { Browser } from 'playwright-core';
import { connectChromium, launchChromium as launchOwn } from '../../../infra/chromium';

/**
 * The browser of a test file: the one Chromium `npm run test:browser` starts for the whole pass
 * (CHROMIUM_WS_ENDPOINT, test/browser/run.ts), connected to, or one of its own when run otherwise.
 * Closing a connected browser closes the file's contexts and leaves the shared one running.
 */
export const launchChromium = (): Promise<Browser> => {
  const endpoint = process.env.CHROMIUM_WS_ENDPOINT;
  return endpoint ? connectChromium(endpoint) : launchOwn();
};

export { chromiumArgs, packagedChromiumRuns } from '../../../infra/chromium';
