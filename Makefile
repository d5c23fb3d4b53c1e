# Two commands on a fresh Debian 12 machine: `make run` and `make test`. Each installs what is
# missing (Debian packages; Kokkos 3.4.1 with OpenMP built from Debian's trilinos source and
# cached in ~/.cache/karman), configures, builds, then runs. Bring your own Kokkos with
# `make test KOKKOS_ROOT=/path/to/kokkos` (no bootstrap then).

PRESET      ?= default
BUILD_DIR   ?= build/$(PRESET)
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
KARMAN_CACHE ?= $(HOME)/.cache/karman
KOKKOS_ROOT ?=
RUN_DIR     ?= runs/cavity-re100
CTEST_ARGS  ?=

ifeq ($(strip $(KOKKOS_ROOT)),)
  KOKKOS_PREFIX := $(KARMAN_CACHE)/kokkos-3.4.1-openmp
  KOKKOS_STEP   := kokkos
else
  KOKKOS_PREFIX := $(KOKKOS_ROOT)
  KOKKOS_STEP   :=
endif

MAKEFLAGS += --no-print-directory

# Quiet, unbound OpenMP threads: Kokkos warns at every start when these are unset.
export OMP_PROC_BIND ?= false
export OMPI_ALLOW_RUN_AS_ROOT = 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM = 1

# Compile-only check of the HIP backend (no AMD GPU needed): Debian's hipcc 5.2.3 and a
# Kokkos 3.4.1 HIP (gfx908) built from Debian's trilinos source, cached next to the OpenMP one.
HIP_PACKAGES      := hipcc libamdhip64-dev rocm-device-libs
HIP_KOKKOS_PREFIX ?= $(KARMAN_CACHE)/kokkos-3.4.1-hip
HIP_BUILD_DIR     ?= build/hip
# hipcc links for this GPU instead of probing for one (rocm_agent_enumerator fails without a GPU).
HIP_ENV           := HCC_AMDGPU_TARGET=gfx908
# Solver units of the HIP check: every lattice, precision and layout once, the block-sparse
# solver in 2D and 3D, SoA and CSoA, so every kernel line compiles with hipcc; the full product
# (60 units) would take most of an hour on two cores.
HIP_VARIANTS      ?= d2q9/double/aos;d3q19/float/soa;d3q27/fp16c/csoa;d3q19/fp16s/disaggregated;d2q9/float/csoa

# Under AddressSanitizer and UndefinedBehaviorSanitizer (the debug preset, -O1): `make sanitize`
# (CI) builds and runs the tests of Karman::core and Karman::comm, the layers other codes link, in
# a few minutes; `make sanitize-all` adds the solver, I/O and app tests with SANITIZE_VARIANTS'
# solver units, about 35 minutes on two cores, more than CI's 90 minutes leave beside make test
# and hip-check (docs/building.md). These hold every
# layout of D2Q9 in double (the restart and message-count tests), D3Q19 and D3Q27 in double SoA
# (and D3Q19 CSoA and Disaggregated: the command-line, cylinder, porous and block tests), and the two
# 16-bit formats once; tests that sweep variants pass over the ones not compiled (make test runs
# them all). Leak checking is off: Open MPI's components are unloaded before LeakSanitizer
# reports, so their allocations show as unknown modules that no suppression can name (and took
# 30 s per process to list).
empty             :=
space             := $(empty) $(empty)
SANITIZE_VARIANTS ?= $(subst $(space),,\
  d2q9/double/aos;d2q9/double/soa;d2q9/double/csoa;d2q9/double/disaggregated;\
  d3q19/double/soa;d3q19/double/csoa;d3q19/double/disaggregated;d3q27/double/soa;d2q9/fp16s/soa;\
  d2q9/fp16c/csoa)
# Cartesian-block units of the same: those the block tests and app_ranks_per_axis run (the tests
# pass over the others).
SANITIZE_CARTESIAN_VARIANTS ?= d2q9/double/soa;d3q19/double/soa;d3q19/double/disaggregated
# The README's lines sweep every layout of float (its bench lines), which these units do not hold;
# app_porous runs the porous case end to end for four minutes under the sanitizers, the sparse
# solver and decomposition tests cover its kernels and exchange: make test runs both.
SANITIZE_EXCLUDE  ?= ^(app_readme_lines|app_porous)$$
SANITIZE_DIR      ?= build/debug
SANITIZE_ENV      := ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1

.PHONY: all deps kokkos configure build run test clean format hip-check sanitize sanitize-all sanitize-configure

all: build

deps:
	@bash cmake/bootstrap/install-debian-deps.sh

kokkos: deps
	@bash cmake/bootstrap/build-kokkos-from-debian.sh $(KOKKOS_PREFIX)

# The solver variants compiled (docs/building.md, "Variant sets"): `make run` builds the lean set,
# what every command's defaults and the README's Quick start run, and the karman target alone (a
# few minutes on two cores); `make test` (CI) builds the full set, every test and the header
# self-containment checks. VARIANT_SET=full make run builds every variant into the same folder.
VARIANT_SET   ?= lean
HEADER_CHECKS ?= OFF
BUILD_TARGET  ?= karman
test: VARIANT_SET   = full
test: HEADER_CHECKS = ON
test: BUILD_TARGET  = all

configure: deps $(KOKKOS_STEP)
	@mkdir -p $(BUILD_DIR)
	@cmake --preset $(PRESET) -DKokkos_ROOT=$(KOKKOS_PREFIX) -DKARMAN_VARIANT_SET=$(VARIANT_SET) \
	  -DKARMAN_HEADER_CHECKS=$(HEADER_CHECKS) -B $(BUILD_DIR) >$(BUILD_DIR)/configure.log 2>&1 \
	  || { cat $(BUILD_DIR)/configure.log; exit 1; }
	@grep -E "^-- Karman: (variant set|ccache)" $(BUILD_DIR)/configure.log || true

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target $(BUILD_TARGET)

# The main job: the 2D lid-driven cavity at Re 100 to steady state, compared with Ghia et al.
run: build
	@$(BUILD_DIR)/apps/karman/karman --backend-info
	@$(BUILD_DIR)/apps/karman/karman cavity --dim 2 --n 128 --re 100 --until-steady 1e-7 --pattern aa --output $(RUN_DIR) --overwrite
	@python3 tests/validation/check_cavity.py $(RUN_DIR) --re 100 | grep -E "^(Re |PASS|FAIL)"
	@echo "ParaView: paraview $(RUN_DIR)/fields.xdmf (Xdmf3ReaderS), colour by ux/uy/rho; profiles: $(RUN_DIR)/centerline_u.csv"

test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# Compiles the libraries and the karman executable with hipcc, HIP_VARIANTS' solver units; runs
# nothing. Every kernel is in the libraries; the test programs (host code around the same
# kernels) are left to make test, which keeps CI inside its 90 minutes.
hip-check:
	@bash cmake/bootstrap/install-debian-deps.sh $(HIP_PACKAGES)
	@bash cmake/bootstrap/build-kokkos-from-debian.sh $(HIP_KOKKOS_PREFIX) hip
	@$(HIP_ENV) cmake --preset hip -DKokkos_ROOT=$(HIP_KOKKOS_PREFIX) -DKARMAN_VARIANT_SET=full -DKARMAN_VARIANTS="$(HIP_VARIANTS)" -B $(HIP_BUILD_DIR) >/dev/null
	@$(HIP_ENV) cmake --build $(HIP_BUILD_DIR) -j $(JOBS) --target karman

sanitize-configure: deps $(KOKKOS_STEP)
	@cmake --preset debug -DKokkos_ROOT=$(KOKKOS_PREFIX) -DKARMAN_VARIANT_SET=full -DKARMAN_VARIANTS="$(SANITIZE_VARIANTS)" \
	  -DKARMAN_CARTESIAN_VARIANTS="$(SANITIZE_CARTESIAN_VARIANTS)" -B $(SANITIZE_DIR) >/dev/null

sanitize: sanitize-configure
	@cmake --build $(SANITIZE_DIR) -j $(JOBS) --target karman_layer_tests
	@cd $(SANITIZE_DIR) && $(SANITIZE_ENV) ctest --output-on-failure -j $(JOBS) -L "unit|mpi" -R "^(core|comm)_" $(CTEST_ARGS)

sanitize-all: sanitize-configure
	@cmake --build $(SANITIZE_DIR) -j $(JOBS)
	@cd $(SANITIZE_DIR) && $(SANITIZE_ENV) ctest --output-on-failure -j $(JOBS) -L "unit|mpi" -E "$(SANITIZE_EXCLUDE)" $(CTEST_ARGS)

format:
	@git ls-files '*.hpp' '*.cpp' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
