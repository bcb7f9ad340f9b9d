/**
 * The platform ids a publisher may declare its device ids are made from (`PUT /v1/device-formats`),
 * and how a search turns one quoted bare (a report's SteamID64, a `STEAM_0:1:…`) into the publisher's
 * own spelling (`steam:7656119…`). Only whole ids of a known shape are turned: a part of one is
 * ambiguous (the first digits of a SteamID64 are those of every Steam account).
 */

export const devicePlatforms = ['steam', 'xbox', 'epic'] as const;
export type DevicePlatform = (typeof devicePlatforms)[number];

/** What a publisher declares: its device ids of this platform are `prefix` then the platform's id. */
export interface DeviceFormat {
  platform: DevicePlatform;
  prefix: string;
}

/** At most one declaration per platform. */
export const DEVICE_FORMATS_MAX = devicePlatforms.length;

/** A prefix is 1-32 device-id characters, ending the way a namespace does, so ids stay readable. */
export const DEVICE_FORMAT_PREFIX_PATTERN = /^[A-Za-z0-9._~:@+=-]{0,31}[:_@.=-]$/;
export const DEVICE_FORMAT_PREFIX_RULE =
  'must be 1-32 characters of A-Z a-z 0-9 . _ ~ @ + = - : ending in one of : _ @ . = -';

/** Words a person reads (the console, the API description). */
export const devicePlatformNames: Record<DevicePlatform, string> = {
  steam: 'Steam (a SteamID64, or STEAM_X:Y:Z)',
  xbox: 'Xbox (a XUID in decimal)',
  epic: 'Epic Games (an account id, 32 hex digits)',
};

/** SteamID64 of the account whose STEAM_X:Y:Z is `STEAM_x:y:z`: the individual-account base + 2z + y. */
const STEAM64_BASE = 76561197960265728n;
const STEAM64 = /^7656119[0-9]{10}$/;
const STEAM2 = /^STEAM_[0-5]:([01]):([0-9]{1,10})$/;
/** Xbox user ids in decimal: 16 digits from 2533274790395904 on (2533 and 2535 blocks). */
const XUID = /^253[35][0-9]{12}$/;
const EPIC = /^[0-9a-fA-F]{32}$/;

/** The platform's own id a whole quoted value stands for, in the one spelling the platform uses; or undefined. */
export const platformId = (platform: DevicePlatform, quoted: string): string | undefined => {
  switch (platform) {
    case 'steam': {
      if (STEAM64.test(quoted)) return quoted;
      const steam2 = STEAM2.exec(quoted);
      if (!steam2) return undefined;
      const id = STEAM64_BASE + BigInt(steam2[2] ?? '0') * 2n + BigInt(steam2[1] ?? '0');
      return String(id);
    }
    case 'xbox':
      return XUID.test(quoted) ? quoted : undefined;
    case 'epic':
      return EPIC.test(quoted) ? quoted.toLowerCase() : undefined;
  }
};

/** Whether `quoted` is a whole id of some platform: only then can a declaration change a search. */
export const isPlatformId = (quoted: string) =>
  devicePlatforms.some((platform) => platformId(platform, quoted) !== undefined);

/** What a search for `quoted` looks for under the declared formats: the first declaration it fits. */
export const normaliseDeviceQuery = (
  quoted: string,
  formats: readonly DeviceFormat[],
): { searched: string; platform: DevicePlatform } | undefined => {
  for (const format of formats) {
    const id = platformId(format.platform, quoted);
    if (id !== undefined) return { searched: `${format.prefix}${id}`, platform: format.platform };
  }
  return undefined;
};
