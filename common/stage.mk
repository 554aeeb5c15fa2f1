# common/stage.mk - lets a stage be built and run from its own directory:
#   cd 03_split_k1 && make          (build this stage and its test programs)
#   make run ARGS="--bits 4 -v"     (run it)
#   make test                       (run its test programs, build/tests/test_NN_*, and
#                                    its test scripts, tests/test_*_<stage>.sh)
# Everything is delegated to the top-level Makefile, so the flags are the same.
STAGE := $(notdir $(CURDIR))
NUMBER := $(firstword $(subst _, ,$(STAGE)))
SCRIPTS := $(patsubst ../%,%,$(wildcard ../tests/test_*_$(STAGE).sh))
.PHONY: all run test clean
all:
	@$(MAKE) $(if $(filter 1,$(V)),,-s) --no-print-directory -C .. $(STAGE)
# exit 77 is the stage's "no CUDA device here": a skip, said as one, not a make error
run: all
	@../build/bin/$(STAGE) $(ARGS); rc=$$?; \
	 if [ $$rc -eq 77 ]; then echo "make run: $(STAGE) skipped: it needs a CUDA GPU, and none was found"; exit 0; fi; \
	 exit $$rc
test: all
	@cd .. && tools/run-tests.sh build/tests/test_$(NUMBER)_* $(SCRIPTS)
clean:
	rm -rf ../build/bin/$(STAGE) ../build/obj/$(STAGE) ../build/tests/test_$(NUMBER)_*
