import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COGNITO_PUBLISHER_ATTRIBUTE, COGNITO_ROLE_ATTRIBUTE } from '../../lib/model/people';
import { childEnv, runTs } from '../support/processes';

/**
 * `npm run users` against the deployed pool (USER_POOL_ID), with Cognito played by a local
 * endpoint of its JSON protocol (AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER): what only AWS would
 * otherwise see. A person is made with the attributes the pool's schema and the token trigger
 * read, listed across pages for one publisher only, and disabled with their sessions revoked.
 */

interface Call {
  target: string;
  body: Record<string, any>;
}

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
        /^AWSCognitoIdentityProviderService\./,
        '',
      );
      const body = JSON.parse(raw || '{}');
      calls.push({ target, body });
      const answer = (value: unknown) => {
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify(value));
      };
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
      if (target === 'AdminDisableUser' || target === 'AdminUserGlobalSignOut') return answer({});
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify({ __type: 'InvalidParameterException', message: `unexpected ${target}` }));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

const users = (args: string[]) =>
  runTs(
    'infra/users-cli.ts',
    args,
    childEnv({
      USER_POOL_ID: 'eu-west-1_TestPool',
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: endpoint,
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
    expect(calls.map((c) => c.target)).toEqual(['AdminCreateUser']);
    expect(calls[0]?.body).toMatchObject({
      UserPoolId: 'eu-west-1_TestPool',
      DesiredDeliveryMediums: ['EMAIL'],
    });
    expect(calls[0]?.body.UserAttributes).toEqual(
      expect.arrayContaining([
        { Name: COGNITO_PUBLISHER_ATTRIBUTE, Value: 'acme' },
        { Name: COGNITO_ROLE_ATTRIBUTE, Value: 'moderator' },
        { Name: 'email_verified', Value: 'true' },
      ]),
    );
    expect(JSON.parse(run.stdout)).toMatchObject({ publisher_id: 'acme', role: 'moderator', sub: 'sub-new' });
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
    expect(calls.map((c) => c.target)).toEqual(['AdminDisableUser', 'AdminUserGlobalSignOut']);
    for (const call of calls)
      expect(call.body).toMatchObject({ UserPoolId: 'eu-west-1_TestPool', Username: 'amy@acme.example' });
  });
});
