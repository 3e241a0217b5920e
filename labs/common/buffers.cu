/*
 * buffers.cu - the judge's guarded device buffers and its verdict on one
 * call of a launcher (cudalab.h).
 *
 * Owns: the canaries around each buffer and reading them back, the text of
 * a launch, and what every lab fails a call for (a launch or kernel error,
 * no kernel, a leak, a free of the caller's memory). Part of the judge:
 * the buffers live on the runner's device, and every byte of them comes
 * here through the runner's replies (remote.cu).
 *
 * Must not: take the runner's word for more than it can prove: what a
 * canary holds is read back and compared here.
 */
#include "cudalab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *cl_launch_str(const struct cl_ledger *l, int i, char *buf, size_t len)
{
	if (i >= l->nlaunches || i >= CL_MAX_LAUNCHES) {
		snprintf(buf, len, "no launch");
		return buf;
	}
	const struct cl_launch *c = &l->launch[i];
	snprintf(buf, len, "%s<<<(%u,%u,%u), (%u,%u,%u)>>>", c->kernel, c->grid.x, c->grid.y,
		 c->grid.z, c->block.x, c->block.y, c->block.z);
	return buf;
}


/* --------------------------------------------------- guarded device buffers */

int cl_safety;

/* The canary word at position i of buffer serial's guards (i counts on from
 * the guard before the array to the one after it): never the NaN that
 * poisons outputs, and unlike every other buffer's at any position. */
static uint32_t canary(uint64_t serial, size_t i)
{
	uint64_t s = serial << 32 | i;
	uint32_t v = (uint32_t)cl_rand_next(&s);
	return v == 0xFFFFFFFFu ? 0xA5A5A5A5u : v;
}

/* Both guards' canaries of b, on the host: 2 * b->guard words. */
static uint32_t *canaries(const struct cl_dbuf *b)
{
	uint32_t *w = (uint32_t *)malloc(2 * b->guard * sizeof(uint32_t));

	ck_assert(w != NULL);
	for (size_t i = 0; i < 2 * b->guard; i++)
		w[i] = canary(b->serial, i);
	return w;
}

void cl_dbuf_alloc(struct cl_dbuf *b, size_t n)
{
	static uint64_t serials;

	b->n = n;
	b->guard = cl_safety ? 0 : CL_GUARD;
	b->serial = ++serials ^ (uint64_t)getpid() << 20;
	b->elem = "float";
	/*
	 * In a safety run the array ends where its allocation ends, so that the
	 * sanitizer sees a read past it. CUDA hands out memory in steps of 256
	 * or 512 bytes: an array of a whole number of steps would end where the
	 * next buffer begins, and a read one past its end would be a read of
	 * that buffer, which memcheck allows. Such an array starts 16 bytes
	 * into its allocation instead (still aligned for a float4), which
	 * leaves the allocation's tail beyond the array unused.
	 */
	size_t lead = !b->guard && n && (n * sizeof(float)) % 256 == 0 ? 4 : 0;
	CL_CUDA_CHECK(cudaMalloc((void **)&b->base, (lead + n + 2 * b->guard) * sizeof(float)));
	b->d = b->base + b->guard + lead;
	if (b->guard) {
		uint32_t *w = canaries(b);
		size_t bytes = b->guard * sizeof(uint32_t);
		CL_CUDA_CHECK(cudaMemcpy(b->base, w, bytes, cudaMemcpyHostToDevice));
		CL_CUDA_CHECK(cudaMemcpy(b->d + n, w + b->guard, bytes, cudaMemcpyHostToDevice));
		free(w);
	}
}

void cl_dbuf_free(struct cl_dbuf *b)
{
	if (b->base)
		CL_CUDA_CHECK(cudaFree(b->base));
	b->base = b->d = NULL;
}

void cl_dbuf_upload(struct cl_dbuf *b, const float *h)
{
	CL_CUDA_CHECK(cudaMemcpy(b->d, h, b->n * sizeof(float), cudaMemcpyHostToDevice));
}

void cl_dbuf_download(const struct cl_dbuf *b, float *h)
{
	CL_CUDA_CHECK(cudaMemcpy(h, b->d, b->n * sizeof(float), cudaMemcpyDeviceToHost));
}

void cl_dbuf_poison(struct cl_dbuf *b)
{
	/* 0xFFFFFFFF is a NaN: an element nobody wrote cannot pass a comparison. */
	CL_CUDA_CHECK(cudaMemset(b->d, 0xFF, b->n * sizeof(float)));
}

int cl_dbuf_check_guards(const struct cl_dbuf *b, const char *name, char *msg, size_t len)
{
	long first_before = -1, first_after = -1, nbefore = 0, nafter = 0;
	size_t G = b->guard, bytes = G * sizeof(uint32_t);

	if (!G)
		return 0;
	uint32_t *want = canaries(b), *got = (uint32_t *)malloc(2 * bytes);
	ck_assert(got != NULL);
	CL_CUDA_CHECK(cudaMemcpy(got, b->base, bytes, cudaMemcpyDeviceToHost));
	CL_CUDA_CHECK(cudaMemcpy(got + G, b->d + b->n, bytes, cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < G; i++) {
		if (got[i] != want[i]) {
			nbefore++;
			if (first_before < 0)
				first_before = (long)(G - i);  /* distance below element 0 */
		}
		if (got[G + i] != want[G + i]) {
			nafter++;
			if (first_after < 0)
				first_after = (long)i;
		}
	}
	free(want);
	free(got);
	if (nafter)
		snprintf(msg, len, "out-of-bounds write: %ld %s%s past the end of %s (%s has %zu element%s; the "
			 "first bad write is %s[%zu])", nafter, b->elem, nafter == 1 ? "" : "s", name,
			 name, b->n, b->n == 1 ? "" : "s", name, b->n + first_after);
	else if (nbefore)
		snprintf(msg, len, "out-of-bounds write: %ld %s%s before the start of %s (as far down as %s[-%ld])",
			 nbefore, b->elem, nbefore == 1 ? "" : "s", name, name, first_before);
	return nafter || nbefore ? -1 : 0;
}

void cl_assert_guards_out_in(const char *what, const char *cfg, const struct cl_dbuf *out,
			     const struct cl_dbuf *in, const char *hint)
{
	char msg[512];
	if (cl_dbuf_check_guards(out, "out", msg, sizeof(msg)) ||
	    cl_dbuf_check_guards(in, "in", msg, sizeof(msg)))
		ck_abort_msg("%s %s (launch: %s)\nhint: %s", what, msg, cfg, hint);
}

/* ------------------------------------------------------ after one call */

/*
 * The hint for a call that failed with err. detail: what the emulator saw
 * of the fault (cl_error_detail), NULL on a GPU: an access outside a
 * __shared__ array is named as that, not as one outside the caller's
 * buffers.
 */
static const char *error_hint(cudaError_t err, const char *buffers, const char *detail,
			      char *buf, size_t len)
{
	switch (err) {
	case cudaErrorInvalidConfiguration:
		return "a block has more than 1024 threads, or a grid or block dimension is 0 "
		       "or too large";
	case cudaErrorInvalidValue:
		return "a grid dimension of 0 (a division that rounds down?) or an argument "
		       "out of range";
	case cudaErrorIllegalAddress:
	case cudaErrorInvalidAddressSpace:
	case cudaErrorMisalignedAddress:
		if (detail && strstr(detail, "__shared__ array"))
			return "a thread read or wrote outside a __shared__ array: check the "
			       "indices into it, and the bounds of the loops over it";
		snprintf(buf, len, "a thread read or wrote outside %s: check the index "
			 "arithmetic and the bounds check", buffers);
		return buf;
	case cudaErrorLaunchOutOfResources:
		if (detail && strstr(detail, "no memory left"))
			return "the program had used up its memory limit before this launch: "
			       "memory allocated on the host and kept fills it";
		return "the block needs more registers or shared memory than an SM has";
	default:
		return NULL;
	}
}

const struct cl_ledger *cl_finish_call(const char *what, const char *buffers, unsigned flags,
				       char *cfg, size_t len)
{
	cudaError_t launch_err = cudaGetLastError();
	cudaError_t sync_err = cudaDeviceSynchronize();
	const struct cl_ledger *l = cl_ledger_end();
	cudaError_t err = launch_err != cudaSuccess ? launch_err : sync_err;
	char hbuf[256];

	cl_launch_str(l, 0, cfg, len);
	if (l->frees_unknown)
		ck_abort_msg("%s called cudaFree on %d pointer%s it did not allocate\nhint: %s "
			     "belong to the caller: never free them",
			     what, l->frees_unknown, l->frees_unknown == 1 ? "" : "s", buffers);
	if (err != cudaSuccess) {
		const char *detail = cl_error_detail();
		const char *hint = error_hint(err, buffers, detail, hbuf, sizeof(hbuf));
		ck_abort_msg("%s: %s %s: %s (launch: %s)%s%s%s%s", what,
			     launch_err != cudaSuccess ? "the launch failed with"
						       : "the kernel failed with",
			     cudaGetErrorName(err), cudaGetErrorString(err), cfg, detail ? "\n" : "",
			     detail ? detail : "", hint ? "\nhint: " : "", hint ? hint : "");
	}
	if (!l->nlaunches)
		ck_abort_msg("%s launched no kernel\nhint: the launcher must launch its kernel with "
			     "<<<grid, block>>>", what);
	if (l->host_copies && !(flags & CL_CALL_HOST_COPIES))
		ck_abort_msg("%s copied %zu bytes from the host into %s (%d cudaMemcpy call%s)\n"
			     "hint: the launcher's kernels compute the results on the GPU; values "
			     "computed on the host and copied in do not count", what,
			     l->host_copy_bytes, buffers, l->host_copies,
			     l->host_copies == 1 ? "" : "s");
	if (l->host_reads && !(flags & CL_CALL_HOST_READS))
		ck_abort_msg("%s copied %zu bytes from the device to the host (%d call%s of "
			     "cudaMemcpy, cudaMemcpy2D or cudaMemcpyFromSymbol)\n"
			     "hint: a launcher launches kernels and reads nothing back: values "
			     "the host computes from what it read do not count, even when a "
			     "kernel copies them in", what, l->host_read_bytes, l->host_reads,
			     l->host_reads == 1 ? "" : "s");
	if (l->nallocs && !(flags & CL_CALL_IGNORE_LEAKS))
		ck_abort_msg("%s leaked %zu bytes of device memory (%d cudaMalloc without cudaFree)",
			     what, l->alloc_bytes, l->nallocs);
	return l;
}
