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

/** The same for one ban in prose (the appeal's contested ban). */
export const BanEvidence = ({ ban, publisher }: { ban: Ban; publisher: string | null }) => (
  <div class="evidence">
    <p>Made by: {madeBy(ban, publisher)}</p>
    <div>
      Details: <BanDetails ban={ban} publisher={publisher} />
    </div>
  </div>
);
