/* Unit tests of result.c: scoring, exit codes and the JSON document. */
#include "doc.h"
#include "probe.h"
#include "result.h"
#include "unit.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

static struct lab_config cfg;

static void setup(void)
{
	ck_assert_int_eq(unit_parse_lab("[lab]\nname = demo\nfiles = a.cu\n"
					"[part a]\ntests = x:3 y:2\n"
					"[part b]\nbonus = yes\ntests = z:5\n", &cfg), 0);
}

static void teardown(void)
{
	config_free(&cfg);
}

static void set_all(struct result *r, enum test_status s)
{
	for (size_t i = 0; i < r->ntests; i++)
		r->tests[i].status = s;
}

START_TEST(test_result_scores_and_exit_codes)
{
	struct result r;

	result_init(&r, &cfg);
	ck_assert_uint_eq(r.ntests, 3);
	ck_assert_str_eq(r.tests[1].id, "test_demo_a_y");
	r.build = BUILD_OK;
	r.mode = MODE_GPU;

	set_all(&r, TEST_PASS);
	result_finish(&r);
	ck_assert_double_eq(r.score, 10);
	ck_assert_double_eq(r.max_score, 5);
	ck_assert_double_eq(r.bonus_score, 5);
	ck_assert_int_eq(result_exit_code(&r), EXIT_FULL_MARKS);

	/* losing only the bonus is still full marks */
	result_find(&r, "b", "z")->status = TEST_FAIL;
	result_finish(&r);
	ck_assert_int_eq(result_exit_code(&r), EXIT_FULL_MARKS);

	result_find(&r, "a", "y")->status = TEST_TIMEOUT;
	result_finish(&r);
	ck_assert_double_eq(r.score, 3);
	ck_assert_int_eq(result_exit_code(&r), EXIT_POINTS_LOST);

	/* a test that did not run makes the run incomplete, never a pass */
	result_find(&r, "a", "x")->status = TEST_NOT_RUN;
	result_finish(&r);
	ck_assert_int_eq(r.state, RUN_INCOMPLETE);
	ck_assert_int_eq(result_exit_code(&r), EXIT_INCOMPLETE);

	/* an emulated run that passed everything is still no grade */
	set_all(&r, TEST_PASS);
	r.mode = MODE_EMULATED;
	result_finish(&r);
	ck_assert_int_eq(r.state, RUN_INCOMPLETE);
	ck_assert_int_eq(result_exit_code(&r), EXIT_INCOMPLETE);
	ck_assert_double_eq(r.score, 10);

	r.build = BUILD_COMPILE_ERROR;
	result_finish(&r);
	ck_assert_int_eq(result_exit_code(&r), EXIT_NOT_BUILT);
	result_release(&r);
}
END_TEST

/* The text a result's score gets, and the same from its document. */
static void check_score(const struct result *r, const char *want)
{
	struct score_view v = result_score_view(r);
	char text[SCORE_TEXT_MAX], from_doc[SCORE_TEXT_MAX];
	char *s = result_to_json(r, false);
	json_t *doc = json_loads(s, 0, NULL);

	ck_assert_str_eq(score_text(text, &v), want);
	ck_assert_ptr_nonnull(doc);
	v = doc_score_view(doc);
	ck_assert_str_eq(score_text(from_doc, &v), want);
	ck_assert_str_eq(json_string_value(json_object_get(doc, "score_text")), want);
	json_decref(doc);
	free(s);
}

/* Whether r's test part/name reads as pending a GPU run in r's document (doc_test_view). */
static bool pending_in_document(const struct result *r, const char *part, const char *name)
{
	json_t *doc = result_document(r), *t;
	bool pending = false;
	size_t i;

	json_array_foreach(json_object_get(doc, "tests"), i, t)
		if (!strcmp(doc_str(t, "part"), part) && !strcmp(doc_str(t, "name"), name))
			pending = doc_test_view(doc, t).pending;
	json_decref(doc);
	return pending;
}

/*
 * A run's score reads one way: the final score (bonus included) out of the
 * maximum, the bonus said as part of it, lateness, and the points of tests
 * that wait for a GPU as pending, not lost.
 */
START_TEST(test_result_score_text)
{
	struct result r;

	result_init(&r, &cfg);
	r.build = BUILD_OK;
	r.mode = MODE_GPU;
	set_all(&r, TEST_PASS);
	result_finish(&r);
	check_score(&r, "10 / 5 (5 of it bonus)");

	result_find(&r, "b", "z")->status = TEST_FAIL;
	result_find(&r, "a", "y")->status = TEST_FAIL;
	result_finish(&r);
	check_score(&r, "3 / 5");

	/* emulated, a test that needs a GPU is pending: its points are not lost */
	r.mode = MODE_EMULATED;
	result_find(&r, "b", "z")->status = TEST_PASS;
	result_find(&r, "a", "y")->status = TEST_NOT_RUN;
	result_finish(&r);
	check_score(&r, "8 / 5 (5 of it bonus), 2 more pending a GPU run");
	ck_assert(pending_in_document(&r, "a", "y"));
	ck_assert(!pending_in_document(&r, "a", "x"));
	/* so is one nothing ran, for want of a GPU and an emulator */
	r.mode = MODE_NONE;
	check_score(&r, "8 / 5 (5 of it bonus), 2 more pending a GPU run");
	/* on a GPU, a test not run (no profiler, say) is not waiting for one */
	r.mode = MODE_GPU;
	check_score(&r, "8 / 5 (5 of it bonus), 2 more not run");
	ck_assert(!pending_in_document(&r, "a", "y"));

	/* late: the final score is after the penalty, which is said */
	set_all(&r, TEST_PASS);
	result_finish(&r);
	r.late.deadline = r.late.applied = true;
	r.late.v.days = 2;
	r.late.v.penalty = 1.5;
	check_score(&r, "8.5 / 5 (5 of it bonus; late: -1.5)");
	result_find(&r, "b", "z")->status = TEST_FAIL;
	result_finish(&r);
	check_score(&r, "3.5 / 5 (late: -1.5)");

	/* what did not build has nothing pending */
	memset(&r.late, 0, sizeof(r.late));
	r.build = BUILD_COMPILE_ERROR;
	set_all(&r, TEST_NOT_RUN);
	result_finish(&r);
	check_score(&r, "0 / 5");
	result_release(&r);
}
END_TEST

START_TEST(test_result_json_document)
{
	struct result r;
	json_error_t err;

	result_init(&r, &cfg);
	r.build = BUILD_OK;
	r.mode = MODE_GPU;
	r.student = xstrdup("ada \"quoted\"");
	r.nfiles = 1;
	r.files = xcalloc(1, sizeof(*r.files));
	r.files[0].name = xstrdup("a.cu");
	strcpy(r.files[0].sha256, "00ff");
	r.files[0].size = 12;
	set_all(&r, TEST_PASS);
	r.tests[1].status = TEST_CRASH;
	r.tests[1].message = xstrdup("killed by signal 11\nhint: <&>");
	result_finish(&r);

	char *s = result_to_json(&r, false);
	json_t *doc = json_loads(s, 0, &err);
	ck_assert_msg(doc != NULL, "invalid JSON: %s", err.text);
	ck_assert_str_eq(json_string_value(json_object_get(doc, "schema")), RESULT_SCHEMA);
	ck_assert_str_eq(json_string_value(json_object_get(doc, "student")), "ada \"quoted\"");
	ck_assert_str_eq(json_string_value(json_object_get(doc, "status")), "complete");
	ck_assert_int_eq(json_integer_value(json_object_get(doc, "exit_code")), EXIT_POINTS_LOST);
	ck_assert(json_is_false(json_object_get(doc, "provisional")));
	json_t *gpu = json_object_get(doc, "gpu");
	ck_assert_str_eq(json_string_value(json_object_get(gpu, "name")), "none");
	ck_assert_str_eq(json_string_value(json_object_get(gpu, "driver")), "none");
	ck_assert_str_eq(json_string_value(json_object_get(gpu, "compute_capability")), "none");
	ck_assert(json_is_null(json_object_get(gpu, "uuid")));   /* null, not "none": a key */
	json_t *t = json_array_get(json_object_get(doc, "tests"), 1);
	ck_assert_str_eq(json_string_value(json_object_get(t, "status")), "crash");
	ck_assert_str_eq(json_string_value(json_object_get(t, "message")),
			 "killed by signal 11\nhint: <&>");
	ck_assert_double_eq(json_real_value(json_object_get(t, "points")), 0);
	json_t *f = json_array_get(json_object_get(doc, "files"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(f, "sha256")), "00ff");
	json_decref(doc);
	free(s);
	result_release(&r);
}
END_TEST

START_TEST(test_result_driver_version)
{
	char *v = parse_driver_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
					"580.65.06  Release Build  (dvs-builder@U16)  Tue Jul 22\n"
					"GCC version:  gcc version 13.3.0\n");
	ck_assert_str_eq(v, "580.65.06");
	free(v);
	v = parse_driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat");
	ck_assert_str_eq(v, "535.104.05");
	free(v);
	ck_assert_ptr_null(parse_driver_version("no module here"));
	ck_assert_ptr_null(parse_driver_version(NULL));
}
END_TEST

/* What the probe wrote, read: the UUID only in the form nvidia-smi gives it. */
START_TEST(test_result_probe_uuid)
{
	static const char *const outs[] = {
		"runtime=13.0\navailable=1\nname=NVIDIA H100 80GB HBM3\ncc=90\n"
		"uuid=GPU-8f3a1c2d-5e6f-4a0b-9c1d-2e3f4a5b6c7d\nclock_mhz=1980\n",
		"runtime=13.0\navailable=1\nname=X\ncc=90\nuuid=GPU-8F3A1C2D-5E6F-4A0B-9C1D-2E3F4A5B6C7D\n",
		"runtime=13.0\navailable=1\nname=X\ncc=90\nuuid=GPU-1\nclock_mhz=fast\n",
		"runtime=13.0\navailable=0\nreason=cudaErrorNoDevice: no CUDA-capable device\n",
	};
	const char *argv[] = {"cudalab-probe", NULL};
	struct run_spec spec = {.argv = argv};

	for (size_t i = 0; i < ARRAY_SIZE(outs); i++) {
		struct run_result pr = {.started = true, .output = (char *)outs[i]};
		struct gpu_info gpu = {0};
		probe_read(&spec, &pr, &gpu);
		if (i == 0) {
			ck_assert(gpu.available);
			ck_assert_str_eq(gpu.uuid, "GPU-8f3a1c2d-5e6f-4a0b-9c1d-2e3f4a5b6c7d");
			ck_assert_double_eq(gpu.clock_mhz, 1980);
		} else {
			ck_assert_msg(!gpu.uuid, "probe output %zu: uuid %s", i, gpu.uuid);
			ck_assert_double_eq(gpu.clock_mhz, 0);
		}
		ck_assert(gpu.available == (i < 3));
		gpu_info_release(&gpu);
	}
}
END_TEST

/* "Driver insufficient" with no driver at all says no GPU was found; other reasons stay. */
START_TEST(test_result_no_gpu_reason)
{
	static const char insufficient[] = "cudaErrorInsufficientDriver: CUDA driver version is "
					   "insufficient for CUDA runtime version";
	char *v = probe_explain(insufficient, false, NULL);

	ck_assert_str_eq(v, "no NVIDIA GPU or driver found on this machine (the CUDA runtime said: "
			    "cudaErrorInsufficientDriver: CUDA driver version is insufficient for "
			    "CUDA runtime version)");
	free(v);
	v = probe_explain(insufficient, true, "535.104.05");
	ck_assert_ptr_nonnull(strstr(v, "the NVIDIA driver here (version 535.104.05) cannot serve "
					"this CUDA runtime: it is older than the runtime needs"));
	ck_assert_ptr_nonnull(strstr(v, insufficient));
	free(v);
	v = probe_explain("cudaErrorNoDevice: no CUDA-capable device is detected", false, NULL);
	ck_assert_str_eq(v, "cudaErrorNoDevice: no CUDA-capable device is detected");
	free(v);
	v = probe_explain("cudaErrorInsufficientDriverX: not the same error", false, NULL);
	ck_assert_str_eq(v, "cudaErrorInsufficientDriverX: not the same error");
	free(v);
	ck_assert_ptr_null(probe_explain(NULL, false, NULL));
}
END_TEST

/*
 * A runner that got no CUDA context before any code of the submission's ran
 * is the machine's failure: the run is not graded. Words of the runner's
 * own are relabeled by the harness, so they never begin the message.
 */
START_TEST(test_result_gpu_refused_context)
{
	struct graded_test t = {.status = TEST_FAIL};
	struct result r = {.mode = MODE_GPU, .tests = &t, .ntests = 1};
	struct grading g = {.r = &r};

	r.gpu.name = (char *)"NVIDIA H200";
	t.message = (char *)"harness: the GPU gave the submission's program no context: "
			    "cudaErrorDevicesUnavailable (CUDA-capable device(s) is/are busy or "
			    "unavailable)";
	ck_assert_int_eq(probe_gpu_still_there(&g), -1);
	t.message = (char *)"values differ (the submission's program wrote: harness: the GPU "
			    "gave the submission's program no context: )";
	ck_assert_int_eq(probe_gpu_still_there(&g), 0);   /* no CUDA error: nothing to ask */
}
END_TEST

/* Bytes a submission controls that are not UTF-8 reach the document as U+FFFD. */
START_TEST(test_result_json_survives_bad_utf8)
{
	struct result r;
	char *clean = utf8_clean("ok \xc3\xa9 \xff\xfe caf\xe9 \xe2\x82\xac \xed\xa0\x80 \xc0\xaf");

	ck_assert_str_eq(clean, "ok \xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd caf\xef\xbf\xbd \xe2\x82\xac "
				"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd");
	free(clean);

	result_init(&r, &cfg);
	r.build = BUILD_COMPILE_ERROR;
	r.build_message = xstrdup("nvcc failed");
	r.build_log = xstrdup("grid.cu(3): error: unrecognized token\n  int caf\xe9 = 1;\n");
	r.output = xstrdup("\xff\xfe printed by the submission");
	r.tests[0].message = xstrdup("out[0] = \x80");
	result_finish(&r);
	char *json = result_to_json(&r, false);
	json_t *doc = json_loads(json, 0, NULL);
	ck_assert_msg(doc != NULL, "%s", json);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "build"), "status")),
			 "compile-error");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(json_object_get(doc, "build"),
								       "log")),
				     "caf\xef\xbf\xbd"));
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(doc, "output")), "printed"));
	json_decref(doc);
	free(json);
	result_release(&r);
}
END_TEST

/* The schema of the document, grader/cudalab-result-1.schema.json. */
static json_t *load_schema(void)
{
	char *path = xasprintf("%s/grader/cudalab-result-1.schema.json", unit_root());
	json_error_t err;
	json_t *schema = json_load_file(path, 0, &err);

	ck_assert_msg(schema != NULL, "%s: %s (line %d)", path, err.text, err.line);
	free(path);
	return schema;
}

/* The enum of the schema's property at the JSON pointer path. */
static json_t *schema_enum(json_t *schema, const char *path)
{
	json_t *node = schema;
	char *copy = xstrdup(path), *save = NULL;

	for (char *key = strtok_r(copy, "/", &save); key; key = strtok_r(NULL, "/", &save))
		node = json_object_get(node, key);
	ck_assert_msg(json_is_array(json_object_get(node, "enum")), "no enum at %s", path);
	free(copy);
	return json_object_get(node, "enum");
}

/* The schema's enum at path holds exactly the n names in names. */
static void assert_enum(json_t *schema, const char *path, const char *const *names, int n)
{
	json_t *e = schema_enum(schema, path);

	ck_assert_msg(json_array_size(e) == (size_t)n,
		      "%s: %zu values in the schema, %d in the code", path, json_array_size(e), n);
	for (int i = 0; i < n; i++) {
		bool found = false;
		for (size_t j = 0; j < json_array_size(e); j++) {
			const char *v = json_string_value(json_array_get(e, j));
			found |= v && !strcmp(v, names[i]);
		}
		ck_assert_msg(found, "%s: the schema lacks '%s'", path, names[i]);
	}
}

/* The names name_of(0) .. name_of(last) of an enum of the code, held to the schema's at path. */
#define ASSERT_ENUM(schema, path, name_of, last)                                                   \
	do {                                                                                       \
		const char *names_[(last) + 1];                                                    \
		for (int i_ = 0; i_ <= (last); i_++)                                               \
			names_[i_] = name_of(i_);                                                  \
		assert_enum(schema, path, names_, (last) + 1);                                     \
	} while (0)

/* Each value the code names a status, kind or mode by is the schema's, and no other. */
START_TEST(test_result_schema_names_the_codes_values)
{
	json_t *schema = load_schema();

	ck_assert_str_eq(json_string_value(json_object_get(schema, "title")), RESULT_SCHEMA);
	ASSERT_ENUM(schema, "$defs/test/properties/status", test_status_name, TEST_NOT_RUN);
	ASSERT_ENUM(schema, "$defs/test/properties/kind", test_kind_name, KIND_SECTORS);
	ASSERT_ENUM(schema, "properties/build/properties/status", build_state_name,
		    BUILD_LINK_ERROR);
	ASSERT_ENUM(schema, "properties/status", run_state_name, RUN_NOT_BUILT);
	ASSERT_ENUM(schema, "properties/mode", run_mode_name, MODE_CPU);
	json_decref(schema);
}
END_TEST

/*
 * validate-doc.py's verdict on the document of r (0: it conforms), its
 * report in out: the validator every end-to-end test holds documents to.
 */
static int validate(const struct result *r, char *out, size_t len)
{
	char *dir = unit_tmpdir(), *path = xasprintf("%s/r.json", dir);
	char *json = result_to_json(r, true);
	/* Debian's python3, for which python3-jsonschema is installed */
	char *cmd = xasprintf("py=/usr/bin/python3; [ -x $py ] || py=python3; "
			      "timeout 600 $py '%s/grader/t/helpers/validate-doc.py' '%s' 2>&1",
			      unit_root(), path);

	ck_assert_int_eq(write_file_atomic(path, json, strlen(json)), 0);
	FILE *p = popen(cmd, "r");
	ck_assert_msg(p != NULL, "cannot run: %s", cmd);
	size_t n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	int status = pclose(p);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) <= 1, "%s: %s", cmd, out);
	remove_tree(dir);
	free(cmd);
	free(json);
	free(path);
	free(dir);
	return WEXITSTATUS(status);
}

#define SCHEMA_LAB                                                                                 \
	"[lab]\nname = demo\nfiles = a.cu\n[part a]\ntests = x:3 y:2\nsafety = x\n"             \
	"[timing t]\npart = a\nsize = 1024\npoints = 2\n"                                         \
	"[sectors s]\npart = a\ncall = rows\npoints = 1\nmax_load = 4.5\nmax_store = 4.5\n"     \
	"[deadline]\ndue = 2026-12-04 23:59 +01:00\npenalty_per_day = 10\n"

/*
 * The schema takes every shape of the document, those only a GPU gives too
 * (a kernel timed, memory requests counted, the GPU held, its compute
 * capability), which no test without a GPU writes; and refuses a document
 * that breaks it.
 */
START_TEST(test_result_documents_conform_to_the_schema)
{
	struct lab_config lab;
	struct result r;
	char out[8192];

	ck_assert_int_eq(unit_parse_lab(SCHEMA_LAB, &lab), 0);

	/* graded on a GPU, every stage ran, submitted late */
	result_init(&r, &lab);
	r.student = xstrdup("ada");
	r.submission = xstrdup("/subs/ada");
	r.started_at = xstrdup("2026-12-06T08:00:00Z");
	r.host = xstrdup("gpu1");
	r.sandbox = xstrdup("bubblewrap");
	r.processes = 512;
	r.gpu.available = true;
	r.gpu.name = xstrdup("NVIDIA H100 80GB HBM3");
	r.gpu.cc = xstrdup("90");
	r.gpu.driver = xstrdup("580.65.06");
	r.gpu.runtime = xstrdup("13.0");
	r.gpu.uuid = xstrdup("GPU-8f3a1c2d-5e6f-4a0b-9c1d-2e3f4a5b6c7d");
	r.nfiles = 1;
	r.files = xcalloc(1, sizeof(*r.files));
	r.files[0].name = xstrdup("a.cu");
	memset(r.files[0].sha256, 'a', 64);
	r.files[0].size = 12;
	r.mode = MODE_GPU;
	r.build = BUILD_OK;
	r.build_log = xstrdup("");
	r.safety = "ran";
	r.safety_findings = 1;
	r.gpu_from = 1.8e9;
	r.gpu_to = r.gpu_from + 2;
	r.seed = 0x1fffffffffffffULL;   /* the largest seed: 2^53 - 1 */
	set_all(&r, TEST_PASS);
	result_find(&r, "a", "y")->status = TEST_FAIL;
	struct timing_measure *m = result_find(&r, "a", "t")->timing;
	m->measured = true;
	m->samples = 12;
	m->student_ms = m->reference_ms = m->ratio = 1;
	m->student_gflops = m->reference_gflops = NAN;   /* a kernel without arithmetic */
	m->floor_ms = m->sm_clock_mhz = NAN;
	m->subject = xstrdup("your rows");
	result_find(&r, "a", "t")->points = 2;
	struct sectors_measure *sm = result_find(&r, "a", "s")->sectors;
	sm->measured = true;
	sm->source = "Nsight Compute";
	sm->load_requests = 4;
	sm->load_sectors = 16;
	r.timing.ran = true;
	r.timing.peak_gflops = 60000;
	r.timing.ceiling_name = xstrdup("cuBLAS");
	r.timing.nceilings = 1;
	r.timing.ceilings = xcalloc(1, sizeof(*r.timing.ceilings));
	r.timing.ceilings[0] = (struct ceiling){.size = 2048, .ms = 0.5, .gflops = NAN};
	/* reused from the node's cache (devcache.h) */
	r.timing.ceilings_from = "cache";
	r.timing.ceilings_measured_at = 1796537000;
	r.timing.ceilings_cache = xstrdup("/tmp/cudalab-gpu-GPU-8f3a.ceilings-demo");
	r.submitted_at = 1796457600;   /* 2026-12-05T08:00:00Z: a day late */
	r.submitted_from = xstrdup("--submitted-at");
	result_finish(&r);
	result_judge_late(&r, &lab.deadline);
	ck_assert(r.late.applied);
	ck_assert_msg(validate(&r, out, sizeof(out)) == 0, "%s", out);

	/* reused from the cache, yet with why the cache was not used: refused */
	r.timing.ceilings_cache_note = xstrdup("no entry for this GPU yet");
	ck_assert_int_eq(validate(&r, out, sizeof(out)), 1);
	ck_assert_msg(strstr(out, "at /timing/ceilings_cache_note"), "%s", out);
	free(r.timing.ceilings_cache_note);
	r.timing.ceilings_cache_note = NULL;

	/* a profiled launcher without its counts is refused, and named */
	result_find(&r, "a", "y")->kind = KIND_SECTORS;
	ck_assert_int_eq(validate(&r, out, sizeof(out)), 1);
	ck_assert_msg(strstr(out, "at /tests/1 (a/y): 'sectors' is a required property"), "%s", out);
	result_release(&r);

	/* refused at intake, with neither sandbox nor process limit nor GPU */
	result_init(&r, &lab);
	r.student = xstrdup("bob");
	r.submission = xstrdup("/subs/bob");
	r.started_at = xstrdup("2026-12-06T08:00:00Z");
	r.host = xstrdup("");
	r.sandbox_why = xstrdup("CUDALAB_NO_SANDBOX is set");
	r.processes_why = xstrdup("the lab sets no limit (processes = 0)");
	r.gpu.reason = xstrdup("cudaErrorNoDevice: no CUDA-capable device is detected");
	r.build = BUILD_REFUSED;
	r.build_message = xstrdup("missing file 'a.cu': the submission must contain it");
	result_mark_not_run(&r, "not run: the submission was not built");
	result_finish(&r);
	result_judge_late(&r, &lab.deadline);
	ck_assert_msg(validate(&r, out, sizeof(out)) == 0, "%s", out);
	result_release(&r);

	/* emulated: no timing, the safety stage not run */
	result_init(&r, &lab);
	r.student = xstrdup("cy");
	r.submission = xstrdup("/subs/cy");
	r.started_at = xstrdup("2026-12-06T08:00:00Z");
	r.host = xstrdup("ci");
	r.sandbox = xstrdup("bubblewrap");
	r.processes = 64;
	r.gpu.runtime = xstrdup("13.0");
	r.build = BUILD_OK;
	r.mode = MODE_EMULATED;
	r.safety = "not-run";
	r.safety_why = xstrdup("CUDALAB_SAFETY=0 is set");
	r.state_reason = xstrdup("emulated on the CPU");
	result_find(&r, "a", "x")->status = TEST_PASS;
	result_find(&r, "a", "y")->status = TEST_TIMEOUT;
	r.timing.reason = xstrdup("timing needs a GPU");
	result_mark_not_run(&r, "not run: timing needs a GPU");
	result_finish(&r);
	ck_assert_msg(validate(&r, out, sizeof(out)) == 0, "%s", out);
	result_release(&r);
	config_free(&lab);
}
END_TEST

Suite *result_suite(void)
{
	Suite *s = suite_create("result");
	TCase *tc = tcase_create("result");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_result_scores_and_exit_codes);
	tcase_add_test(tc, test_result_score_text);
	tcase_add_test(tc, test_result_json_document);
	tcase_add_test(tc, test_result_driver_version);
	tcase_add_test(tc, test_result_probe_uuid);
	tcase_add_test(tc, test_result_no_gpu_reason);
	tcase_add_test(tc, test_result_gpu_refused_context);
	tcase_add_test(tc, test_result_json_survives_bad_utf8);
	tcase_add_test(tc, test_result_schema_names_the_codes_values);
	suite_add_tcase(s, tc);
	/*
	 * The validator (Python and jsonschema) starts once per document: many
	 * seconds on a loaded machine. Its test waits for it, with no timeout
	 * of Check's (the command has one that only a hang reaches).
	 */
	TCase *schema = tcase_create("schema");
	tcase_add_checked_fixture(schema, setup, teardown);
	tcase_set_timeout(schema, 0);
	tcase_add_test(schema, test_result_documents_conform_to_the_schema);
	suite_add_tcase(s, schema);
	return s;
}
