import { useEffect, useLayoutEffect, useMemo, useState } from 'preact/hooks';
import type { Ban, Call, Policy } from './api';
import {
  BansTable,
  type OpenDevice,
  PAGE_SIZE,
  type StatusFilter,
  type TypeFilter,
  whyNotOf,
} from './device';
import { EnforcementPanel } from './device-enforcement';
import { Notice, Pager, useCursorPages, useFocusOn } from './ui';

/** The open device in one game: its heading, enforcement, reputation, and its bans page by page. */

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

interface Filters {
  status: StatusFilter;
  type: TypeFilter;
}

const statusOptions: ReadonlyArray<[StatusFilter, string]> = [
  ['all', 'all'],
  ['active', 'active'],
  ['inactive', 'inactive (revoked or expired)'],
];
const typeOptions: ReadonlyArray<[TypeFilter, string]> = [
  ['any', 'cheat and social'],
  ['cheat', 'cheat'],
  ['social', 'social'],
];

const FilterSelect = <T extends string>({
  id,
  label,
  value,
  options,
  onValue,
}: {
  id: string;
  label: string;
  value: T;
  options: ReadonlyArray<[T, string]>;
  onValue: (value: T) => void;
}) => (
  <div class="field">
    <label for={id}>{label}</label>
    <select
      id={id}
      value={value}
      onChange={(e) => onValue((e.currentTarget as HTMLSelectElement).value as T)}
    >
      {options.map(([option, words]) => (
        <option key={option} value={option}>
          {words}
        </option>
      ))}
    </select>
  </div>
);

/** The status and type to list, applied by Show bans. */
const BanFilters = ({
  filters,
  onFilters,
  busy,
  onApply,
}: {
  filters: Filters;
  onFilters: (filters: Filters) => void;
  busy: boolean;
  onApply: () => void;
}) => (
  <form
    class="filters"
    onSubmit={(e) => {
      e.preventDefault();
      onApply();
    }}
  >
    <FilterSelect
      id="bans-status"
      label="Status"
      value={filters.status}
      options={statusOptions}
      onValue={(status) => onFilters({ ...filters, status })}
    />
    <FilterSelect
      id="bans-type"
      label="Type"
      value={filters.type}
      options={typeOptions}
      onValue={(type) => onFilters({ ...filters, type })}
    />
    <button type="submit" disabled={busy}>
      Show bans
    </button>
  </form>
);

export const DeviceResult = ({ call, device, policy, onRevoke, version, lookup }: DeviceResultProps) => {
  // A lookup or a link lands on the answer: focus and scroll come to the verdict when a device
  // opens (another device or game, or a lookup again), not when a change reloads the same one.
  const verdict = useFocusOn<HTMLHeadingElement & HTMLParagraphElement>(
    `${device.game}\n${device.deviceId}\n${lookup}`,
  );
  useLayoutEffect(() => {
    verdict.current?.scrollIntoView({ block: 'start' });
  }, [device.game, device.deviceId, lookup]);
  const [filters, setFilters] = useState<Filters>({ status: 'all', type: 'any' });
  // Every read is a new question (another device, other filters, another page): only the answer
  // to the latest is shown, and a slow answer about the previous device never lands under this one.
  const { page, message, busy, first, clear, pager } = useCursorPages(
    (filter: Filters, cursor) =>
      call('get', '/v1/device/{device_id}/bans', {
        path: { device_id: device.deviceId },
        query: {
          status: filter.status,
          limit: PAGE_SIZE,
          ...(filter.type === 'any' ? {} : { type: filter.type }),
          // The bans' cursor is a number, kept as it came.
          ...(cursor === undefined ? {} : { cursor: Number(cursor) }),
        },
        game: device.game,
      }),
    filters,
    { latest: true },
  );
  // Whatever was listed answered another question: it goes, and the failure says so.
  const failed = useMemo(
    () =>
      message && { ...message, text: `The bans of ${device.deviceId} could not be listed. ${message.text}` },
    [message, device.deviceId],
  );
  // Nothing visible at all: the enforcement answer would read as a clean device (score 100).
  const nothingRecorded = device.allBans !== null && device.allBans.length === 0;

  // A new device, or a change to this one: back to the first page of the filters last applied,
  // and nothing of the previous device's listing on screen meanwhile.
  useEffect(() => {
    clear();
    void first();
  }, [device, version]);

  return (
    <section aria-labelledby="device-heading" class="result">
      <h2 id="device-heading">
        Device {device.deviceId} in game {device.game}
      </h2>
      {nothingRecorded ? (
        <p class="panel notice-empty" role="status" tabIndex={-1} ref={verdict}>
          No bans are recorded for device {device.deviceId} in your view of game {device.game} (your bans in
          this game, your publisher-wide bans and every publisher's global bans). That is not a clean record:
          a partial or mistyped device id, or another game, looks the same. Check both.
        </p>
      ) : (
        <>
          {device.enforcement && <EnforcementPanel enforcement={device.enforcement} headingRef={verdict} />}
          <section aria-labelledby="bans-heading" class="panel">
            <h3 id="bans-heading">Bans</h3>
            <BanFilters
              filters={filters}
              onFilters={setFilters}
              busy={busy}
              onApply={() => void first(filters)}
            />
            <Notice message={failed} />
            {page && (
              <BansTable
                page={page}
                policy={policy}
                whyNot={whyNotOf(device.enforcement)}
                deviceId={device.deviceId}
                onRevoke={onRevoke}
              />
            )}
            {page && <Pager {...pager} />}
          </section>
        </>
      )}
    </section>
  );
};
