import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { type Mapped, mapJsonLine } from './mapping';

/**
 * `npm run import -- --from-export <dir>`: a directory `npm run export` wrote, moved into this
 * deployment (docs/import-export.md#moving-a-deployment-round-trip). The reason catalogue, then the
 * policy with its trust settings, are put through their own routes (PUT /v1/reasons, PUT
 * /v1/policy: the import's rows are checked against that catalogue); then `bans.jsonl` is imported
 * as any JSON lines file is, each line with the fields only the export carries set aside and its
 * `appeals` kept. Keys and webhooks are not made again (the export never holds their secrets), nor
 * is the audit trail (it is the old deployment's history): the run says so.
 */

/** The fields of an exported ban that are not an import row's (lib/model/responses.ts exportedBanSchema). */
const EXPORT_ONLY = ['ban_id', 'updated_at', 'previous_expires_at'] as const;

/** A line of an export's bans.jsonl as an import row. */
export const mapExportLine = (text: string): Mapped => {
  const mapped = mapJsonLine(text);
  if (!mapped.ok) return mapped;
  const row = { ...mapped.row };
  for (const field of EXPORT_ONLY) delete row[field];
  return { ...mapped, row };
};

/** The bans file of an export directory, or an error naming what is missing. */
export const exportBansFile = (dir: string): string => {
  if (!existsSync(join(dir, 'manifest.json')))
    throw new Error(`${dir} has no manifest.json: not a directory npm run export wrote`);
  const file = join(dir, 'bans.jsonl');
  if (!existsSync(file)) throw new Error(`${dir} has no bans.jsonl (export it with --kinds bans,...)`);
  return file;
};

/**
 * The game `X-Game-Id` names when `--game` does not: every exported ban names its own game, so the
 * header is only the route's due; the first ban's game (one the exporting key held), or none for an
 * export without bans.
 */
export const headerGameOf = (bansFile: string): string | undefined => {
  const fd = openSync(bansFile, 'r');
  try {
    const buffer = Buffer.alloc(1024 * 1024);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    const first = buffer.subarray(0, length).toString('utf8').split('\n')[0]?.trim();
    if (!first) return undefined;
    const game = (JSON.parse(first) as { game_id?: unknown }).game_id;
    return typeof game === 'string' ? game : undefined;
  } catch {
    // Not a ban line: the import reports the line itself.
    return undefined;
  } finally {
    closeSync(fd);
  }
};

/** The one item of a kind's file (policy, trust, reasons), or undefined when the export left the kind out. */
const oneItem = (dir: string, kind: string): Record<string, unknown> | undefined => {
  const file = join(dir, `${kind}.jsonl`);
  if (!existsSync(file)) return undefined;
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  if (lines.length !== 1) throw new Error(`${file} must hold one item, not ${lines.length}`);
  return JSON.parse(lines[0] as string) as Record<string, unknown>;
};

/** A statement as a PUT takes it: the fields that are set (a null or an empty list is "not given"). */
const setFields = (value: unknown) =>
  Object.fromEntries(
    Object.entries(value as Record<string, unknown>).filter(
      ([, field]) => field !== null && !(Array.isArray(field) && field.length === 0),
    ),
  );

/** What the export's settings become: the bodies of PUT /v1/reasons and PUT /v1/policy (absent kinds: none). */
export const settingsOfExport = (dir: string) => {
  const reasons = oneItem(dir, 'reasons');
  const policy = oneItem(dir, 'policy');
  const trust = oneItem(dir, 'trust');
  const reasonsBody = reasons && {
    reasons: (reasons.reasons as Array<Record<string, unknown>>).map((reason) =>
      reason.statement === undefined ? reason : { ...reason, statement: setFields(reason.statement) },
    ),
    strict_reasons: reasons.strict_reasons,
    default_locale: reasons.default_locale,
  };
  let policyBody: Record<string, unknown> | undefined;
  if (policy || trust) {
    const { publisher_id: _publisher, updated_at: _updated, ...flags } = policy ?? {};
    policyBody = { ...flags, ...trust };
  }
  return { reasons: reasonsBody, policy: policyBody };
};

/** What `--from-export` does not carry over, said at the start of a run. */
export const NOT_CARRIED =
  'keys and webhooks are not made again (the export holds none of their secrets: make them anew), nor is the audit trail (the old deployment keeps its history; audit.jsonl is the copy)';

/**
 * Puts the export's reason catalogue and policy (with its trust settings) through the API, in that
 * order. Each PUT replaces what it names, so running it again puts the same. Throws on an answer
 * that is not 200, naming the route and what the API said.
 */
export const applyExportSettings = async (
  dir: string,
  { url, key }: { url: string; key: string },
  say: (line: string) => void,
): Promise<void> => {
  const settings = settingsOfExport(dir);
  const put = async (path: string, body: unknown) => {
    const response = await fetch(new URL(path, url).href, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`PUT ${path}: ${response.status} ${text.slice(0, 300)}`);
  };
  if (settings.reasons) {
    await put('/v1/reasons', settings.reasons);
    say(`reasons: ${(settings.reasons.reasons as unknown[]).length} put (PUT /v1/reasons)`);
  } else say('reasons: not in the export, left as they are');
  if (settings.policy) {
    await put('/v1/policy', settings.policy);
    say('policy and trust: put (PUT /v1/policy)');
  } else say('policy: not in the export, left as it is');
};
