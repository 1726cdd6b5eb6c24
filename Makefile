# olla: the two commands of README.md, and the steps they are made of.
#   make demo   install dependencies, build, and optimize the zoo's resnet18 training step
#   make test   install dependencies, build, and run every test (ctest, ASan+UBSan ctest,
#               the fuzz targets briefly, pytest, `pip install .` checked)
MAKEFLAGS += --no-print-directory
BUILD ?= build
SANITIZE_BUILD ?= build-sanitize
JOBS ?= $(shell nproc)
# The checkout's virtual environment (scripts/python-env.sh): torch 2.11 and the pinned
# packages of python/requirements.txt, this checkout's python/ importable.
PYTHON = $(CURDIR)/.venv/bin/python
OLLA = $(BUILD)/bin/olla

.PHONY: all deps build demo test test-cpp test-sanitize test-fuzz test-python \
  test-package \
  bench fuzz format clean

all: build

deps:
	@bash scripts/install-deps.sh
	@bash scripts/python-env.sh

# Line tables only (-g1): backtraces, perf and the sanitizers' reports keep their files
# and lines, at a quarter less compile time than full debug information (-g; a debugger
# session configures its own build with CMAKE_BUILD_TYPE=Debug).
LINE_TABLES = -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(LINE_TABLES) \
	  -DPython_EXECUTABLE=$(PYTHON) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@PYTHON=$(PYTHON) bash scripts/demo.sh $(OLLA)

test: test-cpp test-sanitize test-fuzz test-python test-package

test-cpp: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# What the sanitizer build leaves to the normal build, which runs it: budget mode on the
# zoo's GPT-2 (2,462 ops), minutes per test under ASan in a Debug build (390 s, 215 s
# and 160 s with two busy cores beside them), optimizing all 76 zoo graphs (184 s on an
# idle machine, the run's tail), and the joint ILP against brute force (68 s under ASan,
# most of it in CBC and the brute force, neither instrumented), the recomputation search
# and its bound against brute force (40 s and 58 s under ASan), and the tradeoff goldens
# (a whole curve of budget-mode searches each, 103 s and 94 s), and every schedule
# method on random DAGs (56 s; the conformance suite runs them all under ASan). The
# sanitizers still see the same pipeline and search on smaller graphs (remat_test,
# pipeline_test's tradeoff, the optimize fuzz target in budget mode) and every zoo graph
# read by both readers.
SANITIZE_SKIP = IsTheBruteForceOptimumOfOrderAndPlacementTogether|Gpt2InTwoThirds|ABudgetOnlyRecomputationMeetsIsMetByRecomputing|OptimizeBudgetRecomputesAndCheckAcceptsThePlan|EveryZooPlanIsCheckedAndAtItsRoundedPeak|RematerializeBruteForceTest|RepeatedBlocksReachTheTarget|AddedCostBoundTest|tradeoff_transformer_small|EveryMethodGivesValidOrdersOnRandomDags
test-sanitize: deps
	@cmake -S . -B $(SANITIZE_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 \
	  -DOLLA_SANITIZE=ON \
	  -DOLLA_BUILD_BENCH=OFF -DOLLA_BUILD_PYTHON=OFF >/dev/null
	@cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	ctest --test-dir $(SANITIZE_BUILD) --output-on-failure -j $(JOBS) -E '$(SANITIZE_SKIP)'

# The libFuzzer targets (fuzz/, clang, ASan+UBSan): a few seconds each in `make test`,
# so they keep building and running; `make fuzz` runs each for FUZZ_SECONDS.
FUZZ_SECONDS ?= 60
test-fuzz: deps
	@bash scripts/fuzz.sh 5

fuzz: deps
	@bash scripts/fuzz.sh $(FUZZ_SECONDS)

# pytest exits 5 when it collects no test; that is not a failure of the suite.
test-python: build
	OLLA_BINARY=$(abspath $(OLLA)) $(PYTHON) -m pytest -q tests/python || [ $$? -eq 5 ]

# `pip install .` into a new environment, used from another folder (scripts/check-package.sh).
test-package: build
	@bash scripts/check-package.sh $(BUILD)

bench: build
	@PYTHON=$(PYTHON) bash bench/run.sh $(BUILD)

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD) build-fuzz
