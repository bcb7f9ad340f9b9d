import { signIn } from '../test/support/sign-in';
import type { InProcess } from './in-process';
import { median } from './storage-probe';

/**
 * What a person's access token costs the authorizer, against a key's: a real token of the local
 * OpenID Provider (infra/local/identity.ts, signed ES256), verified by the same authorizer the
 * stack deploys. Cold: the first verification of an instance, which fetches the provider's keys
 * (JWKS) once. Warm: every one after, which must make no storage call and take at most 1 ms.
 * A key's authorization (one GetItem on the in-memory store) is the baseline, in the same run.
 */

const METHOD_ARN = 'arn:aws:execute-api:local:0:api/stage/GET/v1/policy';

export interface PersonAuthorization {
  cold_ms: number;
  cold_storage_calls: number;
  warm_median_ms: number;
  warm_storage_calls: number;
  key_median_ms: number;
  key_storage_calls: number;
  runs: number;
}

export const measurePersonAuthorization = async (
  env: InProcess,
  runs: number,
): Promise<PersonAuthorization> => {
  const { startLocalIdentity } = await import('../infra/local/identity');
  const { createLocalPerson, newPassword } = await import('../infra/local/people');
  const { resetIdentityProvider } = await import('../lib/domain/people');
  const consoleUrl = 'http://127.0.0.1:9/console/';
  const identity = await startLocalIdentity({ consoleUrl });
  try {
    const password = newPassword();
    const person = await createLocalPerson(
      { email: 'bench-moderator@bench.local', publisher_id: 'bench-publisher', role: 'moderator' },
      password,
    );
    const signedIn = await signIn(identity.issuer, consoleUrl, person.email, password);
    if (!signedIn.ok) throw new Error(`bench sign-in failed: ${signedIn.status}`);
    process.env.IDENTITY_PROVIDER = JSON.stringify(identity.settings);
    resetIdentityProvider();

    const authorize = async (token: string) => {
      env.probe.reset();
      const start = performance.now();
      const policy = (await env.authorizer({
        type: 'TOKEN',
        authorizationToken: `Bearer ${token}`,
        methodArn: METHOD_ARN,
      })) as { policyDocument?: { Statement?: Array<{ Effect?: string }> } };
      const ms = performance.now() - start;
      if (policy.policyDocument?.Statement?.[0]?.Effect !== 'Allow')
        throw new Error('the authorizer refused');
      return { ms, calls: env.probe.total() };
    };

    const cold = await authorize(signedIn.tokens.access_token);
    const warm: number[] = [];
    const keyed: number[] = [];
    let warmCalls = 0;
    let keyCalls = 0;
    // Alternating, so both see the same machine.
    for (let i = 0; i < runs + 20; i++) {
      const person = await authorize(signedIn.tokens.access_token);
      const key = await authorize(env.key.api_key);
      if (i < 20) continue;
      warm.push(person.ms);
      keyed.push(key.ms);
      warmCalls = Math.max(warmCalls, person.calls);
      keyCalls = Math.max(keyCalls, key.calls);
    }
    return {
      cold_ms: cold.ms,
      cold_storage_calls: cold.calls,
      warm_median_ms: median(warm),
      warm_storage_calls: warmCalls,
      key_median_ms: median(keyed),
      key_storage_calls: keyCalls,
      runs,
    };
  } finally {
    delete process.env.IDENTITY_PROVIDER;
    resetIdentityProvider();
    await identity.close();
  }
};
