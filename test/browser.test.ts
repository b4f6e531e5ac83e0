// A real browser against a started server: Debian's Chromium driven by playwright-core, with background
// networking off (there is no internet here). /docs must render the reference from this server alone, and
// GraphiQL must run a query with credentials typed into its Headers editor and show the result.
// Screenshots go to test-artifacts/; with UPDATE_SCREENSHOTS=1 (or when missing) also to test/screenshots/,
// the copies the README shows.
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { simpleParser } from 'mailparser';
import { type BrowserContext, chromium, type Page, type Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, STAFF, startMuseum, upcomingOpenDay } from './support/museum.ts';
import { type RunningServer, spawnServerFor } from './support/server.ts';
import { readQrCode, smtpEnv, startSmtpCatcher } from './support/smtp.ts';
import { useMuseum } from './support/use-museum.ts';

const CHROMIUM = '/usr/bin/chromium';
// Locally the test needs Debian's chromium (`apt-get install chromium`); CI (.ci/run) installs it and the
// test must run there.
const skip = !existsSync(CHROMIUM) && process.env.CI !== 'true';

const root = new URL('..', import.meta.url);
const ARTIFACTS = fileURLToPath(new URL('test-artifacts/', root));
const SCREENSHOTS = fileURLToPath(new URL('test/screenshots/', root));

/** Keeps the screenshot as a test artifact, and refreshes the README's copy when asked (or missing). */
async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true });
  const artifact = join(ARTIFACTS, name);
  await page.screenshot({ path: artifact });
  if (process.env.UPDATE_SCREENSHOTS === '1' || !existsSync(join(SCREENSHOTS, name))) {
    await mkdir(SCREENSHOTS, { recursive: true });
    await copyFile(artifact, join(SCREENSHOTS, name));
  }
}

/** Replaces a GraphiQL (Monaco) editor's whole text, dropping the brackets and quotes it closes itself. */
async function replaceEditorText(page: Page, editor: ReturnType<Page['locator']>, text: string) {
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(text);
  await page.keyboard.press('Shift+ControlOrMeta+End');
  await page.keyboard.press('Delete');
}

describe.skipIf(skip)('in a real browser (Chromium)', () => {
  let server: RunningServer;
  let profile: string;
  let browser: BrowserContext;
  const authorization = basic(STAFF.name, STAFF.password);

  const museum = useMuseum();
  beforeAll(async () => {
    server = await spawnServerFor(museum);
    profile = await mkdtemp(join(tmpdir(), 'museum-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1280, height: 800 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  /** Opens a page that records every request it makes, and every error it throws or logs. */
  async function open(path: string) {
    const page = await browser.newPage();
    const requests: Request[] = [];
    const errors: string[] = [];
    page.on('request', (request) => requests.push(request));
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${server.url}${path}`);
    return {
      page,
      requests,
      errors,
      /** Requests for another host, sent or refused by the page's CSP: a page of ours asks for none. */
      offSite: () =>
        requests
          .filter((request) => !/^(blob|data):/.test(request.url()))
          .filter((request) => new URL(request.url()).origin !== server.url)
          .map((request) => `${request.url()} (${request.failure()?.errorText ?? 'sent'})`),
    };
  }

  it('/docs renders the API reference from this server alone', { timeout: 120_000 }, async () => {
    const { page, requests, errors, offSite } = await open('/docs');
    // The reference is rendered: its introduction, and the sidebar lists the operations of the document.
    await page.getByRole('heading', { name: 'Museum API', level: 1 }).waitFor({ timeout: 60_000 });
    await page.getByText('Get museum hours').first().waitFor({ timeout: 60_000 });
    for (const group of ['Events', 'Tickets'])
      await expect.poll(() => page.getByRole('button', { name: `Open Group - ${group}` }).count()).toBe(1);
    // Nothing of the bundle's own (a second, empty instance): no skeleton, no buttons to hosted services.
    for (const outside of ['Ask AI', 'Generate MCP', 'Deploy', 'Share', 'Configure'])
      expect(await page.getByRole('button', { name: outside }).count(), outside).toBe(0);
    await page.getByRole('button', { name: 'Open Group - Tickets' }).click();
    await page.getByRole('link', { name: /Buy museum tickets/ }).click();
    await page.getByRole('heading', { name: 'Buy museum tickets' }).waitFor();
    await expect.poll(() => page.getByText('buyMuseumTickets').first().isVisible()).toBe(true);
    await expect.poll(() => page.getByText('Test Request').first().isVisible()).toBe(true);
    await page.evaluate('document.fonts.ready');
    await screenshot(page, 'docs.png');
    expect(errors).toEqual([]);
    expect(requests.map((request) => request.url())).toContain(`${server.url}/openapi.json`);
    expect(offSite()).toEqual([]);
    await page.close();
  });

  it('/docs "Test Request" sends the credentials typed into the page and gets the answer', {
    timeout: 120_000,
  }, async () => {
    const { page, errors, offSite } = await open('/docs');
    const answers: { status: number; authorization: string | undefined }[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/museum-hours')
        answers.push({
          status: response.status(),
          authorization: response.request().headers().authorization,
        });
    });
    await page.getByText('Get museum hours').first().waitFor({ timeout: 60_000 });
    // The Authentication box's fields are editors (contenteditable), named by their labels.
    for (const [label, text] of [
      ['Username', STAFF.name],
      ['Password', STAFF.password],
    ] as const) {
      const id = await page.locator('label', { hasText: label }).first().getAttribute('for');
      await page.locator(`[id="${id}"]`).click();
      await page.keyboard.insertText(text);
    }
    await page
      .getByRole('link', { name: /Get museum hours/ })
      .first()
      .click();
    await page
      .getByRole('button', { name: /Test Request/ })
      .first()
      .click();
    await page.getByRole('button', { name: /^Send/ }).first().click();
    await expect.poll(() => answers, { timeout: 20_000 }).toContainEqual({ status: 200, authorization });
    expect(errors).toEqual([]);
    expect(offSite()).toEqual([]);
    await page.close();
  });

  it('/ is a front door: it names the service and leads to the reference', { timeout: 60_000 }, async () => {
    const { page, errors, offSite } = await open('/');
    await expect(page.title()).resolves.toBe('Museum API');
    for (const href of ['/docs', '/graphql', '/openapi.json', '/health/live', '/health/ready'])
      expect(await page.getByRole('link', { name: href, exact: true }).count(), href).toBe(1);
    await screenshot(page, 'front.png');
    await page.getByRole('link', { name: '/docs', exact: true }).click();
    await page.getByText('Get museum hours').first().waitFor({ timeout: 60_000 });
    expect(errors).toEqual([]);
    expect(offSite()).toEqual([]);
    await page.close();
  });

  it('a query without credentials from GraphiQL is answered 401 without the Basic challenge (no browser dialog)', {
    timeout: 120_000,
  }, async () => {
    const { page, offSite } = await open('/graphql');
    const answers: { status: number; challenge: string | null }[] = [];
    page.on('response', async (response) => {
      if (response.url() === `${server.url}/graphql` && response.request().method() === 'POST')
        answers.push({
          status: response.status(),
          challenge: await response.headerValue('www-authenticate'),
        });
    });
    const operation = page.getByRole('region', { name: 'Operation Editor' }).locator('.monaco-editor');
    await expect.poll(() => operation.innerText(), { timeout: 60_000 }).toContain('museumHours');
    // The example's operation name: GraphiQL may go on asking for the name it last saw, and with another
    // one answers "Cannot infer operation UpcomingWeek" without sending anything.
    await replaceEditorText(page, operation, 'query UpcomingWeek { museumHours(limit: 1) { date } }');
    await page.getByRole('button', { name: /Prettify query/ }).click();
    // One operation only in the editor (else GraphiQL cannot tell which to run).
    const operations = () => operation.innerText().then((text) => text.match(/\bquery\b/g)?.length ?? 0);
    await expect.poll(operations).toBe(1);
    await page.getByRole('button', { name: /Execute query/ }).click();
    const result = page.getByRole('region', { name: 'Result Window' });
    await expect.poll(() => result.innerText(), { timeout: 20_000 }).toContain('UNAUTHENTICATED');
    // The response listener records after reading a header, which can end after the result is shown.
    await expect.poll(() => answers, { timeout: 5_000 }).toContainEqual({ status: 401, challenge: null });
    expect(offSite()).toEqual([]);
    await page.close();
  });

  it('/openapi.json is served as the OpenAPI 3.1 document', { timeout: 60_000 }, async () => {
    const { page, offSite } = await open('/openapi.json');
    const text = await page.locator('pre').first().innerText();
    expect(JSON.parse(text)).toMatchObject({
      openapi: expect.stringMatching(/^3\.1/),
      info: expect.any(Object),
    });
    await screenshot(page, 'openapi.png');
    expect(offSite()).toEqual([]);
    await page.close();
  });

  it('GraphiQL at /graphql runs a query with the Authorization header and shows the result', {
    timeout: 120_000,
  }, async () => {
    const hours = await fetch(`${server.url}/museum-hours?limit=3`, { headers: { authorization } });
    const expected: { date: string; timeOpen: string }[] = await hours.json();
    expect(expected).toHaveLength(3);

    const { page, errors, offSite } = await open('/graphql');
    await expect(page.title()).resolves.toBe('Museum API — GraphiQL');
    // The example query and the header hint are what a newcomer sees first.
    const operation = page.getByRole('region', { name: 'Operation Editor' }).locator('.monaco-editor');
    await expect.poll(() => operation.innerText(), { timeout: 60_000 }).toContain('museumHours');
    await page.getByRole('button', { name: 'Headers', exact: true }).click();
    const headers = page.locator('.monaco-editor[data-uri$="headers.json"]');
    await expect.poll(() => headers.innerText()).toContain('Authorization');

    await replaceEditorText(page, operation, 'query Hours { museumHours(limit: 3) { date timeOpen } }');
    await replaceEditorText(page, headers, JSON.stringify({ Authorization: authorization }, null, 2));
    await page.getByRole('button', { name: /Prettify query/ }).click();
    await page.getByRole('button', { name: /Execute query/ }).click();

    const result = page.getByRole('region', { name: 'Result Window' });
    const shown = () => result.innerText().then((text) => text.replace(/\s+/g, ' '));
    for (const day of expected) {
      await expect.poll(shown, { timeout: 20_000 }).toContain(`"date": "${day.date}"`);
    }
    expect(await shown()).toContain(`"timeOpen": "${expected[0]!.timeOpen}"`);
    expect(await shown()).not.toContain('errors');
    await screenshot(page, 'graphiql.png');
    expect(errors).toEqual([]);
    expect(offSite()).toEqual([]);
    await page.close();
  });

  it('shows the tickets mail as a mail client would: its QR codes on screen read back as the tickets', {
    timeout: 60_000,
  }, async () => {
    const smtp = await startSmtpCatcher();
    const mailing = await startMuseum(smtpEnv(smtp));
    try {
      const placed = await mailing.rest('POST', '/orders', {
        body: {
          email: 'family@example.com',
          lines: [{ ticketType: 'general', ticketDate: upcomingOpenDay(1), quantity: 2 }],
        },
      });
      expect(placed.status).toBe(201);
      const [mail] = await smtp.receivedAtLeast(1);
      // As a mail client shows it: each cid: image resolved to its part.
      const shown = await simpleParser(mail!.raw);
      const page = await browser.newPage();
      await page.setViewportSize({ width: 640, height: 1000 });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.setContent(shown.html as string, { waitUntil: 'load' });
      await expect(page.title()).resolves.toBe('Your 2 tickets for Museum of Testing');
      const images = page.getByRole('img');
      expect(await images.count()).toBe(2);
      const read = [];
      for (let i = 0; i < 2; i++) read.push(readQrCode(await images.nth(i).screenshot()));
      expect(read.sort()).toEqual(
        placed.body.tickets.map((ticket: { confirmationCode: string }) => ticket.confirmationCode).sort(),
      );
      await page.evaluate(() => window.scrollTo(0, 0));
      await screenshot(page, 'mail.png');
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await mailing.close();
      await smtp.close();
    }
  });
});

describe('GraphiQL page (without a browser)', () => {
  const museum = useMuseum();

  it('is self-contained: no script, style, font or image from another host', async () => {
    const page = await museum.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const offSite = page.text.match(
      /\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\/[^"'\s>]+|@import\s+url\(\s*["']?(?:https?:)?\/\/[^)]+|url\(\s*["']?(?:https?:)?\/\/[^)]+/gi,
    );
    expect(offSite).toBeNull();
    expect(page.text).not.toMatch(/unpkg\.com|jsdelivr|cdnjs|fonts\.googleapis/);
    // The example query and the hint for the Authorization header are in the page's options.
    expect(page.text).toContain('<title>Museum API — GraphiQL</title>');
    expect(page.text).toContain('query UpcomingWeek');
    expect(page.text).toContain('\\"Authorization\\": \\"Basic <base64 of name:password>\\"');
  });
});
