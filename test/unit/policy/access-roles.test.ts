/**
 * Who may do what: a person limited to tags sees a site with one of them; single sign-on
 * gives the highest role a person's groups give, and the tags their groups give (never to
 * an admin); and a user cannot be an admin limited to tags.
 */
import { describe, expect, it } from 'vitest';
import { seesSite, ssoAccess, tagsProblem } from '../../../src/policy/access-roles.js';
import type { SsoMapping } from '../../../src/policy/access-roles.js';

const MAPPING: SsoMapping = {
  roles: { admin: ['seo-admins'], editor: ['seo-team'], viewer: ['agency', 'readers'] },
  tags: { agency: ['client-a'], 'agency-b': ['client-b'], 'seo-admins': ['ignored'] },
};

describe('who sees which site', () => {
  it('sees every site without tags, and a site with one of theirs otherwise', () => {
    expect(seesSite([], [])).toBe(true);
    expect(seesSite([], ['x'])).toBe(true);
    expect(seesSite(['client-a'], ['client-a', 'shop'])).toBe(true);
    expect(seesSite(['client-a'], ['client-b'])).toBe(false);
    expect(seesSite(['client-a'], [])).toBe(false);
  });

  it('limits viewers and editors to well-formed tags, never admins', () => {
    expect(tagsProblem('viewer', ['client-a'])).toBeNull();
    expect(tagsProblem('admin', [])).toBeNull();
    expect(tagsProblem('admin', ['client-a'])).toMatch(/cannot be limited to tags/);
    expect(tagsProblem('editor', ['no spaces'])).toBe(
      '"no spaces" is not a tag: letters, digits, "-", "_" or "." (at most 40)',
    );
    expect(
      tagsProblem(
        'viewer',
        Array.from({ length: 21 }, (_, i) => `t${i}`),
      ),
    ).toMatch(/at most 20 tags/);
  });
});

describe('single sign-on groups', () => {
  it('gives the highest role any group gives, and nothing without one', () => {
    expect(ssoAccess(['readers', 'seo-team'], MAPPING)).toEqual({ role: 'editor', tags: [] });
    expect(ssoAccess(['seo-admins', 'agency'], MAPPING)).toEqual({ role: 'admin', tags: [] });
    expect(ssoAccess(['sales'], MAPPING)).toBeNull();
    expect(ssoAccess([], MAPPING)).toBeNull();
    const anyone = { ...MAPPING, roles: { ...MAPPING.roles, viewer: ['*'] } };
    expect(ssoAccess([], anyone)).toEqual({ role: 'viewer', tags: [] });
  });

  it('limits to the tags of every group given some, sorted, once each', () => {
    expect(ssoAccess(['agency', 'agency-b'], MAPPING)).toEqual({
      role: 'viewer',
      tags: ['client-a', 'client-b'],
    });
    expect(ssoAccess(['readers', 'agency-b'], MAPPING)).toEqual({
      role: 'viewer',
      tags: ['client-b'],
    });
  });
});
