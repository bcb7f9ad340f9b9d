import { platformId } from '@kernel/device-formats';
import { PLAYER_MESSAGE_MAX } from '@kernel/player-message';
import { type ImportRow, importRowSchema } from '../../lib/model/imports';

/**
 * Turns a record of the file into a row of `POST /v1/imports`, or a refusal when the record cannot
 * even be read as one (not JSON, a CSV record of the wrong width, a cell that cannot be what its
 * column stands for). Nothing else is checked here: the server validates every row (strict
 * reasons, the key's reach, the statement rules), so a dry run says what the server would say.
 */

/** Why a record was refused before it was sent, in the error shape's detail form. */
export interface Refusal {
  field: string;
  issue: string;
  message: string;
}

export type Mapped =
  | { ok: true; row: Record<string, unknown>; externalId: string | null }
  | { ok: false; refusal: Refusal; externalId: string | null };

/** The fields of an import row (lib/model/imports.ts): what a CSV column may be mapped to. */
export const ROW_FIELDS = Object.keys(importRowSchema.shape) as ReadonlyArray<keyof ImportRow>;
export type RowField = keyof ImportRow;
const isRowField = (name: string): name is RowField => (ROW_FIELDS as readonly string[]).includes(name);

/** Fields whose CSV cell holds JSON (an object; `appeals`: a list). */
const JSON_FIELDS: ReadonlySet<RowField> = new Set(['details', 'statement', 'translations', 'appeals']);

const refuse = (field: string, issue: string, message: string, externalId: string | null = null): Mapped => ({
  ok: false,
  refusal: { field, issue, message },
  externalId,
});

const externalIdOf = (row: Record<string, unknown>) =>
  typeof row.external_id === 'string' ? row.external_id : null;

/** A JSON line: the row as it is. */
export const mapJsonLine = (text: string): Mapped => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return refuse('json', 'invalid_json', `not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return refuse('json', 'invalid_type', 'a line must be one JSON object');
  const row = value as Record<string, unknown>;
  return { ok: true, row, externalId: externalIdOf(row) };
};

/** A CSV's columns: which row field each column of the header fills (null: the column is left out). */
export interface CsvColumns {
  width: number;
  fields: Array<RowField | null>;
  /** Header names that are no row field and were not mapped: left out, said once on stderr. */
  ignored: string[];
}

/**
 * Reads `--map column=field,…` over the header: a column is its own name's field unless mapped;
 * `column=` leaves a column out on purpose. Throws on a mapping to no row field, a mapped column the
 * header lacks, or two columns filling one field.
 */
export const csvColumns = (header: readonly string[], map: ReadonlyMap<string, string>): CsvColumns => {
  for (const [column, field] of map) {
    if (!header.includes(column)) throw new Error(`--map: the header has no column "${column}"`);
    if (field !== '' && !isRowField(field))
      throw new Error(`--map: "${field}" is not a row field (fields: ${ROW_FIELDS.join(', ')})`);
  }
  const ignored: string[] = [];
  const fields = header.map((name) => {
    const target = map.has(name) ? (map.get(name) as string) : name.trim();
    if (target === '') return null;
    if (isRowField(target)) return target;
    ignored.push(name);
    return null;
  });
  const seen = new Set<RowField>();
  for (const field of fields) {
    if (field === null) continue;
    if (seen.has(field))
      throw new Error(`two columns fill the field ${field}: map one of them elsewhere or to nothing`);
    seen.add(field);
  }
  return { width: header.length, fields, ignored };
};

/** A CSV record as a row: empty cells are left out, `appealable` is true/false, JSON fields parsed. */
export const mapCsvRecord = (columns: CsvColumns, cells: readonly string[]): Mapped => {
  if (cells.length !== columns.width)
    return refuse('csv', 'column_count', `has ${cells.length} fields where the header has ${columns.width}`);
  const row: Record<string, unknown> = {};
  for (const [index, field] of columns.fields.entries()) {
    const cell = cells[index] as string;
    if (field === null || cell === '') continue;
    if (JSON_FIELDS.has(field)) {
      try {
        row[field] = JSON.parse(cell);
      } catch {
        return refuse(
          field,
          'invalid_json',
          `${field} must be a JSON ${field === 'appeals' ? 'list' : 'object'}`,
          externalIdOf(row),
        );
      }
    } else if (field === 'appealable' && (cell === 'true' || cell === 'false')) row[field] = cell === 'true';
    else row[field] = cell;
  }
  return { ok: true, row, externalId: externalIdOf(row) };
};

// ---- SourceBans++ (`--preset sourcebans`): an export of its sb_bans table as CSV ----

export const SOURCEBANS_COLUMNS = [
  'bid',
  'ip',
  'authid',
  'name',
  'created',
  'ends',
  'length',
  'reason',
  'aid',
  'adminIp',
  'sid',
  'country',
  'RemovedBy',
  'RemoveType',
  'RemovedOn',
  'type',
  'ureason',
] as const;
type SourcebansColumn = (typeof SOURCEBANS_COLUMNS)[number];

/** The columns a row cannot be made without. */
const SOURCEBANS_NEEDED: readonly SourcebansColumn[] = ['bid', 'authid', 'created', 'length', 'ends'];

export const SOURCEBANS_REASON_CODE = 'sourcebans';
export const SOURCEBANS_REVOKE_REASONS = { U: 'sourcebans_unbanned', D: 'sourcebans_deleted' } as const;

export interface SourcebansColumns {
  width: number;
  index: Partial<Record<SourcebansColumn, number>>;
}

/** Where each sb_bans column is in the header; throws when one the mapping needs is missing. */
export const sourcebansColumns = (header: readonly string[]): SourcebansColumns => {
  const index: Partial<Record<SourcebansColumn, number>> = {};
  for (const column of SOURCEBANS_COLUMNS) {
    const at = header.findIndex((name) => name.trim().toLowerCase() === column.toLowerCase());
    if (at !== -1) index[column] = at;
  }
  const missing = SOURCEBANS_NEEDED.filter((column) => index[column] === undefined);
  if (missing.length > 0)
    throw new Error(`--preset sourcebans: the header lacks the sb_bans column(s) ${missing.join(', ')}`);
  return { width: header.length, index };
};

/** MySQL exports write a NULL as NULL or \N: both are no value, as an empty cell is. */
const sqlValue = (cell: string | undefined) =>
  cell === undefined || cell === '' || cell === 'NULL' || cell === '\\N' ? null : cell;

/** Unix seconds as RFC 3339 UTC, or null when the cell is not a whole number of seconds. */
const unixTime = (cell: string) => {
  if (!/^[0-9]{1,12}$/.test(cell)) return null;
  return new Date(Number(cell) * 1000).toISOString().replace('.000Z', 'Z');
};

/** A reason as one line a player may read: control characters as spaces, at most PLAYER_MESSAGE_MAX code points. */
const playerMessageOf = (reason: string) => {
  const line = [
    ...reason
      .replace(/\p{Cc}+/gu, ' ')
      .replace(/[\u202A-\u202E\u2066-\u2069]/g, '')
      .trim(),
  ];
  return line.length === 0 ? null : line.slice(0, PLAYER_MESSAGE_MAX).join('').trim();
};

/** The sb_bans record as an import row (the mapping docs/import-export.md tabulates). */
export const mapSourcebansRecord = (columns: SourcebansColumns, cells: readonly string[]): Mapped => {
  if (cells.length !== columns.width)
    return refuse('csv', 'column_count', `has ${cells.length} fields where the header has ${columns.width}`);
  const cell = (column: SourcebansColumn) => {
    const at = columns.index[column];
    return at === undefined ? null : sqlValue(cells[at]);
  };
  const bid = cell('bid');
  if (bid === null || !/^[0-9]{1,20}$/.test(bid))
    return refuse('bid', 'invalid', 'bid must be a whole number');
  const externalId = `sourcebans:${bid}`;
  if (cell('type') === '1')
    return refuse('type', 'ip_ban', 'an IP ban (type 1) names no device: not imported', externalId);
  const authid = cell('authid');
  const steamId = authid === null ? undefined : platformId('steam', authid);
  if (steamId === undefined)
    return refuse('authid', 'invalid', 'authid must be a STEAM_X:Y:Z or a SteamID64', externalId);
  const created = cell('created');
  const createdAt = created === null ? null : unixTime(created);
  if (createdAt === null) return refuse('created', 'invalid', 'created must be unix seconds', externalId);
  const length = cell('length');
  if (length === null || !/^-?[0-9]{1,12}$/.test(length))
    return refuse('length', 'invalid', 'length must be a whole number of seconds', externalId);
  let expiresAt: string | null = null;
  if (Number(length) !== 0) {
    const ends = cell('ends');
    expiresAt = ends === null ? null : unixTime(ends);
    if (expiresAt === null) return refuse('ends', 'invalid', 'ends must be unix seconds', externalId);
  }
  const row: Record<string, unknown> = {
    external_id: externalId,
    device_id: `steam:${steamId}`,
    ban_type: 'cheat',
    scope: 'game',
    reason_code: SOURCEBANS_REASON_CODE,
    created_at: createdAt,
  };
  if (expiresAt !== null) row.expires_at = expiresAt;
  const removeType = cell('RemoveType');
  if (removeType === 'U' || removeType === 'D') {
    const removedOn = cell('RemovedOn');
    const revokedAt = removedOn === null ? null : unixTime(removedOn);
    if (revokedAt === null)
      return refuse(
        'RemovedOn',
        'invalid',
        `RemovedOn must be unix seconds when RemoveType is ${removeType}`,
        externalId,
      );
    row.revoked_at = revokedAt;
    row.revoke_reason_code = SOURCEBANS_REVOKE_REASONS[removeType];
  }
  const details: Record<string, string> = {};
  for (const [key, column] of [
    ['reason', 'reason'],
    ['ureason', 'ureason'],
    ['name', 'name'],
    ['sid', 'sid'],
    ['aid', 'aid'],
  ] as const) {
    const value = cell(column);
    if (value !== null) details[key] = value;
  }
  if (Object.keys(details).length > 0) row.details = details;
  // An admin's ban (aid above 0) was a person's decision, not what the importing key's defaults
  // say (automated); aid 0 is the server console, where anti-cheat plugins ban: left automated.
  const aid = cell('aid');
  if (aid !== null && /^[1-9]\d*$/.test(aid))
    row.statement = { automated_detection: false, automated_decision: 'not' };
  const reason = cell('reason');
  const message = reason === null ? null : playerMessageOf(reason);
  if (message) row.player_message = message;
  return { ok: true, row, externalId };
};
