# petsc-vpatch: build, test, run, install.
#
#   make run       builds what is missing (PETSc included) and runs the main tutorial
#   make check     builds what is missing and runs all tests that need no GPU
#   make check-gpu runs the GPU tests too (on a machine with an NVIDIA GPU)
#   make check-slow runs the slow tests too (large multigrid levels, minutes)
#   make soak      1,000 solves and 100 create/destroy cycles of two multigrid hierarchies in one process, memory checked
#                  (on the GPU, with a mixed-precision hierarchy, when PETSc has CUDA and nvidia-smi sees a device)
#   make bench     runs the benchmarks on a GPU machine (bench/run.sh, results in bench/out)
#   make bench BENCH_GPUS=4  the multi-GPU mode: strong and weak scaling on 1, 2 and 4 GPUs in the same run (bench/scale.sh)
#   make ucx       fetches PyPI's CUDA-enabled UCX: config/mpiexec-gpu.sh then moves device buffers between GPUs
#   make install PREFIX=/path
#
# With PETSC_DIR (and PETSC_ARCH) set, that PETSc is used. Without, PETSc is bootstrapped once into
# a cache directory outside the checkout (config/bootstrap-petsc.sh) and reused.
SHELL := /bin/bash
TARGETS := all lib examples tests run check check-gpu check-slow soak bench install pack ucx
.PHONY: $(TARGETS) clean
.DEFAULT_GOAL := all

ifeq ($(PETSC_DIR),)
$(TARGETS):
	@out=$$(bash config/bootstrap-petsc.sh | tail -n 1) && set -- $$out && \
	  $(MAKE) --no-print-directory $@ PETSC_DIR=$$1 PETSC_ARCH=$$2
clean:
	rm -rf build lib
else
include $(PETSC_DIR)/lib/petsc/conf/variables

PREFIX  ?= /usr/local
# the MPI compiler wrapper's flags (Open MPI, MPICH), so that a plain C compiler builds with pkg-config alone
MPI_CFLAGS := $(shell $(PCC) --showme:compile 2>/dev/null || $(PCC) -compile_info 2>/dev/null | cut -d' ' -f2- | tr ' ' '\n' | grep '^-I' | tr '\n' ' ')
MPI_LIBS   := $(shell $(PCC) --showme:link 2>/dev/null || $(PCC) -link_info 2>/dev/null | cut -d' ' -f2- | tr ' ' '\n' | grep '^-[LlW]' | tr '\n' ' ')
BUILD   := build/$(or $(PETSC_ARCH),prefix)
# one library per PETSc build: a 32-bit and a 64-bit PetscInt library must never be mixed up
LIBDIR  := lib/$(or $(PETSC_ARCH),prefix)
LIBNAME := $(LIBDIR)/libpetscvpatch.so
VP_CFLAGS := $(PCC_FLAGS) -Wall -Iinclude $(PETSC_CC_INCLUDES)
SRC_C   := $(wildcard src/*/*.c src/*/impls/*/*.c)
SRC_CU  := $(if $(CUDAC),$(wildcard src/*/cuda/*.cu src/*/impls/*/cuda/*.cu),)
OBJ     := $(SRC_C:%.c=$(BUILD)/obj/%.o) $(SRC_CU:%.cu=$(BUILD)/obj/%.o)
HDRS    := $(wildcard include/*.h include/petscvpatch/private/*.h include/petscvpatch/private/*.cuh src/*/impls/*/cuda/*.cuh tests/*.h bench/*.h)
EXAMPLES := $(patsubst %.c,$(BUILD)/%,$(wildcard tutorials/ex*.c) $(wildcard bench/bench_*.c))
TESTS    := $(patsubst %.c,$(BUILD)/%,$(wildcard tests/test_*.c))
LINK_VP  := -L$(CURDIR)/$(LIBDIR) -Wl,-rpath,$(CURDIR)/$(LIBDIR) -lpetscvpatch $(PETSC_WITH_EXTERNAL_LIB) -llapacke
RUNNER   := python3 tests/runtests.py --build $(BUILD) --mpiexec "$(MPIEXEC)" --petsc-dir $(PETSC_DIR) --petsc-arch "$(PETSC_ARCH)"

all: lib examples tests
lib: $(LIBNAME)
examples: $(EXAMPLES)
tests: $(TESTS)

$(BUILD)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(PCC) $(VP_CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.cu $(HDRS)
	@mkdir -p $(dir $@)
	$(CUDAC) $(CUDAC_FLAGS) -Iinclude $(PETSC_CC_INCLUDES) $(CUDAPP_FLAGS) -c $< -o $@

$(LIBNAME): $(OBJ)
	@mkdir -p $(LIBDIR)
	$(CLINKER) -shared -o $@ $(OBJ) $(PETSC_WITH_EXTERNAL_LIB) -llapacke

$(BUILD)/%: %.c $(LIBNAME) $(HDRS)
	@mkdir -p $(dir $@)
	$(CLINKER) $(VP_CFLAGS) -o $@ $< $(LINK_VP)

# the benchmark of PCAUXAMG builds its large meshes' rows in parallel (OpenMP; without it, one thread)
$(BUILD)/bench/bench_auxamg: VP_CFLAGS += -fopenmp

# the -dll_append test must not link the plugin: it proves that PETSc loads it by itself
$(BUILD)/tests/test_dll: tests/test_dll.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CLINKER) $(VP_CFLAGS) -o $@ $< $(PETSC_WITH_EXTERNAL_LIB)

# the vertex-patch multigrid in 3D (Q_3, 24^3 cells: 357,911 unknowns, a few seconds on one core); on the GPU when PETSc has CUDA and nvidia-smi sees a device
RUN_GPU  := $(if $(CUDAC),$(shell nvidia-smi -L >/dev/null 2>&1 && echo -dm_vec_type cuda))
RUN_ARGS ?= -options_file share/vpatch-mg.options -dm_qbox_dim 3 -dm_qbox_cells 24 -dm_qbox_degree 3 -timing $(RUN_GPU)
run: lib examples
	$(BUILD)/tutorials/ex1 $(RUN_ARGS)

check: all
	$(RUNNER)

check-gpu: all
	$(RUNNER) --gpu

check-slow: all
	$(RUNNER) --slow

SOAK_ARGS ?= -cycles 100 -solves 5 -malloc_debug $(if $(RUN_GPU),-vec_type cuda)
soak: tests
	$(BUILD)/tests/test_soak $(SOAK_ARGS)

# on a GPU machine: kernel throughput and the solver comparison, results in bench/out (bench/run.sh); with
# BENCH_GPUS=G (2 or more) the scaling runs instead, on 1, 2, 4, ... G GPUs in the same call (bench/scale.sh)
bench: all
	$(if $(BENCH_GPUS),BENCH_GPUS=$(BENCH_GPUS) bash bench/scale.sh,bash bench/run.sh) $(BUILD)

# pack PETSc's library and the runtime libraries for a GPU node without network (see README)
PACK_DIR ?= .carry
pack: all
	bash config/pack.sh $(PETSC_DIR) $(PETSC_ARCH) $(PACK_DIR)

# fetch the CUDA-enabled UCX of PyPI for device buffers between GPUs (config/mpiexec-gpu.sh; make pack takes it along)
ucx:
	bash config/ucx.sh

install: lib
	mkdir -p $(PREFIX)/lib/pkgconfig $(PREFIX)/include/petscvpatch/private
	cp $(LIBNAME) $(PREFIX)/lib/
	cp include/petscvpatch.h $(PREFIX)/include/
	mkdir -p $(PREFIX)/share/petscvpatch && cp share/*.options $(PREFIX)/share/petscvpatch/
	cp include/petscvpatch/private/*.h $(PREFIX)/include/petscvpatch/private/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@PETSC_CFLAGS@|$(PETSC_CC_INCLUDES) $(MPI_CFLAGS)|' \
	    -e 's|@PETSC_LIBS@|$(PETSC_WITH_EXTERNAL_LIB) $(MPI_LIBS)|' config/petscvpatch.pc.in > $(PREFIX)/lib/pkgconfig/petscvpatch.pc

clean:
	rm -rf build lib
endif
