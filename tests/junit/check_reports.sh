#!/usr/bin/env bash
# tests/junit/check_reports.sh WAVELAB — `wavelab test --junit` and `--tap` on
# four cases whose outcomes are known by construction: one passes, one has a
# wrong expected element (element 3: the kernel writes 3*3 = 9, the case says
# 10), one kernel does not compile, one has no "expect".  At waves 8 and 16
# that is 8 test cases: 2 passed, 2 failures, 2 errors, 2 skipped.  The JUnit
# file must validate against junit-basic.xsd (xmllint, libxml2-utils) and its
# counts and messages must be those; TAP must say the same.  The cases live in
# a folder named with XML markup characters, which must come out escaped.
set -euo pipefail
wavelab="$1"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
# markup characters in the path: they reach attributes and messages, and must come out escaped
tmp="$root/cases & <\"quoted\">"
mkdir -p "$tmp"
fail() { echo "check_reports: $*" >&2; exit 1; }

cat > "$tmp/times3.comp" <<'K'
#version 450
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
void main() { o.v[gl_LocalInvocationIndex] = gl_LocalInvocationIndex * 3u; }
K
printf '#version 450\nlayout(local_size_x = 16) in;\nvoid main() { this is not glsl; }\n' > "$tmp/broken.comp"
expected='[0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45]'
wrong='[0, 3, 6, 10, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45]'
binding='"bindings": [{"set": 0, "binding": 0, "type": "u32", "count": 16, "fill": {"value": 0}}]'
echo "{\"kernel\": \"times3.comp\", $binding, \"expect\": [{\"binding\": 0, \"data\": $expected}]}" > "$tmp/a_pass.json"
echo "{\"kernel\": \"times3.comp\", $binding, \"expect\": [{\"binding\": 0, \"data\": $wrong}]}" > "$tmp/b_wrong.json"
echo "{\"kernel\": \"broken.comp\", $binding, \"expect\": [{\"binding\": 0, \"data\": $expected}]}" > "$tmp/c_broken.json"
echo "{\"kernel\": \"times3.comp\", $binding}" > "$tmp/d_noexpect.json"

set +e
"$wavelab" test "$tmp" --waves 8,16 --junit "$root/out.xml" > "$root/text.txt" 2>&1
rc=$?
"$wavelab" test "$tmp" --waves 8,16 --tap > "$root/tap.txt" 2>&1
tap_rc=$?
set -e
[ "$rc" = 1 ] || fail "exit code $rc with failing cases (expected 1)"
[ "$tap_rc" = 1 ] || fail "--tap: exit code $tap_rc (expected 1)"

xmllint --noout --schema "$here/junit-basic.xsd" "$root/out.xml" 2> "$root/xsd.txt" ||
  { cat "$root/xsd.txt" >&2; fail "JUnit output does not validate against junit-basic.xsd"; }

count() { xmllint --xpath "$1" "$root/out.xml"; }
check() { # check XPATH EXPECTED
  local got; got="$(count "$1")"
  [ "$got" = "$2" ] || fail "$1 is $got, expected $2"
}
check 'count(//testcase)' 8
check 'count(//testcase[failure])' 2
check 'count(//testcase[error])' 2
check 'count(//testcase[skipped])' 2
check 'count(//testcase[not(*)])' 2
check 'string(/testsuites/testsuite/@tests)' 8
check 'string(/testsuites/testsuite/@failures)' 2
check 'string(/testsuites/testsuite/@errors)' 2
check 'string(/testsuites/testsuite/@skipped)' 2
check "count(//testcase[@name='wave 8'])" 4
check "count(//testcase[@name='wave 16'])" 4
# each failure names the wrong element with both values
check "count(//testcase[contains(@classname, 'b_wrong')]/failure[contains(@message, 'element 3: expected 10, actual 9')])" 2
# the compile error names the kernel file and line
check "count(//testcase[contains(@classname, 'c_broken')]/error[contains(., 'broken.comp:3')])" 2
# the path came through the escaping whole
check "count(//testcase[contains(@file, 'cases & <\"quoted\">/a_pass.json')])" 2

grep -qx '1..8' "$root/tap.txt" || fail "TAP: no plan 1..8"
[ "$(grep -c '^ok ' "$root/tap.txt")" = 4 ] || fail "TAP: expected 4 'ok' lines (2 passes, 2 skips)"
[ "$(grep -c '^not ok ' "$root/tap.txt")" = 4 ] || fail "TAP: expected 4 'not ok' lines"
[ "$(grep -c '# SKIP' "$root/tap.txt")" = 2 ] || fail "TAP: expected 2 SKIP directives"
grep -q 'element 3: expected 10, actual 9' "$root/tap.txt" || fail "TAP: the failed expectation's message is missing"
echo "check_reports: JUnit and TAP reports as expected"
