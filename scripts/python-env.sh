#!/usr/bin/env bash
# The project's Python environment: PyTorch 2.11 and the rest of python/requirements.txt,
# pinned, for Debian's /usr/bin/python3.
#
# Two virtual environments:
#   - the packages, in one environment outside the clone, named by the hash of
#     python/requirements.txt ($OLLA_PYTHON_HOME, default ~/.cache/olla): the torch wheel
#     and its CUDA libraries are 4.8 GB that the package index serves uncached, so every
#     clone with the same requirements shares one copy, made once (about 4 minutes);
#   - the checkout's own, .venv/ in the clone: no packages of its own, it sees the shared
#     environment's and this checkout's python/ (as an editable install would), and its
#     `olla` command runs the CLI that `make build` built. `make` runs Python through it;
#     `source .venv/bin/activate` gives a shell the same.
# Idempotent and safe to run concurrently; prints nothing when everything is in place.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
requirements="$root/python/requirements.txt"
base=/usr/bin/python3
home=${OLLA_PYTHON_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/olla}
shared="$home/python-$(sha256sum "$requirements" | cut -c1-16)"

mkdir -p "$home"
exec 9>"$home/.lock"
flock 9
if [ ! -f "$shared/.complete" ]; then
  echo "python-env: installing python/requirements.txt into $shared (once per" \
    "requirements file; about 5 GB)" >&2
  rm -rf "$shared"
  "$base" -m venv "$shared"
  # Exactly the pinned set: --no-deps, so nothing unpinned slips in, and pip check
  # proves the set complete.
  "$shared/bin/pip" install --quiet --no-deps -r "$requirements"
  "$shared/bin/pip" check >/dev/null
  touch "$shared/.complete"
fi
flock -u 9

venv="$root/.venv"
site=$("$base" -c 'import sys; print(f"lib/python{sys.version_info.major}.{sys.version_info.minor}/site-packages")')
if [ ! -x "$venv/bin/python" ]; then
  "$base" -m venv --without-pip "$venv"
fi
# addsitedir, not a plain path line: the shared site-packages' own .pth files count too.
echo "import site; site.addsitedir('$shared/$site')" > "$venv/$site/olla-packages.pth"
echo "$root/python" > "$venv/$site/olla-checkout.pth"
cat > "$venv/bin/olla" <<EOF
#!/bin/sh
exec "$venv/bin/python" -m olla "\$@"
EOF
chmod +x "$venv/bin/olla"
