#!/bin/sh
# Compiles and lowers DXC's own wave-intrinsic HLSL tests with wavelab and
# counts the outcomes (docs/hardware.md, "HLSL as DXC reads it: a hold-out").
#   tools/hlsl_holdout.sh MIRROR.git [WAVELAB] [OUT_DIR]
# MIRROR.git: a (bare) clone of microsoft/DirectXShaderCompiler; the tests are
# extracted to OUT_DIR (default a temporary directory), never into the project.
#
# The hold-out (fixed before the first measurement; never tuned on results):
#   (a) tools/clang/test/CodeGenSPIRV/*.hlsl whose file name contains "wave"
#       or "quad" (any case),
#   (b) tools/clang/test/CodeGenSPIRV/*.hlsl that call a Wave*( or Quad*(
#       intrinsic,
#   (c) every .hlsl under tools/clang/test/HLSLFileCheck/hlsl/intrinsics/wave/
#       and tools/clang/test/HLSLFileCheckLit/hlsl/intrinsics/wave/.
# Each file is read by its first `RUN:` line that runs %dxc and does not
# start with `not` (DXC must reject what such a line compiles):
#   * no such line: outside the subset ("expects an error");
#   * -T cs_*: in the subset, entry -E (default main);
#   * -T lib_*: in the subset when a function carries [shader("compute")]
#     (the first such is the entry), else outside (no compute entry);
#   * any other profile (ps, vs, hs, as, ...): outside ("stage").
# -fspv-target-env=vulkan1.N becomes the case's "target_env" (vulkan1.0 is
# wavelab's floor, vulkan1.1), -D NAME=VALUE / /DNAME=VALUE its "defines";
# other DXC flags (-fcgl, -HV, -O0, -fspv-extension, ...) are ignored.  A
# case needs a binding: each gets one the kernels never name (set 31).
# "Pass" = `wavelab disasm` compiles, validates and lowers the kernel (exit 0).
# DXC's FileCheck lines describe DXC's SPIR-V or DXIL, not wavelab's: unused.
# Prints one line per file to OUT_DIR/results.txt (exit code or "outside:
# why", path, first error line) and a summary: counts, then failures grouped
# by their first error line (paths, numbers and quoted names removed).
set -eu
mirror=${1:?usage: tools/hlsl_holdout.sh MIRROR.git [WAVELAB] [OUT_DIR]}
wavelab=${2:-build/wavelab}
out=${3:-$(mktemp -d)}
case $wavelab in /*) ;; *) wavelab=$(pwd)/$wavelab ;; esac
mkdir -p "$out/tests"
t=tools/clang/test
{
    git --git-dir="$mirror" ls-tree -r HEAD --name-only -- "$t/CodeGenSPIRV" |
        grep -iE "^$t/CodeGenSPIRV/[^/]*(wave|quad)[^/]*\.hlsl$" || true
    git --git-dir="$mirror" grep -l -E '\b(Wave|Quad)[A-Z][A-Za-z]*[[:space:]]*\(' HEAD -- "$t/CodeGenSPIRV/*.hlsl" |
        sed 's#^HEAD:##' || true
    git --git-dir="$mirror" ls-tree -r HEAD --name-only -- "$t/HLSLFileCheck/hlsl/intrinsics/wave" \
        "$t/HLSLFileCheckLit/hlsl/intrinsics/wave" | grep -E '\.hlsl$' || true
} | sort -u > "$out/list.txt"
git --git-dir="$mirror" archive HEAD $(cat "$out/list.txt") | tar -x -C "$out/tests"
: > "$out/results.txt"
while read -r rel; do
    f="$out/tests/$rel"
    run=$(grep -E 'RUN:.*%dxc' "$f" | sed 's/.*RUN:[[:space:]]*//' | grep -v '^not[[:space:]]' | head -1 || true)
    why=
    entry=$(printf '%s\n' "$run" | sed -nE 's/.*-E[[:space:]]*([A-Za-z_][A-Za-z0-9_]*).*/\1/p')
    profile=$(printf '%s\n' "$run" | sed -nE 's/.*-T[[:space:]]*([a-z]+)_[0-9x_]+.*/\1/p')
    case $run in
    '') why="expects an error" ;;
    *)
        case $profile in
        cs) ;;
        lib)
            entry=$(tr '\n' ' ' < "$f" | grep -oE '\[shader\("compute"\)\][^(]*\(' | head -1 |
                sed -E 's/.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\($/\1/')
            [ -n "$entry" ] || why="stage lib (no compute entry)"
            ;;
        *) why="stage ${profile:-none}" ;;
        esac
        ;;
    esac
    if [ -n "$why" ]; then
        printf 'outside: %s\t%s\t\n' "$why" "$rel" >> "$out/results.txt"
        continue
    fi
    env=$(printf '%s\n' "$run" | sed -nE 's/.*-fspv-target-env=(vulkan1\.[0-9]).*/\1/p')
    [ "$env" != vulkan1.0 ] || env=
    defines=$(printf '%s\n' "$run" | grep -oE '(^|[[:space:]])[-/]D[[:space:]]*[A-Za-z_][A-Za-z0-9_]*(=[^[:space:]]*)?' |
        sed -E 's/^[[:space:]]*[-/]D[[:space:]]*//' |
        awk -F= '{ v = substr($0, length($1) + 2); gsub(/\\/, "\\\\", v); gsub(/"/, "\\\"", v)
                   printf "%s\"%s\": \"%s\"", n++ ? ", " : "", $1, v }')
    json="${f%.hlsl}.wavelab.json"
    {
        printf '{"kernel": "%s", "language": "hlsl", "entry": "%s", "groups": [1]' "$(basename "$f")" "${entry:-main}"
        [ -z "$env" ] || printf ', "target_env": "%s"' "$env"
        [ -z "$defines" ] || printf ', "defines": {%s}' "$defines"
        printf ', "bindings": [{"set": 31, "binding": 0, "type": "u32", "data": [0]}]}\n'
    } > "$json"
    set +e
    text=$(timeout 120 "$wavelab" disasm "$json" --no-cache 2>&1 >/dev/null)
    rc=$?
    set -e
    first=$(printf '%s\n' "$text" | grep -E 'error|invalid|refused|cannot|unsupported' | head -1 | cut -c1-300)
    [ -n "$first" ] || first=$(printf '%s\n' "$text" | grep -vE '^\s*$' | head -1 | cut -c1-300)
    printf '%s\t%s\t%s\n' "$rc" "$rel" "$first" >> "$out/results.txt"
done < "$out/list.txt"
echo "hold-out files: $(wc -l < "$out/list.txt")"
echo "outside the compute subset:"
grep '^outside' "$out/results.txt" | cut -f1 | sed 's/^outside: //' | sort | uniq -c
echo "compute subset: $(grep -vc '^outside' "$out/results.txt"), by exit code (0 pass, 2 refused, other: crash or timeout):"
grep -v '^outside' "$out/results.txt" | cut -f1 | sort | uniq -c
echo "causes of the failures (first error line; paths, numbers and quoted names removed):"
grep -v '^outside' "$out/results.txt" | awk -F'\t' '$1 != 0 { print $3 }' |
    sed -E 's/^[^ ]+:[0-9]+: //; s/^[^ ]+\.(hlsl|json): //; s/[0-9]+/N/g; s/"[^"]*"/"…"/g; s/'"'"'[^'"'"']*'"'"'/'"'"'…'"'"'/g' |
    cut -c1-120 | sort | uniq -c | sort -rn
echo "results: $out/results.txt"
