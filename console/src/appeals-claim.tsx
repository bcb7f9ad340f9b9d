import { useEffect, useRef, useState } from 'preact/hooks';
import { actorLabel, type Call, clockTime, holderOf, type Schemas } from './api';
import { type Appeal, QUEUE_REFRESH_MS } from './appeals-words';
import { errorMessage, type Message, Notice } from './ui';

/**
 * Who works an open appeal: opening it claims it (POST .../claim), so the rest of the team sees
 * it held in the queue and cannot decide it meanwhile; closing it releases the claim. Held by
 * someone else, it says by whom and until when, and an admin may take it over. The claim is
 * renewed while the appeal stays open here (QUEUE_REFRESH_MS, the queue's own refresh).
 */

/** A claim of ours with less than this left is renewed at the next look. */
const RENEW_WITHIN_MS = 5 * 60_000;

export type Holder = Schemas['ConflictHolder'];

export interface ClaimState {
  /** Ours: the appeal is held by this session. */
  mine: boolean;
  /** Who holds it (ours or another's), and until when; null: no one. */
  by: Schemas['Actor'] | null;
  until: string | null;
}

const FREE: ClaimState = { mine: false, by: null, until: null };

export const useClaim = (call: Call, appeal: Appeal | null, onChanged: () => void) => {
  const [claim, setClaim] = useState<ClaimState>(FREE);
  /**
   * Decided by someone else while open here: who and when (the page keeps what was typed), and
   * whether a look at the claim found it (else the decision's own refusal says so).
   */
  const [decided, setDecided] = useState<{ holder: Holder; found: 'claim' | 'decision' } | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const [busy, setBusy] = useState(false);
  const mine = useRef(false);
  mine.current = claim.mine;
  const open = appeal?.status === 'open' ? appeal.appeal_id : null;

  /** What a claim or release answered: ours, another's (409 naming them), or decided meanwhile. */
  const take = async (body: { take_over?: true }) => {
    if (!open) return;
    setBusy(true);
    try {
      const answer = await call('post', '/v1/appeals/{appeal_id}/claim', { path: { appeal_id: open }, body });
      const holder = holderOf(answer);
      if (answer.ok) {
        setClaim({ mine: true, by: answer.body.claimed_by, until: answer.body.claimed_until });
        setMessage(null);
      } else if (holder?.reason === 'claimed') {
        setClaim({ mine: false, by: holder.actor, until: holder.until });
        setMessage(null);
      } else if (holder?.reason === 'decided') {
        setClaim(FREE);
        setDecided({ holder, found: 'claim' });
      } else setMessage(errorMessage(answer));
      onChanged();
    } finally {
      setBusy(false);
    }
  };

  const release = async () => {
    if (!open || !mine.current) return;
    setBusy(true);
    try {
      const answer = await call('delete', '/v1/appeals/{appeal_id}/claim', { path: { appeal_id: open } });
      if (answer.ok) setClaim(FREE);
      else setMessage(errorMessage(answer));
      onChanged();
    } finally {
      setBusy(false);
    }
  };

  // Opened: claimed (or found held). Left: let go, so the next moderator may take it.
  useEffect(() => {
    if (!open) return undefined;
    void take({});
    return () => {
      if (mine.current)
        void call('delete', '/v1/appeals/{appeal_id}/claim', { path: { appeal_id: open } }).then(onChanged);
    };
  }, [open]);

  // Ours: renewed before it ends. Another's: looked at again (released, ended, taken over).
  useEffect(() => {
    if (!open || decided) return undefined;
    const timer = setInterval(() => {
      const left = claim.until === null ? 0 : Date.parse(claim.until) - Date.now();
      if (!claim.mine || left < RENEW_WITHIN_MS) void take({});
    }, QUEUE_REFRESH_MS);
    return () => clearInterval(timer);
  }, [open, claim, decided]);

  return {
    claim,
    decided,
    message,
    busy,
    takeOver: () => take({ take_over: true }),
    claimAgain: () => take({}),
    release,
    /** A decision refused with a 409: what it names (another's claim) is what is shown. */
    refusedBy: (holder: Holder) => {
      if (holder.reason === 'claimed') setClaim({ mine: false, by: holder.actor, until: holder.until });
      else {
        setClaim(FREE);
        setDecided({ holder, found: 'decision' });
      }
    },
  };
};

/** Who holds the appeal, in words, and what this session may do about it. */
export const ClaimBar = ({
  claim,
  decided,
  message,
  busy,
  mayTakeOver,
  onTakeOver,
  onClaim,
  onRelease,
}: {
  claim: ClaimState;
  /** Decided by someone else meanwhile: nothing left to hold. */
  decided: boolean;
  message: Message;
  busy: boolean;
  mayTakeOver: boolean;
  onTakeOver: () => void;
  onClaim: () => void;
  onRelease: () => void;
}) => (
  <section aria-labelledby="claim-heading" class="claim">
    <h4 id="claim-heading">Who works it</h4>
    <p role="status">
      {decided
        ? 'Decided by someone else while it was open here.'
        : claim.by === null
          ? 'No one holds this appeal.'
          : claim.mine
            ? `You hold this appeal until ${claim.until ? clockTime(claim.until) : '—'}: no one else can decide it meanwhile.`
            : `Held by ${actorLabel(claim.by)} until ${claim.until ? clockTime(claim.until) : '—'}: the decision is theirs.`}
    </p>
    <Notice message={message} />
    {decided ? null : claim.mine ? (
      <button type="button" class="secondary" disabled={busy} onClick={onRelease}>
        Release it
      </button>
    ) : claim.by === null ? (
      <button type="button" disabled={busy} onClick={onClaim}>
        Claim it
      </button>
    ) : mayTakeOver ? (
      <button type="button" class="secondary" disabled={busy} onClick={onTakeOver}>
        Take over from {actorLabel(claim.by)}
      </button>
    ) : null}
  </section>
);

/** The queue's cell: who holds an open appeal and until when. */
export const heldByText = (appeal: Appeal): string =>
  appeal.claimed_by === null
    ? appeal.status === 'open'
      ? 'no one'
      : '—'
    : `${actorLabel(appeal.claimed_by)} until ${appeal.claimed_until ? clockTime(appeal.claimed_until) : '—'}`;
