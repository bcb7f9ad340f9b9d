import { pathToFileURL } from 'node:url';

/**
 * Runs one part of the bench in a process of its own and prints its figures as one marked line.
 * The storage client binds its store when first imported, so parts that share a process would
 * share the first part's store, and a later part would talk to a store already stopped. Usage:
 * `tsx bench/part.ts <module> <export> [json arguments]`.
 */

const [, , module, name, args = '[]'] = process.argv;
if (!module || !name) throw new Error('usage: tsx bench/part.ts <module> <export> [json arguments]');
const measure = (await import(pathToFileURL(module).href))[name];
if (typeof measure !== 'function') throw new Error(`${module} exports no function ${name}`);
const figures = await measure(...JSON.parse(args));
process.stdout.write(`bench-part-figures ${JSON.stringify(figures)}\n`);
// Parts leave servers and sockets behind them by design (the process is theirs): end it.
process.exit(0);
