# common/stage.mk - lets a stage be built and run from its own directory:
#   cd 03_split_k1 && make          (build this stage and its test programs)
#   make run ARGS="--bits 4 -v"     (run it)
#   make test                       (run its test programs, build/tests/test_NN_*, and
#                                    its test scripts: those named with its number NN,
#                                    tests/test_cli_NN_*.sh, test_grade_NN.sh ...)
#   make print-tests                (the tests make test runs, one a line)
# Everything is delegated to the top-level Makefile, so the flags are the same.
STAGE := $(notdir $(CURDIR))
NUMBER := $(firstword $(subst _, ,$(STAGE)))
.PHONY: all run test clean print-tests
all:
	@$(MAKE) $(if $(filter 1,$(V)),,-s) --no-print-directory -C .. $(STAGE)
# exit 77 is the stage's "no CUDA device here": a skip, said as one, not a make error
run: all
	@../$$($(MAKE) -s --no-print-directory -C .. print-build)/bin/$(STAGE) $(ARGS); rc=$$?; \
	 if [ $$rc -eq 77 ]; then echo "make run: $(STAGE) skipped: it needs a CUDA GPU, and none was found"; exit 0; fi; \
	 exit $$rc
test:
	@$(MAKE) --no-print-directory -C .. test STAGE_TESTS=$(NUMBER)
print-tests:
	@$(MAKE) --no-print-directory -C .. print-tests STAGE_TESTS=$(NUMBER)
clean:
	rm -rf ../build/bin/$(STAGE) ../build/obj/$(STAGE) ../build/tests/test_$(NUMBER)_* \
	       ../build/cpu/bin/$(STAGE) ../build/cpu/obj/$(STAGE) ../build/cpu/tests/test_$(NUMBER)_*
