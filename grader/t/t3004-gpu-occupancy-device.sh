#!/bin/bash
# On a GPU: the occupancy lab's reference calculator agrees with the CUDA
# runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor for real kernels
# (a picture kernel, a tiled matmul, a register-heavy kernel, dynamic shared
# memory) over block sizes, on this GPU's own limits.
. "$(dirname "$0")/lib.sh"
require_gpu
CHECK=$BUILD/t/occupancy-device-check
[ -x "$CHECK" ] || { say "not ok - $CHECK is not built (make check-gpu builds it)"; exit 1; }

test_expect_success 'the reference calculator agrees with the CUDA runtime on every case' '
	"$CHECK" >out 2>&1 || { cat out; false; } &&
	grep -Eq ": [1-9][0-9]* cases, 0 disagree$" out && cat out
'
test_done
