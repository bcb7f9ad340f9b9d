import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COGNITO_PUBLISHER_ATTRIBUTE, COGNITO_ROLE_ATTRIBUTE } from '@kernel/people';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, runTs } from '../support/processes';

/**
 * `npm run users` against the deployed pool (USER_POOL_ID), with Cognito and the stage's table
 * played by a local endpoint of their JSON protocols (AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER,
 * AWS_ENDPOINT_URL_DYNAMODB): what only AWS would otherwise see. A person is made, for a publisher
 * the table holds only, with the attributes the pool's schema and the token trigger read; listed
 * across pages for one publisher only; given another role; disabled with their sessions revoked,
 * enabled again; invited again. No local store is opened, and the region is the SDK's own.
 */

interface Call {
  target: string;
  body: Record<string, any>;
  /** The region the request was signed for. */
  region: string | undefined;
}

/** The publishers the stage's table holds (their policy items). */
const PUBLISHERS = ['acme'];

let server: Server;
let endpoint: string;
const calls: Call[] = [];
const attr = (Name: string, Value: string) => ({ Name, Value });
const user = (email: string, publisher: string, role: string, enabled = true) => ({
  Username: email,
  Enabled: enabled,
  UserStatus: 'CONFIRMED',
  Attributes: [
    attr('sub', `sub-${email}`),
    attr('email', email),
    attr(COGNITO_PUBLISHER_ATTRIBUTE, publisher),
    attr(COGNITO_ROLE_ATTRIBUTE, role),
  ],
});

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '').replace(
        /^(AWSCognitoIdentityProviderService|DynamoDB_20120810)\./,
        '',
      );
      const body = JSON.parse(raw || '{}');
      const region = /Credential=[^/]+\/\d+\/([^/]+)\//.exec(String(req.headers.authorization))?.[1];
      calls.push({ target, body, region });
      const answer = (value: unknown) => {
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify(value));
      };
      if (target === 'GetItem') {
        const publisher = /^PUBLISHER#(.*)$/.exec(body.Key?.pk?.S ?? '')?.[1] ?? '';
        return answer(
          PUBLISHERS.includes(publisher) && body.Key?.sk?.S === 'POLICY'
            ? { Item: { pk: body.Key.pk, sk: body.Key.sk, publisher_id: { S: publisher } } }
            : {},
        );
      }
      if (target === 'AdminGetUser') {
        const { Attributes } = user(body.Username, 'acme', 'moderator');
        return answer({ Username: body.Username, UserAttributes: Attributes });
      }
      // The publisher's keys (the stage table's key listing): none made by this person here.
      if (target === 'Query') return answer({ Items: [], Count: 0 });
      if (target === 'AdminCreateUser' && body.MessageAction === 'RESEND')
        return answer({ User: user(body.Username, 'acme', 'viewer') });
      if (target === 'AdminCreateUser')
        return answer({
          User: {
            ...user(body.Username, 'ignored', 'ignored'),
            Attributes: [attr('sub', 'sub-new'), ...body.UserAttributes],
            UserStatus: 'FORCE_CHANGE_PASSWORD',
          },
        });
      if (target === 'ListUsers')
        return answer(
          body.PaginationToken === 'page-2'
            ? {
                Users: [
                  user('zoe@acme.example', 'acme', 'viewer', false),
                  user('bob@other.example', 'other', 'admin'),
                ],
              }
            : { Users: [user('amy@acme.example', 'acme', 'moderator')], PaginationToken: 'page-2' },
        );
      if (
        [
          'AdminDisableUser',
          'AdminEnableUser',
          'AdminUserGlobalSignOut',
          'AdminUpdateUserAttributes',
        ].includes(target)
      )
        return answer({});
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify({ __type: 'InvalidParameterException', message: `unexpected ${target}` }));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

const withoutEmpty = (env: Record<string, string>) => {
  const all = childEnv(env);
  for (const [name, value] of Object.entries(all)) if (value === '') delete all[name];
  return all;
};

/** A DATA_DIR that must stay absent: the deployed pool opens no local store. */
const noStore = join(mkdtempSync(join(tmpdir(), 'users-cognito-')), 'data');

/** Runs the tool; a variable given as '' is left unset. */
const users = (args: string[], env: Record<string, string> = {}) =>
  runTs(
    'infra/users-cli.ts',
    args,
    withoutEmpty({
      USER_POOL_ID: 'eu-west-1_TestPool',
      TABLE_NAME: 'devicebans-test-table',
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: endpoint,
      AWS_ENDPOINT_URL_DYNAMODB: endpoint,
      DATA_DIR: noStore,
      ...env,
    }),
  );

describe('npm run users against the deployed pool', () => {
  it('makes a person with their publisher and role in the attributes only administrators write', async () => {
    calls.length = 0;
    const run = await users([
      'create',
      '--publisher',
      'acme',
      '--email',
      'Sam@Acme.example',
      '--role',
      'moderator',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(calls.map((c) => c.target)).toEqual(['GetItem', 'AdminCreateUser']);
    expect(calls[0]?.body).toMatchObject({
      TableName: 'devicebans-test-table',
      Key: { pk: { S: 'PUBLISHER#acme' }, sk: { S: 'POLICY' } },
    });
    expect(calls[1]?.body).toMatchObject({
      UserPoolId: 'eu-west-1_TestPool',
      DesiredDeliveryMediums: ['EMAIL'],
    });
    expect(calls[1]?.body.UserAttributes).toEqual(
      expect.arrayContaining([
        { Name: COGNITO_PUBLISHER_ATTRIBUTE, Value: 'acme' },
        { Name: COGNITO_ROLE_ATTRIBUTE, Value: 'moderator' },
        { Name: 'email_verified', Value: 'true' },
      ]),
    );
    expect(JSON.parse(run.stdout)).toMatchObject({ publisher_id: 'acme', role: 'moderator', sub: 'sub-new' });
    // Nothing local: no store was made in DATA_DIR.
    expect(existsSync(noStore)).toBe(false);
  });

  it('refuses a publisher the stage does not hold, and makes no person', async () => {
    calls.length = 0;
    const run = await users([
      'create',
      '--publisher',
      'nobody',
      '--email',
      'x@acme.example',
      '--role',
      'viewer',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'no publisher nobody: make it with npm run keys -- create --publisher nobody',
    );
    expect(calls.map((c) => c.target)).toEqual(['GetItem']);
  });

  it("needs the stage's table to check the publisher, before calling anything", async () => {
    calls.length = 0;
    const run = await users(
      ['create', '--publisher', 'acme', '--email', 'x@acme.example', '--role', 'viewer'],
      { TABLE_NAME: '' },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("needs TABLE_NAME, the stack's TableName output");
    expect(calls).toEqual([]);
    expect(existsSync(noStore)).toBe(false);
  });

  it('refuses an unknown role before calling Cognito', async () => {
    calls.length = 0;
    const run = await users([
      'create',
      '--publisher',
      'acme',
      '--email',
      'x@acme.example',
      '--role',
      'owner',
    ]);
    expect(run.code).toBe(2);
    expect(calls).toEqual([]);
  });

  it("lists one publisher's people across every page, disabled ones marked", async () => {
    calls.length = 0;
    const run = await users(['list', '--publisher', 'acme', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(calls.map((c) => c.target)).toEqual(['ListUsers', 'ListUsers']);
    expect(JSON.parse(run.stdout)).toEqual([
      expect.objectContaining({ email: 'amy@acme.example', role: 'moderator', status: 'CONFIRMED' }),
      expect.objectContaining({ email: 'zoe@acme.example', role: 'viewer', status: 'disabled' }),
    ]);
  });

  it('disables a person and signs them out everywhere (their refresh tokens revoked)', async () => {
    calls.length = 0;
    const run = await users(['disable', '--email', 'amy@acme.example', '--json']);
    expect(run.code, run.stderr).toBe(0);
    // Then, with the stage table, the keys the person made are listed (their publisher and sub
    // read from the pool): none here.
    expect(calls.map((c) => c.target)).toEqual([
      'AdminDisableUser',
      'AdminUserGlobalSignOut',
      'AdminGetUser',
      'Query',
    ]);
    for (const call of calls.slice(0, 3))
      expect(call.body).toMatchObject({ UserPoolId: 'eu-west-1_TestPool', Username: 'amy@acme.example' });
    expect(JSON.parse(run.stdout)).toEqual({
      email: 'amy@acme.example',
      status: 'disabled',
      keys: [],
      revoked_keys: [],
    });
  });

  it('changes a role, re-enables a person, and sends the invitation again', async () => {
    calls.length = 0;
    const setRole = await users(['set-role', '--email', 'Amy@acme.example', '--role', 'admin', '--json']);
    expect(setRole.code, setRole.stderr).toBe(0);
    const enable = await users(['enable', '--email', 'amy@acme.example', '--json']);
    expect(enable.code, enable.stderr).toBe(0);
    const resend = await users(['resend', '--email', 'new@acme.example', '--json']);
    expect(resend.code, resend.stderr).toBe(0);
    expect(calls.map((c) => c.target)).toEqual([
      'AdminUpdateUserAttributes',
      'AdminEnableUser',
      'AdminCreateUser',
    ]);
    expect(calls[0]?.body).toEqual({
      UserPoolId: 'eu-west-1_TestPool',
      Username: 'amy@acme.example',
      UserAttributes: [{ Name: COGNITO_ROLE_ATTRIBUTE, Value: 'admin' }],
    });
    expect(calls[1]?.body).toEqual({ UserPoolId: 'eu-west-1_TestPool', Username: 'amy@acme.example' });
    expect(calls[2]?.body).toMatchObject({
      UserPoolId: 'eu-west-1_TestPool',
      Username: 'new@acme.example',
      MessageAction: 'RESEND',
    });
    expect(JSON.parse(setRole.stdout)).toEqual({ email: 'amy@acme.example', status: 'role admin' });
    expect(JSON.parse(enable.stdout)).toEqual({ email: 'amy@acme.example', status: 'enabled' });
  }, 120_000);

  it("takes its region from the SDK's own resolution (the profile's), and fails without one", async () => {
    const config = join(mkdtempSync(join(tmpdir(), 'users-region-')), 'config');
    writeFileSync(config, '[default]\nregion = ap-southeast-2\n');
    const noRegion = { AWS_REGION: '', AWS_DEFAULT_REGION: '', AWS_PROFILE: '' };
    calls.length = 0;
    const fromProfile = await users(['list', '--publisher', 'acme', '--json'], {
      ...noRegion,
      AWS_CONFIG_FILE: config,
    });
    expect(fromProfile.code, fromProfile.stderr).toBe(0);
    expect(calls.map((c) => c.region)).toEqual(['ap-southeast-2', 'ap-southeast-2']);
    calls.length = 0;
    const none = await users(['list', '--publisher', 'acme'], {
      ...noRegion,
      AWS_CONFIG_FILE: join(config, '..', 'absent'),
    });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no AWS region: set AWS_REGION');
    expect(calls).toEqual([]);
  }, 120_000);
});
