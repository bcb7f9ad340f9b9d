import { encodeGrant } from '@kernel/scopes';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { configureFromEnvironment } from '../config';
import { authenticate } from '../domain/api-keys';
import { authenticatePerson, looksLikeJwt, type Person } from '../domain/people';
import { peopleQuotaKey, publisherQuotaKey } from '../domain/quotas';
import { AUTHORIZER_FAILURE_MESSAGE, describeError, log } from '../log';

/** `Bearer <key>`: scheme case-insensitive, exactly one space, nothing after the key. */
const BEARER = /^bearer ([^\s]+)$/i;

export const bearerToken = (header: string | undefined): string | undefined => BEARER.exec(header ?? '')?.[1];

/**
 * The policy covers every method and path of the stage, not just the one called: API Gateway
 * caches the result per key, and a cached policy for one method would deny the others.
 */
export const stageWildcard = (methodArn: string): string => {
  const [apiArn, stage] = methodArn.split('/');
  return `${apiArn}/${stage}/*`;
};

/**
 * Resolves an Authorization header to an Allow policy with the publisher in the context, and the
 * publisher's quota key as the usage identifier (so the usage plan counts publishers, not keys).
 * Throws `Unauthorized` (API Gateway's 401) for anything else, which is a refusal, not a fault:
 * it is not logged as an error. A storage failure is logged and propagates, which the gateway
 * answers as an authorizer failure (503).
 */
export const authorize = async (
  header: string | undefined,
  methodArn: string,
): Promise<APIGatewayAuthorizerResult> => {
  configureFromEnvironment(process.env);
  const token = bearerToken(header);
  let caller: Awaited<ReturnType<typeof authenticate>>;
  let person: Person | undefined;
  try {
    // An API key has its prefix; anything else may be a person's access token (no storage read).
    if (token !== undefined && looksLikeJwt(token)) person = await authenticatePerson(token);
    else caller = token === undefined ? undefined : await authenticate(token);
  } catch (error) {
    log('error', AUTHORIZER_FAILURE_MESSAGE, describeError(error));
    throw error;
  }
  const context = person
    ? {
        publisherId: person.publisherId,
        actorType: 'user',
        sub: person.sub,
        email: person.email ?? '',
        role: person.role,
        // A person does not expire (what they mint need not either); their token does.
        expiresAt: '',
        tokenExpiresAt: person.expiresAt,
        scopes: encodeGrant(person.scopes),
        games: encodeGrant(null),
      }
    : caller && {
        publisherId: caller.publisherId,
        keyId: caller.keyId,
        keyName: caller.name,
        // '' for a key that never expires (context values are strings).
        expiresAt: caller.expiresAt ?? '',
        scopes: encodeGrant(caller.scopes),
        games: encodeGrant(caller.games),
      };
  if (!context) throw new Error('Unauthorized');
  return {
    principalId: person ? `${person.publisherId}/${person.sub}` : context.publisherId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: stageWildcard(methodArn) }],
    },
    // The API key the usage plan counts this request against: the publisher's keys' bucket, or
    // its people's, so the console never spends what its game servers need (lib/domain/quotas.ts).
    usageIdentifierKey: person ? peopleQuotaKey(context.publisherId) : publisherQuotaKey(context.publisherId),
    // The grants ride along, so the chain checks each route's scope and the game binding with no
    // further read (and API Gateway caches them with the rest of the answer; the chain refuses a
    // cached answer once `expiresAt` has passed).
    context,
  };
};
