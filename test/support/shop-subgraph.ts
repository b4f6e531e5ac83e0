// A second subgraph for the federation tests (issue 57): a museum shop that sells merchandise for special
// events. It extends the museum's SpecialEvent through its key (`merchandise`), and refers to events from its
// own root field (`featuredMerchandise`), which the gateway completes through the museum's `_entities`. Built
// as a team would build one: Apollo's buildSubgraphSchema on graphql-yoga, listening on 127.0.0.1.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { createYoga } from 'graphql-yoga';

export const SHOP_TYPE_DEFS = parse(`
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"])

  "A UUID such as \`3be6453c-03eb-4357-ae5a-984a0e574a54\`."
  scalar UUID

  "The museum's special event, as the shop knows it: by its key."
  type SpecialEvent @key(fields: "eventId") {
    "Identifier for a special event."
    eventId: UUID!
    "What the shop sells for the event."
    merchandise: [Merchandise!]!
  }

  "An article of the shop."
  type Merchandise {
    "Stock keeping unit."
    sku: String!
    "Its name."
    name: String!
    "Its price."
    price: Float!
    "The event it belongs to."
    event: SpecialEvent!
  }

  type Query {
    "The shop's articles of the moment."
    featuredMerchandise: [Merchandise!]!
  }
`);

interface Article {
  sku: string;
  name: string;
  price: number;
  eventId: string;
}

export interface Shop {
  /** `http://127.0.0.1:<port>/graphql`. */
  url: string;
  /** Puts an article on sale for an event. */
  sell(article: Article): void;
  /** The Authorization header of each request the shop was sent. */
  authorizations: (string | null)[];
  stop(): Promise<void>;
}

export async function startShop(): Promise<Shop> {
  const articles: Article[] = [];
  const authorizations: (string | null)[] = [];
  const asMerchandise = (article: Article) => ({ ...article, event: { eventId: article.eventId } });
  const schema = buildSubgraphSchema({
    typeDefs: SHOP_TYPE_DEFS,
    resolvers: {
      Query: { featuredMerchandise: () => articles.map(asMerchandise) },
      SpecialEvent: {
        __resolveReference: ({ eventId }: { eventId: string }) => ({ eventId }),
        merchandise: ({ eventId }: { eventId: string }) =>
          articles.filter((article) => article.eventId === eventId).map(asMerchandise),
      },
    },
  });
  const yoga = createYoga({
    schema,
    logging: false,
    plugins: [
      {
        onRequest({ request }) {
          authorizations.push(request.headers.get('authorization'));
        },
      },
    ],
  });
  const server = createServer(yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    sell: (article) => articles.push(article),
    authorizations,
    stop() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
