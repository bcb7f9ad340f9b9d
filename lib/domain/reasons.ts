import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_LOCALE, LOCALE_PATTERN, TRANSLATIONS_MAX, translatedBanFields } from '@kernel/locales';
import { statementFields } from '@kernel/statement-of-reasons';
import { banScopes, banTypes, type CatalogueReason, type PutReasonsRequest } from '../model/requests';
import type { Actor, ReasonCatalogue } from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import { reasonsKey } from '../storage/keys';
import { IntegrityError } from './errors';
import { replaceSetting } from './replaced-settings';

/**
 * The publisher's reason catalogue: one item, `PUBLISHER#<publisher_id>` / `REASONS`, replaced
 * whole by each `PUT /v1/reasons` and recorded in the audit trail as `reasons.updated`. It is not
 * in the change feed (lib/domain/change-sources.ts names the policy item only): it changes what
 * moderators are offered, never what is enforced. With `strict_reasons` on, a new ban must name
 * one of its codes (lib/domain/bans.ts reads it beside the create's first step).
 */

const EMPTY: ReasonCatalogue = {
  reasons: [],
  strict_reasons: false,
  default_locale: DEFAULT_LOCALE,
  updated_at: null,
};

const isInt = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value);

const reasonFromStored = (value: unknown): CatalogueReason | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const { code, label, ban_type, scope, duration_seconds, player_message, statement, translations } =
    value as Record<string, unknown>;
  if (typeof code !== 'string' || typeof label !== 'string') return undefined;
  if (!(banTypes as readonly unknown[]).includes(ban_type)) return undefined;
  if (!(banScopes as readonly unknown[]).includes(scope)) return undefined;
  if (!(duration_seconds === null || (isInt(duration_seconds) && duration_seconds > 0))) return undefined;
  if (!(player_message === null || typeof player_message === 'string')) return undefined;
  // A statement's defaults were checked field by field on the way in: here, that they are its fields.
  const defaults = statement as Record<string, unknown> | undefined;
  if (
    defaults !== undefined &&
    (typeof defaults !== 'object' ||
      defaults === null ||
      Object.keys(defaults).some((field) => !(statementFields as readonly string[]).includes(field)))
  )
    return undefined;
  if (translations !== undefined && !translationsRead(translations)) return undefined;
  return {
    code,
    label,
    ban_type: ban_type as CatalogueReason['ban_type'],
    scope: scope as CatalogueReason['scope'],
    duration_seconds,
    player_message,
    ...(defaults === undefined ? {} : { statement: defaults as CatalogueReason['statement'] }),
    ...(translations === undefined
      ? {}
      : { translations: translations as NonNullable<CatalogueReason['translations']> }),
  };
};

/** A reason's stored translations: checked text by text on the way in; here, their shape. */
const translatedReasonFields: readonly string[] = ['label', ...translatedBanFields];
const translationsRead = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.keys(value).length <= TRANSLATIONS_MAX &&
  Object.entries(value).every(
    ([locale, translation]) =>
      LOCALE_PATTERN.test(locale) &&
      typeof translation === 'object' &&
      translation !== null &&
      Object.entries(translation).every(
        ([field, text]) => translatedReasonFields.includes(field) && typeof text === 'string',
      ),
  );

/** The catalogue item read back, checked field by field: damaged data fails closed. */
export const catalogueFromItem = (item: Record<string, unknown> | undefined): ReasonCatalogue => {
  if (!item) return EMPTY;
  const { reasons, strict_reasons, updated_at, default_locale = DEFAULT_LOCALE } = item;
  if (
    !Array.isArray(reasons) ||
    typeof strict_reasons !== 'boolean' ||
    typeof updated_at !== 'string' ||
    typeof default_locale !== 'string' ||
    !LOCALE_PATTERN.test(default_locale)
  )
    throw new IntegrityError('reason catalogue item is malformed');
  const read = reasons.map(reasonFromStored);
  if (read.some((reason) => reason === undefined))
    throw new IntegrityError('reason catalogue item holds a malformed reason');
  return { reasons: read as CatalogueReason[], strict_reasons, default_locale, updated_at };
};

const readItem = async (publisherId: string) =>
  (
    await dynamo.send(
      new GetCommand({ TableName: tableName(), Key: reasonsKey(publisherId), ConsistentRead: true }),
    )
  ).Item;

/** The catalogue: one GetItem; a publisher that never wrote one has an empty one. */
export const getReasons = async (publisherId: string): Promise<ReasonCatalogue> =>
  catalogueFromItem(await readItem(publisherId));

/**
 * The codes a new ban may name: undefined when any code is accepted (no catalogue, or
 * `strict_reasons` off). One GetItem.
 */
export const strictReasonCodes = async (publisherId: string): Promise<ReadonlySet<string> | undefined> => {
  const catalogue = await getReasons(publisherId);
  return catalogue.strict_reasons ? new Set(catalogue.reasons.map((reason) => reason.code)) : undefined;
};

/** The `reasons.updated` event a catalogue item records of itself: its codes and strictness. */
const reasonsEventOf = (item: Record<string, unknown>) => {
  let catalogue: ReasonCatalogue;
  try {
    catalogue = catalogueFromItem(item);
  } catch {
    // A damaged item the put just replaced: nothing true to record of it, and no reason to fail this change.
    return undefined;
  }
  return {
    type: 'reasons.updated' as const,
    codes: catalogue.reasons.map((reason) => reason.code),
    strict_reasons: catalogue.strict_reasons,
  };
};

/** Replaces the catalogue whole, its change recorded once (lib/domain/replaced-settings.ts). */
export const putReasons = async (
  publisherId: string,
  request: PutReasonsRequest,
  actor: Actor,
): Promise<ReasonCatalogue> => {
  const fields = {
    reasons: request.reasons,
    strict_reasons: request.strict_reasons,
    default_locale: request.default_locale ?? DEFAULT_LOCALE,
  };
  const updatedAt = await replaceSetting(publisherId, reasonsKey(publisherId), fields, actor, reasonsEventOf);
  return { ...fields, updated_at: updatedAt };
};
