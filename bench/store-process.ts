import { openStore } from '../infra/local/store';

/** An in-memory dynalite in a process of its own, shared by the API and the raw baseline. */
const store = await openStore({ env: { DATA_DIR: ':memory:' } });
console.log(JSON.stringify({ endpoint: store.endpoint }));
process.on('SIGTERM', () => void store.close().then(() => process.exit(0)));
