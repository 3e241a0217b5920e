-- cudalab gradebook schema. PRAGMA user_version is the schema version:
-- a new database gets this file; an older one gets db/migrations/<N>-*.sql
-- for each version N above its own, in order, each in one transaction.
-- Runs are only ever appended: a regrade adds a run and keeps the old ones.

CREATE TABLE students (
	id          INTEGER PRIMARY KEY,
	name        TEXT NOT NULL UNIQUE
);

CREATE TABLE labs (
	id          INTEGER PRIMARY KEY,
	name        TEXT NOT NULL UNIQUE,
	title       TEXT
);

-- One row per distinct set of submitted files of a student for a lab.
CREATE TABLE submissions (
	id          INTEGER PRIMARY KEY,
	student_id  INTEGER NOT NULL REFERENCES students(id),
	lab_id      INTEGER NOT NULL REFERENCES labs(id),
	files_hash  TEXT NOT NULL,            -- sha256 over the files' names and hashes
	first_seen  TEXT NOT NULL,
	UNIQUE (student_id, lab_id, files_hash)
);

CREATE TABLE submission_files (
	submission_id INTEGER NOT NULL REFERENCES submissions(id),
	name        TEXT NOT NULL,
	sha256      TEXT NOT NULL,
	bytes       INTEGER NOT NULL,
	PRIMARY KEY (submission_id, name)
);

-- The files themselves, by sha256 (submission_files names them): a regrade
-- grades what was graded.
CREATE TABLE file_contents (
	sha256      TEXT PRIMARY KEY,
	content     BLOB NOT NULL
);

CREATE TABLE runs (
	id          INTEGER PRIMARY KEY,
	submission_id INTEGER NOT NULL REFERENCES submissions(id),
	lab_version TEXT NOT NULL,
	started_at  TEXT NOT NULL,
	seconds     REAL NOT NULL,
	host        TEXT,
	mode        TEXT NOT NULL DEFAULT 'gpu' -- gpu; emulated (CPU emulator: never a grade);
	            -- cpu (a lab whose tests need no GPU, run natively: a grade); none
	            CHECK (mode IN ('gpu', 'emulated', 'cpu', 'none')),
	gpu         TEXT,                     -- device name, or 'none'
	driver      TEXT,
	cuda_runtime TEXT,
	build       TEXT NOT NULL,            -- ok, refused, compile-error, audit-failed, link-error
	status      TEXT NOT NULL,            -- complete, incomplete, not-built
	score       REAL NOT NULL,
	max_score   REAL NOT NULL,
	bonus_score REAL NOT NULL,
	exit_code   INTEGER NOT NULL,
	n_tests     INTEGER NOT NULL,         -- rows in test_results for this run
	result_json TEXT NOT NULL,            -- the full result document
	submitted_at TEXT,                    -- ISO 8601 UTC, as the grader was told; NULL: not told
	submitted_from TEXT,                  -- who said so: --submitted-at, a file of times
	late_days   INTEGER NOT NULL DEFAULT 0,   -- days late, a day begun counting
	late_penalty REAL NOT NULL DEFAULT 0,     -- points taken off: the student's score is
	                                          -- score - late_penalty
	origin      TEXT                      -- where its result document came from, once in the
	                                      -- gradebook ("sha256:<hex of the file>"); NULL:
	                                      -- graded by this gradebook's grader
);

CREATE TABLE test_results (
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

-- What the timing driver measured for each timed kernel of a run.
CREATE TABLE timings (
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

CREATE INDEX runs_by_submission ON runs(submission_id);
CREATE INDEX submissions_by_student ON submissions(student_id, lab_id);
-- a document is stored once: collecting a spool folder again adds nothing
CREATE UNIQUE INDEX runs_by_origin ON runs(origin) WHERE origin IS NOT NULL;

PRAGMA user_version = 8;
