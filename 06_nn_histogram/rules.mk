# 06_nn_histogram/rules.mk - build rules of stage 06, included by the top-level Makefile.
# Stage 06 has its own driver (main.c), links cuBLAS for its baseline, and has two
# test programs: test_06_nn_cpu (the bin rule, the files, the reference: CPU only)
# and test_06_nn_histogram (every version against the reference: GPU).
S06 := 06_nn_histogram
S06_COMMON := $(addprefix $(BUILD)/obj/$(S06)/,vecs.o nn_reference.o)
S06_VERSIONS := v1_report v2_exact_bins v3_privatised v4_register_tiles v5_fused v6_margin_bins \
                v7_bytes v8_tensor_cores v9_binning v10_copies v11_warps \
                v12_packed_counters v13_minmax_queries v14_swapped_operands
S06_GPU := $(addprefix $(BUILD)/obj/$(S06)/,nn_common.o $(addsuffix .o,$(S06_VERSIONS)) \
                                            baseline_cublas.o)

$(S06): $(BUILD)/bin/$(S06) $(BUILD)/tests/test_06_nn_cpu $(BUILD)/tests/test_06_nn_histogram \
        $(BUILD)/bin/06_reduce_lab
all: $(BUILD)/bin/06_reduce_lab
# compiled, never linked here: what a lab handout builds in place of baseline_cublas.cu (a
# handout ships it under that name, and no baseline_none.cu of its own)
ifneq ($(wildcard $(S06)/baseline_none.cu),)
all: $(BUILD)/obj/$(S06)/baseline_none.o
endif

# The reduction sequence of the class notes on data in shared memory (a lab program).
$(BUILD)/bin/06_reduce_lab: $(BUILD)/obj/$(S06)/reduce_lab.o $(LIBCOMMON)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(NVCC) $(GENCODE) $^ -o $@ $(LDLIBS)

$(BUILD)/bin/$(S06): $(BUILD)/obj/$(S06)/main.o $(S06_COMMON) $(S06_GPU) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(NVCC) $(GENCODE) $^ -o $@ -lcublas $(LDLIBS)

$(BUILD)/tests/test_06_nn_cpu: $(BUILD)/obj/tests/test_06_nn_cpu.o $(S06_COMMON) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(NVCC) $(GENCODE) $^ -o $@ $(LDLIBS)

$(BUILD)/tests/test_06_nn_histogram: $(BUILD)/obj/tests/test_06_nn_histogram.o $(S06_COMMON) \
                                     $(S06_GPU) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(NVCC) $(GENCODE) $^ -o $@ -lcublas $(LDLIBS)

# The grader's race (make race, in the top-level Makefile) for version K: the course's copy
# of vK_*.cu in place of this tree's, which is a student's, renamed nn_version_work.
ifeq ($(RACE_STAGE),$(S06))
RACE_VERSION := $(patsubst v%,%,$(firstword $(subst _, ,$(notdir $(RACE_FILE)))))
$(RACE)/course.o: $(RACE_COURSE) $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(call say,RACE,$< (the course))
	$(Q)$(NVCC) $(NVCCFLAGS) -c $< -o $@
$(RACE)/work.o: $(RACE_FILE) $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(call say,RACE,$< (the student))
	$(Q)$(call renamed_object,$<,-Dnn_version_$(RACE_VERSION)=nn_version_work,nn_version_work,$@) || \
	    { rm -f $@; exit 1; }
$(RACE)/race.o: $(S06)/race.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS) -DRACE_VERSION=$(RACE_VERSION) -c $< -o $@
$(RACE)/race: $(RACE)/race.o $(RACE)/course.o $(RACE)/work.o $(S06_COMMON) \
              $(filter-out $(BUILD)/obj/$(RACE_FILE:.cu=.o),$(S06_GPU)) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(NVCC) $(GENCODE) $^ -o $@ -lcublas $(LDLIBS)
endif
