#!/usr/bin/env bash
# setup_cuda.sh installs the CUDA build of ONNX Runtime for `--device cuda` and
# says what else the GPU path needs. It is not part of `make setup` or
# `make test` (CI has no GPU; the wheel is 255 MB). Re-running it is quick.
#
#   1. pip downloads the pinned onnxruntime-gpu wheel (PyPI; built for CUDA 13
#      and cuDNN 9), checks its sha256, and extracts three files from
#      onnxruntime/capi/ into $CACHE/onnxruntime-gpu/$VERSION/:
#      libonnxruntime.so.$VERSION, libonnxruntime_providers_shared.so,
#      libonnxruntime_providers_cuda.so (each checked by sha256).
#   2. It looks for what the CUDA provider loads at run time — the CUDA 13
#      runtime, cuBLAS/cuBLASLt, cuRAND, cuDNN 9, and the driver's libcuda.so.1 —
#      in the lib folders of pip's nvidia-* packages (every python3 on PATH, or
#      $CGRAPH_PYTHON) and in the system's (ldconfig), and prints exactly what is
#      missing and the environment to use.
#
# Exit status: 0 when everything was found, 3 when the library is installed but
# a CUDA piece is missing (the message names it), 1 on a download or checksum
# failure. cgraph finds the library by itself (models/runtime.LibraryPathFor);
# CGRAPH_ORT_LIB overrides it.
set -euo pipefail

CACHE="${CGRAPH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cgraph}"
VERSION=1.31.1
WHEEL=onnxruntime_gpu-1.31.1-cp312-cp312-manylinux_2_28_x86_64.whl
WHEEL_SHA256=05d548956197b9d01f59b625de740e0d6be3593f874e241a12dc0362650ecdf7
DIR="$CACHE/onnxruntime-gpu/$VERSION"
declare -A LIB_SHA256=(
	["libonnxruntime.so.$VERSION"]=5104254339ecadae808da771bd0b63b240f0dbd466514234905e54372435c303
	[libonnxruntime_providers_shared.so]=086ec1d5388f64153d9c63470d126693db9a182c8ce236d3a1119068471b8a0d
	[libonnxruntime_providers_cuda.so]=8387867e857499e045caff5d13ac6a5de29571c801562fa2dde0e45f1f31de52
)

log() { printf 'setup-cuda: %s\n' "$*" >&2; }
sha_ok() { [ -f "$1" ] && echo "$2  $1" | sha256sum -c --status; }

# 1. The CUDA build of ONNX Runtime.
installed=1
for f in "${!LIB_SHA256[@]}"; do
	sha_ok "$DIR/$f" "${LIB_SHA256[$f]}" || installed=0
done
if [ "$installed" = 0 ]; then
	[ "$(uname -m)" = x86_64 ] || { log "the onnxruntime-gpu wheel is for x86-64 Linux; this machine is $(uname -m)"; exit 1; }
	command -v pip >/dev/null 2>&1 || command -v pip3 >/dev/null 2>&1 || { log "pip is needed to fetch onnxruntime-gpu==$VERSION (PyPI)"; exit 1; }
	PIP=$(command -v pip || command -v pip3)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	wheel="${CGRAPH_ORT_GPU_WHEEL:-}" # a wheel already on disk (offline machines)
	if [ -z "$wheel" ]; then
		log "fetching onnxruntime-gpu==$VERSION (PyPI, 255.6 MB)"
		"$PIP" download --quiet --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
			--python-version 3.12 --implementation cp -d "$tmp" "onnxruntime-gpu==$VERSION"
		wheel="$tmp/$WHEEL"
	fi
	sha_ok "$wheel" "$WHEEL_SHA256" || { log "sha256 mismatch for $wheel (want $WHEEL_SHA256)"; exit 1; }
	mkdir -p "$DIR"
	for f in "${!LIB_SHA256[@]}"; do
		unzip -p "$wheel" "onnxruntime/capi/$f" >"$DIR/$f.part"
		sha_ok "$DIR/$f.part" "${LIB_SHA256[$f]}" || { log "sha256 mismatch for $f in the wheel"; exit 1; }
		chmod 0755 "$DIR/$f.part"
		mv "$DIR/$f.part" "$DIR/$f"
	done
	log "installed ONNX Runtime $VERSION (CUDA) in $DIR"
else
	log "ONNX Runtime $VERSION (CUDA) already installed in $DIR"
fi

# 2. The CUDA libraries the provider loads: pip nvidia-* packages first.
pylibs=()
pythons=("${CGRAPH_PYTHON:-}" python3 python)
for py in "${pythons[@]}"; do
	[ -n "$py" ] && command -v "$py" >/dev/null 2>&1 || continue
	while IFS= read -r d; do
		[ -n "$d" ] && pylibs+=("$d")
	done < <("$py" - <<'EOF' 2>/dev/null || true
import glob, os
try:
    import nvidia
except ImportError:
    raise SystemExit
seen = set()
for root in nvidia.__path__:
    for d in sorted(glob.glob(os.path.join(root, "*", "lib")) + glob.glob(os.path.join(root, "cu*", "lib"))):
        if d not in seen and glob.glob(os.path.join(d, "lib*.so*")):
            seen.add(d)
            print(d)
EOF
)
done

# find_lib NAME: prints the folder holding NAME, from pip's folders, then
# LD_LIBRARY_PATH, then ldconfig's cache.
find_lib() {
	local d
	for d in "${pylibs[@]}" ${LD_LIBRARY_PATH:+${LD_LIBRARY_PATH//:/ }}; do
		[ -e "$d/$1" ] && { echo "$d"; return 0; }
	done
	local p
	p=$(ldconfig -p 2>/dev/null | awk -v n="$1" '$1 == n { print $NF; exit }')
	[ -n "$p" ] && { dirname "$p"; return 0; }
	for d in /usr/local/cuda/lib64 /usr/local/nvidia/lib64 /usr/lib/x86_64-linux-gnu /usr/lib/wsl/lib; do
		[ -e "$d/$1" ] && { echo "$d"; return 0; }
	done
	return 1
}

declare -A WHAT=(
	[libcudart.so.13]="CUDA 13 runtime: pip install nvidia-cuda-runtime (CUDA 13)"
	[libcublas.so.13]="cuBLAS 13: pip install nvidia-cublas (CUDA 13)"
	[libcublasLt.so.13]="cuBLASLt 13: pip install nvidia-cublas (CUDA 13)"
	[libcurand.so.10]="cuRAND: pip install nvidia-curand (CUDA 13)"
	[libcudnn.so.9]="cuDNN 9: pip install nvidia-cudnn-cu13"
	[libcuda.so.1]="the NVIDIA driver (no GPU driver on this machine: --device cuda cannot run here)"
)
missing=()
dirs=()
for lib in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcurand.so.10 libcudnn.so.9 libcuda.so.1; do
	if d=$(find_lib "$lib"); then
		log "found $lib in $d"
		case " ${dirs[*]} " in *" $d "*) ;; *) dirs+=("$d") ;; esac
	else
		missing+=("$lib (${WHAT[$lib]})")
	fi
done

ld=$(IFS=:; echo "${dirs[*]}")
echo "export CGRAPH_ORT_LIB=$DIR/libonnxruntime.so.$VERSION"
echo "export LD_LIBRARY_PATH=$ld\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
if ((${#missing[@]})); then
	log "missing for --device cuda:"
	for m in "${missing[@]}"; do log "  $m"; done
	log "then put their lib folders on LD_LIBRARY_PATH (the pip packages' lib folders are found by this script) and run it again"
	exit 3
fi
log "ready: with the two exports above, \`cgraph --device cuda embedders\` opens every model on the GPU"
