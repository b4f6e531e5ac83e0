// The entry point of `npm start` and of production: plain JavaScript, so that a Node.js too old to run
// TypeScript still gets one clear line instead of a stack trace, then the TypeScript server.
import { execFileSync } from 'node:child_process';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `Node.js ${process.versions.node} is too old: the Museum API needs Node.js 24. \`npm ci\` installs it into node_modules and \`npm start\` uses it (or run node_modules/.bin/node); or install Node.js 24 LTS.`,
  );
  process.exit(1);
}

// Node strips TypeScript's types with a WebAssembly module whose memory only grows (~10 MB that the server
// would hold for good): src/ is stripped by the same function in a short-lived process instead, and each
// module is handed to Node as JavaScript once. Should that fail, Node strips the files itself as usual.
// What the server imports: every file of src/ and the project's mikro-orm.config.ts.
const STRIP_SOURCES = `
  const { stripTypeScriptTypes } = require('node:module');
  const { readdirSync, readFileSync } = require('node:fs');
  const { join } = require('node:path');
  const [srcDir, ...files] = process.argv.slice(1);
  for (const entry of readdirSync(srcDir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts')) files.push(join(entry.parentPath, entry.name));
  }
  process.stdout.write(JSON.stringify(files.map((path) => [path, stripTypeScriptTypes(readFileSync(path, 'utf8'))])));`;

function strippedSources() {
  try {
    const output = execFileSync(
      process.execPath,
      [
        '--no-warnings',
        '-e',
        STRIP_SOURCES,
        fileURLToPath(new URL('.', import.meta.url)),
        fileURLToPath(new URL('../mikro-orm.config.ts', import.meta.url)),
      ],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    return new Map(JSON.parse(output));
  } catch {
    return new Map();
  }
}

const stripped = strippedSources();
module.registerHooks({
  load(url, context, nextLoad) {
    const path = url.startsWith('file:') ? fileURLToPath(url) : undefined;
    const source = path === undefined ? undefined : stripped.get(path);
    if (source === undefined) return nextLoad(url, context);
    stripped.delete(path);
    return { format: 'module', source, shortCircuit: true };
  },
});

await import('./server.ts');
