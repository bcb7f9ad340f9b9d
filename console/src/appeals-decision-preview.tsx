import type { AppealOutcome } from '@kernel/requests';
import { type Ban, formatTime, type Policy } from './api';
import type { Appeal } from './appeals-words';
import { type DecisionDraft, decisionRows } from './preview';
import { PreviewTable } from './ui';

/** What a decision will do: in a sentence, and as the live preview of what the player will see. */

/** What a decision does to the ban, in a sentence (the confirmation, and the message after it). */
export const consequence = (
  appeal: Appeal,
  ban: Ban | null,
  decision: { outcome: AppealOutcome; player_message?: string | null; expires_at?: string | null },
): string => {
  const message = decision.player_message ? ' The player is shown the new message.' : '';
  switch (decision.outcome) {
    case 'upheld':
      return `Ban ${appeal.ban_id} stays as it is.${message}`;
    case 'overturned':
      return `Ban ${appeal.ban_id} is revoked at once, for every publisher and game that sees it.${message}`;
    case 'shortened':
      return `Ban ${appeal.ban_id} ends ${formatTime(decision.expires_at ?? null)}${
        ban ? ` instead of ${ban.expires_at === null ? 'never' : formatTime(ban.expires_at)}` : ''
      }.${message}`;
  }
};

/** The live preview: the ban as games will be told it, and the device's restriction where it was appealed. */
export const DecisionPreview = ({
  appeal,
  ban,
  bans,
  draft,
  policy,
}: {
  appeal: Appeal;
  ban: Ban;
  bans: readonly Ban[] | null;
  draft: DecisionDraft;
  policy: Policy | null;
}) => {
  const game = appeal.filed_by.game_id;
  // The restriction in the game the appeal came from follows the policy of that game's
  // publisher: known here only when it is the console's own.
  const own = policy !== null && appeal.filed_by.publisher_id === policy.publisher_id;
  const rows = decisionRows(ban, bans, draft, own ? policy : null, { deviceId: appeal.device_id, game });
  const shown = draft.playerMessage ?? ban.player_message;
  return (
    <>
      <PreviewTable
        label="Decision preview table"
        caption={`After deciding ${draft.outcome}: ban ${ban.ban_id} of ${appeal.device_id}`}
        after="After the decision"
        rows={rows}
      />
      <p>
        {shown ? (
          <>
            Games that show the ban show the player: <q>{shown}</q>
          </>
        ) : (
          'The ban has no message for the player: games show what they choose.'
        )}
      </p>
      {!own && (
        <p class="meta">
          The appeal came from game {game} of {appeal.filed_by.publisher_id}: whether the ban restricts the
          device there is for that publisher's policy.
        </p>
      )}
    </>
  );
};
