#!/bin/bash
# format.sh [--check] [FILE...]: format the project's C and C++ files with
# clang-format 14 (Debian 12's), in place; with --check, change nothing,
# list every file that is not formatted and exit 1 if there is one.
# Without FILEs: every .c, .cc, .h file of the tree (git's list in a
# checkout, else a walk of the source tree, as in a release tarball).
#
# The one place that says which style a file takes:
#   - C++ (the tree's default): the nearest .clang-format, Google's style
#     at 100 columns (./.clang-format);
#   - C in the kernel-like style of upstream ibacm's provider interface
#     (include/.clang-format): every .c file, and the C headers in
#     include/, libibssa_path/, test/providers/, examples/, the OpenSM
#     plugin's osm_*.h and the shared-memory table layout.
# Exit status: 0 formatted (or done), 1 unformatted files (--check),
# 77 no clang-format 14 here (the suite counts it as skipped), 2 usage.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
case "${1:-}" in -*) echo "usage: $0 [--check] [FILE...]" >&2; exit 2 ;; esac

cf=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$cf" ]; then
	echo "format: clang-format is not installed (Debian package clang-format)" >&2
	exit 77
fi
major=$("$cf" --version | sed -nE 's/.*version ([0-9]+)\..*/\1/p')
if [ "$major" != 14 ]; then
	echo "format: $cf is version ${major:-unknown}; the house style is clang-format 14's (Debian 12)" >&2
	exit 77
fi

cd "$top"
if [ $# -gt 0 ]; then
	files=("$@")
elif git rev-parse --is-inside-work-tree >/dev/null 2>&1 && [ -d .git ]; then
	mapfile -t files < <(git ls-files '*.c' '*.cc' '*.h')
else
	mapfile -t files < <(find . -path ./build -prune -o -path './build-*' -prune -o \
		-path ./debian -prune -o -path './obj-*' -prune -o \( -name '*.c' -o -name '*.cc' -o -name '*.h' \) -print |
		sed 's|^\./||' | sort)
fi

c_style() {
	case "$1" in
	*.c | include/* | libibssa_path/* | test/providers/* | examples/* | \
		opensm_plugin/osm_*.h | common/shm_prdb/shm_prdb_format.h | common/answer/*.h) return 0 ;;
	*) return 1 ;;
	esac
}

bad=0
for f in "${files[@]}"; do
	[ -f "$f" ] || continue
	style=file
	c_style "$f" && style=file:$top/include/.clang-format
	if [ "$check" = 1 ]; then
		if ! "$cf" --style="$style" --dry-run -Werror "$f" >/dev/null 2>&1; then
			echo "not formatted: $f"
			bad=$((bad + 1))
		fi
	else
		"$cf" --style="$style" -i "$f"
	fi
done
if [ "$check" = 1 ]; then
	echo "format: ${#files[@]} files checked, $bad not formatted"
	[ "$bad" -eq 0 ] || { echo "format: run scripts/format.sh to format them" >&2; exit 1; }
fi
exit 0
