// Nothing personal escapes (issue 39, point 6): every log line (at debug level), every span (tracing on) and
// every metrics exposition a run of the suite produces is recorded into one directory (test/support/
// leak-recording.ts, one file per kind and test process), and this scan reads them all when the run ends
// (vitest's globalSetup teardown): no e-mail address but the allowed ones below, no `Authorization` value, no
// fixture password. A finding fails the run, listed with the address masked. MUSEUM_TEST_LEAK_SCAN=off runs
// the suite without it; MUSEUM_TEST_LEAK_SCAN_DIR=<dir> records there and keeps the files.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the test processes record what the scan reads; null when the scan is off. */
    leakScanDir: string | null;
  }
}

/**
 * An e-mail address as the tests write them (`todd@example.com`, `payer-3-1764…@example.com`, `Todd@Example.com`).
 * Bounded (a local part of at most 64 characters, labels of at most 63, at most 8 labels before the last), so a
 * long line with an `@` in it costs linear time.
 */
const ADDRESS =
  /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,8}[A-Za-z]{2,24}/g;

/** Addresses that are nobody's: each may appear anywhere, for the reason given. */
export const ALLOWED_ADDRESSES: Record<string, string> = {
  'tickets@museum.invalid': "the museum's own sender when MAIL_FROM is not set (src/config.ts)",
  'tickets@museum.example': 'the MAIL_FROM the tests and the documentation set: the museum, not a buyer',
};

/** The fixtures' passwords (test/support/museum.ts; test/privacy/leak-scan.test.ts checks the list). */
export const FIXTURE_PASSWORDS = ['curator-password', 'visitor-password', 'other-password', 'door1-password'];

/** `Basic <base64 of name:password>` or `Bearer <token>`: an `Authorization` value as sent. */
const AUTHORIZATION = /\b(Basic|Bearer)\s+([A-Za-z0-9+/._~-]{8,}={0,2})/g;

function isBasicCredential(text: string): boolean {
  if (text.length % 4 !== 0) return false;
  const decoded = Buffer.from(text, 'base64');
  return decoded.toString('base64') === text && /^[^\p{Cc}:]*:[^\p{Cc}]*$/u.test(decoded.toString('utf8'));
}

export interface Finding {
  /** The file (`logs-1234.ndjson`) and line it was found on. */
  where: string;
  /** What was found there, in order: `address`, `authorization`, `password`. */
  kinds: ('address' | 'authorization' | 'password')[];
  /** The line around the first finding, with every finding masked (`t***@example.com`, `Basic ***`). */
  excerpt: string;
}

/** `t***@example.com`: enough to find the test that used it, not the address itself. */
const maskAddress = (address: string) => `${address[0]}***@${address.split('@')[1]}`;

/** What in one line would be a leak: null when nothing. */
export function scanLine(line: string, where: string): Finding | null {
  const found: { kind: Finding['kinds'][number]; index: number; length: number; shown: string }[] = [];
  if (line.includes('@'))
    for (const match of line.matchAll(ADDRESS))
      if (ALLOWED_ADDRESSES[match[0].toLowerCase()] === undefined)
        found.push({
          kind: 'address',
          index: match.index,
          length: match[0].length,
          shown: maskAddress(match[0]),
        });
  // `Basic realm="…"` is a challenge and `Basic credentials` prose: a credential is base64 of `name:password`.
  for (const match of line.matchAll(AUTHORIZATION))
    if (match[1] === 'Bearer' || isBasicCredential(match[2]!))
      found.push({
        kind: 'authorization',
        index: match.index,
        length: match[0].length,
        shown: `${match[1]} ***`,
      });
  for (const password of FIXTURE_PASSWORDS)
    for (let index = line.indexOf(password); index >= 0; index = line.indexOf(password, index + 1))
      found.push({ kind: 'password', index, length: password.length, shown: '***' });
  if (found.length === 0) return null;
  const kinds = found.map((f) => f.kind);
  // Masked from the end, so earlier indexes still hold; overlapping findings are masked once.
  found.sort((a, b) => b.index - a.index);
  let masked = line;
  let before = line.length;
  for (const f of found) {
    if (f.index + f.length > before) continue;
    masked = masked.slice(0, f.index) + f.shown + masked.slice(f.index + f.length);
    before = f.index;
  }
  const first = found.at(-1)!.index;
  return { where, kinds, excerpt: masked.slice(Math.max(0, first - 120), first + 240) };
}

export interface ScanResult {
  findings: Finding[];
  /** Lines read, by kind of record (logs, spans, metrics, webhooks, servers). */
  lines: Record<string, number>;
}

/** Scans every file the test processes recorded into `dir`. */
export function scanDirectory(dir: string): ScanResult {
  const findings: Finding[] = [];
  const lines: Record<string, number> = {};
  for (const file of readdirSync(dir).sort()) {
    const kind = file.replace(/-.*$/, '');
    const text = readFileSync(join(dir, file), 'utf8');
    let number = 0;
    for (const line of text.split('\n')) {
      number++;
      if (line === '') continue;
      lines[kind] = (lines[kind] ?? 0) + 1;
      const finding = scanLine(line, `${file}:${number}`);
      if (finding) findings.push(finding);
    }
  }
  return { findings, lines };
}

/** vitest's globalSetup: makes the directory the test processes record into, and scans it when the run ends. */
export default function setup(project: TestProject) {
  if (process.env.MUSEUM_TEST_LEAK_SCAN === 'off') {
    project.provide('leakScanDir', null);
    return;
  }
  const kept = process.env.MUSEUM_TEST_LEAK_SCAN_DIR;
  const dir = kept || mkdtempSync(join(tmpdir(), 'museum-leak-scan-'));
  if (kept) {
    rmSync(kept, { recursive: true, force: true });
    mkdirSync(kept, { recursive: true });
  }
  project.provide('leakScanDir', dir);
  return () => {
    if (!statSync(dir, { throwIfNoEntry: false })) return;
    const { findings, lines } = scanDirectory(dir);
    if (!kept) rmSync(dir, { recursive: true, force: true });
    const read = Object.entries(lines)
      .map(([kind, count]) => `${count} ${kind} lines`)
      .join(', ');
    if (findings.length === 0) {
      console.log(`\nLeak scan: nothing personal in ${read || 'nothing recorded'}.`);
      return;
    }
    const listed = findings
      .slice(0, 50)
      .map((finding) => `  ${finding.where} (${finding.kinds.join(', ')}): ${finding.excerpt}`)
      .join('\n');
    const more = findings.length > 50 ? `\n  … and ${findings.length - 50} more` : '';
    throw new Error(
      `Leak scan: ${findings.length} line(s) with findings in ${read}${kept ? ` (files kept in ${dir})` : ''}:\n${listed}${more}`,
    );
  };
}
