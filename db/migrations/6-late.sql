-- Version 6: deadlines. A run keeps when its submission was submitted, as
-- the grader was told (NULL: not told), by what, and what the lab's late
-- policy took off. score stays the tests' score; the student's is
-- score - late_penalty. Earlier runs had no deadline: on time, nothing taken.
ALTER TABLE runs ADD COLUMN submitted_at TEXT;
ALTER TABLE runs ADD COLUMN submitted_from TEXT;
ALTER TABLE runs ADD COLUMN late_days INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN late_penalty REAL NOT NULL DEFAULT 0;
PRAGMA user_version = 6;
