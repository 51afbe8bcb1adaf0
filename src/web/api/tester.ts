/**
 * POST /api/v1/test: a proposed robots.txt evaluated beside the live file. It changes
 * nothing, so it needs only what reading needs.
 */
import {
  TestRequest,
  TestResultDocument,
  testerIntentDocument,
} from '../../monitor/documents/index.js';
import { testerIntent } from '../../policy/tester-intent.js';
import { testRobots } from '../../monitor/test-robots.js';
import { TesterRefused } from '../../monitor/threads/tester-thread.js';
import { checkTestSize, parseAgents, parseUrls, refusal } from '../tester-input.js';
import { API, answer, apiPart, errors, jsonBody, parseBody, readJson, route } from './route.js';
import type { ApiContext } from './route.js';

export function testerApi({ deps, sites, tester }: ApiContext) {
  const app = apiPart();
  app.openapi(
    route({
      method: 'post',
      path: `${API}/test`,
      summary:
        'Tests a robots.txt: verdicts with deciding rules, next to the live file’s, and what it would newly block or allow among the site’s sitemap URLs.',
      request: { body: jsonBody(TestRequest) },
      responses: {
        200: answer(
          "each row's verdicts, the file's lint findings, its effect on the site's sitemap URLs, and the file judged against the site's intent",
          TestResultDocument,
        ),
        ...errors([400, 413, 422, 503]),
      },
    }),
    async (c) => {
      const input = await readJson(c, '{robotstxt, agents, urls, site?}', { stored: false });
      const { robotstxt, agents, urls, site: siteId } = parseBody(TestRequest, input);
      const site = siteId === undefined ? undefined : await sites.resolve(c, String(siteId));
      const body = new TextEncoder().encode(robotstxt);
      const test = {
        origin: site?.origin,
        body,
        agents: parseAgents(
          agents.map((a) => (typeof a === 'string' ? a : `${a.token} ${a.profile ?? 'google'}`)),
        ),
        urls: parseUrls(urls, site?.origin),
      };
      checkTestSize(body.length, test.urls.length, test.agents.length);
      const result = await testRobots(deps.store, test, (i) => tester.evaluate(i)).catch(
        (error: unknown) => {
          throw error instanceof TesterRefused ? refusal(c, error) : error;
        },
      );
      // Against what the site's owner intends, as the tester page and `gate` judge it.
      const config = site?.config;
      const intent =
        config === undefined
          ? null
          : testerIntentDocument(
              testerIntent(config.intent.rules, config.profile, body, result.rows),
            );
      return c.json({ ...result, intent }, 200);
    },
  );
  return app;
}
