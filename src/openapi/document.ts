// The OpenAPI 3.1 document of the REST surface, generated, never written by hand:
// - paths, methods, operationIds, success statuses and flags from the route table (routes.ts), each route
//   compiled once by the same compileRoutes that serves it (compiled-routes.ts); prose, tags, examples and
//   extra refusals from route-docs.ts (and visit-docs.ts, the operations of a visit), by operationId;
// - request bodies and query parameters from the very zod schemas that validate them (the `validate`
//   option of the GraphQL input type or root field a route executes), as JSON Schema 2020-12, the dialect
//   of OpenAPI 3.1, plus what the GraphQL types themselves enforce (scalar formats, no unknown fields)
//   (schemas.ts);
// - responses from the GraphQL output type and the fields the route's document selects (operations.ts);
// - error responses from the error table (common/errors.ts) and what a route does (auth, body, path), and
//   the other shared components (components.ts);
// - Stripe's webhook, a route of the HTTP lane rather than of routes.ts, from the zod schemas its handler uses
//   (payment-docs.ts).
// The document's own prose and the reference's shared parameters are in prose.ts. A row added to
// routes.ts, with its documentation in route-docs.ts, appears without touching this file.

import type { GraphQLSchema } from 'graphql';
import packageJson from '../../package.json' with { type: 'json' };
import { schema as graphqlSchema } from '../graph/schema.ts';
import { compileRoutes } from '../rest/compiled-routes.ts';
import type { Route } from '../rest/route.ts';
import { routes as restRoutes } from '../rest/routes.ts';
import { createComponents } from './components.ts';
import { openApiPath, operationOf } from './operations.ts';
import { STRIPE_WEBHOOK, stripeWebhookOperation } from './payment-docs.ts';
import { privacyDocs } from './privacy-docs.ts';
import { DESCRIPTION, PUBLISH_NEW_EVENT, TAGS } from './prose.ts';
import { type RouteDocs, routeDocs } from './route-docs.ts';
import { saleDocs } from './sale-docs.ts';
import type { Json } from './schemas.ts';
import { OPENAPI_SECURITY_SCHEME } from './security-scheme.ts';
import { visitDocs } from './visit-docs.ts';

/**
 * Builds the document from the route table, their documentation and the GraphQL schema (all default to the
 * app's). A route without documentation is an error.
 */
export function buildOpenApiDocument(
  routes: Route[] = restRoutes,
  schema: GraphQLSchema = graphqlSchema,
  docs: Record<string, RouteDocs> = {
    ...routeDocs,
    ...visitDocs,
    ...saleDocs,
    ...privacyDocs,
  },
): Json {
  const components = createComponents();
  const paths: Record<string, Record<string, Json>> = {};
  const usedTags = new Set<string>();
  for (const route of compileRoutes(schema, routes)) {
    const documented = docs[route.operationId];
    if (!documented) throw new Error(`Route ${route.operationId} has no documentation in route-docs.ts`);
    for (const tag of documented.tags) usedTags.add(tag);
    const path = openApiPath(route.path);
    paths[path] = {
      ...paths[path],
      [route.method.toLowerCase()]: operationOf(schema, route, documented, components),
    };
  }
  // Stripe's webhook, a route of the HTTP lane beside the operations, from its own schemas (payment-docs.ts).
  usedTags.add(STRIPE_WEBHOOK.tag);
  paths[STRIPE_WEBHOOK.path] = { [STRIPE_WEBHOOK.method]: stripeWebhookOperation(components) };

  return {
    openapi: '3.1.0',
    info: {
      title: 'Museum API',
      version: packageJson.version,
      description: DESCRIPTION,
      license: { name: 'MIT', url: 'https://opensource.org/license/mit/' },
    },
    // Each deployment serves this document about itself, whichever environment it is, to the public.
    servers: [
      {
        url: '/',
        description: 'This server (local, staging or production: whichever serves this document)',
        'x-internal': false,
      },
    ],
    security: [{ [OPENAPI_SECURITY_SCHEME]: [] }],
    tags: [...usedTags].map((name) => ({ name, ...(TAGS[name] ? { description: TAGS[name] } : {}) })),
    paths,
    webhooks: { publishNewEvent: PUBLISH_NEW_EVENT },
    components: components.sections(),
  };
}

/** The document as `schema/openapi.json` holds it and `/openapi.json` serves it. */
export const printedOpenApiDocument = () => `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
