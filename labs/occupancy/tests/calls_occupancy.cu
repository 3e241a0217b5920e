/*
 * calls_occupancy.cu - occ_blocks_per_sm, between the judge and the runner
 * (remote.h): built into both, with CL_JUDGE and with CL_RUNNER. The
 * device's description travels field by field; limits comes back.
 */
#include "remote.h"
#include "occupancy.h"

#ifdef CL_JUDGE
extern "C" int occ_blocks_per_sm(const struct occ_device *d, int threads_per_block,
				 int regs_per_thread, size_t smem_per_block, unsigned *limits)
{
	struct cl_wire w = {}, reply;
	struct occ_device copy = *d;

	copy.name = NULL;
	cl_put_str(&w, d->name);
	cl_wire_add(&w, &copy, sizeof(copy));
	cl_put_i32(&w, threads_per_block);
	cl_put_i32(&w, regs_per_thread);
	cl_put_u64(&w, smem_per_block);
	cl_put_i32(&w, limits != NULL);
	cl_put_i32(&w, limits ? (int32_t)*limits : 0);
	cl_rpc_call("occ_blocks_per_sm", &w, &reply);
	struct cl_reader r = {reply.buf, reply.len, false};
	int got = cl_get_i32(&r);
	unsigned lim = (unsigned)cl_get_i32(&r);
	if (limits)
		*limits = lim;
	cl_wire_free(&w);
	cl_wire_free(&reply);
	return got;
}
#else
static void serve_blocks_per_sm(struct cl_reader *in, struct cl_wire *out)
{
	char name[256];
	struct occ_device d;

	cl_get_str(in, name, sizeof(name));
	cl_read(in, &d, sizeof(d));
	d.name = name;
	int threads = cl_get_i32(in), regs = cl_get_i32(in);
	size_t smem = cl_get_u64(in);
	bool want = cl_get_i32(in) != 0;
	unsigned limits = (unsigned)cl_get_i32(in);
	int got = occ_blocks_per_sm(&d, threads, regs, smem, want ? &limits : NULL);
	cl_put_i32(out, got);
	cl_put_i32(out, (int32_t)limits);
}
static cl_served served_blocks_per_sm("occ_blocks_per_sm", serve_blocks_per_sm);
#endif
