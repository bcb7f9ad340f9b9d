import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { type ErrorCode, JSON_CONTENT_TYPE } from '../../lib/http/errors';
import { type GatewayAnswer, gatewayAnswers, statusOf } from '../../lib/http/gateway-answers';

/**
 * What API Gateway answers by itself (no key, unknown route, throttled, authorizer down, function
 * not answering), each response type with its entry of the gateway answers table
 * (lib/http/gateway-answers.ts), which the local gateway answers with too.
 */

export const GATEWAY_RESPONSES: readonly (readonly [ResponseType, GatewayAnswer])[] = [
  [ResponseType.UNAUTHORIZED, gatewayAnswers.unauthorized],
  [ResponseType.ACCESS_DENIED, gatewayAnswers.forbidden],
  // A REST API answers an unknown path with "Missing Authentication Token" 403; for a client that
  // is simply a route that does not exist. (A known path's missing method meets the 405 mocks.)
  [ResponseType.MISSING_AUTHENTICATION_TOKEN, gatewayAnswers.noRoute],
  [ResponseType.RESOURCE_NOT_FOUND, gatewayAnswers.noRoute],
  // The stage's method limits and the usage plan's per-publisher ones alike.
  [ResponseType.THROTTLED, gatewayAnswers.throttled],
  // Authorized methods require an API key, which the authorizer names (the publisher's quota
  // key): one that is no key of the usage plan is refused here (403), never served unlimited.
  [ResponseType.INVALID_API_KEY, gatewayAnswers.noQuotaKey],
  [ResponseType.QUOTA_EXCEEDED, gatewayAnswers.quotaExceeded],
  [ResponseType.WAF_FILTERED, gatewayAnswers.blocked],
  // The authorizer threw something other than "Unauthorized" (DynamoDB unavailable after its
  // retries), timed out, or could not be invoked: API Gateway reports these as either type.
  [ResponseType.AUTHORIZER_FAILURE, gatewayAnswers.authorizerUnavailable],
  [ResponseType.AUTHORIZER_CONFIGURATION_ERROR, gatewayAnswers.authorizerUnavailable],
  [ResponseType.REQUEST_TOO_LARGE, gatewayAnswers.tooLarge],
  [ResponseType.UNSUPPORTED_MEDIA_TYPE, gatewayAnswers.unsupportedMediaType],
  // The function did not answer in time (the handlers answer 503 themselves before their deadline;
  // this is when even that failed), or could not be invoked (throttled, crashed, out of memory).
  [ResponseType.INTEGRATION_TIMEOUT, gatewayAnswers.functionUnavailable],
  [ResponseType.INTEGRATION_FAILURE, gatewayAnswers.functionUnavailable],
  // The families pin their status too, so every status a client can get is a documented one that
  // matches its code. A 5XX of the gateway's own is always a function that did not answer (a
  // throttled or crashed invocation arrives here as 502/500): the client's remedy is a retry.
  [ResponseType.DEFAULT_4XX, gatewayAnswers.badRequest],
  [ResponseType.DEFAULT_5XX, gatewayAnswers.functionUnavailable],
];

/** Response parameters take quoted literals; `context.requestId` is a mapping expression. */
const literal = (value: string) => `'${value}'`;

/** The mapping template: the envelope, with the request id filled in by API Gateway. */
export const envelopeTemplate = (code: ErrorCode, message: string) =>
  JSON.stringify({ error: { code, message }, request_id: '$context.requestId' });

export const addGatewayResponses = (api: RestApi) => {
  for (const [type, response] of GATEWAY_RESPONSES) {
    const extra = Object.entries(response.headers ?? {}).map(([name, value]) => [name, literal(value)]);
    api.addGatewayResponse(`GatewayResponse${type.responseType}`, {
      type,
      statusCode: String(statusOf(response)),
      responseHeaders: {
        'Content-Type': literal(JSON_CONTENT_TYPE),
        'Cache-Control': literal('no-store'),
        'X-Request-Id': 'context.requestId',
        ...Object.fromEntries(extra),
      },
      templates: { 'application/json': envelopeTemplate(response.code, response.message) },
    });
  }
};
