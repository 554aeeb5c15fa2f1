# 08_multi_gpu/rules.mk - build rules of stage 08, included by the top-level Makefile.
# Stage 08 has its own program (main.c): NCCL moves the keys between GPUs, stage 07's
# last step (onesweep_lib.cu includes it) counts, partitions and sorts on each GPU;
# composition.cu is the baseline made of CUB and NCCL calls alone.
# Each step file (stepK_*.c) defines mg_sort and MG_STEP_NAME, compiled as mg_sort_K and
# mg_step_name_K; steps.c lists them for --step.
# Where mpicc is found the program is also built with MPI (mpirun -np G: a GPU a rank);
# nothing else needs MPI, and without it the program drives the host's GPUs itself.
S08 := 08_multi_gpu
S08_STEP_FILES := $(sort $(wildcard $(S08)/step[0-9]_*.c))
S08_STEPS := $(patsubst %.c,$(BUILD)/obj/%.step.o,$(S08_STEP_FILES))
S08_OBJS := $(addprefix $(BUILD)/obj/$(S08)/,main.o steps.o mg_world.o mg_parts.o mg_keys.o onesweep_lib.o \
    composition.o)
MPICC := $(shell command -v mpicc 2>/dev/null)
ifneq ($(MPICC),)
# OpenMPI's wrapper says what it adds; nvcc links, so -pthread goes to the host compiler
# and each -Wl,X to the linker as -Xlinker X
S08_MPI_CFLAGS := -DMG_MPI $(shell $(MPICC) --showme:compile 2>/dev/null)
S08_COMMA := ,
S08_MPI_LINK := $(patsubst -pthread,-Xcompiler -pthread,$(shell $(MPICC) --showme:link 2>/dev/null))
S08_MPI_LIBS := $(foreach w,$(S08_MPI_LINK),$(if $(filter -Wl$(S08_COMMA)%,$(w)),\
    -Xlinker $(subst $(S08_COMMA), -Xlinker ,$(patsubst -Wl$(S08_COMMA)%,%,$(w))),$(w)))
endif
$(BUILD)/obj/$(S08)/mg_world.o: CFLAGS += $(S08_MPI_CFLAGS)

$(BUILD)/obj/$(S08)/%.step.o: $(S08)/%.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(call say,CC,$< (step $(call step_number,$<)))
	$(Q)$(CC) $(CFLAGS) -Dmg_sort=mg_sort_$(call step_number,$<) \
	    -DMG_STEP_NAME=mg_step_name_$(call step_number,$<) -c $< -o $@

$(S08): $(BUILD)/bin/$(S08) $(BUILD)/tests/test_$(S08)

$(BUILD)/bin/$(S08): $(S08_OBJS) $(S08_STEPS) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(call say,LINK,$@$(if $(MPICC), (with MPI)))
	$(Q)$(NVCC) $(GENCODE) $^ -o $@ -lnccl $(S08_MPI_LIBS) $(LDLIBS)

# its test program: every step of steps.c on two GPUs and more (tests/test_08_multi_gpu.c),
# the same objects as the program but main's
$(BUILD)/tests/test_$(S08): $(BUILD)/obj/tests/test_$(S08).o $(filter-out %/main.o,$(S08_OBJS)) \
                            $(S08_STEPS) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(NVCC) $(GENCODE) $^ -o $@ -lnccl $(S08_MPI_LIBS) $(LDLIBS)

# the grader's race (tools/grade.sh: make race RACE_FILE=<a step's file> RACE_COURSE=<the
# course's copy>): both in one program, renamed mg_sort_course and mg_sort_work, race.c's main
ifeq ($(RACE_STAGE),$(S08))
$(RACE)/course.o: $(RACE_COURSE) $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(call say,RACE,$< (the course))
	$(Q)$(CC) $(CFLAGS) -I$(S08) -Dmg_sort=mg_sort_course -DMG_STEP_NAME=mg_step_name_course -c $< -o $@
$(RACE)/work.o: $(RACE_FILE) $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(call say,RACE,$< (the student))
	$(Q)$(CC) $(CFLAGS) -I$(S08) -Dmg_sort=mg_sort_work -DMG_STEP_NAME=mg_step_name_work -c $< -o $@
$(RACE)/race: $(RACE)/course.o $(RACE)/work.o $(BUILD)/obj/$(S08)/race.o \
              $(filter-out %/main.o %/steps.o,$(S08_OBJS)) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(NVCC) $(GENCODE) $^ -o $@ -lnccl $(S08_MPI_LIBS) $(LDLIBS)
endif
