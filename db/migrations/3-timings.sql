-- Version 3: timed kernels. A timed kernel is a graded test of kind 'timing'
-- whose points come from its time against the reference's; what the timing
-- driver measured for it goes into timings. Earlier runs timed nothing.
ALTER TABLE test_results ADD COLUMN kind TEXT NOT NULL DEFAULT 'correctness'
	CHECK (kind IN ('correctness', 'timing'));
CREATE TABLE timings (
	run_id      INTEGER NOT NULL REFERENCES runs(id),
	part        TEXT NOT NULL,
	size        INTEGER NOT NULL,
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
	PRIMARY KEY (run_id, part, size)
);
PRAGMA user_version = 3;
