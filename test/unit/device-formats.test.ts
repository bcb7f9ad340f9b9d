import { isPlatformId, normaliseDeviceQuery, platformId } from '@kernel/device-formats';
import { describe, expect, it } from 'vitest';

describe('the device id formats a publisher declares', () => {
  it('reads a SteamID64 as itself and STEAM_X:Y:Z as the SteamID64 of the same account', () => {
    expect(platformId('steam', '76561197960287930')).toBe('76561197960287930');
    // STEAM_0:0:11101 is 76561197960287930: the base 76561197960265728 + 2 × 11101 + 0.
    expect(platformId('steam', 'STEAM_0:0:11101')).toBe('76561197960287930');
    expect(platformId('steam', 'STEAM_1:1:11101')).toBe('76561197960287931');
    expect(platformId('steam', 'STEAM_0:1:4294967295')).toBe(
      String(76561197960265728n + 2n * 4294967295n + 1n),
    );
  });

  it('reads only whole ids of the known shapes', () => {
    for (const partial of [
      '7656119796028793',
      '765611979602879301',
      '86561197960287930',
      'STEAM_0:2:1',
      'steam:76561197960287930',
    ])
      expect(platformId('steam', partial), partial).toBeUndefined();
    expect(platformId('xbox', '2533274790395904')).toBe('2533274790395904');
    expect(platformId('xbox', '253327479039590')).toBeUndefined();
    expect(platformId('epic', 'ABCDEF0123456789abcdef0123456789')).toBe('abcdef0123456789abcdef0123456789');
    expect(platformId('epic', 'abcdef0123456789abcdef012345678')).toBeUndefined();
  });

  it('searches the first declared format a quoted id fits, with its prefix; none fits, nothing', () => {
    const formats = [
      { platform: 'xbox', prefix: 'xbl:' },
      { platform: 'steam', prefix: 'steam:' },
    ] as const;
    expect(normaliseDeviceQuery('STEAM_0:0:11101', formats)).toEqual({
      searched: 'steam:76561197960287930',
      platform: 'steam',
    });
    expect(normaliseDeviceQuery('2533274790395904', formats)).toEqual({
      searched: 'xbl:2533274790395904',
      platform: 'xbox',
    });
    expect(normaliseDeviceQuery('76561197960287930', [])).toBeUndefined();
    expect(normaliseDeviceQuery('device-7f3a', formats)).toBeUndefined();
    // Only a whole platform id is worth reading a declaration for.
    expect(['STEAM_0:0:11101', '2533274790395904'].map(isPlatformId)).toEqual([true, true]);
    expect(['device-7f3a', '7656119796', 'steam:76561197960287930'].map(isPlatformId)).toEqual([
      false,
      false,
      false,
    ]);
  });
});
