import type { Schemas } from './api';
import { ConfirmStep } from './ui';

/**
 * The step between Save and the save of a policy change: how many devices it makes restricted and
 * how many it frees in the console's game, as the API counts them from the bans in force
 * (`POST /v1/policy/preview`), and Save or Cancel. Without a valid game there is nothing to count
 * in, so it says so and still asks.
 */

export type PolicyReach = Schemas['PolicyReach'];

const devices = (n: number) => `${n} ${n === 1 ? 'device' : 'devices'}`;

/** "N devices become restricted, M are no longer restricted" of one change. */
export const reachText = ({ become_restricted, no_longer_restricted }: PolicyReach['any']) =>
  `${devices(become_restricted)} become restricted, ${no_longer_restricted} ${
    no_longer_restricted === 1 ? 'is' : 'are'
  } no longer restricted`;

export const PolicyReachConfirm = ({
  change,
  reach,
  gameNote,
  busy,
  onConfirm,
  onCancel,
}: {
  /** The change in words (patchText). */
  change: string;
  /** The API's count, or null when it could not be asked (gameNote says why). */
  reach: PolicyReach | null;
  gameNote: string | null;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) => (
  <ConfirmStep
    id="policy-reach-heading"
    title="Save this policy change?"
    action="Save the change"
    busyAction="Saving…"
    busy={busy}
    onConfirm={onConfirm}
    onCancel={onCancel}
  >
    <p>It changes {change}, in every game.</p>
    {reach ? (
      <>
        <p role="status">
          In game {reach.game_id}: {reachText(reach.any)}, of the {devices(reach.devices_with_bans)} with a
          ban in force there.
        </p>
        <ul aria-label="Devices whose restriction changes, by ban type">
          <li>Cheat: {reachText(reach.cheat)}.</li>
          <li>Social: {reachText(reach.social)}.</li>
        </ul>
        <p class="hint">
          Publisher and global bans apply in every game; game bans only in their own game, so other games may
          count differently.
        </p>
      </>
    ) : (
      <p>{gameNote}</p>
    )}
  </ConfirmStep>
);
