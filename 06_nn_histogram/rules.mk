# 06_nn_histogram/rules.mk - build rules of stage 06, included by the top-level Makefile.
# Stage 06 has its own driver (main.c), links cuBLAS for its baseline, and has two
# test programs: test_06_nn_cpu (the bin rule, the files, the reference: CPU only)
# and test_06_nn_histogram (every version against the reference: GPU).
S06 := 06_nn_histogram
S06_COMMON := $(addprefix $(BUILD)/obj/$(S06)/,vecs.o nn_reference.o)
S06_VERSIONS := v1_report v2_exact_bins v3_privatised v4_register_tiles v5_fused v6_margin_bins \
                v7_bytes v8_tensor_cores v9_latency v10_tuned
S06_GPU := $(addprefix $(BUILD)/obj/$(S06)/,nn_common.o $(addsuffix .o,$(S06_VERSIONS)) \
                                            baseline_cublas.o)

$(S06): $(BUILD)/bin/$(S06) $(BUILD)/tests/test_06_nn_cpu $(BUILD)/tests/test_06_nn_histogram \
        $(BUILD)/bin/06_reduce_lab
all: $(BUILD)/bin/06_reduce_lab

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
