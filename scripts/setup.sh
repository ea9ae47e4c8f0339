#!/usr/bin/env bash
# scripts/setup.sh — installs wavelab's build and test dependencies from
# Debian when any is missing.  Safe to run again: does nothing when all are
# present.  Needs root (or sudo) only when something must be installed.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  glslang-dev glslang-tools      # GLSL/HLSL -> SPIR-V, in process (C interface)
  spirv-tools spirv-headers      # validation, disassembly; opcode tables
  libcjson-dev                   # case files and JSON output
  nettle-dev                     # SHA-256 keys of the SPIR-V cache
  libpng-dev                     # case images from .png files, --dump of 8-bit images
  check                          # unit tests
  ninja-build                    # scripts/build.sh: builds with Ninja (faster than makefiles on few cores)
  libxml2-utils                  # xmllint: `wavelab test --junit` output checked against the JUnit structure
  libvulkan-volk-dev libvulkan-dev  # Vulkan backend (volk meta-loader + headers)
  libvulkan1 mesa-vulkan-drivers    # a real Vulkan device on the CPU (lavapipe) for tests
  clang libclang-rt-14-dev          # libFuzzer harnesses (fuzz/, scripts/fuzz.sh): -fsanitize=fuzzer
  lld                               # the test executables linked by lld (CMakeLists.txt)
  chromium zlib1g-dev            # the report test: a headless browser renders the page; zlib reads its PNG
  python3                        # tools/: case generators with independent references
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "setup: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
