#!/usr/bin/env bash
# Installs what `make bench-peers` compares asyncscope with, NumPy and
# PyTorch (CPU) for Debian's python3, when missing. The benchmark's own
# dependencies, not the app's: scripts/deps.sh does not list them.
# Uses sudo when not root, as scripts/deps.sh does.
set -euo pipefail

packages=(python3-numpy python3-torch)
missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "asyncscope: bench-peers needs ${missing[*]} and there is no apt-get; install NumPy and PyTorch for python3 yourself." >&2
  exit 1
fi
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
    echo "asyncscope: need root to install ${missing[*]}; run as root or install sudo." >&2
    exit 1
  fi
fi
echo "asyncscope: installing ${missing[*]} (for make bench-peers)" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
