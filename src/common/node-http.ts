import { createRequire } from 'node:module';

// node:http through require(), not `import`: the ESM namespace of node:http reads every export, among them
// the WebSocket, CloseEvent and MessageEvent getters, and so loads Node's bundled undici, which this server
// never uses (nodejs/node#59686; src/app.ts keeps yoga from loading it too). require() leaves them lazy.
export const nodeHttp: typeof import('node:http') = createRequire(import.meta.url)('node:http');
