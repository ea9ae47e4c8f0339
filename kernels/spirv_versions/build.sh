#!/bin/sh
# Compiles versions.comp to the committed SPIR-V modules with glslangValidator,
# into the directory given (default: this one).  The CTest test
# spirv_versions_fresh runs it into a temporary directory and compares, so the
# committed .spv files cannot drift from the source.
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
glslangValidator -V --target-env vulkan1.2 -o "$out/versions_spv15.spv" "$here/versions.comp" >/dev/null
glslangValidator -V --target-env vulkan1.3 -o "$out/versions_spv16.spv" "$here/versions.comp" >/dev/null
