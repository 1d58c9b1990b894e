#!/bin/sh
# grafana_dashboard_test.sh: the Grafana dashboard (examples/grafana/
# ibacm-ssa.json) is valid JSON, and every metric its queries name is one
# the code writes: the names are read from the code's own registrations
# (the string literals of the files that write metric families, and the
# prefixes given to metrics::AddDaemonFamilies / AddWriteFailures), so a
# metric renamed in the code fails here instead of leaving an empty panel.
# Run by `make check` from the top build directory ($srcdir: the source
# tree). Ends with a CppUTest-style summary line, which
# scripts/count-tests.sh counts.
set -u
top=${srcdir:-.}
dash=$top/examples/grafana/ibacm-ssa.json
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0 total=0
check() { # NAME COMMAND...: one check, its output kept for a failure
	name=$1
	shift
	total=$((total + 1))
	if "$@" >"$tmp/out" 2>&1; then
		echo "ok: $name"
	else
		echo "FAIL: $name"
		sed 's/^/    /' "$tmp/out"
		fail=$((fail + 1))
	fi
}

check "$dash is valid JSON" /usr/bin/python3 -m json.tool "$dash"

# The names the code writes: literals in the files that open families,
# through PromText (Family) or, in a provider, the core's metrics ops
# (ops->family, ABI 1.4).
files=$(grep -rl --include='*.cc' -e 'Family(' -e '->family(' "$top/core" "$top/distrib" \
	"$top/opensm_plugin" "$top/util" "$top/common" "$top/providers")
grep -ohE '"(ibacm|ibssa)_[a-z0-9_]+"' $files | tr -d '"' >"$tmp/names"
for prefix in $(grep -ohE 'Add(DaemonFamilies|WriteFailures)\(out, "[a-z_]+"' $files |
	sed 's/.*"\(.*\)"/\1/' | sort -u); do
	printf '%s\n' "${prefix}_up" "${prefix}_start_time_seconds" \
		"${prefix}_metrics_write_failures_total" >>"$tmp/names"
done
sort -u "$tmp/names" -o "$tmp/names"
check "the code's metric names were found" test "$(grep -c . "$tmp/names")" -gt 40
check "the ssa provider's names were found" grep -qx ibacm_ssa_fallbacks_total "$tmp/names"

# Every query's metric names (identifiers starting ibacm_ or ibssa_).
cat >"$tmp/queries.py" <<'PY'
import json, re, sys
dash = json.load(open(sys.argv[1]))
known = set(open(sys.argv[2]).read().split())
def panels(ps):
    for p in ps:
        yield p
        yield from panels(p.get("panels", []))
bad, count = [], 0
for p in panels(dash["panels"]):
    for t in p.get("targets", []):
        names = re.findall(r"\b(?:ibacm|ibssa)_[a-zA-Z0-9_]+", t.get("expr", ""))
        count += len(names)
        bad += ["%s: %s" % (p["title"], n) for n in names if n not in known]
if count == 0:
    sys.exit("no metric named in any query")
if bad:
    sys.exit("not written by the code:\n" + "\n".join(bad))
print("%d metric references, all written by the code" % count)
PY
check "every metric the dashboard's queries name is written by the code" \
	/usr/bin/python3 "$tmp/queries.py" "$dash" "$tmp/names"
# The panels the dashboard is for.
for title in "Epoch lag behind the core, per node" "Age of the database held" \
	"Path queries answered without the SA" "Fallbacks to the SA, per node" \
	"Fallbacks by reason" "Consumers' PRDB age and epoch"; do
	check "panel '$title'" grep -qF "\"title\": \"$title\"" "$dash"
done

if [ "$fail" -eq 0 ]; then
	echo "OK ($total tests, $total ran, $total checks, 0 ignored, 0 filtered out, 0 ms)"
	exit 0
fi
echo "Errors ($fail failures, $total tests, $total ran, $total checks, 0 ignored, 0 filtered out, 0 ms)"
exit 1
