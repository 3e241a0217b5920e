/*
 * record.c - reporting and storing a graded run (record.h). Must not grade:
 * it takes a finished result as it is.
 */
#include "record.h"

#include "htmlreport.h"

#include "db.h"
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int record_run(const struct result *r, const char *root, const struct record_opts *ro,
	       long long *run_id)
{
	int code = result_exit_code(r);

	*run_id = -1;
	if (ro->report) {
		report_result(stdout, r);
		fflush(stdout);
	}
	if (ro->json_path) {
		char *json = result_to_json(r, true);
		if (write_file_atomic(ro->json_path, json, strlen(json)))
			code = EXIT_INTERNAL;
		free(json);
	}
	if (ro->db_path) {
		struct db *db = db_open(ro->db_path, root);
		if (!db || db_store_run(db, r, run_id)) {
			error("the run was not stored in the gradebook '%s'", ro->db_path);
			*run_id = -1;
			code = EXIT_INTERNAL;
		} else {
			progress("recorded as run %lld in %s", *run_id, ro->db_path);
		}
		db_close(db);
	}
	if (ro->html_path) {
		/* after the gradebook: the page names the run it stored */
		json_t *doc = result_document(r);
		char *page = NULL;
		if (!doc || html_report(doc, *run_id > 0 ? *run_id : 0, &page) ||
		    write_file_atomic(ro->html_path, page, strlen(page)))
			code = EXIT_INTERNAL;
		else
			progress("the run's page: %s", ro->html_path);
		free(page);
		json_decref(doc);
	}
	return code;
}
