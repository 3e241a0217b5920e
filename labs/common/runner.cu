/*
 * runner.cu - the program that runs a submission's code for the judge
 * (remote.h): the submission's object, this file, the ledger's wraps
 * (launch.cu) and the lab's launchers as calls_<lab>.cu serves them.
 *
 * Owns: answering the judge's requests on descriptor CL_RUNNER_FD, one at
 * a time, in order, until the judge closes its end.
 *
 * Must not: hold or compute anything that decides a verdict. This process
 * is the submission's: everything in it (this loop included) may be
 * rewritten by the submission's code, and the judge believes none of it
 * beyond what a reply can prove.
 */
#include "cudalab.h"
#include "remote.h"
#ifndef CUDAEMU
#include "vmm.h"
#endif

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_SERVED 64

static struct {
	const char *name;
	cl_serve_fn fn;
} served[MAX_SERVED];
static int nserved;

cl_served::cl_served(const char *name, cl_serve_fn fn)
{
	if (nserved < MAX_SERVED) {
		served[nserved].name = name;
		served[nserved++].fn = fn;
	}
}

/*
 * Timing runners (CL_INIT_SPIN) wait for a request by polling the socket,
 * for up to SPIN_SECONDS before they block: waking from a blocked read
 * would add its own few microseconds, different each time, to every timed
 * call.
 */
#define SPIN_SECONDS 0.05
static bool spinning;

static double seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static bool read_all(void *p, size_t n)
{
	char *c = (char *)p;
	double give_up = spinning ? seconds() + SPIN_SECONDS : 0;

	while (n && spinning) {
		ssize_t k = recv(CL_RUNNER_FD, c, n, MSG_DONTWAIT);
		if (k > 0) {
			c += k;
			n -= (size_t)k;
			give_up = seconds() + SPIN_SECONDS;
		} else if (k == 0 || (errno != EAGAIN && errno != EINTR)) {
			return false;
		} else if (seconds() > give_up) {
			break;
		}
	}
	return cl_io_all(CL_RUNNER_FD, c, n, false);
}

static bool write_all(const void *p, size_t n)
{
	return cl_io_all(CL_RUNNER_FD, (void *)p, n, true);
}

static uint32_t serving;   /* the number of the request being answered */

static void reply(uint32_t status, const struct cl_wire *w)
{
	struct cl_header h = {status, serving, w ? w->len : 0};
	fflush(NULL);   /* what the submission printed, before the judge goes on */
	if (!write_all(&h, sizeof(h)) || (h.len && !write_all(w->buf, h.len)))
		_exit(0);   /* the judge is gone */
}

/*
 * A call that failed its test from inside (the emulator's AddressSanitizer
 * build found a bad access): the judge gets the text as the test's failure,
 * and this runner ends.
 */
extern "C" void cl_call_failed(const char *text)
{
	struct cl_wire w = {};
	cl_wire_add(&w, text, strlen(text));
	reply(CL_REPLY_ABORT, &w);
	_exit(1);
}

static void serve_call(struct cl_reader *in, struct cl_wire *out, uint32_t *status)
{
	char name[128];

	cl_get_str(in, name, sizeof(name));
	for (int i = 0; i < nserved; i++)
		if (!strcmp(served[i].name, name)) {
			served[i].fn(in, out);
			return;
		}
	*status = CL_REPLY_UNKNOWN;
}

#ifndef CUDAEMU
/* The timer's memory (vmm.h), mapped here: its address, or the error. */
static void serve_import(struct cl_reader *in, struct cl_wire *out)
{
	uint64_t bytes = cl_get_u64(in);
	int fd = cl_recv_fd(CL_RUNNER_FD), device = 0;
	const struct cl_vmm_api *v = cl_vmm();
	CUmemGenericAllocationHandle h;
	CUdeviceptr at = 0;
	CUresult e = CUDA_ERROR_INVALID_VALUE;

	if (fd >= 0 && v && cudaGetDevice(&device) == cudaSuccess) {
		e = v->import_fd(&h, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
		if (!e) {
			e = cl_vmm_map(h, bytes, device, &at);
			v->release(h);   /* the mapping keeps the memory */
		}
	}
	if (fd >= 0)
		close(fd);
	cl_put_i32(out, e);
	cl_put_u64(out, at);
}
#endif

#ifndef CUDAEMU
/* The empty call's kernel: it does nothing, but its launch and the switch
 * of the GPU to this process's context cost what a launcher's do. */
__global__ void cl_empty_kernel(void) {}
#endif

/*
 * A timed call (bench.h): the launcher, then a wait for the whole device,
 * then the answer: the launch's error, else the wait's. "": the empty
 * call, an empty kernel in the launcher's place.
 */
static void serve_timed(struct cl_reader *in, struct cl_wire *out, uint32_t *status)
{
	struct cl_reader peek = *in;
	uint32_t name_len = 0;
	cudaError_t err = cudaSuccess;

	cl_read(&peek, &name_len, 4);
	if (name_len) {
		struct cl_wire ignored = {};
		serve_call(in, &ignored, status);
		cl_wire_free(&ignored);
		err = cudaGetLastError();
	} else {
		*in = peek;
#ifndef CUDAEMU   /* timing is a GPU's */
		cl_empty_kernel<<<1, 1>>>();
		err = cudaGetLastError();
#endif
	}
	cudaError_t s = cudaDeviceSynchronize();
	cl_put_i32(out, err != cudaSuccess ? err : s);
}

static void handle(uint32_t op, struct cl_reader *in, struct cl_wire *out, uint32_t *status)
{
	cudaError_t err = cudaSuccess;
	void *p = NULL;

	switch (op) {
	case CL_OP_INIT: {
		uint32_t flags = (uint32_t)cl_get_i32(in);
		cl_shared_poison = (flags & CL_INIT_SHARED_POISON) != 0;
		spinning = (flags & CL_INIT_SPIN) != 0;
		err = cudaSetDeviceFlags(spinning ? cudaDeviceScheduleSpin
						  : cudaDeviceScheduleBlockingSync);
		if (err == cudaSuccess)
			err = cudaFree(0);
		cl_put_i32(out, err);
		break;
	}
	case CL_OP_MALLOC: {
		uint64_t n = cl_get_u64(in);
		err = cudaMalloc(&p, n);
		cl_put_i32(out, err);
		cl_put_u64(out, (uintptr_t)p);
		break;
	}
	case CL_OP_FREE:
		cl_put_i32(out, cudaFree((void *)(uintptr_t)cl_get_u64(in)));
		break;
	case CL_OP_TO_DEVICE: {
		p = (void *)(uintptr_t)cl_get_u64(in);
		cl_put_i32(out, cudaMemcpy(p, in->p, in->left, cudaMemcpyHostToDevice));
		break;
	}
	case CL_OP_TO_HOST: {
		p = (void *)(uintptr_t)cl_get_u64(in);
		uint64_t n = cl_get_u64(in);
		void *h = malloc(n ? n : 1);
		err = h ? cudaMemcpy(h, p, n, cudaMemcpyDeviceToHost) : cudaErrorMemoryAllocation;
		cl_put_i32(out, err);
		if (err == cudaSuccess)
			cl_wire_add(out, h, n);
		free(h);
		break;
	}
	case CL_OP_ON_DEVICE: {
		void *to = (void *)(uintptr_t)cl_get_u64(in);
		const void *from = (const void *)(uintptr_t)cl_get_u64(in);
		uint64_t n = cl_get_u64(in);
		cl_put_i32(out, cudaMemcpy(to, from, n, cudaMemcpyDeviceToDevice));
		break;
	}
	case CL_OP_MEMSET: {
		p = (void *)(uintptr_t)cl_get_u64(in);
		int v = cl_get_i32(in);
		uint64_t n = cl_get_u64(in);
		cl_put_i32(out, cudaMemset(p, v, n));
		break;
	}
	case CL_OP_SYNC:
		/* a barrier the checked build saw broken fails the wait, as the
		 * emulator's strict mode fails the launch */
		err = cudaDeviceSynchronize();
		cl_put_i32(out, err == cudaSuccess && cl_barrier_broken() ? cudaErrorLaunchFailure : err);
		break;
	case CL_OP_LAST_ERROR:
		cl_put_i32(out, cudaGetLastError());
		break;
	case CL_OP_ERROR_TEXT: {
		cudaError_t e = (cudaError_t)cl_get_i32(in);
		cl_put_str(out, cudaGetErrorName(e));
		cl_put_str(out, cudaGetErrorString(e));
		break;
	}
	case CL_OP_LEDGER_BEGIN:
		cl_ledger_begin();
		break;
	case CL_OP_FAIL_MALLOC:
		cl_ledger_fail_malloc(cl_get_i32(in));
		break;
	case CL_OP_LEDGER_END: {
		const struct cl_ledger *l = cl_ledger_end();
		cl_wire_add(out, l, sizeof(*l));
		break;
	}
	case CL_OP_CONTEXT_LOST: {
		unsigned char lost = cl_context_lost();
		cl_wire_add(out, &lost, 1);
		break;
	}
	case CL_OP_ERROR_DETAIL:
		cl_put_str(out, cl_error_detail());
		break;
	case CL_OP_OUT_OF_MEMORY: {
		unsigned char oom = cl_device_oom != 0;
		cl_device_oom = 0;
		cl_wire_add(out, &oom, 1);
		break;
	}
	case CL_OP_CALL:
		serve_call(in, out, status);
		break;
	case CL_OP_HELLO:
		break;
	case CL_OP_TIMED:
		serve_timed(in, out, status);
		break;
#ifndef CUDAEMU
	case CL_OP_IMPORT:
		serve_import(in, out);
		break;
	case CL_OP_UNMAP: {
		CUdeviceptr at = (CUdeviceptr)cl_get_u64(in);
		cl_vmm_unmap(at, cl_get_u64(in));
		break;
	}
#endif
	default:
		*status = CL_REPLY_UNKNOWN;
	}
}

int main(void)
{
	struct cl_wire msg = {};

	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		struct cl_header h;
		struct cl_wire out = {};
		uint32_t status = CL_REPLY_OK;
		if (!read_all(&h, sizeof(h)) || h.len > CL_MAX_MESSAGE)
			break;
		serving = h.seq;
		msg.len = 0;
		if (h.len) {
			cl_wire_add(&msg, NULL, 0);
			if (msg.cap < h.len) {
				free(msg.buf);
				msg.buf = (unsigned char *)malloc(h.len);
				msg.cap = msg.buf ? h.len : 0;
				if (!msg.buf)
					break;
			}
			if (!read_all(msg.buf, h.len))
				break;
			msg.len = h.len;
		}
		struct cl_reader in = {msg.buf, msg.len, false};
		handle(h.what, &in, &out, &status);
		if (in.bad)
			status = CL_REPLY_UNKNOWN;
		reply(status, status == CL_REPLY_OK ? &out : NULL);
		cl_wire_free(&out);
	}
	/* the judge closed its end: done, with nothing of the submission's run after */
	fflush(NULL);
	_exit(0);
}
