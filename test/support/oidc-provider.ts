/**
 * A real OpenID provider for the single sign-on tests: oidc-provider (a maintained,
 * certified implementation) on loopback, with one confidential client (robowatch), its
 * development sign-in and consent pages, and the people the test gives claims to.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export const CLIENT_SECRET = 'robowatch-client-secret-for-tests';

/** The claims of a person the provider signs in, by subject; undefined: no such person. */
export type Claims = (subject: string) => Record<string, unknown> | undefined;

export interface TestProvider {
  readonly issuer: string;
  /** Starts answering, with robowatch's callback registered (known once robowatch listens). */
  serve(redirectUri: string): void;
  stop(): Promise<void>;
}

/** Listens on 127.0.0.1 (so that the issuer is known before robowatch's configuration). */
export async function startTestProvider(claims: Claims): Promise<TestProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    serve(redirectUri) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: 'robowatch',
            client_secret: CLIENT_SECRET,
            redirect_uris: [redirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
          },
        ],
        findAccount: (_ctx, id) => {
          const found = claims(id);
          return found === undefined
            ? undefined
            : { accountId: id, claims: () => ({ sub: id, ...found }) };
        },
        claims: { openid: ['sub'], profile: ['preferred_username'], groups: ['groups'] },
        scopes: ['openid', 'profile', 'groups'],
        pkce: { required: () => true },
        ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600 },
        cookies: { keys: ['a cookie key for the test provider'] },
      });
      const handle = provider.callback();
      server.on('request', (request, response) => void handle(request, response));
    },
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
