// Trusted documents from the manifests front-end tools write (issue 41): Apollo's persisted query manifest
// made by @apollo/generate-persisted-query-manifest from a front-end's documents and run by hash alone from
// Apollo Client's persisted-query link; Relay's queryMap.json (MD5 ids, sent as documentId); a directory of
// manifests; and the manifests refused at start-up.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import {
  generatePersistedQueryManifest,
  type PersistedQueryManifest,
} from '@apollo/generate-persisted-query-manifest';
import { type DocumentNode, getOperationAST } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { basic, startMuseum, type TestMuseum, VISITOR } from './support/museum.ts';

const HOURS = `query FrontHours {
  museumHours(limit: 2) { date timeOpen }
}`;
const ME = `query FrontMe {
  me { name role }
}`;
const RELAY_WHO = 'query RelayWho { me { name } }';
const md5 = (text: string) => createHash('md5').update(text).digest('hex');

let directory: string;
let apolloManifest: PersistedQueryManifest;
let museum: TestMuseum;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'museum-manifests-'));
  const sources = join(directory, 'src');
  const manifests = join(directory, 'manifests');
  for (const dir of [sources, manifests]) rmSync(dir, { recursive: true, force: true });
  const { mkdirSync } = await import('node:fs');
  mkdirSync(sources);
  mkdirSync(manifests);
  writeFileSync(join(sources, 'hours.graphql'), HOURS);
  writeFileSync(join(sources, 'me.graphql'), ME);
  // As the front-end's build runs it: the documents in, Apollo's manifest out.
  apolloManifest = await generatePersistedQueryManifest(
    { documents: [join(sources, '*.graphql')], output: join(manifests, 'persisted-query-manifest.json') },
    undefined,
  );
  writeFileSync(join(manifests, 'persisted-query-manifest.json'), JSON.stringify(apolloManifest));
  // Relay's relay-compiler writes { "<md5 of the text>": "<text>" } (persistConfig.file).
  writeFileSync(join(manifests, 'queryMap.json'), JSON.stringify({ [md5(RELAY_WHO)]: RELAY_WHO }));
  museum = await startMuseum({ MUSEUM_TRUSTED_DOCUMENTS: manifests, MUSEUM_TRUSTED_DOCUMENTS_ONLY: 'true' });
});
afterAll(async () => {
  await museum?.close();
  rmSync(directory, { recursive: true, force: true });
});

/** Apollo Client as a front-end built with the manifest sets it up: each operation sent by its id alone. */
function persistedClient() {
  const ids = new Map(apolloManifest.operations.map((operation) => [operation.name, operation.id]));
  const sent: unknown[] = [];
  const client = new ApolloClient({
    cache: new InMemoryCache(),
    link: new PersistedQueryLink({
      generateHash: (document: DocumentNode) => ids.get(getOperationAST(document)?.name?.value ?? '') ?? '',
    }).concat(
      new HttpLink({
        uri: `${museum.url}/graphql`,
        headers: { authorization: basic(VISITOR.name, VISITOR.password) },
        fetch: async (input, init) => {
          sent.push(JSON.parse(String(init?.body)));
          return fetch(input, init);
        },
      }),
    ),
  });
  return { client, sent };
}

describe("front-end tools' manifests", () => {
  it("Apollo's manifest, made by its generator: Apollo Client runs each document by its hash alone", async () => {
    expect(apolloManifest).toMatchObject({ format: 'apollo-persisted-query-manifest', version: 1 });
    expect(apolloManifest.operations.map((operation) => operation.name).sort()).toEqual([
      'FrontHours',
      'FrontMe',
    ]);
    const { client, sent } = persistedClient();
    const me = await client.query({ query: gql(ME) });
    expect(me.data).toMatchObject({ me: { name: VISITOR.name, role: 'visitor' } });
    const hours = await client.query({ query: gql(HOURS) });
    expect((hours.data as { museumHours: unknown[] }).museumHours).toHaveLength(2);
    // Only hashes went over the wire: a visitor may run nothing but trusted documents here.
    expect(sent).toHaveLength(2);
    for (const body of sent) {
      expect(body).not.toHaveProperty('query');
      expect(body).toMatchObject({
        extensions: { persistedQuery: { version: 1, sha256Hash: expect.any(String) } },
      });
    }
  });

  it('a document outside the manifest is refused, even when the link falls back to its text', async () => {
    const { client } = persistedClient();
    await expect(client.query({ query: gql('query Stranger { me { name } }') })).rejects.toThrow(
      /Only trusted documents may be run here/,
    );
  });

  it("Relay's queryMap.json, in the same directory: its ids sent as documentId", async () => {
    const answer = await museum.request('POST', '/graphql', {
      as: 'visitor',
      body: { documentId: md5(RELAY_WHO) },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { me: { name: VISITOR.name } } });
  });

  it('refuses at start-up a manifest whose ids are not the hashes of their documents, and an empty directory', () => {
    const forged = join(directory, 'forged.json');
    writeFileSync(
      forged,
      JSON.stringify({
        format: 'apollo-persisted-query-manifest',
        version: 1,
        operations: [{ id: md5(ME).padEnd(64, '0'), name: 'FrontMe', type: 'query', body: ME }],
      }),
    );
    expect(() => loadConfig({ MUSEUM_TRUSTED_DOCUMENTS: forged })).toThrow(
      /MUSEUM_TRUSTED_DOCUMENTS: entry "[0-9a-f]{64}" is not the SHA-256 of its document/,
    );
    writeFileSync(forged, JSON.stringify({ 'not-a-hash': ME }));
    expect(() => loadConfig({ MUSEUM_TRUSTED_DOCUMENTS: forged })).toThrow(
      /entry "not-a-hash" must be a hash key with a document/,
    );
    const empty = mkdtempSync(join(directory, 'empty-'));
    expect(() => loadConfig({ MUSEUM_TRUSTED_DOCUMENTS: empty })).toThrow(
      /a directory without any \.json manifest/,
    );
  });
});
