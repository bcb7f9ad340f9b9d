import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, expect, it } from 'vitest';
import { buildConsole, CONSOLE_JS_BUDGET_GZIP } from '../../console/build';
import { artifact } from './support/artifacts';

/**
 * The console's size: app.js within its budget (console/build.ts), gzipped. The figure is the build's own
 * (console/build.ts returns each file's size), checked against the file it wrote.
 */

const BUDGET_GZIP_BYTES = CONSOLE_JS_BUDGET_GZIP;
const dir = mkdtempSync(join(tmpdir(), 'console-build-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it(`builds app.js at most ${BUDGET_GZIP_BYTES / 1024} KB gzipped, as the build reports it`, () => {
  const { files } = buildConsole(dir);
  const script = files.find((f) => f.name === 'app.js');
  expect(script).toBeDefined();
  const { bytes, gzipBytes } = script as { bytes: number; gzipBytes: number };
  const written = readFileSync(join(dir, 'app.js'));
  expect(written.length).toBe(bytes);
  expect(gzipSync(written, { level: 9 }).length).toBe(gzipBytes);
  expect(gzipBytes).toBeLessThanOrEqual(BUDGET_GZIP_BYTES);
  writeFileSync(
    artifact('sizes.json'),
    `${JSON.stringify({ budget_gzip_bytes: BUDGET_GZIP_BYTES, files }, null, 2)}\n`,
  );
  console.log(
    files
      .map(
        (f) => `${f.name}: ${(f.bytes / 1024).toFixed(1)} KB, ${(f.gzipBytes / 1024).toFixed(1)} KB gzipped`,
      )
      .join('\n'),
  );
});
