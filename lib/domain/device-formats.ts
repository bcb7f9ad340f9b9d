import { GetCommand } from '@aws-sdk/lib-dynamodb';
import {
  type DeviceFormat,
  devicePlatforms,
  isPlatformId,
  normaliseDeviceQuery,
} from '@kernel/device-formats';
import type { PutDeviceFormatsRequest } from '../model/requests';
import type { Actor, DeviceFormats } from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import { deviceFormatsKey } from '../storage/keys';
import { IntegrityError } from './errors';
import { replaceSetting } from './replaced-settings';

/**
 * The formats a publisher declares its device ids are made of (kernel/device-formats.ts): one item,
 * `PUBLISHER#<publisher_id>` / `DEVICE_FORMATS`, replaced whole by each `PUT /v1/device-formats` and
 * recorded in the audit trail as `device_formats.updated`. Only the device search reads it: a whole
 * platform id typed bare (a SteamID64 from a report) is searched as the publisher's own id
 * (`steam:7656119…`). It changes no ban and no enforcement, so it is not in the change feed.
 */

const EMPTY: DeviceFormats = { formats: [], updated_at: null };

const formatFromStored = (value: unknown): DeviceFormat | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const { platform, prefix } = value as Record<string, unknown>;
  if (!(devicePlatforms as readonly unknown[]).includes(platform) || typeof prefix !== 'string')
    return undefined;
  return { platform: platform as DeviceFormat['platform'], prefix };
};

/** The item read back, checked: damaged data fails closed. */
const formatsFromItem = (item: Record<string, unknown> | undefined): DeviceFormats => {
  if (!item) return EMPTY;
  const { formats, updated_at } = item;
  if (!Array.isArray(formats) || typeof updated_at !== 'string')
    throw new IntegrityError('device formats item is malformed');
  const read = formats.map(formatFromStored);
  if (read.some((format) => format === undefined))
    throw new IntegrityError('device formats item holds a malformed format');
  return { formats: read as DeviceFormat[], updated_at };
};

/** The declared formats: one GetItem; none declared is an empty list. */
export const getDeviceFormats = async (publisherId: string): Promise<DeviceFormats> =>
  formatsFromItem(
    (
      await dynamo.send(
        new GetCommand({ TableName: tableName(), Key: deviceFormatsKey(publisherId), ConsistentRead: true }),
      )
    ).Item,
  );

const formatsEventOf = (item: Record<string, unknown>) => {
  try {
    return { type: 'device_formats.updated' as const, formats: formatsFromItem(item).formats };
  } catch {
    return undefined;
  }
};

/** Replaces the declared formats whole, the change recorded once (lib/domain/replaced-settings.ts). */
export const putDeviceFormats = async (
  publisherId: string,
  request: PutDeviceFormatsRequest,
  actor: Actor,
): Promise<DeviceFormats> => {
  const fields = { formats: request.formats };
  const updatedAt = await replaceSetting(
    publisherId,
    deviceFormatsKey(publisherId),
    fields,
    actor,
    formatsEventOf,
  );
  return { ...fields, updated_at: updatedAt };
};

/**
 * What a device search for `prefix` looks for: the publisher's own spelling of a bare platform id.
 * The declaration is read only for a prefix that is a whole platform id: the console searches as
 * a moderator types, and almost nothing typed is one.
 */
export const normalisedPrefix = async (publisherId: string, prefix: string) => {
  if (!isPlatformId(prefix)) return undefined;
  const { formats } = await getDeviceFormats(publisherId);
  const normalised = normaliseDeviceQuery(prefix, formats);
  return normalised && normalised.searched !== prefix ? { typed: prefix, ...normalised } : undefined;
};
