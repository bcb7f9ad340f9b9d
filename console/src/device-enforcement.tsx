import type { Ref } from 'preact';
import type { Enforcement } from './api';
import { formatTime } from './api';
import { DataTable } from './data-table';
import { type NotEnforced, notEnforcedOf } from './device';

/** The open device's enforcement answer (restricted or not, and why) and its reputation. */

/** The global bans in force that do not apply to you, each with why (an untrusted source, a quorum). */
const NotApplied = ({ items }: { items: NotEnforced[] }) => {
  const global = items.filter((item) => item.scope === 'global');
  if (global.length === 0) return null;
  return (
    <>
      <p>Global bans in force that do not apply to you, and why:</p>
      <ul>
        {global.map((item) => (
          <li key={item.ban_id}>
            Ban {item.ban_id}: {item.ban_type}, global scope, by {item.publisher_id}: not applied:{' '}
            {item.explanation}
          </li>
        ))}
      </ul>
    </>
  );
};

/**
 * Until when a type is restricted: the latest end of the bans of that type that apply, or
 * "permanently" when one of them never ends; null when none applies.
 */
export const restrictedUntil = (enforcement: Enforcement, type: 'cheat' | 'social'): string | null => {
  if (!enforcement.restricted[type]) return null;
  const ends = enforcement.bans.filter((ban) => ban.ban_type === type).map((ban) => ban.expires_at);
  if (ends.length === 0 || ends.includes(null)) return 'permanently';
  return `until ${formatTime(ends.reduce((a, b) => ((b ?? '') > (a ?? '') ? b : a)))}`;
};

export const EnforcementPanel = ({
  enforcement,
  headingRef,
}: {
  enforcement: Enforcement;
  /** The verdict's heading, where a lookup or a link lands. */
  headingRef?: Ref<HTMLHeadingElement>;
}) => {
  const rep = enforcement.reputation;
  const rows = (['cheat', 'social'] as const).flatMap((type) =>
    (['game', 'publisher', 'global'] as const).map((scope) => ({
      type,
      scope,
      counts: rep.counts[type][scope],
    })),
  );
  return (
    <>
      <section aria-labelledby="enforcement-heading" class="panel">
        <h3 id="enforcement-heading" tabIndex={-1} ref={headingRef}>
          Enforcement
        </h3>
        <ul class="restricted verdict">
          {(['cheat', 'social'] as const).map((type) => {
            const until = restrictedUntil(enforcement, type);
            return (
              <li key={type} class={until ? 'is-restricted' : 'is-clear'}>
                {type === 'cheat' ? 'Cheat' : 'Social'}:{' '}
                <strong>{until ? `restricted ${until}` : 'not restricted'}</strong>
              </li>
            );
          })}
        </ul>
        {enforcement.bans.length === 0 ? (
          <p>No ban applies to this device under your policy.</p>
        ) : (
          <>
            <p>Why: the bans that apply under your policy, with the flags that make each apply.</p>
            <ul>
              {enforcement.bans.map((ban) => (
                <li key={ban.ban_id}>
                  Ban {ban.ban_id}: {ban.ban_type}, {ban.scope} scope, by {ban.publisher_id}, reason{' '}
                  {ban.reason_code}
                  {' — '}rule {ban.rule.join(' + ')}
                </li>
              ))}
            </ul>
          </>
        )}
        <NotApplied items={notEnforcedOf(enforcement)} />
        <p class="meta">
          Evaluated {formatTime(enforcement.evaluated_at)}; policy updated{' '}
          {formatTime(enforcement.policy_updated_at)}.
        </p>
      </section>
      <section aria-labelledby="reputation-heading" class="panel">
        <h3 id="reputation-heading">Reputation</h3>
        <p>
          Score <strong>{rep.score}</strong> of 100 (100 is clean). Counted scopes:{' '}
          {rep.included_scopes.length ? rep.included_scopes.join(', ') : 'none'}.
        </p>
        <DataTable
          label="Reputation table"
          caption="Bans counted, by type, scope and state, with their weights"
          columns={['Type', 'Scope', 'Active', 'Expired', 'Penalty']}
        >
          {rows.map(({ type, scope, counts }) => (
            <tr key={`${type}-${scope}`}>
              <th scope="row">{type}</th>
              <td>{scope}</td>
              <td>
                {counts.active} × {rep.weights[type].active}
              </td>
              <td>
                {counts.expired} × {rep.weights[type].expired}
              </td>
              <td>{counts.active * rep.weights[type].active + counts.expired * rep.weights[type].expired}</td>
            </tr>
          ))}
        </DataTable>
      </section>
    </>
  );
};
