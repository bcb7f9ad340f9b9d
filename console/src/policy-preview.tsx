import type { Policy } from './api';
import type { OpenDevice } from './device';
import {
  type Draft,
  enforcementChanges,
  flagsOf,
  outcome,
  previewRows,
  trustChanges,
  trustOf,
  trustRows,
} from './preview';
import { PreviewTable } from './ui';

/** What the policy's draft would change: for the open device, and in every game for every device. */

export const Preview = ({
  saved,
  draft,
  device,
}: {
  saved: Policy;
  draft: Draft;
  device: OpenDevice | null;
}) => {
  if (!device)
    return <p>Look up a device (Devices) to preview how these flags would change its enforcement.</p>;
  if (!device.allBans)
    return (
      <p>The bans of {device.deviceId} could not all be read, so there is no preview; look it up again.</p>
    );
  const rows = previewRows(saved, draft, device.allBans, device.deviceId);
  const now = outcome(saved, device.allBans, device.deviceId, new Date().toISOString());
  const api = device.enforcement;
  const stale =
    api !== null &&
    (api.restricted.cheat !== now.restricted.cheat ||
      api.restricted.social !== now.restricted.social ||
      api.reputation.score !== now.score);
  const changed = rows.filter((r) => r.changes).length;
  return (
    <>
      <p>
        {changed === 0
          ? `These flags change nothing for ${device.deviceId} in game ${device.game}.`
          : `${changed} ${changed === 1 ? 'value changes' : 'values change'} for ${device.deviceId} in game ${device.game}.`}
        {stale
          ? ' The device or policy changed since it was read: look it up again for an exact preview.'
          : ''}
      </p>
      <PreviewTable
        label="Policy preview table"
        caption={`Preview for ${device.deviceId} in game ${device.game}`}
        after="After saving"
        rows={rows}
      />
      <TrustPreview saved={saved} draft={draft} device={device} bans={device.allBans} />
    </>
  );
};

/** The device's global bans in force: whether each applies now and after saving, and why not. */
const TrustPreview = ({
  saved,
  draft,
  device,
  bans,
}: {
  saved: Policy;
  draft: Draft;
  device: OpenDevice;
  bans: NonNullable<OpenDevice['allBans']>;
}) => {
  const rows = trustRows(saved, draft, bans, device.deviceId);
  if (rows.length === 0) return <p>{device.deviceId} has no global ban in force.</p>;
  const changed = rows.filter((r) => r.changes).length;
  return (
    <>
      <p>
        {changed === 0
          ? `Whose global bans you trust, as drafted, changes none of the ${rows.length} global bans of ${device.deviceId} in force.`
          : `${changed} of the ${rows.length} global bans of ${device.deviceId} in force ${changed === 1 ? 'changes' : 'change'}: each says whether it applies, and why not.`}
      </p>
      <PreviewTable
        label="Global bans preview table"
        caption={`Global bans on ${device.deviceId}: whether each applies`}
        after="After saving"
        rows={rows}
      />
    </>
  );
};

/** In every game, for every device: the kinds of bans the draft starts or stops applying. */
export const Reach = ({ saved, draft }: { saved: Policy; draft: Draft }) => {
  const { start, stop } = enforcementChanges(flagsOf(saved), draft);
  const trust = trustChanges(trustOf(saved), draft);
  return (
    <div class="panel" role="status" aria-live="polite">
      <p>In every game, for every device, saving these {trust.length ? 'changes' : 'flags'}:</p>
      <ul>
        {start.length > 0 && <li>starts applying {start.join(', ')};</li>}
        {stop.length > 0 && <li>stops applying {stop.join(', ')};</li>}
        {trust.map((line) => (
          <li key={line}>{line};</li>
        ))}
        {start.length === 0 && stop.length === 0 && trust.length === 0 && (
          <li>changes no ban's enforcement (only the reputation).</li>
        )}
      </ul>
    </div>
  );
};
