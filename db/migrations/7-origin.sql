-- Version 7: where a run's result document came from. A run graded by this
-- gradebook's own grader has none (NULL); one ingested from a document
-- written elsewhere (an array task of a cluster, into a spool folder) names
-- it, "sha256:<hex of the file>", and a gradebook holds each origin once, so
-- collecting a spool again stores nothing twice. Earlier runs were graded
-- here.
ALTER TABLE runs ADD COLUMN origin TEXT;
CREATE UNIQUE INDEX runs_by_origin ON runs(origin) WHERE origin IS NOT NULL;
PRAGMA user_version = 7;
