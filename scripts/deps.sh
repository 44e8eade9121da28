#!/usr/bin/env bash
# Installs the Debian packages asyncscope needs, skipping those already present.
# Used by `make run` / `make test`; safe to run again. Uses sudo when not root.
# With arguments, installs those packages instead. PyTorch (python3-torch)
# is a test dependency: the tests compare the PyTorch edition with the real
# thing, and the side-by-side benchmark's check (python.PeersQuick) runs it;
# torchvision (python3-torchvision) is the real package a reader's program
# may import next to the edition (the tests check it stays on the real torch).
# Chromium (headless) checks that the SVG pictures of timelines render; the
# Jupyter packages run a notebook with the %%asyncscope magic in the tests.
# matplotlib draws the d2l library's figures (plot, Animator); pandas, SciPy
# and matplotlib-inline are what the real d2l library imports, which the
# tests run beside the edition's.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libopenblas-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev libstb-dev zlib1g-dev
  libimgui-dev libglfw3-dev libgl-dev
  xvfb xauth xdotool fonts-dejavu-core
  python3-dev pybind11-dev python3-numpy procps
  python3-torch python3-torchvision
  clang libclang-rt-dev
  chromium
  python3-ipykernel jupyter-nbconvert python3-nbformat python3-nbclient
  python3-matplotlib python3-matplotlib-inline python3-pandas python3-scipy
)

# Node.js and npm run the trace-consumer test (Chrome DevTools' trace engine
# and TracerBench from the npm registry); any install of them will do.
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)
[[ $# -gt 0 ]] && packages=("$@")

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "asyncscope: missing packages (${missing[*]}) and no apt-get; install them with your package manager." >&2
  exit 1
fi
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
    echo "asyncscope: need root to install ${missing[*]}; run as root or install sudo." >&2
    exit 1
  fi
fi
echo "asyncscope: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
