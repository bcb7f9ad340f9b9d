// The local events thread's entry (./events-thread.ts): TypeScript is loaded through tsx's API,
// which works whatever started the main thread (tsx, vitest, or a bundled run).
import { register } from 'tsx/esm/api';

register();
await import('./events-worker.ts');
