import type { Ban } from './api';
import { StateBadge, TimeText } from './ui';

/**
 * The cells every table of a device's bans shows alike: which ban it is, how it lasts and whether
 * it applies, and the Revoke at the row's end. Each table adds its own columns between them.
 */

export type BanState = 'active' | 'revoked' | 'expired';

/** The columns of BanKindCells, then of BanLifeCells. */
export const banKindColumns = ['Ban', 'Type', 'Scope'] as const;
export const banLifeColumns = ['Reason', 'Created', 'Expires', 'Status', 'Enforced'] as const;

export const BanKindCells = ({ ban }: { ban: Ban }) => (
  <>
    <th scope="row">{ban.ban_id}</th>
    <td>{ban.ban_type}</td>
    <td>{ban.scope}</td>
  </>
);

export const BanLifeCells = ({ ban, state }: { ban: Ban; state: BanState }) => (
  <>
    <td>{ban.reason_code}</td>
    <td>
      <TimeText iso={ban.created_at} />
    </td>
    <td>
      {ban.expires_at === null ? (
        'never'
      ) : (
        <TimeText iso={ban.expires_at} prefix={state === 'expired' ? 'ended ' : 'until '} />
      )}
    </td>
    <td>
      <StateBadge state={state} />
      {ban.revoke_reason_code ? ` (${ban.revoke_reason_code})` : ''}
    </td>
    <td>{ban.enforced ? 'yes' : 'no'}</td>
  </>
);

/** The actions cell: Revoke, when the ban is active and the caller's to revoke. */
export const RevokeCell = ({
  ban,
  revocable,
  onRevoke,
}: {
  ban: Ban;
  revocable: boolean;
  onRevoke: (ban: Ban) => void;
}) => (
  <td class="sticky-end">
    {revocable ? (
      <button
        type="button"
        class="small"
        aria-label={`Revoke ban ${ban.ban_id}`}
        onClick={() => onRevoke(ban)}
      >
        Revoke
      </button>
    ) : null}
  </td>
);
