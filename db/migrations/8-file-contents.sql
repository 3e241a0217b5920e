-- Version 8: the files of every graded submission, by their sha256, so that
-- a regrade grades exactly the files that were graded, whatever their folder
-- holds now. A file is kept once however many runs name it (a lab's files
-- are small). Runs stored before this version have no contents here.
CREATE TABLE file_contents (
	sha256      TEXT PRIMARY KEY,
	content     BLOB NOT NULL
);
PRAGMA user_version = 8;
