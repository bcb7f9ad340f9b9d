/**
 * The browser: the headless Chromium shipped inside the `@sparticuz/chromium` npm package, so
 * `npm ci` brings it to a fresh machine with no apt and no download from elsewhere
 * (`executablePath()` unpacks it to /tmp once); CHROMIUM_PATH points at another one (a Debian
 * `chromium`, say). The launch, and the package flags left out (those that weaken the page's
 * security, and Lambda's --single-process), live with the console's benchmark (bench/console.ts),
 * which measures in the same browser.
 */
export { chromiumArgs, launchChromium, packagedChromiumRuns } from '../../../bench/console';
