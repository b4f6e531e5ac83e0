// Apollo Federation v2 (issue 57): what makes the schema a subgraph, whatever its types. The federation plugin
// (@pothos/plugin-federation) puts @key on the entities (src/graph/entities.graphql.ts) and @link on the schema;
// here are those two directives' definitions, as the specifications write them, so the printed schema is
// GraphQL that every tool builds (graphql-js, gql.tada, the linter, the breaking-change guard), and the types
// of the federation's root fields, each described like the rest of the schema.
import { printSubgraphSchema } from '@apollo/subgraph';
import {
  DirectiveLocation,
  GraphQLBoolean,
  GraphQLDirective,
  GraphQLEnumType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLScalarType,
  type GraphQLSchema,
  GraphQLString,
} from 'graphql';
import { builder } from './builder.ts';

/** The version of Federation the schema links: v2.6, the federation plugin's, which gateways since 2023 read. */
export const FEDERATION_LINK = 'https://specs.apollo.dev/federation/v2.6';

/** How many representations one `_entities` call may resolve. */
export const MAX_REPRESENTATIONS = 100;

const FieldSet = new GraphQLScalarType({
  name: 'federation__FieldSet',
  description: 'Fields of a type, written as a selection (`eventId`): what an entity key is made of.',
});

const LinkImport = new GraphQLScalarType({
  name: 'link__Import',
  description: 'An element a @link imports from its specification: a directive (`@key`) or a type.',
});

const LinkPurpose = new GraphQLEnumType({
  name: 'link__Purpose',
  description: 'Why a linked specification matters to those who read the schema.',
  values: {
    SECURITY: { description: 'It bears on who may see what: a reader that does not know it must refuse.' },
    EXECUTION: { description: 'It bears on how operations run: a reader that does not know it must refuse.' },
  },
});

/** @link (https://specs.apollo.dev/link/v1.0) and Federation's @key, as their specifications define them. */
export const FEDERATION_DIRECTIVES = [
  new GraphQLDirective({
    name: 'link',
    description: 'Links a specification to this schema (here Apollo Federation) and imports its elements.',
    isRepeatable: true,
    locations: [DirectiveLocation.SCHEMA],
    args: {
      url: { type: GraphQLString, description: "The specification's URL, with its version." },
      as: { type: GraphQLString, description: 'The prefix of its elements not imported, if not its name.' },
      for: { type: LinkPurpose, description: 'Why it matters to readers of the schema.' },
      import: { type: new GraphQLList(LinkImport), description: 'Its elements used here without prefix.' },
    },
  }),
  new GraphQLDirective({
    name: 'key',
    description:
      'An entity: other subgraphs refer to its objects by these fields (`_entities` finds them again) and may add fields to them.',
    isRepeatable: true,
    locations: [DirectiveLocation.OBJECT, DirectiveLocation.INTERFACE],
    args: {
      fields: { type: new GraphQLNonNull(FieldSet), description: 'The fields that identify an object.' },
      resolvable: {
        type: GraphQLBoolean,
        defaultValue: true,
        description: 'Whether this subgraph finds an object again by them.',
      },
    },
  }),
];

builder.scalarType('_Any', {
  description:
    'An entity representation, as a gateway sends it to `_entities`: `__typename` and the fields of its @key, such as `{"__typename": "SpecialEvent", "eventId": "…"}`.',
  serialize: (value) => value,
  parseValue: (value) => value,
});

/** `_service`'s answer. */
export const ServiceType = builder.objectRef<{ sdl: string }>('_Service').implement({
  description: 'This subgraph as a gateway composes it.',
  fields: (t) => ({
    sdl: t.exposeString('sdl', {
      description:
        "The subgraph's schema (SDL) as Apollo Federation reads it: @link and the entities' @key, without the federation's own root fields and types.",
    }),
  }),
});

const printed = new WeakMap<GraphQLSchema, string>();

/** The schema's SDL as a subgraph (Apollo's printSubgraphSchema), printed once per schema. */
export function subgraphSdl(schema: GraphQLSchema): string {
  let sdl = printed.get(schema);
  if (sdl === undefined) {
    sdl = printSubgraphSchema(schema);
    printed.set(schema, sdl);
  }
  return sdl;
}
