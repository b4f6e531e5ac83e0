// Redocly's own Arazzo workflows for the Museum API (test/fixtures/arazzo, copied unchanged from the
// reference) run with `redocly respect` against a started server. They are written for Redocly's mock
// server in 2023 with empty credentials (`Basic Og==`, which must stay a 401 here), so the test runs
// generated copies: this server's URL, a staff account's credentials and upcoming dates.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { addDays } from '../src/common/dates.ts';
import { basic, STAFF, todayUtc, upcomingOpenDay } from './support/museum.ts';
import { type RunningServer, spawnServerFor } from './support/server.ts';
import { useMuseum } from './support/use-museum.ts';

const root = new URL('..', import.meta.url);
const fixture = (name: string) => new URL(`test/fixtures/arazzo/${name}`, root);
const REFERENCE_OPENAPI = new URL('test/fixtures/museum-openapi.yaml', root);
const REDOCLY = fileURLToPath(new URL('node_modules/@redocly/cli/bin/cli.js', root));
const WORKFLOW_FILES = ['museum-api.arazzo.yaml', 'museum-tickets.arazzo.yaml'] as const;

interface Parameter {
  in?: string;
  name?: string;
  value?: unknown;
}
interface Criterion {
  condition: string;
  context?: string;
  type?: string;
}
interface Step {
  stepId: string;
  requestBody?: { payload?: Record<string, unknown> };
  successCriteria?: Criterion[];
}
interface ArazzoDocument {
  sourceDescriptions: { name: string; type: string; url: string; 'x-serverUrl'?: string }[];
  workflows: { workflowId: string; parameters?: Parameter[]; steps: Step[] }[];
}

/**
 * The reference's JSONPath criteria are written as comparisons (`$.name == 'x'`), which respect's JSONPath
 * cannot parse, so they fail whatever the response; respect expects a filter that selects the body when it
 * matches (Redocly/redocly-cli#2874). Same check, respect's spelling: `$[?(@.name == 'x')]`.
 */
function asRespectFilter(criterion: Criterion): Criterion {
  if (criterion.type !== 'jsonpath') return criterion;
  const comparison = /^\$\.([A-Za-z_]\w*)\s*(==|!=)\s*(.+)$/.exec(criterion.condition);
  if (!comparison) return criterion;
  const [, field, operator, value] = comparison;
  return { ...criterion, condition: `$[?(@.${field} ${operator} ${value})]` };
}

/**
 * The reference workflow with this server's URL, real credentials and dates our rules accept (a general
 * ticket on an upcoming open weekday, event dates in the future), and its JSONPath criteria in respect's
 * spelling. Every step, operation, payload field and other check is left as written.
 */
function adapt(document: ArazzoDocument, serverUrl: string, authorization: string): ArazzoDocument {
  const eventDates = [addDays(todayUtc(), 30), addDays(todayUtc(), 33)];
  for (const source of document.sourceDescriptions) {
    if (source.type === 'openapi') source['x-serverUrl'] = serverUrl;
  }
  for (const workflow of document.workflows) {
    for (const parameter of workflow.parameters ?? []) {
      if (parameter.in === 'header' && parameter.name === 'Authorization') parameter.value = authorization;
    }
    for (const step of workflow.steps) {
      if (step.successCriteria) step.successCriteria = step.successCriteria.map(asRespectFilter);
      const payload = step.requestBody?.payload;
      if (!payload) continue;
      if (Array.isArray(payload.dates)) payload.dates = eventDates;
      if (payload.ticketType === 'general') payload.ticketDate = upcomingOpenDay(0);
    }
  }
  return document;
}

describe('Redocly Arazzo workflows (redocly respect)', () => {
  let server: RunningServer;
  let workDir: string;

  const museum = useMuseum();
  beforeAll(async () => {
    server = await spawnServerFor(museum);
    // Same layout as the reference: the workflows in arazzo/, pointing at ../openapi.yaml.
    workDir = await mkdtemp(join(tmpdir(), 'museum-arazzo-'));
    await writeFile(join(workDir, 'openapi.yaml'), await readFile(REFERENCE_OPENAPI));
    await mkdir(join(workDir, 'arazzo'));
    for (const name of WORKFLOW_FILES) {
      const original = parse(await readFile(fixture(name), 'utf8')) as ArazzoDocument;
      const adapted = adapt(original, server.url, basic(STAFF.name, STAFF.password));
      await writeFile(join(workDir, 'arazzo', name), stringify(adapted));
    }
  });
  afterAll(async () => {
    await server?.stop();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  async function respect(name: string) {
    return promisify(execFile)(
      process.execPath,
      [REDOCLY, 'respect', join(workDir, 'arazzo', name), '--max-fetch-timeout', '10000'],
      {
        cwd: workDir,
        env: {
          ...process.env,
          REDOCLY_TELEMETRY: 'off',
          REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
          NO_COLOR: '1',
        },
        timeout: 120_000,
      },
    ).catch((error: { code?: number; stdout: string; stderr: string }) => {
      throw new Error(`redocly respect ${name} exited ${error.code}:\n${error.stdout}\n${error.stderr}`);
    });
  }

  it('the originals keep the reference mock server, empty credentials and 2023 dates', async () => {
    const original = await readFile(fixture('museum-api.arazzo.yaml'), 'utf8');
    expect(original).toContain('Basic Og==');
    expect(original).toContain('2023-09-05');
    const generated = await readFile(join(workDir, 'arazzo', 'museum-api.arazzo.yaml'), 'utf8');
    expect(generated).not.toContain('Og==');
    expect(generated).not.toContain('2023-');
    expect(generated).toContain(server.url);
  });

  it('empty credentials (`Basic Og==`, as the originals send) are a 401 here', async () => {
    const response = await fetch(`${server.url}/museum-hours`, { headers: { authorization: 'Basic Og==' } });
    expect(response.status).toBe(401);
  });

  it('museum-api.arazzo.yaml: hours, a ticket through the tickets workflow, and event CRUD', async () => {
    const { stdout, stderr } = await respect('museum-api.arazzo.yaml');
    const output = `${stdout}${stderr}`;
    expect(output).toContain('Workflows: 2 passed, 2 total');
    // get-museum-hours, buy-tickets (the tickets workflow), and the five steps of events-crud
    expect(output).toContain('Steps: 7 passed, 7 total');
  });

  it('museum-tickets.arazzo.yaml: buys a general ticket for an upcoming open day', async () => {
    const { stdout, stderr } = await respect('museum-tickets.arazzo.yaml');
    const output = `${stdout}${stderr}`;
    expect(output).toContain('Workflows: 1 passed, 1 total');
    expect(output).toContain('Steps: 1 passed, 1 total');
  });
});
