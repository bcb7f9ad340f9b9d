import { devicePlatformNames } from '@kernel/device-formats';
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
 * Finding a device by the beginning or the end of its id (a report names "device 7f3a…" or quotes
 * its tail digits): the devices the publisher has banned whose id begins (`GET /v1/devices?prefix=`)
 * or ends (`?suffix=`) with what is typed, each opened in one of the games it was banned in, and
 * those only other publishers' global bans name. Searched as the moderator types: only the answer
 * to what the field holds now is shown. A whole platform id typed bare is searched as the
 * publisher's declared device id format spells it (the API says so, and the page shows what it
 * searched, with a way to search what was typed instead).
 */

type BannedDevice = Schemas['BannedDevice'];
/** Which end of the id the text matches. */
type End = 'start' | 'end';
const endWords: Record<End, string> = { start: 'begins', end: 'ends' };

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
  const [end, setEnd] = useState<End>('start');
  const [problem, setProblem] = useState<string | undefined>();
  const [picking, setPicking] = useState<BannedDevice | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const { page, applied, message, first, clear, pager } = useCursorPages(
    (filters: { prefix: string; end: End; asTyped?: boolean }, cursor) =>
      call('get', '/v1/devices', {
        query: {
          ...(filters.end === 'start' ? { prefix: filters.prefix } : { suffix: filters.prefix }),
          ...(filters.asTyped ? { as_typed: 'true' as const } : {}),
          limit: SEARCH_PAGE_SIZE,
          ...(cursor ? { cursor } : {}),
        },
      }),
    { prefix: '', end: 'start' as End },
    // Each prefix typed is a new question: the answer to an older one is dropped, however late.
    { latest: true },
  );
  useEffect(() => () => clearTimeout(timer.current), []);

  const prefix = text.trim();
  const where = bound ? ` in ${bound.join(', ')}` : '';

  /** The field changed: what answered the previous prefix goes at once; the new one is sent after a pause. */
  const type = (value: string, matching = end) => {
    setText(value);
    setPicking(null);
    clear();
    clearTimeout(timer.current);
    const next = value.trim();
    const bad = next === '' ? undefined : checkDevicePrefix(next);
    setProblem(bad);
    if (next === '' || bad) return;
    timer.current = setTimeout(() => void first({ prefix: next, end: matching }), SEARCH_DELAY_MS);
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
    void first({ prefix, end });
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
  const others = page?.others_global ?? [];
  const verb = endWords[applied.end];
  // What the API searched: the publisher's spelling of a bare platform id, or what was typed.
  const normalised = page?.normalised;
  const searched = normalised?.searched ?? applied.prefix;
  // What the live region says: the count, or that nothing begins with it (never that a device is clean).
  const status =
    prefix === '' || message
      ? ''
      : problem
        ? `Nothing is searched: the ${end === 'start' ? 'prefix' : 'ending'} ${problem}.`
        : !page
          ? `Searching for devices whose ID ${endWords[end]} with "${prefix}"…`
          : count === 0
            ? `No device you have banned ${verb} with "${searched}"${others.length ? `; other publishers' global bans name ${others.length}, listed below` : ''}. That is not a clean record: only the devices your publisher has banned${where} are searched${applied.end === 'start' ? ", and other publishers' global bans in force" : ", not other publishers' bans"}.`
            : `${count} ${count === 1 ? 'device' : 'devices'} you have banned ${count === 1 ? verb : verb.slice(0, -1)} with "${searched}" on page ${pager.number}${page.next_cursor ? '; more on the next page' : ''}${others.length ? `; ${others.length} more named only by other publishers' global bans` : ''}.`;

  return (
    <>
      <form noValidate onSubmit={submit}>
        <div class="field">
          <label for="device-search-end">Match</label>
          <select
            id="device-search-end"
            value={end}
            onChange={(e) => {
              const next = (e.currentTarget as HTMLSelectElement).value as End;
              setEnd(next);
              type(text, next);
            }}
          >
            <option value="start">the start of the ID</option>
            <option value="end">the end of the ID (tail digits)</option>
          </select>
        </div>
        <Field
          id="device-search"
          label={`Device ID ${endWords[end]} with`}
          value={text}
          onValue={(value) => type(value)}
          hint={`The devices your publisher has banned${where} whose ID ${endWords[end]} with this, searched as you type.`}
          error={problem ? `Device ID ${end === 'start' ? 'prefix' : 'ending'} ${problem}` : undefined}
        />
        <button type="submit">Search</button>
      </form>
      <Notice
        keepFocus
        message={
          message && {
            ...message,
            text: `The devices ${end === 'start' ? 'beginning' : 'ending'} with "${prefix}" could not be listed. ${message.text}`,
          }
        }
      />
      <p role="status" class="meta">
        {status}
      </p>
      {normalised && (
        <p class="meta" id="device-search-normalised">
          Searched <code>{normalised.searched}</code>: "{normalised.typed}" read as{' '}
          {devicePlatformNames[normalised.platform]}, the way your publisher declares its device ids.{' '}
          <button
            type="button"
            class="secondary small"
            onClick={() => void first({ prefix: normalised.typed, end: 'start', asTyped: true })}
          >
            Search "{normalised.typed}" as typed
          </button>
        </p>
      )}
      {page && page.items.length > 0 && (
        <>
          <DataTable
            label="Found devices table"
            caption={
              <>
                Devices you have banned whose ID {verb} with "{searched}" (page {pager.number})
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
      {others.length > 0 && (
        <DataTable
          label="Devices other publishers banned table"
          caption={<>Devices only other publishers' global bans in force name, beginning "{searched}"</>}
          columns={['Device', 'Global bans by']}
          actions
        >
          {others.map((device) => (
            <tr key={device.device_id}>
              <th scope="row">{device.device_id}</th>
              <td>{device.publishers.join(', ')}</td>
              <td class="sticky-end">
                <button
                  type="button"
                  class="small"
                  aria-label={openLabel(device.device_id)}
                  disabled={game === ''}
                  title={game === '' ? 'Type a Game ID first: a device is looked up in a game' : undefined}
                  onClick={() => onOpen(device.device_id, game)}
                >
                  Open
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
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
