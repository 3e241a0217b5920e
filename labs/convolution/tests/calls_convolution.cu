/*
 * calls_convolution.cu - the launchers of convolution.h, between the judge
 * and the runner (remote.h): built into both, with CL_JUDGE and with
 * CL_RUNNER.
 *
 * conv_const and conv_tiled take the mask in host memory: its weights travel
 * with the call, after the other arguments (d_in, d_out, width, height, r,
 * then (2r + 1)^2 floats), and the runner hands the launcher its own copy.
 * The timer (bench_convolution.cu) writes its calls of them the same way.
 */
#include "remote.h"
#include "convolution.h"

CL_REMOTE(void, conv_basic, (const float *d_in, const float *d_mask, float *d_out, int width,
			     int height, int r), (d_in, d_mask, d_out, width, height, r))

/* The weights of a mask of radius r that travel: none for a radius out of range. */
static inline size_t conv_mask_floats(int r)
{
	return r >= 0 && r <= CONV_MAX_RADIUS ? (size_t)(2 * r + 1) * (2 * r + 1) : 0;
}

#ifdef CL_JUDGE
static void call_host_mask(const char *name, const float *d_in, const float *h_mask,
			   float *d_out, int width, int height, int r)
{
	struct cl_wire w = {}, reply = {};

	cl_put_arg(&w, d_in);
	cl_put_arg(&w, d_out);
	cl_put_i32(&w, width);
	cl_put_i32(&w, height);
	cl_put_i32(&w, r);
	cl_wire_add(&w, h_mask, conv_mask_floats(r) * sizeof(float));
	cl_rpc_call(name, &w, &reply);
	cl_wire_free(&w);
	cl_wire_free(&reply);
}

extern "C" void conv_const(const float *d_in, const float *h_mask, float *d_out, int width,
			   int height, int r)
{
	call_host_mask("conv_const", d_in, h_mask, d_out, width, height, r);
}

extern "C" void conv_tiled(const float *d_in, const float *h_mask, float *d_out, int width,
			   int height, int r)
{
	call_host_mask("conv_tiled", d_in, h_mask, d_out, width, height, r);
}
#else
typedef void (*conv_host_mask_fn)(const float *, const float *, float *, int, int, int);

static void serve_host_mask(conv_host_mask_fn fn, struct cl_reader *in)
{
	float h_mask[CONV_MAX_WIDTH * CONV_MAX_WIDTH];
	const float *d_in = cl_get_arg<const float *>(in);
	float *d_out = cl_get_arg<float *>(in);
	int width = cl_get_i32(in), height = cl_get_i32(in), r = cl_get_i32(in);

	cl_read(in, h_mask, conv_mask_floats(r) * sizeof(float));
	if (!in->bad)
		fn(d_in, h_mask, d_out, width, height, r);
}

static void serve_const(struct cl_reader *in, struct cl_wire *)
{
	serve_host_mask(conv_const, in);
}

static void serve_tiled(struct cl_reader *in, struct cl_wire *)
{
	serve_host_mask(conv_tiled, in);
}

static cl_served served_const("conv_const", serve_const);
static cl_served served_tiled("conv_tiled", serve_tiled);
#endif
