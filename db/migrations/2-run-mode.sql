-- Version 2: runs record where their tests ran. Runs before it were on a GPU
-- or not run at all; a run with no test results that ran is marked 'none'.
ALTER TABLE runs ADD COLUMN mode TEXT NOT NULL DEFAULT 'gpu'
	CHECK (mode IN ('gpu', 'emulated', 'none'));
UPDATE runs SET mode = 'none' WHERE NOT EXISTS
	(SELECT 1 FROM test_results t WHERE t.run_id = runs.id AND t.status != 'not-run');
PRAGMA user_version = 2;
