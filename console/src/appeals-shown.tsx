import { actorLabel } from './api';
import type { Appeal } from './appeals-words';
import { TimeText } from './ui';

/** An appeal's texts as shown: the player's words, and the decision once made. */

/** The player's words as they wrote them: each line its own paragraph. */
export const Written = ({ text }: { text: string }) => (
  <blockquote>
    {text.split('\n').map((line, i) => (
      <p key={i}>{line === '' ? '\u00a0' : line}</p>
    ))}
  </blockquote>
);

/** What the decision was, once made. */
export const DecisionShown = ({ appeal }: { appeal: Appeal }) => {
  const decision = appeal.decision;
  if (!decision) return null;
  return (
    <section aria-labelledby="decided-heading">
      <h4 id="decided-heading">Decision</h4>
      <p>
        <span class="badge">{decision.outcome}</span> decided <TimeText iso={decision.decided_at} />
        {decision.decided_by ? ` by ${actorLabel(decision.decided_by)}` : ''}.
        {decision.applied_at === null
          ? ' Its effect on the ban is not finished yet: deciding again with the same decision finishes it.'
          : ''}
      </p>
      <ul>
        {decision.expires_at && (
          <li>
            New expiry: <TimeText iso={decision.expires_at} />
          </li>
        )}
        <li>New message for the player: {decision.player_message ?? 'none (the ban keeps its own)'}</li>
        <li>Private note: {decision.note ?? 'none'}</li>
      </ul>
    </section>
  );
};
