/**
 * A SIGHUP reload applies the file's sites and settings, except those the process keeps
 * until it restarts: the log names each of those that changed.
 */
import { describe, expect, it } from 'vitest';
import {
  mailChange,
  restartChangedSince,
  restartFingerprints,
  restartNeededFor,
} from '../../../src/cli/reload.js';
import { parseConfig } from '../../../src/config/validate.js';
import { keepingRestartSettings, withRegistry } from '../../../src/config/config.js';
import { readRegistry } from '../../../src/config/registry.js';
import { fixturePath } from '../../support/fixtures.js';
import { readFileSync } from 'node:fs';

const registryFixture = readRegistry(
  readFileSync(fixturePath('registry/ai-robots.2026-02.json')),
  'https://registry.example/robots.json',
  '2026-02-15T04:00:00.000Z',
);
const parse = (text: string) =>
  parseConfig(text, { file: 'robowatch.yaml', cwd: '/srv', env: {}, version: 'test' });

const running = parse(`
dataDir: /srv/data
sites: [{url: https://shop.example, watch: [/]}]
schedule: {check: '0 3 * * *', timezone: UTC}
fetch: {allowPrivateAddresses: false, concurrency: 16}
notify:
  retry: {baseDelayMs: 30000}
  email: {smtp: 'smtp://mail.shop.example:25', from: robowatch@shop.example, to: [seo@shop.example]}
web: {listen: 127.0.0.1:8080}
`);
// Every setting that needs a restart changed (DATABASE_URL comes from the environment).
const next = parse(`
dataDir: /srv/other
sites: [{url: https://shop.example, watch: [/]}, {url: https://blog.example, watch: [/]}]
schedule: {check: '0 */6 * * *', timezone: Europe/Paris, leaseMs: 60000, retentionDays: 30}
fetch: {allowPrivateAddresses: true, concurrency: 4}
notify:
  retry: {baseDelayMs: 60000}
  unhealthyAfterMs: 60000
  alertLogDays: 7
  email: {smtp: 'smtp://relay.example:587', from: alerts@relay.example, to: [lead@shop.example]}
web: {listen: 0.0.0.0:9090, token: a-token-of-sixteen-characters}
archive: {url: https://wayback.example, requestsPerMinute: 6}
`);
// Only settings a reload applies changed.
const applied = parse(`
dataDir: /srv/data
sites: [{url: https://shop.example, watch: [/]}]
schedule: {check: '0 */6 * * *', digest: '0 9 * * 1', timezone: UTC, auditDays: 30}
fetch: {allowPrivateAddresses: false, concurrency: 16}
notify:
  retry: {baseDelayMs: 60000, maxDelayMs: 7200000}
  flapWindow: 1d
  coverage: {minUrls: 5, minShare: 0.02}
  alertLogDays: 7
  remind: 4h
  unhealthyAfterMs: 600000
  email: {smtp: 'smtp://relay.example:587', from: alerts@relay.example, to: [lead@shop.example]}
  webhooks: [{url: https://hooks.example/robowatch}]
web: {listen: 127.0.0.1:8080}
registry: {url: https://registry.example/robots.json, refresh: '0 5 * * *'}
backfill: {onAdd: true}
agents: [Googlebot, GPTBot]
`);

describe('a reload and the settings that apply at the next start', () => {
  it('says each one that changed', () => {
    expect(restartNeededFor(running, next)).toEqual([
      'dataDir',
      'fetch',
      'schedule.timezone',
      'schedule.leaseMs',
      'schedule.retentionDays',
      'web',
      'archive',
    ]);
  });

  it('names none of those a reload applies', () => {
    expect(restartNeededFor(running, applied)).toEqual([]);
  });

  it('keeps each of them for the running process, and takes the rest of the file', () => {
    const kept = keepingRestartSettings(next, running);
    expect(restartNeededFor(running, kept)).toEqual([]);
    expect(kept.sites.map((s) => s.origin)).toEqual([
      'https://shop.example',
      'https://blog.example',
    ]);
    expect(kept.siteDefaults.schedule).toBe('0 */6 * * *');
    expect(kept.notify.alertLogDays).toBe(7);
    // The reloaded mail server, sender and recipients: email goes through them at once.
    expect(kept.notify.email).toEqual({
      smtp: 'smtp://relay.example:587',
      from: 'alerts@relay.example',
    });
    expect(kept.notify.defaults.email).toEqual(['lead@shop.example']);
    // A reload that drops notify.email drops the mail server too.
    expect(keepingRestartSettings(parse('sites: []\n'), running).notify.email).toBeUndefined();
    // A later registry update resolves it again, as it does a file just read.
    expect(withRegistry(kept, registryFixture).registry.active.version).toEqual(
      registryFixture.version,
    );
  });
});

describe('what a process records of the settings it started with', () => {
  it('keeps a fingerprint of each, which tells the changed ones and holds no value', () => {
    const secret = parse(
      `web: {listen: 127.0.0.1:8080, token: a-token-of-sixteen-characters}\nsites: []\n`,
    );
    const recorded = restartFingerprints(secret);
    expect(Object.keys(recorded)).toEqual([
      'dataDir',
      'DATABASE_URL',
      'fetch',
      'schedule.timezone',
      'schedule.leaseMs',
      'schedule.retentionDays',
      'web',
      'archive',
    ]);
    expect(JSON.stringify(recorded)).not.toContain('a-token-of-sixteen-characters');
    expect(restartChangedSince(recorded, secret)).toEqual([]);
    expect(restartChangedSince(restartFingerprints(running), next)).toEqual(
      restartNeededFor(running, next),
    );
    // One that a process of an earlier version did not record may have changed: named.
    const { web: _web, ...older } = recorded;
    expect(restartChangedSince(older, secret)).toEqual(['web']);
  });
});

describe('what a reload says of email', () => {
  it('names the mail server (never its password) and sender it now sends with', () => {
    const moved = parse(
      "notify: {email: {smtp: 'smtps://robowatch:s3cret@relay.example:465', from: alerts@relay.example}}\n",
    );
    expect(mailChange(running, moved)).toEqual({
      level: 'info',
      message: 'email now goes through smtps://relay.example:465, from alerts@relay.example',
    });
  });

  it('warns when the file no longer names one, and says nothing when it did not change', () => {
    expect(mailChange(running, parse('sites: []\n'))).toEqual({
      level: 'warn',
      message:
        'notify.email removed: email alerts and digests wait and are retried until the file names a mail server again',
    });
    expect(mailChange(running, applied)).toMatchObject({ level: 'info' });
    expect(mailChange(running, running)).toBeUndefined();
    expect(mailChange(parse('sites: []\n'), parse('sites: []\n'))).toBeUndefined();
  });
});
