import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { type ErrorCode, errorStatus, JSON_CONTENT_TYPE, RETRY_AFTER_SECONDS } from '../../lib/http/errors';

/**
 * What API Gateway answers by itself (no key, unknown route, throttled, authorizer down) in the
 * project's error envelope, with the same status codes, messages and headers as the local
 * gateway (infra/local/gateway.ts) and the handlers.
 */

export interface GatewayErrorResponse {
  readonly type: ResponseType;
  readonly code: ErrorCode;
  readonly message: string;
  /** The status to answer with, always the one `code` has in lib/http/errors.ts. */
  readonly status: number;
  readonly headers?: Record<string, string>;
}

export const GATEWAY_RESPONSES: readonly GatewayErrorResponse[] = [
  {
    type: ResponseType.UNAUTHORIZED,
    code: 'unauthorized',
    message: 'A valid API key is required',
    status: errorStatus.unauthorized,
    headers: { 'WWW-Authenticate': 'Bearer' },
  },
  {
    type: ResponseType.ACCESS_DENIED,
    code: 'forbidden',
    message: 'This key may not call this operation',
    status: errorStatus.forbidden,
  },
  {
    // A REST API answers an unknown path, or a method a path lacks, with "Missing Authentication
    // Token" 403; for a client that is simply a route that does not exist.
    type: ResponseType.MISSING_AUTHENTICATION_TOKEN,
    code: 'not_found',
    message: 'No route matches the request',
    status: errorStatus.not_found,
  },
  {
    type: ResponseType.THROTTLED,
    code: 'rate_limited',
    message: 'Too many requests; retry shortly',
    status: errorStatus.rate_limited,
    headers: { 'Retry-After': RETRY_AFTER_SECONDS },
  },
  // The authorizer threw something other than "Unauthorized" (DynamoDB unavailable after its
  // retries), timed out, or could not be invoked: not the caller's fault, and a retry may succeed.
  // API Gateway reports these as either type; the local gateway answers both the same way.
  ...[ResponseType.AUTHORIZER_FAILURE, ResponseType.AUTHORIZER_CONFIGURATION_ERROR].map((type) => ({
    type,
    code: 'service_unavailable' as const,
    message: 'The service is temporarily unavailable; retry shortly',
    status: errorStatus.service_unavailable,
    headers: { 'Retry-After': RETRY_AFTER_SECONDS },
  })),
  {
    type: ResponseType.REQUEST_TOO_LARGE,
    code: 'payload_too_large',
    message: 'The request body is too large',
    status: errorStatus.payload_too_large,
  },
  {
    type: ResponseType.UNSUPPORTED_MEDIA_TYPE,
    code: 'unsupported_media_type',
    message: 'Content-Type must be application/json',
    status: errorStatus.unsupported_media_type,
  },
  {
    // The function did not answer in time (it is given 10 s, the gateway waits 29 s): transient.
    type: ResponseType.INTEGRATION_TIMEOUT,
    code: 'service_unavailable',
    message: 'The service is temporarily unavailable; retry shortly',
    status: errorStatus.service_unavailable,
    headers: { 'Retry-After': RETRY_AFTER_SECONDS },
  },
  // The families pin their status too, so every status a client can get is one of the documented
  // ones and always matches its code (otherwise a 502 would arrive as internal_error).
  {
    type: ResponseType.DEFAULT_4XX,
    code: 'invalid_request',
    message: 'The request is not valid',
    status: errorStatus.invalid_request,
  },
  {
    type: ResponseType.DEFAULT_5XX,
    code: 'internal_error',
    message: 'An internal error occurred',
    status: errorStatus.internal_error,
  },
];

/** Response parameters take quoted literals; `context.requestId` is a mapping expression. */
const literal = (value: string) => `'${value}'`;

/** The mapping template: the envelope, with the request id filled in by API Gateway. */
export const envelopeTemplate = (code: ErrorCode, message: string) =>
  JSON.stringify({ error: { code, message }, request_id: '$context.requestId' });

export const addGatewayResponses = (api: RestApi) => {
  for (const response of GATEWAY_RESPONSES) {
    const extra = Object.entries(response.headers ?? {}).map(([name, value]) => [name, literal(value)]);
    api.addGatewayResponse(`GatewayResponse${response.type.responseType}`, {
      type: response.type,
      statusCode: String(response.status),
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
