import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { headerGameOf, mapExportLine, settingsOfExport } from '../../infra/import/export-dir';
import { csvColumns, mapCsvRecord } from '../../infra/import/mapping';

/**
 * `npm run import -- --from-export`'s reading of an export directory: each ban line an import row
 * with the export's own fields set aside and its appeals kept, the settings it puts first, and the
 * game its requests name. The run against the API is test/integration/round-trip.test.ts.
 */

const exportDir = (files: Record<string, unknown[]>) => {
  const dir = mkdtempSync(join(tmpdir(), 'export-dir-'));
  for (const [name, items] of Object.entries(files))
    writeFileSync(join(dir, name), items.map((item) => `${JSON.stringify(item)}\n`).join(''));
  return dir;
};

describe('an export directory as an import', () => {
  it('reads a ban line as its row: ban_id, updated_at and previous_expires_at aside, appeals kept', () => {
    const appeals = [{ created_at: '2026-01-02T00:00:00.000Z', decision: null }];
    const line = JSON.stringify({
      external_id: 'ban:7',
      device_id: 'd1',
      ban_id: 7,
      updated_at: '2026-01-03T00:00:00.000Z',
      previous_expires_at: null,
      appeals,
    });
    expect(mapExportLine(line)).toEqual({
      ok: true,
      externalId: 'ban:7',
      row: { external_id: 'ban:7', device_id: 'd1', appeals },
    });
    expect(mapExportLine('{"external_id":')).toMatchObject({ ok: false, refusal: { field: 'json' } });
  });

  it('puts the catalogue as its PUT takes it, and the policy with its trust, without their stamps', () => {
    const dir = exportDir({
      'reasons.jsonl': [
        {
          reasons: [
            { code: 'aimbot', statement: { facts: 'Seen.', terms_clause: null, territorial_scope: [] } },
            { code: 'spam' },
          ],
          strict_reasons: true,
          default_locale: 'de',
          updated_at: '2026-01-01T00:00:00.000Z',
        },
      ],
      'policy.jsonl': [
        {
          publisher_id: 'old',
          enforce_game: false,
          global_quorum: 1,
          updated_at: '2026-01-01T00:00:00.000Z',
        },
      ],
      'trust.jsonl': [{ global_quorum: 2, global_sources: 'all' }],
    });
    expect(settingsOfExport(dir)).toEqual({
      reasons: {
        reasons: [{ code: 'aimbot', statement: { facts: 'Seen.' } }, { code: 'spam' }],
        strict_reasons: true,
        default_locale: 'de',
      },
      policy: { enforce_game: false, global_quorum: 2, global_sources: 'all' },
    });
    expect(settingsOfExport(exportDir({}))).toEqual({ reasons: undefined, policy: undefined });
  });

  it("names the first ban's game in X-Game-Id, and none for an export without bans", () => {
    const dir = exportDir({ 'bans.jsonl': [{ game_id: 'g-7' }, { game_id: 'g-8' }], 'empty.jsonl': [] });
    expect(headerGameOf(join(dir, 'bans.jsonl'))).toBe('g-7');
    expect(headerGameOf(join(dir, 'empty.jsonl'))).toBeUndefined();
  });

  it('reads a CSV cell of appeals as the JSON list it holds, and refuses one that is not JSON', () => {
    const columns = csvColumns(['external_id', 'appeals'], new Map());
    expect(mapCsvRecord(columns, ['e1', '[{"created_at":"2026-01-02T00:00:00Z"}]'])).toMatchObject({
      ok: true,
      row: { external_id: 'e1', appeals: [{ created_at: '2026-01-02T00:00:00Z' }] },
    });
    expect(mapCsvRecord(columns, ['e2', '[{'])).toMatchObject({
      ok: false,
      refusal: { field: 'appeals', issue: 'invalid_json', message: 'appeals must be a JSON list' },
    });
  });
});
