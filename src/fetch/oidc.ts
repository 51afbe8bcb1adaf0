/**
 * Single sign-on with OpenID Connect, through openid-client (a certified relying-party
 * library): the authorization code flow with PKCE (S256), state and nonce, the ID token
 * checked (signature, issuer, audience, expiry, nonce), and the person's claims from the ID
 * token and the userinfo endpoint. The provider's metadata is discovered once and again
 * after a failure.
 */
import * as client from 'openid-client';
import type { SsoConfig } from '../config/web.js';
import { SsoFailed } from '../lib/errors.js';
import type { SsoClient, SsoPending } from '../monitor/records-accounts.js';

const TIMEOUT_S = 10;

export function createSsoClient(sso: SsoConfig): SsoClient {
  let discovered: Promise<client.Configuration> | undefined;
  const configuration = () => {
    discovered ??= client
      .discovery(
        new URL(sso.issuer),
        sso.clientId,
        sso.clientSecret,
        sso.clientSecret === undefined ? client.None() : client.ClientSecretBasic(sso.clientSecret),
        {
          timeout: TIMEOUT_S,
          // The configuration allows http for a provider on this machine only.
          ...(new URL(sso.issuer).protocol === 'http:'
            ? { execute: [client.allowInsecureRequests] }
            : {}),
        },
      )
      .catch((error: unknown) => {
        discovered = undefined;
        throw new SsoFailed(
          `the single sign-on provider ${sso.issuer} could not be reached or described: ${reason(error)}`,
        );
      });
    return discovered;
  };
  return {
    label: sso.label,
    async start(redirectUri) {
      const config = await configuration();
      const pending: SsoPending = {
        state: client.randomState(),
        nonce: client.randomNonce(),
        verifier: client.randomPKCECodeVerifier(),
      };
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: sso.scopes.join(' '),
        code_challenge: await client.calculatePKCECodeChallenge(pending.verifier),
        code_challenge_method: 'S256',
        state: pending.state,
        nonce: pending.nonce,
      });
      return { url: url.href, pending };
    },
    async finish(callback, pending) {
      const config = await configuration();
      let tokens;
      try {
        tokens = await client.authorizationCodeGrant(config, callback, {
          pkceCodeVerifier: pending.verifier,
          expectedState: pending.state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        throw new SsoFailed(`the single sign-on provider refused the sign-in: ${reason(error)}`);
      }
      const claims = tokens.claims()!;
      let info: Record<string, unknown> = {};
      if (config.serverMetadata().userinfo_endpoint !== undefined)
        try {
          info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
        } catch (error) {
          throw new SsoFailed(
            `the single sign-on provider did not say who signed in (userinfo): ${reason(error)}`,
          );
        }
      return { issuer: claims.iss, subject: claims.sub, claims: { ...info, ...claims } };
    },
  };
}

function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause =
    error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${message}${cause}`.replace(/\s+/g, ' ').slice(0, 300);
}
