/** What every API key starts with: recognisable to secret scanners, and to the web ACL's rules. */
export const API_KEY_PREFIX = 'bsk_';

/** `bsk_` + 32 random bytes in base64url: 256 bits of entropy. */
export const API_KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[A-Za-z0-9_-]{43}$`);
