import { COGNITO_PUBLISHER_ATTRIBUTE, COGNITO_ROLE_ATTRIBUTE } from '@kernel/people';
import type { PreTokenGenerationV2TriggerEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler } from '../../functions/token-claims';
import { cognitoTokenClaims } from '../../lib/domain/people';

/**
 * The deployed pool's pre-token-generation trigger: a person's publisher and role, which only
 * administrators write, into their access token; nothing for a person missing either, so the
 * authorizer refuses their token rather than guessing.
 */

const attributes = (extra: Record<string, string>) => ({
  sub: '3f2a9c1e-7b41-4d0e-9a55-0c1d2e3f4a5b',
  email: 'alice@acme.example',
  email_verified: 'true',
  ...extra,
});

const event = (userAttributes: Record<string, string>) =>
  ({
    version: '2',
    triggerSource: 'TokenGeneration_HostedAuth',
    region: 'eu-west-1',
    userPoolId: 'eu-west-1_example',
    userName: 'alice',
    callerContext: { awsSdkVersion: 'x', clientId: 'console' },
    request: { userAttributes, groupConfiguration: { groupsToOverride: [] }, scopes: ['openid'] },
    response: { claimsAndScopeOverrideDetails: null },
  }) as unknown as PreTokenGenerationV2TriggerEvent;

describe('the pre-token-generation trigger', () => {
  it('adds publisher_id, role and email to the access token only', async () => {
    const out = await handler(
      event(attributes({ [COGNITO_PUBLISHER_ATTRIBUTE]: 'acme', [COGNITO_ROLE_ATTRIBUTE]: 'moderator' })),
    );
    expect(out.response).toEqual({
      claimsAndScopeOverrideDetails: {
        accessTokenGeneration: {
          claimsToAddOrOverride: { publisher_id: 'acme', role: 'moderator', email: 'alice@acme.example' },
        },
      },
    });
  });

  it.each([
    ['no publisher', { [COGNITO_ROLE_ATTRIBUTE]: 'admin' }],
    ['no role', { [COGNITO_PUBLISHER_ATTRIBUTE]: 'acme' }],
    ['an unknown role', { [COGNITO_PUBLISHER_ATTRIBUTE]: 'acme', [COGNITO_ROLE_ATTRIBUTE]: 'owner' }],
    ['an empty publisher', { [COGNITO_PUBLISHER_ATTRIBUTE]: '', [COGNITO_ROLE_ATTRIBUTE]: 'admin' }],
  ])('adds nothing for a person with %s', (_, extra) => {
    expect(cognitoTokenClaims(attributes(extra))).toEqual({});
  });
});
