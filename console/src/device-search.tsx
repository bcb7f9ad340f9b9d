import { useEffect, useRef, useState } from 'preact/hooks';
import type { Call, Schemas } from './api';
import { DataTable } from './data-table';
import { SEARCH_DELAY_MS } from './search-timing';
import {
  Field,
  Notice,
  Pager,
  refocus,
  ScopeGate,
  type ScopeKnowledge,
  TimeText,
  useCursorPages,
  useFocusOn,
} from './ui';
import { checkDevicePrefix } from './validation';

/**
 * Finding a device by the beginning of its id (a report names "device 7f3a…"): the devices the
 * publisher has banned whose id begins with what is typed (`GET /v1/devices?prefix=`), in id
 * order, each opened in one of the games it was banned in. Searched as the moderator types: only
 * the answer to what the field holds now is shown.
 */

type BannedDevice = Schemas['BannedDevice'];

/** Devices a page (the API's default). */
export const SEARCH_PAGE_SIZE = 25;

interface Props {
  call: Call;
  knowledge: ScopeKnowledge;
  /** The Game ID as typed: empty when there is none. */
  game: string;
  /** The games the session's key is bound to, when it is. */
  bound: readonly string[] | null | undefined;
  /** Look the device up in this game (which the Game ID becomes). */
  onOpen: (deviceId: string, game: string) => void;
}

const openLabel = (deviceId: string) => `Open device ${deviceId}`;

/** Which game to open a device in, when the Game ID does not settle it. */
const PickGame = ({
  device,
  game,
  onPick,
  onCancel,
}: {
  device: BannedDevice;
  game: string;
  onPick: (game: string) => void;
  onCancel: () => void;
}) => {
  const heading = useFocusOn<HTMLHeadingElement>(device);
  return (
    <section
      aria-labelledby="pick-game-heading"
      class="panel"
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return;
        e.preventDefault();
        onCancel();
      }}
    >
      <h3 id="pick-game-heading" tabIndex={-1} ref={heading}>
        Open device {device.device_id} in which game?
      </h3>
      <p>
        You have banned it in {device.games.length === 1 ? 'game' : 'games'} {device.games.join(', ')}; the
        Game ID is {game === '' ? 'empty' : game}. Choose the game to look it up in: the Game ID becomes it.
      </p>
      <div class="actions">
        {device.games.map((g) => (
          <button type="button" key={g} onClick={() => onPick(g)}>
            Open in {g}
          </button>
        ))}
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
};

const Search = ({ call, game, bound, onOpen }: Props) => {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [picking, setPicking] = useState<BannedDevice | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const { page, applied, message, first, clear, pager } = useCursorPages(
    (filters: { prefix: string }, cursor) =>
      call('get', '/v1/devices', {
        query: { prefix: filters.prefix, limit: SEARCH_PAGE_SIZE, ...(cursor ? { cursor } : {}) },
      }),
    { prefix: '' },
    // Each prefix typed is a new question: the answer to an older one is dropped, however late.
    { latest: true },
  );
  useEffect(() => () => clearTimeout(timer.current), []);

  const prefix = text.trim();
  const where = bound ? ` in ${bound.join(', ')}` : '';

  /** The field changed: what answered the previous prefix goes at once; the new one is sent after a pause. */
  const type = (value: string) => {
    setText(value);
    setPicking(null);
    clear();
    clearTimeout(timer.current);
    const next = value.trim();
    const bad = next === '' ? undefined : checkDevicePrefix(next);
    setProblem(bad);
    if (next === '' || bad) return;
    timer.current = setTimeout(() => void first({ prefix: next }), SEARCH_DELAY_MS);
  };

  /** Enter (or Search): now, without the pause; again, after a failure. */
  const submit = (e: Event) => {
    e.preventDefault();
    clearTimeout(timer.current);
    if (prefix === '') {
      setProblem('is required: type at least 1 character');
      return;
    }
    if (problem) return;
    setPicking(null);
    void first({ prefix });
  };

  const open = (device: BannedDevice) => {
    const [only] = device.games;
    if (device.games.length === 1 && only !== undefined && (game === '' || game === only)) {
      setPicking(null);
      onOpen(device.device_id, only);
      return;
    }
    setPicking(device);
  };

  const count = page?.items.length ?? 0;
  // What the live region says: the count, or that nothing begins with it (never that a device is clean).
  const status =
    prefix === '' || message
      ? ''
      : problem
        ? `Nothing is searched: the prefix ${problem}.`
        : !page
          ? `Searching for devices whose ID begins with "${prefix}"…`
          : count === 0
            ? `No device you have banned begins with "${applied.prefix}". That is not a clean record: only the devices your publisher has banned${where} are searched, not other publishers' bans.`
            : `${count} ${count === 1 ? 'device' : 'devices'} you have banned begin${count === 1 ? 's' : ''} with "${applied.prefix}" on page ${pager.number}${page.next_cursor ? '; more on the next page' : ''}.`;

  return (
    <>
      <form noValidate onSubmit={submit}>
        <Field
          id="device-search"
          label="Device ID begins with"
          value={text}
          onValue={type}
          hint={`The devices your publisher has banned${where} whose ID begins with this, in ID order, searched as you type.`}
          error={problem ? `Device ID prefix ${problem}` : undefined}
        />
        <button type="submit">Search</button>
      </form>
      <Notice
        keepFocus
        message={
          message && {
            ...message,
            text: `The devices beginning with "${prefix}" could not be listed. ${message.text}`,
          }
        }
      />
      <p role="status" class="meta">
        {status}
      </p>
      {page && page.items.length > 0 && (
        <>
          <DataTable
            label="Found devices table"
            caption={
              <>
                Devices you have banned whose ID begins with "{applied.prefix}" (page {pager.number})
              </>
            }
            columns={['Device', 'Games', 'First banned', 'Last banned']}
            actions
          >
            {page.items.map((device) => (
              <tr key={device.device_id}>
                <th scope="row">{device.device_id}</th>
                <td>{device.games.join(', ')}</td>
                <td>
                  <TimeText iso={device.first_banned_at} />
                </td>
                <td>
                  <TimeText iso={device.last_banned_at} />
                </td>
                <td class="sticky-end">
                  <button
                    type="button"
                    class="small"
                    aria-label={openLabel(device.device_id)}
                    onClick={() => open(device)}
                  >
                    Open
                  </button>
                </td>
              </tr>
            ))}
          </DataTable>
          <Pager {...pager} />
        </>
      )}
      {picking && (
        <PickGame
          device={picking}
          game={game}
          onPick={(chosen) => {
            setPicking(null);
            onOpen(picking.device_id, chosen);
          }}
          onCancel={() => {
            refocus(openLabel(picking.device_id));
            setPicking(null);
          }}
        />
      )}
    </>
  );
};

export const DeviceSearch = (props: Props) => (
  <section aria-labelledby="device-search-heading" class="panel">
    <h2 id="device-search-heading">Find a device</h2>
    <ScopeGate scope="bans:read" known={props.knowledge} what="Finding a device">
      <Search {...props} />
    </ScopeGate>
  </section>
);
