# Shared by scripts/setup, scripts/test and scripts/device-check: install what is missing, configure, build.
# Sourced, not run. Works on a fresh Debian/Ubuntu machine with a package registry (installs with
# apt-get) and on a machine with everything present and no network (installs nothing).

GPUBENCH_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GPUBENCH_BUILD="${GPUBENCH_BUILD:-$GPUBENCH_ROOT/build}"

log() { printf 'gpubench: %s\n' "$*" >&2; }

# Debian packages the build needs (cmake config files / headers), checked with dpkg before apt-get.
# libsqlite3-dev: `gpubench profile` reading Nsight Systems SQLite exports (optional to CMake, installed here).
# python3-matplotlib: scripts/plot and its test (counted present when any python3 imports matplotlib).
# python3-yaml, yamllint, shellcheck: the scale-out examples' checks (tests/examples; python3-yaml counted present when
# any python3 imports yaml).
GPUBENCH_PACKAGES=(cmake make g++ libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev zlib1g-dev libdlpack-dev
                   libssl-dev libsqlite3-dev python3-matplotlib python3-yaml yamllint shellcheck)

# True when python3 (or the system's /usr/bin/python3, where Debian's python3-* packages go) imports module $1.
have_python_module() {
  local py
  for py in python3 /usr/bin/python3; do
    "$py" -c "import $1" >/dev/null 2>&1 && return 0
  done
  return 1
}

have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

install_missing() {
  local missing=()
  for p in "${GPUBENCH_PACKAGES[@]}"; do
    case "$p" in
      cmake|make|g++) command -v "$p" >/dev/null 2>&1 || missing+=("$p") ;;
      python3-matplotlib) have_python_module matplotlib || missing+=("$p") ;;
      python3-yaml) have_python_module yaml || missing+=("$p") ;;
      yamllint|shellcheck) command -v "$p" >/dev/null 2>&1 || missing+=("$p") ;;
      *) have_pkg "$p" || missing+=("$p") ;;
    esac
  done
  if [ ${#missing[@]} -eq 0 ]; then
    log "dependencies present"
    return 0
  fi
  log "installing: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

find_nvcc() {
  if command -v nvcc >/dev/null 2>&1; then command -v nvcc; return; fi
  for c in /usr/local/cuda/bin/nvcc /usr/local/cuda-13.0/bin/nvcc; do
    [ -x "$c" ] && { echo "$c"; return; }
  done
  log "error: nvcc not found: install the CUDA 13 toolkit (expected at /usr/local/cuda)"
  return 1
}

# Header-only or -dev packages a machine without a package registry lacks (the GPU machine): .deb files carried in
# $GPUBENCH_ROOT/.deps (made with `apt-get download libdlpack-dev libssl-dev`) are unpacked into .deps/root, never
# into /, and offered to CMake. Prints the CMake arguments (none when the system has the headers).
carried_deps_args() {
  local root="$GPUBENCH_ROOT/.deps/root" lib d args=""
  mkdir -p "$root"
  if [ ! -f /usr/include/dlpack/dlpack.h ]; then
    for d in "$GPUBENCH_ROOT"/.deps/libdlpack-dev_*.deb; do [ -f "$d" ] && dpkg -x "$d" "$root" && args="-DCMAKE_PREFIX_PATH=$root/usr"; done
  fi
  if [ ! -f /usr/include/openssl/evp.h ]; then
    for d in "$GPUBENCH_ROOT"/.deps/libssl-dev_*.deb; do
      [ -f "$d" ] || continue
      dpkg -x "$d" "$root"
      # libssl-dev's libcrypto.so points at libcrypto.so.3 beside it: take the system's runtime library.
      lib="$(ls /usr/lib/x86_64-linux-gnu/libcrypto.so.3 /lib/x86_64-linux-gnu/libcrypto.so.3 2>/dev/null | head -1)"
      [ -n "$lib" ] && ln -sf "$lib" "$root/usr/lib/x86_64-linux-gnu/libcrypto.so.3"
      args="$args -DOPENSSL_ROOT_DIR=$root/usr"
    done
  fi
  echo "$args"
}

# Configures the build folder and builds every target (or only GPUBENCH_BUILD_TARGETS, space-separated, when set:
# scripts/setup builds what the main job runs, not the test binaries). Extra arguments go to the configure step.
configure_and_build() {
  local nvcc jobs deps targets=""
  nvcc="$(find_nvcc)" || return 1
  jobs="$(nproc 2>/dev/null || echo 2)"
  deps="$(carried_deps_args)"
  # shellcheck disable=SC2086  # deps: several arguments
  cmake -S "$GPUBENCH_ROOT" -B "$GPUBENCH_BUILD" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_COMPILER="$nvcc" $deps "$@" >/dev/null
  [ -n "${GPUBENCH_BUILD_TARGETS:-}" ] && targets="--target $GPUBENCH_BUILD_TARGETS"
  # shellcheck disable=SC2086  # targets: several arguments
  cmake --build "$GPUBENCH_BUILD" -j"$jobs" $targets
}
