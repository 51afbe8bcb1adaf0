/** How each profile reads a fetch outcome (seeds 000, 001, 004), and what follows from it. */
import { describe, expect, it } from 'vitest';
import { classifyFetch } from '../../../src/policy/access.js';
import type { FetchOutcome } from '../../../src/policy/access.js';
import { computeVerdicts, resolveState } from '../../../src/policy/verdicts.js';
import type { FetchErrorKind } from '../../../src/policy/fetch-result.js';

const status = (s: number): FetchOutcome => ({ status: s, error: null });
const failure = (error: FetchErrorKind, s: number | null = null): FetchOutcome => ({
  status: s,
  error,
});

describe('classifyFetch', () => {
  it.each([
    //             google         rfc9309        legacy
    [status(200), 'ok', 'ok', 'ok'],
    [status(204), 'ok', 'ok', 'ok'],
    [status(400), 'unavailable', 'unavailable', 'unavailable'],
    [status(401), 'unavailable', 'unavailable', 'unreachable'],
    [status(403), 'unavailable', 'unavailable', 'unreachable'],
    [status(404), 'unavailable', 'unavailable', 'unavailable'],
    [status(410), 'unavailable', 'unavailable', 'unavailable'],
    [status(429), 'unreachable', 'unavailable', 'unavailable'],
    [status(500), 'unreachable', 'unreachable', 'defer'],
    [status(503), 'unreachable', 'unreachable', 'defer'],
    [status(599), 'unreachable', 'unreachable', 'defer'],
    [status(304), 'unreachable', 'unreachable', 'unreachable'],
    [status(600), 'unreachable', 'unreachable', 'unreachable'],
    [failure('too-many-redirects', 301), 'unavailable', 'unavailable', 'unavailable'],
    [failure('dns'), 'unreachable', 'unreachable', 'defer'],
    [failure('refused'), 'unreachable', 'unreachable', 'defer'],
    [failure('reset', 200), 'unreachable', 'unreachable', 'defer'],
    [failure('timeout'), 'unreachable', 'unreachable', 'defer'],
    [failure('tls'), 'unreachable', 'unreachable', 'defer'],
    [failure('blocked'), 'unreachable', 'unreachable', 'defer'],
    [failure('invalid-response', 200), 'unreachable', 'unreachable', 'defer'],
  ] as const)('%j → google %s, rfc9309 %s, legacy %s', (outcome, google, rfc9309, legacy) => {
    expect(classifyFetch(outcome, 'google')).toBe(google);
    expect(classifyFetch(outcome, 'rfc9309')).toBe(rfc9309);
    expect(classifyFetch(outcome, 'legacy')).toBe(legacy);
  });
});

describe('resolveState and verdicts', () => {
  const good = new TextEncoder().encode('User-agent: *\nDisallow: /private/\n');
  const agents = [
    { token: 'Googlebot', profile: 'google' as const },
    { token: 'Bingbot', profile: 'rfc9309' as const },
    { token: 'OldBot', profile: 'legacy' as const },
  ];
  const watches = ['https://e.com/', 'https://e.com/private/x'];
  const allowedByAgent = (state: Parameters<typeof computeVerdicts>[0]) =>
    Object.fromEntries(
      agents.map((a) => [a.token, computeVerdicts(state, watches, [a]).map((v) => v.allowed)]),
    );

  it('applies a 2xx body', () => {
    expect(
      allowedByAgent({ fetch: status(200), body: good, lastGoodBody: good, stale: false }),
    ).toEqual({
      Googlebot: [true, false],
      Bingbot: [true, false],
      OldBot: [true, false],
    });
  });

  it('disallows everything while unreachable, except legacy, which keeps its last copy', () => {
    expect(
      allowedByAgent({ fetch: status(503), body: null, lastGoodBody: good, stale: false }),
    ).toEqual({
      Googlebot: [false, false],
      Bingbot: [false, false],
      OldBot: [true, false],
    });
  });

  it('applies the last good copy after 30 days, or nothing if there never was one', () => {
    expect(
      allowedByAgent({ fetch: status(503), body: null, lastGoodBody: good, stale: true }),
    ).toEqual({
      Googlebot: [true, false],
      Bingbot: [true, false],
      OldBot: [true, false],
    });
    expect(
      resolveState({ fetch: status(503), body: null, lastGoodBody: null, stale: true }, 'google'),
    ).toEqual({
      kind: 'access',
      access: 'unavailable',
    });
    expect(
      resolveState(
        { fetch: failure('dns'), body: null, lastGoodBody: null, stale: false },
        'legacy',
      ),
    ).toEqual({
      kind: 'access',
      access: 'unreachable',
    });
  });

  it('gives each verdict its cause', () => {
    const [root, priv] = computeVerdicts(
      { fetch: status(200), body: good, lastGoodBody: good, stale: false },
      watches,
      [agents[0]!],
    );
    expect(root).toEqual({
      url: 'https://e.com/',
      agent: 'Googlebot',
      profile: 'google',
      allowed: true,
      cause: null,
    });
    expect(priv!.cause).toEqual({
      type: 'rule',
      directive: 'disallow',
      pattern: '/private/',
      line: 2,
    });
    const [down] = computeVerdicts(
      { fetch: status(500), body: null, lastGoodBody: null, stale: false },
      watches,
      [agents[0]!],
    );
    expect(down!.cause).toEqual({ type: 'access', access: 'unreachable' });
  });
});
