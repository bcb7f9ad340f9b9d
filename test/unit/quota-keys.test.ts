import {
  APIGatewayClient,
  ConflictException,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  GetApiKeysCommand,
  GetUsagePlanKeyCommand,
  NotFoundException,
} from '@aws-sdk/client-api-gateway';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { ensureQuotaKey, quotaKeyName } from '../../infra/quota-keys';
import { peopleQuotaKey, publisherQuotaKey } from '../../lib/domain/quotas';

/**
 * What the keys tool asks API Gateway, for a deployed table, so a publisher's requests are
 * counted on the usage plan: every call, in order, for a new publisher and for one that exists.
 */

const apiGateway = mockClient(APIGatewayClient);
const client = new APIGatewayClient({ region: 'eu-west-1' });
const PLAN = 'plan123';
const value = publisherQuotaKey('acme');

beforeEach(() => apiGateway.reset());

/** Every call the tool made: its command's name and input. */
const calls = () => apiGateway.calls().map((call) => [call.args[0].constructor.name, call.args[0].input]);

const conflict = () => new ConflictException({ message: 'exists', $metadata: {} });
const notFound = () => new NotFoundException({ message: 'Invalid Usage Plan Key', $metadata: {} });

const lookup = [
  'GetApiKeysCommand',
  { nameQuery: 'publisher-acme', includeValues: true, limit: 500 },
] as const;

describe('a publisher on the usage plan', () => {
  it('names its API key after the publisher and gives it the quota key the authorizer returns', () => {
    expect(quotaKeyName('acme')).toBe('publisher-acme');
    expect(value).toMatch(/^[a-f0-9]{64}$/);
  });

  it('new: looks its API key up, makes it, attaches it to the plan', async () => {
    apiGateway.on(GetApiKeysCommand).resolves({ items: [] });
    apiGateway.on(CreateApiKeyCommand).resolves({ id: 'k-acme', enabled: true });
    apiGateway.on(CreateUsagePlanKeyCommand).resolves({ id: 'k-acme', type: 'API_KEY' });

    const got = await ensureQuotaKey(client, PLAN, 'acme');

    expect(got).toEqual({ apiKeyId: 'k-acme', created: true, attached: true, enabled: true });
    expect(calls()).toEqual([
      lookup,
      [
        'CreateApiKeyCommand',
        {
          name: 'publisher-acme',
          value,
          enabled: true,
          customerId: 'acme',
          description: expect.stringContaining('acme'),
        },
      ],
      ['CreateUsagePlanKeyCommand', { usagePlanId: PLAN, keyId: 'k-acme', keyType: 'API_KEY' }],
    ]);
  });

  it('existing (a second key): finds its API key by value, sees it on the plan, makes nothing', async () => {
    apiGateway.on(GetApiKeysCommand).resolves({
      items: [
        // A name query matches by prefix: another publisher's key can come back too.
        { id: 'k-acme2', name: 'publisher-acme2', value: publisherQuotaKey('acme2'), enabled: true },
        { id: 'k-acme', name: 'publisher-acme', value, enabled: true },
      ],
    });
    apiGateway.on(GetUsagePlanKeyCommand).resolves({ id: 'k-acme' });

    const got = await ensureQuotaKey(client, PLAN, 'acme');

    expect(got).toEqual({ apiKeyId: 'k-acme', created: false, attached: false, enabled: true });
    expect(calls()).toEqual([lookup, ['GetUsagePlanKeyCommand', { usagePlanId: PLAN, keyId: 'k-acme' }]]);
  });

  it('existing but off the plan (say, a new stack): attaches the key it has', async () => {
    apiGateway.on(GetApiKeysCommand).resolves({ items: [{ id: 'k-acme', value, enabled: true }] });
    apiGateway.on(GetUsagePlanKeyCommand).rejects(notFound());
    apiGateway.on(CreateUsagePlanKeyCommand).resolves({ id: 'k-acme' });

    const got = await ensureQuotaKey(client, PLAN, 'acme');

    expect(got).toMatchObject({ created: false, attached: true });
    expect(apiGateway.commandCalls(CreateApiKeyCommand)).toHaveLength(0);
    expect(apiGateway.commandCalls(CreateUsagePlanKeyCommand)[0]?.args[0].input).toEqual({
      usagePlanId: PLAN,
      keyId: 'k-acme',
      keyType: 'API_KEY',
    });
  });

  it('reads every page of the lookup', async () => {
    apiGateway
      .on(GetApiKeysCommand)
      .resolvesOnce({ items: [{ id: 'k-other', value: 'x'.repeat(64) }], position: 'p2' })
      .resolvesOnce({ items: [{ id: 'k-acme', value, enabled: true }] });
    apiGateway.on(GetUsagePlanKeyCommand).resolves({ id: 'k-acme' });

    expect((await ensureQuotaKey(client, PLAN, 'acme')).apiKeyId).toBe('k-acme');
    expect(apiGateway.commandCalls(GetApiKeysCommand)[1]?.args[0].input).toMatchObject({ position: 'p2' });
  });

  it('made meanwhile (ConflictException on the key): looks it up again and uses it', async () => {
    apiGateway
      .on(GetApiKeysCommand)
      .resolvesOnce({ items: [] })
      .resolves({ items: [{ id: 'k-acme', value, enabled: true }] });
    apiGateway.on(CreateApiKeyCommand).rejects(conflict());
    apiGateway.on(GetUsagePlanKeyCommand).resolves({ id: 'k-acme' });

    const got = await ensureQuotaKey(client, PLAN, 'acme');

    expect(got).toEqual({ apiKeyId: 'k-acme', created: false, attached: false, enabled: true });
    expect(apiGateway.commandCalls(CreateUsagePlanKeyCommand)).toHaveLength(0);
  });

  it('attached meanwhile (ConflictException on the plan key): looks it up on the plan and is done', async () => {
    apiGateway.on(GetApiKeysCommand).resolves({ items: [{ id: 'k-acme', value, enabled: true }] });
    apiGateway.on(GetUsagePlanKeyCommand).rejectsOnce(notFound()).resolves({ id: 'k-acme' });
    apiGateway.on(CreateUsagePlanKeyCommand).rejects(conflict());

    expect(await ensureQuotaKey(client, PLAN, 'acme')).toMatchObject({ attached: false });
    expect(apiGateway.commandCalls(GetUsagePlanKeyCommand)).toHaveLength(2);
  });

  it('on another usage plan of the stage: says so rather than leave the publisher refused', async () => {
    apiGateway.on(GetApiKeysCommand).resolves({ items: [{ id: 'k-acme', value, enabled: true }] });
    apiGateway.on(GetUsagePlanKeyCommand).rejects(notFound());
    apiGateway.on(CreateUsagePlanKeyCommand).rejects(conflict());

    await expect(ensureQuotaKey(client, PLAN, 'acme')).rejects.toThrow(/another usage plan/);
  });

  it('reports a disabled key without enabling it: someone disabled it', async () => {
    apiGateway.on(GetApiKeysCommand).resolves({ items: [{ id: 'k-acme', value, enabled: false }] });
    apiGateway.on(GetUsagePlanKeyCommand).resolves({ id: 'k-acme' });

    expect(await ensureQuotaKey(client, PLAN, 'acme')).toMatchObject({ enabled: false });
    expect(calls().map(([name]) => name)).toEqual(['GetApiKeysCommand', 'GetUsagePlanKeyCommand']);
  });

  it('lets any other failure through (credentials, throttling, a wrong plan id)', async () => {
    apiGateway.on(GetApiKeysCommand).resolves({ items: [] });
    apiGateway.on(CreateApiKeyCommand).resolves({ id: 'k-acme', enabled: true });
    apiGateway.on(CreateUsagePlanKeyCommand).rejects(notFound());

    await expect(ensureQuotaKey(client, PLAN, 'acme')).rejects.toMatchObject({ name: 'NotFoundException' });
  });

  it("makes the people's API key apart, with its own value and name, on the same plan", async () => {
    apiGateway.on(GetApiKeysCommand).resolves({ items: [{ id: 'k-acme', value, enabled: true }] });
    apiGateway.on(CreateApiKeyCommand).resolves({ id: 'k-acme-people', enabled: true });
    apiGateway.on(CreateUsagePlanKeyCommand).resolves({ id: 'k-acme-people', type: 'API_KEY' });

    const got = await ensureQuotaKey(client, PLAN, 'acme', 'people');

    // The keys' API key (value `value`) is not the people's: a new one is made beside it.
    expect(got).toEqual({ apiKeyId: 'k-acme-people', created: true, attached: true, enabled: true });
    expect(quotaKeyName('acme', 'people')).toBe('people-acme');
    expect(peopleQuotaKey('acme')).toMatch(/^[a-f0-9]{64}$/);
    expect(peopleQuotaKey('acme')).not.toBe(value);
    expect(calls()).toEqual([
      ['GetApiKeysCommand', { nameQuery: 'people-acme', includeValues: true, limit: 500 }],
      [
        'CreateApiKeyCommand',
        {
          name: 'people-acme',
          value: peopleQuotaKey('acme'),
          enabled: true,
          customerId: 'acme',
          description: expect.stringContaining('people signed in for publisher acme'),
        },
      ],
      ['CreateUsagePlanKeyCommand', { usagePlanId: PLAN, keyId: 'k-acme-people', keyType: 'API_KEY' }],
    ]);
  });
});
