/*
 * check_grid.cu - correctness suite of the grid-mapping lab.
 *
 * One TCase per graded part of lab.conf:
 *   index      every thread's global index and coordinates, 1D, 2D and 3D,
 *              on extents that are not multiples of the block, with the grid
 *              the launcher chose; a wrong entry names the thread that wrote
 *              it and the thread that should have;
 *   picture    2 * in on pictures from 1 x 1 to 1000 x 1000, every pixel
 *              written, nothing outside (guard canaries); the launch shape;
 *   volume     per-plane weights on volumes of odd shapes; the launch shape;
 *   host       the end-to-end host function: its result, its leaks, and
 *              whether it reports a launch that cannot run and an
 *              allocation that fails;
 *   questions  the launch-configuration answers in answers.txt (CPU only).
 */
#include "cudalab.h"
#include "grid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t run_seed;

static void grid_setup(uint64_t seed, const char *const *parts, size_t nparts)
{
	run_seed = seed;
}

static long long ceil_div(long long n, long long d)
{
	return (n + d - 1) / d;
}

/* n random floats for this run, never zero (cl_random_floats). */
static float *random_floats(size_t n, uint64_t salt)
{
	return cl_random_floats(n, run_seed ^ (salt * 0x9e3779b97f4a7c15ULL));
}

/* After a launcher: everything cl_finish_call checks. */
static const struct cl_ledger *finish_call(const char *what, char *cfg, size_t len)
{
	return cl_finish_call(what, "the buffers it was given", 0, cfg, len);
}

/* ---------------------------------------------------------------- index */

struct extent {
	int nx, ny, nz;
	dim3 block;
};

/*
 * Why entries landed past the end of out, from what they hold: a thread
 * outside the extent wrote its own (x, y, z), so an entry with a coordinate
 * outside says the bounds test is missing; when every entry there is of a
 * thread inside, the bounds test held and the linear index is wrong.
 */
static void stray_write_hint(const struct cl_dbuf *out, const struct extent *e, int dims,
			     char *hint, size_t len)
{
	int after[4 * 64];
	int inside = 0, outside = 0, ix = 0, iy = 0, iz = 0;

	CL_CUDA_CHECK(cudaMemcpy(after, out->d + out->n, sizeof(after), cudaMemcpyDeviceToHost));
	for (int k = 0; k < 64; k++) {
		const int *q = &after[4 * k];
		if (q[1] < 0 || q[2] < 0 || q[3] < 0 || q[1] > 1 << 24 || q[2] > 1 << 24 ||
		    q[3] > 1 << 24)
			continue;   /* a canary, or not an entry */
		if (q[1] < e->nx && q[2] < e->ny && q[3] < e->nz) {
			if (!inside++)
				ix = q[1], iy = q[2], iz = q[3];
		} else {
			outside++;
		}
	}
	if (inside && !outside)
		snprintf(hint, len, "the entries past the end were written by threads inside the "
			 "extent (the first by global thread (%d,%d,%d)): the bounds test held, the "
			 "linear index is wrong: it is (z * ny + y) * nx + x", ix, iy, iz);
	else
		snprintf(hint, len, "threads outside the extent must write nothing: test x < nx%s%s "
			 "first", dims > 1 ? ", y < ny" : "", dims > 2 ? ", z < nz" : "");
}

static void check_index(int dims, const struct extent *e)
{
	long long n = (long long)e->nx * e->ny * e->nz;
	struct cl_dbuf out;
	char what[160], cfg[160], msg[512];
	int *h = (int *)malloc(4 * n * sizeof(int));

	ck_assert(h != NULL);
	if (dims == 1)
		snprintf(what, sizeof(what), "grid_index_1d(nx=%d, block=%u)", e->nx, e->block.x);
	else if (dims == 2)
		snprintf(what, sizeof(what), "grid_index_2d(nx=%d, ny=%d, block=(%u,%u))", e->nx,
			 e->ny, e->block.x, e->block.y);
	else
		snprintf(what, sizeof(what), "grid_index_3d(nx=%d, ny=%d, nz=%d, block=(%u,%u,%u))",
			 e->nx, e->ny, e->nz, e->block.x, e->block.y, e->block.z);

	cl_dbuf_alloc(&out, 4 * n);
	out.elem = "int";
	cl_dbuf_poison(&out);   /* 0xff bytes: every int reads -1 */
	CL_CUDA_CHECK(cudaDeviceSynchronize());
	cl_ledger_begin();
	if (dims == 1)
		grid_index_1d(e->nx, e->block.x, (int *)out.d);
	else if (dims == 2)
		grid_index_2d(e->nx, e->ny, e->block, (int *)out.d);
	else
		grid_index_3d(e->nx, e->ny, e->nz, e->block, (int *)out.d);
	const struct cl_ledger *l = finish_call(what, cfg, sizeof(cfg));

	if (cl_dbuf_check_guards(&out, "out", msg, sizeof(msg))) {
		char hint[256];
		stray_write_hint(&out, e, dims, hint, sizeof(hint));
		ck_abort_msg("%s %s (launch: %s)\nhint: %s", what, msg, cfg, hint);
	}
	cl_dbuf_download(&out, (float *)h);

	const dim3 b = e->block;
	for (long long i = 0; i < n; i++) {
		int x = (int)(i % e->nx), y = (int)(i / e->nx % e->ny), z = (int)(i / e->nx / e->ny);
		const int *got = &h[4 * i];
		if (got[0] == i && got[1] == x && got[2] == y && got[3] == z)
			continue;
		char owner[96];
		snprintf(owner, sizeof(owner), "thread (%d,%d,%d) of block (%d,%d,%d)", x % b.x,
			 y % b.y, z % b.z, x / b.x, y / b.y, z / b.z);
		if (got[0] == -1 && got[1] == -1)
			ck_abort_msg("%s: nothing was written at out[4*%lld], the entry of global thread "
				     "(%d,%d,%d), that is %s (launch: %s)\nhint: %s", what, i, x, y, z,
				     owner, cfg,
				     cl_threads(l->launch[0].grid) * cl_threads(b) < n
					     ? "the grid is too small: round the number of blocks up "
					       "(ceiling division)"
					     : "that thread wrote somewhere else, or returned early");
		int gx = got[1], gy = got[2], gz = got[3];
		if (gx >= 0 && gy >= 0 && gz >= 0 && gx < e->nx && gy < e->ny && gz < e->nz &&
		    !(gx == x && gy == y && gz == z))
			ck_abort_msg("%s: out[4*%lld] holds {%d, %d, %d, %d}, written by thread "
				     "(%d,%d,%d) of block (%d,%d,%d) which took %d for its linear "
				     "index; expected {%lld, %d, %d, %d} from %s (launch: %s)\nhint: "
				     "the linear index of (x, y, z) is (z * ny + y) * nx + x",
				     what, i, got[0], gx, gy, gz, gx % b.x, gy % b.y, gz % b.z, gx / b.x,
				     gy / b.y, gz / b.z, got[0], i, x, y, z, owner, cfg);
		ck_abort_msg("%s: %s wrote {%d, %d, %d, %d} at out[4*%lld], expected {%lld, %d, %d, "
			     "%d} (launch: %s)\nhint: x = blockIdx.x * blockDim.x + threadIdx.x, and "
			     "the same along y and z", what, owner, got[0], gx, gy, gz, i, i, x, y, z,
			     cfg);
	}

	/* the smallest grid that covers the extent */
	const struct cl_launch *c = &l->launch[0];
	long long want[3] = {ceil_div(e->nx, b.x), ceil_div(e->ny, b.y), ceil_div(e->nz, b.z)};
	ck_assert_msg(l->nlaunches == 1 && c->block.x == b.x && c->block.y == b.y &&
			      c->block.z == b.z && c->grid.x == want[0] && c->grid.y == want[1] &&
			      c->grid.z == want[2],
		      "%s launched %s, expected one launch with the given block and a grid of "
		      "(%lld,%lld,%lld)\nhint: blocks along each dimension: ceil(extent / block), "
		      "(n + b - 1) / b in integers", what, cfg, want[0], want[1], want[2]);
	cl_dbuf_free(&out);
	free(h);
}

START_TEST(test_grid_index_d1)
{
	static const struct extent e[] = {{1, 1, 1, dim3(32)},    {1000, 1, 1, dim3(256)},
					  {1025, 1, 1, dim3(128)}, {4097, 1, 1, dim3(1024)},
					  {77, 1, 1, dim3(7)}};
	cl_device_init();
	for (const auto &x : e)
		check_index(1, &x);
}
END_TEST

START_TEST(test_grid_index_d2)
{
	static const struct extent e[] = {{76, 62, 1, dim3(16, 16)}, {1, 1000, 1, dim3(16, 16)},
					  {1000, 1, 1, dim3(32, 8)}, {33, 65, 1, dim3(8, 8)},
					  {100, 3, 1, dim3(32, 4)},  {5, 300, 1, dim3(1, 64)}};
	cl_device_init();
	for (const auto &x : e)
		check_index(2, &x);
}
END_TEST

START_TEST(test_grid_index_d3)
{
	static const struct extent e[] = {{10, 10, 10, dim3(8, 8, 4)}, {33, 7, 5, dim3(16, 4, 2)},
					  {1, 1, 70, dim3(1, 1, 64)},  {64, 3, 9, dim3(32, 2, 2)},
					  {3, 50, 6, dim3(4, 16, 4)}};
	cl_device_init();
	for (const auto &x : e)
		check_index(3, &x);
}
END_TEST

/* ------------------------------------------------------ picture, volume */

/*
 * Compares got with 2 * in (or w[plane] * in), exactly. On a mismatch, names
 * the first wrong element and what the pattern suggests.
 */
static void compare_scaled(const char *what, const char *cfg, const float *in, const float *w,
			   const float *got, int planes, int rows, int cols, int tile_x, int tile_y,
			   const struct cl_launch *launch, bool pitched)
{
	long long n = (long long)planes * rows * cols, nbad = 0, nnan = 0, first = -1;
	bool edge_only = true;

	for (long long i = 0; i < n; i++) {
		int p = (int)(i / ((long long)rows * cols)), r = (int)(i / cols % rows),
		    c = (int)(i % cols);
		if (got[i] == (w ? w[p] : 2.0f) * in[i])
			continue;
		nbad++;
		/* still the fill's NaN: never written (a NaN the kernel wrote is not) */
		nnan += !memcmp(&got[i], &cl_poison_bits, sizeof(float));
		if (first < 0)
			first = i;
		/* in the last, partial row or column of blocks */
		edge_only &= (rows % tile_y && r >= rows - rows % tile_y) ||
			     (cols % tile_x && c >= cols - cols % tile_x);
	}
	if (!nbad)
		return;
	int p = (int)(first / ((long long)rows * cols)), r = (int)(first / cols % rows),
	    c = (int)(first % cols);
	char where[64];
	if (planes > 1)
		snprintf(where, sizeof(where), "[%d][%d][%d]", p, r, c);
	else
		snprintf(where, sizeof(where), "[%d][%d]", r, c);
	/* whether the grid had a thread for every element (unknown: assume so) */
	bool covers = !launch || ((long long)launch->grid.x * launch->block.x >= cols &&
				  (long long)launch->grid.y * launch->block.y >= rows &&
				  (long long)launch->grid.z * launch->block.z >= planes);
	const char *hint =
		pitched && nnan < n
			? "the call allocated pitched memory (cudaMallocPitch), whose rows start "
			  "a pitch apart, not cols floats apart: copy it with cudaMemcpy2D, and "
			  "step from row to row by the pitch in bytes"
		: nnan == n ? "nothing was written (all still NaN): the kernel did not run, or every "
			    "thread failed its bounds test"
		: nnan == nbad && (!covers || (edge_only && !launch))
			? "the last, partial blocks are missing: the grid rounds down; use a "
			  "ceiling division, (n + b - 1) / b"
		: nnan ? "some elements were never written (still NaN), although the grid has a "
			 "thread for each: x (threadIdx.x, blockIdx.x) should run along a row, y down "
			 "the rows"
		       : "an element holds a value that belongs elsewhere: check which index is "
			 "the row and which the column ([row * cols + col])";
	char g[32];
	ck_abort_msg("%s: out%s = %s, expected %.9g; %lld of %lld elements wrong (launch: "
		     "%s)\nhint: %s",
		     what, where, cl_fmt_float(got[first], g, sizeof(g)), (w ? w[p] : 2.0f) * in[first], nbad,
		     n, cfg, hint);
}

static void check_guards(const char *what, const char *cfg, const struct cl_dbuf *out,
			 const struct cl_dbuf *in)
{
	cl_assert_guards_out_in(what, cfg, out, in,
				"a thread wrote outside its array: threads outside the data must "
				"not write (test the row and the column, and the plane, against the "
				"size), and each element's index is row * n + col");
}

static const struct cl_ledger *run_picture(int m, int n, bool values)
{
	size_t count = (size_t)m * n;
	float *in = random_floats(count, (uint64_t)m * 7919 + n), *h = (float *)malloc(count * 4);
	struct cl_dbuf din, dout;
	char what[96], cfg[160];

	snprintf(what, sizeof(what), "grid_picture(m=%d rows, n=%d columns)", m, n);
	cl_dbuf_alloc(&din, count);
	cl_dbuf_alloc(&dout, count);
	cl_dbuf_upload(&din, in);
	cl_dbuf_poison(&dout);
	CL_CUDA_CHECK(cudaDeviceSynchronize());
	cl_ledger_begin();
	grid_picture(din.d, dout.d, m, n);
	const struct cl_ledger *l = finish_call(what, cfg, sizeof(cfg));
	check_guards(what, cfg, &dout, &din);
	if (values) {
		cl_dbuf_download(&dout, h);
		compare_scaled(what, cfg, in, NULL, h, 1, m, n, GRID_PIC_BLOCK, GRID_PIC_BLOCK,
			       &l->launch[0], false);
	}
	cl_dbuf_free(&din);
	cl_dbuf_free(&dout);
	free(in);
	free(h);
	return l;
}

START_TEST(test_grid_picture_exact)
{
	static const int sizes[][2] = {{62, 76}, {1, 1}, {1, 1000}, {1000, 1}, {33, 65},
				       {65, 33}, {16, 16}, {1000, 1000}};
	cl_device_init();
	for (const auto &s : sizes)
		if (!cl_safety_too_big((long long)s[0] * s[1]))
			run_picture(s[0], s[1], true);
}
END_TEST

START_TEST(test_grid_picture_config)
{
	cl_device_init();
	const struct cl_ledger *l = run_picture(62, 76, false);
	const struct cl_launch *c = &l->launch[0];
	char cfg[160];
	cl_launch_str(l, 0, cfg, sizeof(cfg));
	ck_assert_msg(l->nlaunches == 1 && c->block.x == GRID_PIC_BLOCK &&
			      c->block.y == GRID_PIC_BLOCK && c->block.z == 1 && c->grid.x == 5 &&
			      c->grid.y == 4 && c->grid.z == 1,
		      "grid_picture(m=62 rows, n=76 columns) launched %s, expected a grid of (5,4,1) "
		      "blocks of (16,16,1)\nhint: x runs along a row (the 76 columns): "
		      "ceil(76 / 16) = 5 blocks; y down the 62 rows: ceil(62 / 16) = 4", cfg);
}
END_TEST

static const struct cl_ledger *run_volume(int planes, int rows, int cols, bool values)
{
	size_t count = (size_t)planes * rows * cols;
	float *in = random_floats(count, 31 * count + planes), *w = random_floats(planes, planes);
	float *h = (float *)malloc(count * 4);
	struct cl_dbuf din, dw, dout;
	char what[128], cfg[160];

	snprintf(what, sizeof(what), "grid_volume(planes=%d, rows=%d, cols=%d)", planes, rows,
		 cols);
	cl_dbuf_alloc(&din, count);
	cl_dbuf_alloc(&dw, planes);
	cl_dbuf_alloc(&dout, count);
	cl_dbuf_upload(&din, in);
	cl_dbuf_upload(&dw, w);
	cl_dbuf_poison(&dout);
	CL_CUDA_CHECK(cudaDeviceSynchronize());
	cl_ledger_begin();
	grid_volume(din.d, dw.d, dout.d, planes, rows, cols);
	const struct cl_ledger *l = finish_call(what, cfg, sizeof(cfg));
	check_guards(what, cfg, &dout, &din);
	if (values) {
		cl_dbuf_download(&dout, h);
		compare_scaled(what, cfg, in, w, h, planes, rows, cols, GRID_VOL_BLOCK_X,
			       GRID_VOL_BLOCK_Y, &l->launch[0], false);
	}
	cl_dbuf_free(&din);
	cl_dbuf_free(&dw);
	cl_dbuf_free(&dout);
	free(in);
	free(w);
	free(h);
	return l;
}

START_TEST(test_grid_volume_exact)
{
	static const int shapes[][3] = {{3, 5, 7}, {1, 1, 1}, {17, 33, 65}, {64, 16, 16},
					{2, 100, 3}, {9, 1, 200}};
	cl_device_init();
	for (const auto &s : shapes)
		run_volume(s[0], s[1], s[2], true);
}
END_TEST

START_TEST(test_grid_volume_config)
{
	cl_device_init();
	const struct cl_ledger *l = run_volume(9, 20, 30, false);
	const struct cl_launch *c = &l->launch[0];
	char cfg[160];
	cl_launch_str(l, 0, cfg, sizeof(cfg));
	ck_assert_msg(l->nlaunches == 1 && c->block.x == GRID_VOL_BLOCK_X &&
			      c->block.y == GRID_VOL_BLOCK_Y && c->block.z == GRID_VOL_BLOCK_Z &&
			      c->grid.x == 4 && c->grid.y == 3 && c->grid.z == 3,
		      "grid_volume(planes=9, rows=20, cols=30) launched %s, expected a grid of "
		      "(4,3,3) blocks of (%d,%d,%d)\nhint: x along a row (30 columns), y down the "
		      "rows (20), z across the planes (9), each rounded up", cfg, GRID_VOL_BLOCK_X,
		      GRID_VOL_BLOCK_Y, GRID_VOL_BLOCK_Z);
}
END_TEST

/* ----------------------------------------------------------------- host */

/* Calls grid_picture_host; fail_malloc >= 0 makes that cudaMalloc fail. */
static cudaError_t call_host(int m, int n, int block, int fail_malloc, const float *in,
			     float *out, const struct cl_ledger **ledger)
{
	CL_CUDA_CHECK(cudaDeviceSynchronize());
	cl_ledger_begin();
	if (fail_malloc >= 0)
		cl_ledger_fail_malloc(fail_malloc);
	cudaError_t ret = grid_picture_host(in, out, m, n, block);
	cudaDeviceSynchronize();
	cudaGetLastError();   /* what the function left behind is not the next call's */
	*ledger = cl_ledger_end();
	return ret;
}

static void check_host_values(bool leaks_only)
{
	static const int cases[][3] = {{62, 76, 16}, {1, 1000, 32}, {333, 333, 8}, {1, 1, 1}};

	cl_device_init();
	for (const auto &k : cases) {
		size_t count = (size_t)k[0] * k[1];
		float *in = random_floats(count, count + 5), *out = (float *)malloc(count * 4);
		const struct cl_ledger *l;
		char what[96];

		snprintf(what, sizeof(what), "grid_picture_host(m=%d, n=%d, block=%d)", k[0], k[1],
			 k[2]);
		memset(out, 0xff, count * 4);
		cudaError_t ret = call_host(k[0], k[1], k[2], -1, in, out, &l);
		ck_assert_msg(ret == cudaSuccess, "%s returned %s (%s) for a call that should work",
			      what, cudaGetErrorName(ret), cudaGetErrorString(ret));
		if (leaks_only) {
			ck_assert_msg(!l->nallocs,
				      "%s leaked %zu bytes of device memory (%d cudaMalloc without "
				      "cudaFree)\nhint: free both device buffers before returning",
				      what, l->alloc_bytes, l->nallocs);
			ck_assert_msg(!l->frees_unknown,
				      "%s called cudaFree on memory it did not allocate", what);
		} else {
			ck_assert_msg(l->nlaunches >= 1, "%s launched no kernel", what);
			char cfg[160];
			cl_launch_str(l, 0, cfg, sizeof(cfg));
			compare_scaled(what, cfg, in, NULL, out, 1, k[0], k[1], k[2], k[2],
				       &l->launch[0], l->pitched_allocs > 0);
		}
		free(in);
		free(out);
	}
}

START_TEST(test_grid_host_result)
{
	check_host_values(false);
}
END_TEST

START_TEST(test_grid_host_leak)
{
	check_host_values(true);
}
END_TEST

START_TEST(test_grid_host_errors)
{
	size_t count = 62 * 76;
	float *in = random_floats(count, 99), *out = (float *)malloc(count * 4);
	const struct cl_ledger *l;

	cl_device_init();
	cudaError_t ret = call_host(62, 76, 16, -1, in, out, &l);
	ck_assert_msg(ret == cudaSuccess, "grid_picture_host(m=62, n=76, block=16) returned %s "
		      "(%s): it must work before its error handling can be tested",
		      cudaGetErrorName(ret), cudaGetErrorString(ret));
	/* 64 x 64 = 4096 threads per block: a launch that cannot run */
	ret = call_host(62, 76, 64, -1, in, out, &l);
	ck_assert_msg(ret != cudaSuccess,
		      "grid_picture_host(block=64) returned cudaSuccess, but a block of 64 x 64 = "
		      "4096 threads cannot be launched (at most 1024)\nhint: after the launch, "
		      "cudaGetLastError() says whether it happened; return that error");
	ck_assert_msg(!l->nallocs, "grid_picture_host(block=64) failed (good) but leaked %zu "
		      "bytes of device memory on the way out\nhint: free what was allocated "
		      "before returning the error", l->alloc_bytes);
	for (int nth = 0; nth < 2; nth++) {
		ret = call_host(62, 76, 16, nth, in, out, &l);
		ck_assert_msg(ret != cudaSuccess,
			      "grid_picture_host returned cudaSuccess although its %s cudaMalloc "
			      "failed (cudaErrorMemoryAllocation)\nhint: check what every cudaMalloc "
			      "returns", nth ? "second" : "first");
		ck_assert_msg(!l->nallocs, "grid_picture_host: when its %s cudaMalloc failed, it "
			      "returned without freeing the other (%zu bytes leaked)",
			      nth ? "second" : "first", l->alloc_bytes);
	}
	/* and the device still works afterwards */
	ret = call_host(62, 76, 16, -1, in, out, &l);
	ck_assert_msg(ret == cudaSuccess, "grid_picture_host works once, but after a failed call "
		      "the next one returned %s", cudaGetErrorName(ret));
	free(in);
	free(out);
}
END_TEST

/* ------------------------------------------------------------ questions */

struct question {
	const char *name;
	long long want;
	const char *hint;
};

static void check_answers(const struct question *q, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		long long got = cl_answer_int(q[i].name);
		ck_assert_msg(got == q[i].want, "%s = %lld is not right\nhint: %s", q[i].name, got,
			      q[i].hint);
	}
}

/* The answers are computed here from the questions' numbers, never typed in. */
START_TEST(test_grid_questions_vector)
{
	const long long n = 2000, b = 512, threads = ceil_div(n, b) * b;
	const struct question q[] = {
		{"vector_threads", threads, "a grid is a whole number of blocks"},
		{"vector_divergent_warps", (n % 32) ? 1 : 0,
		 "only a warp with some threads below 2000 and some at or above it diverges"},
	};
	check_answers(q, 2);
}
END_TEST

START_TEST(test_grid_questions_image)
{
	const long long w = 400, hgt = 900, side = 32;   /* 32 x 32 = 1024 threads */
	const long long gx = ceil_div(w, side), gy = ceil_div(hgt, side);
	const struct question q[] = {
		{"image_block_side", side, "the largest square block within 1024 threads"},
		{"image_grid_x", gx, "blocks along the 400-pixel width, rounded up"},
		{"image_grid_y", gy, "blocks along the 900-pixel height, rounded up"},
		{"image_idle_threads", gx * gy * side * side - w * hgt,
		 "threads launched minus pixels"},
	};
	check_answers(q, 4);
}
END_TEST

START_TEST(test_grid_questions_picture)
{
	const long long blocks = ceil_div(76, 16) * ceil_div(62, 16);
	const struct question q[] = {
		{"picture_blocks", blocks, "ceil(76 / 16) blocks across times ceil(62 / 16) down"},
		{"picture_idle_threads", blocks * 256 - 76 * 62, "threads launched minus pixels"},
		{"big_picture_blocks", ceil_div(2000, 16) * ceil_div(1500, 16),
		 "ceil(2000 / 16) times ceil(1500 / 16)"},
	};
	check_answers(q, 3);
}
END_TEST

static const struct cl_test tests[] = {
	{"index", test_grid_index_d1},         {"index", test_grid_index_d2},
	{"index", test_grid_index_d3},         {"picture", test_grid_picture_exact},
	{"picture", test_grid_picture_config}, {"volume", test_grid_volume_exact},
	{"volume", test_grid_volume_config},   {"host", test_grid_host_result},
	{"host", test_grid_host_leak},         {"host", test_grid_host_errors},
	{"questions", test_grid_questions_vector}, {"questions", test_grid_questions_image},
	{"questions", test_grid_questions_picture},
};

int main(int argc, char **argv)
{
	static const struct cl_lab lab = {"grid", tests, sizeof(tests) / sizeof(tests[0]),
					  grid_setup};
	return cl_main(&lab, argc, argv);
}
