/*
 * runtime/error-names.cc - part of the CPU emulator's runtime: the names and
 * strings of the errors. One translation unit with ../runtime.cc, which
 * includes it in order and says what the runtime owns and must not do: never
 * compiled alone.
 */
/* ------------------------------------------------------------ error names */

namespace {
struct error_text {
	cudaError_t e;
	const char *name, *text;
};
const error_text errors[] = {
	{cudaSuccess, "cudaSuccess", "no error"},
	{cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
	{cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
	{cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
	{cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
	 "invalid configuration argument"},
	{cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection",
	 "invalid copy direction for memcpy"},
	{cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
	{cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
	{cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
	{cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
	{cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
	{cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
	{cudaErrorIllegalAddress, "cudaErrorIllegalAddress",
	 "an illegal memory access was encountered"},
	{cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
	{cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources",
	 "too many resources requested for launch"},
	{cudaErrorMisalignedAddress, "cudaErrorMisalignedAddress", "misaligned address"},
	{cudaErrorInvalidAddressSpace, "cudaErrorInvalidAddressSpace",
	 "operation not supported on global/shared address space"},
	{cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered"},
	{cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
	{cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
	{cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle",
	 "invalid resource handle"},
	{cudaErrorNotYetImplemented, "cudaErrorNotYetImplemented",
	 "function not yet implemented"},
	{cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

const error_text *lookup(cudaError_t e)
{
	for (const error_text &t : errors)
		if (t.e == e)
			return &t;
	return NULL;
}

const char *error_name(cudaError_t e)
{
	const error_text *t = lookup(e);
	return t ? t->name : "cudaErrorUnknown";
}
} // namespace

extern "C" const char *cudaGetErrorString(cudaError_t e)
{
	const error_text *t = lookup(e);
	return t ? t->text : "unrecognized error code";
}
