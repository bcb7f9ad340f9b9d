import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';

/** cdk.json's context (the feature flags above all), which `cdk synth` gives the app. */
export const cdkJsonContext: Record<string, unknown> = JSON.parse(
  readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'),
).context;

/**
 * An App as `cdk synth` makes it (cdk.json's context under the test's own), with bundling
 * skipped: template tests need the resources, not the code (test/infra/bundles.test.ts bundles).
 */
export const templateApp = (context: Record<string, unknown> = {}) =>
  new App({
    context: { ...cdkJsonContext, 'aws:cdk:bundling-stacks': [], ...context },
    builtinCloudFormationValidation: false,
  });
