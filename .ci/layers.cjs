// The import rules between src/'s folders (docs/development.md, "Layers"), checked by dependency-cruiser in
// CI (`npm run layers`). Each layer imports only downwards: the transports (http, rest) over the engine
// (graphql) over what they share (protocol); the assembled schema (graph) over the domains, which put their types
// on the engine's builder, over db and common.
const DOMAINS =
  '(hours|events|prices|tickets|orders|payments|mail|check-ins|accounts|privacy|webhooks|reports)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular-files',
      comment: 'No file imports itself through others.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-circular-folders',
      comment:
        'No folder imports itself through others: each layer imports only downwards, and no two domains import each other.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domains-below-transport',
      comment: 'A domain knows nothing of HTTP, REST, the OpenAPI document or the process wiring.',
      severity: 'error',
      from: { path: `^src/${DOMAINS}/` },
      to: { path: '^src/(http|rest|protocol|openapi|cli)/|^src/(app|server|prepare)\\.ts$' },
    },
    {
      name: 'db-below-domains',
      comment: "The database layer imports no domain: start-up's data is src/prepare.ts's.",
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: `^src/${DOMAINS}/` },
    },
    {
      name: 'db-reaches-no-domain',
      comment:
        'Nor through another file: a root file (mikro-orm.config.ts, which lists the entities) or any other path.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: `^src/${DOMAINS}/`, reachable: true },
    },
    {
      name: 'common-at-the-bottom',
      comment: 'common/ is what every layer shares: it imports nothing of the project above it.',
      severity: 'error',
      from: { path: '^src/common/' },
      to: { path: '^src/', pathNot: '^src/common/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'protocol-below-transports',
      comment:
        'What http, rest and graphql share imports none of them, nor the schema or a domain above them.',
      severity: 'error',
      from: { path: '^src/protocol/' },
      to: { path: `^src/(http|rest|graphql|graph|${DOMAINS.slice(1, -1)})/` },
    },
    {
      name: 'engine-below-domains',
      comment:
        'The engine (builder, scalars, plugins, runner) knows no domain: the domains put their types on its builder, and src/graph/ assembles them.',
      severity: 'error',
      from: { path: '^src/graphql/' },
      to: { path: `^src/(${DOMAINS.slice(1, -1)}|graph)/`, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domains-below-the-graph',
      comment: 'src/graph/ assembles every domain into the schema: no domain imports it.',
      severity: 'error',
      from: { path: `^src/${DOMAINS}/` },
      to: { path: '^src/graph/' },
    },
    {
      name: 'graphql-below-http-and-rest',
      comment: 'The engine is called by the transports, never the other way.',
      severity: 'error',
      from: { path: '^src/graphql/' },
      to: { path: '^src/(http|rest)/' },
    },
    {
      name: 'rest-beside-http',
      comment: 'The REST adapter and the HTTP transport meet only in src/app.ts.',
      severity: 'error',
      from: { path: '^src/(rest|http)/' },
      to: { path: '^src/(rest|http)/', pathNot: '^src/$1/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/db/migrations/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
