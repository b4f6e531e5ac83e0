// The entry point of `npm start` and of production: plain JavaScript, so that a Node.js too old to run
// TypeScript still gets one clear line instead of a stack trace, then the TypeScript server.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `Node.js ${process.versions.node} is too old: the Museum API needs Node.js 24. \`npm ci\` installs it into node_modules and \`npm start\` uses it (or run node_modules/.bin/node); or install Node.js 24 LTS.`,
  );
  process.exit(1);
}
await import('./server.ts');
