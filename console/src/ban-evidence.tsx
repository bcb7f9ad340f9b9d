import { EEA_COUNTRIES } from '@kernel/statement-of-reasons';
import { actorLabel, type Ban } from './api';

/**
 * What a ban rests on, and who made it: its `details` (the evidence its publisher kept) and its
 * maker. Both are its owner's: the API gives other publishers' bans neither (null), so another's
 * ban says whose they are rather than "none". One shape for every view of a ban: the device's
 * tables, the device in every game, and the ban an appeal contests.
 */

/** Whether the ban is the caller's: game and publisher bans are listed to their owner only. */
export const isOwnBan = (ban: Ban, publisher: string | null) =>
  ban.created_by !== null || ban.scope !== 'global' || ban.publisher_id === publisher;

/** Who made it, in words: a key or a person, or whose it is when that is not ours to know. */
export const madeBy = (ban: Ban, publisher: string | null): string => {
  if (ban.created_by) return actorLabel(ban.created_by);
  if (isOwnBan(ban, publisher)) return 'not recorded';
  return publisher === null
    ? `not recorded (publisher ${ban.publisher_id})`
    : `another publisher (${ban.publisher_id})`;
};

/** A value of the details as written: text as it is, anything else as compact JSON. */
const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** The details, one line per field; "none", or whose they are when they are private. */
export const BanDetails = ({ ban, publisher }: { ban: Ban; publisher: string | null }) => {
  const details = ban.details_json;
  if (details === null) return <>{isOwnBan(ban, publisher) ? 'none' : `private to ${ban.publisher_id}`}</>;
  const fields = Object.entries(details);
  if (fields.length === 0) return <>none</>;
  return (
    <ul class="details">
      {fields.map(([name, value]) => (
        <li key={name}>
          <span class="meta">{name}:</span> {shown(value)}
        </li>
      ))}
    </ul>
  );
};

/** The columns EvidenceCells fills. */
export const evidenceColumns = ['Made by', 'Details'] as const;

export const EvidenceCells = ({ ban, publisher }: { ban: Ban; publisher: string | null }) => (
  <>
    <td>{madeBy(ban, publisher)}</td>
    <td>
      <BanDetails ban={ban} publisher={publisher} />
    </td>
  </>
);

const decidedWords: Record<NonNullable<Ban['statement']>['automated_decision'], string> = {
  fully: 'by automated means',
  partially: 'partly by automated means',
  not: 'by a person',
};
const sourceWords: Record<NonNullable<Ban['statement']>['source'], string> = {
  own_initiative: "on the publisher's own initiative",
  notice: 'on a notice',
  trusted_flagger: "on a trusted flagger's notice",
  other_notification: 'on another notification',
};

/**
 * What the player was told of why (the ban's statement of reasons, DSA Art. 17): the ground, the
 * facts, how it was detected and decided. Public, like the player message: shown for any ban.
 */
export const StatementOfReasons = ({ statement }: { statement: Ban['statement'] }) =>
  statement === null ? (
    <p>Statement of reasons: erased.</p>
  ) : (
    <div class="statement">
      <p>
        Statement of reasons:{' '}
        {statement.ground === 'terms'
          ? `against the terms, ${statement.terms_clause}${statement.terms_url ? ` (${statement.terms_url})` : ''}`
          : `illegal under ${statement.legal_ground}: ${statement.illegal_explanation}`}
        .
      </p>
      <p>
        Facts given to the player: <q>{statement.facts}</q>
      </p>
      <p class="meta">
        Detected {statement.automated_detection ? 'by automated means' : 'without automated means'}, decided{' '}
        {decidedWords[statement.automated_decision]}, {sourceWords[statement.source]}; category{' '}
        {statement.category}; applies in{' '}
        {statement.territorial_scope.length === EEA_COUNTRIES.length
          ? 'every EEA country'
          : statement.territorial_scope.join(', ')}
        .
      </p>
    </div>
  );

/** The same for one ban in prose (the appeal's contested ban), with what the player was told of why. */
export const BanEvidence = ({ ban, publisher }: { ban: Ban; publisher: string | null }) => (
  <div class="evidence">
    <p>Made by: {madeBy(ban, publisher)}</p>
    <div>
      Details: <BanDetails ban={ban} publisher={publisher} />
    </div>
    <StatementOfReasons statement={ban.statement} />
  </div>
);
