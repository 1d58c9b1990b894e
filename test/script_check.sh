# script_check.sh: sourced by the tests that wrap one of scripts/ (format,
# thread safety): runs the command, prints its output and a CppUTest-style
# summary line (which scripts/count-tests.sh counts), and exits as
# automake's test driver expects: 0, 1, or 77 (skipped) when the command
# exits 77 because its tool is not installed.
#   script_check "what failed" "why skipped" command [args...]
script_check() {
	failed=$1 skipped=$2
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	case $rc in
	0) echo "OK (1 tests, 1 ran, 1 checks, 0 ignored, 0 filtered out, 0 ms)" ;;
	77) echo "SKIP: $skipped"; exit 77 ;;
	*)
		echo "FAIL: $failed"
		echo "Errors (1 failures, 1 tests, 1 ran, 1 checks, 0 ignored, 0 filtered out, 0 ms)"
		exit 1
		;;
	esac
}
