/**
 * `robowatch incidents ack`: an incident acknowledged from a terminal, on PostgreSQL and
 * the embedded database alike; PagerDuty (a loopback receiver that checks each event as
 * the Events API v2 documents it) acknowledges its incident, the audit log names who did.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../support/cli.js';
import { createTestDatabase, databaseKinds } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';
import { FixtureServer } from '../support/fixture-server.js';
import { ServiceReceivers } from '../support/service-receivers.js';

const ROUTING_KEY = 'R0UT1NGKEY0123456789abcdefABCDEF';
const server = new FixtureServer();
const services = new ServiceReceivers();

beforeAll(async () => {
  await Promise.all([server.start(), services.start()]);
});
afterAll(async () => {
  await Promise.all([server.stop(), services.stop()]);
});

interface PagerDutyEvent {
  readonly event_action: string;
  readonly dedup_key: string;
  readonly routing_key: string;
}

describe.each(databaseKinds())('robowatch incidents ack on %s', (kind) => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    server.routes.clear();
    services.received.length = 0;
    await database?.close();
  });

  it('acknowledges an open incident with a note: PagerDuty acknowledges it, the list and the audit log say who', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-ack-'));
    const config = join(dir, 'robowatch.yaml');
    writeFileSync(
      config,
      `dataDir: ${join(dir, 'data')}
agents: [Googlebot]
sites:
  - {url: '${server.origin}', name: Shop, watch: [/, /private/x]}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
notify:
  events: [incidents]
  webhooks:
    - {url: '${services.url}/v2/enqueue', format: pagerduty, routingKey: ${ROUTING_KEY}}
`,
    );
    database = kind === 'postgres' ? await createTestDatabase('postgres') : undefined;
    const env = { DATABASE_URL: database?.url ?? '', ROBOWATCH_CONFIG: undefined, USER: 'sam' };
    const robowatch = (...args: string[]) => runInProcess([...args, '--config', config], { env });
    const host = new URL(server.origin).host;

    server.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /private/\n');
    const check = await robowatch('check');
    expect(check.stdout).toContain('Incident #1 opened');
    expect(check.stdout).toMatch(/\n1 notification sent\n$/);

    const ack = await robowatch(
      'incidents',
      'ack',
      '1',
      '--note',
      '  the deploy that blocked /private/ is being rolled back ',
      '--by',
      'alice',
    );
    expect([ack.code, ack.stderr]).toEqual([0, '']);
    expect(ack.stdout).toMatch(
      new RegExp(
        `^incident 1 on Shop \\(${host.replace('.', '\\.')}\\), open since \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ \\(.+\\): acknowledged by alice at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ: the deploy that blocked /private/ is being rolled back\\n1 notification sent\\n$`,
      ),
    );
    // PagerDuty acknowledges the incident it was paged for: one key across its life.
    const events = services.of('pagerduty') as PagerDutyEvent[];
    expect(services.received.filter((r) => r.refused !== null)).toEqual([]);
    expect(events.map((e) => e.event_action)).toEqual(['trigger', 'acknowledge']);
    expect(events[1]!.dedup_key).toBe(events[0]!.dedup_key);
    expect(events[1]!.routing_key).toBe(ROUTING_KEY);

    const listed = await robowatch('incidents');
    expect(listed.stdout.split('\n')[1]).toMatch(
      / open +Shop .* so far +by alice: the deploy that blocked \/private\/ is being rolled back +\/private\/x is blocked for Googlebot$/,
    );

    // Acknowledged again, without --by: the login name, the note replaced, the first time
    // kept, PagerDuty not told twice.
    const before = JSON.parse((await robowatch('incidents', '--json')).stdout) as {
      acknowledgedAt: string;
    };
    const again = await robowatch('incidents', 'ack', '1', '--note', 'rolled back', '--json');
    expect([again.code, again.stderr]).toEqual([0, '']);
    expect(JSON.parse(again.stdout)).toMatchObject({
      id: 1,
      state: 'open',
      acknowledgedBy: 'sam',
      acknowledgedAt: before.acknowledgedAt,
      note: 'rolled back',
    });
    expect(services.of('pagerduty')).toHaveLength(2);

    // The audit log names the command and who ran it.
    const audit = await robowatch('export', '--what', 'audit', '--format', 'jsonl');
    const entries = audit.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries).toHaveLength(2);
    for (const entry of entries)
      expect(entry).toMatchObject({
        actor: 'robowatch (sam)',
        via: 'cli',
        action: 'incident.ack',
        target: `incident #1 (${server.origin})`,
      });

    // What it cannot acknowledge is said in one line, and nothing is written.
    for (const [args, message] of [
      [['99', '--note', 'x'], 'there is no incident 99'],
      [
        ['one', '--note', 'x'],
        'the incident\'s id must be a positive whole number (robowatch incidents lists them), not "one"',
      ],
      [['1', '--note', '   '], 'note: must say what is being done about it'],
      [['1', '--note', 'x'.repeat(2001)], 'note: must be at most 2,000 characters'],
      [['1', '--note', 'x', '--by', 'b'.repeat(101)], 'by: must be at most 100 characters'],
      [
        ['1', '--note', 'x', '--state', 'open'],
        'incidents ack takes no --state: it is for listing incidents',
      ],
    ] as const) {
      const refused = await robowatch('incidents', 'ack', ...args);
      expect([refused.code, refused.stdout, refused.stderr]).toEqual([
        2,
        '',
        `robowatch: ${message}\n`,
      ]);
    }
    const after = await robowatch('incidents', '--json');
    expect(JSON.parse(after.stdout)).toMatchObject({ acknowledgedBy: 'sam', note: 'rolled back' });
    expect(services.of('pagerduty')).toHaveLength(2);
  });
});
