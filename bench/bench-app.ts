import { App, Stack } from 'aws-cdk-lib';
import { ServiceFunction } from '../infra/stack/service-function';
import { ServiceStack } from '../infra/stack/service-stack';
import { readSettings, stackName } from '../infra/stack/settings';

/**
 * The CDK app the benchmark synthesizes: the real stack, plus the floor function built by the
 * same ServiceFunction construct, so every bundle is built exactly as `cdk deploy` builds it.
 */
export const FLOOR_HANDLER = 'bench-floor';

const app = new App();
const settings = readSettings(app);
new ServiceStack(app, stackName(settings.stage), { settings });
new ServiceFunction(new Stack(app, 'BenchFloor'), 'Floor', {
  handler: FLOOR_HANDLER,
  entry: 'bench/floor/handler.ts',
});
app.synth();
