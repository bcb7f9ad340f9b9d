/**
 * The security headers of the console's files, wherever they are served from: `npm start`
 * (infra/local/console.ts) and the deployed stack (S3 behind CloudFront). No imports, so the stack
 * can read it at synth without loading anything else.
 *
 * The page loads only its own script and stylesheet and talks only to its own origin (the API is
 * served from the same one) and, when people sign in, to their identity provider's token endpoint
 * (`tokenOrigin`: the code exchange and renewals; the sign-in and sign-out pages are navigations,
 * which connect-src does not govern). Everything else is refused: no inline script or style, no
 * frames, no form posts, no base URL changes. `img-src data:` is for CSS-drawn icons only.
 */
export const contentSecurityPolicy = (tokenOrigin?: string) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    tokenOrigin ? `connect-src 'self' ${tokenOrigin}` : "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

/** Headers every console file carries; `tokenOrigin` as in contentSecurityPolicy. */
export const consoleHeaders = (tokenOrigin?: string): Record<string, string> => ({
  'Content-Security-Policy': contentSecurityPolicy(tokenOrigin),
  'Strict-Transport-Security': 'max-age=63072000; includeSubDomains',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
  'Cache-Control': 'no-cache',
});

/** Each file's content type. */
export const consoleContentTypes: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
  'player.html': 'text/html; charset=utf-8',
  'player.js': 'text/javascript; charset=utf-8',
  'player.css': 'text/css; charset=utf-8',
  'sign-in.json': 'application/json',
};

/**
 * Caching: the page is never stored (a new deploy takes effect at once, and a signed-in page is
 * never kept), the assets are revalidated on each load (their names carry no hash).
 */
export const consoleCacheControl: Record<string, string> = {
  'index.html': 'no-store',
  'app.js': 'no-cache',
  'app.css': 'no-cache',
  'player.html': 'no-store',
  'player.js': 'no-cache',
  'player.css': 'no-cache',
  'sign-in.json': 'no-cache',
};

/** Everything one file is served with. */
export const headersFor = (name: string, tokenOrigin?: string): Record<string, string> => ({
  ...consoleHeaders(tokenOrigin),
  'Content-Type': consoleContentTypes[name] ?? 'application/octet-stream',
  'Cache-Control': consoleCacheControl[name] ?? 'no-store',
});
