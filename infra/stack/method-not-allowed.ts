import { Validations } from 'aws-cdk-lib';
import {
  AuthorizationType,
  MockIntegration,
  PassthroughBehavior,
  type RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { errorStatus, JSON_CONTENT_TYPE } from '../../lib/http/errors';
import { allowedMethods, methodNotAllowed } from '../../lib/http/gateway-answers';
import type { Route } from '../../lib/routes';

/**
 * A REST API answers a method a path lacks like an unknown path (403 "Missing Authentication
 * Token"). The API answers 405 with `Allow` (docs/api.md), as the local gateway does. So every path of the
 * route table also gets an ANY method (API Gateway prefers the explicit methods) backed by a mock
 * integration that answers 405 in the error envelope: no function runs, no data is reachable, and,
 * as locally, no key is needed to learn that a method does not exist.
 */
export const addMethodNotAllowed = (api: RestApi, routes: readonly Route[]) => {
  const methodsByPath = new Map<string, string[]>();
  for (const route of routes)
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);

  for (const [path, methods] of methodsByPath) {
    // API Gateway fills in the request's method, so the words are those the local gateway answers.
    const answer = methodNotAllowed('$context.httpMethod', path, allowedMethods(methods));
    const body = JSON.stringify({
      error: { code: answer.code, message: answer.message },
      request_id: '$context.requestId',
    });
    const headers = {
      'method.response.header.Allow': `'${answer.headers.Allow}'`,
      'method.response.header.Content-Type': `'${JSON_CONTENT_TYPE}'`,
      'method.response.header.Cache-Control': "'no-store'",
      'method.response.header.X-Request-Id': 'context.requestId',
    };
    const method = api.root.resourceForPath(path).addMethod(
      'ANY',
      new MockIntegration({
        requestTemplates: { 'application/json': '{"statusCode": 405}' },
        // Whatever the request's content type, the mock answers: it never reads the body.
        passthroughBehavior: PassthroughBehavior.WHEN_NO_MATCH,
        integrationResponses: [
          {
            statusCode: String(errorStatus.method_not_allowed),
            responseTemplates: { 'application/json': body },
            responseParameters: headers,
          },
        ],
      }),
      {
        operationName: `methodNotAllowed${path.replace(/[^A-Za-z0-9]/g, '_')}`,
        authorizationType: AuthorizationType.NONE,
        methodResponses: [
          {
            statusCode: String(errorStatus.method_not_allowed),
            responseParameters: Object.fromEntries(Object.keys(headers).map((name) => [name, true])),
          },
        ],
      },
    );
    Validations.of(method).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'The ANY fallback only answers 405 from a mock integration: it runs no function and reaches no data',
    });
    Validations.of(method).acknowledge({
      id: 'AwsSolutions-COG4',
      reason:
        'The ANY fallback only answers 405 from a mock integration: it runs no function and reaches no data',
    });
  }
};
