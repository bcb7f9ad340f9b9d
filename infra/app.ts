import { App } from 'aws-cdk-lib';
import { ServiceStack } from './stack/service-stack';
import { readSettings, stackName } from './stack/settings';

/**
 * `npx cdk deploy [-c stage=<name>]`: one independent stack per stage. No account or region is
 * pinned, so `cdk synth` needs no lookups (and no network); deploy uses the caller's AWS profile.
 */
const app = new App();
const settings = readSettings(app);
new ServiceStack(app, stackName(settings.stage), {
  settings,
  description: `Device ban service, stage ${settings.stage}`,
});
app.synth();
