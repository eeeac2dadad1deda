#!/usr/bin/env bash
# .ci/figures itself: --check fails on a stale block and leaves the file alone, a paste makes the
# block equal to the command's own output (wall time dropped), a second --check passes, and a
# malformed block or a bad command exits 2.   Usage: figures_check_test.sh FIGURES CKPTSIM
set -uo pipefail
figures="$1" ckptsim="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat >"$work/doc.md" <<'DOC'
# a doc
<!-- figures: explore --seeds 30 ::: ^(explored|outcomes|trace hash) -->
```text
outcomes:  finished 1
```
<!-- /figures -->
after
DOC
cp "$work/doc.md" "$work/before.md"
bash "$figures" --check --ckptsim "$ckptsim" "$work/doc.md" >"$work/check.out"
[ $? -eq 1 ] || fail "--check passed a stale block"
cmp -s "$work/doc.md" "$work/before.md" || fail "--check changed the file"
grep -q '^-outcomes:  finished 1$' "$work/check.out" || fail "--check printed no diff of the stale line"

bash "$figures" --ckptsim "$ckptsim" "$work/doc.md" >/dev/null || fail "the paste failed"
(cd "$work" && "$ckptsim" explore --seeds 30 --out "$work/failures" >"$work/direct.out") || fail "explore failed"
expected=$(grep -E '^(explored|outcomes|trace hash)' "$work/direct.out" | sed -E 's/ in [0-9.]+ s \([0-9.]+ scenarios\/s\)//')
pasted=$(sed -n '/^```text$/,/^```$/p' "$work/doc.md" | sed '1d;$d')
[ "$pasted" = "$expected" ] || fail "pasted block differs from the command's output:
$pasted
---
$expected"
grep -q ' scenarios/s' "$work/doc.md" && fail "the wall-clock rate was pasted"
tail -n 1 "$work/doc.md" | grep -qx 'after' || fail "text after the block was lost"
bash "$figures" --check --ckptsim "$ckptsim" "$work/doc.md" >/dev/null || fail "--check fails right after a paste"

printf '%s\n' '<!-- figures: explore --seeds 3 -->' 'never closed' >"$work/open.md"
bash "$figures" --check --ckptsim "$ckptsim" "$work/open.md" 2>/dev/null
[ $? -eq 2 ] || fail "an unclosed block did not exit 2"
printf '%s\n' '<!-- figures: explore --no-such-flag -->' '<!-- /figures -->' >"$work/bad.md"
bash "$figures" --check --ckptsim "$ckptsim" "$work/bad.md" 2>/dev/null
[ $? -eq 2 ] || fail "a command that exits 2 did not exit 2"
echo "figures script: all checks passed"
