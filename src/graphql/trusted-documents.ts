import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** Trusted documents by the hex SHA-256 of their text. */
export type TrustedDocuments = ReadonlyMap<string, string>;

/**
 * Reads a trusted-documents manifest as GraphQL Codegen's client preset writes it (`persisted-documents.json`:
 * `{ "<sha256 hex>": "<document>" }`; keys may also be written `sha256:<hex>`). Every key must be the hash
 * of its document, so an id can never name another text than the one a client was built with.
 */
export function loadTrustedDocuments(path: string): TrustedDocuments {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`MUSEUM_TRUSTED_DOCUMENTS: cannot read ${path} as JSON (${(error as Error).message})`);
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest))
    throw new Error(
      `MUSEUM_TRUSTED_DOCUMENTS: ${path} must hold one JSON object, { "<sha256>": "<document>" }`,
    );
  const documents = new Map<string, string>();
  for (const [key, document] of Object.entries(manifest)) {
    const hex = key.replace(/^sha256:/, '');
    if (typeof document !== 'string' || !/^[0-9a-f]{64}$/.test(hex))
      throw new Error(`MUSEUM_TRUSTED_DOCUMENTS: entry "${key}" must be a SHA-256 hex key with a document`);
    if (createHash('sha256').update(document).digest('hex') !== hex)
      throw new Error(`MUSEUM_TRUSTED_DOCUMENTS: entry "${key}" is not the SHA-256 of its document`);
    documents.set(hex, document);
  }
  return documents;
}
