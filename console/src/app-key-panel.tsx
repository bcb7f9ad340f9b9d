import { type Scope, scopes, scopeUses } from './api';
import type { Session } from './session';
import type { ScopeKnowledge } from './ui';

/** What the session may do: the sentence the console opens with, and the panel of every scope. */

/** Who is signed in, and each scope: held, missing or not known yet, and how the console knows. */
export const KeyPanel = ({ session, knowledge }: { session: Session; knowledge: ScopeKnowledge }) => (
  <details class="panel key-panel">
    <summary>{session.person ? 'What your role may do' : 'What this key may do'}</summary>
    {session.person ? (
      <p>
        {session.person.who.email}, {session.person.who.role} of {session.person.who.publisher_id}: every
        game.
      </p>
    ) : session.identity ? (
      <p>
        Key {session.identity.name} ({session.identity.key_id}), games:{' '}
        {session.identity.games === null ? 'every game' : session.identity.games.join(', ')}
        {session.identity.expires_at ? `, expires ${session.identity.expires_at}` : ''}.
      </p>
    ) : (
      <p>
        Scopes are checked at sign-in where a cheap read allows it, and learned from the API's answers
        otherwise.
      </p>
    )}
    <ul>
      {scopes.map((scope) => (
        <li key={scope}>
          <code>{scope}</code> ({scopeUses[scope]}):{' '}
          <strong>
            {knowledge[scope].held === null ? 'not known yet' : knowledge[scope].held ? 'held' : 'missing'}
          </strong>
          {knowledge[scope].note ? `, ${knowledge[scope].note}` : ''}
        </li>
      ))}
    </ul>
  </details>
);

/** What the sign-in found out, in one sentence. */
export const summary = (session: Session): string => {
  const by = (held: boolean | null) => scopes.filter((s) => session.knowledge[s].held === held);
  const list = (items: Scope[]) => items.join(', ');
  const parts = [
    `Signed in${session.person ? ` as ${session.person.who.email} (${session.person.who.role})` : ''}${session.policy ? ` for ${session.policy.publisher_id}` : ''}.`,
    by(true).length ? `${session.person ? 'Your role' : 'This key'} holds ${list(by(true))}.` : '',
    by(false).length ? `It lacks ${list(by(false))}: what needs them is hidden.` : '',
    by(null).length ? `${list(by(null))}: checked when first used.` : '',
  ];
  return parts.filter(Boolean).join(' ');
};
