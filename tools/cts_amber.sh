#!/bin/sh
# Runs `wavelab amber` on every compute-only Amber script of the Vulkan CTS and
# counts the outcomes (docs/hardware.md, "The CTS's Amber scripts").
#   tools/cts_amber.sh MIRROR.git [WAVELAB] [OUT_DIR]
# MIRROR.git: a (bare) clone of KhronosGroup/VK-GL-CTS; the scripts are
# extracted to OUT_DIR (default a temporary directory), never into the project.
# Compute-only: at least one "SHADER compute", no other shader type and no
# graphics pipeline; or, in VkScript (Amber's other format), a "[compute
# shader ...]" section and no other stage's.  Prints one line per script (exit code, path, first
# line of the output) to OUT_DIR/results.txt and a summary by exit code and cause.
# With CHECK=1 in the environment, every script that passes also runs through
# `wavelab check` (the default Vulkan device): OUT_DIR/check.txt and a count.
set -eu
mirror=${1:?usage: tools/cts_amber.sh MIRROR.git [WAVELAB] [OUT_DIR]}
wavelab=${2:-build/wavelab}
out=${3:-$(mktemp -d)}
mkdir -p "$out/scripts"
git --git-dir="$mirror" archive HEAD external/vulkancts/data/vulkan/amber | tar -x -C "$out/scripts"
root="$out/scripts/external/vulkancts/data/vulkan/amber"
: > "$out/results.txt"
find "$root" -name '*.amber' | sort | while read -r f; do
    # compute-only: an AmberScript with a compute SHADER and no graphics stage or pipeline, or a VkScript (Amber's
    # other format) with a [compute shader ...] section and no other stage's
    grep -qE '^[[:space:]]*SHADER[[:space:]]+compute|^\[compute shader' "$f" || continue
    if grep -qE '^[[:space:]]*SHADER[[:space:]]+(vertex|fragment|geometry|tessellation|multi)' "$f" ||
       grep -qE '^[[:space:]]*PIPELINE[[:space:]]+graphics' "$f" ||
       grep -qE '^\[(vertex|fragment|geometry|tessellation)' "$f"; then
        continue
    fi
    set +e
    text=$(timeout 300 "$wavelab" amber "$f" --quiet 2>&1)
    rc=$?
    set -e
    first=$(printf '%s\n' "$text" | grep -vE '^\s*$' | tail -1 | cut -c1-300)
    printf '%s\t%s\t%s\n' "$rc" "${f#"$root"/}" "$first" >> "$out/results.txt"
done
echo "compute-only scripts: $(wc -l < "$out/results.txt")"
echo "by exit code (0 pass, 1 fail, 2 malformed, 3 outside the subset, other: crash or timeout):"
cut -f1 "$out/results.txt" | sort | uniq -c
echo "causes of exit 2 and 3 (the construct named, numbers and names removed):"
awk -F'\t' '$1 == 2 || $1 == 3 { print $1 "\t" $3 }' "$out/results.txt" |
    sed -E 's/^([23])\t(SKIP  )?[^ ]+:[0-9]+: /\1 /; s/[0-9]+/N/g; s/"[^"]*"/"…"/g' |
    cut -c1-110 | sort | uniq -c | sort -rn
echo "results: $out/results.txt"
if [ "${CHECK:-0}" = 1 ]; then
    : > "$out/check.txt"
    awk -F'\t' '$1 == 0 { print $2 }' "$out/results.txt" | while read -r rel; do
        set +e
        text=$(timeout 300 "$wavelab" check "$root/$rel" 2>&1)
        rc=$?
        set -e
        printf '%s\t%s\t%s\n' "$rc" "$rel" "$(printf '%s\n' "$text" | tail -1 | cut -c1-200)" >> "$out/check.txt"
    done
    echo "wavelab check on the passing scripts, by exit code (0 agree, 1 differ, 3 the device cannot run it):"
    cut -f1 "$out/check.txt" | sort | uniq -c
fi
