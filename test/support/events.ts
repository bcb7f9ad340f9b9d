import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { lambdaContext } from '../../bench/events';

/** The event builders live with the benchmark (bench/events.ts), which may not import test code. */
export { lambdaContext, proxyEvent } from '../../bench/events';

export const invoke = async (
  handler: (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>,
  event: APIGatewayProxyEvent,
) => {
  const result = await handler(event, lambdaContext);
  return { ...result, json: JSON.parse(result.body) };
};
