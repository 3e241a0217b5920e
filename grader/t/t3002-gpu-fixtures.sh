#!/bin/bash
# On a GPU: every fixture under reference/matmul/fixtures gets exactly the
# verdict its expect file pins.
. "$(dirname "$0")/lib.sh"
require_gpu

test_fixtures matmul
test_done
