/**
 * The rule of a device id, in one place without dependencies: the API's schemas (lib/model/requests.ts),
 * the index of banned devices (lib/domain/banned-devices.ts) and the console's search all read it.
 */

/** The characters a device id is made of, as the API's messages name them. */
export const DEVICE_ID_CHARACTERS = 'A-Z a-z 0-9 . _ ~ : @ + = -';

/** The beginning of a device id (`GET /v1/devices?prefix=`): 1-128 of its characters. */
export const DEVICE_ID_PREFIX_PATTERN = /^[A-Za-z0-9._~:@+=-]{1,128}$/;
export const DEVICE_ID_PREFIX_RULE = `must be 1-128 characters of ${DEVICE_ID_CHARACTERS}`;

/**
 * A device id: the same, other than `.` and `..`, which fit the characters but no path can address
 * (URLs are normalised), so a ban on them could never be listed, checked or revoked.
 */
export const DEVICE_ID_PATTERN = /^(?!\.\.?$)[A-Za-z0-9._~:@+=-]{1,128}$/;
export const DEVICE_ID_RULE = `must be 1-128 characters of ${DEVICE_ID_CHARACTERS}, other than . and ..`;
