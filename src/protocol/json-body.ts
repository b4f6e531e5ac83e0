import type { FieldIssue } from '../common/errors.ts';
import { withoutAddresses } from '../common/text.ts';

// ignoreBOM keeps a byte order mark in the text, where JSON.parse refuses it (RFC 8259 §8.1: none is sent).
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export type JsonBody =
  | { ok: true; value: unknown; text: string }
  | { ok: false; detail: string; issue: FieldIssue };

/**
 * Parses a request body as RFC 8259 JSON, strictly: bytes that are not UTF-8 are refused (rather than
 * stored as U+FFFD), and so is an object that names one key twice (JSON.parse would keep the last one
 * silently, so a client and the server could read one body differently).
 */
export function parseJsonBody(bytes: Uint8Array): JsonBody {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return refusal('The request body is not valid UTF-8', '', 'must be UTF-8 encoded');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refusal('The request body is not valid JSON', '', 'must be valid JSON');
  }
  // The key as the client wrote it, but an e-mail address (a key can be anything) is not repeated back.
  const duplicate = duplicateKey(text);
  if (duplicate !== null) {
    const path = withoutAddresses(duplicate);
    return refusal(`${path || 'body'}: is given more than once`, path, 'is given more than once');
  }
  return { ok: true, value, text };
}

const refusal = (detail: string, path: string, message: string): JsonBody => ({
  ok: false,
  detail,
  issue: { path, message },
});

type Frame = { keys: Set<string>; key: string | null; expectingKey: boolean } | { index: number };

/**
 * The path (`input.dates`, `variables.i.ticketType`) of the first key that an object of this valid JSON
 * text names twice, or null. One pass over the text: strings are skipped whole, so braces inside them
 * do not count.
 */
export function duplicateKey(text: string): string | null {
  // Without two quoted keys in some object there is nothing to find: most bodies end here.
  if (!text.includes('{')) return null;
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let end = i + 1;
      while (text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c /* \ */ ? 2 : 1;
      const top = stack.at(-1);
      if (top && 'keys' in top && top.expectingKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(key)) return pathOf(stack.slice(0, -1), key);
        top.keys.add(key);
        top.key = key;
        top.expectingKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */) stack.push({ keys: new Set(), key: null, expectingKey: true });
    else if (c === 0x5b /* [ */) stack.push({ index: 0 });
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) stack.pop();
    else if (c === 0x2c /* , */) {
      const top = stack.at(-1);
      if (top && 'keys' in top) top.expectingKey = true;
      else if (top) top.index++;
    }
  }
  return null;
}

function pathOf(frames: Frame[], last: string): string {
  let path = '';
  for (const frame of frames) {
    if ('keys' in frame) path += path === '' ? frame.key : `.${frame.key}`;
    else path += `[${frame.index}]`;
  }
  return path === '' ? last : `${path}.${last}`;
}
