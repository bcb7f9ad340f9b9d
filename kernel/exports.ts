/**
 * What `GET /v1/exports/{kind}` reads (lib/domain/exports.ts, docs/import-export.md#export): each
 * kind is one listing of everything the publisher holds of it, and `npm run export` writes one
 * file per kind. A module with no dependencies: routes, the domain, the CLI and the console read it.
 */
export const exportKinds = [
  'bans',
  'appeals',
  'audit',
  'policy',
  'trust',
  'reasons',
  'webhooks',
  'keys',
] as const;
export type ExportKind = (typeof exportKinds)[number];

export const isExportKind = (value: unknown): value is ExportKind =>
  (exportKinds as readonly unknown[]).includes(value);

/** A page's size: default and the most one request may ask for. */
export const EXPORT_PAGE_DEFAULT = 500;
export const EXPORT_PAGE_MAX = 1000;
