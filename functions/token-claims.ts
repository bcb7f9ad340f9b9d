import type { PreTokenGenerationV2TriggerEvent } from 'aws-lambda';
import { cognitoTokenClaims } from '../lib/domain/people';

/** The Cognito pool's pre-token-generation trigger (V2): a person's publisher and role into the access token. */
export const handler = async (event: PreTokenGenerationV2TriggerEvent) => {
  event.response = {
    claimsAndScopeOverrideDetails: {
      accessTokenGeneration: { claimsToAddOrOverride: cognitoTokenClaims(event.request.userAttributes) },
    },
  };
  return event;
};
