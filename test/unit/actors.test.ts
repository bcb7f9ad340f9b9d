import { roleScopes } from '@kernel/people';
import { scopes } from '@kernel/scopes';
import { describe, expect, it } from 'vitest';
import { actorFromStored } from '../../lib/model/actors';

describe('an actor read back from storage', () => {
  it('reads an actor stored before people signed in (no type) as the key it was', () => {
    expect(actorFromStored({ key_id: 'key_abcdefghijkl', name: 'ops' })).toEqual({
      type: 'key',
      key_id: 'key_abcdefghijkl',
      name: 'ops',
    });
    expect(actorFromStored({ key_id: null, name: 'operator' })).toEqual({
      type: 'key',
      key_id: null,
      name: 'operator',
    });
  });

  it('reads a person with their subject, email and role, and nothing else', () => {
    const person = { type: 'user', sub: 's-1', email: null, role: 'moderator' };
    expect(actorFromStored({ ...person, extra: 'x' })).toEqual(person);
  });

  it('refuses what is neither: an unknown type or role, a missing name or subject', () => {
    for (const stored of [
      null,
      'key',
      { type: 'robot', key_id: null, name: 'x' },
      { type: 'user', sub: 's', email: null, role: 'owner' },
      { type: 'user', email: 'a@b.c', role: 'admin' },
      { key_id: 'key_abcdefghijkl' },
    ])
      expect(actorFromStored(stored), JSON.stringify(stored)).toBeUndefined();
  });
});

describe('roles', () => {
  it('gives viewers reads only, moderators bans:write and appeals:decide too, and admins every scope', () => {
    expect([...roleScopes.viewer].sort()).toEqual(['audit:read', 'bans:read', 'policy:read']);
    expect([...roleScopes.moderator].sort()).toEqual([
      'appeals:decide',
      'audit:read',
      'bans:read',
      'bans:write',
      'policy:read',
    ]);
    expect([...roleScopes.admin].sort()).toEqual([...scopes].sort());
  });
});
