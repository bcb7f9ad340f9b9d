import { type Role, roles } from '@kernel/people';
import { MAX_IDLE_MINUTES } from '@kernel/sign-in';
import { createApiKey, listApiKeys, type NewApiKey } from '../../lib/domain/api-keys';
import { createLocalPerson, listLocalPeople, newPassword } from './people';
import type { LocalApiOptions } from './server';

/**
 * `npm start`'s development publisher: on a store that has none, its first key and one person per
 * role, each secret handed back only now (main.ts prints them once). The console's browser tests
 * make theirs the same way.
 */

export const DEV_PUBLISHER = 'dev-publisher';
export const DEV_GAME = 'dev-game';

const idleMinutes = (raw: string) => {
  const minutes = Number(raw);
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > MAX_IDLE_MINUTES)
    throw new Error(`IDLE_MINUTES must be an integer from 1 to ${MAX_IDLE_MINUTES}, got ${raw}`);
  return minutes;
};

/** The server `npm start` runs, as its environment sets it (PORT, HOST, IDENTITY_PORT, …). */
export const serverOptionsFrom = (env: NodeJS.ProcessEnv): LocalApiOptions => {
  const port = Number(env.PORT ?? 3000);
  return {
    env,
    port,
    host: env.HOST ?? '127.0.0.1',
    // The local identity provider beside the API (IDENTITY_PORT, default the next port).
    identityPort: Number(env.IDENTITY_PORT ?? (port === 0 ? 0 : port + 1)),
    authorizerCacheSeconds: Number(env.AUTHORIZER_CACHE_SECONDS ?? 0),
    // Shorter than the deployed 15 minutes only to watch the console renew a session.
    ...(env.ACCESS_TOKEN_SECONDS && { accessTokenSeconds: Number(env.ACCESS_TOKEN_SECONDS) }),
    // Minutes without input before the console signs out (its sign-in.json; default 30).
    ...(env.IDLE_MINUTES && { idleMinutes: idleMinutes(env.IDLE_MINUTES) }),
  };
};

export interface DevelopmentPerson {
  role: Role;
  email: string;
  password: string;
}

export interface Development {
  /** The key made now; null when the publisher already had one. */
  key: NewApiKey | null;
  /** The people made now; null when the publisher already had people, or nobody signs in here. */
  people: DevelopmentPerson[] | null;
}

/** Makes what the development publisher lacks, on the store the server bound. */
export const ensureDevelopmentPublisher = async (options: { people: boolean }): Promise<Development> => {
  const key =
    (await listApiKeys(DEV_PUBLISHER)).length === 0
      ? await createApiKey(DEV_PUBLISHER, 'local development')
      : null;
  if (!options.people || (await listLocalPeople(DEV_PUBLISHER)).length > 0) return { key, people: null };
  const people: DevelopmentPerson[] = [];
  for (const role of roles) {
    const password = newPassword();
    const person = await createLocalPerson(
      { email: `${role}@dev-publisher.local`, publisher_id: DEV_PUBLISHER, role },
      password,
    );
    people.push({ role, email: person.email, password });
  }
  return { key, people };
};
