#!/usr/bin/env bash
# tests/junit/check_reports.sh WAVELAB — `wavelab test --junit` and `--tap` on
# five cases whose outcomes are known by construction: one passes, one has a
# wrong expected element (element 3: the kernel writes 3*3 = 9, the case says
# 10), one kernel does not compile, one has no "expect", one has the wrong
# element and a "known_failure".  At waves 8 and 16 that is 10 test cases: 2
# passed, 2 failures, 2 errors, 2 skipped, 2 xfail.  The JUnit file must
# validate against junit-basic.xsd (xmllint, libxml2-utils) and its counts and
# messages must be those; TAP and the text's closing line must say the same.  The cases live in
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
echo "{\"kernel\": \"times3.comp\", \"known_failure\": \"a quirk\", $binding, \"expect\": [{\"binding\": 0, \"data\": $wrong}]}" > "$tmp/e_xfail.json"

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
check 'count(//testcase)' 10
check 'count(//testcase[failure])' 2
check 'count(//testcase[error])' 2
# JUnit has no expected failure: an xfail is a <skipped> of type "known failure"
check 'count(//testcase[skipped])' 4
check "count(//testcase[skipped[@type='known failure']])" 2
check "count(//testcase[contains(@classname, 'e_xfail')]/skipped[@type='known failure'][@message='a quirk'])" 2
check 'count(//testcase[not(*)])' 2
check 'string(/testsuites/testsuite/@tests)' 10
check 'string(/testsuites/testsuite/@failures)' 2
check 'string(/testsuites/testsuite/@errors)' 2
check 'string(/testsuites/testsuite/@skipped)' 4
check 'string(/testsuites/@skipped)' 4
check "count(//testcase[@name='wave 8'])" 5
check "count(//testcase[@name='wave 16'])" 5
# each failure names the wrong element with both values
check "count(//testcase[contains(@classname, 'b_wrong')]/failure[contains(@message, 'element 3: expected 10, actual 9')])" 2
# the compile error names the kernel file and line
check "count(//testcase[contains(@classname, 'c_broken')]/error[contains(., 'broken.comp:3')])" 2
# the path came through the escaping whole
check "count(//testcase[contains(@file, 'cases & <\"quoted\">/a_pass.json')])" 2

grep -qx '1..10' "$root/tap.txt" || fail "TAP: no plan 1..10"
[ "$(grep -c '^ok ' "$root/tap.txt")" = 4 ] || fail "TAP: expected 4 'ok' lines (2 passes, 2 skips)"
[ "$(grep -c '^not ok ' "$root/tap.txt")" = 6 ] || fail "TAP: expected 6 'not ok' lines (2 failures, 2 errors, 2 xfail)"
[ "$(grep -c '^ok .* # SKIP' "$root/tap.txt")" = 2 ] || fail "TAP: expected 2 'ok ... # SKIP' lines"
[ "$(grep -c '^not ok .* # TODO a quirk$' "$root/tap.txt")" = 2 ] || fail "TAP: expected 2 'not ok ... # TODO' lines"
# the three outputs count alike: the text's and TAP's closing lines
summary='2 passed, 4 failed, 2 skipped, 2 xfail'
[ "$(tail -n 1 "$root/text.txt")" = "$summary" ] || fail "text: last line is not '$summary'"
[ "$(tail -n 1 "$root/tap.txt")" = "# $summary" ] || fail "TAP: last line is not '# $summary'"
[ "$(grep -c '^PASS  ' "$root/text.txt")" = 2 ] || fail "text: expected 2 PASS lines"
[ "$(grep -c '^SKIP  .*d_noexpect.json (wave [0-9]*): the case has no "expect"$' "$root/text.txt")" = 2 ] ||
  fail "text: expected 2 SKIP lines for the case without expect"
[ "$(grep -c '^XFAIL .*e_xfail.json' "$root/text.txt")" = 2 ] || fail "text: expected 2 XFAIL lines"
grep -q 'element 3: expected 10, actual 9' "$root/tap.txt" || fail "TAP: the failed expectation's message is missing"
echo "check_reports: JUnit and TAP reports as expected"
