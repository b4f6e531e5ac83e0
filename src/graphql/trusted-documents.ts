import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Trusted documents by the id clients send for them (`documentId`, or Apollo's `sha256Hash`). */
export type TrustedDocuments = ReadonlyMap<string, string>;

/** The hashes an id may be, by its length in hex digits: each id must be the hash of its document. */
const HASHES: Record<number, { algorithm: string; name: string }> = {
  32: { algorithm: 'md5', name: 'MD5' },
  40: { algorithm: 'sha1', name: 'SHA-1' },
  64: { algorithm: 'sha256', name: 'SHA-256' },
};

const fail = (detail: string): never => {
  throw new Error(`MUSEUM_TRUSTED_DOCUMENTS: ${detail}`);
};

/**
 * Reads the trusted documents from a manifest, or from every `.json` manifest of a directory, in the formats
 * front-end tools write:
 * - GraphQL Codegen's client preset (`persisted-documents.json`): `{ "<sha256>": "<document>" }`, keys
 *   possibly written `sha256:<hex>`;
 * - Relay's `queryMap.json` (relay-compiler's `persistConfig.file`): `{ "<id>": "<document>" }`, the id the
 *   MD5 (its default), SHA-1 or SHA-256 of the text;
 * - Apollo's persisted query manifest (`@apollo/generate-persisted-query-manifest`):
 *   `{ "format": "apollo-persisted-query-manifest", "version": 1, "operations": [{ "id", "body", … }] }`.
 * Every id must be the hash of its document, so an id can never name another text than the one a client was
 * built with.
 */
export function loadTrustedDocuments(path: string): TrustedDocuments {
  let files: string[];
  try {
    files = statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((name) => name.endsWith('.json'))
          .sort()
          .map((name) => join(path, name))
      : [path];
  } catch (error) {
    return fail(`cannot read ${path} (${(error as Error).message})`);
  }
  if (files.length === 0) fail(`${path} is a directory without any .json manifest`);
  // An id is the hash of its text: two manifests that share one share its document too.
  return new Map(files.flatMap(entriesOf));
}

function entriesOf(file: string): [string, string][] {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return fail(`cannot read ${file} as JSON (${(error as Error).message})`);
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest))
    return fail(`${file} must hold one JSON object, { "<sha256>": "<document>" } or Apollo's manifest`);
  const apollo = manifest as { format?: unknown; version?: unknown; operations?: unknown };
  if (apollo.format === 'apollo-persisted-query-manifest') {
    if (apollo.version !== 1 || !Array.isArray(apollo.operations))
      fail(`${file}: an Apollo persisted query manifest of version 1, with its operations, is expected`);
    return (apollo.operations as { id?: unknown; body?: unknown }[]).map(({ id, body }, index) => {
      if (typeof id !== 'string' || typeof body !== 'string')
        fail(`${file}: operation ${index} must have a string id and body`);
      return checked(id as string, id as string, body as string);
    });
  }
  return Object.entries(manifest).map(([key, document]) => {
    if (typeof document !== 'string') return fail(`entry "${key}" must be a hash key with a document`);
    return checked(key, key.replace(/^sha256:/, ''), document);
  });
}

/** The entry as [id, document], once its id is found to be the hash of its document. */
function checked(key: string, id: string, document: string): [string, string] {
  const hash = /^[0-9a-f]+$/.test(id) ? HASHES[id.length] : undefined;
  if (!hash) return fail(`entry "${key}" must be a hash key with a document`);
  if (createHash(hash.algorithm).update(document).digest('hex') !== id)
    fail(`entry "${key}" is not the ${hash.name} of its document`);
  return [id, document];
}
