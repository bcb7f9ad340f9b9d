import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  csvColumns,
  mapCsvRecord,
  mapJsonLine,
  mapSourcebansRecord,
  sourcebansColumns,
} from '../../infra/import/mapping';
import { csvRecords, readLines } from '../../infra/import/records';

/** `npm run import`'s mapping of a record to an import row, and what it refuses before sending. */

const SAMPLE = fileURLToPath(new URL('../support/import/sb_bans.csv', import.meta.url));

describe('JSON lines', () => {
  it('sends an object as the row it is, its external id named', () => {
    expect(mapJsonLine('{"external_id":"e1","device_id":"d"}')).toEqual({
      ok: true,
      row: { external_id: 'e1', device_id: 'd' },
      externalId: 'e1',
    });
  });

  it('refuses a line that is not JSON, or not one object', () => {
    expect(mapJsonLine('{"external_id":')).toMatchObject({
      ok: false,
      refusal: { field: 'json', issue: 'invalid_json' },
    });
    expect(mapJsonLine('[1,2]')).toMatchObject({
      ok: false,
      refusal: { field: 'json', issue: 'invalid_type' },
    });
  });
});

describe('CSV columns', () => {
  const header = [
    'id',
    'device_id',
    'ban_type',
    'scope',
    'reason_code',
    'created_at',
    'appealable',
    'details',
    'note',
  ];
  const columns = csvColumns(header, new Map([['id', 'external_id']]));

  it('fills the field a column is named or mapped to, and leaves out what is neither', () => {
    expect(columns.ignored).toEqual(['note']);
    expect(
      mapCsvRecord(columns, [
        'x-1',
        'd1',
        'cheat',
        'game',
        'aimbot',
        '2024-01-01T00:00:00Z',
        'false',
        '{"k":1}',
        'hi',
      ]),
    ).toEqual({
      ok: true,
      externalId: 'x-1',
      row: {
        external_id: 'x-1',
        device_id: 'd1',
        ban_type: 'cheat',
        scope: 'game',
        reason_code: 'aimbot',
        created_at: '2024-01-01T00:00:00Z',
        appealable: false,
        details: { k: 1 },
      },
    });
  });

  it('leaves an empty cell out, so the field takes its default', () => {
    const mapped = mapCsvRecord(columns, [
      'x-2',
      'd1',
      'cheat',
      'game',
      'aimbot',
      '2024-01-01T00:00:00Z',
      '',
      '',
      '',
    ]);
    expect(mapped.ok && Object.keys(mapped.row)).toEqual([
      'external_id',
      'device_id',
      'ban_type',
      'scope',
      'reason_code',
      'created_at',
    ]);
  });

  it('refuses a record of the wrong width and a JSON field that is not JSON, naming the field', () => {
    expect(mapCsvRecord(columns, ['x-3', 'd1'])).toMatchObject({
      ok: false,
      refusal: { field: 'csv', issue: 'column_count', message: 'has 2 fields where the header has 9' },
    });
    expect(
      mapCsvRecord(columns, ['x-4', 'd1', 'cheat', 'game', 'aimbot', '2024-01-01T00:00:00Z', '', '{bad', '']),
    ).toMatchObject({ ok: false, externalId: 'x-4', refusal: { field: 'details', issue: 'invalid_json' } });
  });

  it('refuses a mapping to no field, of a column the header lacks, or two columns to one field', () => {
    expect(() => csvColumns(header, new Map([['id', 'banned_at']]))).toThrow(
      '"banned_at" is not a row field',
    );
    expect(() => csvColumns(header, new Map([['steam', 'device_id']]))).toThrow('no column "steam"');
    expect(() => csvColumns(header, new Map([['id', 'device_id']]))).toThrow(
      'two columns fill the field device_id',
    );
    expect(
      csvColumns(
        header,
        new Map([
          ['id', 'external_id'],
          ['note', ''],
        ]),
      ).ignored,
    ).toEqual([]);
  });
});

describe('the SourceBans++ preset', () => {
  it("says an admin's ban was a person's decision, and leaves the console's (aid 0: anti-cheat plugins) automated", () => {
    const header = ['bid', 'authid', 'created', 'ends', 'length', 'reason', 'aid', 'type'];
    const columns = sourcebansColumns(header);
    const byAdmin = mapSourcebansRecord(columns, [
      '7',
      'STEAM_0:1:1',
      '1577836800',
      '0',
      '0',
      'Aimbot',
      '4',
      '0',
    ]);
    const byConsole = mapSourcebansRecord(columns, [
      '8',
      'STEAM_0:1:2',
      '1577836800',
      '0',
      '0',
      'SMAC',
      '0',
      '0',
    ]);
    expect(byAdmin.ok && byAdmin.row.statement).toEqual({
      automated_detection: false,
      automated_decision: 'not',
    });
    expect(byConsole.ok && byConsole.row.statement).toBeUndefined();
    expect(byConsole.ok && byConsole.row.details).toEqual({ reason: 'SMAC', aid: '0' });
  });

  it('maps a sample sb_bans export to steam device ids, times, expiries and revocations', async () => {
    const records = [];
    for await (const record of csvRecords(readLines(SAMPLE))) records.push(record);
    const columns = sourcebansColumns(records[0]?.fields ?? []);
    const mapped = records
      .slice(1)
      .map((r) => ({ line: r.line, ...mapSourcebansRecord(columns, r.fields ?? []) }));
    expect(mapped).toEqual([
      {
        line: 2,
        ok: true,
        externalId: 'sourcebans:1',
        row: {
          external_id: 'sourcebans:1',
          device_id: 'steam:76561197960290419',
          ban_type: 'cheat',
          scope: 'game',
          reason_code: 'sourcebans',
          created_at: '2020-01-01T00:00:00Z',
          details: { reason: 'Aimbot', name: 'xX_Sn1per_Xx', sid: '1', aid: '3' },
          player_message: 'Aimbot',
          statement: { automated_detection: false, automated_decision: 'not' },
        },
      },
      {
        line: 3,
        ok: true,
        externalId: 'sourcebans:2',
        row: {
          external_id: 'sourcebans:2',
          device_id: 'steam:76561197969896052',
          ban_type: 'cheat',
          scope: 'game',
          reason_code: 'sourcebans',
          created_at: '2020-02-01T00:00:00Z',
          expires_at: '2020-02-02T00:00:00Z',
          details: { reason: 'Wallhack, confirmed by demo', name: 'Kevin', sid: '2', aid: '3' },
          player_message: 'Wallhack, confirmed by demo',
          statement: { automated_detection: false, automated_decision: 'not' },
        },
      },
      {
        line: 4,
        ok: true,
        externalId: 'sourcebans:3',
        row: {
          external_id: 'sourcebans:3',
          device_id: 'steam:76561197960265927',
          ban_type: 'cheat',
          scope: 'game',
          reason_code: 'sourcebans',
          created_at: '2020-03-01T00:00:00Z',
          expires_at: '2020-03-08T00:00:00Z',
          revoked_at: '2020-03-02T00:00:00Z',
          revoke_reason_code: 'sourcebans_unbanned',
          details: {
            reason: 'Speedhack',
            ureason: 'Appeal accepted: lag, not a speedhack',
            name: 'Ana',
            sid: '1',
            aid: '5',
          },
          player_message: 'Speedhack',
          statement: { automated_detection: false, automated_decision: 'not' },
        },
      },
      {
        line: 5,
        ok: false,
        externalId: 'sourcebans:4',
        refusal: {
          field: 'type',
          issue: 'ip_ban',
          message: 'an IP ban (type 1) names no device: not imported',
        },
      },
      {
        line: 6,
        ok: true,
        externalId: 'sourcebans:5',
        row: {
          external_id: 'sourcebans:5',
          device_id: 'steam:76561197960267282',
          ban_type: 'cheat',
          scope: 'game',
          reason_code: 'sourcebans',
          created_at: '2020-05-01T00:00:00Z',
          revoked_at: '2020-05-02T00:00:00Z',
          revoke_reason_code: 'sourcebans_deleted',
          details: {
            reason: 'Spinbot\nreported twice',
            ureason: 'Wrong player',
            name: 'Mr "Quote"',
            sid: '3',
            aid: '7',
          },
          player_message: 'Spinbot reported twice',
          statement: { automated_detection: false, automated_decision: 'not' },
        },
      },
      {
        line: 8,
        ok: false,
        externalId: 'sourcebans:6',
        refusal: {
          field: 'authid',
          issue: 'invalid',
          message: 'authid must be a STEAM_X:Y:Z or a SteamID64',
        },
      },
    ]);
  });

  it('finds the columns by name in any order, and refuses a header without those it needs', () => {
    const columns = sourcebansColumns(['authid', 'BID', 'length', 'ends', 'created']);
    expect(mapSourcebansRecord(columns, ['STEAM_0:0:1', '9', '0', '0', '1577836800'])).toMatchObject({
      ok: true,
      row: { external_id: 'sourcebans:9', device_id: 'steam:76561197960265730' },
    });
    expect(() => sourcebansColumns(['bid', 'authid'])).toThrow(
      'lacks the sb_bans column(s) created, length, ends',
    );
  });
});
