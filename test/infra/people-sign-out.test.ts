import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { People } from '../../infra/stack/people';

/**
 * Signing out of the console revokes the person's refresh token at the pool (Cognito RevokeToken):
 * the page is told where (sign-in.json's `revocation_endpoint`, on the pool's domain, which its
 * CSP already allows for the token calls), and the app client allows revocation, without which
 * Cognito refuses it. The console calls it (console/src/people.ts `revokeRefreshToken`);
 * test/browser/people.test.ts shows that against the local provider.
 */

describe("the pool's sign-out", () => {
  const stack = new Stack(new App(), 'People');
  const people = new People(stack, 'People', {
    own: undefined,
    tokenClaims: () =>
      new LambdaFunction(stack, 'Claims', {
        runtime: Runtime.NODEJS_20_X,
        handler: 'index.handler',
        code: Code.fromInline('exports.handler = async (e) => e;'),
      }),
  });
  const signIn = people.addConsoleClient('https://console.example.com/');
  const template = Template.fromStack(stack);

  it('names the pool domain revocation endpoint beside its token endpoint, for a client that allows revocation', () => {
    const resolve = (value: string | undefined) => JSON.stringify(stack.resolve(value));
    expect(resolve(signIn.console.revocation_endpoint)).toMatch(/\/oauth2\/revoke"/);
    expect(resolve(signIn.console.revocation_endpoint)).toBe(
      resolve(signIn.console.token_endpoint).replace('/oauth2/token', '/oauth2/revoke'),
    );
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', { EnableTokenRevocation: true });
  });
});
