#!/usr/bin/env bash
# `pip install .` checked as a user meets it: into a new virtual environment that has
# torch 2.11, then, from another folder, `import olla.torch`, the `olla` command,
# `python -m olla` and examples/train_with_olla.py.
#   scripts/check-package.sh [BUILD_DIR]
# The environment gets the pinned packages of the checkout's .venv (scripts/python-env.sh)
# rather than a second 5 GB download, and pip builds with --no-build-isolation in
# BUILD_DIR (default build), whose objects `make build` already compiled with the same
# flags: the backend, the install rules and the wheel are the ones a user's `pip install
# .` runs, without compiling the library a second time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-build}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

/usr/bin/python3 -m venv "$work/env"
site=$("$work/env/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
cp "$root/.venv/${site#"$work/env/"}/olla-packages.pth" "$site/"
echo "check-package: pip install $root"
CMAKE_GENERATOR="Unix Makefiles" "$work/env/bin/pip" install --quiet --no-build-isolation \
  --config-settings=build-dir="$build" \
  --config-settings=cmake.define.OLLA_BUILD_TESTS=ON \
  --config-settings=cmake.define.OLLA_BUILD_BENCH=ON "$root"
# Give the build folder back to the checkout's Python.
cmake -S "$root" -B "$build" -DPython_EXECUTABLE="$root/.venv/bin/python" >/dev/null

cd "$work"
cp "$root/examples/train_with_olla.py" .
"$work/env/bin/python" - "$site" <<'EOF'
import sys
import olla
import olla.torch
installed = sys.argv[1]
assert olla.__file__.startswith(installed), f"olla imported from {olla.__file__}"
assert olla.torch._arena.__file__.startswith(installed), olla.torch._arena.__file__
print(f"check-package: import olla.torch: olla {olla.__version__} from {installed}")
EOF
"$work/env/bin/olla" --help | head -1
"$work/env/bin/python" -m olla --version
"$work/env/bin/python" train_with_olla.py --batch 4 --image 32 --steps 2 --work-limit 20000
echo "check-package: passed"
