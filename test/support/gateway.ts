// A supergraph as a platform team runs one (issue 57): composed with The Guild's composition (the same rules
// and messages as Apollo's), served by Hive Gateway's runtime with its HTTP transport, in the test's process on
// 127.0.0.1, forwarding each client's Authorization header to the subgraphs (docs/federation.md).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import http from '@graphql-mesh/transport-http';
import { type CompositionResult, composeServices } from '@theguild/federation-composition';
import { parse } from 'graphql';

export interface Subgraph {
  name: string;
  /** Its SDL: what its `_service { sdl }` answers. */
  sdl: string;
  /** Where the gateway reaches it. */
  url: string;
}

/** The supergraph of `subgraphs`, or the composition's errors. */
export const compose = (subgraphs: Subgraph[]): CompositionResult =>
  composeServices(subgraphs.map(({ name, sdl, url }) => ({ name, typeDefs: parse(sdl), url })));

export interface Gateway {
  /** `http://127.0.0.1:<port>/graphql`. */
  url: string;
  stop(): Promise<void>;
}

/** Hive Gateway serving `supergraphSdl`, listening on 127.0.0.1. */
export async function startGateway(supergraphSdl: string): Promise<Gateway> {
  const gateway = createGatewayRuntime({
    supergraph: supergraphSdl,
    transports: { http },
    // docs/federation.md's configuration: the subgraphs check the caller's credentials themselves, a purchase's
    // Idempotency-Key is the museum's, and X-Forwarded-For names the client to a museum that trusts the gateway.
    propagateHeaders: {
      fromClientToSubgraphs: ({ request }) => ({
        authorization: request.headers.get('authorization'),
        'idempotency-key': request.headers.get('idempotency-key'),
        'x-forwarded-for': request.headers.get('x-forwarded-for'),
      }),
    },
    deferStream: true,
    logging: false,
  });
  const server = createServer(gateway);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
      await gateway.dispose();
    },
  };
}
