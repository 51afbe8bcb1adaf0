-- An open incident's lead ("/pricing is blocked for Googlebot"), written with its cells: the
-- Incidents page lists up to 500 open incidents by this line instead of reading each one's
-- 200 cells to phrase it (5 MB read a request with 200 open). Rows written before it are
-- phrased from their cells when read, until their next judgement writes it.
ALTER TABLE "incidents" ADD COLUMN "lead" text;
