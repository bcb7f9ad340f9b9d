import { parseArgs } from 'node:util';
import { isScope, type Scope, scopes } from '@kernel/scopes';
import { gameIdSchema, publisherIdSchema } from '../lib/model/requests';
import { type CommandParse, parseCommand, refuse } from './command-line';

/**
 * What `npm run keys -- …` was asked to do, read from its arguments alone (infra/keys-cli.ts runs
 * it): a command, or the usage error it exits 2 with before opening any store or calling AWS.
 */

export const KEYS_USAGE = `Usage:
  npm run keys -- create --publisher <publisher_id> [--name <text>] [--scopes <s,...>] [--games <g,...>] [--json]
  npm run keys -- list --publisher <publisher_id> [--json]
  npm run keys -- revoke <key_id> [--json]
  npm run keys -- quota --publisher <publisher_id> [--json]
  npm run keys -- quota --all [--json]

Store: TABLE_NAME (+ DYNAMODB_ENDPOINT or AWS credentials) for a deployed or other table;
otherwise the local store in DATA_DIR (default ./.data).

A deployed table (TABLE_NAME without DYNAMODB_ENDPOINT) also needs USAGE_PLAN_ID, the stack's
UsagePlanId output: create puts the publisher on that usage plan first, as two API keys, its
keys' bucket and its people's (its per-publisher rate limits; API Gateway refuses publishers
that are not on it). quota does only that, for a
publisher made before the plan existed; quota --all does it for every publisher of the table
(right after the first deploy of the plan on a stage that already has publishers).

Scopes: ${scopes.join(', ')}. Without --scopes a key holds every scope;
without --games it may name any game.`;

export type KeysCommand =
  | { command: 'help' }
  | {
      command: 'create';
      publisherId: string;
      name: string;
      scopes: Scope[] | null;
      games: string[] | null;
      json: boolean;
    }
  | { command: 'list'; publisherId: string; json: boolean }
  | { command: 'revoke'; keyId: string; json: boolean }
  /** `publisherId` undefined: every publisher of the table (`--all`). */
  | { command: 'quota'; publisherId: string | undefined; json: boolean };

export type KeysParse = CommandParse<KeysCommand>;

/** Where the command would run: a deployed table needs its stage's usage plan. */
export interface KeysTarget {
  deployed: boolean;
  usagePlanId: string | undefined;
}

export const parseKeysCommand = (argv: readonly string[], target: KeysTarget): KeysParse =>
  parseCommand(() => commandOf(argv, target));

const commandOf = (argv: readonly string[], { deployed, usagePlanId }: KeysTarget): KeysCommand => {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      publisher: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      games: { type: 'string' },
      json: { type: 'boolean', default: false },
      all: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return { command: 'help' };
  const [command, ...rest] = positionals;
  const json = values.json;
  const noneLeft = () => {
    if (rest.length > 0) refuse(`unexpected argument: ${rest[0]}`);
  };
  const publisher = () => {
    if (values.publisher === undefined) return refuse(`${command} needs --publisher <publisher_id>`);
    const parsed = publisherIdSchema.safeParse(values.publisher);
    return parsed.success
      ? parsed.data
      : refuse(`--publisher ${parsed.error.issues[0]?.message ?? 'is invalid'}`);
  };
  const needUsagePlan = () => {
    if (deployed && usagePlanId === undefined)
      refuse(
        `${command} on a deployed table (TABLE_NAME without DYNAMODB_ENDPOINT) needs USAGE_PLAN_ID, the stack's UsagePlanId output`,
      );
  };
  const onlyPublisher = (what: string) => {
    if (values.name !== undefined || values.scopes !== undefined || values.games !== undefined)
      refuse(`${command} takes only ${what}`);
  };
  const list = (flag: string, raw: string | undefined) => {
    if (raw === undefined) return null;
    const items = raw.split(',').map((item) => item.trim());
    if (items.some((item) => item === '')) refuse(`--${flag} must be a comma-separated list, none empty`);
    return items;
  };

  switch (command) {
    case 'create': {
      noneLeft();
      const publisherId = publisher();
      const name = values.name ?? 'default';
      if (name.length < 1 || name.length > 64) refuse('--name must be 1-64 characters');
      const granted = list('scopes', values.scopes);
      const unknown = granted?.find((scope) => !isScope(scope));
      if (unknown !== undefined) refuse(`--scopes: unknown scope ${unknown} (scopes: ${scopes.join(', ')})`);
      const games = list('games', values.games);
      const badGame = games?.find((game) => !gameIdSchema.safeParse(game).success);
      if (badGame !== undefined) refuse(`--games: ${badGame} is not a valid game id`);
      needUsagePlan();
      return { command, publisherId, name, scopes: granted as Scope[] | null, games, json };
    }
    case 'list':
      noneLeft();
      onlyPublisher('--publisher');
      return { command, publisherId: publisher(), json };
    case 'revoke': {
      if (rest.length !== 1) refuse('revoke takes exactly one <key_id>');
      if ([values.publisher, values.name, values.scopes, values.games].some((v) => v !== undefined))
        refuse('revoke takes only a <key_id>');
      const keyId = rest[0] as string;
      if (!/^key_[A-Za-z0-9_-]{12}$/.test(keyId)) refuse(`not a key id: ${keyId}`);
      return { command, keyId, json };
    }
    case 'quota': {
      noneLeft();
      onlyPublisher('--publisher or --all');
      if (values.all && values.publisher !== undefined) refuse('quota takes --publisher or --all, not both');
      const publisherId = values.all ? undefined : publisher();
      needUsagePlan();
      return { command, publisherId, json };
    }
    default:
      return refuse(command === undefined ? 'a command is required' : `unknown command: ${command}`);
  }
};
