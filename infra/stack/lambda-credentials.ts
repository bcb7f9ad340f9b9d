/**
 * Bundled in place of `@aws-sdk/credential-provider-node` (an esbuild alias set in
 * service-function.ts); never imported by the stack itself.
 *
 * Lambda hands a function its role's credentials in environment variables, which the SDK's
 * default chain would find first anyway. The chain also bundles the SSO, INI, process,
 * web-identity, container and IMDS providers with their STS and SSO clients (~100 KB minified)
 * that can never be reached in Lambda. Same credentials, smaller and faster-loading bundle.
 */

interface EnvCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

export const defaultProvider = () => async (): Promise<EnvCredentials> => {
  const {
    AWS_ACCESS_KEY_ID: accessKeyId,
    AWS_SECRET_ACCESS_KEY: secretAccessKey,
    AWS_SESSION_TOKEN: sessionToken,
    AWS_CREDENTIAL_EXPIRATION: expiry,
  } = process.env;
  if (!accessKeyId || !secretAccessKey) {
    throw new Error('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set (expected in Lambda)');
  }
  return {
    accessKeyId,
    secretAccessKey,
    ...(sessionToken ? { sessionToken } : {}),
    ...(expiry ? { expiration: new Date(expiry) } : {}),
  };
};

// The rest of the real module's exports, as it defines them.
export const credentialsWillNeedRefresh = (credentials?: { expiration?: Date }) =>
  credentials?.expiration !== undefined;
export const credentialsTreatedAsExpired = (credentials?: { expiration?: Date }) =>
  credentials?.expiration !== undefined && credentials.expiration.getTime() - Date.now() < 300_000;
