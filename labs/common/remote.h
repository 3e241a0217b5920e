/*
 * remote.h - the line between the judge and the runner.
 *
 * A lab's tests run in two programs. The judge (the lab's Check suite, the
 * harness, the expected values; never any code of the submission's) makes
 * the inputs, computes what the outputs must be, compares, and writes every
 * verdict. The runner (the submission's object, linked with runner.cu and
 * launch.cu; nothing of the suite's) does what the judge asks of the GPU or
 * the emulator: allocate, copy, call a launcher, copy back. It is started
 * by the judge in the grader's sandbox and talks to it on one socket; it
 * never sees an expected value, the seed, the token, the logs or the judge's
 * memory. Whatever it answers is evidence, not a verdict: outputs are
 * compared by the judge, and a runner that lies about anything else (the
 * launches it made, an error) can only fail its own tests or earn what a
 * correct launch earns.
 *
 * Owns: the messages (one request, one reply, in order), and the marshalling
 * of a launcher's arguments by its declared types: pointers (device
 * addresses, which the judge never dereferences), integers, floats and
 * dim3 travel by value. A lab's calls_<lab>.cu lists its launchers once with
 * CL_REMOTE; a launcher that takes host memory writes its two halves by
 * hand with the wire below (grid's grid_picture_host, occupancy's
 * occ_blocks_per_sm).
 *
 * Must not: carry anything from the judge to the runner that a correct
 * runner does not need: inputs, sizes, buffers' addresses. Never an
 * expected value.
 */
#ifndef CL_REMOTE_H
#define CL_REMOTE_H

#include <cuda_runtime.h>

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <tuple>
#include <type_traits>
#include <utility>

#include "harness-words.h"   /* CL_NO_CONTEXT */

/*
 * Host arrays [p, p + n) the runner hands a launcher that takes host memory
 * (grid's grid_picture_host), add, and takes back, !add: emulated, the
 * checking run reports a kernel's access to them, as a GPU faults on one
 * (the emulator's CUDA threads are threads of the one process, which reach
 * all of it); on a GPU nothing to do.
 */
void cl_host_arrays(const void *p, size_t n, bool add);

/* The runner's end of the socket: its descriptor 3. */
#define CL_RUNNER_FD 3

enum cl_op : uint32_t {
	CL_OP_INIT = 1,      /* u32 flags (CL_INIT_*) -> i32 err */
	CL_OP_MALLOC,        /* u64 bytes -> i32 err, u64 address */
	CL_OP_FREE,          /* u64 address -> i32 err */
	CL_OP_TO_DEVICE,     /* u64 address, bytes... -> i32 err */
	CL_OP_TO_HOST,       /* u64 address, u64 n -> i32 err, n bytes */
	CL_OP_ON_DEVICE,     /* u64 to, u64 from, u64 n -> i32 err */
	CL_OP_MEMSET,        /* u64 address, i32 value, u64 n -> i32 err */
	CL_OP_SYNC,          /* -> i32 err (cudaDeviceSynchronize) */
	CL_OP_LAST_ERROR,    /* -> i32 err (cudaGetLastError) */
	CL_OP_ERROR_TEXT,    /* i32 err -> name, text (cudaGetErrorName, cudaGetErrorString) */
	CL_OP_LEDGER_BEGIN,  /* -> nothing (cl_ledger_begin) */
	CL_OP_FAIL_MALLOC,   /* i32 nth -> nothing (cl_ledger_fail_malloc) */
	CL_OP_LEDGER_END,    /* -> struct cl_ledger */
	CL_OP_CONTEXT_LOST,  /* -> u8 */
	CL_OP_ERROR_DETAIL,  /* -> text ("" none) */
	CL_OP_OUT_OF_MEMORY, /* -> u8, and clears it (cl_device_oom) */
	CL_OP_CALL,          /* name, arguments -> return value, outputs */
	CL_OP_HELLO,         /* -> nothing: the runner has started */
	/* the timer's (bench.h): memory it shares, and a timed call */
	CL_OP_IMPORT,        /* u64 bytes, and a descriptor (cl_send_fd) -> i32 err, u64 address */
	CL_OP_UNMAP,         /* u64 address, u64 bytes -> nothing */
	CL_OP_TIMED,         /* name ("": none), arguments -> i32 err, once the device is idle */
};

#define CL_INIT_SHARED_POISON 1u   /* cl_shared_poison: fill shared memory before launches */
#define CL_INIT_SPIN 2u            /* wait for requests and the device by spinning (timing) */

/* A reply's status: its payload follows, or the runner's message. */
enum cl_status : uint32_t {
	CL_REPLY_OK = 0,
	CL_REPLY_ABORT = 1,   /* the call failed the test: the text says how (AddressSanitizer) */
	CL_REPLY_UNKNOWN = 2, /* no such request or launcher */
};

struct cl_header {
	uint32_t what;   /* cl_op, or cl_status in a reply */
	uint32_t seq;    /* the request's number, which its reply repeats */
	uint64_t len;    /* bytes of payload that follow */
};

/* The most bytes of one message: a test's largest buffer and more. */
#define CL_MAX_MESSAGE ((uint64_t)1 << 31)

/* ---------------------------------------------------------------- the wire */

/*
 * Reads, or writes, all n bytes at p on the socket fd, through EINTR (and
 * never SIGPIPE): false at its end or on an error.
 */
static inline bool cl_io_all(int fd, void *p, size_t n, bool writing)
{
	char *c = (char *)p;
	while (n) {
		ssize_t k = writing ? send(fd, c, n, MSG_NOSIGNAL) : read(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		c += k;
		n -= (size_t)k;
	}
	return true;
}

/*
 * A descriptor over the socket, on one byte of its own (SCM_RIGHTS): sent
 * right after the request it belongs to, and read by the runner with
 * cl_recv_fd once it has read that request, never before.
 */
static inline bool cl_send_fd(int sock, int fd)
{
	char byte = 0, ctl[CMSG_SPACE(sizeof(int))] = {};
	struct iovec io = {&byte, 1};
	struct msghdr m = {};
	m.msg_iov = &io;
	m.msg_iovlen = 1;
	m.msg_control = ctl;
	m.msg_controllen = sizeof(ctl);
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	ssize_t k;
	while ((k = sendmsg(sock, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	return k == 1;
}

/* The descriptor cl_send_fd sent, or -1. */
static inline int cl_recv_fd(int sock)
{
	char byte, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec io = {&byte, 1};
	struct msghdr m = {};
	int fd = -1;
	m.msg_iov = &io;
	m.msg_iovlen = 1;
	m.msg_control = ctl;
	m.msg_controllen = sizeof(ctl);
	ssize_t k;
	while ((k = recvmsg(sock, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	struct cmsghdr *c = k == 1 ? CMSG_FIRSTHDR(&m) : NULL;
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* Bytes being written: grows as needed (ends the process on no memory). */
struct cl_wire {
	unsigned char *buf;
	size_t len, cap;
};

static inline void cl_wire_add(struct cl_wire *w, const void *p, size_t n)
{
	if (w->len + n > w->cap) {
		size_t cap = w->cap ? w->cap : 256;
		while (cap < w->len + n)
			cap *= 2;
		unsigned char *b = (unsigned char *)realloc(w->buf, cap);
		if (!b)
			abort();
		w->buf = b;
		w->cap = cap;
	}
	if (n)
		memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static inline void cl_wire_free(struct cl_wire *w)
{
	free(w->buf);
	*w = (struct cl_wire){};
}

/* Bytes being read; a read past the end sets bad and yields zeros. */
struct cl_reader {
	const unsigned char *p;
	size_t left;
	bool bad;
};

/* A pointer to the next n bytes in place (NULL, and bad set, when short). */
static inline const void *cl_read_span(struct cl_reader *r, size_t n)
{
	if (r->bad || n > r->left) {
		r->bad = true;
		return NULL;
	}
	const void *at = r->p;
	r->p += n;
	r->left -= n;
	return at;
}

static inline void cl_read(struct cl_reader *r, void *out, size_t n)
{
	const void *at = cl_read_span(r, n);
	if (at)
		memcpy(out, at, n);
	else
		memset(out, 0, n);
}

static inline void cl_put_u64(struct cl_wire *w, uint64_t v) { cl_wire_add(w, &v, 8); }
static inline void cl_put_i32(struct cl_wire *w, int32_t v) { cl_wire_add(w, &v, 4); }
static inline uint64_t cl_get_u64(struct cl_reader *r)
{
	uint64_t v = 0;
	cl_read(r, &v, 8);
	return v;
}
static inline int32_t cl_get_i32(struct cl_reader *r)
{
	int32_t v = 0;
	cl_read(r, &v, 4);
	return v;
}

/* A string: u32 length, then its bytes (no NUL). */
static inline void cl_put_str(struct cl_wire *w, const char *s)
{
	uint32_t n = s ? (uint32_t)strlen(s) : 0;
	cl_wire_add(w, &n, 4);
	cl_wire_add(w, s, n);
}

/* Into buf (cut to len - 1 bytes), NUL-terminated. */
static inline void cl_get_str(struct cl_reader *r, char *buf, size_t len)
{
	uint32_t n = 0;
	cl_read(r, &n, 4);
	const char *s = (const char *)cl_read_span(r, n);
	size_t k = s ? (n < len - 1 ? n : len - 1) : 0;
	if (k)
		memcpy(buf, s, k);
	buf[k] = '\0';
}

/* ----------------------------------------------- arguments by their types */

template <class T> inline void cl_put_arg(struct cl_wire *w, T v)
{
	if constexpr (std::is_pointer_v<T>) {
		cl_put_u64(w, (uint64_t)(uintptr_t)v);
	} else if constexpr (std::is_same_v<T, dim3>) {
		uint32_t d[3] = {v.x, v.y, v.z};
		cl_wire_add(w, d, sizeof(d));
	} else {
		static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>,
			      "a launcher's argument travels by value: a pointer, a number or dim3");
		cl_wire_add(w, &v, sizeof(v));
	}
}

template <class T> inline T cl_get_arg(struct cl_reader *r)
{
	if constexpr (std::is_pointer_v<T>) {
		return (T)(uintptr_t)cl_get_u64(r);
	} else if constexpr (std::is_same_v<T, dim3>) {
		uint32_t d[3] = {0, 0, 0};
		cl_read(r, d, sizeof(d));
		return dim3(d[0], d[1], d[2]);
	} else {
		T v{};
		cl_read(r, &v, sizeof(v));
		return v;
	}
}

/* ------------------------------------------------------ the judge's half */

/*
 * Sends request op with payload, waits for the reply into *reply (its
 * payload; the caller frees reply->buf through cl_wire_free of the wire it
 * came in). A runner that ends instead of answering ends this test's
 * process the way it ended (the same signal, or exit status), so Check
 * gives the test the verdict it gave before the two were apart; a reply of
 * CL_REPLY_ABORT fails the test with the runner's text.
 */
void cl_rpc(uint32_t op, const struct cl_wire *payload, struct cl_wire *reply);

/* A launcher's call: name, arguments; the reply's payload in *reply. */
void cl_rpc_call(const char *name, const struct cl_wire *args, struct cl_wire *reply);

template <class R> struct cl_remote_fn {
	const char *name;
	template <class... A> R operator()(A... a) const
	{
		struct cl_wire w = {}, reply = {};
		(cl_put_arg<A>(&w, a), ...);
		cl_rpc_call(name, &w, &reply);
		cl_wire_free(&w);
		if constexpr (std::is_void_v<R>) {
			cl_wire_free(&reply);
		} else {
			struct cl_reader r = {reply.buf, reply.len, false};
			R v = cl_get_arg<R>(&r);
			cl_wire_free(&reply);
			return v;
		}
	}
};

/* ------------------------------------------------------ the runner's half */

typedef void (*cl_serve_fn)(struct cl_reader *in, struct cl_wire *out);

/* Registers a launcher the judge may call by name (a static object's constructor). */
struct cl_served {
	cl_served(const char *name, cl_serve_fn fn);
};

template <auto F> struct cl_serve_of;
template <class R, class... P, R (*F)(P...)> struct cl_serve_of<F> {
	static void serve(struct cl_reader *in, struct cl_wire *out)
	{
		/* braces evaluate left to right: the arguments in their order */
		std::tuple<std::decay_t<P>...> args{cl_get_arg<std::decay_t<P>>(in)...};
		if (in->bad)
			return;
		if constexpr (std::is_void_v<R>)
			std::apply(F, args);
		else
			cl_put_arg<R>(out, std::apply(F, args));
	}
};

/*
 * CL_REMOTE(R, name, (params), (args)): a launcher of the lab's contract
 * header, declared extern "C". In the judge (CL_JUDGE) it defines the
 * function, which forwards its call to the runner; in the runner
 * (CL_RUNNER) it serves that call with the submission's own.
 */
#if defined(CL_JUDGE)
#define CL_REMOTE(R, fn, params, args) \
	extern "C" R fn params { return cl_remote_fn<R>{#fn} args; }
#elif defined(CL_RUNNER)
#define CL_REMOTE(R, fn, params, args) \
	static cl_served cl_served_##fn(#fn, cl_serve_of<&fn>::serve);
#else
#error "remote.h: build with -DCL_JUDGE or -DCL_RUNNER"
#endif

#endif
