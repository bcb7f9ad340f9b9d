import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CfnResource, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { BundledFile } from '../../lib/model/bundled-files';
import { handlerEntry } from '../../lib/routes';
import { HANDLER_METADATA_KEY } from './handler-metadata';

/** The repository root: bundling resolves entries and the lock file from here, not from the cwd. */
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
  /** Whether Node maps stack traces through the shipped source maps (NODE_OPTIONS). */
  readonly sourceMaps?: boolean;
  /** Data files the function reads at run time (lib/model/bundled-files.ts), copied beside its bundle. */
  readonly files?: readonly BundledFile[];
}

/** The one place that holds every Lambda's defaults: runtime, bundling, limits and logging. */
export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    // Our own log group, so retention is a plain property rather than a custom resource.
    const logGroup = new LogGroup(this, 'Logs', {
      retention: LOG_RETENTION,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.function = new NodejsFunction(this, 'Function', {
      entry: join(PROJECT_ROOT, props.entry ?? handlerEntry(props.handler)),
      handler: 'handler',
      runtime: RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: FUNCTION_MEMORY_MB,
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
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      bundling: {
        format: OutputFormat.ESM,
        target: BUNDLE_TARGET,
        platform: 'node',
        // Module-first resolution lets esbuild tree-shake the SDK's ES builds.
        mainFields: ['module', 'main'],
        minify: true,
        // A map beside each bundle (file names and lines, not the sources: a smaller asset), so
        // a minified stack trace can be read: by Node itself with `-c sourceMaps=true`
        // (NODE_OPTIONS=--enable-source-maps, off by default: it adds 15–23% to the cold import,
        // docs/performance.md), or offline against the deployed asset.
        sourceMap: true,
        sourcesContent: false,
        // The SDK goes into the bundle (no externals): a minified bundle imports faster than the
        // runtime's copy, and the version deployed is the version tested.
        bundleAwsSDK: true,
        externalModules: [],
        // Lambda's credentials are in its environment: skip the SDK's full provider chain
        // (~100 KB of SSO/INI/STS/IMDS code that Lambda never reaches). See lambda-credentials.ts.
        esbuildArgs: { '--alias': `@aws-sdk/credential-provider-node=./${CREDENTIALS_SHIM}` },
        // CommonJS code inside an ESM bundle still calls require() for Node built-ins.
        banner:
          "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
        forceDockerBundling: false,
        ...(props.files?.length
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (inputDir: string, outputDir: string) =>
                  (props.files ?? []).map(
                    (file) => `cp "${join(inputDir, file.source)}" "${join(outputDir, file.name)}"`,
                  ),
              },
            }
          : {}),
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
