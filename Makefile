# GPU radix sort course - top-level Makefile.
#
#   make                 build every stage and every test program
#   make 03_split_k1     build one stage (its binary lands in build/bin/03_split_k1)
#   make run             run every stage at its defaults and print one table (no GPU: the
#                        CPU build of stage 01 alone)
#   make test            build and run all tests, several at once, a line each as it ends:
#                        "N passed, N failed, N skipped"; FULL=1: the long batteries too;
#                        no GPU: the CPU build's tests (CUDA=1: every stage built, as CI)
#   make sanitize        GPU tests under compute-sanitizer (no GPU: skipped, exit 0)
#   make bench           write build/bench/<machine>/*.csv (needs a GPU for stages 02+)
#   make profile STAGE=NN  Nsight Compute on one stage, report in build/profile/<gpu>/
#   make limits          measure the GPU's floors: build/limits/<gpu>/limits.csv
#   make tables          refill the result tables of READMEs and decks from results/*/*.csv
#   make docs            the READMEs, ANSWERS and INSTRUCTOR.md from docs/src/ (their sources,
#                        with each figure's marker), without the markers
#   make plots           draw the CSVs as SVG charts under build/ (needs gnuplot)
#   make slides          render slides/*.md to build/slides/ (HTML; PDF with Chromium)
#   make steps           the course's path (steps.txt): each step, its file, its lesson
#   make diff FROM=03 TO=04   diff -u of two steps' files (and the names of the .cuh
#                             files one step's file includes and the other's not); a stage
#                             of several steps by its number: FROM=04 TO=05 is 04 -> 05.1
#   make diff06 FROM=3 TO=4   the same for two versions of stage 06 (steps 06.3, 06.4)
#   make fit             which GPU step launches on which architecture (sm_75 .. sm_90), at
#                        what occupancy (tools/fit-check.sh; no GPU needed)
#   make device-check    what tools/device-check.sh runs on a GPU machine
#   make handout STEP=01 a student's starting point for one step, its lesson cut out:
#                        build/handout/01/ and its .tar.gz (LEVEL=guided: smaller holes)
#   make grade STEP=01 WORK=file|folder   build a student's work on the step, run its tests, time
#                        it against the course's: "GRADE step=01 ... score=N/100"
#   make grade-class STEP=01 CLASS=folder   the same for every student's file or folder in
#                        it, one after the other: a line each, and a CSV under build/grade/
#   make print-tests     the tests make test runs
#   make help            this list
#   make clean           remove build/
#   make distclean       remove build/ and slides/node_modules (marp-cli, which
#                        tools/setup-slides.sh installs for make slides)
#
# Nothing but build/ is written unless asked: SAVE=1 makes bench, plots, profile and
# limits write into results/ (the course's reference results, committed).
# Variables: ARCH=sm_86 (or a list, "sm_80 sm_90"; ARCH=all: the portable list),
# CUDA=0 (the CPU build: stage 01 and its tests with the C compiler alone, in build/cpu/),
# DEBUG=1 (device code with -G), NN_MMA=m8n8k16 (stage 06's tensor cores in Turing's shape on
# every GPU), V=1 (print every build command whole), SAVE=1 (above),
# FULL=1 (make test's long batteries), TEST_JOBS / TEST_TIMEOUT (tools/run-tests.sh).
# A change of ARCH, DEBUG or the compilers rebuilds everything they touch.
# make run / test / bench / sanitize build in parallel (one job per core)
# unless -j is given.

ifndef NVCC
NVCC := $(or $(shell command -v nvcc 2>/dev/null),/usr/local/cuda/bin/nvcc)
endif
ifeq ($(origin CC),default)
CC := gcc
endif

# ---- a GPU here? --------------------------------------------------------------
# What nvidia-smi reports: the GPU's compute capability (9.0 -> 90), or nothing.  A GPU
# that nvidia-smi cannot name but whose device file is there still counts as one.
GPU_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | grep -E '^[0-9]+\.[0-9]+$$' | head -n 1 | tr -d .)
HAVE_GPU := $(if $(GPU_CC)$(wildcard /dev/nvidia0 /dev/dxg),1,0)

# ---- the CUDA build, or the CPU build -------------------------------------------
# CUDA=1 builds everything with nvcc into build/.  CUDA=0 is the CPU build: the stages
# that run on the CPU (01) and their tests, by the C compiler alone, with no CUDA header
# or library (common/no_gpu.c stands in for the files that call CUDA), into build/cpu/.
# It is what a machine without nvcc builds, and what `make run` builds on a machine
# without a GPU, where no other stage could run.
ifndef CUDA
CUDA := $(if $(shell test -x '$(NVCC)' && echo yes),1,0)
endif
ifneq ($(filter-out 0 1,$(CUDA)),)
$(error CUDA="$(CUDA)": 1 builds every stage with nvcc, 0 the CPU build (stage 01 alone, gcc))
endif
ifeq ($(CUDA),0)
BUILD := build/cpu
else
BUILD := build
# The toolkit root comes from nvcc itself (its --dryrun prints TOP=<root>), not
# from where nvcc sits on PATH: /usr/local/bin/nvcc may be a wrapper script
# whose directory holds no CUDA headers.
ifndef CUDA_PATH
CUDA_PATH := $(realpath $(shell $(NVCC) --dryrun -c -x cu /dev/null -o /dev/null 2>&1 | sed -n 's/.*TOP=//p'))
CUDA_PATH := $(or $(CUDA_PATH),/usr/local/cuda)
endif
ifeq ($(wildcard $(CUDA_PATH)/include/cuda_runtime_api.h),)
$(warning no CUDA headers in $(CUDA_PATH)/include (nvcc: $(NVCC)); set CUDA_PATH=/path/to/cuda)
endif
endif

# ---- GPU architectures -------------------------------------------------------
# Without ARCH, build for the GPU that nvidia-smi reports: one architecture, the
# quickest build.  With no GPU, and with ARCH=all, for the portable list from Turing
# to Hopper (sm_75 sm_80 sm_86 sm_89 sm_90) plus PTX for the newest, so that the
# binaries also run on later GPUs: what CI builds, and what to hand out.
PORTABLE_ARCH := sm_75 sm_80 sm_86 sm_89 sm_90
ifeq ($(origin ARCH),undefined)
ifneq ($(GPU_CC),)
ARCH := sm_$(GPU_CC)
ARCH_SOURCE := the GPU found by nvidia-smi
else
ARCH := $(PORTABLE_ARCH)
ARCH_SOURCE := no GPU found, the portable list
endif
else ifeq ($(strip $(ARCH)),all)
override ARCH := $(PORTABLE_ARCH)
ARCH_SOURCE := ARCH=all, the portable list
else
ARCH_SOURCE := ARCH on the command line
endif
# "ARCH=86" or "ARCH=compute_86" would reach nvcc as a fatal error: say what to write.
BAD_ARCH := $(shell printf '%s\n' $(ARCH) | grep -vE '^sm_[0-9]+a?$$')
ifneq ($(BAD_ARCH),)
$(error ARCH="$(ARCH)": name each GPU architecture as sm_NN, for example ARCH=sm_$(firstword $(subst compute_,,$(subst sm_,,$(BAD_ARCH)))) (or a list: ARCH="sm_80 sm_90"))
endif
NEWEST_ARCH := $(lastword $(ARCH))
GENCODE := $(foreach a,$(ARCH),-gencode arch=compute_$(a:sm_%=%),code=$(a)) \
           -gencode arch=compute_$(NEWEST_ARCH:sm_%=%),code=compute_$(NEWEST_ARCH:sm_%=%)

# ---- flags --------------------------------------------------------------------
INCLUDES := -Icommon $(if $(filter 1,$(CUDA)),-I$(CUDA_PATH)/include)
CFLAGS := -std=c11 -O2 -Wall -Wextra -Werror -MMD -MP $(INCLUDES)
# .cu files are compiled as C++20 so that C-style designated initialisers
# ({.bits = 4}) are standard; omitted fields are zero, as in C, hence no
# missing-field-initializers warning.
# Compiling (not linking), nvcc also writes what ptxas reports of each kernel - registers,
# shared memory, for each architecture - beside the object (tools/fit-check.sh reads it).
NVCC_C = tools/nvcc-resources.sh $(NVCC)
NVCCFLAGS := -std=c++20 -O3 $(GENCODE) -Werror all-warnings \
             -Xcompiler -Wall,-Wextra,-Werror,-Wno-missing-field-initializers -MMD -MP $(INCLUDES)
# NN_MMA=m8n8k16: stage 06's tensor-core passes multiply in Turing's shape (four m8n8k16
# instructions a tile) on every GPU, so that a newer GPU tests the path a T4 runs.
ifeq ($(NN_MMA),m8n8k16)
NVCCFLAGS += -DNN_MMA_M8N8K16
endif
ifeq ($(DEBUG),1)
CFLAGS += -g -O0 -DSORT_DEBUG_SYNC
NVCCFLAGS += -G -g -DSORT_DEBUG_SYNC
else
NVCCFLAGS += -lineinfo
endif
LDLIBS := -lpthread -ldl
# Programs are linked by nvcc (the CUDA runtime, the device code of every object), or in
# the CPU build by the C compiler.
ifeq ($(CUDA),0)
LINK = $(CC)
LDLIBS += -lm
CPU_BUILD_WHY := $(if $(filter command line environment,$(origin CUDA)),CUDA=0,$(if $(HANDOUT_CPU_STEP),a handout of \
    the CPU stage (CUDA=1 builds with nvcc),no nvcc found ($(NVCC)))): stage 01 and its tests, with $(CC) alone
else
LINK = $(NVCC) $(GENCODE)
endif

# Quiet by default: one short line per file built ("  NVCC  05_warp_shuffle/radix_sort.cu"),
# the flags once at the start; V=1 prints every command whole.
ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-5s %s\n' '$(1)' '$(2)'
endif

# The flags, once, by the make that builds: the targets that run something build through
# a second make (BUILD_ALL), which prints them - after their own checks, so that a target
# refused for a missing tool or GPU prints no flags at all.
ifeq ($(filter clean distclean diff diff06 steps help tables plots slides run test sanitize bench profile \
               limits fit device-check handout grade grade-class race print-%,$(MAKECMDGOALS)),)
ifeq ($(CUDA),0)
$(info [build] the CPU build, into $(BUILD)/: $(CPU_BUILD_WHY))
$(info [build] CC   = $(CC) $(CFLAGS))
else
$(info [build] ARCH = $(ARCH)  ($(ARCH_SOURCE)))
$(info [build] CC   = $(CC) $(CFLAGS))
$(info [build] NVCC = $(NVCC) $(NVCCFLAGS))
endif
endif

# ---- rebuild when the flags change ---------------------------------------------
# build/flags holds the compilers and flags of the last build.  Every object
# depends on it, and it is rewritten only when they change: `make ARCH=sm_80`
# after `make` rebuilds, a second `make ARCH=sm_80` does nothing.  The compile command
# (NVCC_C) is part of it, so that a build from before it kept ptxas's reports rebuilds.
FLAGS_FILE := $(BUILD)/flags
FLAGS_NOW := $(CC) $(CFLAGS) | $(if $(filter 1,$(CUDA)),$(NVCC_C) $(NVCCFLAGS) | )$(LDLIBS)
ifneq ($(filter-out clean distclean diff diff06 steps help tables plots slides handout,$(or $(MAKECMDGOALS),all)),)
ifneq ($(file <$(FLAGS_FILE)),$(FLAGS_NOW))
$(shell mkdir -p $(BUILD))
$(file >$(FLAGS_FILE),$(FLAGS_NOW))
endif
endif
$(FLAGS_FILE):
	@mkdir -p $(@D)
	$(file >$@,$(FLAGS_NOW))

# One job per core for the targets that build before they run, unless the
# command line gave -j (then MAKEFLAGS holds it, or the jobserver it started).  Their
# recipes start with '+': make hands its jobserver only to a recipe that names $(MAKE)
# itself, and these name it through a variable.
NPROC := $(shell nproc 2>/dev/null || echo 2)
JOBS = $(if $(findstring jobserver,$(MAKEFLAGS))$(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))
BUILD_ALL = $(MAKE) $(if $(filter 1,$(V)),,-s) --no-print-directory $(JOBS) all
BUILD_STAGES = $(MAKE) $(if $(filter 1,$(V)),,-s) --no-print-directory $(JOBS) stages

# ---- what exists --------------------------------------------------------------
# A sort stage is a directory NN_name holding radix_sort.c or radix_sort.cu, or - a
# stage of several steps (05) - step1_*.cu, step2_*.cu ... and a steps.c that lists
# them; any other stage (06) brings its own build rules in NN_name/rules.mk.
SORT_STAGES := $(sort $(patsubst %/,%,$(dir $(wildcard [0-9][0-9]_*/radix_sort.c \
                 [0-9][0-9]_*/radix_sort.cu [0-9][0-9]_*/step1_*.cu))))
OTHER_STAGES := $(sort $(patsubst %/,%,$(dir $(wildcard [0-9][0-9]_*/rules.mk))))
ALL_STAGES := $(sort $(SORT_STAGES) $(OTHER_STAGES))
# The stages that run on the CPU (their algorithm is C: radix_sort.c), the only ones of
# the CPU build, which names the others when it is asked to run or test them.
CPU_STAGES := $(sort $(patsubst %/,%,$(dir $(wildcard [0-9][0-9]_*/radix_sort.c))))
ALL_SORT_STAGES := $(SORT_STAGES)
ifeq ($(CUDA),0)
STAGES := $(CPU_STAGES)
SORT_STAGES := $(CPU_STAGES)
else
STAGES := $(ALL_STAGES)
endif
NOT_BUILT_STAGES := $(filter-out $(STAGES),$(ALL_STAGES))

# common/: the files that call CUDA (gpu.c, step_timer.c, the .cu files), or in the CPU
# build no_gpu.c, which stands in for them
COMMON_C := $(filter-out common/driver.c common/one_step.c common/race.c,$(wildcard common/*.c))
ifeq ($(CUDA),0)
COMMON_C := $(filter-out common/gpu.c common/step_timer.c,$(COMMON_C))
COMMON_CU :=
else
COMMON_C := $(filter-out common/no_gpu.c,$(COMMON_C))
COMMON_CU := $(wildcard common/*.cu)
endif
COMMON_OBJ := $(COMMON_C:%.c=$(BUILD)/obj/%.o) $(COMMON_CU:%.cu=$(BUILD)/obj/%.o)
LIBCOMMON := $(BUILD)/lib/libcommon.a
DRIVER_OBJ := $(BUILD)/obj/common/driver.o

# The step files of a stage of several steps (none for a stage of one step), and
# the step number K of a file stepK_name.cu.
step_files = $(strip $(sort $(wildcard $(1)/step[0-9]_*.cu)) $(sort $(wildcard $(1)/step[0-9][0-9]_*.cu)))
step_number = $(patsubst step%,%,$(firstword $(subst _, ,$(notdir $(1)))))
# The objects of a stage's program: its algorithm file and common/one_step.c, or its
# steps (renamed, below) and its steps.c.
stage_objs = $(if $(call step_files,$(1)),\
    $(patsubst %.cu,$(BUILD)/obj/%.step.o,$(call step_files,$(1))) $(BUILD)/obj/$(1)/steps.o,\
    $(BUILD)/obj/$(1)/radix_sort.o $(BUILD)/obj/common/one_step.o)
stage_obj = $(BUILD)/obj/$(1)/radix_sort.o
# A stage's test program links the stage's object, or - where the stage has a
# test_hooks.cu, which includes the algorithm file to reach its kernels one step
# at a time - that file's object in its place.
stage_test_obj = $(if $(wildcard $(1)/test_hooks.cu),$(BUILD)/obj/$(1)/test_hooks.o,$(call stage_obj,$(1)))

# Test programs: tests/test_<name>.c or .cu -> build/tests/test_<name>; a stage of
# several steps gets one per step, test_<stage>_K, from the same tests/test_<stage>.c.
TEST_SRC := $(wildcard tests/test_*.c tests/test_*.cu)
MULTI_STEP_STAGES = $(foreach s,$(ALL_SORT_STAGES),$(if $(call step_files,$(s)),$(s)))
STEP_TEST_BINS = $(foreach s,$(MULTI_STEP_STAGES),\
    $(foreach f,$(call step_files,$(s)),$(BUILD)/tests/test_$(s)_$(call step_number,$(f))))
TEST_BINS := $(sort $(filter-out $(MULTI_STEP_STAGES:%=$(BUILD)/tests/test_%),\
    $(patsubst tests/%,$(BUILD)/tests/%,$(basename $(TEST_SRC)))) $(STEP_TEST_BINS))
TEST_SCRIPTS := $(wildcard tests/test_*.sh)
# test programs that never touch the GPU (make sanitize leaves them out)
CPU_TESTS := $(BUILD)/tests/test_harness $(BUILD)/tests/test_01_sequential $(BUILD)/tests/test_06_nn_cpu
# The CPU build's tests: its stages' test programs, and the scripts of its stages
# (test_*_01_*.sh, test_*_01.sh) or of no stage and no GPU (test_docs.sh ...); the
# others are named as not built when make test runs.
ifeq ($(CUDA),0)
stage_numbers := $(foreach s,$(ALL_STAGES),$(firstword $(subst _, ,$(s))))
cpu_numbers := $(foreach s,$(CPU_STAGES),$(firstword $(subst _, ,$(s))))
script_numbers = $(filter $(stage_numbers),$(subst _, ,$(basename $(notdir $(1)))))
CPU_BUILD_SCRIPTS := $(foreach t,$(TEST_SCRIPTS),$(if $(call script_numbers,$(t)),\
    $(if $(filter $(cpu_numbers),$(call script_numbers,$(t))),$(t)),$(if $(findstring gpu,$(t)),,$(t))))
CPU_BUILD_TESTS := $(foreach s,$(CPU_STAGES),$(BUILD)/tests/test_$(s))
NOT_BUILT_TESTS := $(notdir $(filter-out $(CPU_BUILD_TESTS),$(TEST_BINS)) \
                            $(filter-out $(CPU_BUILD_SCRIPTS),$(TEST_SCRIPTS)))
TEST_BINS := $(CPU_BUILD_TESTS)
TEST_SCRIPTS := $(CPU_BUILD_SCRIPTS)
endif
TEST_SUPPORT_C := tests/sort_battery.c
TEST_SUPPORT_CU := $(wildcard tests/gpu_*.cu)

# make test STAGE_TESTS=NN (what `cd NN_stage && make test` runs): only the test programs and
# scripts of stage NN, those named with its number (test_NN_*, test_cli_NN_*.sh,
# test_grade_NN.sh ...), after building that stage alone
ifdef STAGE_TESTS
named_with = $(foreach t,$(2),$(if $(filter $(1),$(subst _, ,$(basename $(notdir $(t))))),$(t)))
TEST_BINS := $(call named_with,$(STAGE_TESTS),$(TEST_BINS))
TEST_SCRIPTS := $(call named_with,$(STAGE_TESTS),$(TEST_SCRIPTS))
NOT_BUILT_TESTS := $(call named_with,$(STAGE_TESTS),$(NOT_BUILT_TESTS))
TESTS_BUILD = $(MAKE) $(if $(filter 1,$(V)),,-s) --no-print-directory $(JOBS) \
    $(filter $(STAGE_TESTS)_%,$(STAGES))
else
TESTS_BUILD = $(BUILD_ALL)
endif

.PHONY: all stages run test sanitize bench profile plots slides tables docs diff diff06 steps fit limits clean distclean \
        help race device-check handout grade grade-class print-tests print-build $(STAGES)
.DEFAULT_GOAL := all

# (limits: not in a lab handout, which leaves tools/limits.cu out: its mma answers 06.8's hole)
all: stages $(TEST_BINS) $(if $(filter 1,$(CUDA)),$(if $(wildcard tools/limits.cu),$(BUILD)/bin/limits) \
    $(if $(wildcard tools/nccl_alltoall.cu),$(BUILD)/bin/nccl_alltoall))
# every stage's program, and nothing else: what make run and make bench run
stages: $(STAGES:%=$(BUILD)/bin/%)

help:
	@sed -n '2,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

# ---- objects ------------------------------------------------------------------
$(BUILD)/obj/%.o: %.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.cu $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(call say,NVCC,$<)
	$(Q)$(NVCC_C) $(NVCCFLAGS) -c $< -o $@

$(LIBCOMMON): $(COMMON_OBJ)
	@mkdir -p $(@D)
	$(call say,AR,$@)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

# A step of a stage of several steps, as its stage's program links it: the step's
# STAGE and functions renamed stepK_... (sort_stage.h, STAGE_STEPS), and every
# other symbol made local to the object, so that the steps' kernels and helpers of
# the same name (each step is a whole copy of the one before) do not clash (but for
# the compiler's shared DW.ref.* words, which other objects refer to).
STEP_RENAMES = $(foreach f,STAGE stage_check_options stage_device_bytes stage_step_bytes \
                 stage_sort stage_sort_pairs,-D$(f)=step$(1)_$(f))
# renamed_object SOURCE,DEFINES,KEEP,OBJECT: SOURCE (C or CUDA) compiled with DEFINES (the
# renames), every global symbol but those matching KEEP made local
renamed_object = $(if $(filter %.c,$(1)),$(CC) $(CFLAGS),$(NVCC_C) $(NVCCFLAGS)) $(2) -c $(1) -o $(4) && \
    objcopy -w --keep-global-symbol='$(3)' --keep-global-symbol='DW.ref.*' $(4)
# step_object SOURCE,K,OBJECT: SOURCE compiled as step K, renamed and localised
step_object = $(call renamed_object,$(1),$(call STEP_RENAMES,$(2)),step$(2)_*,$(3))
$(BUILD)/obj/%.step.o: %.cu $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(call say,NVCC,$< (step $(call step_number,$*)))
	$(Q)$(call step_object,$<,$(call step_number,$*),$@) || { rm -f $@; exit 1; }

# ---- one rule per sort stage --------------------------------------------------
# build/bin/<stage>: the stage's algorithm file (or its steps) + the shared driver + common.
define SORT_STAGE_RULES
$(1): $(BUILD)/bin/$(1) $(if $(call step_files,$(1)),$(filter $(BUILD)/tests/test_$(1)_%,$(STEP_TEST_BINS)),$(BUILD)/tests/test_$(1))
$(BUILD)/bin/$(1): $(call stage_objs,$(1)) $(DRIVER_OBJ) $(LIBCOMMON)
	@mkdir -p $$(@D)
	$$(call say,LINK,$$@)
	$$(Q)$$(LINK) $$^ -o $$@ $$(LDLIBS)
endef
# its test program (a stage of one step)
define SORT_TEST_RULES
$(BUILD)/tests/test_$(1): $(BUILD)/obj/tests/test_$(1).o $(BUILD)/obj/tests/sort_battery.o \
                          $(call stage_test_obj,$(1)) $(LIBCOMMON)
	@mkdir -p $$(@D)
	$$(call say,LINK,$$@)
	$$(Q)$$(LINK) $$^ -o $$@ $$(LDLIBS)
endef
$(foreach s,$(SORT_STAGES),$(eval $(call SORT_STAGE_RULES,$(s))))
$(foreach s,$(filter-out $(MULTI_STEP_STAGES),$(SORT_STAGES)),$(eval $(call SORT_TEST_RULES,$(s))))

# A stage of several steps: step K's test program is tests/test_<stage>.c built with
# -DSTEP=K, linked with the stage's test_hooks.cu built around step K's file.
define STEP_TEST_RULES
$(BUILD)/obj/tests/test_$(1)_$(2).o: tests/test_$(1).c $(FLAGS_FILE)
	@mkdir -p $$(@D)
	$$(call say,CC,$$< (step $(2)))
	$$(Q)$$(CC) $$(CFLAGS) -DSTEP=$(2) -c $$< -o $$@
$(BUILD)/obj/$(1)/test_hooks_$(2).o: $(1)/test_hooks.cu $(3) $(FLAGS_FILE)
	@mkdir -p $$(@D)
	$$(call say,NVCC,$$< (step $(2)))
	$$(Q)$$(NVCC_C) $$(NVCCFLAGS) -DSTEP=$(2) -DSTEP_FILE='"$(notdir $(3))"' -c $$< -o $$@
$(BUILD)/tests/test_$(1)_$(2): $(BUILD)/obj/tests/test_$(1)_$(2).o $(BUILD)/obj/tests/sort_battery.o \
                               $(BUILD)/obj/$(1)/test_hooks_$(2).o $(LIBCOMMON)
	@mkdir -p $$(@D)
	$$(call say,LINK,$$@)
	$$(Q)$$(LINK) $$^ -o $$@ $$(LDLIBS)
endef
$(foreach s,$(MULTI_STEP_STAGES),$(foreach f,$(call step_files,$(s)),\
    $(eval $(call STEP_TEST_RULES,$(s),$(call step_number,$(f)),$(f)))))

# Harness tests: test_harness is CPU-only; test_gpu_common exercises CUB and
# the device timers (and skips without a GPU).
$(BUILD)/tests/test_harness: $(BUILD)/obj/tests/test_harness.o $(LIBCOMMON)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(LINK) $^ -o $@ $(LDLIBS)

$(BUILD)/tests/test_gpu_common: $(BUILD)/obj/tests/test_gpu_common.o \
                                $(TEST_SUPPORT_CU:%.cu=$(BUILD)/obj/%.o) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(LINK) $^ -o $@ $(LDLIBS)

# The GPU's floors (make limits): a tool, not a stage.
ifeq ($(CUDA),1)
$(BUILD)/bin/limits: $(BUILD)/obj/tools/limits.o $(LIBCOMMON)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(LINK) $^ -o $@ $(LDLIBS)
endif

# NCCL's own rate for stage 08's exchange (tools/nccl_alltoall.cu): a tool, not a stage.
ifeq ($(CUDA),1)
$(BUILD)/bin/nccl_alltoall: $(BUILD)/obj/tools/nccl_alltoall.o $(LIBCOMMON)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(LINK) $^ -o $@ -lnccl $(LDLIBS)
endif

# The grader's race (tools/grade.sh): make race RACE_FILE=<a step's file> RACE_COURSE=<the
# course's copy of it> builds build/race/race, in which the course's copy and this tree's
# file - a student's - sort the same keys in turn (common/race.c): both renamed as the steps
# of a stage's program are, the course's as step 1, the student's as step 2.
RACE := $(BUILD)/race
RACE_STAGE := $(firstword $(subst /, ,$(RACE_FILE)))
race: $(if $(RACE_FILE),$(RACE)/race)
	@[ -n "$(RACE_FILE)" ] || { echo "make race: RACE_FILE=<a step's file> RACE_COURSE=<the course's copy of it> (make grade runs it)" >&2; exit 2; }
ifneq ($(filter $(SORT_STAGES),$(RACE_STAGE)),)
$(RACE)/course.o: $(RACE_COURSE) $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(call say,RACE,$< (the course))
	$(Q)$(call step_object,$<,1,$@) || { rm -f $@; exit 1; }
$(RACE)/work.o: $(RACE_FILE) $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(call say,RACE,$< (the student))
	$(Q)$(call step_object,$<,2,$@) || { rm -f $@; exit 1; }
$(RACE)/race: $(RACE)/course.o $(RACE)/work.o $(BUILD)/obj/common/race.o $(LIBCOMMON)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(LINK) $^ -o $@ $(LDLIBS)
endif

ifeq ($(CUDA),1)
include $(wildcard [0-9][0-9]_*/rules.mk)
else
# the CPU build builds no GPU stage: asked for one, it says why
$(NOT_BUILT_STAGES) $(BUILD)/bin/limits $(BUILD)/bin/nccl_alltoall:
	@echo "make: $(notdir $@) needs nvcc: the CPU build ($(CPU_BUILD_WHY)) leaves it out" >&2; exit 2
endif

# ---- running ------------------------------------------------------------------
# Each builds first, in parallel (BUILD_ALL, or BUILD_STAGES: the programs alone), then
# runs.  A target that cannot do its job here says so before anything is built: a
# missing tool or a bad argument is an error (exit 2); no GPU, for a target that only
# measures a GPU (sanitize, profile, limits), is a skip, said in one line, exit 0 - as
# make test counts a GPU test skipped, not failed.
# SAVE=1: make bench, plots, profile and limits write into results/ (the committed reference
# results) instead of build/.
export SAVE
# skip_without_gpu SCRIPT ARGS: runs the script's --check; its exit 77 (no GPU) ends the
# target with success, any other failure ends it with that failure
skip_without_gpu = $(1) --check $(2); rc=$$?; [ $$rc -ne 77 ] || exit 0; [ $$rc -eq 0 ] || exit $$rc
# make run without a GPU: the CPU build of stage 01, the one stage that can run here
NOT_RUN_WHY = $(if $(filter 0,$(HAVE_GPU)),they need a CUDA GPU and nvidia-smi finds none,they \
    need nvcc (the CUDA Toolkit), and this is the CPU build: $(CPU_BUILD_WHY))
ifeq ($(CUDA)$(HAVE_GPU),10)
run:
	@$(MAKE) --no-print-directory CUDA=0 \
	    CPU_BUILD_WHY="no GPU here (nvidia-smi finds none): stage 01, the stage that runs here, with $(CC) alone" run
else
run:
	@+$(BUILD_STAGES)
	@NOT_RUN="$(NOT_BUILT_STAGES)" NOT_RUN_WHY="$(NOT_RUN_WHY)" tools/run-stages.sh $(BUILD)/bin $(STAGES)
endif

# FULL=1: every test program's long battery (--full) and a longer timeout.
# make test without a GPU builds what runs here, no more: the CPU build (stage 01, its
# tests, the course's own checks), with the GPU tests named as not built - minutes, where
# compiling every GPU stage for five architectures takes most of half an hour on 2 cores.
# CUDA=1 on the command line builds every stage too and runs every test that needs no
# GPU (their command lines, the fit table): what CI runs (.ci/run).
ifeq ($(CUDA)$(HAVE_GPU)$(filter command line environment,$(origin CUDA)),10)
test:
	@TEST_NOT_BUILT_WHY="no GPU here: this test needs the CUDA build (make test CUDA=1 builds it)" \
	    $(MAKE) --no-print-directory CUDA=0 \
	    CPU_BUILD_WHY="no GPU here (nvidia-smi finds none): what runs here, with $(CC) alone; make test CUDA=1 compiles every GPU stage too, as CI does" test
else
test:
	@+$(TESTS_BUILD)
	@TEST_FULL=$(FULL) TEST_NOT_BUILT="$(NOT_BUILT_TESTS)" BIN_DIR=$(BUILD)/bin \
	    tools/run-tests.sh $(TEST_BINS) $(TEST_SCRIPTS)
endif

sanitize:
	@+$(call skip_without_gpu,CUDA_PATH=$(CUDA_PATH) tools/sanitize.sh) && \
	    $(BUILD_ALL) && CUDA_PATH=$(CUDA_PATH) tools/sanitize.sh $(filter-out $(CPU_TESTS),$(TEST_BINS))

# make bench: CSVs under build/bench/<machine>/ (SAVE=1: results/<machine>/).
bench:
	@+$(BUILD_STAGES)
	@tools/bench.sh $(BUILD)/bin

# make plots: gnuplot SVG charts of the CSVs, under build/ (SAVE=1: results/*/plots/).
plots:
	@tools/plots.sh

# make profile STAGE=04: Nsight Compute on one stage, report under build/profile/<gpu>/
# (SAVE=1: results/<gpu>/profile/).
profile:
	@+$(call skip_without_gpu,CUDA_PATH=$(CUDA_PATH) tools/profile.sh,$(BUILD)/bin "$(STAGE)") && \
	    $(BUILD_STAGES) && CUDA_PATH=$(CUDA_PATH) tools/profile.sh $(BUILD)/bin "$(STAGE)"

# make limits: the GPU's copy bandwidth, int8 mma rate and shared atomic rate, into
# build/limits/<gpu>/limits.csv (SAVE=1: results/<gpu>/limits.csv).
limits:
	@$(call skip_without_gpu,tools/limits.sh) && \
	    $(MAKE) $(if $(filter 1,$(V)),,-s) --no-print-directory $(BUILD)/bin/limits && \
	    tools/limits.sh $(BUILD)/bin/limits

# make slides: every deck of slides/ to build/slides/ (marp-cli from slides/package-lock.json).
slides:
	@tools/slides.sh

tables:
	@tools/expected-ranges.sh
	@tools/readme-tables.sh docs/src/README.md docs/src/INSTRUCTOR.md \
	    $(wildcard docs/src/[0-9][0-9]_*/README.md) $(wildcard slides/[0-9][0-9]_*.md)
	@tools/docs-build.sh

# the READMEs, ANSWERS and INSTRUCTOR.md from their sources under docs/src/, markers left out
docs:
	@tools/docs-build.sh

device-check:
	@tools/device-check.sh

# make diff FROM=03 TO=04: what one step changed in the file of the step before (any two
# steps of steps.txt, 4 or 04); make diff06 FROM=3 TO=4: the same for two versions of
# stage 06, steps 06.3 and 06.4 (tools/diff.sh).
# The exit status is diff's: 0 the same, 1 different (not an error here), 2 trouble.
diff:
	@tools/diff.sh "$(FROM)" "$(TO)"; test $$? -le 1

diff06:
	@tools/diff.sh --nn06 "$(FROM)" "$(TO)"; test $$? -le 1

# make steps: the course's path (steps.txt): id, file, changed lines, lesson.
steps:
	@tools/steps.sh

# make fit: which GPU step launches on which architecture, and at what occupancy
fit:
	@+$(BUILD_ALL)
	@tools/fit-check.sh

handout:
	@LEVEL=$(LEVEL) tools/handout.sh "$(STEP)"

grade:
	@LEVEL=$(LEVEL) tools/grade.sh "$(STEP)" "$(WORK)"

grade-class:
	@LEVEL=$(LEVEL) tools/grade-class.sh "$(STEP)" "$(CLASS)"

clean:
	rm -rf build

# the one thing outside build/ that a target's tools write: marp-cli, which
# tools/setup-slides.sh installs into slides/node_modules for make slides (git ignores it)
distclean: clean
	rm -rf slides/node_modules

# what make test would run, one a line; the folder this build puts its programs in
print-tests:
	@printf '%s\n' $(TEST_BINS) $(TEST_SCRIPTS)
print-build:
	@echo $(BUILD)

-include $(shell find $(BUILD) -path $(BUILD)/cpu -prune -o -name '*.d' -print 2>/dev/null)
