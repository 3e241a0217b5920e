#!/bin/bash
# Gradescope runs this once, as root, when it builds the autograder's image
# (Ubuntu): the Debian packages cudalab lists (ci/debian-packages.txt, as
# `make deps` installs them), the CUDA Toolkit's compiler and runtime from
# NVIDIA's repository for this Ubuntu where nvcc is missing, then cudalab
# itself, built in source/cudalab. Gradescope's machines have no GPU: nvcc
# builds each submission as on a GPU machine, and the tests run on
# cudalab's CPU emulator.
#   CUDALAB_CUDA_PACKAGES   the toolkit's packages (default: nvcc, the
#                           runtime and CCCL of CUDA 13.0)
set -euo pipefail
cd "$(dirname "$0")/cudalab"
export DEBIAN_FRONTEND=noninteractive
bash ci/deps.sh
if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
	# shellcheck source=/dev/null
	. /etc/os-release
	repo=https://developer.download.nvidia.com/compute/cuda/repos/$ID${VERSION_ID//./}/$(uname -m)
	echo "setup: the CUDA Toolkit from $repo" >&2
	apt-get install -y -qq --no-install-recommends ca-certificates curl >/dev/null
	curl -fsSL -o /tmp/cuda-keyring.deb "$repo/cuda-keyring_1.1-1_all.deb"
	dpkg -i /tmp/cuda-keyring.deb
	rm -f /tmp/cuda-keyring.deb
	apt-get update -qq
	# shellcheck disable=SC2086 # a list of packages
	apt-get install -y -qq --no-install-recommends \
		${CUDALAB_CUDA_PACKAGES:-cuda-nvcc-13-0 cuda-cudart-dev-13-0 cuda-cccl-13-0} >/dev/null
fi
export PATH=$PATH:/usr/local/cuda/bin
make -j"$(nproc)" all
# The submission's programs run as this user, never as root (docs/sandbox.md,
# "The sandbox"; CUDALAB_SANDBOX_USER names another, which must exist); the
# autograder's own files stay root's, and the lab's hidden tests' sources
# root's alone.
if [ -z "${CUDALAB_SANDBOX_USER:-}" ] && ! id cudalab-sandbox >/dev/null 2>&1; then
	useradd --system --no-create-home --shell /usr/sbin/nologin cudalab-sandbox
fi
chmod -R go-w .
chmod -R go-rwx labs/*/tests/hidden 2>/dev/null || true
