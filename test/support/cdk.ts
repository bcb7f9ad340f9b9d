import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type CfnElement, type CfnResource, NestedStack, Stack, Stage } from 'aws-cdk-lib';
import { ServiceStack } from '../../infra/stack/service-stack';
import { readSettings, stackName } from '../../infra/stack/settings';

/** cdk.json's context (the feature flags above all), which `cdk synth` gives the app. */
export const cdkJsonContext: Record<string, unknown> = JSON.parse(
  readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'),
).context;

/**
 * An App as `cdk synth` makes it (cdk.json's context under the test's own), with bundling
 * skipped: template tests need the resources, not the code (test/infra/bundles.test.ts bundles).
 * Nor does it record each construct's creation stack trace (`aws:cdk:creationStack`, in the
 * assembly's manifest, never in a template): capturing one for every resource was 15 % of a
 * synth's CPU time.
 */
export const templateApp = (context: Record<string, unknown> = {}) =>
  new App({
    context: {
      ...cdkJsonContext,
      'aws:cdk:bundling-stacks': [],
      'aws:cdk:disable-creation-stack-traces': true,
      ...context,
    },
    builtinCloudFormationValidation: false,
  });

type Json = any;

/** One synthesized template of a stage: the parent's, or a nested stack's with its logical id in the parent. */
export interface StackTemplate {
  readonly stack: Stack;
  /** The nested stack's `AWS::CloudFormation::Stack` in the parent; undefined for the parent. */
  readonly logicalId: string | undefined;
  readonly template: Json;
}

/** The parent's template and each nested stack's, as `cdk synth` writes them. */
export const stackTemplates = (stack: Stack): StackTemplate[] => {
  const assembly = (Stage.of(stack) as Stage).synth();
  const nested = stack.node.findAll().filter(NestedStack.isNestedStack);
  return [
    { stack, logicalId: undefined, template: assembly.getStackArtifact(stack.artifactId).template },
    ...nested.map((ns) => ({
      stack: ns as Stack,
      logicalId: stack.getLogicalId(ns.nestedStackResource as CfnResource),
      template: JSON.parse(readFileSync(join(assembly.directory, ns.templateFile), 'utf8')),
    })),
  ];
};

/**
 * The stage's resources as one template: every nested stack's resources beside the parent's, each
 * parameter a nested stack receives replaced by what the parent passes it, and each reference to a
 * nested stack's output by that output's value. So a function's role, its table's ARN or its alarm
 * read as they would in a single stack, whichever template holds them (logical ids are unique
 * across the templates; this throws if two collide).
 */
export const flatTemplate = (stack: Stack) => flatten(stackTemplates(stack));

const flatten = (templates: StackTemplate[]) => {
  const [parent] = templates;
  const byId = new Map(templates.filter((t) => t.logicalId).map((t) => [t.logicalId as string, t]));
  const resolve = (scope: StackTemplate, value: Json): Json => {
    if (Array.isArray(value)) return value.map((v) => resolve(scope, v));
    if (value === null || typeof value !== 'object') return value;
    const ref = value.Ref;
    if (typeof ref === 'string' && scope.logicalId && scope.template.Parameters?.[ref]) {
      const passed = parent?.template.Resources[scope.logicalId].Properties.Parameters?.[ref];
      if (passed === undefined) throw new Error(`${scope.logicalId} is passed no ${ref}`);
      return resolve(parent as StackTemplate, passed);
    }
    const getAtt = value['Fn::GetAtt'];
    if (Array.isArray(getAtt) && byId.has(getAtt[0]) && String(getAtt[1]).startsWith('Outputs.')) {
      const child = byId.get(getAtt[0]) as StackTemplate;
      const output = child.template.Outputs?.[String(getAtt[1]).slice('Outputs.'.length)];
      if (!output) throw new Error(`${getAtt[0]} has no ${getAtt[1]}`);
      return resolve(child, output.Value);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(scope, v)]));
  };
  const Resources: Record<string, Json> = {};
  for (const t of templates) {
    for (const [id, resource] of Object.entries(t.template.Resources ?? {})) {
      if (Resources[id]) throw new Error(`logical id ${id} is in two templates`);
      Resources[id] = resolve(t, resource);
    }
  }
  return { Resources, Outputs: parent?.template.Outputs ?? {} };
};

/** The stage of cdk.json's context alone, as the template tests read it. */
export interface DefaultStage {
  readonly app: App;
  readonly stack: ServiceStack;
  /** The parent's template and each nested stack's (stackTemplates). */
  readonly templates: readonly StackTemplate[];
  /** The resources of all of them as one template (flatTemplate). */
  readonly flat: ReturnType<typeof flatTemplate>;
}

let shared: DefaultStage | undefined;

/**
 * The default stage (`templateApp()`: cdk.json's context, nothing else), synthesized once per
 * worker: the template tests that read it (stack, IAM conformance, the gateway's answers, scale)
 * share their worker's modules (vitest.config.ts), so they share this too instead of each
 * synthesizing the same stage again (2 to 3 CPU-s each). Its templates are frozen, so no file can
 * change what the next one reads; a test that needs other context synthesizes a stage of its own.
 */
export const defaultStage = (): DefaultStage => {
  if (!shared) {
    const app = templateApp();
    const settings = readSettings(app);
    const stack = new ServiceStack(app, stackName(settings.stage), { settings });
    const templates = stackTemplates(stack);
    const flat = flatten(templates);
    for (const t of templates) freezeJson(t.template);
    freezeJson(flat);
    shared = Object.freeze({ app, stack, templates: Object.freeze(templates), flat });
  }
  return shared;
};

const freezeJson = (json: unknown) => {
  if (json === null || typeof json !== 'object' || Object.isFrozen(json)) return;
  Object.freeze(json);
  for (const value of Object.values(json)) freezeJson(value);
};

/** A construct's logical id in whichever template (the parent's or a nested stack's) holds it. */
export const logicalIdOf = (element: unknown) =>
  Stack.of(element as CfnElement).getLogicalId(element as CfnElement);

/**
 * A circle of resources that wait on one another in one template (Ref, Fn::GetAtt, a `${Name}` of
 * Fn::Sub, DependsOn), as the ids around it; undefined when there is none. The template tests skip
 * CloudFormation's own validation for speed; this is the part of it a split can break.
 */
export const dependencyCycle = (template: Json): string[] | undefined => {
  const resources: Record<string, Json> = template.Resources ?? {};
  const refsIn = (value: Json, found: Set<string>): Set<string> => {
    if (Array.isArray(value)) for (const v of value) refsIn(v, found);
    else if (value && typeof value === 'object') {
      if (typeof value.Ref === 'string' && resources[value.Ref]) found.add(value.Ref);
      const getAtt = value['Fn::GetAtt'];
      if (Array.isArray(getAtt) && resources[getAtt[0]]) found.add(getAtt[0]);
      const sub = value['Fn::Sub'];
      const text = Array.isArray(sub) ? sub[0] : sub;
      if (typeof text === 'string')
        for (const [, name] of text.matchAll(/\$\{([\w]+)[.}]/g))
          if (name && resources[name]) found.add(name);
      for (const v of Object.values(value)) refsIn(v, found);
    }
    return found;
  };
  const edges = new Map(
    Object.entries(resources).map(([id, r]) => {
      const deps = refsIn(r.Properties ?? {}, new Set());
      for (const d of [r.DependsOn ?? []].flat()) deps.add(d);
      return [id, [...deps]];
    }),
  );
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'open') return [...path.slice(path.indexOf(id)), id];
    state.set(id, 'open');
    path.push(id);
    for (const dep of edges.get(id) ?? []) {
      const cycle = visit(dep);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const id of edges.keys()) {
    const cycle = visit(id);
    if (cycle) return cycle;
  }
  return undefined;
};
