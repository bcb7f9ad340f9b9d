import { type notEnforced, policyEnforces, ruleFor } from '@kernel/policy-rules';
import { useEffect, useRef, useState } from 'preact/hooks';
import { addressHash } from './address';
import { type Ban, type Call, type Enforcement, formatTime, type Policy, type Schemas } from './api';
import {
  AppealBadge,
  errorMessage,
  Field,
  type Message,
  Notice,
  Pager,
  StateBadge,
  TableScroll,
  TimeText,
  useBusy,
  useFocusOn,
} from './ui';
import { check } from './validation';

/**
 * Looking up a device in a game: the enforcement answer (restricted or not, and why), the
 * reputation with its counts and weights, and the bans of every type with a status filter and
 * paging, each with `enforced` and the rule that applies it.
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

/** Reads a device: its enforcement answer and every ban the key can see (for the preview). */
export const readDevice = async (
  call: Call,
  game: string,
  deviceId: string,
): Promise<{ ok: true; device: OpenDevice } | { ok: false; message: Message }> => {
  const [enforcement, all] = await Promise.all([
    call('get', '/v1/device/{device_id}/enforcement', { path: { device_id: deviceId }, game }),
    loadAllBans(call, game, deviceId),
  ]);
  if (enforcement.status !== 200) return { ok: false, message: errorMessage(enforcement) };
  return { ok: true, device: { deviceId, game, enforcement: enforcement.body, allBans: all.bans } };
};

export const banState = (ban: Ban, now = new Date().toISOString()): 'active' | 'revoked' | 'expired' =>
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

const yesNo = (value: boolean) => (value ? 'yes' : 'no');

/** A ban in force that the policy does not apply, with why (the enforcement answer's `not_enforced`). */
export type NotEnforced = ReturnType<typeof notEnforced>[number];

/** The enforcement answer's `not_enforced`: every ban in force the policy does not apply. */
export const notEnforcedOf = (enforcement: Enforcement | null): NotEnforced[] =>
  (enforcement as (Enforcement & { not_enforced?: NotEnforced[] }) | null)?.not_enforced ?? [];

/** Why each ban in force does not apply, by ban id, in the API's words. */
export const whyNotOf = (enforcement: Enforcement | null): Map<number, string> =>
  new Map(notEnforcedOf(enforcement).map((item) => [item.ban_id, item.explanation]));

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

export const EnforcementPanel = ({ enforcement }: { enforcement: Enforcement }) => {
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
        <h3 id="enforcement-heading">Enforcement</h3>
        <ul class="restricted">
          <li>
            Cheat: <strong>{enforcement.restricted.cheat ? 'restricted' : 'not restricted'}</strong>
          </li>
          <li>
            Social: <strong>{enforcement.restricted.social ? 'restricted' : 'not restricted'}</strong>
          </li>
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
        <TableScroll label="Reputation table">
          <table>
            <caption>Bans counted, by type, scope and state, with their weights</caption>
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">Scope</th>
                <th scope="col">Active</th>
                <th scope="col">Expired</th>
                <th scope="col">Penalty</th>
              </tr>
            </thead>
            <tbody>
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
                  <td>
                    {counts.active * rep.weights[type].active + counts.expired * rep.weights[type].expired}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      </section>
    </>
  );
};

interface BansTableProps {
  page: BanList;
  policy: Policy | null;
  /** Why each ban in force does not apply, by id (the enforcement answer's `not_enforced`). */
  whyNot?: Map<number, string> | undefined;
  deviceId: string;
  onRevoke?: ((ban: Ban) => void) | undefined;
}

export const BansTable = ({ page, policy, whyNot, deviceId, onRevoke }: BansTableProps) => (
  <TableScroll label="Bans table">
    <table>
      <caption>
        Bans of {deviceId}: {page.counts.active} active, {page.counts.inactive} inactive, {page.counts.total}{' '}
        in all (showing {page.status})
      </caption>
      <thead>
        <tr>
          <th scope="col">Ban</th>
          <th scope="col">Type</th>
          <th scope="col">Scope</th>
          <th scope="col">Publisher</th>
          <th scope="col">Game</th>
          <th scope="col">Reason</th>
          <th scope="col">Created</th>
          <th scope="col">Expires</th>
          <th scope="col">Status</th>
          <th scope="col">Enforced</th>
          <th scope="col">Rule</th>
          <th scope="col">For the player</th>
          <th scope="col">Appeal</th>
          {onRevoke && (
            <th scope="col" class="sticky-end">
              Actions
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {page.items.length === 0 && (
          <tr>
            <td colSpan={onRevoke ? 14 : 13}>No bans match.</td>
          </tr>
        )}
        {page.items.map((ban) => {
          const state = banState(ban);
          return (
            <tr key={ban.ban_id}>
              <th scope="row">{ban.ban_id}</th>
              <td>{ban.ban_type}</td>
              <td>{ban.scope}</td>
              <td>{ban.publisher_id}</td>
              <td>{ban.game_id ?? '—'}</td>
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
              <td>{yesNo(ban.enforced)}</td>
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
              {onRevoke && (
                <td class="sticky-end">
                  {state === 'active' && (policy === null || ban.publisher_id === policy.publisher_id) ? (
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
              )}
            </tr>
          );
        })}
      </tbody>
    </table>
  </TableScroll>
);

/** A lookup asked for elsewhere in the page (a found device's Open): this device, in this game. */
export interface LookupRequest {
  deviceId: string;
  game: string;
}

interface LookupProps {
  call: Call;
  game: string;
  gameError: string | undefined;
  /**
   * Each new request fills the form with its device and looks it up in its game, which need not
   * be the Game ID: `requested` says the device opened answers a request.
   */
  request?: LookupRequest | null;
  /** A lookup starts: whatever answered the previous one is no longer the answer. */
  onAsk: () => void;
  onOpen: (device: OpenDevice, requested: boolean) => void;
}

/** The lookup form: a device id, in the session's game. */
export const LookupForm = ({ call, game, gameError, request, onAsk, onOpen }: LookupProps) => {
  const [deviceId, setDeviceId] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [message, setMessage] = useState<Message>(null);
  const { busy, run } = useBusy();
  // Only the latest lookup's answer opens a device.
  const asked = useRef(0);

  /** A request from elsewhere is a new question: it runs at once, superseding a lookup under way. */
  const lookUp = (inGame: string, id: string, requested: boolean) =>
    run(
      async () => {
        const question = ++asked.current;
        setMessage(null);
        onAsk();
        const opened = await readDevice(call, inGame, id);
        if (question !== asked.current) return;
        if (!opened.ok) {
          // A request's game may not be the Game ID's: the message names it.
          setMessage(
            requested && opened.message
              ? {
                  ...opened.message,
                  text: `Device ${id} could not be looked up in game ${inGame}. ${opened.message.text}`,
                }
              : opened.message,
          );
          return;
        }
        onOpen(opened.device, requested);
      },
      { supersedes: requested },
    );

  useEffect(() => {
    if (!request) return;
    setDeviceId(request.deviceId);
    setError(undefined);
    void lookUp(request.game, request.deviceId, true);
  }, [request]);

  const submit = (e: Event) => {
    e.preventDefault();
    const id = deviceId.trim();
    const problem = check('device_id', id);
    setError(problem);
    if (problem || gameError) {
      setMessage({ kind: 'error', text: gameError ? `Game ID ${gameError}.` : `Device ID ${problem}.` });
      return;
    }
    void lookUp(game, id, false);
  };

  return (
    <section aria-labelledby="lookup-heading" class="panel">
      <h2 id="lookup-heading">Look up a device</h2>
      <form onSubmit={submit} noValidate>
        <Field
          id="lookup-device"
          label="Device ID"
          value={deviceId}
          onValue={setDeviceId}
          error={error ? `Device ID ${error}` : undefined}
          required
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Looking up…' : 'Look up'}
        </button>
      </form>
      <Notice message={message} />
    </section>
  );
};

interface DeviceResultProps {
  call: Call;
  device: OpenDevice;
  policy: Policy | null;
  onRevoke?: ((ban: Ban) => void) | undefined;
  /** Bumped after a change to the device (a revoke, a new ban) to read it again. */
  version: number;
  /** Bumped by each lookup. */
  lookup: number;
}

/** The open device: its heading (focused when it opens), enforcement, reputation and bans. */
export const DeviceResult = ({ call, device, policy, onRevoke, version, lookup }: DeviceResultProps) => {
  // Focus comes to the heading when a lookup opens the device, not when a change reloads it.
  const heading = useFocusOn<HTMLHeadingElement>(lookup);
  const [status, setStatus] = useState<StatusFilter>('all');
  const [type, setType] = useState<TypeFilter>('any');
  const [cursors, setCursors] = useState<Array<number | undefined>>([undefined]);
  const [page, setPage] = useState<BanList | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const { busy, run } = useBusy();

  const [applied, setApplied] = useState<{ status: StatusFilter; type: TypeFilter }>({ status, type });
  // Which question the rows answer: only the answer to the latest one is shown, however the
  // requests finish (a slow answer about the previous device never lands under this one).
  const asked = useRef(0);
  // Nothing visible at all: the enforcement answer would read as a clean device (score 100).
  const nothingRecorded = device.allBans !== null && device.allBans.length === 0;

  /** A page of the filters last applied (paging, a reload), or of the form's (Show bans). */
  const load = (stack: Array<number | undefined>, filter = applied) => {
    const question = ++asked.current;
    return run(
      async () => {
        const cursor = stack[stack.length - 1];
        const answer = await call('get', '/v1/device/{device_id}/bans', {
          path: { device_id: device.deviceId },
          query: {
            status: filter.status,
            limit: PAGE_SIZE,
            ...(filter.type === 'any' ? {} : { type: filter.type }),
            ...(cursor === undefined ? {} : { cursor }),
          },
          game: device.game,
        });
        if (question !== asked.current) return;
        if (answer.status !== 200) {
          // Whatever was listed answered another question: it goes, and the failure says so.
          setPage(null);
          const failed = errorMessage(answer);
          setMessage(
            failed && {
              ...failed,
              text: `The bans of ${device.deviceId} could not be listed. ${failed.text}`,
            },
          );
          return;
        }
        setMessage(null);
        setApplied(filter);
        setCursors(stack);
        setPage(answer.body);
      },
      { supersedes: true },
    );
  };

  // A new device, or a change to this one: back to the first page, and nothing of the previous
  // device's listing on screen meanwhile.
  useEffect(() => {
    setPage(null);
    setMessage(null);
    void load([undefined]);
  }, [device, version]);

  const applyFilters = (e: Event) => {
    e.preventDefault();
    void load([undefined], { status, type });
  };
  const nextCursor = page?.next_cursor ?? null;

  return (
    <section aria-labelledby="device-heading" class="result">
      <h2 id="device-heading" tabIndex={-1} ref={heading}>
        Device {device.deviceId} in game {device.game}
      </h2>
      {nothingRecorded ? (
        <p class="panel notice-empty" role="status">
          No bans are recorded for device {device.deviceId} in your view of game {device.game} (your bans in
          this game, your publisher-wide bans and every publisher's global bans). That is not a clean record:
          a partial or mistyped device id, or another game, looks the same. Check both.
        </p>
      ) : (
        <>
          {device.enforcement && <EnforcementPanel enforcement={device.enforcement} />}
          <section aria-labelledby="bans-heading" class="panel">
            <h3 id="bans-heading">Bans</h3>
            <form class="filters" onSubmit={applyFilters}>
              <div class="field">
                <label for="bans-status">Status</label>
                <select
                  id="bans-status"
                  value={status}
                  onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value as StatusFilter)}
                >
                  <option value="all">all</option>
                  <option value="active">active</option>
                  <option value="inactive">inactive (revoked or expired)</option>
                </select>
              </div>
              <div class="field">
                <label for="bans-type">Type</label>
                <select
                  id="bans-type"
                  value={type}
                  onChange={(e) => setType((e.currentTarget as HTMLSelectElement).value as TypeFilter)}
                >
                  <option value="any">cheat and social</option>
                  <option value="cheat">cheat</option>
                  <option value="social">social</option>
                </select>
              </div>
              <button type="submit" disabled={busy}>
                Show bans
              </button>
            </form>
            <Notice message={message} />
            {page && (
              <BansTable
                page={page}
                policy={policy}
                whyNot={whyNotOf(device.enforcement)}
                deviceId={device.deviceId}
                onRevoke={onRevoke}
              />
            )}
            {page && (
              <Pager
                number={cursors.length}
                busy={busy}
                onPrevious={cursors.length > 1 ? () => void load(cursors.slice(0, -1)) : undefined}
                onNext={nextCursor === null ? undefined : () => void load([...cursors, nextCursor])}
              />
            )}
          </section>
        </>
      )}
    </section>
  );
};
