import { parseArgs } from 'node:util';
import {
  AdminCreateUserCommand,
  AdminDisableUserCommand,
  AdminGetUserCommand,
  AdminUserGlobalSignOutCommand,
  CognitoIdentityProviderClient,
  paginateListUsers,
} from '@aws-sdk/client-cognito-identity-provider';
import {
  COGNITO_PUBLISHER_ATTRIBUTE,
  COGNITO_ROLE_ATTRIBUTE,
  isRole,
  type Role,
  roles,
} from '../lib/model/people';
import { publisherIdSchema } from '../lib/model/requests';
import { ensureTable, openStore, useStore } from './local/store';

/**
 * `npm run users -- …`: operators add, list and disable the people who sign in. Against the
 * deployed Cognito user pool when USER_POOL_ID is set (the stack's UserPoolId output; AWS
 * credentials of an operator), else against the local identity provider's people in the local
 * store (whether or not `npm start` is running).
 */

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const USAGE = `Usage:
  npm run users -- create --publisher <publisher_id> --email <email> --role ${roles.join('|')} [--json]
  npm run users -- list --publisher <publisher_id> [--json]
  npm run users -- disable --email <email> [--revoke-keys] [--json]

Where: USER_POOL_ID (the stack's UserPoolId output, with AWS credentials) for the deployed pool;
otherwise the local provider's people in DATA_DIR (default ./.data), or TABLE_NAME + DYNAMODB_ENDPOINT.

Roles: viewer (bans:read, policy:read, audit:read), moderator (viewer + bans:write), admin (every scope).
create: locally prints a password once (and makes the publisher if new); deployed, the publisher
must have been made with \`npm run keys -- create\` (which puts it on the usage plan), and Cognito
emails a temporary password and asks for TOTP set-up at the first sign-in. disable: no sign-in and no renewal from now on; a token already
issued lives out its 15 minutes. It lists the API keys the person made, which keep working;
--revoke-keys revokes those (deployed: with TABLE_NAME, the stage's table, and its credentials).`;

const fail = (message: string): never => {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
};

const parse = () => {
  try {
    return parseArgs({
      args: process.argv.slice(2),
      allowPositionals: true,
      options: {
        publisher: { type: 'string' },
        email: { type: 'string' },
        role: { type: 'string' },
        'revoke-keys': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    return fail((error as Error).message);
  }
};

const { values, positionals } = parse();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const [command, ...rest] = positionals;
if (rest.length > 0) fail(`unexpected arguments: ${rest.join(' ')}`);

const publisher = () => {
  const parsed = publisherIdSchema.safeParse(values.publisher);
  return parsed.success ? parsed.data : fail('--publisher must be 1-64 characters of a-z 0-9 . _ -');
};
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const email = () =>
  values.email && EMAIL.test(values.email)
    ? values.email.toLowerCase()
    : fail('--email must be an email address');
const role = (): Role =>
  isRole(values.role) ? values.role : fail(`--role must be one of ${roles.join(', ')}`);

interface Shown {
  email: string;
  publisher_id: string;
  role: string;
  sub: string;
  status: string;
  password?: string;
}

const show = (people: Shown[]) => {
  if (values.json)
    console.log(JSON.stringify(people.length === 1 && command !== 'list' ? people[0] : people, null, 2));
  else
    for (const p of people)
      console.log(
        [
          p.email,
          p.publisher_id,
          p.role,
          p.status,
          p.sub,
          ...(p.password ? [`password: ${p.password}`] : []),
        ].join('  '),
      );
};

/**
 * The API keys a disabled person made: listed, or revoked with --revoke-keys (keys outlive the
 * person who made them, who may no longer be trusted with them).
 */
const madeKeys = async (publisherId: string, sub: string) => {
  const { keysMadeBy, revokeKeysMadeBy } = await import('../lib/domain/api-keys');
  const revoked = values['revoke-keys'] ? await revokeKeysMadeBy(publisherId, sub) : [];
  const keys = await keysMadeBy(publisherId, sub);
  const live = keys.filter((k) => k.revoked_at === null);
  if (!values.json) {
    for (const k of keys)
      console.log(
        `  key ${k.key_id} "${k.name}" ${k.revoked_at === null ? 'live' : 'revoked'}, expires ${k.expires_at ?? 'never'}`,
      );
    if (revoked.length > 0) console.log(`revoked ${revoked.length} key(s) they made`);
    if (live.length > 0)
      console.log(`${live.length} key(s) they made still work: revoke them with --revoke-keys`);
  }
  return {
    keys: keys.map((k) => ({
      key_id: k.key_id,
      name: k.name,
      expires_at: k.expires_at,
      revoked_at: k.revoked_at,
    })),
    revoked_keys: revoked.map((k) => k.key_id),
  };
};

const poolId = process.env.USER_POOL_ID || undefined;
/** Whether the operator named a table (read now: opening the local store sets TABLE_NAME). */
const stageTable = Boolean(process.env.TABLE_NAME);

/** The deployed pool: Cognito keeps the people, their passwords and their second factor. */
const cognito = async (pool: string) => {
  const client = new CognitoIdentityProviderClient({});
  const attribute = (user: { Attributes?: { Name?: string; Value?: string }[] }, name: string) =>
    user.Attributes?.find((a) => a.Name === name)?.Value ?? '';
  switch (command) {
    case 'create': {
      const [p, e, r] = [publisher(), email(), role()];
      // The publisher must exist already (npm run keys -- create puts it on the usage plan).
      const { User } = await client.send(
        new AdminCreateUserCommand({
          UserPoolId: pool,
          Username: e,
          DesiredDeliveryMediums: ['EMAIL'],
          UserAttributes: [
            { Name: 'email', Value: e },
            { Name: 'email_verified', Value: 'true' },
            { Name: COGNITO_PUBLISHER_ATTRIBUTE, Value: p },
            { Name: COGNITO_ROLE_ATTRIBUTE, Value: r },
          ],
        }),
      );
      show([
        {
          email: e,
          publisher_id: p,
          role: r,
          sub: attribute(User ?? {}, 'sub'),
          status: User?.UserStatus ?? '',
        },
      ]);
      return 0;
    }
    case 'list': {
      const p = publisher();
      const people: Shown[] = [];
      // Cognito cannot filter on a custom attribute: every page is read, the publisher's kept.
      for await (const page of paginateListUsers({ client }, { UserPoolId: pool })) {
        for (const user of page.Users ?? [])
          if (attribute(user, COGNITO_PUBLISHER_ATTRIBUTE) === p)
            people.push({
              email: attribute(user, 'email'),
              publisher_id: p,
              role: attribute(user, COGNITO_ROLE_ATTRIBUTE),
              sub: attribute(user, 'sub'),
              status: user.Enabled === false ? 'disabled' : (user.UserStatus ?? ''),
            });
      }
      show(people.sort((a, b) => a.email.localeCompare(b.email)));
      return 0;
    }
    case 'disable': {
      const e = email();
      // The keys they made are in the stage's table: listed (and revoked) only with TABLE_NAME.
      const table = stageTable;
      if (values['revoke-keys'] && !table) fail('--revoke-keys needs TABLE_NAME, the stage table');
      await client.send(new AdminDisableUserCommand({ UserPoolId: pool, Username: e }));
      // Revokes their refresh tokens: no renewal after this.
      await client.send(new AdminUserGlobalSignOutCommand({ UserPoolId: pool, Username: e }));
      if (!values.json) console.log(`${e} disabled`);
      let keys = {};
      if (table) {
        const found = await client.send(new AdminGetUserCommand({ UserPoolId: pool, Username: e }));
        const person = { Attributes: found.UserAttributes ?? [] };
        keys = await madeKeys(attribute(person, COGNITO_PUBLISHER_ATTRIBUTE), attribute(person, 'sub'));
      } else if (!values.json) console.log('set TABLE_NAME (the stage table) to list the API keys they made');
      if (values.json) console.log(JSON.stringify({ email: e, status: 'disabled', ...keys }));
      return 0;
    }
    default:
      return fail(command === undefined ? 'a command is required' : `unknown command: ${command}`);
  }
};

/** The local provider's people (infra/local/people.ts). */
const local = async () => {
  const people = await import('./local/people');
  const shown = (
    p: Awaited<ReturnType<typeof people.listLocalPeople>>[number],
    password?: string,
  ): Shown => ({
    email: p.email,
    publisher_id: p.publisher_id,
    role: p.role,
    sub: p.sub,
    status: p.disabled_at ? 'disabled' : 'enabled',
    ...(password ? { password } : {}),
  });
  switch (command) {
    case 'create': {
      const [p, e, r] = [publisher(), email(), role()];
      const password = people.newPassword();
      try {
        show([
          shown(await people.createLocalPerson({ email: e, publisher_id: p, role: r }, password), password),
        ]);
      } catch (error) {
        if (error instanceof people.PersonExistsError) {
          console.error(`users: ${error.message}`);
          return 1;
        }
        throw error;
      }
      return 0;
    }
    case 'list':
      show((await people.listLocalPeople(publisher())).map((p) => shown(p)));
      return 0;
    case 'disable': {
      const disabled = await people.disableLocalPerson(email());
      if (!disabled) {
        console.error(`users: no such person: ${values.email}`);
        return 1;
      }
      if (!values.json) show([shown(disabled)]);
      const keys = await madeKeys(disabled.publisher_id, disabled.sub);
      if (values.json) console.log(JSON.stringify({ ...shown(disabled), ...keys }, null, 2));
      return 0;
    }
    default:
      return fail(command === undefined ? 'a command is required' : `unknown command: ${command}`);
  }
};

const store = await openStore();
let code = 1;
try {
  if (store.embedded || store.endpoint) await ensureTable(store);
  useStore(store);
  code = poolId ? await cognito(poolId) : await local();
} catch (error) {
  console.error(`users: ${(error as Error).message}`);
} finally {
  await store.close();
}
process.exit(code);
