import sparticuz from '@sparticuz/chromium';
import { type Browser, type BrowserServer, chromium } from 'playwright-core';

/**
 * The headless Chromium of the console's tests and benchmark: the one shipped inside the
 * `@sparticuz/chromium` npm package (linux-x64), so `npm ci` brings it with no apt and no other
 * download, or CHROMIUM_PATH. The package's flags are made for AWS Lambda; those that weaken the
 * page's security (`--disable-web-security`, `--allow-running-insecure-content`, the
 * site-isolation switches) are left out, so the console runs under the same-origin policy and its
 * own CSP as in a moderator's browser, and so are `--single-process` and `--no-zygote`, which only
 * Lambda needs. Its GPU emulation (SwiftShader behind ANGLE, in process) goes too: with
 * `--disable-gpu` the page is composited in software, which took about a tenth less CPU time
 * over the console's tests on this 2-core machine, with the same layout and pixels to test.
 */
const LEFT_OUT = new Set([
  '--disable-web-security',
  '--allow-running-insecure-content',
  '--disable-site-isolation-trials',
  '--single-process',
  '--no-zygote',
  '--ignore-gpu-blocklist',
  '--in-process-gpu',
  '--use-gl=angle',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
]);

/** The package's Chromium exists for linux-x64 only. */
export const packagedChromiumRuns = process.platform === 'linux' && process.arch === 'x64';

export const chromiumArgs = (): string[] => [
  ...sparticuz.args.filter(
    (arg) => !LEFT_OUT.has(arg) && !arg.startsWith('--disable-features=') && !arg.startsWith('--headless'),
  ),
  '--disable-gpu',
];

const launchOptions = async () => ({
  executablePath: process.env.CHROMIUM_PATH || (await sparticuz.executablePath()),
  args: chromiumArgs(),
  headless: true,
});

export const launchChromium = async (): Promise<Browser> => chromium.launch(await launchOptions());

/**
 * One Chromium for many test files (test/browser/run.ts): each connects to it and works in
 * contexts of its own, which share no cookies, storage or cache.
 */
export const launchChromiumServer = async (): Promise<BrowserServer> =>
  chromium.launchServer(await launchOptions());

export const connectChromium = (wsEndpoint: string): Promise<Browser> => chromium.connect(wsEndpoint);
