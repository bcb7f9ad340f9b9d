import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url);

describe('docs/openapi.json', () => {
  it("passes Redocly's recommended lint with no error and no warning", async () => {
    // Offline: redocly.yaml turns telemetry off and this turns off the update check.
    const { stdout } = await run(
      'node_modules/.bin/redocly',
      ['lint', 'docs/openapi.json', '--format=json'],
      { cwd: root, env: { ...process.env, REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`redocly lint failed:\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
    });
    const report = JSON.parse(stdout.slice(stdout.indexOf('{')));
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);
});
