import { copyFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AssetHashType,
  type CfnResource,
  DockerImage,
  Duration,
  RemovalPolicy,
  Validations,
} from 'aws-cdk-lib';
import {
  ApplicationLogLevel,
  Architecture,
  Code,
  Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { BuildOptions } from 'esbuild';
import type { BundledFile } from '../../lib/model/bundled-files';
import { handlerEntry } from '../../lib/routes';
import { writeFunctionBundle } from './function-bundles';
import { HANDLER_METADATA_KEY } from './handler-metadata';

/** The repository root: esbuild resolves the entries and the alias from here, not from the cwd. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * 10 s: well under API Gateway's 29 s integration limit, and the budget lib/storage/client.ts's
 * SDK retries (3 attempts × 2 s request timeout plus backoff) are designed to fit inside, so a
 * DynamoDB outage ends as our 503 rather than as a Lambda timeout.
 */
export const FUNCTION_TIMEOUT = Duration.seconds(10);
/**
 * 256 MB: the handlers wait on DynamoDB rather than compute, and a ~200–245 KB minified bundle
 * initialises quickly at this size; it is also what the local gateway reports to handlers.
 */
export const FUNCTION_MEMORY_MB = 256;
/** Relative to the project root, where esbuild runs. */
const CREDENTIALS_SHIM = 'infra/stack/lambda-credentials.ts';
export const LOG_RETENTION = RetentionDays.ONE_MONTH;
/** Every function's runtime. */
export const RUNTIME = Runtime.NODEJS_24_X;
/** esbuild's target: the runtime's Node major (`nodejs24.x` → `node24`), so the two cannot drift. */
export const BUNDLE_TARGET = (() => {
  const major = /^nodejs(\d+)\.x$/.exec(RUNTIME.name)?.[1];
  if (!major) throw new Error(`runtime ${RUNTIME.name} is not a Node.js runtime`);
  return `node${major}`;
})();

/**
 * esbuild's options for every function (function-bundles.ts). Relative paths are from the root;
 * esbuild reads tsconfig.json (the `@kernel/*` paths) on its own.
 */
const BUNDLING: BuildOptions = {
  absWorkingDir: resolve(PROJECT_ROOT),
  bundle: true,
  format: 'esm',
  target: BUNDLE_TARGET,
  platform: 'node',
  // Module-first resolution lets esbuild tree-shake the SDK's ES builds.
  mainFields: ['module', 'main'],
  minify: true,
  // A map beside each bundle (file names and lines, not the sources: a smaller asset), so a
  // minified stack trace can be read: by Node itself with `-c sourceMaps=true`
  // (NODE_OPTIONS=--enable-source-maps, off by default: it adds 15–23% to the cold import,
  // docs/performance.md), or offline against the deployed asset.
  sourcemap: true,
  sourcesContent: false,
  // The SDK goes into the bundle (no externals): a minified bundle imports faster than the
  // runtime's copy, and the version deployed is the version tested.
  external: [],
  // Lambda's credentials are in its environment: skip the SDK's full provider chain (~100 KB of
  // SSO/INI/STS/IMDS code that Lambda never reaches). See lambda-credentials.ts.
  alias: { '@aws-sdk/credential-provider-node': `./${CREDENTIALS_SHIM}` },
  // CommonJS code inside an ESM bundle still calls require() for Node built-ins.
  banner: {
    js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  },
};

/**
 * A function's code: its bundle (function-bundles.ts: one esbuild pass for all the handlers) and
 * its data files, through CDK's asset bundling, so CDK still skips the build for a stack it is not
 * bundling (`aws:cdk:bundling-stacks`) and hashes the asset by its output. The source folder is
 * only a name here (CDK reads nothing in it), and `command` is never run: CDK caches a bundling by the
 * two, so `command` names the entry and the files, and two functions share an asset only when
 * they share all of it.
 */
const functionCode = (entry: string, files: readonly BundledFile[]) =>
  Code.fromAsset(dirname(join(PROJECT_ROOT, entry)), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: DockerImage.fromRegistry('unused'),
      command: [entry, ...files.map((file) => `${file.source}:${file.name}`)],
      local: {
        tryBundle: (outputDir) => {
          writeFunctionBundle(BUNDLING, entry, outputDir);
          for (const file of files) copyFileSync(join(PROJECT_ROOT, file.source), join(outputDir, file.name));
          return true;
        },
      },
    },
  });

export interface ServiceFunctionProps {
  /** Module under functions/ (the route table's `handler`). */
  readonly handler: string;
  /** Source file, relative to the project root, when it is not `functions/<handler>.ts` (the benchmark's floor). */
  readonly entry?: string;
  readonly environment?: Record<string, string>;
  /** The application log level Lambda filters JSON lines by (and tells lib/log.ts); default INFO. */
  readonly logLevel?: ApplicationLogLevel;
  /** FUNCTION_TIMEOUT unless set: only functions no API request waits for (stream, queue) set it. */
  readonly timeout?: Duration;
  /** FUNCTION_MEMORY_MB unless set: only a function no API request waits for (the export job) sets it. */
  readonly memorySize?: number;
  /** Whether Node maps stack traces through the shipped source maps (NODE_OPTIONS). */
  readonly sourceMaps?: boolean;
  /** Data files the function reads at run time (lib/model/bundled-files.ts), copied beside its bundle. */
  readonly files?: readonly BundledFile[];
}

/** The one place that holds every Lambda's defaults: runtime, bundling, limits and logging. */
export class ServiceFunction extends Construct {
  readonly function: LambdaFunction;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    // Our own log group, so retention is a plain property rather than a custom resource.
    const logGroup = new LogGroup(this, 'Logs', {
      retention: LOG_RETENTION,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.function = new LambdaFunction(this, 'Function', {
      code: functionCode(props.entry ?? handlerEntry(props.handler), props.files ?? []),
      handler: 'index.handler',
      runtime: RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? FUNCTION_MEMORY_MB,
      timeout: props.timeout ?? FUNCTION_TIMEOUT,
      // No X-Ray: every request is already traceable by its X-Request-Id in the access log and in
      // the handlers' JSON logs, and each handler makes at most a few DynamoDB calls.
      tracing: Tracing.DISABLED,
      logGroup,
      // JSON lines (lib/log.ts) kept as JSON, and filtered by level before they cost anything:
      // lib/log.ts reads AWS_LAMBDA_LOG_LEVEL, which Lambda sets from the application level.
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: props.logLevel ?? ApplicationLogLevel.INFO,
      systemLogLevelV2: SystemLogLevel.WARN,
      environment: {
        ...props.environment,
        ...(props.sourceMaps ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
      },
    });
    (this.function.node.defaultChild as CfnResource).addMetadata(HANDLER_METADATA_KEY, props.handler);
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason:
        'The AWS-managed basic execution policy grants only CloudWatch Logs writes; table access is granted separately, per function',
    });
  }
}
