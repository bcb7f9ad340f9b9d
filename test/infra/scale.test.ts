import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  classPattern,
  FILTER_PATTERN_MAX_CHARS,
  USAGE_PLAN_ENTRY_QUOTA,
} from '../../infra/stack/route-classes';
import { ServiceStack } from '../../infra/stack/service-stack';
import { readSettings, stackName } from '../../infra/stack/settings';
import { getPolicyRoute, type Route, routes, throttleClasses, updatePolicyRoute } from '../../lib/routes';
import { defaultStage, stackTemplates, templateApp } from '../support/cdk';

/**
 * Room to grow: the stage synthesized from a copy of the route table with probe routes added (GET
 * and POST, on new paths and deeper under existing ones), every wall of CloudFormation, API
 * Gateway and CloudWatch checked on every template, and the routes left until the first wall
 * (docs/scale.md, limit 9).
 */

/** The walls (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html). */
const WALLS = {
  resources: 500,
  /** A template uploaded to S3, as cdk deploy uploads every one: 1 MB. */
  templateBytes: 1_000_000,
  outputs: 200,
  parameters: 200,
} as const;

const PROBES = 60;

/** Four kinds in turn: a GET and a POST on new paths, a GET and a POST deeper under existing ones. */
const probeRoutes = (count: number): Route[] =>
  Array.from({ length: count }, (_, i): Route => {
    const read = { ...getPolicyRoute, method: 'GET' as const, throttle: 'read' as const };
    const write = { ...updatePolicyRoute, method: 'POST' as const, throttle: 'write' as const };
    switch (i % 4) {
      case 0:
        return { ...read, id: `probe${i}Get`, path: `/v1/probe${i}` };
      case 1:
        return { ...write, id: `probe${i}Post`, path: `/v1/probe${i}/{probe_id}/run` };
      case 2:
        return { ...read, id: `probe${i}DeepGet`, path: `/v1/device/{device_id}/probe${i}` };
      default:
        return { ...write, id: `probe${i}DeepPost`, path: `/v1/appeals/{appeal_id}/probe${i}` };
    }
  });

const probedStage = (extra: number) => {
  const app = templateApp();
  const settings = readSettings(app);
  const stack = new ServiceStack(app, stackName(settings.stage), {
    settings,
    routes: [...routes, ...probeRoutes(extra)],
  });
  return { app, templates: stackTemplates(stack) };
};

/** Each template's figures, by nested stack id (the parent by its stack name). */
const measure = (extra: number) => {
  // Without probes, the default stage (the worker's one synth of it, test/support/cdk.ts).
  const { app, templates } = extra === 0 ? defaultStage() : probedStage(extra);
  const assembly = app.synth();
  const figures = Object.fromEntries(
    templates.map((t) => [
      t.stack.node.id,
      {
        resources: Object.keys(t.template.Resources ?? {}).length,
        templateBytes: statSync(join(assembly.directory, t.stack.templateFile)).size,
        outputs: Object.keys(t.template.Outputs ?? {}).length,
        parameters: Object.keys(t.template.Parameters ?? {}).length,
      },
    ]),
  );
  const [parent] = templates;
  const plan = Object.values(parent?.template.Resources as Record<string, any>).find(
    (r) => r.Type === 'AWS::ApiGateway::UsagePlan',
  );
  const patterns = Object.values(
    templates.flatMap((t) => Object.values(t.template.Resources as Record<string, any>)),
  )
    .filter((r) => r.Type === 'AWS::Logs::MetricFilter')
    .map((r) => String(r.Properties.FilterPattern));
  return {
    figures,
    planEntries: Object.keys(plan?.Properties.ApiStages[0].Throttle ?? {}).length,
    longestPattern: Math.max(...patterns.map((p) => p.length)),
    patterns,
  };
};

describe(`${PROBES} probe routes added to the route table`, () => {
  const before = measure(0);
  const after = measure(PROBES);

  test('the probes are of every kind, and each is in the stage', () => {
    const probes = probeRoutes(PROBES);
    expect(probes.filter((r) => r.method === 'GET')).toHaveLength(PROBES / 2);
    expect(probes.filter((r) => r.method === 'POST')).toHaveLength(PROBES / 2);
    const total = (m: ReturnType<typeof measure>) =>
      Object.values(m.figures).reduce((sum, f) => sum + f.resources, 0);
    // At least a function, its role, its policy, its log group, its permission, its alarm and its
    // methods per probe.
    expect(total(after) - total(before)).toBeGreaterThanOrEqual(PROBES * 8);
  });

  test('every template stays within its walls: resources, size, outputs, parameters', () => {
    console.log('templates with the probes:', after.figures);
    for (const [id, figures] of Object.entries(after.figures))
      for (const wall of Object.keys(WALLS) as (keyof typeof WALLS)[])
        expect(figures[wall], `${id} ${wall}`).toBeLessThanOrEqual(WALLS[wall]);
  });

  test("the usage plan's entries and the filter patterns do not grow with the routes", () => {
    expect(after.planEntries).toBe(before.planEntries);
    expect(after.planEntries).toBeLessThanOrEqual(USAGE_PLAN_ENTRY_QUOTA);
    expect(after.patterns).toEqual(before.patterns);
    expect(after.longestPattern).toBeLessThanOrEqual(FILTER_PATTERN_MAX_CHARS);
    expect(classPattern([...routes, ...probeRoutes(PROBES)], 'read', '4*')).toBe(
      classPattern(routes, 'read', '4*'),
    );
    expect(Object.keys(throttleClasses)).toHaveLength(7);
  });

  test(`headroom: at least ${PROBES} more routes before the first wall`, () => {
    // Each template grows linearly with the probes; the first wall is the least room left,
    // divided by what a route of the probes' mix costs there.
    const room = Object.entries(after.figures).flatMap(([id, figures]) =>
      (Object.keys(WALLS) as (keyof typeof WALLS)[]).map((wall) => {
        const perRoute = (figures[wall] - (before.figures[id]?.[wall] ?? 0)) / PROBES;
        const routesLeft =
          perRoute > 0 ? Math.floor((WALLS[wall] - (before.figures[id]?.[wall] ?? 0)) / perRoute) : Infinity;
        return { template: id, wall, perRoute: Number(perRoute.toFixed(2)), routesLeft };
      }),
    );
    const first = room.reduce((a, b) => (b.routesLeft < a.routesLeft ? b : a));
    console.log('first wall:', first, 'today:', before.figures);
    expect(first.routesLeft).toBeGreaterThanOrEqual(PROBES);
  });
});
