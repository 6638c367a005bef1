#!/bin/sh
# scripts/check_house.sh [BUILD]: the layout rules of DESIGN.md section 8
# and STYLE.md, checked on the tree and on the objects in BUILD (default
# build/).  make test runs it; any finding fails.
#
# 1. Includes point one way: core/ includes nothing of solvers/, viz/ or
#    tui/ (nor curses, CBC or Graphviz's renderer), and core/ outside
#    core/formats/ nothing of core/formats/; solvers/ and viz/ include
#    nothing of each other or of tui/; the workbench room (tui/wb/) nothing of
#    the commands room (tui/cmd/); the shared base (tui/*.c) neither room.
# 2. Calls point the same way: from `nm` on the objects, no file calls a
#    function defined in a folder it may not include (core/ outside
#    core/formats/ calls no file format).
# 3. No circle of calls between the files of one folder (file A calls B and
#    B, directly or through others of the folder, calls A).
# 4. No source file over 600 lines unless it says why near its top, in a
#    line containing "Longer than 600 lines:".
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
fail=0
say() {
	echo "check_house: $*" >&2
	fail=1
}

# --- 1. includes ---------------------------------------------------------
# forbidden PATTERN FILES...: quoted includes of PATTERN in FILES
forbidden() {
	pat=$1
	shift
	for f in "$@"; do
		[ -f "$f" ] || continue
		grep -Hn "^#[[:space:]]*include[[:space:]]*[\"<]\($pat\)" "$f" || true
	done
}
lib_core=$(ls core/*.c core/*.h; ls core/formats/*.c core/formats/*.h 2>/dev/null || true)
lib_solvers=$(ls solvers/*.c solvers/*.h)
lib_viz=$(ls viz/*.c viz/*.h)
wb=$(ls tui/wb/*.c tui/wb/*.h 2>/dev/null || true)
base=$(ls tui/*.c tui/*.h | grep -v "^tui/main.c$")
hits=$(
	forbidden 'solvers/\|viz/\|tui/\|curses\|ncurses\|Cbc\|coin/\|gvc\.h\|graphviz/gvc' $lib_core
	forbidden 'core/formats/\|formats/' core/*.c core/*.h
	forbidden 'viz/\|tui/\|curses\|ncurses\|gvc\.h\|graphviz/' $lib_solvers
	forbidden 'solvers/\|tui/\|curses\|ncurses\|Cbc\|coin/' $lib_viz
	forbidden 'tui/cmd/' $wb
	forbidden 'tui/cmd/\|tui/wb/' $base
)
if [ -n "$hits" ]; then
	echo "$hits" >&2
	say "an include points the wrong way (above)"
fi

# --- 2 and 3. calls, from the objects ------------------------------------
objs=$(find "$build/core" "$build/solvers" "$build/viz" "$build/tui" -name '*.o' 2>/dev/null |
	grep -v "$build/tui/main.o" | sort)
if [ -z "$objs" ]; then
	say "no objects under $build/ (build first: make stagecut)"
	exit 1
fi
# one line per object: DEF <file> <symbol> or USE <file> <symbol>, files
# named by their source path without the build directory
for o in $objs; do
	src=${o#"$build"/}
	src=${src%.o}.c
	[ -f "$src" ] || continue # an object left from a file since moved
	nm "$o" | awk -v f="$src" '
		NF == 3 && $2 ~ /^[TDBR]$/ { print "DEF", f, $3 }
		$1 == "U" { print "USE", f, $2 }'
done | awk '
	# folder of a file: tui/cmd, tui/wb, tui (the base), core, core/formats,
	# solvers, viz
	function dir(f,   d) {
		d = f
		sub(/\/[^\/]*$/, "", d)
		return d
	}
	# may a file in folder a call into folder b?
	function allowed(a, b) {
		if (a == b) return 1
		if (b == "core") return 1
		# the formats room (core/formats) reads and writes files for the
		# others; the model (core) never needs it
		if (b == "core/formats") return a != "core"
		if (a ~ /^core/) return 0
		if (b == "solvers") return a != "viz"
		if (b == "viz") return a ~ /^tui/
		if (b == "tui") return a ~ /^tui/
		if (b == "tui/wb") return a == "tui/cmd"
		if (b == "tui/cmd") return 0
		return 0
	}
	$1 == "DEF" { def[$3] = $2; next }
	$1 == "USE" { use[NR] = $2 " " $3; next }
	END {
		bad = 0
		for (i in use) {
			split(use[i], p, " ")
			f = p[1]; s = p[2]
			if (!(s in def)) continue
			g = def[s]
			if (f == g) continue
			if (!allowed(dir(f), dir(g))) {
				printf "check_house: %s calls %s in %s: %s may not call into %s\n", \
					f, s, g, dir(f), dir(g) > "/dev/stderr"
				bad = 1
			}
			if (dir(f) == dir(g) && !((f, g) in edge)) {
				edge[f, g] = 1
				adj[f] = adj[f] " " g
				why[f, g] = s
			}
		}
		# depth-first search for a circle inside each folder
		for (f in adj) {
			if (color[f]) continue
			if (visit(f)) bad = 1
		}
		exit bad
	}
	# colours: 1 on the path being explored, 2 done; a neighbour on the
	# path closes a circle, printed from that neighbour round to it
	function visit(f,   n, i, nb, g, k, path, found) {
		color[f] = 1
		stack[++depth] = f
		found = 0
		n = split(adj[f], nb, " ")
		for (i = 1; i <= n; i++) {
			g = nb[i]
			if (color[g] == 1) {
				path = ""
				for (k = 1; k <= depth; k++)
					if (stack[k] == g || path != "")
						path = path stack[k] " -> "
				printf "check_house: a circle of calls: %s%s (%s calls %s)\n", \
					path, g, f, why[f, g] > "/dev/stderr"
				found = 1
			} else if (!color[g] && visit(g)) {
				found = 1
			}
		}
		color[f] = 2
		depth--
		return found
	}' || fail=1

# --- 4. long files -------------------------------------------------------
for f in $(git ls-files '*.c' '*.h'); do
	n=$(wc -l <"$f")
	if [ "$n" -gt 600 ] && ! head -n 40 "$f" | grep -q 'Longer than 600 lines:'; then
		say "$f has $n lines and does not say why at its top (\"Longer than 600 lines: ...\")"
	fi
done

if [ "$fail" -ne 0 ]; then
	exit 1
fi
echo "check_house: includes and calls point one way, no circles, no long file without a reason"
