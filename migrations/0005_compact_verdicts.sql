CREATE TABLE "verdict_sets" (
	"snapshot_id" bigint PRIMARY KEY NOT NULL,
	"urls" text[] NOT NULL,
	"agents" text[] NOT NULL,
	"profiles" text[] NOT NULL,
	"causes" jsonb NOT NULL,
	"cells" integer[] NOT NULL,
	"counts" jsonb NOT NULL
);
--> statement-breakpoint
-- Each snapshot's verdict rows become one compact row: URLs and agents in code-point
-- order, distinct causes, one cell per (URL, agent): cause index * 2 + allowed, or -1.
INSERT INTO "verdict_sets" ("snapshot_id", "urls", "agents", "profiles", "causes", "cells", "counts")
SELECT s.snapshot_id, u.urls, a.agents, a.profiles, COALESCE(c.causes, '[]'::jsonb),
  (SELECT array_agg(COALESCE(
      (SELECT (CASE WHEN v.cause IS NULL THEN 0
                ELSE (SELECT e.k FROM jsonb_array_elements(COALESCE(c.causes, '[]'::jsonb)) WITH ORDINALITY AS e(x, k)
                      WHERE e.x = v.cause LIMIT 1) END)::int * 2 + v.allowed::int
       FROM "verdicts" v WHERE v.snapshot_id = s.snapshot_id AND v.url = uu.url AND v.agent = aa.agent),
      -1) ORDER BY uu.i, aa.j)
   FROM unnest(u.urls) WITH ORDINALITY AS uu(url, i), unnest(a.agents) WITH ORDINALITY AS aa(agent, j)),
  cnt.counts
FROM (SELECT DISTINCT snapshot_id FROM "verdicts") s
CROSS JOIN LATERAL (
  SELECT array_agg(url ORDER BY url COLLATE "C") AS urls
  FROM (SELECT DISTINCT url FROM "verdicts" WHERE snapshot_id = s.snapshot_id) x) u
CROSS JOIN LATERAL (
  SELECT array_agg(agent ORDER BY agent COLLATE "C") AS agents, array_agg(profile ORDER BY agent COLLATE "C") AS profiles
  FROM (SELECT agent, min(profile) AS profile FROM "verdicts" WHERE snapshot_id = s.snapshot_id GROUP BY agent) x) a
CROSS JOIN LATERAL (
  SELECT jsonb_agg(cause ORDER BY cause::text) AS causes
  FROM (SELECT DISTINCT cause FROM "verdicts" WHERE snapshot_id = s.snapshot_id AND cause IS NOT NULL) x) c
CROSS JOIN LATERAL (
  SELECT jsonb_agg(jsonb_build_object('agent', agent, 'disallowed', d, 'watched', w) ORDER BY agent COLLATE "C") AS counts
  FROM (SELECT agent, (count(*) FILTER (WHERE NOT allowed))::int AS d, count(*)::int AS w
        FROM "verdicts" WHERE snapshot_id = s.snapshot_id GROUP BY agent) x) cnt;
--> statement-breakpoint
DROP TABLE "verdicts" CASCADE;--> statement-breakpoint
ALTER TABLE "verdict_sets" ADD CONSTRAINT "verdict_sets_snapshot_id_snapshots_id_fk" FOREIGN KEY ("snapshot_id") REFERENCES "public"."snapshots"("id") ON DELETE no action ON UPDATE no action;