// Trusted documents (issue 14): a front-end names its queries by documentId, over POST or GET (where they
// revalidate with ETag/304 like REST reads); with MUSEUM_TRUSTED_DOCUMENTS_ONLY a visitor runs nothing else.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { basic, STAFF, startMuseum, type TestMuseum, VISITOR } from './support/museum.ts';
import { spawnServerFor } from './support/server.ts';

const HOURS = 'query Hours($limit: Int) { museumHours(limit: $limit) { date timeOpen } }';
const ME = 'query Me { me { name } }';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

let directory: string;
let manifest: string;
let museum: TestMuseum;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'museum-trusted-'));
  manifest = join(directory, 'persisted-documents.json');
  // As GraphQL Codegen's client preset writes it: hex keys (a sha256: prefix is read too).
  writeFileSync(manifest, JSON.stringify({ [sha256(HOURS)]: HOURS, [`sha256:${sha256(ME)}`]: ME }));
  museum = await startMuseum({ MUSEUM_TRUSTED_DOCUMENTS: manifest, MUSEUM_TRUSTED_DOCUMENTS_ONLY: 'true' });
});
afterAll(async () => {
  await museum?.close();
  rmSync(directory, { recursive: true, force: true });
});

const post = (body: unknown, as: 'visitor' | 'staff' | 'anonymous' = 'visitor', headers = {}) =>
  museum.request('POST', '/graphql', { as, body, headers });
const get = (query: Record<string, string>, headers: Record<string, string> = {}) =>
  museum.request('GET', `/graphql?${new URLSearchParams(query)}`, {
    as: 'visitor',
    headers: { accept: 'application/json', ...headers },
  });

describe('trusted documents', () => {
  it('runs a document by documentId over POST, with its variables', async () => {
    const answer = await post({ documentId: `sha256:${sha256(HOURS)}`, variables: { limit: 2 } });
    expect(answer.status).toBe(200);
    expect(answer.body.data.museumHours).toHaveLength(2);
    const me = await post({ documentId: `sha256:${sha256(ME)}` });
    expect(me.body).toEqual({ data: { me: { name: VISITOR.name } } });
  });

  it('runs one over GET, as a read: private, an ETag, and 304 on revalidation', async () => {
    const query = { documentId: `sha256:${sha256(HOURS)}`, variables: JSON.stringify({ limit: 3 }) };
    const first = await get(query);
    expect(first.status).toBe(200);
    expect(first.body.data.museumHours).toHaveLength(3);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const again = await get(query, { 'if-none-match': tag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(tag);
    const other = await get({ ...query, variables: JSON.stringify({ limit: 4 }) }, { 'if-none-match': tag });
    expect(other.status).toBe(200);
  });

  it('says clearly when a documentId is unknown', async () => {
    const unknown = await post({ documentId: `sha256:${'0'.repeat(64)}` });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({
      message: 'Unknown documentId: it names none of the trusted documents',
      extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' },
    });
  });

  it('lets a visitor run nothing else, not even what staff ran before; staff and introspection keep full access', async () => {
    const own = '{ museumHours(limit: 1) { date } }';
    const staff = await post({ query: own }, 'staff');
    expect(staff.body.data.museumHours).toHaveLength(1);
    expect((await post({ query: own }, 'staff')).body.data.museumHours).toHaveLength(1);
    for (let attempt = 0; attempt < 2; attempt++) {
      const visitor = await post({ query: own });
      expect(visitor.status).toBe(403);
      expect(visitor.body.errors[0]).toMatchObject({
        message: 'Only trusted documents may be run here: send a documentId',
        extensions: { code: 'FORBIDDEN' },
      });
    }
    const introspection = await post({ query: '{ __schema { queryType { name } } }' }, 'anonymous');
    expect(introspection.body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
  });

  it('refuses a mutation over GET (405) and a POST that is not JSON (415)', async () => {
    const mutation = await museum.request(
      'GET',
      `/graphql?${new URLSearchParams({ query: 'mutation { deleteSpecialEvent(eventId: "00000000-0000-4000-8000-000000000000") }' })}`,
      { headers: { accept: 'application/json', authorization: basic(STAFF.name, STAFF.password) } },
    );
    expect(mutation.status).toBe(405);
    const plain = await museum.request('POST', '/graphql', {
      as: 'visitor',
      rawBody: JSON.stringify({ documentId: `sha256:${sha256(ME)}` }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(plain.status).toBe(415);
  });

  it('refuses a manifest whose keys are not the hashes of their documents, at start-up', () => {
    const forged = join(directory, 'forged.json');
    writeFileSync(forged, JSON.stringify({ [sha256(ME)]: HOURS }));
    expect(() => loadConfig({ MUSEUM_TRUSTED_DOCUMENTS: forged })).toThrow(
      /MUSEUM_TRUSTED_DOCUMENTS: entry "[0-9a-f]{64}" is not the SHA-256 of its document/,
    );
    expect(() => loadConfig({ MUSEUM_TRUSTED_DOCUMENTS_ONLY: 'true' })).toThrow(
      /MUSEUM_TRUSTED_DOCUMENTS_ONLY needs MUSEUM_TRUSTED_DOCUMENTS/,
    );
  });

  it('over a real socket, a visitor cannot replay a query staff ran once it is prepared and compiled', async () => {
    const server = await spawnServerFor(museum, {
      MUSEUM_TRUSTED_DOCUMENTS: manifest,
      MUSEUM_TRUSTED_DOCUMENTS_ONLY: 'true',
    });
    try {
      const send = (authorization: string, body: unknown) =>
        fetch(`${server.url}/graphql`, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const staff = basic(STAFF.name, STAFF.password);
      const created = await send(staff, {
        query: 'mutation($input: CreateAccountInput!) { createAccount(input: $input) { name } }',
        variables: { input: { name: 'walker', role: 'visitor', password: 'walker-password' } },
      });
      expect(created.status).toBe(200);
      const own = { query: '{ museumHours(limit: 2) { date } }' };
      for (let i = 0; i < 2; i++) expect((await send(staff, own)).status).toBe(200);
      const visitor = await send(basic('walker', 'walker-password'), own);
      expect(visitor.status).toBe(403);
      expect((await visitor.json()).errors[0].extensions.code).toBe('FORBIDDEN');
    } finally {
      await server.stop();
    }
  }, 60_000);
});
