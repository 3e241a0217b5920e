/*
 * calls_grid.cu - the launchers of grid.h, between the judge and the runner
 * (remote.h): built into both, with CL_JUDGE and with CL_RUNNER.
 * grid_picture_host takes host memory: its arrays travel with the call.
 */
#include "remote.h"
#include "grid.h"

CL_REMOTE(void, grid_index_1d, (int nx, int block, int *d_out), (nx, block, d_out))
CL_REMOTE(void, grid_index_2d, (int nx, int ny, dim3 block, int *d_out), (nx, ny, block, d_out))
CL_REMOTE(void, grid_index_3d, (int nx, int ny, int nz, dim3 block, int *d_out),
	  (nx, ny, nz, block, d_out))
CL_REMOTE(void, grid_picture, (const float *d_in, float *d_out, int m, int n), (d_in, d_out, m, n))
CL_REMOTE(void, grid_volume, (const float *d_in, const float *d_w, float *d_out, int planes,
			      int rows, int cols), (d_in, d_w, d_out, planes, rows, cols))

/* m, n, block; then in and out (as the caller left it), m * n floats each */
#ifdef CL_JUDGE
extern "C" cudaError_t grid_picture_host(const float *h_in, float *h_out, int m, int n, int block)
{
	struct cl_wire w = {}, reply;
	size_t bytes = m > 0 && n > 0 ? (size_t)m * n * sizeof(float) : 0;

	cl_put_i32(&w, m);
	cl_put_i32(&w, n);
	cl_put_i32(&w, block);
	cl_wire_add(&w, h_in, bytes);
	cl_wire_add(&w, h_out, bytes);
	cl_rpc_call("grid_picture_host", &w, &reply);
	struct cl_reader r = {reply.buf, reply.len, false};
	cudaError_t ret = (cudaError_t)cl_get_i32(&r);
	cl_read(&r, h_out, bytes);
	cl_wire_free(&w);
	cl_wire_free(&reply);
	return ret;
}
#else
static void serve_picture_host(struct cl_reader *in, struct cl_wire *out)
{
	int m = cl_get_i32(in), n = cl_get_i32(in), block = cl_get_i32(in);
	size_t bytes = m > 0 && n > 0 ? (size_t)m * n * sizeof(float) : 0;
	float *h_in = (float *)malloc(bytes ? bytes : 1), *h_out = (float *)malloc(bytes ? bytes : 1);

	if (!h_in || !h_out)
		abort();
	cl_read(in, h_in, bytes);
	cl_read(in, h_out, bytes);
	cl_host_arrays(h_in, bytes, true);
	cl_host_arrays(h_out, bytes, true);
	cl_put_i32(out, grid_picture_host(h_in, h_out, m, n, block));
	cl_host_arrays(h_in, bytes, false);
	cl_host_arrays(h_out, bytes, false);
	cl_wire_add(out, h_out, bytes);
	free(h_in);
	free(h_out);
}
static cl_served served_picture_host("grid_picture_host", serve_picture_host);
#endif
