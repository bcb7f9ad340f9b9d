import type { Role } from '@kernel/people';
import { provisionPolicy } from '../../lib/domain/policy';
import { createLocalPerson as createStored, type LocalPerson } from '../../lib/storage/local-people';

/**
 * The local identity provider's people (lib/storage/local-people.ts), as the operator's tool and
 * `npm start` make them: a person's publisher is made if it is new (its policy, as a first key
 * makes it).
 */
export * from '../../lib/storage/local-people';

export const createLocalPerson = async (
  person: { email: string; publisher_id: string; role: Role },
  password: string,
): Promise<LocalPerson> => {
  await provisionPolicy(person.publisher_id);
  return createStored(person, password);
};
