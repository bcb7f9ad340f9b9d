import type { APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { authorize } from '../lib/authorizer';

export const handler = (event: APIGatewayTokenAuthorizerEvent) =>
  authorize(event.authorizationToken, event.methodArn);
