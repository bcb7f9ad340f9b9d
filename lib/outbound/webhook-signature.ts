import { createHmac, randomBytes } from 'node:crypto';

/**
 * Signing of outbound webhooks, Standard Webhooks style (https://www.standardwebhooks.com/):
 * a receiver verifies with any of that project's libraries, given the secret we showed it once.
 */

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;
// Standard base64 of at least one byte: Buffer.from(…, 'base64') would silently skip anything else.
const SECRET_PATTERN =
  /^whsec_(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const USER_AGENT = 'device-ban-service-webhooks/1';

/** A fresh secret: `whsec_` + base64 of 32 random bytes (the HMAC key). */
export const newWebhookSecret = (): string =>
  `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;

const keyOf = (secret: string): Buffer => {
  // A malformed secret is a bug on our side (we make them all); signing with a garbled key would
  // only show up as every delivery failing verification at the receiver.
  if (!SECRET_PATTERN.test(secret)) throw new Error('webhook secret must be whsec_ followed by base64');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
};

/** `v1,` + base64 HMAC-SHA256 of `${id}.${timestampSeconds}.${body}`, keyed by the decoded secret. */
export const signatureOf = (secret: string, id: string, timestampSeconds: number, body: string): string => {
  // Receivers parse the timestamp as an integer: a fraction would sign a string they never rebuild.
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError('webhook timestamp must be whole seconds');
  }
  const mac = createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8');
  return `v1,${mac.digest('base64')}`;
};

/** Every header of one delivery attempt: the body's type, the three Standard Webhooks headers, ours. */
export const webhookHeaders = (
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> => ({
  'content-type': 'application/json',
  'webhook-id': id,
  'webhook-timestamp': String(timestampSeconds),
  'webhook-signature': signatureOf(secret, id, timestampSeconds, body),
  'user-agent': USER_AGENT,
});
