/** What a state's verdicts were computed for, as the sites table keeps it. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import { verdictsKey } from '../../../src/monitor/check/record-state.js';

const context = { file: 'robowatch.yaml', cwd: '/srv', env: {}, version: '9.9.9' };

describe('verdictsKey', () => {
  const config = parseConfig(
    `agents: [Googlebot, GPTBot]
sites:
  - {url: https://a.example, watch: [/, /shop]}
  - {url: https://b.example, watch: [/, /shop]}
  - {url: https://c.example, watch: [/, /shop], agents: [Googlebot]}
  - {url: https://d.example, watch: [/, /blog]}`,
    context,
  );
  const [a, b, c, d] = config.sites;

  it('is the key earlier versions stored: a site checked before is not computed again', () => {
    for (const site of config.sites) {
      const before = createHash('sha1')
        .update(JSON.stringify([site.watches, site.agents]))
        .digest('hex');
      expect(verdictsKey(site)).toBe(before);
    }
  });

  it('changes with the watches or the crawlers, and only with them', () => {
    expect(verdictsKey(a!)).not.toBe(verdictsKey(b!)); // other origin, other URLs
    expect(verdictsKey(a!)).not.toBe(verdictsKey(d!));
    const sameUrls = parseConfig(
      `agents: [Googlebot, GPTBot]\nsites: [{url: https://a.example, watch: [/, /shop], name: Shop}]`,
      context,
    ).sites[0]!;
    expect(verdictsKey(sameUrls)).toBe(verdictsKey(a!));
    const fewerCrawlers = parseConfig(
      `agents: [Googlebot]\nsites: [{url: https://c.example, watch: [/, /shop]}]`,
      context,
    ).sites[0]!;
    expect(verdictsKey(fewerCrawlers)).toBe(verdictsKey(c!));
  });
});
