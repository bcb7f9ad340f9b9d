import { node24Binary } from './node24';

/** Prints bin/node of the pinned Node 24, fetching it first if needed (infra/supported-node.mjs runs this). */
try {
  console.log(node24Binary((line) => console.error(`[node] ${line}`)));
} catch (error) {
  console.error(`[node] ${(error as Error).message}`);
  process.exit(1);
}
