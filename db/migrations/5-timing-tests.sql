-- Version 5: a part may time several kernels at one size, and a kernel that
-- does no arithmetic is rated by bandwidth. timings is keyed by the timed
-- test's name (time@SIZE, or the name lab.conf gives it), names the kernel
-- the driver timed, and keeps GB/s and what was timed against what when that
-- is not the submission against the reference. Earlier rows keep their
-- values; their test was time@SIZE and their kernel the part.
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
