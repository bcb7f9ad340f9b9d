import { describe, expect, it } from 'vitest';
import { parseKeysCommand } from '../../infra/keys-command';

/**
 * `npm run keys`' arguments, read in-process: every refusal the tool exits 2 with, before it opens
 * a store or calls AWS. The tool as a process (its exit codes, its output) is test/host/local-host.
 */

const LOCAL = { deployed: false, usagePlanId: undefined };
const DEPLOYED_WITHOUT_PLAN = { deployed: true, usagePlanId: undefined };

describe('npm run keys arguments', () => {
  it.each([
    [[], 'a command is required'],
    [['create'], 'create needs --publisher <publisher_id>'],
    [['create', '--publisher', 'Bad#Id'], '--publisher '],
    [['create', '--publisher', 'acme', '--bogus'], "Unknown option '--bogus'"],
    [['create', '--publisher', 'acme', '--name', ''], '--name must be 1-64 characters'],
    [['create', '--publisher', 'acme', '--scopes', 'bans:everything'], 'unknown scope bans:everything'],
    [['create', '--publisher', 'acme', '--scopes', 'bans:read,'], '--scopes must be a comma-separated list'],
    [['create', '--publisher', 'acme', '--games', 'bad#game'], '--games: bad#game is not a valid game id'],
    [['create', '--publisher', 'acme', 'extra'], 'unexpected argument: extra'],
    [['list', '--publisher', 'acme', '--scopes', 'bans:read'], 'list takes only --publisher'],
    [['list'], 'list needs --publisher'],
    [['revoke'], 'revoke takes exactly one <key_id>'],
    [['revoke', 'not-a-key-id'], 'not a key id: not-a-key-id'],
    [['revoke', 'key_AAAAAAAAAAAA', '--publisher', 'acme'], 'revoke takes only a <key_id>'],
    [['explode'], 'unknown command: explode'],
    [['quota'], 'quota needs --publisher'],
    [['quota', '--publisher', 'acme', '--name', 'ci'], 'quota takes only --publisher or --all'],
    [['quota', '--all', '--publisher', 'acme'], 'quota takes --publisher or --all, not both'],
  ])('refuses %j, saying %j', (argv, says) => {
    const parsed = parseKeysCommand(argv, LOCAL);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.message).toContain(says);
  });

  it.each([['create'], ['quota']])(
    '%s against a deployed table needs USAGE_PLAN_ID, and says so before any AWS call',
    (command) => {
      const parsed = parseKeysCommand([command, '--publisher', 'acme'], DEPLOYED_WITHOUT_PLAN);
      expect(parsed).toEqual({ ok: false, message: expect.stringContaining('needs USAGE_PLAN_ID') });
      expect(
        parseKeysCommand([command, '--publisher', 'acme'], { deployed: true, usagePlanId: 'plan1' }).ok,
      ).toBe(true);
    },
  );

  it('reads each command with its defaults: every scope, any game, the name "default"', () => {
    expect(parseKeysCommand(['create', '--publisher', 'acme'], LOCAL)).toEqual({
      ok: true,
      run: {
        command: 'create',
        publisherId: 'acme',
        name: 'default',
        scopes: null,
        games: null,
        json: false,
      },
    });
    expect(
      parseKeysCommand(
        [
          'create',
          '--publisher',
          'acme',
          '--name',
          'ci',
          '--scopes',
          'bans:read, policy:read',
          '--games',
          'g1,g2',
          '--json',
        ],
        LOCAL,
      ),
    ).toEqual({
      ok: true,
      run: {
        command: 'create',
        publisherId: 'acme',
        name: 'ci',
        scopes: ['bans:read', 'policy:read'],
        games: ['g1', 'g2'],
        json: true,
      },
    });
    expect(parseKeysCommand(['list', '--publisher', 'acme'], LOCAL)).toMatchObject({
      run: { command: 'list', publisherId: 'acme' },
    });
    expect(parseKeysCommand(['revoke', 'key_AAAAAAAAAAAA', '--json'], LOCAL)).toMatchObject({
      run: { command: 'revoke', keyId: 'key_AAAAAAAAAAAA', json: true },
    });
    expect(parseKeysCommand(['quota', '--all'], LOCAL)).toMatchObject({
      run: { command: 'quota', publisherId: undefined },
    });
    expect(parseKeysCommand(['--help'], LOCAL)).toEqual({ ok: true, run: { command: 'help' } });
  });
});
