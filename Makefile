# olla: the two commands of README.md, and the steps they are made of.
#   make demo   install dependencies, build, and optimize the zoo's resnet18 training step
#   make test   install dependencies, build, and run every test (ctest, ASan+UBSan ctest,
#               the fuzz targets briefly, pytest)
MAKEFLAGS += --no-print-directory
BUILD ?= build
SANITIZE_BUILD ?= build-sanitize
JOBS ?= $(shell nproc)
PYTHON ?= /usr/bin/python3
OLLA = $(BUILD)/bin/olla

.PHONY: all deps build python-path demo test test-cpp test-sanitize test-fuzz test-python \
  bench fuzz format clean

all: build

deps:
	@bash scripts/install-deps.sh

build: deps python-path
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# Makes python/ importable by $(PYTHON) (`python3 -m olla.capture` from anywhere) with a
# .pth file in the user's site-packages, as an editable install would.
python-path: deps
	@site=$$($(PYTHON) -m site --user-site) && mkdir -p "$$site" && \
	  echo "$(abspath python)" > "$$site/olla.pth"

demo: build
	@bash scripts/demo.sh $(OLLA)

test: test-cpp test-sanitize test-fuzz test-python

test-cpp: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-sanitize: deps
	@cmake -S . -B $(SANITIZE_BUILD) -DCMAKE_BUILD_TYPE=Debug -DOLLA_SANITIZE=ON \
	  -DOLLA_BUILD_BENCH=OFF -DOLLA_BUILD_PYTHON=OFF >/dev/null
	@cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	ctest --test-dir $(SANITIZE_BUILD) --output-on-failure -j $(JOBS)

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

bench: build
	@bash bench/run.sh $(BUILD)

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD) build-fuzz
