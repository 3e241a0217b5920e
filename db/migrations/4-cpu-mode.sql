-- Version 4: runs.mode may also be 'cpu': a lab whose tests need no GPU ran
-- them natively on the CPU, and its score is a grade. SQLite cannot change a
-- CHECK constraint in place, so runs is rebuilt with the same rows and ids
-- (the grader runs migrations with foreign keys off and checks them before
-- it commits). Columns are named: runs migrated from version 1 have mode last.
CREATE TABLE runs_v4 (
	id          INTEGER PRIMARY KEY,
	submission_id INTEGER NOT NULL REFERENCES submissions(id),
	lab_version TEXT NOT NULL,
	started_at  TEXT NOT NULL,
	seconds     REAL NOT NULL,
	host        TEXT,
	mode        TEXT NOT NULL DEFAULT 'gpu' -- gpu; emulated (CPU emulator: never a grade);
	            -- cpu (a lab whose tests need no GPU, run natively: a grade); none
	            CHECK (mode IN ('gpu', 'emulated', 'cpu', 'none')),
	gpu         TEXT,
	driver      TEXT,
	cuda_runtime TEXT,
	build       TEXT NOT NULL,
	status      TEXT NOT NULL,
	score       REAL NOT NULL,
	max_score   REAL NOT NULL,
	bonus_score REAL NOT NULL,
	exit_code   INTEGER NOT NULL,
	n_tests     INTEGER NOT NULL,
	result_json TEXT NOT NULL
);
INSERT INTO runs_v4 (id, submission_id, lab_version, started_at, seconds, host, mode, gpu, driver,
		     cuda_runtime, build, status, score, max_score, bonus_score, exit_code, n_tests,
		     result_json)
	SELECT id, submission_id, lab_version, started_at, seconds, host, mode, gpu, driver,
	       cuda_runtime, build, status, score, max_score, bonus_score, exit_code, n_tests,
	       result_json FROM runs;
DROP TABLE runs;
ALTER TABLE runs_v4 RENAME TO runs;
CREATE INDEX runs_by_submission ON runs(submission_id);
PRAGMA user_version = 4;
