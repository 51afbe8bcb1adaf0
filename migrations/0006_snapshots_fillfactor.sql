-- Every check that sees a state again counts itself on its snapshot (check_count,
-- last_checked_at, neither indexed). With full pages each such update writes the row
-- elsewhere with new index entries; with room left in each page it is a heap-only update
-- (HOT) in the same page, and the old version is pruned there. New pages keep 30% free.
ALTER TABLE snapshots SET (fillfactor = 70);
