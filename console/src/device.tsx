import { type notEnforced, policyEnforces, ruleFor } from '@kernel/policy-rules';
import { addressHash } from './address';
import type { Ban, Call, Enforcement, Policy, Schemas } from './api';
import { EvidenceCells, evidenceColumns } from './ban-evidence';
import { DataTable } from './data-table';
import {
  BanKindCells,
  BanLifeCells,
  type BanState,
  banKindColumns,
  banLifeColumns,
  RevokeCell,
} from './device-ban-cells';
import { AppealBadge, errorMessage, type Message } from './ui';

/**
 * A device in a game as the console reads it: its enforcement answer and every ban the key can
 * see, each ban's state and the rule that applies it in words, and the table of its bans (also
 * the appeal's history). The views on it: device-result.tsx (one game), device-games.tsx (all).
 */

export type BanList = Schemas['BanList'];
export type StatusFilter = BanList['status'];
export type TypeFilter = 'any' | Ban['ban_type'];

/** The open device: what the policy preview and the other forms work on. */
export interface OpenDevice {
  deviceId: string;
  game: string;
  enforcement: Enforcement | null;
  /** Every ban of the device the key can see (all statuses, every page), for the preview. */
  allBans: Ban[] | null;
}

export const PAGE_SIZE = 20;
const MAX_PAGES_FOR_PREVIEW = 25;

/** Every visible ban of the device, all statuses: the pages of a status=all listing. */
export const loadAllBans = async (call: Call, game: string, deviceId: string) => {
  const bans: Ban[] = [];
  let cursor: number | undefined;
  for (let page = 0; page < MAX_PAGES_FOR_PREVIEW; page++) {
    const answer = await call('get', '/v1/device/{device_id}/bans', {
      path: { device_id: deviceId },
      query: { status: 'all', limit: 200, ...(cursor === undefined ? {} : { cursor }) },
      game,
    });
    if (answer.status !== 200) return { bans: null, answer };
    bans.push(...answer.body.items);
    if (answer.body.next_cursor === null) return { bans, answer };
    cursor = answer.body.next_cursor;
  }
  return { bans, answer: null };
};

/**
 * A device as one answer: the enforcement answer's refusal, or the open device (its enforcement
 * and every ban the key can see, read at the same time).
 */
export const deviceAnswer = async (call: Call, game: string, deviceId: string) => {
  const [enforcement, all] = await Promise.all([
    call('get', '/v1/device/{device_id}/enforcement', { path: { device_id: deviceId }, game }),
    loadAllBans(call, game, deviceId),
  ]);
  if (enforcement.status !== 200) return enforcement;
  const device: OpenDevice = { deviceId, game, enforcement: enforcement.body, allBans: all.bans };
  return { ok: true as const, status: 200, body: device, retryAfter: null };
};

/** Reads a device: its enforcement answer and every ban the key can see (for the preview). */
export const readDevice = async (
  call: Call,
  game: string,
  deviceId: string,
): Promise<{ ok: true; device: OpenDevice } | { ok: false; message: Message }> => {
  const answer = await deviceAnswer(call, game, deviceId);
  return answer.ok ? { ok: true, device: answer.body } : { ok: false, message: errorMessage(answer) };
};

export const banState = (ban: Ban, now = new Date().toISOString()): BanState =>
  ban.revoked_at !== null
    ? 'revoked'
    : ban.expires_at !== null && ban.expires_at <= now
      ? 'expired'
      : 'active';

/** "applies: enforce_game", or which flag keeps it from applying. */
export const ruleText = (ban: Ban, policy: Policy | null, whyNot?: string): string => {
  const rule = ruleFor(ban);
  const names = rule.join(' + ');
  if (ban.enforced) return `applies by ${names}`;
  if (banState(ban) !== 'active') return `would need ${names}; not active`;
  if (policy && !policyEnforces(policy, ban)) {
    const off = rule.filter((flag) => !policy[flag]);
    return `not applied: ${off.join(' and ')} ${off.length === 1 ? 'is' : 'are'} off`;
  }
  // Its flags are on: only the trust settings keep a global ban from applying; the API says which
  // (an untrusted source, a quorum not met).
  if (whyNot && ban.scope === 'global') return `not applied: ${whyNot}`;
  if (policy && ban.scope === 'global')
    return 'not applied: its publisher is not trusted, or too few trusted publishers hold one';
  return `needs ${names}`;
};

/** A ban in force that the policy does not apply, with why (the enforcement answer's `not_enforced`). */
export type NotEnforced = ReturnType<typeof notEnforced>[number];

/** The enforcement answer's `not_enforced`: every ban in force the policy does not apply. */
export const notEnforcedOf = (enforcement: Enforcement | null): NotEnforced[] =>
  (enforcement as (Enforcement & { not_enforced?: NotEnforced[] }) | null)?.not_enforced ?? [];

/** Why each ban in force does not apply, by ban id, in the API's words. */
export const whyNotOf = (enforcement: Enforcement | null): Map<number, string> =>
  new Map(notEnforcedOf(enforcement).map((item) => [item.ban_id, item.explanation]));

interface BansTableProps {
  page: BanList;
  policy: Policy | null;
  /** Why each ban in force does not apply, by id (the enforcement answer's `not_enforced`). */
  whyNot?: Map<number, string> | undefined;
  deviceId: string;
  onRevoke?: ((ban: Ban) => void) | undefined;
}

export const BansTable = ({ page, policy, whyNot, deviceId, onRevoke }: BansTableProps) => (
  <DataTable
    label="Bans table"
    caption={
      <>
        Bans of {deviceId}: {page.counts.active} active, {page.counts.inactive} inactive, {page.counts.total}{' '}
        in all (showing {page.status})
      </>
    }
    columns={[
      ...banKindColumns,
      'Publisher',
      'Game',
      ...banLifeColumns,
      'Rule',
      'For the player',
      'Appeal',
      ...evidenceColumns,
    ]}
    actions={onRevoke !== undefined}
    count={page.items.length}
    empty="No bans match."
  >
    {page.items.map((ban) => {
      const state = banState(ban);
      return (
        <tr key={ban.ban_id}>
          <BanKindCells ban={ban} />
          <td>{ban.publisher_id}</td>
          <td>{ban.game_id ?? '—'}</td>
          <BanLifeCells ban={ban} state={state} />
          <td>{ruleText(ban, policy, whyNot?.get(ban.ban_id))}</td>
          <td>
            {ban.player_message ?? '—'}
            {ban.appealable ? '' : ' (no appeal)'}
          </td>
          <td>
            {ban.appeal ? (
              <>
                <AppealBadge appeal={ban.appeal} />{' '}
                <a href={addressHash({ view: 'appeals', appeal: ban.appeal.appeal_id })}>
                  {ban.appeal.appeal_id}
                </a>
              </>
            ) : (
              '—'
            )}
          </td>
          <EvidenceCells ban={ban} publisher={policy?.publisher_id ?? null} />
          {onRevoke && (
            <RevokeCell
              ban={ban}
              revocable={state === 'active' && (policy === null || ban.publisher_id === policy.publisher_id)}
              onRevoke={onRevoke}
            />
          )}
        </tr>
      );
    })}
  </DataTable>
);
