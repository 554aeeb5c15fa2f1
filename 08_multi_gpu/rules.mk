# 08_multi_gpu/rules.mk - build rules of stage 08, included by the top-level Makefile.
# Stage 08 has its own program (main.c): NCCL moves the keys between GPUs, stage 07's
# last step (onesweep_lib.cu includes it) counts, partitions and sorts on each GPU.
# Where mpicc is found the program is also built with MPI (mpirun -np G: a GPU a rank);
# nothing else needs MPI, and without it the program drives the host's GPUs itself.
S08 := 08_multi_gpu
S08_STEP := $(BUILD)/obj/$(S08)/step1_partition_exchange.o
S08_OBJS := $(addprefix $(BUILD)/obj/$(S08)/,main.o mg_world.o mg_keys.o onesweep_lib.o)
MPICC := $(shell command -v mpicc 2>/dev/null)
ifneq ($(MPICC),)
# OpenMPI's wrapper says what it adds; -pthread goes to the host compiler through nvcc
S08_MPI_CFLAGS := -DMG_MPI $(shell $(MPICC) --showme:compile 2>/dev/null)
S08_MPI_LIBS := $(patsubst -pthread,-Xcompiler -pthread,$(shell $(MPICC) --showme:link 2>/dev/null))
endif
$(BUILD)/obj/$(S08)/mg_world.o: CFLAGS += $(S08_MPI_CFLAGS)

$(S08): $(BUILD)/bin/$(S08)

$(BUILD)/bin/$(S08): $(S08_OBJS) $(S08_STEP) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(call say,LINK,$@$(if $(MPICC), (with MPI)))
	$(Q)$(NVCC) $(GENCODE) $^ -o $@ -lnccl $(S08_MPI_LIBS) $(LDLIBS)
