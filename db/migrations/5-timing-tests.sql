-- Version 5: a part may time several kernels at one size, and a kernel that
-- does no arithmetic is rated by bandwidth. timings is keyed by the timed
-- test's name (time@SIZE, or the name lab.conf gives it), names the kernel
-- the driver timed, and keeps GB/s and what was timed against what when that
-- is not the submission against the reference. Earlier rows keep their
-- values; their test was time@SIZE and their kernel the part.
-- A test may also be of kind 'sectors': a profiled launcher, scored by the
-- sectors per request of its memory requests. SQLite cannot change a CHECK
-- in place, so test_results is rebuilt with the same rows.
CREATE TABLE test_results_v5 (
	run_id      INTEGER NOT NULL REFERENCES runs(id),
	part        TEXT NOT NULL,
	name        TEXT NOT NULL,
	status      TEXT NOT NULL CHECK (status IN ('pass', 'fail', 'timeout', 'crash', 'not-run')),
	points      REAL NOT NULL,
	max_points  REAL NOT NULL,
	bonus       INTEGER NOT NULL,
	message     TEXT,
	seconds     REAL,
	kind        TEXT NOT NULL DEFAULT 'correctness' -- correctness; timing (points by ratio);
	            -- sectors (a profiled launcher's memory requests)
	            CHECK (kind IN ('correctness', 'timing', 'sectors')),
	PRIMARY KEY (run_id, part, name)
);
INSERT INTO test_results_v5 (run_id, part, name, status, points, max_points, bonus, message,
	seconds, kind)
	SELECT run_id, part, name, status, points, max_points, bonus, message, seconds, kind
	FROM test_results;
DROP TABLE test_results;
ALTER TABLE test_results_v5 RENAME TO test_results;

CREATE TABLE timings_v5 (
	run_id      INTEGER NOT NULL REFERENCES runs(id),
	part        TEXT NOT NULL,
	name        TEXT NOT NULL,              -- the test: test_results.name
	kernel      TEXT NOT NULL,              -- what the timing driver timed
	size        INTEGER NOT NULL,           -- in the driver's units (N, elements, stride)
	samples     INTEGER NOT NULL,           -- pairs of timed calls
	capped      INTEGER NOT NULL,           -- stopped by the time cap, not the noise target
	student_ms  REAL,                       -- medians
	reference_ms REAL,
	ratio       REAL,                       -- student_ms / reference_ms
	student_spread REAL,                    -- robust coefficient of variation
	reference_spread REAL,
	student_gflops REAL,
	reference_gflops REAL,
	floor_ms    REAL,                       -- the device's physical limit
	sm_clock_mhz REAL,
	flagged     INTEGER NOT NULL,           -- below the floor: for a person to look at
	student_gbs REAL,                       -- the least DRAM traffic over the median
	reference_gbs REAL,
	subject     TEXT,                       -- what was timed, when not the submission
	baseline    TEXT,                       -- against what, when not the reference
	PRIMARY KEY (run_id, part, name)
);
INSERT INTO timings_v5 (run_id, part, name, kernel, size, samples, capped, student_ms,
	reference_ms, ratio, student_spread, reference_spread, student_gflops,
	reference_gflops, floor_ms, sm_clock_mhz, flagged)
	SELECT run_id, part, 'time@' || size, part, size, samples, capped, student_ms,
	reference_ms, ratio, student_spread, reference_spread, student_gflops,
	reference_gflops, floor_ms, sm_clock_mhz, flagged FROM timings;
DROP TABLE timings;
ALTER TABLE timings_v5 RENAME TO timings;
PRAGMA user_version = 5;
