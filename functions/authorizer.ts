import type { APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { authorize } from '../lib/http/authorizer';

export const handler = (event: APIGatewayTokenAuthorizerEvent) =>
  authorize(event.authorizationToken, event.methodArn);
