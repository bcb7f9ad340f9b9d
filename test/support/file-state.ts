import { setClock } from '../../lib/clock';
import { configure, settingsFrom } from '../../lib/config';

/**
 * Run before each test file (vitest.config.ts `setupFiles`). Most files share their worker's
 * modules (`isolate: false`: the imports are paid once per worker, not once per file), so what a
 * file binds in the process must not reach the next one: the clock goes back to the wall clock,
 * and the settings (with the store, and so every per-store cache) are bound afresh from the
 * environment.
 */
setClock(undefined);
configure(settingsFrom(process.env));
