import { execFileSync, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `node infra/supported-node.mjs <tsx|vitest> [args…]`: what package.json's scripts run through,
 * so `npm start`, `npm test` and the CLIs run on a supported Node (22 or 24) on any machine. On
 * Node 22 or later it runs the tool on this Node. On an older one (past its end of life), it says
 * so once and runs it on the pinned Node 24 (infra/node24.ts, fetched once, linux-x64), with that
 * Node first on PATH so that the scripts the tool starts (npm run …) run on it too, silently.
 * Plain JavaScript: it must start on any Node.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOOLS = { tsx: 'node_modules/tsx/dist/cli.mjs', vitest: 'node_modules/vitest/vitest.mjs' };
const SUPPORTED_MAJOR = 22;

const [tool, ...args] = process.argv.slice(2);
const entry = TOOLS[tool];
if (!entry) {
  console.error(`usage: node infra/supported-node.mjs <${Object.keys(TOOLS).join('|')}> [args…]`);
  process.exit(2);
}

let node = process.execPath;
let env = process.env;
if (Number(process.versions.node.split('.')[0]) < SUPPORTED_MAJOR) {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.error(
      `[node] Node ${process.version} is past its end of life: install Node 22 or 24 (the project fetches Node 24 itself on linux-x64 only).`,
    );
    process.exit(1);
  }
  try {
    node = execFileSync(process.execPath, [join(ROOT, TOOLS.tsx), join(ROOT, 'infra/node24-path.ts')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
  } catch {
    process.exit(1);
  }
  console.error(`[node] Node ${process.version} is past its end of life: running on ${node} (Node 24).`);
  env = { ...process.env, PATH: `${dirname(node)}:${process.env.PATH ?? ''}` };
}

const child = spawn(node, [join(ROOT, entry), ...args], { stdio: 'inherit', env });
// Ctrl-C reaches the tool from the terminal itself; a signal sent to this process alone is passed on.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
