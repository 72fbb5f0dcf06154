#!/bin/sh
# test_readme.sh WANKA SRC — README.md's "Using it" runs top to bottom.
#
# Takes the first ```sh block after the "## Using it" heading of SRC/README.md
# and runs its lines in order, in one bash (so `export` carries over; pipefail
# on), in a fresh temporary folder; stdin is /dev/null. The first line that
# exits non-zero fails the test, naming its README line.
#
# The README's commands name `./build/wanka` and the project's `scenarios/`,
# `examples/` and `tests/` relative to the project's folder. The fresh folder
# stands in for it: `build` there is a link to the folder of the WANKA under
# test (so ./build/wanka is it, and ./build/wanka-sched.pc its pkg-config
# file), `scenarios`, `examples` and `tests` are links into SRC. Everything
# the commands write lands in the fresh folder, never in SRC.
#
# Markers (a trailing comment on the README line):
#   [network]  downloads or installs something: not run. The one such line,
#              the Philly trace, is stood in for by ../shared/traces/philly.csv
#              beside SRC, linked as ./philly.csv; without it the lines naming
#              philly.csv are not run either (the test says so).
# Lines ending in a backslash are joined with the next.
#
# README_TEST_KEEP=1 keeps the folder (its path is printed).
set -u
WANKA=$1 SRC=$2
BUILD=$(cd "$(dirname "$WANKA")" && pwd)
T=$(mktemp -d "/tmp/wk-readme-XXXXXX")
if [ "${README_TEST_KEEP:-0}" = 1 ]; then echo "readme: folder $T"; else trap 'rm -rf "$T"' EXIT; fi

# what the lines need beyond wanka: a C compiler and pkg-config (the plugin
# lines), Debian's python3 with h5py and matplotlib (plot, report --html)
for tool in cc pkg-config bash; do
  command -v $tool >/dev/null 2>&1 || { echo "readme: skipped: no $tool"; exit 77; }
done
/usr/bin/python3 -c 'import h5py, matplotlib' 2>/dev/null || { echo "readme: skipped: /usr/bin/python3 lacks h5py or matplotlib"; exit 77; }

ln -s "$BUILD" "$T/build"
for d in scenarios examples tests; do ln -s "$SRC/$d" "$T/$d"; done
have_philly=0
if [ -r "$SRC/../shared/traces/philly.csv" ]; then
  ln -s "$SRC/../shared/traces/philly.csv" "$T/philly.csv"
  have_philly=1
fi

# README line number and text of each command of the block, tab-separated
awk '
  /^## / { in_sec = ($0 == "## Using it") }
  in_sec && !done && /^```sh$/ { in_blk = 1; next }
  in_blk && /^```$/ { in_blk = 0; done = 1 }
  in_blk {
    if (cont != "") { cont = cont " " $0 } else { cont = $0; first = NR }
    if (cont ~ /\\$/) { sub(/\\$/, "", cont); next }
    if (cont !~ /^[ \t]*(#.*)?$/) printf "%d\t%s\n", first, cont
    cont = ""
  }' "$SRC/README.md" >"$T/.lines"
n=$(wc -l <"$T/.lines")
if [ "$n" -lt 10 ]; then
  echo "FAIL: found $n commands under README.md's '## Using it' (want its sh block)"
  exit 1
fi

{
  echo 'set -o pipefail'
  echo 'wk_fail() { echo "FAIL: README.md:$1: exit status $2: $3"; exit 1; }'
  while IFS="$(printf '\t')" read -r no cmd; do
    case "$cmd" in
      *"[network]"*) echo "echo 'readme: README.md:$no: not run ([network])'"; continue ;;
    esac
    case "$cmd" in
      *philly.csv*) if [ $have_philly = 0 ]; then
          echo "echo 'readme: README.md:$no: not run (no ../shared/traces/philly.csv beside the project)'"
          continue
        fi ;;
    esac
    q=$(printf '%s' "$cmd" | sed "s/'/'\\\\''/g")
    echo "echo 'readme: README.md:$no: $q'"
    printf '%s\n' "$cmd"
    echo "wk_st=\$?; [ \$wk_st = 0 ] || wk_fail $no \$wk_st '$q'"
  done <"$T/.lines"
  echo 'echo "readme: every command ran"'
} >"$T/.script.sh"

cd "$T" && bash "$T/.script.sh" </dev/null
