import { STATEMENT_EXPLANATION_MAX, type Statement } from '@kernel/statement-of-reasons';
import { mapWithConcurrency } from '../concurrency';
import type { DsaStatementsQuery } from '../model/requests';
import type { DsaStatement, DsaStatementPage } from '../model/responses';
import { listAuditEvents } from './audit';
import type { Ban } from './ban-record';
import { readBan, statementOfBan } from './bans';

/**
 * The publisher's bans as statements in the JSON the Commission's DSA Transparency Database takes
 * (Art. 24(5); its API's StatementStoreRequest and the enumerations of app/Models/Statement.php),
 * one per ban made in a period: what a submitter sends, page by page. The bans are found through
 * the audit trail's `ban.created` events of the period (newest first, its cursor), and each is read
 * as it is now; an erased ban is gone, and so is its statement (`not_exported` counts them).
 */

const SOURCE_TYPES: Record<Statement['source'], string> = {
  own_initiative: 'SOURCE_VOLUNTARY',
  notice: 'SOURCE_ARTICLE_16',
  trusted_flagger: 'SOURCE_TRUSTED_FLAGGER',
  other_notification: 'SOURCE_TYPE_OTHER_NOTIFICATION',
};

const AUTOMATED_DECISIONS: Record<Statement['automated_decision'], string> = {
  fully: 'AUTOMATED_DECISION_FULLY',
  partially: 'AUTOMATED_DECISION_PARTIALLY',
  not: 'AUTOMATED_DECISION_NOT_AUTOMATED',
};

/** The database's dates are days, `Y-m-d`, in UTC. */
const day = (instant: string) => instant.slice(0, 10);

/** The database's explanation holds fewer characters than the facts: the explanation is cut, marked. */
const cut = (text: string, max: number) => {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
};

/**
 * A device ban suspends or ends the player's use of the service: totally when it keeps the device
 * out of play (a cheat ban beyond one game), partially when it keeps them out of one part (chat: a
 * social ban) or one game; a suspension when it ends, a termination when it is permanent.
 */
const provisionOf = (ban: Ban) => {
  const partial = ban.ban_type === 'social' || ban.scope === 'game';
  const ending = ban.expires_at === null ? 'TERMINATION' : 'SUSPENSION';
  return `DECISION_PROVISION_${partial ? 'PARTIAL' : 'TOTAL'}_${ending}`;
};

/** One ban as the database's statement. */
export const toDsaStatement = (ban: Ban, statement: Statement): DsaStatement => {
  const ground =
    statement.ground === 'terms'
      ? {
          decision_ground: 'DECISION_GROUND_INCOMPATIBLE_CONTENT',
          incompatible_content_ground: statement.terms_clause ?? ban.reason_code,
          incompatible_content_explanation: cut(statement.facts, STATEMENT_EXPLANATION_MAX),
          ...(statement.terms_url === null ? {} : { decision_ground_reference_url: statement.terms_url }),
        }
      : {
          decision_ground: 'DECISION_GROUND_ILLEGAL_CONTENT',
          illegal_content_legal_ground: statement.legal_ground ?? '',
          illegal_content_explanation: statement.illegal_explanation ?? '',
        };
  return {
    decision_provision: provisionOf(ban),
    ...(ban.expires_at === null ? {} : { end_date_service_restriction: day(ban.expires_at) }),
    ...ground,
    // A ban restricts a player for their conduct in play or in chat: chat is text, play is neither.
    content_type: ban.ban_type === 'social' ? ['CONTENT_TYPE_TEXT'] : ['CONTENT_TYPE_OTHER'],
    ...(ban.ban_type === 'social' ? {} : { content_type_other: 'Conduct in an online game' }),
    category: `STATEMENT_CATEGORY_${statement.category.toUpperCase()}`,
    territorial_scope: statement.territorial_scope,
    content_date: day(ban.created_at),
    application_date: day(ban.created_at),
    decision_facts: statement.facts,
    source_type: SOURCE_TYPES[statement.source],
    automated_detection: statement.automated_detection ? 'Yes' : 'No',
    automated_decision: AUTOMATED_DECISIONS[statement.automated_decision],
    // Unique on the platform and of the characters the database takes: ban ids are unique per deployment.
    puid: `ban-${ban.ban_id}`,
  };
};

/** Bans read at once for a page. */
const READ_CONCURRENCY = 10;

export const listDsaStatements = async (
  publisherId: string,
  query: DsaStatementsQuery,
): Promise<DsaStatementPage> => {
  const events = await listAuditEvents(publisherId, { ...query, type: 'ban.created' });
  const bans = await mapWithConcurrency(events.items, READ_CONCURRENCY, (event) =>
    event.type === 'ban.created' ? readBan(event.device_id, event.ban_id) : Promise.resolve(undefined),
  );
  const items: DsaStatement[] = [];
  for (const ban of bans) {
    const statement = ban && statementOfBan(ban);
    if (ban && statement) items.push(toDsaStatement(ban, statement));
  }
  return { items, not_exported: events.items.length - items.length, next_cursor: events.next_cursor };
};
